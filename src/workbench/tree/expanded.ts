// The rows of a tree view that are expanded, remembered across window reloads. VS Code does not
// keep the expansion of an extension's tree view over a reload (its tree is given no view state),
// so the view comes back collapsed unless the extension draws the rows expanded itself: it
// remembers the ids of the rows the user expanded (per workspace, per account, as the folder
// mappings are) and draws those rows expanded when they are shown again. A row collapsed is
// forgotten.
import * as vscode from 'vscode';
import { background } from '../../core/util/background';
import { Disposable } from '../../core/util/disposable';
import type { TreeNode } from './node';

/**
 * Rows whose id starts with this are not remembered: a live server's rows (src/features/live), which
 * drawn expanded at start-up would connect to the server (and perhaps ask for a password) unasked.
 */
export const NOT_REMEMBERED = 'live:';

/** At most this many ids per account: the oldest expanded go first. */
const MAX_IDS = 500;

export class ExpandedRows extends Disposable {
  /** The ids of the account last asked about, oldest expanded first (read once: every row drawn asks). */
  private read: { acc: string; ids: string[]; set: Set<string> } | undefined;

  constructor(
    private readonly state: vscode.Memento,
    /** The workspaceState key. */
    private readonly key: string,
    /** Who the rows belong to (their ids are only unique within one account); undefined when signed out. */
    private readonly account: () => string | undefined,
  ) {
    super();
  }

  private all(): Record<string, unknown> {
    const v = this.state.get<unknown>(this.key);
    return v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Record<string, unknown>) } : {};
  }

  private of(acc: string): { acc: string; ids: string[]; set: Set<string> } {
    if (this.read?.acc !== acc) {
      const v = this.all()[acc];
      const ids = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
      this.read = { acc, ids, set: new Set(ids) };
    }
    return this.read;
  }

  private update(id: string, expanded: boolean): Thenable<void> | undefined {
    const acc = this.account();
    if (!acc) return undefined;
    const ids = this.of(acc).ids.filter((x) => x !== id);
    if (expanded) ids.push(id);
    const kept = ids.slice(-MAX_IDS);
    this.read = { acc, ids: kept, set: new Set(kept) };
    const all = this.all();
    if (kept.length) all[acc] = kept;
    else delete all[acc];
    return this.state.update(this.key, all);
  }

  /** Follows what the user expands and collapses in `view`. */
  track(view: vscode.TreeView<TreeNode>): void {
    const follow = (node: TreeNode, expanded: boolean) =>
      background(
        'Remembering the expanded rows',
        Promise.resolve(node.getTreeItem()).then((item) => (item.id && !item.id.startsWith(NOT_REMEMBERED) ? this.update(item.id, expanded) : undefined)),
      );
    this.own(view.onDidExpandElement((e) => follow(e.element, true)));
    this.own(view.onDidCollapseElement((e) => follow(e.element, false)));
  }

  /** The item, drawn expanded when its row was expanded when last seen. */
  readonly restore = (item: vscode.TreeItem): vscode.TreeItem => {
    const acc = this.account();
    if (acc && item.id && item.collapsibleState === vscode.TreeItemCollapsibleState.Collapsed && this.of(acc).set.has(item.id)) {
      item.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
    }
    return item;
  };
}

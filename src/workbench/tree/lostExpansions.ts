// Rows the user expands while VS Code redraws a whole tree, expanded again when the redraw has
// dropped them. VS Code's tree (the workbench's AsyncDataTree behind every extension TreeView)
// redraws the whole tree after a refresh of its root only once the children of every expanded row
// have come back; a row that is collapsed when the new roots arrive is marked stale, and a row
// marked stale is drawn collapsed by that redraw whatever the user did meanwhile. So a row expanded
// by a click between the new roots and the last children of the other expanded rows (seconds,
// when one of those waits for a slow service) is folded back when the redraw comes, and stays
// folded: its own children are fetched, but nothing expands it again (seen in code-server 1.139,
// test views.test "a site expanded while a Refresh waits…"). The extension hears of the expansion
// (onDidExpandElement) and of no collapse; while the children of other rows were being loaded at
// that moment, the row is revealed with `expand` once they are in. The extension host holds a
// reveal until the tree's refresh is drawn, so it expands the row after the redraw; a row that
// is expanded already stays as it is (the reveal scrolls it into view only if it is out of it).
import type * as vscode from 'vscode';
import { background } from '../../core/util/background';
import { Disposable } from '../../core/util/disposable';
import type { TreeNode } from './node';

export class LostExpansions extends Disposable {
  /** The loads of children handed to VS Code that have not settled, with the node they fill (undefined: the roots). */
  private readonly loads = new Map<Promise<unknown>, TreeNode | undefined>();
  /** Per row id: the number of the last expand or collapse the user made of it. */
  private readonly last = new Map<string, number>();
  private seq = 0;
  /** The expand events being handled (waiting for the loads of other rows, or revealing). */
  private readonly handling = new Set<Promise<void>>();

  /** Records a load of the children of `node` while it runs; returns it. */
  loading<T>(node: TreeNode | undefined, load: Promise<T>): Promise<T> {
    this.loads.set(load, node);
    const done = () => this.loads.delete(load);
    load.then(done, done);
    return load;
  }

  /** Follows the rows the user expands and collapses in `view`. */
  watch(view: vscode.TreeView<TreeNode>): void {
    this.own(view.onDidCollapseElement((e) => background('Following a collapsed row', this.mark(e.element).then(() => undefined))));
    this.own(
      view.onDidExpandElement((e) => {
        const p = this.expanded(view, e.element);
        this.handling.add(p);
        const done = () => this.handling.delete(p);
        p.then(done, done);
        background('Keeping an expanded row expanded', p);
      }),
    );
  }

  /** Resolves when every expand event heard so far has been handled (its row revealed, or left as it is). */
  async idle(): Promise<void> {
    while (this.handling.size) await Promise.allSettled([...this.handling]);
  }

  private async mark(node: TreeNode): Promise<{ id: string; n: number } | undefined> {
    // Taken now: the loads under way when the event came, not when the item is made.
    const n = ++this.seq;
    const id = (await node.getTreeItem()).id;
    if (!id) return undefined;
    // Events are numbered in the order they came: a later one of the same row wins.
    if ((this.last.get(id) ?? 0) < n) this.last.set(id, n);
    return { id, n };
  }

  private async expanded(view: vscode.TreeView<TreeNode>, node: TreeNode): Promise<void> {
    // The loads of other rows under way when the row was expanded: VS Code's redraw waits for them.
    const others = [...this.loads].filter(([, n]) => n !== node).map(([p]) => p);
    const m = await this.mark(node);
    if (!m || !others.length) return;
    await Promise.allSettled(others);
    // Collapsed or expanded again since: the user's later move stands.
    if (this.last.get(m.id) !== m.n || !view.visible) return;
    // A row VS Code drew expanded is left as it is (no event follows); one it folded back is expanded.
    await view.reveal(node, { expand: true, select: false, focus: false });
  }
}

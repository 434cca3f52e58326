// "Overwritten on the Server" (issue 34 §3): the local copies kept before an upload, a sync, a
// put-back or a save of the live folder replaced or deleted a live file (and of working files
// replaced by Take Theirs or a sync), grouped by site, newest first: the path, when, the size, and
// why. A click compares the copy with the live file as it is now; the row's actions compare it
// with the working file, put it back on the server (through the guard: a live file changed since
// shows the conflict choice) or delete it (asks). The copies live under the account's cache
// folder, bounded in bytes (oldest evicted first), and go at sign-out.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { KeptCopies, KeptCopy } from '../../core/transfer';
import { formatShortLocal, relativeTime } from '../../core/model/time';
import { translate } from '../../workbench/l10n';
import { displayText } from '../../core/util/text';
import { TreeNode } from '../../workbench/tree/node';
import { MessageNode } from '../../workbench/tree/message';
import { sizeText } from '../live/liveTree';
import { whyText } from './uris';

export class CopySiteNode extends TreeNode {
  constructor(
    readonly siteId: string,
    readonly site: Site | undefined,
    readonly copies: KeptCopy[],
  ) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.site ? displayText(this.site.name || this.site.id) : vscode.l10n.t('A site no longer listed ({0})', displayText(this.siteId)), vscode.TreeItemCollapsibleState.Expanded);
    item.id = `overwritten:site:${this.siteId}`;
    item.iconPath = new vscode.ThemeIcon('server');
    item.description = this.copies.length === 1 ? vscode.l10n.t('1 copy') : vscode.l10n.t('{0} copies', this.copies.length);
    item.contextValue = 'overwrittenSite';
    return item;
  }
  getChildren(): TreeNode[] {
    return this.copies.map((c) => new CopyNode(this, c));
  }
}

export class CopyNode extends TreeNode {
  constructor(
    readonly siteNode: CopySiteNode,
    readonly copy: KeptCopy,
  ) {
    super(siteNode);
  }
  get site(): Site | undefined {
    return this.siteNode.site;
  }
  getTreeItem(): vscode.TreeItem {
    const c = this.copy;
    const name = c.path.slice(c.path.lastIndexOf('/') + 1);
    const dir = c.path.includes('/') ? c.path.slice(0, c.path.lastIndexOf('/')) : '';
    const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
    item.id = `overwritten:${c.id}`;
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${name}` });
    item.iconPath = new vscode.ThemeIcon(c.side === 'live' ? 'cloud' : 'file');
    const when = formatShortLocal(c.at);
    item.description = [relativeTime(c.at, Date.now(), translate, vscode.env.language), whyText(c), sizeText(c.size), displayText(dir)].filter(Boolean).join(' · ');
    item.tooltip = [
      c.path,
      c.side === 'live' ? vscode.l10n.t('The live file as it was on the server, {0}.', whyText(c)) : vscode.l10n.t('Your working file as it was, {0}.', whyText(c)),
      vscode.l10n.t('Kept {0} · {1}', when, sizeText(c.size)),
      c.live?.mtime !== undefined ? vscode.l10n.t('Modified on the server then: {0}', formatShortLocal(c.live.mtime)) : c.live?.mtimeRaw ? vscode.l10n.t('Modified on the server then: {0}', displayText(c.live.mtimeRaw)) : '',
      vscode.l10n.t('Click to compare it with the live file now.'),
    ]
      .filter(Boolean)
      .join('\n');
    item.command = { command: 'siteRevisions.overwrittenCompareLive', title: vscode.l10n.t('Compare with Live File'), arguments: [this] };
    item.contextValue = `overwrittenCopy.${c.side}`;
    item.accessibilityInformation = { label: vscode.l10n.t('{0}, kept {1}, {2}, {3}', c.path, when, sizeText(c.size), whyText(c)) };
    return item;
  }
}

export class OverwrittenView implements vscode.TreeDataProvider<TreeNode> {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  view: vscode.TreeView<TreeNode> | undefined;

  constructor(
    private readonly copies: () => Promise<KeptCopies>,
    private readonly siteOf: (siteId: string) => Site | undefined,
  ) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getTreeItem(n: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    return n.getTreeItem();
  }

  async getChildren(n?: TreeNode): Promise<TreeNode[]> {
    if (n) return n.getChildren();
    let store: KeptCopies;
    try {
      store = await this.copies();
    } catch (e) {
      return [new MessageNode(undefined, e instanceof Error ? e.message : String(e), { icon: 'info', id: 'overwritten:none' })];
    }
    const all = await store.list();
    const s = store.stats();
    if (this.view) this.view.description = vscode.l10n.t('{0} of {1} kept', sizeText(s.bytes), sizeText(s.maxBytes));
    const bySite = new Map<string, KeptCopy[]>();
    for (const c of all) bySite.set(c.siteId, [...(bySite.get(c.siteId) ?? []), c]);
    return [...bySite].map(([id, list]) => new CopySiteNode(id, this.siteOf(id), list));
  }

  getParent(n: TreeNode): TreeNode | undefined {
    return n.parent;
  }
}

// What activation registers for the live feature (issue 33): the `site-live:` file system (so a
// restored window's live tabs and live workspace folders open; writable since issue 34, its writes
// answered by the transfer feature), the Live Files row under each
// site a live server can be reached for, every command and the language-model tool. The code
// behind them (./index.ts) is imported on first use: a Live Files row expanded, a live file
// opened, a command run. Nothing of the connection layer or its protocols loads at activation
// (test/unit/bundle.test.ts).
import * as vscode from 'vscode';
import { feature, lazyCommand } from '../../workbench/feature';
import { TreeNode } from '../../workbench/tree/node';
import { heldDocuments, LazyFileSystem, type FileSystemWrites } from '../../workbench/lazyFileSystem';
import { accountKey } from '../revisions/register';
import type { SiteNode, SitesTreeProvider } from '../sites/sitesTree';
import type { Revisions } from '../revisions/register';
import type { LiveFeature, LiveFeatureDeps } from './index';
import { LIVE_COMMANDS, LIVE_COMMANDS_INTERNAL, LIVE_TOOL, LIVE_TYPES, type LiveFolderNode } from './names';

const LIVE_SCHEME = 'site-live';

/** The "Live Files" row under a site: the live server's root (its `dir`). */
export class LiveRootNode extends TreeNode implements LiveFolderNode {
  readonly path = '';
  constructor(
    readonly siteNode: SiteNode,
    private readonly load: () => Promise<LiveFeature>,
  ) {
    super(siteNode);
  }
  get site(): SiteNode['site'] {
    return this.siteNode.site;
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Live Files'), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `live:${JSON.stringify([this.site.id, 'root'])}`;
    item.iconPath = new vscode.ThemeIcon('cloud');
    item.description = this.site.dir ? this.site.dir : vscode.l10n.t('on the server');
    item.tooltip = vscode.l10n.t('The files on the site\'s server now (connects when expanded).');
    item.contextValue = 'liveRoot';
    return item;
  }
  async getChildren(): Promise<TreeNode[]> {
    return (await this.load()).tree.children(this);
  }
}

/**
 * @param writes the live files' writes (save, create, rename, delete), answered by the transfer
 * feature through the guard, loaded by the first write.
 */
export function registerLive(deps: Omit<LiveFeatureDeps, 'revisions'> & { revisions: Revisions; tree: SitesTreeProvider; writes: () => Promise<FileSystemWrites> }, subscriptions: vscode.Disposable[]): { load: () => Promise<LiveFeature> } {
  const load = feature(async () => (await import('./index.js')).activateLive({ ...deps, revisions: deps.revisions }, subscriptions));
  const provider = new LazyFileSystem(async () => (await load()).fs, deps.writes);
  deps.tree.addSiteRows((node) => (!node.duplicate && LIVE_TYPES.includes(node.site.server_type) ? [new LiveRootNode(node, load)] : []));
  // Another account signed in: the live documents VS Code holds are read again (one of an account
  // not signed in reads as a message: ./fileSystem.ts), so none keeps the previous account's bytes.
  let account = accountKey(deps.session);
  const followAccount = deps.session.onDidChange(() => {
    const now = accountKey(deps.session);
    if (now === account) return;
    account = now;
    provider.changed(heldDocuments(LIVE_SCHEME));
  });
  subscriptions.push(
    provider,
    followAccount,
    vscode.workspace.registerFileSystemProvider(LIVE_SCHEME, provider, { isCaseSensitive: true }),
    ...[...LIVE_COMMANDS, ...Object.values(LIVE_COMMANDS_INTERNAL)].map((id) => lazyCommand(id, load, (f, ...args) => f.handlers[id](...args))),
    vscode.lm.registerTool<object>(LIVE_TOOL, {
      prepareInvocation: async (o, token) => (await load()).tool.prepareInvocation?.(o, token),
      invoke: async (o, token) => (await load()).tool.invoke(o, token),
    }),
  );
  return { load };
}

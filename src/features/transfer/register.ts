// What activation registers for transfers (issue 34): every command, the "Overwritten on the
// Server" view (its rows loaded when it is first shown), the kept copies' documents (`site-kept:`,
// so a restored diff tab opens), the writes of the live folder (handed to the live feature's file
// system), and the save listener of upload on save. That listener decides at once, without
// loading anything, whether a save concerns a site that uploads on save (./flag.ts); only then
// is the code behind it (./index.ts) imported. Upload queues a previous session left on disk
// (saves made offline) are opened once the session is restored.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { background } from '../../core/util/background';
import { setContext } from '../../workbench/context';
import { feature, lazyCommand } from '../../workbench/feature';
import { LazyReadonlyFileSystem, type FileSystemWrites } from '../../workbench/lazyFileSystem';
import type { TreeNode } from '../../workbench/tree/node';
import type { AccountCache } from '../auth/accountCache';
import type { Session } from '../auth/session';
import type { LiveFeature } from '../live';
import type { Revisions } from '../revisions/register';
import { accountKey } from '../revisions/register';
import type { SitesModel } from '../sites/sitesModel';
import type { Log } from '../../workbench/log';
import type { Notifier } from '../../workbench/notify';
import { saveFlag } from './flag';
import type { TransferFeature } from './index';
import { KEPT_SCHEME, OVERWRITTEN_VIEW, TRANSFER_COMMANDS } from './names';

export interface TransferDeps {
  context: vscode.ExtensionContext;
  session: Session;
  model: SitesModel;
  log: Log;
  notifier: Notifier;
  revisions: Revisions;
  live: () => Promise<LiveFeature>;
  cache: AccountCache;
  whenReady: () => Promise<unknown>;
}

/** The Overwritten view's rows, answered by the feature once it is loaded (the view's first showing loads it). */
class LazyTree implements vscode.TreeDataProvider<TreeNode> {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private hooked = false;
  constructor(private readonly tree: () => Promise<vscode.TreeDataProvider<TreeNode>>) {}
  private async get(): Promise<vscode.TreeDataProvider<TreeNode>> {
    const t = await this.tree();
    if (!this.hooked && t.onDidChangeTreeData) {
      this.hooked = true;
      t.onDidChangeTreeData((e) => this.emitter.fire(e instanceof Array ? undefined : (e ?? undefined)));
    }
    return t;
  }
  async getTreeItem(n: TreeNode): Promise<vscode.TreeItem> {
    return (await this.get()).getTreeItem(n);
  }
  async getChildren(n?: TreeNode): Promise<TreeNode[]> {
    return (await (await this.get()).getChildren(n)) ?? [];
  }
  getParent(n: TreeNode): TreeNode | undefined {
    return n.parent;
  }
}

export function registerTransfer(deps: TransferDeps, subscriptions: vscode.Disposable[]): { load: () => Promise<TransferFeature>; writes: () => Promise<FileSystemWrites> } {
  const { context, session, model, revisions } = deps;
  const load = feature(async () =>
    (await import('./index.js')).activateTransfer({ ...deps, revisions: { load: revisions.load, folders: revisions.folders }, accountKey: () => accountKey(session) }, subscriptions),
  );
  // The view's rows load the feature when it is first shown.
  const overwritten: vscode.TreeView<TreeNode> = vscode.window.createTreeView(OVERWRITTEN_VIEW, {
    treeDataProvider: new LazyTree(async () => {
      const f = await load();
      f.overwritten.view = overwritten;
      return f.overwritten;
    }),
    showCollapseAll: true,
  });

  /** A save of a file of a mapped folder whose site uploads on save: handed to the feature. */
  const onSave = (doc: vscode.TextDocument) => {
    const uri = doc.uri;
    if (uri.scheme !== 'file') return;
    const m = revisions.folders.sitesContaining(uri)[0];
    if (!m) return;
    const site = model.find(m.siteId);
    if (!site) return;
    const flag = saveFlag(site, context.globalState, accountKey(session));
    if (!flag.on || flag.answer === 'no') return;
    background('Upload on save', (async () => (await load()).saved(site, m.folder, m.segments.join('/')))());
  };

  // Upload and Download show on the Explorer's files once a folder is mapped.
  const mapped = () => setContext('siteRevisions.transfer.mapped', revisions.folders.mapped().length > 0);
  mapped();

  subscriptions.push(
    revisions.folders.onDidChange(mapped),
    session.onDidChange(mapped),
    overwritten,
    vscode.workspace.registerFileSystemProvider(KEPT_SCHEME, new LazyReadonlyFileSystem(async () => (await load()).kept), { isReadonly: true, isCaseSensitive: true }),
    ...TRANSFER_COMMANDS.map((id) => lazyCommand(id, load, (f, ...args) => f.handlers[id](...args))),
    vscode.workspace.onDidSaveTextDocument(onSave),
  );
  // Saves queued in an earlier session (offline, or closed while uploading) go once it is restored.
  background(
    'Resuming the upload queues',
    (async () => {
      await deps.whenReady();
      const dir = deps.cache.folder && path.join(deps.cache.folder, 'transfer');
      if (!dir) return;
      const names = await fsp.readdir(dir).catch(() => [] as string[]);
      const queued: string[] = [];
      for (const n of names) {
        if (!n.endsWith('.upload-queue.json')) continue;
        const body = await fsp.readFile(path.join(dir, n), 'utf8').catch(() => '');
        const j = (() => {
          try {
            return JSON.parse(body) as { siteId?: unknown; items?: unknown[] };
          } catch {
            return undefined;
          }
        })();
        if (typeof j?.siteId === 'string' && Array.isArray(j.items) && j.items.length) queued.push(j.siteId);
      }
      if (!queued.length) return;
      await model.all().catch(() => undefined);
      await (await load()).resume(queued);
    })(),
  );
  return { load, writes: async () => (await load()).liveWrites };
}

// Compare Live with Local and Live Drift (issue 33 §6), the part a person sees: from a site, a
// Live Files folder or the palette; the run (the plain-Node engine of src/core/live/compare.ts,
// with progress and cancel) and its result in the "Live Server" view of the Site Revisions
// container (shown once first used), in groups — differs from local, differs from the newest
// revision, only live, only local, only in the history — each row with the basis it was decided
// on ("same size, content differs") and the diff it opens; a group opens as one multi-file diff.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { compareLive, storeHistory, type CompareProgress, type CompareResult } from '../../core/live';
import { LastSeen } from '../../core/live';
import type { CompareGroup, CompareRow } from '../../core/live';
import { nodeWorkingFs } from '../../core/status/working';
import { displayText } from '../../core/util/text';
import { background } from '../../core/util/background';
import { setContext } from '../../workbench/context';
import type { Log } from '../../workbench/log';
import { message, plain } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import { MessageNode } from '../../workbench/tree/message';
import { TreeNode } from '../../workbench/tree/node';
import type { AccountCache } from '../auth/accountCache';
import type { Session } from '../auth/session';
import type { RevisionsApi } from '../revisions';
import { FolderMapping } from '../revisions/mapping';
import { revisionDocumentUri, revisionUri } from '../revisions/fileSystem';
import { SiteNode } from '../sites/sitesTree';
import { baseName, parentPath } from './address';
import { UnreachableSite, type LiveConnections } from './connections';
import { liveUri } from './fileSystem';
import { failureText, sizeText } from './liveTree';
import { LIVE_COMPARE_VIEW } from './names';

export type CompareKind = 'local' | 'drift';

export interface LiveCompareDeps {
  session: Session;
  log: Log;
  notifier: Notifier;
  connections: LiveConnections;
  revisions: { load(): Promise<RevisionsApi> };
  cache: AccountCache;
}

export interface LiveRun {
  kind: CompareKind;
  site: Site;
  /** The folder compared ('' the whole site). */
  root: string;
  /** The mapped folder (Compare Live with Local). */
  folder?: vscode.Uri;
  state: 'running' | 'done' | 'cancelled' | 'failed';
  progress?: CompareProgress;
  result?: CompareResult;
  error?: unknown;
  readonly abort: AbortController;
  /** Set once it ended (tests wait for it). */
  finished: Promise<void>;
}

export const GROUP_ORDER: CompareGroup[] = ['differsFromNewest', 'differsFromLocal', 'onlyLive', 'onlyLocal', 'onlyInHistory'];

export function groupLabel(g: CompareGroup): string {
  switch (g) {
    case 'differsFromLocal':
      return vscode.l10n.t('Differs from local');
    case 'differsFromNewest':
      return vscode.l10n.t('Differs from the newest revision');
    case 'onlyLive':
      return vscode.l10n.t('Only live');
    case 'onlyLocal':
      return vscode.l10n.t('Only local');
    case 'onlyInHistory':
      return vscode.l10n.t('Only in the history');
  }
}

function groupTooltip(g: CompareGroup, kind: CompareKind): string {
  switch (g) {
    case 'differsFromLocal':
      return vscode.l10n.t('The live file and the working file differ.');
    case 'differsFromNewest':
      return vscode.l10n.t('Changed on the server outside this editor: the live file is not the newest revision the service has of it.');
    case 'onlyLive':
      return kind === 'local' ? vscode.l10n.t('On the live server, not in the local folder.') : vscode.l10n.t('On the live server, with no revision on the service.');
    case 'onlyLocal':
      return vscode.l10n.t('In the local folder, not on the live server.');
    case 'onlyInHistory':
      return vscode.l10n.t('The service has revisions of it, but it is not on the live server (deleted there?).');
  }
}

/** How a row was decided, in words. */
export function basisText(r: CompareRow): string {
  const other = r.group === 'differsFromLocal' ? r.local?.size : r.newest?.size;
  switch (r.basis) {
    case 'size':
      if (r.group === 'differsFromLocal' || r.group === 'differsFromNewest') {
        return other !== undefined && r.live?.size !== undefined
          ? vscode.l10n.t('size differs: {0} live, {1} {2}', sizeText(r.live.size), sizeText(other), r.group === 'differsFromLocal' ? vscode.l10n.t('local') : vscode.l10n.t('newest revision'))
          : vscode.l10n.t('size differs');
      }
      return r.live?.size !== undefined ? sizeText(r.live.size) : r.local?.size !== undefined ? sizeText(r.local.size) : '';
    case 'hash':
      return r.live?.size !== undefined && (other === undefined || other === r.live.size) ? vscode.l10n.t('same size, content differs') : vscode.l10n.t('content differs');
    case 'lastSeen':
      return r.live?.size !== undefined && (other === undefined || other === r.live.size) ? vscode.l10n.t('same size, content differs (known from the last read)') : vscode.l10n.t('content differs (known from the last read)');
    case 'unreadable':
      return vscode.l10n.t('could not be read to compare');
  }
}

class GroupNode extends TreeNode {
  constructor(
    readonly run: LiveRun,
    readonly group: CompareGroup,
    readonly rows: CompareRow[],
    private readonly c: LiveCompare,
  ) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(groupLabel(this.group), this.group === 'differsFromNewest' || this.group === 'differsFromLocal' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `liveCompare:${this.group}`;
    item.description = this.rows.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', this.rows.length);
    item.tooltip = groupTooltip(this.group, this.run.kind);
    item.iconPath = new vscode.ThemeIcon(this.group.startsWith('differs') ? 'diff' : this.group === 'onlyInHistory' ? 'history' : 'diff-single');
    item.contextValue = this.group.startsWith('differs') || this.group === 'onlyLive' ? 'liveCompareGroup.diffable' : 'liveCompareGroup';
    return item;
  }
  getChildren(): TreeNode[] {
    return this.rows.map((r) => new RowNode(this, this.run, r, this.c));
  }
}

class RowNode extends TreeNode {
  constructor(
    parent: TreeNode,
    readonly run: LiveRun,
    readonly row: CompareRow,
    private readonly c: LiveCompare,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const r = this.row;
    const item = new vscode.TreeItem(baseName(r.path), vscode.TreeItemCollapsibleState.None);
    item.id = `liveCompare:${JSON.stringify([r.group, r.path])}`;
    const folder = parentPath(r.path);
    item.description = [displayText(folder), basisText(r)].filter(Boolean).join(' · ');
    item.tooltip = `${r.path}\n${basisText(r)}`;
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${baseName(r.path)}` });
    item.iconPath = vscode.ThemeIcon.File;
    const d = this.c.diffOf(this.run, r);
    item.command = d.original
      ? { command: 'vscode.diff', title: vscode.l10n.t('Compare'), arguments: [d.original, d.modified, d.title, { preview: true }] }
      : { command: 'vscode.open', title: vscode.l10n.t('Open'), arguments: [d.modified, { preview: true }] };
    item.contextValue = 'liveCompareRow';
    item.accessibilityInformation = { label: `${r.path}, ${groupLabel(r.group)}, ${basisText(r)}` };
    return item;
  }
}

export class LiveCompare implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  current: LiveRun | undefined;
  private view: vscode.TreeView<TreeNode> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private revisions: RevisionsApi | undefined;

  constructor(
    private readonly deps: LiveCompareDeps,
    private readonly subscriptions: vscode.Disposable[],
  ) {}

  private ensureView(): vscode.TreeView<TreeNode> {
    if (!this.view) {
      this.view = vscode.window.createTreeView(LIVE_COMPARE_VIEW, { treeDataProvider: this, showCollapseAll: true });
      this.subscriptions.push(this.view);
    }
    return this.view;
  }

  dispose(): void {
    this.current?.abort.abort();
    this.emitter.dispose();
  }

  private account(): string {
    return this.deps.connections.account() ?? '';
  }

  /** The two sides of a row's diff (original may be missing: then `modified` opens alone). */
  diffOf(run: LiveRun, r: CompareRow): { original?: vscode.Uri; modified: vscode.Uri; title: string } {
    const live = liveUri({ siteId: run.site.id, account: this.account(), path: r.path }, run.site.name);
    const name = baseName(r.path);
    const working = run.folder ? FolderMapping.resolveWorkingFile(run.folder, r.path) : undefined;
    const newest = (): vscode.Uri | undefined => {
      const list = this.revisions?.store.peekRevisions(run.site.id, r.path) ?? this.revisions?.store.peekRevisions(run.site.id, `/${r.path}`);
      const top = list?.items[0];
      if (top) return revisionDocumentUri({ site: run.site, path: list.path, item: top.item, time: top.time });
      return r.newest ? revisionUri({ siteId: run.site.id, revisionId: r.newest.revisionId, path: r.path }) : undefined;
    };
    switch (r.group) {
      case 'differsFromLocal':
        return working?.ok ? { original: live, modified: working.uri, title: vscode.l10n.t('{0} (live ↔ working file)', name) } : { modified: live, title: name };
      case 'differsFromNewest': {
        const n = newest();
        return n ? { original: n, modified: live, title: vscode.l10n.t('{0} (newest revision ↔ live)', name) } : { modified: live, title: name };
      }
      case 'onlyLive':
        return { modified: live, title: name };
      case 'onlyLocal':
        return working?.ok ? { modified: working.uri, title: name } : { modified: live, title: name };
      case 'onlyInHistory': {
        const n = newest();
        return { modified: n ?? live, title: name };
      }
    }
  }

  private states(): void {
    setContext('siteRevisions.liveCompare.running', this.current?.state === 'running');
    setContext('siteRevisions.liveCompare.done', this.current?.state === 'done');
  }

  private changed(now = false): void {
    if (!now) {
      this.timer ??= setTimeout(() => this.changed(true), 250);
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const r = this.current;
    if (this.view) {
      this.view.description = r ? this.describe(r) : undefined;
      this.view.message = r ? this.message(r) : undefined;
    }
    this.states();
    this.emitter.fire();
  }

  private describe(r: LiveRun): string {
    const what = r.kind === 'drift' ? vscode.l10n.t('Live Drift') : vscode.l10n.t('Live ↔ Local');
    const scope = [displayText(r.site.name), r.root ? displayText(r.root) : ''].filter(Boolean).join(' / ');
    const head = `${what} · ${scope}`;
    if (r.state !== 'running') return head;
    const p = r.progress;
    if (!p) return `${head} · ${vscode.l10n.t('connecting…')}`;
    const n = (x: number) => x.toLocaleString(vscode.env.language);
    return `${head} · ${vscode.l10n.t('{0} folders, {1} live files listed, {2} decided, {3} read', n(p.folders), n(p.liveFiles), n(p.decided), n(p.reads))}`;
  }

  private message(r: LiveRun): string | undefined {
    if (r.state === 'failed') return vscode.l10n.t('It stopped: {0}', failureText(r.error).label);
    if (r.state === 'cancelled') return vscode.l10n.t('Cancelled.');
    if (r.state === 'done' && r.result && !r.result.rows.length) {
      return r.kind === 'drift' ? vscode.l10n.t('No drift: every live file is its newest revision on the service.') : vscode.l10n.t('The live files and the local folder are the same.');
    }
    return undefined;
  }

  getTreeItem(n: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    return n.getTreeItem();
  }

  getChildren(n?: TreeNode): TreeNode[] | Promise<TreeNode[]> {
    if (n) return n.getChildren();
    const r = this.current;
    if (!r?.result) return [];
    const nodes: TreeNode[] = [];
    for (const g of GROUP_ORDER) {
      const rows = r.result.rows.filter((x) => x.group === g);
      if (rows.length) nodes.push(new GroupNode(r, g, rows, this));
    }
    if (r.result.rows.length) {
      const p = r.result.progress;
      nodes.push(new MessageNode(undefined, vscode.l10n.t('{0} live files compared, {1} read to compare contents', p.liveFiles, p.reads), { icon: 'info', id: 'liveCompare:summary' }));
    }
    return nodes;
  }

  getParent(n: TreeNode): TreeNode | undefined {
    return n.parent;
  }

  /**
   * The comparison itself (the view's runs and the language-model tool): the live tree under
   * `root` against the local folder (`local`) or the newest revisions (`drift`, asking the
   * service for what is not cached), with the site's last-seen state so that an unchanged live
   * file is not read twice.
   */
  async compute(kind: CompareKind, site: Site, root: string, folder: vscode.Uri | undefined, signal: AbortSignal, onProgress?: (p: CompareProgress) => void): Promise<CompareResult> {
    const revisions = (this.revisions ??= await this.deps.revisions.load());
    const fs = this.deps.connections.fsFor(site);
    const cacheDir = this.deps.cache.folder;
    const lastSeen = cacheDir ? await LastSeen.load(LastSeen.fileFor(cacheDir, site.id)) : undefined;
    // The site's list of files as the service has it now (a list cached earlier would miss the files added since).
    if (kind === 'drift') await revisions.store.siteFiles(site.id, { fresh: true, signal, priority: 'user' } as Parameters<RevisionsApi['store']['siteFiles']>[1]);
    return compareLive(fs, {
      root,
      ...(kind === 'local' && folder ? { local: nodeWorkingFs(folder.fsPath) } : {}),
      ...(kind === 'drift' ? { history: storeHistory(revisions.store, site.id, 'complete') } : {}),
      ...(lastSeen ? { lastSeen } : {}),
      signal,
      ...(onProgress ? { onProgress } : {}),
    });
  }

  /** Starts a compare of the site or folder a command names. */
  async run_(kind: CompareKind, site: Site, root: string): Promise<LiveRun | undefined> {
    const { connections, log, notifier } = this.deps;
    const revisions = (this.revisions = await this.deps.revisions.load());
    let folder: vscode.Uri | undefined;
    if (kind === 'local') {
      folder = await revisions.folders.ensure(site, vscode.l10n.t('Choose the local folder of “{0}” to compare with its live server.', displayText(site.name)));
      if (!folder) return undefined;
      if (folder.scheme !== 'file') {
        notifier.error(message('Compare Live with Local'), new Error(vscode.l10n.t('The local folder must be on this computer\'s disk.')));
        return undefined;
      }
    }
    try {
      connections.fsFor(site);
    } catch (e) {
      if (e instanceof UnreachableSite) {
        notifier.error(plain(kind === 'drift' ? vscode.l10n.t('Live Drift') : vscode.l10n.t('Compare Live with Local')), e);
        return undefined;
      }
      throw e;
    }
    this.current?.abort.abort();
    let finish!: () => void;
    const run: LiveRun = { kind, site, root, ...(folder ? { folder } : {}), state: 'running', abort: new AbortController(), finished: new Promise<void>((r) => (finish = r)) };
    this.current = run;
    this.ensureView();
    setContext('siteRevisions.liveCompare.shown', true);
    background('Showing the Live Server view', Promise.resolve(vscode.commands.executeCommand(`${LIVE_COMPARE_VIEW}.focus`)));
    this.changed(true);
    const title = kind === 'drift' ? vscode.l10n.t('Live Drift of {0}', displayText(site.name)) : vscode.l10n.t('Comparing the live files of {0} with the local folder', displayText(site.name));
    try {
      const result = await vscode.window.withProgress({ location: { viewId: LIVE_COMPARE_VIEW }, title, cancellable: true }, (progress, token) => {
        const sub = token.onCancellationRequested(() => run.abort.abort());
        return this.compute(kind, site, root, folder, run.abort.signal, (p) => {
          run.progress = p;
          if (this.current === run) this.changed();
          progress.report({});
        }).finally(() => sub.dispose());
      });
      run.result = result;
      run.state = 'done';
      log.info(`${kind === 'drift' ? 'Live Drift' : 'Live ↔ local'} of site ${site.id}: ${JSON.stringify(result.counts)}, ${result.progress.reads} files read`);
    } catch (e) {
      if (run.abort.signal.aborted) run.state = 'cancelled';
      else {
        run.state = 'failed';
        run.error = e;
        notifier.error(plain(title), e);
      }
    }
    finish();
    if (this.current === run) this.changed(true);
    return run;
  }

  /** The command: the site or folder of the argument (a site row, a Live Files row, a pick). */
  async run(
    kind: CompareKind,
    arg: unknown,
    siteOf: (arg: unknown, placeHolder: string) => Promise<Site | undefined>,
    targetOf: (arg: unknown) => { site: Site; path: string; isFolder: boolean } | undefined,
  ): Promise<LiveRun | undefined> {
    const t = arg instanceof SiteNode ? undefined : targetOf(arg);
    const site = t?.site ?? (await siteOf(arg, kind === 'drift' ? vscode.l10n.t('Site whose live drift to show') : vscode.l10n.t('Site to compare live with local')));
    if (!site) return undefined;
    return this.run_(kind, site, t ? (t.isFolder ? t.path : parentPath(t.path)) : '');
  }

  /** A group as one multi-file diff. */
  async openGroup(arg: unknown): Promise<boolean> {
    if (!(arg instanceof GroupNode)) return false;
    const resources = arg.rows.map((r) => {
      const d = this.diffOf(arg.run, r);
      return [d.modified, d.original, d.modified] as [vscode.Uri, vscode.Uri | undefined, vscode.Uri];
    });
    const title = `${groupLabel(arg.group)} · ${displayText(arg.run.site.name)}`;
    await vscode.commands.executeCommand('vscode.changes', title, resources);
    return true;
  }

  cancel(): void {
    this.current?.abort.abort();
  }

  /** Clears the view and hides it (it shows again with the next compare). */
  clear(): void {
    this.current?.abort.abort();
    this.current = undefined;
    this.changed(true);
    setContext('siteRevisions.liveCompare.shown', false);
  }
}

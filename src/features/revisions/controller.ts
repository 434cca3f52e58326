// What is under each site of the Sites view, and the state behind it: the files (as folders or
// a flat list), the revisions of each file (paged), the working file of each revision, and the
// revision selected for compare. Loads happen when a node is expanded, show progress on the
// view, and end up as a node (empty, error + retry) rather than a notification.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import type { SitesModel } from '../sites/sitesModel';
import { SITES_VIEW, type SiteNode, type SitesTreeProvider } from '../sites/sitesTree';
import type { TreeNode } from '../../workbench/tree/node';
import { skippedNode } from '../../workbench/tree/message';
import { describeError } from '../../workbench/notify';
import { setContext } from '../../workbench/context';
import { background } from '../../core/util/background';
import { flatFiles, type FolderEntry } from '../../core/model/folders';
import { FolderMapping } from './mapping';
import { FileNode, FolderNode, LoadMoreNode, MappingNode, MessageNode, RevisionNode, type NodeHost, type RevisionRef } from './nodes';
import { loadMore, pageOf } from '../../core/model/paging';
import { digest, type ListUpdate, type ReadOptions, type RevisionList, type RevisionStore } from '../../core/model/revisionStore';
import { isApiError } from '../../core/api/errors';
import { isOffline } from '../sites/viewState';
import { Disposable } from '../../core/util/disposable';
import { RETRY_COMMAND } from './names';

/** A load of the Sites view that takes longer than this shows a notification with Cancel. */
const SLOW_LOAD_MS = 1500;

const encoder = new TextEncoder();

export class RevisionsController extends Disposable implements NodeHost {
  /** How many revisions each file shows (grows with "Load more…"); kept across re-renders. */
  private readonly shown = new Map<string, number>();
  private _selected: RevisionRef | undefined;
  /** The nodes last rendered for each site and file (a refresh behind re-renders them). */
  private readonly siteNodes = new Map<string, SiteNode>();
  private readonly fileNodes = new Map<string, FileNode>();
  /** Loads under way, by the node they fill: collapsing the node aborts its load. */
  private readonly loading = new Map<TreeNode, AbortController>();
  /** Loads aborted because their node was collapsed, and the nodes to fill again when expanded. */
  private readonly collapsed = new WeakSet<AbortController>();
  private readonly reloadOnExpand = new WeakSet<TreeNode>();

  constructor(
    readonly store: RevisionStore,
    readonly mapping: FolderMapping,
    readonly model: SitesModel,
    readonly tree: SitesTreeProvider,
    readonly log: Log,
    view?: vscode.TreeView<TreeNode>,
  ) {
    super();
    this.own(
      model.onDidRefresh(() => {
        store.invalidate();
        this.shown.clear();
        this.siteNodes.clear();
        this.fileNodes.clear();
      }),
    );
    this.own(mapping.onDidChange(() => tree.changed()));
    if (view) {
      this.own(view.onDidCollapseElement((e) => this.cancelLoad(e.element)));
      this.own(
        view.onDidExpandElement((e) => {
          if (this.reloadOnExpand.delete(e.element)) this.tree.changed(e.element);
        }),
      );
    }
  }

  /** Aborts the load that fills `node` (its request too, unless another caller waits for it). */
  cancelLoad(node: TreeNode): boolean {
    const ac = this.loading.get(node);
    if (!ac) return false;
    this.collapsed.add(ac);
    ac.abort();
    return true;
  }

  /**
   * Loads what fills `node` with a signal that collapsing it aborts. The view's progress bar
   * shows meanwhile (not for what is in memory already); a load still running after
   * SLOW_LOAD_MS also shows a notification with Cancel.
   */
  async load<T>(node: TreeNode, what: string, fn: (o: ReadOptions) => Promise<T>, cached = false): Promise<T> {
    const ac = new AbortController();
    this.loading.set(node, ac);
    const p = fn({ signal: ac.signal, priority: 'user' });
    if (!cached) {
      background('Showing progress in the Sites view', vscode.window.withProgress({ location: { viewId: SITES_VIEW } }, () => p.catch(() => undefined)));
      const slow = setTimeout(() => {
        background(
          'Showing the progress of a slow load',
          vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: what, cancellable: true }, (_progress, token) => {
            const sub = token.onCancellationRequested(() => ac.abort());
            return p.then(
              () => sub.dispose(),
              () => sub.dispose(),
            );
          }),
        );
      }, SLOW_LOAD_MS);
      p.then(
        () => clearTimeout(slow),
        () => clearTimeout(slow),
      );
    }
    try {
      return await p;
    } finally {
      if (this.loading.get(node) === ac) this.loading.delete(node);
      // Collapsed while loading: the node is filled again when it is expanded next. (Cancelled
      // from the notification, it stays open with a "Cancelled" row that loads again on a click.)
      if (this.collapsed.has(ac)) this.reloadOnExpand.add(node);
    }
  }

  /** Shows the view's progress bar while `p` runs (not for what is already cached). */
  progress<T>(p: Promise<T>, cached = false): Promise<T> {
    if (!cached) background('Showing progress in the Sites view', vscode.window.withProgress({ location: { viewId: SITES_VIEW } }, () => p.catch(() => undefined)));
    return p;
  }

  /** A list a refresh behind replaced: its node is drawn again. */
  updated(u: ListUpdate): void {
    const node = u.kind === 'files' ? this.siteNodes.get(u.siteId) : this.fileNodes.get(JSON.stringify([u.siteId, u.path]));
    if (node) this.tree.changed(node);
  }

  /** A site by id: from the loaded list, else loading it. */
  async site(siteId: string): Promise<Site | undefined> {
    return this.model.find(siteId) ?? (await this.model.all()).find((s) => s.id === siteId);
  }

  // ---- selection for compare

  get selected(): RevisionRef | undefined {
    return this._selected;
  }

  select(ref: RevisionRef | undefined): void {
    this._selected = ref;
    setContext('siteRevisions.revisionSelectedForCompare', !!ref);
    this.tree.changed();
  }

  isSelectedForCompare(ref: RevisionRef): boolean {
    const s = this._selected;
    return !!s && s.site.id === ref.site.id && s.item.id === ref.item.id && s.path === ref.path;
  }

  // ---- tree

  /** Children of a site node: its local folder, then its files. */
  async siteChildren(node: SiteNode): Promise<TreeNode[]> {
    const site = node.site;
    const head: TreeNode[] = [new MappingNode(node, site, this.mapping.get(site.id))];
    this.siteNodes.set(site.id, node);
    try {
      const files = await this.load(node, vscode.l10n.t('Loading the files of “{0}”…', site.name), (o) => this.store.siteFiles(site.id, o), !!this.store.peekSiteFiles(site.id));
      const tail = files.skipped ? [skippedNode(node, 'files', files.skipped, JSON.stringify(['skipped', site.id]))] : [];
      if (!files.files.length) {
        return [...head, new MessageNode(node, vscode.l10n.t('No revisions'), { icon: 'info', description: vscode.l10n.t('no file of this site has stored revisions'), id: JSON.stringify(['empty', site.id]) }), ...tail];
      }
      if (readSettings().revisionLayout === 'flat') return [...head, ...flatFiles(files).map((f) => new FileNode(node, this, site, f, true)), ...tail];
      return [...head, ...this.folderChildren(node, site, files.root), ...tail];
    } catch (e) {
      return [...head, this.errorNode(node, vscode.l10n.t('Could not load the files with revisions'), e, ['files', site.id])];
    }
  }

  folderChildren(node: TreeNode, site: Site, folder: FolderEntry): TreeNode[] {
    return [...folder.folders.map((f) => new FolderNode(node, this, site, f)), ...folder.files.map((f) => new FileNode(node, this, site, f, false))];
  }

  /** Children of a file node: its revisions, newest first, one page at a time. */
  async fileChildren(node: FileNode): Promise<TreeNode[]> {
    const { site, path } = node;
    this.fileNodes.set(JSON.stringify([site.id, path]), node);
    let list: RevisionList;
    try {
      list = await this.load(node, vscode.l10n.t('Loading the revisions of “{0}”…', path), (o) => this.store.revisions(site.id, path, o), !!this.store.peekRevisions(site.id, path));
    } catch (e) {
      return [this.errorNode(node, vscode.l10n.t('Could not load the revisions'), e, ['revs', site.id, path])];
    }
    const skipped = list.skipped ? [skippedNode(node, 'revisions', list.skipped, JSON.stringify(['skipped', site.id, path]))] : [];
    if (!list.items.length) {
      return [new MessageNode(node, vscode.l10n.t('No revisions'), { icon: 'info', description: vscode.l10n.t('the service lists none for this file'), id: JSON.stringify(['none', site.id, path]) }), ...skipped];
    }
    const settings = readSettings();
    const working = await this.workingFileState(site, path);
    let entries = list.items.map((d, index) => ({ d, index }));
    let hidden = 0;
    if (settings.hideIdenticalRevisions && working.uri && working.exists) {
      const wd = await this.workingDigest(working.uri);
      if (wd) {
        const keep = entries.filter((e) => this.store.digestOf(site.id, e.d.item.id) !== wd);
        hidden = entries.length - keep.length;
        entries = keep;
      }
    }
    const key = JSON.stringify([site.id, path]);
    const page = pageOf(entries, this.shown.get(key) ?? settings.revisionPageSize, settings.revisionPageSize);
    const out: TreeNode[] = page.items.map(
      ({ d, index }) => new RevisionNode(node, this, { site, path, item: d.item, time: d.time }, index < list.items.length - 1, working.exists),
    );
    if (page.remaining > 0) out.push(new LoadMoreNode(node, page.remaining, page.next));
    if (hidden) {
      out.push(
        new MessageNode(node, vscode.l10n.t('{0} identical to the working file', hidden), {
          icon: 'eye-closed',
          description: vscode.l10n.t('hidden (setting)'),
          tooltip: vscode.l10n.t(
            'Revisions whose content is known to equal the working file are hidden ({0}). Only contents already loaded are compared: no extra request is made.',
            'siteRevisions.revisions.hideIdenticalToWorkingFile',
          ),
          id: JSON.stringify(['hidden', site.id, path]),
        }),
      );
    }
    if (!out.length) out.push(new MessageNode(node, vscode.l10n.t('No revisions differ from the working file'), { icon: 'info', id: JSON.stringify(['allhidden', site.id, path]) }));
    out.push(...skipped);
    return out;
  }

  /** "Load more…": the next page of a file's revisions. */
  loadMore(node: LoadMoreNode): void {
    const file = node.parentFile;
    const key = JSON.stringify([file.site.id, file.path]);
    const size = readSettings().revisionPageSize;
    const total = this.store.peekRevisions(file.site.id, file.path)?.items.length ?? 0;
    this.shown.set(key, loadMore(this.shown.get(key) ?? size, size, total));
    this.tree.changed(file);
  }

  private errorNode(parent: TreeNode, what: string, e: unknown, idParts: string[]): MessageNode {
    if (isApiError(e) && e.kind === 'cancelled') {
      return new MessageNode(parent, vscode.l10n.t('Cancelled'), {
        icon: 'info',
        description: vscode.l10n.t('click to load'),
        command: { command: RETRY_COMMAND, title: vscode.l10n.t('Retry'), arguments: [parent] },
        id: JSON.stringify(['cancelled', ...idParts]),
      });
    }
    if (isOffline(e)) {
      return new MessageNode(parent, what, {
        icon: 'cloud',
        description: vscode.l10n.t('not available offline'),
        tooltip: vscode.l10n.t('The service cannot be reached, and this is not cached on this computer. Click to retry.'),
        command: { command: RETRY_COMMAND, title: vscode.l10n.t('Retry'), arguments: [parent] },
        contextValue: 'revisionError',
        id: JSON.stringify(['offline', ...idParts]),
      });
    }
    const d = describeError(e);
    this.log.warn(`${what}: ${d.message}`);
    const signIn = d.kind === 'auth';
    return new MessageNode(parent, what, {
      icon: 'error',
      color: 'errorForeground',
      description: d.message,
      tooltip: `${d.message}\n\n${signIn ? vscode.l10n.t('Click to sign in again.') : vscode.l10n.t('Click to retry.')}`,
      command: signIn ? { command: 'siteRevisions.signIn', title: vscode.l10n.t('Sign In…') } : { command: RETRY_COMMAND, title: vscode.l10n.t('Retry'), arguments: [parent] },
      contextValue: 'revisionError',
      id: JSON.stringify(['error', ...idParts]),
    });
  }

  /** Re-renders a node whose load failed (failures are not cached, so this asks again). */
  retry(node: TreeNode | undefined): void {
    this.tree.changed(node);
  }

  // ---- working files

  /** The working file of a path when the site is mapped (never asks), and whether it exists. */
  async workingFileState(site: Site, path: string): Promise<{ uri?: vscode.Uri; exists: boolean }> {
    const folder = this.mapping.get(site.id);
    if (!folder) return { exists: false };
    const w = FolderMapping.resolve(folder, path);
    if (!w.ok) return { exists: false };
    try {
      const st = await vscode.workspace.fs.stat(w.uri);
      return { uri: w.uri, exists: (st.type & vscode.FileType.File) !== 0 };
    } catch {
      return { uri: w.uri, exists: false };
    }
  }

  /** SHA-256 of the working file: with its unsaved edits when it has some, else as on disk. */
  async workingDigest(uri: vscode.Uri): Promise<string | undefined> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    try {
      // A clean open document may lag behind a change on disk: the disk is the truth then.
      return digest(doc?.isDirty ? encoder.encode(doc.getText()) : await vscode.workspace.fs.readFile(uri));
    } catch {
      return undefined;
    }
  }
}

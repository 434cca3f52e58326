// The revisions feature: what is under each site of the Sites view, revision documents
// (`site-revision:` read-only file system), the folder each site maps to, and the commands.
import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import type { AccountCache } from '../auth/accountCache';
import { isOffline } from '../sites/viewState';
import { ExpandedRows } from '../../workbench/tree/expanded';
import type { TreeNode } from '../../workbench/tree/node';
import { onDidChangeSettings, readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import type { SitesModel } from '../sites/sitesModel';
import type { SitesTreeProvider } from '../sites/sitesTree';
import type { Notifier } from '../../workbench/notify';
import { setContext } from '../../workbench/context';
import { picks } from './activeFile';
import { RevisionCommands } from './commands';
import { RevisionsController } from './controller';
import { RevisionFileSystem, parseRevisionUri, revisionDocumentUri, revisionUri } from './fileSystem';
import { GoneSites } from './goneSites';
import { FolderMapping } from './mapping';
import { RevisionStore, type ListUpdate } from '../../core/model/revisionStore';

export interface RevisionsDeps {
  context: vscode.ExtensionContext;
  session: Session;
  model: SitesModel;
  tree: SitesTreeProvider;
  log: Log;
  notifier: Notifier;
  /** Resolves once the stored session is restored (revision documents wait for it). */
  whenReady: () => Promise<unknown>;
  /** The signed-in account's disk cache. */
  cache: AccountCache;
  /** The Sites view (collapsing a node that is loading aborts its load). */
  view: vscode.TreeView<TreeNode>;
}

/** Handles for tests (ExtensionApi.revisions); not a public API. */
export interface RevisionsApi {
  store: RevisionStore;
  /** The content LRU (bytes). */
  cache: RevisionStore['cache'];
  folders: FolderMapping;
  provider: RevisionFileSystem;
  controller: RevisionsController;
  commands: RevisionCommands;
  picks: typeof picks;
  revisionUri: typeof revisionUri;
  /** The document URI the commands open for a listed revision (titled with its date and author). */
  revisionDocumentUri: typeof revisionDocumentUri;
  parseRevisionUri: typeof parseRevisionUri;
  /** A site was deleted: forgets its folder mapping and the revision selected for compare on it. */
  forgetSite(siteId: string): Promise<void>;
}

/** Who the data belongs to: the service and the user; undefined when signed out. */
export function accountKey(session: Session): string | undefined {
  const a = session.account;
  return a && session.state !== 'signedOut' ? `${a.serviceUrl}|${a.email.toLowerCase()}` : undefined;
}

export function registerRevisions(deps: RevisionsDeps): RevisionsApi {
  const { context, session, model, tree, log, notifier, whenReady, cache, view } = deps;
  // The store tells the controller (made below) which list a refresh behind replaced.
  const hooks: { updated?: (u: ListUpdate) => void } = {};
  const store = new RevisionStore((fn) => session.call(fn), readSettings().cacheSizeBytes, log, {
    disk: () => cache.current(),
    isOffline,
    onDidUpdate: (u) => hooks.updated?.(u),
  });
  const folders = new FolderMapping(context.workspaceState, () => accountKey(session));
  // Mappings of sites the account no longer lists are skipped, with an offer to forget them.
  folders.gone = new GoneSites({
    account: () => accountKey(session),
    listSites: () => session.call((c) => c.getSites()),
    shown: (siteId) => !!model.find(siteId),
    refreshShown: () => model.refresh(),
    forget: (siteId) => forgetSite(siteId),
    log,
  });
  const fsReg = RevisionFileSystem.register(store, whenReady);
  const controller = new RevisionsController(store, folders, model, tree, log, view);
  hooks.updated = (u) => controller.updated(u);
  const commands = new RevisionCommands({ ctl: controller, notifier, log });
  tree.setSiteChildren((node) => controller.siteChildren(node));
  // The rows expanded before a window reload are drawn expanded again (from the disk cache).
  const expanded = new ExpandedRows(context.workspaceState, 'siteRevisions.expandedRows', () => accountKey(session));
  expanded.track(view);
  tree.restoreExpansion(expanded.restore);

  // The editor-title icon of "Revisions of Active File" shows on files inside a mapped folder.
  const updateActiveContext = () => {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const mapped = !!uri && (!!parseRevisionUri(uri) || folders.sitesContaining(uri).length > 0);
    setContext('siteRevisions.activeFileMapped', mapped);
  };

  let account = accountKey(session);
  context.subscriptions.push(
    fsReg.disposable,
    folders,
    expanded,
    controller,
    ...commands.register(),
    vscode.window.onDidChangeActiveTextEditor(updateActiveContext),
    folders.onDidChange(updateActiveContext),
    session.onDidChange(() => {
      const now = accountKey(session);
      if (now !== account) {
        // Another account (or none): nothing of the previous one may show.
        account = now;
        store.clear();
        controller.select(undefined);
      }
      updateActiveContext();
    }),
    onDidChangeSettings((e) => {
      if (e.affectsConfiguration('siteRevisions.revisions.cacheSizeMB')) store.cache.setMaxBytes(readSettings().cacheSizeBytes);
    }),
    // Clear Cache: the memory goes too, and what is shown is fetched again.
    cache.onDidClear(() => {
      store.clear();
      tree.changed();
    }),
  );
  updateActiveContext();

  const forgetSite = async (siteId: string): Promise<void> => {
    if (controller.selected?.site.id === siteId) controller.select(undefined);
    // Its cached lists and contents go (a later site may get the same id).
    await (await cache.current())?.forgetSite(siteId);
    // Site ids are only unique at a time: a site created later may get this one, and must not
    // inherit the folder (a restore would write into it). The folder itself is left alone.
    if (folders.get(siteId)) await folders.set(siteId, undefined);
  };

  return { store, cache: store.cache, folders, provider: fsReg.provider, controller, commands, picks, revisionUri, revisionDocumentUri, parseRevisionUri, forgetSite };
}

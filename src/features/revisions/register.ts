// What activation registers for the revisions feature (./index.ts: what is under each site of the
// Sites view, revision documents, the commands). The code itself is imported on first use: the
// first expansion of a site, the first revision document (a restored tab too), the first command,
// or a feature that needs it (the editor features and the source controls, once a folder is
// mapped). Until then only the folder mapping is here: which sites map to which folders decides
// the active file's context key and whether those features load at all.
import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import type { AccountCache } from '../auth/accountCache';
import { ExpandedRows } from '../../workbench/tree/expanded';
import type { TreeNode } from '../../workbench/tree/node';
import type { Log } from '../../workbench/log';
import type { SitesModel } from '../sites/sitesModel';
import type { SitesTreeProvider } from '../sites/sitesTree';
import type { Notifier } from '../../workbench/notify';
import { setContext } from '../../workbench/context';
import { feature, lazyCommand } from '../../workbench/feature';
import { heldDocuments, LazyReadonlyFileSystem } from '../../workbench/lazyFileSystem';
import { REVISION_SCHEME } from '../../core/model/uri';
import { accountKeyOf } from '../../core/model/account';
import { GoneSites } from './goneSites';
import { FolderMapping } from './mapping';
import { REVISION_COMMANDS } from './names';
import type { RevisionsApi } from './index';

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

/** The revisions feature as activation has it: the folder mapping, and the rest on first use. */
export interface Revisions {
  folders: FolderMapping;
  /** Loads the feature (once) and gives its handles. */
  load: () => Promise<RevisionsApi>;
  /** The feature if it is loaded. */
  loaded: () => RevisionsApi | undefined;
  /** A site was deleted: forgets its folder mapping, its cached lists and the revision selected for compare on it. */
  forgetSite(siteId: string): Promise<void>;
}

/** Who the data belongs to: the service and the user; undefined when signed out. */
export function accountKey(session: Session): string | undefined {
  const a = session.account;
  return a && session.state !== 'signedOut' ? accountKeyOf(a.serviceUrl, a.email) : undefined;
}

export function registerRevisions(deps: RevisionsDeps): Revisions {
  const { context, session, model, tree, log, cache, view } = deps;
  const folders = new FolderMapping(context.workspaceState, () => accountKey(session));
  // Mappings of sites the account no longer lists are skipped, with an offer to forget them.
  folders.gone = new GoneSites({
    account: () => accountKey(session),
    listSites: () => session.call((c) => c.getSites()),
    shown: (siteId) => !!model.find(siteId),
    listedAt: () => model.fetchedAt,
    refreshShown: () => model.refresh(),
    forget: (siteId) => forgetSite(siteId),
    log,
  });
  let loaded: RevisionsApi | undefined;
  const load = feature(async () => (loaded = (await import('./index.js')).activateRevisions(deps, folders, context.subscriptions)));

  // Revision documents: the scheme is VS Code's from activation on (a restored window asks for
  // its revision tabs at once); what reads them is loaded by the first of them. Each read loads
  // the feature (once) and is answered by its provider (./fileSystem.ts); revisions never change
  // and cannot be written. Each is of the account signed in when it was made (its URI says which: ./account.ts).
  const provider = new LazyReadonlyFileSystem(async () => (await load()).provider);
  const readonlyMessage = new vscode.MarkdownString(vscode.l10n.t('This is a stored revision of a site file; it cannot be changed. Use **{0}** to bring it back into the working file.', vscode.l10n.t('Restore Revision')));
  tree.setSiteChildren(async (node) => (await load()).controller.siteChildren(node));
  // The rows expanded before a window reload are drawn expanded again (from the disk cache).
  const expanded = new ExpandedRows(context.workspaceState, 'siteRevisions.expandedRows', () => accountKey(session));
  expanded.track(view);
  tree.restoreExpansion(expanded.restore);

  // The editor-title icon of "Revisions of Active File" shows on revision documents and on files inside a mapped folder.
  const updateActiveContext = () => {
    const uri = vscode.window.activeTextEditor?.document.uri;
    setContext('siteRevisions.activeFileMapped', !!uri && (uri.scheme === REVISION_SCHEME || folders.sitesContaining(uri).length > 0));
  };

  // Another account (or none): VS Code reads every revision document it holds again (its tabs'
  // and those it keeps without one), so that none shows what it read for the account before: one
  // of another account now reads as the message that says so (./fileSystem.ts), one made before
  // URIs named their account is read for the account now signed in, and one of the account
  // signed in again shows its revision again.
  let account = accountKey(session);
  const followAccount = session.onDidChange(() => {
    const now = accountKey(session);
    if (now === account) return;
    account = now;
    provider.changed(heldDocuments(REVISION_SCHEME));
  });

  context.subscriptions.push(
    provider,
    followAccount,
    vscode.workspace.registerFileSystemProvider(REVISION_SCHEME, provider, { isReadonly: readonlyMessage, isCaseSensitive: true }),
    folders,
    expanded,
    ...REVISION_COMMANDS.map((id) => lazyCommand(id, load, (r, ...args) => r.handlers[id](...args))),
    vscode.window.onDidChangeActiveTextEditor(updateActiveContext),
    folders.onDidChange(updateActiveContext),
    session.onDidChange(updateActiveContext),
  );
  updateActiveContext();

  const forgetSite = async (siteId: string): Promise<void> => {
    loaded?.forgetSelection(siteId);
    // Its cached lists and contents go (a later site may get the same id).
    await (await cache.current())?.forgetSite(siteId);
    // Site ids are only unique at a time: a site created later may get this one, and must not
    // inherit the folder (a restore would write into it). The folder itself is left alone.
    if (folders.get(siteId)) await folders.set(siteId, undefined);
  };
  return { folders, load, loaded: () => loaded, forgetSite };
}

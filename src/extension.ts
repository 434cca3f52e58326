// Wires the features together. Activation makes no network call and does not load undici:
// the first request does.
import * as vscode from 'vscode';
import { registerAuthCommands, startSession } from './features/auth/commands';
import { Session } from './features/auth/session';
import { affectsClient, onDidChangeSettings } from './workbench/config';
import { Log } from './workbench/log';
import { registerSiteCommands } from './features/sites/register';
import { editors } from './features/sites/editorLoad';
import { SitesModel } from './features/sites/sitesModel';
import { SitesTreeProvider } from './features/sites/sitesTree';
import { createSitesView } from './features/sites/sitesView';
import { Notifier } from './workbench/notify';
import type { RevisionsApi } from './features/revisions';
import { accountKey, registerRevisions } from './features/revisions/register';
import { setBackgroundSink } from './core/util/background';
import { AccountCache } from './features/auth/accountCache';
import { RequestScheduler } from './core/scheduler';
import { readSettings } from './workbench/config';
import type { BlameViewApi } from './features/editor';
import { registerBlameView } from './features/editor/register';
import type { HistoryFeatures } from './features/history/feature';
import { registerHistory } from './features/history/register';
import { registerScm } from './features/scm/register';
import { registerSiteAsOf } from './features/siteAsOf/register';
import { registerSiteImport, SiteFileDrop, type SiteImportFeature } from './features/siteImport/register';
import { registerLive } from './features/live/register';
import type { LiveFeature } from './features/live';
import { registerTransfer } from './features/transfer/register';
import type { TransferFeature } from './features/transfer';

/**
 * Set by the bundler (esbuild.mjs): true in a test build (the development bundle, or a benchmark
 * build), false in the .vsix users install. Undefined when this file runs unbundled.
 */
declare const __TEST_HOOKS__: boolean | undefined;
const TEST_HOOKS = typeof __TEST_HOOKS__ !== 'undefined' && __TEST_HOOKS__;

/**
 * Handles for the integration tests, returned by `activate()` in a test build only. Any other
 * extension can read an extension's exports, and these lead to the secrets, the session and the
 * signed-in client: the installed extension exports nothing (checked by the Smoke suite).
 */
export interface ExtensionApi {
  context: vscode.ExtensionContext;
  session: Session;
  model: SitesModel;
  tree: SitesTreeProvider;
  view: vscode.TreeView<unknown>;
  log: Log;
  cache: AccountCache;
  scheduler: RequestScheduler;
  editors: typeof editors;
  /** The revisions feature once loaded (it loads on first use); throws before: see loadRevisions. */
  readonly revisions: RevisionsApi;
  /** Loads the revisions feature (the store, the rows under each site, the commands; a chunk of its own) and gives its handles. */
  loadRevisions: () => Promise<RevisionsApi>;
  /** Loads History Search, Site Changes and the language-model tools (a chunk of their own) and gives their handles. */
  history: () => Promise<HistoryFeatures>;
  /** Loads the editor features (blame, gutter, alert; a chunk of their own) and gives their handles. */
  blame: () => Promise<BlameViewApi>;
  /** Loads Import Sites… and Export Sites… (the readers and their parsers; a chunk of their own) and gives their handlers. */
  siteImport: () => Promise<SiteImportFeature>;
  /** Loads the source controls of the mapped folders and Line History, and gives their handles. */
  scm: () => Promise<import('./features/scm').ScmApi>;
  /** Loads the live feature (connections, the live file system, Test Connection, the compares) and gives its handles. */
  live: () => Promise<LiveFeature>;
  /** Loads the transfer feature (download, upload, sync, conflicts, kept copies, upload on save, the live folder's writes) and gives its handles. */
  transfer: () => Promise<TransferFeature>;
  ready: Promise<void>;
}

export function activate(context: vscode.ExtensionContext): ExtensionApi | undefined {
  const log = new Log();
  // Every request the extension sends waits for its slot here (user actions first).
  const scheduler = new RequestScheduler({
    concurrency: readSettings().requestConcurrency,
    onEvent: (e) => log.info(e.type === 'backoff' ? `The service asked to wait: no request to ${e.origin} for ${e.ms} ms (${e.queued} waiting)` : `Requests to ${e.origin} resume (${e.queued} waiting)`),
  });
  const session = new Session(context, log, scheduler);
  const cache = new AccountCache(context, session, log);
  const model = new SitesModel(session, log, () => cache.current());
  const tree = new SitesTreeProvider(model, log);
  const { view, disposables: viewDisposables } = createSitesView(model, tree, new SiteFileDrop());
  const notifier = new Notifier(log);
  const liveTest: { load?: () => Promise<LiveFeature> } = {};
  // Work nobody waits for (context keys, progress, messages) reports its failures to the log.
  setBackgroundSink((what, e) => log.error(`${what} failed:`, e));

  context.subscriptions.push(
    log,
    { dispose: () => setBackgroundSink(undefined) },
    { dispose: () => scheduler.dispose() },
    session,
    cache,
    model,
    tree,
    ...viewDisposables,
    ...registerAuthCommands(session, log),
    // `revisions` is registered below; a delete only happens after activation.
    ...registerSiteCommands({
      extensionUri: context.extensionUri,
      session,
      model,
      notifier,
      onDeleted: (id) => revisions.forgetSite(id),
      whenReady: () => started.ready ?? Promise.resolve(),
      // The live feature is registered below; a form's test only runs after activation.
      testConnection: async (...a) => (await liveTest.load!()).formTest(...a),
    }),
    vscode.commands.registerCommand('siteRevisions.showLog', () => log.show()),
    // Signed out, another account, or expired (the view then asks to sign in again): nothing of before shows.
    session.onDidChange(() => model.clear()),
    vscode.commands.registerCommand('siteRevisions.retry', () => model.refresh()),
    // Clear Cache: the sites are fetched again too.
    cache.onDidClear(() => model.refresh()),
    onDidChangeSettings((e) => {
      if (affectsClient(e)) session.reconfigure();
      if (e.affectsConfiguration('siteRevisions.requestConcurrency')) scheduler.setConcurrency(readSettings().requestConcurrency);
      if (e.affectsConfiguration('siteRevisions.revisions')) tree.changed();
    }),
  );

  // Secrets are read asynchronously; the view shows its welcome content until then, and revision
  // documents (a restored window's tabs) wait for them.
  const started: { ready?: Promise<void> } = {};
  const revisions = registerRevisions({ context, session, model, tree, log, notifier, whenReady: () => started.ready ?? Promise.resolve(), cache, view });
  const history = registerHistory({ session, model, revisions, notifier, log }, context.subscriptions);
  registerSiteAsOf({ session, model, revisions, notifier, log }, context.subscriptions);
  const siteImport = registerSiteImport({ session, model, notifier, log, folders: revisions.folders, globalState: context.globalState, account: () => accountKey(session) }, context.subscriptions);
  const ready = (started.ready = startSession(session, log, notifier));
  const blame = registerBlameView({ session, model, revisions, log, notifier }, () => ready, context.subscriptions);
  // The live folder's writes go through the transfer feature's guard; the transfer feature drives the live one.
  const transferHolder: { writes?: () => Promise<import('./workbench/lazyFileSystem').FileSystemWrites> } = {};
  const live = registerLive({ context, session, model, log, notifier, tree, revisions, whenReady: () => ready, cache, view, writes: () => transferHolder.writes!() }, context.subscriptions);
  liveTest.load = live.load;
  const transfer = registerTransfer({ context, session, model, log, notifier, revisions, live: live.load, cache, whenReady: () => ready }, context.subscriptions);
  transferHolder.writes = transfer.writes;
  const scm = registerScm({ session, model, revisions, log, notifier, editor: blame.features, cache }, () => ready, context.subscriptions);
  if (!TEST_HOOKS) return undefined;
  return {
    context,
    session,
    model,
    tree,
    view,
    log,
    cache,
    scheduler,
    editors,
    get revisions(): RevisionsApi {
      const loaded = revisions.loaded();
      if (!loaded) throw new Error('The revisions feature is not loaded yet: await loadRevisions() first');
      return loaded;
    },
    loadRevisions: revisions.load,
    blame: blame.features,
    scm: scm.features,
    history: history.features,
    siteImport: siteImport.features,
    live: live.load,
    transfer: transfer.load,
    ready,
  };
}

export function deactivate(): void {}

// Wires the features together. Activation makes no network call and does not load undici:
// the first request does.
import * as vscode from 'vscode';
import { registerAuthCommands, startSession } from './auth/commands';
import { Session } from './auth/session';
import { affectsClient, onDidChangeSettings } from './config';
import { Log } from './log';
import { editors, registerSiteCommands } from './sites/commands';
import { SitesModel } from './sites/sitesModel';
import { SitesTreeProvider } from './sites/sitesTree';
import { createSitesView } from './sites/sitesView';
import { Notifier } from './ui/notify';
import { registerRevisions, type RevisionsApi } from './revisions';
import { setBackgroundSink } from './util/background';
import { AccountCache } from './cache/accountCache';
import { RequestScheduler } from './scheduler';
import { readSettings } from './config';
import type { BlameViewApi } from './blameView';
import { registerBlameViewShell } from './blameView/shell';
import type { HistoryFeatures } from './history/chunk';
import { registerHistory } from './history/shell';
import { registerSiteAsOf } from './siteAsOf/register';
import type { CodeCacheLoad, CodeCacheReport } from './boot/codeCache';
import { setChunkLoader } from './boot/chunks';
import { saveWhenSettled } from './boot/save';

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
  revisions: RevisionsApi;
  /** Loads History Search, Site Changes and the language-model tools (a chunk of their own) and gives their handles. */
  history: () => Promise<HistoryFeatures>;
  /** Loads the editor features (blame, gutter, alert; a chunk of their own) and gives their handles. */
  blame: () => Promise<BlameViewApi>;
  ready: Promise<void>;
  /** What became of V8's code cache when dist/boot.js loaded this bundle (undefined when loaded otherwise). */
  codeCache?: { state: CodeCacheReport['state']; ms: number; bytes: number };
}

/** How long after the session is restored the code cache is written: activation's functions and the first work's are in it by then. */
const CODE_CACHE_SAVE_DELAY_MS = 2000;

/**
 * `codeCache` and `loadBeside` are handed over by dist/boot.js, which loaded this bundle through
 * V8's code cache and loads the files the bundle loads later (dist/undici.js) the same way
 * (src/boot/main.ts).
 */
export function activate(context: vscode.ExtensionContext, codeCache?: CodeCacheReport, loadBeside?: (file: string) => CodeCacheLoad<unknown>): ExtensionApi | undefined {
  const log = new Log();
  if (codeCache) log.info(`Loaded ${codeCacheText[codeCache.state]} in ${codeCache.ms.toFixed(1)} ms`);
  // Every request the extension sends waits for its slot here (user actions first).
  const scheduler = new RequestScheduler({
    concurrency: readSettings().requestConcurrency,
    onEvent: (e) => log.info(e.type === 'backoff' ? `The service asked to wait: no request to ${e.origin} for ${e.ms} ms (${e.queued} waiting)` : `Requests to ${e.origin} resume (${e.queued} waiting)`),
  });
  const session = new Session(context, log, scheduler);
  const cache = new AccountCache(context, session, log);
  const model = new SitesModel(session, log, () => cache.current());
  const tree = new SitesTreeProvider(model, log);
  const { view, disposables: viewDisposables } = createSitesView(model, tree);
  const notifier = new Notifier(log);
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
    ...registerSiteCommands({ extensionUri: context.extensionUri, session, model, notifier, onDeleted: (id) => revisions.forgetSite(id), whenReady: () => started.ready ?? Promise.resolve() }),
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
  const ready = (started.ready = startSession(session, log, notifier));
  const blame = registerBlameViewShell({ session, model, revisions, log, notifier }, () => ready, context.subscriptions);
  /** Writes a file's code cache once `settled` and a little more have passed, and says so in the log. */
  const saveCache = (what: string, report: CodeCacheReport, settled: Promise<unknown>) =>
    context.subscriptions.push(
      saveWhenSettled(report, settled, CODE_CACHE_SAVE_DELAY_MS, (r) =>
        r.outcome === 'failed' ? log.warn(`V8's code cache of ${what} could not be written (the next start compiles it again): ${r.error}`) : log.info(`V8's code cache of ${what} written (${Math.round((r.bytes ?? 0) / 1024)} KB): the next start takes the compiled code from it`),
      ),
    );
  if (codeCache) saveCache('the extension', codeCache, ready);
  if (loadBeside) {
    setChunkLoader((file) => {
      const { exports, report } = loadBeside(file);
      log.info(`Loaded ${file} ${codeCacheText[report.state]} in ${report.ms.toFixed(1)} ms`);
      // Written once the request that loaded it has had its time (its functions are in it then).
      saveCache(file, report, Promise.resolve());
      return exports;
    });
    context.subscriptions.push({ dispose: () => setChunkLoader(undefined) });
  }
  const cacheFigures = codeCache && { state: codeCache.state, ms: codeCache.ms, bytes: codeCache.bytes };
  return TEST_HOOKS ? { context, session, model, tree, view, log, cache, scheduler, editors, revisions, blame: blame.features, history: history.features, ready, codeCache: cacheFigures } : undefined;
}

/** What the log says of the code cache at activation. */
const codeCacheText: Record<CodeCacheReport['state'], string> = {
  used: "with V8's code cache",
  absent: "without V8's code cache (none yet for this version: it is written shortly after)",
  damaged: "without V8's code cache (the file was damaged: it is written again)",
  rejected: "without V8's code cache (V8 rejected it: it is written again)",
  off: "without V8's code cache (no storage folder, or it could not be read)",
};

export function deactivate(): void {}

// Wires the features together. Activation makes no network call and does not load undici:
// the first request does.
import * as vscode from 'vscode';
import { autoSignIn, registerAuthCommands } from './auth/commands';
import { Session } from './auth/session';
import { onDidChangeSettings } from './config';
import { Log } from './log';
import { editors, registerSiteCommands } from './sites/commands';
import { SitesModel } from './sites/sitesModel';
import { SitesTreeProvider } from './sites/sitesTree';
import { createSitesView } from './sites/sitesView';
import { Notifier } from './ui/notify';
import { registerLmTools } from './lm';
import { registerRevisions, type RevisionsApi } from './revisions';

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
  editors: typeof editors;
  revisions: RevisionsApi;
  ready: Promise<void>;
}

export function activate(context: vscode.ExtensionContext): ExtensionApi | undefined {
  const log = new Log();
  const session = new Session(context, log);
  const model = new SitesModel(session);
  const tree = new SitesTreeProvider(model, log);
  const { view, disposables: viewDisposables } = createSitesView(model, tree);
  const notifier = new Notifier(log);

  context.subscriptions.push(
    log,
    session,
    model,
    tree,
    ...viewDisposables,
    ...registerAuthCommands(session, log),
    // `revisions` is registered below; a delete only happens after activation.
    ...registerSiteCommands({ extensionUri: context.extensionUri, session, model, notifier, onDeleted: (id) => revisions.forgetSite(id) }),
    vscode.commands.registerCommand('siteRevisions.showLog', () => log.show()),
    session.onDidChange((s) => {
      if (s !== 'expired') model.clear();
    }),
    onDidChangeSettings((e) => {
      if (e.affectsConfiguration('siteRevisions.requestTimeoutSeconds') || e.affectsConfiguration('siteRevisions.caFile')) session.reconfigure();
      if (e.affectsConfiguration('siteRevisions.revisions')) tree.changed();
    }),
  );

  const revisions = registerRevisions({ context, session, model, tree, log, notifier });
  context.subscriptions.push(...registerLmTools({ session, model, store: revisions.store, log }));

  // Secrets are read asynchronously; the view shows its welcome content until then.
  const ready = session.restore().then(() => autoSignIn(session, log));
  return TEST_HOOKS ? { context, session, model, tree, view, log, editors, revisions, ready } : undefined;
}

export function deactivate(): void {}

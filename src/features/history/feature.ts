// History Search, Site Changes and the language-model tools: loaded on first use by what
// activation registers (./register.ts), a chunk of its own in the build (esbuild.mjs).
import type * as vscode from 'vscode';
import type { Session } from '../auth/session';
import { createLmTools } from '../tools';
import type { HistoryTools } from '../tools/tools';
import type { Log } from '../../workbench/log';
import type { RevisionsApi } from '../revisions';
import type { SitesModel } from '../sites/sitesModel';
import type { Notifier } from '../../workbench/notify';
import { registerSearchViews, type SearchViewsApi } from './';
import type { CommandHandler } from './names';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface HistoryDeps {
  session: Session;
  model: SitesModel;
  revisions: RevisionsApi;
  notifier: Notifier;
  log: Log;
}

export interface HistoryFeatures {
  searchViews: SearchViewsApi;
  lmTools: HistoryTools;
  /** Each language-model tool by name: what the tools registered at activation call. */
  tools: Map<string, vscode.LanguageModelTool<object>>;
  /** Each command's handler by id: what the commands registered at activation call. */
  commands: Record<string, CommandHandler>;
}

/** Makes the views and the tools; `subscriptions` gets what they hold. */
export function activateHistory(deps: HistoryDeps, subscriptions: vscode.Disposable[]): HistoryFeatures {
  const { session, model, revisions, notifier, log } = deps;
  const { api: searchViews, commands } = registerSearchViews({ session, revisions, notifier, log }, subscriptions);
  const lmTools = createLmTools({ session, model, store: revisions.store, folders: revisions.folders, log });
  subscriptions.push(lmTools);
  return { searchViews, lmTools, tools: lmTools.tools(), commands };
}

// The History Search and Site Changes views and the language-model tools, behind the names the
// extension registers at activation (./shell.ts). In the extension's build this file and what it
// reaches in src/searchView, src/search and src/lm are the chunk dist/history.js, loaded on first
// use; everything else it imports is the extension's own module, handed to it (./host.ts).
import type * as vscode from 'vscode';
import { createLmTools } from '../lm';
import type { HistoryTools } from '../lm/tools';
import { registerSearchViews, type SearchViewsApi } from '../searchView';
import type { HistoryDeps, HistoryViews } from './shell';

export interface HistoryFeatures {
  searchViews: SearchViewsApi;
  lmTools: HistoryTools;
  /** Each language-model tool by name: what the tools registered at activation call. */
  tools: Map<string, vscode.LanguageModelTool<object>>;
}

/** Registers the views' providers and the commands; `subscriptions` gets what they hold. */
export function activateHistory(deps: HistoryDeps, views: HistoryViews, subscriptions: vscode.Disposable[]): HistoryFeatures {
  const { session, model, revisions, notifier, log } = deps;
  const searchViews = registerSearchViews({ session, revisions, notifier, log }, views, subscriptions);
  const lmTools = createLmTools({ session, model, store: revisions.store, folders: revisions.folders, log });
  subscriptions.push(lmTools);
  return { searchViews, lmTools, tools: lmTools.tools() };
}

// History Search and Site Changes, the part a person sees (issue 13): two views in the Site
// Revisions container, their commands, and "Restore Checked…". The work itself is the plain-Node
// core in src/core/search; the data comes through the revisions feature's RevisionStore.
import * as vscode from 'vscode';
import type { Log } from '../../workbench/log';
import type { Session } from '../auth/session';
import { accountKey, type RevisionsApi } from '../revisions';
import { setContext } from '../../workbench/context';
import { message } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import type { TreeNode } from '../../workbench/tree/node';
import { ChangesCommands } from './changesCommands';
import { ChangedFileNode, SiteChangesProvider } from './changesView';
import { HistorySearchProvider, SearchFileNode } from './historyView';
import { CHANGES_VIEW, HISTORY_VIEW, type CommandHandler } from './names';
import { restoreMany, type RestoreOutcome, type RestoreTarget } from './restore';
import { SearchCommands, searchInput } from './searchCommands';

export interface SearchViewsDeps {
  session: Session;
  revisions: RevisionsApi;
  notifier: Notifier;
  log: Log;
}

/** Handles for tests (ExtensionApi.searchViews); not a public API. */
export interface SearchViewsApi {
  history: HistorySearchProvider;
  historyView: vscode.TreeView<TreeNode>;
  changes: SiteChangesProvider;
  changesView: vscode.TreeView<TreeNode>;
  search: SearchCommands;
  changesCommands: ChangesCommands;
  searchInput: typeof searchInput;
}

/**
 * Makes the two views (until this code is loaded, on the first command, VS Code shows their
 * welcome content) and gives the commands' handlers (registered at activation: src/features/history/register.ts).
 */
export function registerSearchViews(deps: SearchViewsDeps, subscriptions: vscode.Disposable[]): { api: SearchViewsApi; commands: Record<string, CommandHandler> } {
  const { session, revisions, notifier, log } = deps;
  let account = accountKey(session);
  const history = new HistorySearchProvider();
  const changes = new SiteChangesProvider();
  const historyView = vscode.window.createTreeView(HISTORY_VIEW, { treeDataProvider: history, showCollapseAll: true, manageCheckboxStateManually: true });
  const changesView = vscode.window.createTreeView(CHANGES_VIEW, { treeDataProvider: changes, showCollapseAll: true, manageCheckboxStateManually: true });
  changes.attach(changesView);
  const search = new SearchCommands({ revisions, provider: history, notifier, log });
  const changesCommands = new ChangesCommands({ revisions, provider: changes, notifier, log });

  const restoreChecked = async (targets: RestoreTarget[], uncheck: () => void): Promise<RestoreOutcome | undefined> => {
    try {
      const outcome = await restoreMany(targets, revisions, log);
      if (outcome.restored.length) uncheck();
      return outcome;
    } catch (e) {
      notifier.error(message('Restore Checked'), e);
      return undefined;
    }
  };

  subscriptions.push(
    history,
    changes,
    historyView,
    changesView,
    history.checked,
    // Signed out or another account: nothing found for the previous one may show.
    session.onDidChange(() => {
      const now = accountKey(session);
      if (now === account) return;
      account = now;
      history.clear();
      changes.clear();
    }),
    historyView.onDidChangeCheckboxState((e) => {
      for (const [node, state] of e.items) if (node instanceof SearchFileNode) history.checked.set(node.key, state === vscode.TreeItemCheckboxState.Checked);
    }),
    changesView.onDidChangeCheckboxState((e) => {
      for (const [node, state] of e.items) if (node instanceof ChangedFileNode) changes.checked.set(node.file.path, state === vscode.TreeItemCheckboxState.Checked);
      changes.changed(true); // the same file under other days shows the same state
    }),
    history.checked.onDidChange((n) => setContext('siteRevisions.historySearch.checked', n > 0)),
    changes.checked.onDidChange((n) => setContext('siteRevisions.siteChanges.checked', n > 0)),
    history.onDidChangeTreeData(() => setContext('siteRevisions.historySearch.running', !!history.running())),
    changes.onDidChangeTreeData(() => {
      setContext('siteRevisions.siteChanges.running', changes.run?.state === 'running');
      setContext('siteRevisions.siteChanges.listed', !!changes.run?.builder.revisionCount);
    }),
  );
  const commands: Record<string, CommandHandler> = {
    ...search.commands(),
    ...changesCommands.commands(),
    'siteRevisions.restoreCheckedSearchResults': () =>
      restoreChecked(
        history.checkedFiles().map(({ run, result }) => {
          const newest = result.hits[0]!;
          return { site: run.scope.site, path: result.path, revision: { id: newest.id, date: newest.date, author: newest.author, time: newest.time } };
        }),
        () => {
          history.checked.clear();
          history.changed(true);
        },
      ),
    'siteRevisions.restoreCheckedChanges': () => {
      const run = changes.run;
      return restoreChecked(
        run ? changes.checkedFiles().map((f) => ({ site: run.scope.site, path: f.path, revision: f.newest })) : [],
        () => {
          changes.checked.clear();
          changes.changed(true);
        },
      );
    },
  };
  return { api: { history, historyView, changes, changesView, search, changesCommands, searchInput }, commands };
}

// What the extension registers at activation for History Search, Site Changes and the
// language-model tools, without loading their code (./chunk.ts, dist/history.js in the build):
// the two views, each with a provider that has no rows until the code is in (the views then show
// their welcome content, as they do before a first search); every command, as a stand-in that
// loads the code, which registers the real command in its place, and then runs it with the same
// arguments; every tool, calling the real one. The first command, tool call or test handle loads it.
import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import type { Log } from '../log';
import type { RevisionsApi } from '../revisions';
import type { SitesModel } from '../sites/sitesModel';
import type { TreeNode } from '../tree/node';
import type { Notifier } from '../ui/notify';
import { loadOnce } from '../util/loadOnce';
import type { HistoryFeatures } from './chunk';
import { loadHistoryChunk } from './load';
import { CHANGES_VIEW, HISTORY_COMMANDS, HISTORY_VIEW, TOOL_NAMES } from './names';

export interface HistoryDeps {
  session: Session;
  model: SitesModel;
  revisions: RevisionsApi;
  notifier: Notifier;
  log: Log;
}

/** The History Search and Site Changes views, made at activation. */
export interface HistoryViews {
  historyView: vscode.TreeView<TreeNode>;
  changesView: vscode.TreeView<TreeNode>;
  /** Hands each view the provider of its rows. */
  provide(history: vscode.TreeDataProvider<TreeNode>, changes: vscode.TreeDataProvider<TreeNode>): void;
}

/** A view's provider until the real one is handed over: no rows, then everything from it. */
class DeferredTree implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private inner: vscode.TreeDataProvider<TreeNode> | undefined;
  private forward: vscode.Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<TreeNode | TreeNode[] | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;

  set(inner: vscode.TreeDataProvider<TreeNode>): void {
    this.forward?.dispose();
    this.inner = inner;
    this.forward = inner.onDidChangeTreeData?.((e) => this.changed.fire(e ?? undefined));
    this.changed.fire();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.inner!.getTreeItem(node);
  }

  getChildren(node?: TreeNode): vscode.ProviderResult<TreeNode[]> {
    return this.inner ? this.inner.getChildren(node) : [];
  }

  getParent(node: TreeNode): vscode.ProviderResult<TreeNode> {
    return this.inner?.getParent?.(node);
  }

  dispose(): void {
    this.forward?.dispose();
    this.changed.dispose();
  }
}

/** Registers the stand-ins; `features()` loads the code (once) and gives its handles. */
export function registerHistory(deps: HistoryDeps, subscriptions: vscode.Disposable[]): { features: () => Promise<HistoryFeatures> } {
  const historyTree = new DeferredTree();
  const changesTree = new DeferredTree();
  const historyView = vscode.window.createTreeView(HISTORY_VIEW, { treeDataProvider: historyTree, showCollapseAll: true, manageCheckboxStateManually: true });
  const changesView = vscode.window.createTreeView(CHANGES_VIEW, { treeDataProvider: changesTree, showCollapseAll: true, manageCheckboxStateManually: true });
  const views: HistoryViews = {
    historyView,
    changesView,
    provide: (history, changes) => {
      historyTree.set(history);
      changesTree.set(changes);
    },
  };
  let standIns: vscode.Disposable[] = [];
  const features = loadOnce(async () => {
    const chunk = await loadHistoryChunk();
    // The real commands take the ids over.
    for (const d of standIns) d.dispose();
    standIns = [];
    return chunk.activateHistory(deps, views, subscriptions);
  });
  standIns = HISTORY_COMMANDS.map((id) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      await features();
      return vscode.commands.executeCommand(id, ...args);
    }),
  );
  const tool = async (name: string): Promise<vscode.LanguageModelTool<object>> => (await features()).tools.get(name)!;
  subscriptions.push(
    historyTree,
    changesTree,
    historyView,
    changesView,
    { dispose: () => standIns.forEach((d) => d.dispose()) },
    ...Object.values(TOOL_NAMES).map((name) =>
      vscode.lm.registerTool<object>(name, {
        prepareInvocation: async (o, token) => (await tool(name)).prepareInvocation?.(o, token),
        invoke: async (o, token) => (await tool(name)).invoke(o, token),
      }),
    ),
  );
  return { features };
}

// The Sites TreeView. Its failure states are drawn by the workbench as welcome content (an
// explanation and buttons per state, package.json viewsWelcome), which it shows only while the
// tree has no rows and no `message`: so the view sets a message only for an active filter over a
// loaded list, never in a failure state.
import * as vscode from 'vscode';
import type { TreeNode } from '../tree/node';
import type { SitesModel } from './sitesModel';
import { SITES_VIEW, type SitesTreeProvider } from './sitesTree';

export function createSitesView(model: SitesModel, provider: SitesTreeProvider): { view: vscode.TreeView<TreeNode>; disposables: vscode.Disposable[] } {
  const view = vscode.window.createTreeView(SITES_VIEW, { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true });
  const update = () => {
    const listed = model.state === 'ready' || model.state === 'empty';
    view.message = listed && model.filter ? vscode.l10n.t('Showing sites matching “{0}”.', model.filter) : undefined;
    view.description = model.filter ? vscode.l10n.t('filter: {0}', model.filter) : undefined;
  };
  update();
  return { view, disposables: [view, model.onDidChange(update), model.onDidChangeState(update)] };
}

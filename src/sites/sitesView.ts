// The Sites TreeView: shows the model's failures in the view itself (message + welcome view
// with the next step) rather than as a flood of notifications, and the active filter.
import * as vscode from 'vscode';
import type { TreeNode } from '../tree/node';
import type { SitesModel } from './sitesModel';
import { SITES_VIEW, type SitesTreeProvider } from './sitesTree';

export function createSitesView(model: SitesModel, provider: SitesTreeProvider): { view: vscode.TreeView<TreeNode>; disposables: vscode.Disposable[] } {
  const view = vscode.window.createTreeView(SITES_VIEW, { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true });
  const update = () => {
    const s = model.state;
    if (s === 'error' || s === 'unreachable') view.message = model.errorMessage;
    else if (model.filter) view.message = vscode.l10n.t('Showing sites matching “{0}”.', model.filter);
    else view.message = undefined;
    view.description = model.filter ? vscode.l10n.t('filter: {0}', model.filter) : undefined;
  };
  update();
  return { view, disposables: [view, model.onDidChange(update), model.onDidChangeState(update)] };
}

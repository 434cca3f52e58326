// The Sites TreeView. Its failure states are drawn by the workbench as welcome content (an
// explanation and buttons per state, package.json viewsWelcome), which it shows only while the
// tree has no rows and no `message`: so the view sets a message only over rows — an active
// filter over a loaded list, or the cached list shown while offline (then the title bar has
// Retry, and the description says "offline · cached 3 hours ago") — never in a failure state.
import * as vscode from 'vscode';
import { relativeTime } from '../revisions/time';
import type { TreeNode } from '../tree/node';
import { translate } from '../l10n';
import type { SitesModel } from './sitesModel';
import { SITES_VIEW, type SitesTreeProvider } from './sitesTree';

export function createSitesView(model: SitesModel, provider: SitesTreeProvider): { view: vscode.TreeView<TreeNode>; disposables: vscode.Disposable[] } {
  const view = vscode.window.createTreeView(SITES_VIEW, { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true });
  const update = () => {
    const listed = model.state === 'ready' || model.state === 'empty';
    const offline = model.state === 'offline' && model.hasSites;
    const age = relativeTime(model.fetchedAt, Date.now(), translate, vscode.env.language);
    view.message = offline
      ? vscode.l10n.t('Offline: the service cannot be reached. Showing what was cached {0}; Retry in the title bar tries again.', age)
      : listed && model.filter
        ? vscode.l10n.t('Showing sites matching “{0}”.', model.filter)
        : undefined;
    const parts = [model.state === 'offline' ? vscode.l10n.t('offline · cached {0}', age) : '', model.filter ? vscode.l10n.t('filter: {0}', model.filter) : ''].filter(Boolean);
    view.description = parts.length ? parts.join(' · ') : undefined;
  };
  update();
  // The age in the description moves on while offline.
  const timer = setInterval(() => {
    if (model.state === 'offline') update();
  }, 60_000);
  return { view, disposables: [view, model.onDidChange(update), model.onDidChangeState(update), { dispose: () => clearInterval(timer) }] };
}

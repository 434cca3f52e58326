// The Sites TreeView. Its failure states are drawn by the workbench as welcome content (an
// explanation and buttons per state, package.json viewsWelcome), which it shows only while the
// tree has no rows and no `message`: so the view sets a message only over rows — an active
// filter over a loaded list, or the cached list shown while offline (then the title bar has
// Retry, and the description says "offline · cached 3 hours ago") — never in a failure state.
// What the service said about a failure, in its own words, cannot be welcome content (fixed
// text): it is shown in a notification beside it, with Retry and Show Log (ServiceWordsNotice),
// and so is the HTTP status of an error page that came without words ("HTTP status 500").
import * as vscode from 'vscode';
import { relativeTime } from '../../core/model/time';
import type { TreeNode } from '../../workbench/tree/node';
import { translate } from '../../workbench/l10n';
import { message, plain, showError, type MessageText } from '../../workbench/messages';
import { background } from '../../core/util/background';
import { asSentence } from '../../core/util/l10n';
import type { SitesModel } from './sitesModel';
import { SITES_VIEW, type SitesTreeProvider } from './sitesTree';
import type { ServiceWords } from './viewState';

/**
 * The service's own words about a failed load of the sites ("Your subscription has expired"),
 * where the user looks: an error notification with Retry and Show Log, beside the view's welcome
 * content. As text (plain(): no link, no command, no control character), in a sentence of its
 * own after ours. The same words are not shown again while their notification is open.
 */
export class ServiceWordsNotice {
  private open: MessageText | undefined;

  show(words: ServiceWords): void {
    const { status } = words;
    const said = words.text === undefined ? undefined : plain(asSentence(words.text));
    if (said === undefined && status === undefined) return;
    const text =
      said === undefined
        ? message('Your sites could not be loaded. The service answered with HTTP status {0}.', status!)
        : status === undefined
          ? message('Your sites could not be loaded. The service said: “{0}”', said)
          : message('Your sites could not be loaded. The service answered with HTTP status {0} and said: “{1}”', status, said);
    if (this.open === text) return;
    this.open = text;
    const retry = vscode.l10n.t('Retry');
    const log = vscode.l10n.t('Show Log');
    background(
      'Showing what the service said',
      Promise.resolve(showError(text, retry, log)).then(async (pick) => {
        if (this.open === text) this.open = undefined;
        if (pick === retry) await vscode.commands.executeCommand('siteRevisions.refresh');
        else if (pick === log) await vscode.commands.executeCommand('siteRevisions.showLog');
      }),
    );
  }
}

/** @param dragAndDrop what the view does with what is dropped on it (site files: src/features/siteImport/register.ts). */
export function createSitesView(model: SitesModel, provider: SitesTreeProvider, dragAndDrop?: vscode.TreeDragAndDropController<TreeNode>): { view: vscode.TreeView<TreeNode>; disposables: vscode.Disposable[] } {
  const view = vscode.window.createTreeView(SITES_VIEW, { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true, ...(dragAndDrop ? { dragAndDropController: dragAndDrop } : {}) });
  // A row expanded while a refresh is being drawn, folded back by that redraw, is expanded again.
  provider.expansions.watch(view);
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
  const notice = new ServiceWordsNotice();
  return {
    view,
    disposables: [view, model.onDidChange(update), model.onDidChangeState(update), model.onDidFailWithWords((w) => notice.show(w)), { dispose: () => clearInterval(timer) }],
  };
}

// One-line state rows shared by the trees: empty, error (with a retry), hidden revisions, and
// entries of a list that could not be shown.
import * as vscode from 'vscode';
import { TreeNode } from './node';

export interface MessageOptions {
  icon?: string;
  color?: string;
  description?: string;
  tooltip?: string;
  command?: vscode.Command;
  contextValue?: string;
  id?: string;
}

/** A one-line state: empty, error (with a retry), hidden revisions… */
export class MessageNode extends TreeNode {
  constructor(
    parent: TreeNode | undefined,
    readonly label: string,
    readonly options: MessageOptions = {},
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const o = this.options;
    const item = new vscode.TreeItem(this.label, vscode.TreeItemCollapsibleState.None);
    if (o.id) item.id = o.id;
    if (o.icon) item.iconPath = new vscode.ThemeIcon(o.icon, o.color ? new vscode.ThemeColor(o.color) : undefined);
    if (o.description) item.description = o.description;
    if (o.tooltip) item.tooltip = o.tooltip;
    if (o.command) item.command = o.command;
    item.contextValue = o.contextValue ?? 'revisionMessage';
    return item;
  }
}

/** Context value of the "N … could not be shown" rows (their inline action is Show Log). */
export const LIST_ISSUES_CONTEXT = 'listIssues';

/**
 * The row under a list that says how many of its entries could not be shown, e.g. "2 sites could
 * not be shown". A click shows the log, which names the field of each.
 */
export function skippedNode(parent: TreeNode | undefined, what: 'sites' | 'files' | 'revisions', count: number, id: string): MessageNode {
  const label =
    what === 'sites'
      ? count === 1
        ? vscode.l10n.t('1 site could not be shown')
        : vscode.l10n.t('{0} sites could not be shown', count)
      : what === 'files'
        ? count === 1
          ? vscode.l10n.t('1 file could not be shown')
          : vscode.l10n.t('{0} files could not be shown', count)
        : count === 1
          ? vscode.l10n.t('1 revision could not be shown')
          : vscode.l10n.t('{0} revisions could not be shown', count);
  return new MessageNode(parent, label, {
    icon: 'warning',
    color: 'list.warningForeground',
    description: vscode.l10n.t('Show Log'),
    tooltip: vscode.l10n.t('The service listed entries with a value that cannot be read where one is needed. The others are shown. Click to show the log, which names the field of each.'),
    command: { command: 'siteRevisions.showLog', title: vscode.l10n.t('Show Log') },
    contextValue: LIST_ISSUES_CONTEXT,
    id,
  });
}

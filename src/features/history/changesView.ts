// The "Site Changes" view: what changed on a site (or a folder of it) in a period, grouped
// day → file → revisions, newest first, drawn as the scan proceeds. The view's description names
// the site, the period and the progress. Files have checkboxes for "Restore Checked…"; a
// revision opens its diff against the revision before.
import * as vscode from 'vscode';
import { translate } from '../../workbench/l10n';
import { relativeTime } from '../../core/model/time';
import { dayLabel, periodLabel, progressLabel, type ChangesDay, type ChangesFilter, type DatedRevision, type DayFile, type FileChanges, type SiteChangesBuilder } from '../../core/search';
import { TreeNode } from '../../workbench/tree/node';
import { MessageNode } from '../../workbench/tree/message';
import { displayText } from '../../core/util/text';
import type { ScanRun } from './progress';
import { scopeLabel, type ViewScope } from './scope';
import { CheckedFiles, fileRow, RefreshThrottle } from './tree';

import { CHANGES_VIEW, OPEN_CHANGE_COMMAND } from './names';
export { CHANGES_VIEW, OPEN_CHANGE_COMMAND };

export interface ChangesRun extends ScanRun {
  readonly scope: ViewScope;
  readonly filter: ChangesFilter;
  /** The grouping so far (the scan's own, once its first file is in). */
  builder: SiteChangesBuilder;
}

export class DayNode extends TreeNode {
  constructor(
    readonly run: ChangesRun,
    readonly day: ChangesDay,
    private readonly checked: CheckedFiles,
    /** Paths with no revision before the period (new in it). */
    readonly fresh: ReadonlySet<string>,
  ) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const d = this.day;
    const item = new vscode.TreeItem(dayLabel(d.day, this.run.filter.now, this.run.builder.zone, translate, vscode.env.language), vscode.TreeItemCollapsibleState.Expanded);
    item.id = `day:${d.day}`;
    item.description = d.files.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', d.files.length);
    item.tooltip = d.day;
    item.iconPath = new vscode.ThemeIcon('calendar');
    item.contextValue = 'siteChanges.day';
    return item;
  }
  getChildren(): TreeNode[] {
    return this.day.files.map((f) => new ChangedFileNode(this, f, this.checked));
  }
}

export class ChangedFileNode extends TreeNode {
  constructor(
    readonly dayNode: DayNode,
    readonly file: DayFile,
    private readonly checked: CheckedFiles,
  ) {
    super(dayNode);
  }
  getTreeItem(): vscode.TreeItem {
    const f = this.file;
    return fileRow({
      id: `day:${this.dayNode.day.day}:f:${f.path}`,
      path: f.path,
      revisions: f.revisions.length,
      extra: this.dayNode.fresh.has(f.path) ? vscode.l10n.t('new') : undefined,
      contextValue: 'siteChanges.file',
      checked: this.checked.has(f.path),
    });
  }
  getChildren(): TreeNode[] {
    return this.file.revisions.map((r) => new ChangeRevisionNode(this, r));
  }
}

export class ChangeRevisionNode extends TreeNode {
  constructor(
    readonly fileNode: ChangedFileNode,
    readonly revision: DatedRevision,
  ) {
    super(fileNode);
  }
  get path(): string {
    return this.fileNode.file.path;
  }
  getTreeItem(): vscode.TreeItem {
    const r = this.revision;
    const when = relativeTime(r.time, Date.now(), translate, vscode.env.language);
    const item = new vscode.TreeItem(when, vscode.TreeItemCollapsibleState.None);
    item.id = `day:${this.fileNode.dayNode.day.day}:f:${this.path}:r:${r.id}`;
    item.description = displayText(r.author);
    item.tooltip = `${r.date} UTC · ${vscode.l10n.t('revision {0}', displayText(r.id))}`;
    item.iconPath = new vscode.ThemeIcon('history');
    item.contextValue = 'siteChanges.revision';
    item.command = { command: OPEN_CHANGE_COMMAND, title: vscode.l10n.t('Compare with Previous Revision'), arguments: [this] };
    return item;
  }
}

export class SiteChangesProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private _run: ChangesRun | undefined;
  readonly checked = new CheckedFiles();
  private readonly throttle = new RefreshThrottle();
  readonly onDidChangeTreeData = this.throttle.event;
  private view: vscode.TreeView<TreeNode> | undefined;

  get run(): ChangesRun | undefined {
    return this._run;
  }

  attach(view: vscode.TreeView<TreeNode>): void {
    this.view = view;
    this.describe();
  }

  start(run: ChangesRun): void {
    this._run?.abort.abort();
    this._run = run;
    this.checked.clear();
    this.changed(true);
  }

  clear(): void {
    this._run?.abort.abort();
    this._run = undefined;
    this.checked.clear();
    this.changed(true);
  }

  changed(urgent = false): void {
    this.describe();
    if (urgent) this.throttle.now();
    else this.throttle.soon();
  }

  /** The view's description and message: scope, period, progress; what the empty tree means. */
  private describe(): void {
    if (!this.view) return;
    const r = this._run;
    if (!r) {
      this.view.description = undefined;
      this.view.message = undefined;
      return;
    }
    const authors = r.filter.authors?.length ? vscode.l10n.t('by {0}', r.filter.authors.map((a) => displayText(a)).join(', ')) : '';
    const progress = r.progress && (r.state === 'running' || r.state === 'cancelled' || r.progress.failed) ? progressLabel(r.progress, translate, vscode.env.language) : r.state === 'running' ? vscode.l10n.t('Starting…') : '';
    this.view.description = [scopeLabel(r.scope), periodLabel(r.filter.period, translate), authors, progress].filter(Boolean).join(' · ');
    this.view.message = r.state === 'done' && r.builder.revisionCount === 0 ? vscode.l10n.t('No file changed in this period.') : r.state === 'failed' ? vscode.l10n.t('The scan stopped: {0}', r.error ?? '') : undefined;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    return node.getTreeItem();
  }

  getChildren(node?: TreeNode): TreeNode[] | Promise<TreeNode[]> {
    if (node) return node.getChildren();
    const r = this._run;
    if (!r) return [];
    const fresh = new Set(r.builder.files().flatMap((f) => (f.before ? [] : [f.path])));
    const days: TreeNode[] = r.builder.days().map((d) => new DayNode(r, d, this.checked, fresh));
    if (r.builder.undated) days.push(new MessageNode(undefined, vscode.l10n.t('{0} revisions without a readable date are not listed', r.builder.undated), { icon: 'warning', id: 'undated' }));
    return days;
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  /** The checked files with their "Open Changes" pair. */
  checkedFiles(): FileChanges[] {
    const r = this._run;
    return r ? r.builder.files().filter((f) => this.checked.has(f.path)) : [];
  }

  dispose(): void {
    this._run?.abort.abort();
    this.throttle.dispose();
    this.checked.dispose();
  }
}

// The Transfers view (issue 34 §2, §4): a sync's preview — what would be uploaded, downloaded or
// deleted on each side and why, each file with a checkbox (deleting off by default: a title
// button includes the deletes) — and the conflicts any transfer set aside (a folder upload or
// download, a sync, upload on save), each with "Resolve…" (the conflict choice), and the files
// that failed in the last transfer with their next step. It shows once something is there.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { Conflict, FileOutcome, SyncAction, SyncPlan, SyncRow, Transfers } from '../../core/transfer';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import { setContext } from '../../workbench/context';
import { TreeNode } from '../../workbench/tree/node';
import { MessageNode } from '../../workbench/tree/message';
import { sizeText } from '../live/liveTree';
import { reasonText, shortReason as shortConflict } from './conflict';
import { TRANSFERS_VIEW } from './names';

/** A conflict set aside, waiting for its answer. */
export interface Pending {
  id: number;
  conflict: Conflict;
  site: Site;
  /** The mapped folder (the working file's side), when there is one. */
  folder: vscode.Uri | undefined;
  /** Where it came from. */
  from: 'upload' | 'download' | 'sync' | 'save' | 'queue' | 'put-back';
  at: number;
}

/** A sync preview: the plan, and what it needs to run. */
export interface Preview {
  plan: SyncPlan;
  site: Site;
  folder: vscode.Uri;
  tx: Transfers;
  /** Paths left unchecked by the person. */
  unchecked: Set<string>;
}

const ACTION_ORDER: SyncAction[] = ['upload', 'download', 'delete-live', 'delete-local', 'conflict', 'skip'];

export function actionLabel(a: SyncAction): string {
  switch (a) {
    case 'upload':
      return vscode.l10n.t('Upload');
    case 'download':
      return vscode.l10n.t('Download');
    case 'delete-live':
      return vscode.l10n.t('Delete on the server');
    case 'delete-local':
      return vscode.l10n.t('Delete locally');
    case 'conflict':
      return vscode.l10n.t('Conflicts');
    case 'skip':
      return vscode.l10n.t('Left alone');
    case 'same':
      return vscode.l10n.t('The same');
  }
}

function actionIcon(a: SyncAction): string {
  return { upload: 'cloud-upload', download: 'cloud-download', 'delete-live': 'trash', 'delete-local': 'trash', conflict: 'warning', skip: 'circle-slash', same: 'check' }[a];
}

/** Why a row is in its group, in a few words. */
export function shortReason(r: SyncRow): string {
  switch (r.reason) {
    case 'changed-locally':
      return vscode.l10n.t('changed here');
    case 'changed-live':
      return vscode.l10n.t('changed on the server');
    case 'only-local':
      return vscode.l10n.t('only here');
    case 'only-live':
      return vscode.l10n.t('only on the server');
    case 'deleted-locally':
      return vscode.l10n.t('deleted here');
    case 'deleted-live':
      return r.action === 'conflict' ? vscode.l10n.t('changed here, deleted on the server') : vscode.l10n.t('deleted on the server');
    case 'both-changed':
      return vscode.l10n.t('changed on both sides');
    case 'no-base':
      return vscode.l10n.t('differs, never transferred');
    case 'same-bytes':
      return vscode.l10n.t('changed the same way');
    case 'unchanged':
      return vscode.l10n.t('the same');
    case 'excluded':
      return vscode.l10n.t('excluded');
    case 'link-outside':
      return vscode.l10n.t('link out of the folder');
    case 'link-to-folder':
      return vscode.l10n.t('link to a folder');
    case 'refused-path':
      return vscode.l10n.t('not a name a working file can have');
    case 'not-a-file':
      return vscode.l10n.t('not a regular file');
    case 'deleted-local':
      return vscode.l10n.t('deleted here');
  }
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

function dirName(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

export class PlanNode extends TreeNode {
  constructor(readonly preview: Preview) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const p = this.preview.plan;
    const item = new vscode.TreeItem(vscode.l10n.t('Sync preview: {0}', [displayText(this.preview.site.name), p.dir ? displayText(p.dir) : ''].filter(Boolean).join(' / ')), vscode.TreeItemCollapsibleState.Expanded);
    item.id = 'transfers:plan';
    item.iconPath = new vscode.ThemeIcon('sync');
    const dir = p.direction === 'both' ? vscode.l10n.t('both ways') : p.direction === 'upload' ? vscode.l10n.t('upload only') : vscode.l10n.t('download only');
    item.description = `${dir} · ${p.deletes ? vscode.l10n.t('deletes included') : vscode.l10n.t('deleting off')}`;
    item.tooltip = vscode.l10n.t('Nothing is written until you run the sync (the check mark in this view’s title). Each file is checked again through the guard when it runs.');
    item.contextValue = 'syncPlan';
    return item;
  }
  getChildren(): TreeNode[] {
    const out: TreeNode[] = [];
    for (const a of ACTION_ORDER) {
      const rows = this.preview.plan.rows.filter((r) => r.action === a);
      if (rows.length) out.push(new ActionNode(this, a, rows));
    }
    const same = this.preview.plan.counts.same;
    if (!out.length) out.push(new MessageNode(this, vscode.l10n.t('Nothing to do: both sides are the same.'), { icon: 'check', id: 'transfers:plan:nothing' }));
    else if (same) out.push(new MessageNode(this, same === 1 ? vscode.l10n.t('1 file is the same on both sides') : vscode.l10n.t('{0} files are the same on both sides', same), { icon: 'check', id: 'transfers:plan:same' }));
    return out;
  }
}

export class ActionNode extends TreeNode {
  constructor(
    readonly planNode: PlanNode,
    readonly action: SyncAction,
    readonly rows: SyncRow[],
  ) {
    super(planNode);
  }
  get checkable(): boolean {
    return this.action !== 'skip';
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(actionLabel(this.action), this.action === 'skip' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
    item.id = `transfers:plan:${this.action}`;
    item.description = this.rows.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', this.rows.length);
    item.iconPath = new vscode.ThemeIcon(actionIcon(this.action));
    if (this.checkable) {
      const un = this.planNode.preview.unchecked;
      item.checkboxState = this.rows.every((r) => !un.has(r.path)) ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked;
    }
    if (this.action === 'conflict') item.tooltip = vscode.l10n.t('Changed on both sides: running the sync asks you about each (nothing is overwritten without your choice).');
    item.contextValue = `syncAction.${this.action}`;
    return item;
  }
  getChildren(): TreeNode[] {
    return this.rows.map((r) => new PlanRowNode(this, r));
  }
}

export class PlanRowNode extends TreeNode {
  constructor(
    readonly actionNode: ActionNode,
    readonly row: SyncRow,
  ) {
    super(actionNode);
  }
  getTreeItem(): vscode.TreeItem {
    const r = this.row;
    const item = new vscode.TreeItem(baseName(r.path), vscode.TreeItemCollapsibleState.None);
    item.id = `transfers:plan:${JSON.stringify([r.action, r.path])}`;
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${baseName(r.path)}` });
    item.iconPath = vscode.ThemeIcon.File;
    const size = r.action === 'download' || r.action === 'delete-live' ? r.live?.size : r.local?.size ?? r.live?.size;
    // Why first, in a few words (the sentence is the tooltip); then where and how big.
    item.description = [shortReason(r), displayText(dirName(r.path)), sizeText(size)].filter(Boolean).join(' · ');
    item.tooltip = `${r.path}\n${r.detail}`;
    if (this.actionNode.checkable) item.checkboxState = this.actionNode.planNode.preview.unchecked.has(r.path) ? vscode.TreeItemCheckboxState.Unchecked : vscode.TreeItemCheckboxState.Checked;
    item.command = { command: 'siteRevisions.transfersOpenRow', title: vscode.l10n.t('Compare'), arguments: [this] };
    item.contextValue = `syncRow.${r.action}`;
    item.accessibilityInformation = { label: `${r.path}, ${actionLabel(r.action)}, ${r.detail}` };
    return item;
  }
}

class ConflictsNode extends TreeNode {
  constructor(readonly pending: Pending[]) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Conflicts to resolve'), vscode.TreeItemCollapsibleState.Expanded);
    item.id = 'transfers:conflicts';
    item.description = this.pending.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', this.pending.length);
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    item.tooltip = vscode.l10n.t('Nothing was written for these files: each changed on the other side. Resolve each to compare and choose.');
    item.contextValue = 'transferConflicts';
    return item;
  }
  getChildren(): TreeNode[] {
    return this.pending.map((p) => new ConflictNode(this, p));
  }
}

export class ConflictNode extends TreeNode {
  constructor(
    parent: TreeNode,
    readonly pending: Pending,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const c = this.pending.conflict;
    const item = new vscode.TreeItem(baseName(c.path), vscode.TreeItemCollapsibleState.None);
    item.id = `transfers:conflict:${this.pending.id}`;
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${baseName(c.path)}` });
    item.iconPath = vscode.ThemeIcon.File;
    item.description = [shortConflict(c), displayText(this.pending.site.name), displayText(dirName(c.path))].filter(Boolean).join(' · ');
    item.tooltip = `${c.path}\n${reasonText(c)}\n${vscode.l10n.t('Click to compare and choose: Overwrite, Take Theirs or Cancel.')}`;
    item.command = { command: 'siteRevisions.resolveConflict', title: vscode.l10n.t('Resolve…'), arguments: [this] };
    item.contextValue = 'transferConflict';
    item.accessibilityInformation = { label: vscode.l10n.t('{0}, conflict, {1}', c.path, reasonText(c)) };
    return item;
  }
}

/** A file that failed in the last transfer, with its next step. */
export interface Failure {
  site: Site;
  path: string;
  message: string;
  next: string;
}

class FailuresNode extends TreeNode {
  constructor(readonly failures: Failure[]) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Failed in the last transfer'), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = 'transfers:failed';
    item.description = this.failures.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', this.failures.length);
    item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
    item.contextValue = 'transferFailures';
    return item;
  }
  getChildren(): TreeNode[] {
    return this.failures.map(
      (f, i) =>
        new MessageNode(this, baseName(f.path) || displayText(f.site.name), {
          icon: 'error',
          color: 'list.errorForeground',
          description: [displayText(dirName(f.path)), displayText(f.message)].filter(Boolean).join(' · '),
          tooltip: [f.path, f.message, f.next].filter(Boolean).join('\n'),
          id: `transfers:failed:${i}`,
          contextValue: 'transferFailure',
        }),
    );
  }
}

export class TransfersView implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private view: vscode.TreeView<TreeNode> | undefined;
  preview: Preview | undefined;
  private planNode: PlanNode | undefined;
  readonly pending: Pending[] = [];
  failures: Failure[] = [];
  private nextId = 1;
  private readonly subs: vscode.Disposable[] = [];

  constructor() {
    // Made with the feature: once anything is listed, the view (shown by its context key) has its rows.
    this.ensureView();
  }

  dispose(): void {
    this.emitter.dispose();
    for (const d of this.subs) d.dispose();
    this.view?.dispose();
  }

  private ensureView(): vscode.TreeView<TreeNode> {
    if (!this.view) {
      // A group's box checks or unchecks its rows; a row's box only itself (the group's box then shows whether all are checked).
      this.view = vscode.window.createTreeView(TRANSFERS_VIEW, { treeDataProvider: this, showCollapseAll: true, manageCheckboxStateManually: true });
      this.subs.push(this.view.onDidChangeCheckboxState((e) => this.checked(e.items)));
    }
    return this.view;
  }

  /** Shows the view (and focuses it). */
  reveal(): void {
    this.ensureView();
    setContext('siteRevisions.transfers.shown', true);
    background('Showing the Transfers view', vscode.commands.executeCommand(`${TRANSFERS_VIEW}.focus`));
  }

  private checked(items: readonly [TreeNode, vscode.TreeItemCheckboxState][]): void {
    const p = this.preview;
    if (!p) return;
    for (const [node, state] of items) {
      const rows = node instanceof PlanRowNode ? [node.row] : node instanceof ActionNode ? node.rows : [];
      for (const r of rows) {
        if (state === vscode.TreeItemCheckboxState.Checked) p.unchecked.delete(r.path);
        else p.unchecked.add(r.path);
      }
    }
    this.refreshPlan();
  }

  private states(): void {
    setContext('siteRevisions.sync.planned', !!this.preview);
    setContext('siteRevisions.sync.deletes', !!this.preview?.plan.deletes);
    // Shown while it lists something (a preview, conflicts, failures); hidden again once empty.
    setContext('siteRevisions.transfers.shown', !!this.preview || this.pending.length > 0 || this.failures.length > 0);
    if (this.view) {
      const n = this.pending.length;
      this.view.badge = n ? { value: n, tooltip: n === 1 ? vscode.l10n.t('1 conflict to resolve') : vscode.l10n.t('{0} conflicts to resolve', n) } : undefined;
      const p = this.preview?.plan;
      this.view.message = p ? this.planMessage(p) : undefined;
    }
  }

  private planMessage(p: SyncPlan): string {
    const un = this.preview!.unchecked;
    const todo = p.rows.filter((r) => r.action !== 'same' && r.action !== 'skip' && !un.has(r.path));
    const count = (a: SyncAction) => todo.filter((r) => r.action === a).length;
    const parts = [
      count('upload') ? vscode.l10n.t('{0} to upload', count('upload')) : '',
      count('download') ? vscode.l10n.t('{0} to download', count('download')) : '',
      count('delete-live') + count('delete-local') ? vscode.l10n.t('{0} to delete', count('delete-live') + count('delete-local')) : '',
      count('conflict') ? vscode.l10n.t('{0} to decide', count('conflict')) : '',
    ].filter(Boolean);
    return parts.length ? vscode.l10n.t('Checked: {0}. Run the sync with the check mark above.', parts.join(', ')) : vscode.l10n.t('Nothing checked to do.');
  }

  private refreshPlan(): void {
    this.states();
    this.emitter.fire(undefined);
  }

  showPlan(preview: Preview): void {
    this.preview = preview;
    this.planNode = undefined;
    this.reveal();
    this.refreshPlan();
  }

  clearPlan(): void {
    this.preview = undefined;
    this.planNode = undefined;
    this.refreshPlan();
  }

  /** Sets a conflict aside (listed until answered). */
  add(p: Omit<Pending, 'id' | 'at'>): Pending {
    // A newer conflict of the same file replaces the older one.
    const i = this.pending.findIndex((x) => x.site.id === p.site.id && x.conflict.path === p.conflict.path);
    const entry: Pending = { ...p, id: this.nextId++, at: Date.now() };
    if (i >= 0) this.pending.splice(i, 1, entry);
    else this.pending.push(entry);
    this.states();
    this.emitter.fire(undefined);
    return entry;
  }

  remove(p: Pending): void {
    const i = this.pending.indexOf(p);
    if (i >= 0) this.pending.splice(i, 1);
    this.states();
    this.emitter.fire(undefined);
  }

  /** The failures of the last transfer (replacing those before). */
  setFailures(site: Site, files: FileOutcome[]): void {
    this.failures = files.flatMap((f) => (f.action === 'failed' ? [{ site, path: f.path, message: f.error.message, next: f.error.next }] : []));
    this.states();
    this.emitter.fire(undefined);
  }

  /** Forgets everything (the view's Clear, another account). */
  clear(): void {
    for (const p of this.pending.splice(0)) void p.conflict.cancel().catch(() => undefined);
    this.failures = [];
    this.preview = undefined;
    this.planNode = undefined;
    this.refreshPlan();
  }

  getTreeItem(n: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    return n.getTreeItem();
  }

  getChildren(n?: TreeNode): TreeNode[] | Promise<TreeNode[]> {
    if (n) return n.getChildren();
    const out: TreeNode[] = [];
    if (this.preview) out.push((this.planNode ??= new PlanNode(this.preview)));
    if (this.pending.length) out.push(new ConflictsNode(this.pending));
    if (this.failures.length) out.push(new FailuresNode(this.failures));
    return out;
  }

  getParent(n: TreeNode): TreeNode | undefined {
    return n.parent;
  }
}

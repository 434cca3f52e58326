// The "History Search" view: the last searches (newest first), each grouped by file, then by
// revision (relative date, author, "added 2" / "removed 1" / "3 matches") with the line of the
// first match. Results stream in while the scan runs; the search row shows its progress
// ("132 / 1,840 files"). Files have checkboxes for "Restore Checked…".
import * as vscode from 'vscode';
import { naturalCompare } from '../../core/model/folders';
import { translate } from '../../workbench/l10n';
import { fileName } from '../revisions/nodes';
import { relativeTime } from '../../core/model/time';
import { hitLabel, progressLabel, type FileSearchResult, type RevisionHit, type SearchMode, type SearchQuery } from '../../core/search';
import { TreeNode } from '../../workbench/tree/node';
import { MessageNode } from '../../workbench/tree/message';
import { appendData, dataTooltip } from '../../workbench/markdown';
import { displayText } from '../../core/util/text';
import { scopeLabel, type ViewScope } from './scope';
import type { ScanRun } from './progress';
import { CheckedFiles, fileRow, RefreshThrottle } from './tree';

import { HISTORY_VIEW, OPEN_RESULT_COMMAND } from './names';
export { HISTORY_VIEW, OPEN_RESULT_COMMAND };

/** Searches kept in the view; the oldest goes when another starts. */
export const MAX_SEARCHES = 10;

export interface SearchRun extends ScanRun {
  readonly id: number;
  readonly scope: ViewScope;
  readonly query: SearchQuery;
  readonly mode: SearchMode;
  /** Files with hits, as they arrive. */
  readonly results: FileSearchResult[];
  /** Revisions with a hit, over all files. */
  hits: number;
  /** Files that could not be read (the scan went on without them), once it has ended. */
  failures: { path: string; message: string }[];
}

/** Failed files named in the tooltip of the "could not be read" row. */
const FAILURES_SHOWN = 10;

/** The row under a search that says which files could not be read, and why (the first reasons; the log has all). */
function failuresNode(parent: TreeNode, r: SearchRun): MessageNode {
  const [first] = r.failures;
  const one = r.failures.length === 1 && first;
  const lines = r.failures.slice(0, FAILURES_SHOWN).map((f) => `${displayText(f.path)}: ${displayText(f.message)}`);
  if (r.failures.length > FAILURES_SHOWN) lines.push(vscode.l10n.t('… and {0} more (see the log)', r.failures.length - FAILURES_SHOWN));
  return new MessageNode(parent, one ? vscode.l10n.t('“{0}” could not be read', displayText(first.path)) : vscode.l10n.t('{0} files could not be read', r.failures.length), {
    icon: 'warning',
    color: 'list.warningForeground',
    ...(one ? { description: displayText(first.message) } : {}),
    tooltip: lines.join('\n'),
    id: `run:${r.id}:failures`,
  });
}

/** `"TODO" (regex, match case, whole word)`: the query as the view names it. */
export function queryLabel(q: SearchQuery): string {
  const flags = [q.isRegExp ? vscode.l10n.t('regex') : '', q.matchCase ? vscode.l10n.t('match case') : '', q.wholeWord ? vscode.l10n.t('whole word') : ''].filter(Boolean);
  const text = `“${displayText(q.pattern)}”`;
  return flags.length ? `${text} (${flags.join(', ')})` : text;
}

/** "1 file, 1 revision", "4 files, 6 revisions". */
function countLabel(files: number, revisions: number): string {
  const f = files === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', files);
  const r = revisions === 1 ? vscode.l10n.t('1 revision') : vscode.l10n.t('{0} revisions', revisions);
  return `${f}, ${r}`;
}

export function modeLabel(mode: SearchMode): string {
  return mode === 'contains' ? vscode.l10n.t('contains') : vscode.l10n.t('changes');
}

export class SearchRunNode extends TreeNode {
  constructor(
    readonly run: SearchRun,
    private readonly newest: boolean,
    private readonly checked: CheckedFiles,
  ) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const r = this.run;
    const item = new vscode.TreeItem(queryLabel(r.query), this.newest ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `run:${r.id}`;
    const where = scopeLabel(r.scope);
    const status =
      r.state === 'running'
        ? r.progress
          ? progressLabel(r.progress, translate, vscode.env.language)
          : vscode.l10n.t('Starting…')
        : r.state === 'failed'
          ? vscode.l10n.t('failed')
          : countLabel(r.results.length, r.hits);
    const cancelled = r.state === 'cancelled' && r.progress ? progressLabel(r.progress, translate, vscode.env.language) : undefined;
    item.description = [where, modeLabel(r.mode), status, cancelled].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon(r.state === 'running' ? 'loading~spin' : r.state === 'failed' ? 'error' : r.state === 'cancelled' ? 'circle-slash' : 'search');
    item.contextValue = `historySearch.run.${r.state}`;
    const md = dataTooltip(false);
    appendData(md, queryLabel(r.query)).appendMarkdown('\n\n');
    appendData(md, vscode.l10n.t('In {0}, mode: {1}', where, modeLabel(r.mode)));
    item.tooltip = md;
    return item;
  }
  getChildren(): TreeNode[] {
    const r = this.run;
    const out: TreeNode[] = [...r.results].sort((a, b) => naturalCompare(a.path, b.path)).map((f) => new SearchFileNode(this, f, this.checked));
    if (r.failures.length) out.push(failuresNode(this, r));
    if (r.state === 'failed') out.push(new MessageNode(this, vscode.l10n.t('The search stopped'), { icon: 'error', color: 'errorForeground', description: r.error, tooltip: r.error, id: `run:${r.id}:error` }));
    else if (!out.length && r.state !== 'running') {
      out.push(new MessageNode(this, r.mode === 'changes' ? vscode.l10n.t('No revision changes the number of matches') : vscode.l10n.t('No revision contains a match'), { icon: 'info', id: `run:${r.id}:none` }));
    }
    return out;
  }
}

export class SearchFileNode extends TreeNode {
  constructor(
    readonly parentRun: SearchRunNode,
    readonly result: FileSearchResult,
    private readonly checked: CheckedFiles,
  ) {
    super(parentRun);
  }
  /** The key of its checkbox: this file of this search. */
  get key(): string {
    return JSON.stringify([this.parentRun.run.id, this.result.path]);
  }
  getTreeItem(): vscode.TreeItem {
    const f = this.result;
    return fileRow({ id: `run:${this.parentRun.run.id}:f:${f.path}`, path: f.path, revisions: f.hits.length, contextValue: 'historySearch.file', checked: this.checked.has(this.key) });
  }
  getChildren(): TreeNode[] {
    return this.result.hits.map((h) => new SearchHitNode(this, h));
  }
}

export class SearchHitNode extends TreeNode {
  constructor(
    readonly file: SearchFileNode,
    readonly hit: RevisionHit,
  ) {
    super(file);
  }
  get run(): SearchRun {
    return this.file.parentRun.run;
  }
  getTreeItem(): vscode.TreeItem {
    const h = this.hit;
    const now = Date.now();
    const when = h.time === undefined ? displayText(h.date) || vscode.l10n.t('unknown date') : relativeTime(h.time, now, translate, vscode.env.language);
    const who = displayText(h.author).trim();
    const counts = hitLabel(h, this.run.mode, translate, vscode.env.language);
    const item = new vscode.TreeItem(`${counts} · ${who ? `${when}, ${who}` : when}`, vscode.TreeItemCollapsibleState.None);
    item.id = `run:${this.run.id}:f:${this.file.result.path}:r:${h.id}`;
    item.description = h.preview ? displayText(h.preview.text) : undefined;
    item.iconPath = new vscode.ThemeIcon(h.removed > 0 ? 'diff-removed' : this.run.mode === 'changes' ? 'diff-added' : 'history');
    const md = dataTooltip(false);
    md.appendMarkdown('**');
    appendData(md, fileName(this.file.result.path)).appendMarkdown('** — ');
    appendData(md, vscode.l10n.t('revision {0}', h.id)).appendMarkdown('\n\n');
    appendData(md, `${counts} · ${who ? `${when}, ${who}` : when} · ${h.date}`);
    if (h.preview) {
      md.appendMarkdown('\n\n');
      appendData(md, h.previewIn === 'previous' ? vscode.l10n.t('Line {0} of the revision before: {1}', h.preview.line + 1, h.preview.text) : vscode.l10n.t('Line {0}: {1}', h.preview.line + 1, h.preview.text));
    }
    item.tooltip = md;
    item.contextValue = 'historySearch.hit';
    item.command = { command: OPEN_RESULT_COMMAND, title: vscode.l10n.t('Open Search Result'), arguments: [this] };
    item.accessibilityInformation = { label: vscode.l10n.t('Revision {0}, {1}, {2}', h.id, `${when}${who ? `, ${who}` : ''}`, counts) };
    return item;
  }
}

/** The view's data: the searches, newest first. */
export class HistorySearchProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly runs: SearchRun[] = [];
  private nextId = 1;
  readonly checked = new CheckedFiles();
  private readonly throttle = new RefreshThrottle();
  readonly onDidChangeTreeData = this.throttle.event;

  get searches(): readonly SearchRun[] {
    return this.runs;
  }

  add(scope: ViewScope, query: SearchQuery, mode: SearchMode): SearchRun {
    const run: SearchRun = { id: this.nextId++, scope, query, mode, results: [], progress: undefined, state: 'running', hits: 0, failures: [], abort: new AbortController() };
    this.runs.unshift(run);
    for (const old of this.runs.splice(MAX_SEARCHES)) old.abort.abort();
    this.checked.clear();
    this.throttle.now();
    return run;
  }

  remove(run: SearchRun): void {
    run.abort.abort();
    const i = this.runs.indexOf(run);
    if (i >= 0) this.runs.splice(i, 1);
    this.checked.forget((key) => (JSON.parse(key) as [number, string])[0] === run.id);
    this.throttle.now();
  }

  clear(): void {
    for (const r of this.runs) r.abort.abort();
    this.runs.length = 0;
    this.checked.clear();
    this.throttle.now();
  }

  /** Something of a run changed: drawn soon (at most a few times a second while results stream in). */
  changed(urgent = false): void {
    if (urgent) this.throttle.now();
    else this.throttle.soon();
  }

  running(): SearchRun | undefined {
    return this.runs.find((r) => r.state === 'running');
  }

  getTreeItem(node: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    return node.getTreeItem();
  }

  getChildren(node?: TreeNode): TreeNode[] | Promise<TreeNode[]> {
    if (node) return node.getChildren();
    return this.runs.map((r, i) => new SearchRunNode(r, i === 0, this.checked));
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  /** The checked files, each with the newest revision it lists (what Restore Checked restores). */
  checkedFiles(): { run: SearchRun; result: FileSearchResult }[] {
    const out: { run: SearchRun; result: FileSearchResult }[] = [];
    for (const run of this.runs) for (const result of run.results) if (this.checked.has(JSON.stringify([run.id, result.path]))) out.push({ run, result });
    return out;
  }

  dispose(): void {
    this.clear();
    this.throttle.dispose();
  }
}

// "Show Line History": the revisions that changed the selected lines of a working file of a mapped
// folder (or of a revision document), newest first, in the Line History view — each with its
// author, date and the lines' text in that revision (the rows under it); a click opens the diff
// with the revision before it, scrolled to the lines. The lines are followed through the history
// by the blame engine's line diff (src/core/blame/lineHistory.ts), not by line numbers. The history is
// the file's, read once through the store (WorkingFiles.history: one Get Revisions with content,
// or nothing when cached); the view shows the state of the lines when it was asked (Show Line
// History again after an edit).
import * as vscode from 'vscode';
import type { LineChange, LineHistoryEntry } from '../../core/blame';
import { loadBlame } from '../../core/blame/load';
import type { Listed, Target, WorkingFiles } from '../editor/workingFiles';
import { translate } from '../../workbench/l10n';
import { parseRevisionUri } from '../revisions/fileSystem';
import { exactDate, fileName, revisionLabel, revisionTitle } from '../revisions/nodes';
import { parseRevisionDate } from '../../core/model/ordering';
import { relativeTime } from '../../core/model/time';
import { setContext } from '../../workbench/context';
import { appendData, dataTooltip } from '../../workbench/markdown';
import { inform, message, plain } from '../../workbench/messages';
import { displayText } from '../../core/util/text';
import { LINE_HISTORY_VIEW } from './names';

/** Lines of a revision shown under its row at most. */
const MAX_LINES_SHOWN = 30;

/** The lines a history was asked for, and where. */
interface Asked {
  /** The document (a working file, or a revision document). */
  uri: vscode.Uri;
  target: Pick<Target, 'siteId' | 'path'>;
  /** 0-based, end exclusive, in that document. */
  start: number;
  end: number;
}

/** One entry of the list, with the revision it is about (undefined: the working file). */
interface Row {
  entry: LineHistoryEntry;
  /** The entry is the working file's (not in any revision). */
  local: boolean;
  listed: Listed | undefined;
  /** The revision before it (undefined: none kept, or the working file's newest). */
  previous: Listed | undefined;
}

abstract class Node {
  abstract item(): vscode.TreeItem;
  children(): Node[] {
    return [];
  }
}

class LineNode extends Node {
  constructor(
    private readonly id: string,
    private readonly text: string,
  ) {
    super();
  }
  item(): vscode.TreeItem {
    const item = new vscode.TreeItem(displayText(this.text) || ' ', vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    return item;
  }
}

class EntryNode extends Node {
  constructor(
    readonly view: LineHistoryView,
    readonly row: Row,
    readonly index: number,
  ) {
    super();
  }

  item(): vscode.TreeItem {
    const { entry, listed, local } = this.row;
    // Who and when first (what a narrow side bar keeps), then the revision and the lines' first text.
    const first = entry.lines.find((l) => l.trim() !== '')?.trim() ?? '';
    const text = first ? displayText(first).slice(0, 120) : vscode.l10n.t('(empty lines)');
    const who = listed ? displayText(listed.item.author).trim() || vscode.l10n.t('unknown author') : '';
    const when = listed ? (listed.time === undefined ? displayText(listed.item.date) || vscode.l10n.t('unknown date') : relativeTime(listed.time, Date.now(), translate, vscode.env.language)) : '';
    const label = listed ? `${who}, ${when}` : vscode.l10n.t('Working file (not in any revision)');
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `${this.view.generation}:${this.index}`;
    const lines = entry.range.end - entry.range.start === 1 ? vscode.l10n.t('line {0}', entry.range.start + 1) : vscode.l10n.t('lines {0}–{1}', entry.range.start + 1, entry.range.end);
    item.description = [listed ? vscode.l10n.t('revision {0}', displayText(listed.item.id)) : '', text].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon(ICONS[local ? 'local' : entry.change]);
    item.contextValue = 'lineHistoryEntry';
    item.tooltip = this.tooltip(lines);
    item.command = { command: 'siteRevisions.openLineHistoryEntry', title: vscode.l10n.t('Open Changes'), arguments: [this] };
    return item;
  }

  private tooltip(lines: string): vscode.MarkdownString {
    const { entry, listed, local } = this.row;
    const change = local ? 'local' : entry.change;
    const md = dataTooltip(true);
    md.appendMarkdown(`$(${ICONS[change]}) **`);
    appendData(md, changeText(change)).appendMarkdown('**\n\n');
    if (listed) {
      appendData(md, vscode.l10n.t('revision {0}', listed.item.id)).appendMarkdown(' · ');
      appendData(md, displayText(listed.item.author).trim() || vscode.l10n.t('unknown author')).appendMarkdown('\n\n');
      appendData(md, exactDate(listed)).appendMarkdown('\n\n');
    }
    appendData(md, lines).appendMarkdown('\n\n');
    md.appendCodeblock(entry.lines.slice(0, MAX_LINES_SHOWN).join('\n'), '');
    return md;
  }

  children(): Node[] {
    const id = `${this.view.generation}:${this.index}`;
    const shown = this.row.entry.lines.slice(0, MAX_LINES_SHOWN).map((l, i) => new LineNode(`${id}:${i}`, l));
    const more = this.row.entry.lines.length - shown.length;
    if (more > 0) shown.push(new LineNode(`${id}:more`, vscode.l10n.t('… {0} more lines', more)));
    return shown;
  }
}

const ICONS: Record<LineChange | 'local', string> = { changed: 'git-commit', moved: 'arrow-swap', added: 'add', oldest: 'history', local: 'edit' };

function changeText(c: LineChange | 'local'): string {
  switch (c) {
    case 'changed':
      return vscode.l10n.t('Changed the lines');
    case 'moved':
      return vscode.l10n.t('Moved the lines');
    case 'added':
      return vscode.l10n.t('Added the lines');
    case 'oldest':
      return vscode.l10n.t('The oldest revision kept: the lines are in it and may be older');
    default:
      return vscode.l10n.t('Changed in the working file, not in any revision');
  }
}

export class LineHistoryView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<Node>;
  private rows: EntryNode[] = [];
  private asked: Asked | undefined;
  private abort: AbortController | undefined;
  /** Bumped by every history shown (row ids change with it). */
  generation = 0;

  constructor(private readonly files: WorkingFiles) {
    this.view = vscode.window.createTreeView(LINE_HISTORY_VIEW, { treeDataProvider: this, showCollapseAll: true });
  }

  getTreeItem(n: Node): vscode.TreeItem {
    return n.item();
  }

  getChildren(n?: Node): Node[] {
    return n ? n.children() : this.rows;
  }

  /** The entries shown, newest first (tests). */
  get entries(): readonly LineHistoryEntry[] {
    return this.rows.map((r) => r.row.entry);
  }

  /**
   * Shows the history of the selected lines of the active editor (or `arg`: a URI, or `{uri,
   * line}` from the blame hover's link). Resolves once it is drawn.
   */
  async show(arg?: unknown): Promise<'shown' | 'none'> {
    const asked = await this.what(arg);
    if (!asked) return 'none';
    this.abort?.abort();
    const abort = (this.abort = new AbortController());
    setContext('siteRevisions.lineHistory.shown', true);
    this.asked = asked;
    this.rows = [];
    this.generation++;
    const where = asked.end - asked.start === 1 ? vscode.l10n.t('line {0}', asked.start + 1) : vscode.l10n.t('lines {0}–{1}', asked.start + 1, asked.end);
    this.view.description = `${fileName(asked.target.path)} · ${where}`;
    this.view.message = vscode.l10n.t('Reading the history of {0}…', fileName(asked.target.path));
    this.changed.fire();
    await vscode.commands.executeCommand(`${LINE_HISTORY_VIEW}.focus`);
    try {
      const rows = await vscode.window.withProgress({ location: { viewId: LINE_HISTORY_VIEW } }, () => this.compute(asked, abort.signal));
      if (abort.signal.aborted) return 'none';
      this.rows = rows.map((r, i) => new EntryNode(this, r, i));
      this.view.message = rows.length ? undefined : vscode.l10n.t('No revision of {0} has these lines.', fileName(asked.target.path));
      this.changed.fire();
      return 'shown';
    } catch (e) {
      if (abort.signal.aborted) return 'none';
      this.view.message = vscode.l10n.t('The history could not be read: {0}', e instanceof Error ? e.message : String(e));
      this.changed.fire();
      throw e;
    }
  }

  /** What to show the history of: the document, its site file and the lines. */
  private async what(arg: unknown): Promise<Asked | undefined> {
    let uri: vscode.Uri | undefined;
    let start: number;
    let end: number;
    const link = arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) ? (arg as { uri?: unknown; line?: unknown }) : undefined;
    if (link && typeof link.uri === 'string' && Number.isInteger(link.line) && (link.line as number) >= 0) {
      // From the blame hover: that line of that document.
      uri = vscode.Uri.parse(link.uri, true);
      start = link.line as number;
      end = start + 1;
    } else {
      const editor = arg instanceof vscode.Uri ? vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === arg.toString()) : vscode.window.activeTextEditor;
      uri = arg instanceof vscode.Uri ? arg : editor?.document.uri;
      const sel = editor?.selection;
      start = sel ? sel.start.line : 0;
      // A selection that ends at the start of a line does not take that line.
      end = sel ? (sel.end.line > sel.start.line && sel.end.character === 0 ? sel.end.line : sel.end.line + 1) : 1;
    }
    if (!uri) {
      inform(message('Open a file of a mapped site and select lines first.'));
      return undefined;
    }
    const rev = parseRevisionUri(uri);
    if (rev) return { uri, target: { siteId: rev.siteId, path: rev.path }, start, end };
    const target = await this.files.target(uri);
    if (!target) {
      inform(message('{0} has no revisions on a site mapped to its folder.', plain(fileName(uri.path))));
      return undefined;
    }
    return { uri, target, start, end };
  }

  private async compute(asked: Asked, signal: AbortSignal): Promise<Row[]> {
    const [history, blame] = await Promise.all([this.files.history(asked.target, { priority: 'user', signal }), loadBlame()]);
    // Oldest first, the revisions with a content (one the service could not give is left out).
    let revisions = history
      .filter((r) => r.content !== undefined)
      .reverse()
      .map((r) => ({ listed: { item: { id: r.id, date: r.date, author: r.author }, time: parseRevisionDate(r.date) } as Listed, text: r.content! }));
    const rev = parseRevisionUri(asked.uri);
    let working: string | undefined;
    if (rev) {
      const at = revisions.findIndex((r) => r.listed.item.id === rev.revisionId);
      if (at < 0) throw new Error(vscode.l10n.t('Revision {0} is not in the history of {1}.', rev.revisionId, fileName(rev.path)));
      revisions = revisions.slice(0, at + 1);
    } else {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === asked.uri.toString());
      working = doc ? doc.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(asked.uri));
    }
    const entries = await blame.lineHistory(
      revisions.map((r) => r.text),
      { start: asked.start, end: asked.end },
      { signal, ...(working !== undefined ? { working } : {}) },
    );
    return entries.map((entry) => {
      const local = entry.revision === blame.LOCAL;
      const at = local ? revisions.length : entry.revision;
      return { entry, local, listed: local ? undefined : revisions[at]!.listed, previous: at > 0 ? revisions[at - 1]!.listed : undefined };
    });
  }

  /** A row's click: the diff of its revision with the one before it (or the working file with the newest), scrolled to the lines. */
  async open(arg: unknown): Promise<void> {
    if (!(arg instanceof EntryNode) || arg.view !== this || !this.asked) return;
    const { entry, listed, previous } = arg.row;
    const t = this.asked.target;
    const r = entry.range;
    const selection = new vscode.Range(r.start, 0, Math.max(r.start, r.end - 1), Number.MAX_SAFE_INTEGER);
    const right = listed ? this.files.documentUri(t, listed) : this.asked.uri;
    if (!previous) {
      await vscode.commands.executeCommand('vscode.open', right, { selection, preview: true });
      return;
    }
    const left = this.files.documentUri(t, previous);
    const prevRef = this.files.ref(t, previous);
    const title = listed ? `${revisionTitle(prevRef)} ↔ (${revisionLabel(this.files.ref(t, listed)).when})` : vscode.l10n.t('{0} ↔ working file', revisionTitle(prevRef));
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { selection, preview: true });
  }

  /** Empties the view and hides it (until the next Show Line History). */
  clear(): void {
    this.abort?.abort();
    this.asked = undefined;
    this.rows = [];
    this.generation++;
    this.view.description = undefined;
    this.view.message = undefined;
    this.changed.fire();
    setContext('siteRevisions.lineHistory.shown', false);
  }

  dispose(): void {
    this.abort?.abort();
    this.view.dispose();
    this.changed.dispose();
  }
}

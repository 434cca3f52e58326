// "Toggle Revision Blame": each line of a working file attributed to the revision that introduced
// it (src/core/blame: oldest → newest, then newest → the editor's text). The current line gets a faint
// end-of-line annotation (author · relative date; every line with `siteRevisions.blame.allLines`),
// every line a hover with the revision's dates, author and commands. Turning it on reads the
// file's history once through the store (WorkingFiles.history: one Get Revisions with content, or
// nothing when cached) and loads the blame code (a chunk of its own) on first use; editing
// re-attributes locally (debounced, no request); a refresh of the Sites view reads the history
// again and takes newer revisions in with `extend`.
import * as vscode from 'vscode';
import type { Attribution, BlameHistory } from '../../core/blame';
import { loadBlame } from '../../core/blame/load';
import { readSettings } from '../../workbench/config';
import { translate } from '../../workbench/l10n';
import type { Log } from '../../workbench/log';
import { exactDate, fileName } from '../revisions/nodes';
import { parseRevisionDate } from '../../core/model/ordering';
import { parseRevisionUri } from '../revisions/fileSystem';
import { relativeTime } from '../../core/model/time';
import { appendData, commandLink } from '../../workbench/markdown';

/** Server strings in a trusted hover: no autolinks either. */
const INERT = { noAutolinks: true };
import { inform, message, plain } from '../../workbench/messages';
import { displayText } from '../../core/util/text';
import type { Listed, Target, WorkingFiles } from './workingFiles';

/** The commands a blame hover may run: nothing else in it is trusted. */
const HOVER_COMMANDS = ['siteRevisions.compareWithWorking', 'siteRevisions.compareWithPrevious', 'siteRevisions.openRevision', 'siteRevisions.showLineHistory'] as const;

/** Re-attribution waits this long after the last edit. */
const EDIT_DEBOUNCE_MS = 150;

interface BlameState {
  target: Target;
  /** The revisions the history was built from, oldest first: the blame's revision index is a position here. */
  revisions: Listed[];
  history: BlameHistory;
  attribution: Attribution;
  timer?: ReturnType<typeof setTimeout>;
}

export type BlameToggle = 'on' | 'off' | 'none';

const key = (uri: vscode.Uri) => uri.toString();

export class RevisionBlame implements vscode.Disposable {
  private readonly states = new Map<string, BlameState>();
  /** Documents whose blame is being turned on (a second toggle meanwhile cancels it). */
  private readonly loading = new Map<string, { cancelled: boolean; abort: AbortController }>();
  /** The decoration and the listeners, made when blame is first turned on (activation makes none). */
  private ui: { type: vscode.TextEditorDecorationType; subs: vscode.Disposable[] } | undefined;

  constructor(
    private readonly files: WorkingFiles,
    private readonly log: Log,
  ) {}

  private start(): vscode.TextEditorDecorationType {
    this.ui ??= {
      type: vscode.window.createTextEditorDecorationType({
        after: { color: new vscode.ThemeColor('siteRevisions.blameAnnotationForeground'), margin: '0 0 0 3em', fontStyle: 'normal' },
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      }),
      subs: [
        vscode.workspace.onDidChangeTextDocument((e) => this.edited(e.document)),
        vscode.workspace.onDidCloseTextDocument((d) => this.off(key(d.uri))),
        vscode.window.onDidChangeTextEditorSelection((e) => this.render(e.textEditor)),
        vscode.window.onDidChangeVisibleTextEditors(() => this.renderAll()),
        vscode.languages.registerHoverProvider({ pattern: '**' }, { provideHover: (doc, pos) => this.hover(doc, pos) }),
      ],
    };
    return this.ui.type;
  }

  /** Whether blame is on for a document. */
  isOn(uri: vscode.Uri): boolean {
    return this.states.has(key(uri));
  }

  /** Turns blame on or off for a working file (the active editor's by default). */
  async toggle(arg?: unknown): Promise<BlameToggle> {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri) {
      inform(message('Open a file of a mapped site first.'));
      return 'none';
    }
    const k = key(uri);
    const pending = this.loading.get(k);
    if (this.states.has(k) || pending) {
      if (pending) {
        pending.cancelled = true;
        pending.abort.abort();
      }
      this.off(k);
      return 'off';
    }
    if (parseRevisionUri(uri)) {
      inform(message('Revision blame works on working files: open the working file of this revision.'));
      return 'none';
    }
    this.start();
    const job = { cancelled: false, abort: new AbortController() };
    this.loading.set(k, job);
    try {
      const loaded = vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Revision blame') }, () => this.load(uri, job.abort.signal));
      const state = await loaded.then(undefined, (e: unknown) => {
        if (job.cancelled) return undefined; // turned off while it was being built
        throw e;
      });
      if (job.cancelled) return 'off';
      if (!state) {
        inform(message('{0} has no revisions on a site mapped to its folder.', plain(fileName(uri.path))));
        return 'none';
      }
      this.states.set(k, state);
      this.renderAll();
      return 'on';
    } finally {
      if (this.loading.get(k) === job) this.loading.delete(k);
    }
  }

  /**
   * The blame of a working file: its history read once, the working text attributed. The history
   * is built in slices (BlameHistory.build), so the host's thread is given back between revisions;
   * `signal` (blame turned off meanwhile) stops it.
   */
  private async load(uri: vscode.Uri, signal: AbortSignal): Promise<BlameState | undefined> {
    const target = await this.files.target(uri);
    if (!target) return undefined;
    const [history, blame] = await Promise.all([this.files.history(target, { priority: 'user' }), loadBlame()]);
    const revisions = usable(history);
    if (!revisions.length) return undefined;
    const built = await blame.BlameHistory.build(revisions.map((r) => r.text), { signal });
    const doc = vscode.workspace.textDocuments.find((d) => key(d.uri) === key(uri));
    const text = doc ? doc.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    this.log.debug(`Blame: ${revisions.length} revisions of a file of site ${target.siteId}`);
    return { target, revisions: revisions.map((r) => r.listed), history: built, attribution: built.attribute(text) };
  }

  /**
   * Reads the histories again (after a refresh of the Sites view, which makes the store ask the
   * service): newer revisions are taken in with `extend`; any other change builds it again.
   */
  async reload(): Promise<void> {
    for (const [k, s] of [...this.states]) {
      // A file closed, or no longer in the mapped folder of its site: its blame ends, and nothing
      // is read for it (VS Code keeps a closed tab's document a while).
      const open = vscode.workspace.textDocuments.find((d) => key(d.uri) === k);
      const mapped = this.files.folders.sitesContaining(s.target.uri).some((m) => m.siteId === s.target.siteId);
      if (!open || !mapped) {
        this.off(k);
        continue;
      }
      try {
        const revisions = usable(await this.files.history(s.target, { priority: 'background' }));
        if (this.states.get(k) !== s) continue;
        const known = s.revisions.map((r) => r.item.id);
        const prefix = known.length <= revisions.length && known.every((id, i) => revisions[i]!.listed.item.id === id);
        let history = s.history;
        if (prefix) for (const r of revisions.slice(known.length)) history = history.extend(r.text);
        else history = await (await loadBlame()).BlameHistory.build(revisions.map((r) => r.text));
        const doc = vscode.workspace.textDocuments.find((d) => key(d.uri) === k);
        if (!doc || !revisions.length) {
          this.off(k);
          continue;
        }
        this.states.set(k, { target: s.target, revisions: revisions.map((r) => r.listed), history, attribution: history.attribute(doc.getText()) });
      } catch (e) {
        this.log.warn('Blame: the revisions could not be read again', e);
      }
    }
    this.renderAll();
  }

  private off(k: string): void {
    const s = this.states.get(k);
    if (!s) return;
    if (s.timer) clearTimeout(s.timer);
    this.states.delete(k);
    const type = this.ui?.type;
    if (type) for (const e of vscode.window.visibleTextEditors) if (key(e.document.uri) === k) e.setDecorations(type, []);
  }

  /** An edit: the text is attributed again once typing pauses (nothing is requested). */
  private edited(doc: vscode.TextDocument): void {
    const k = key(doc.uri);
    const s = this.states.get(k);
    if (!s) return;
    if (s.timer) clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      s.timer = undefined;
      if (this.states.get(k) !== s) return;
      s.attribution = s.history.attribute(doc.getText());
      for (const e of vscode.window.visibleTextEditors) if (e.document === doc) this.render(e);
    }, EDIT_DEBOUNCE_MS);
  }

  renderAll(): void {
    for (const e of vscode.window.visibleTextEditors) this.render(e);
  }

  private render(editor: vscode.TextEditor): void {
    const s = this.states.get(key(editor.document.uri));
    if (!s) return;
    const type = this.start();
    const doc = editor.document;
    const count = Math.min(doc.lineCount, s.attribution.lineCount);
    const lines = readSettings().blameAllLines ? Array.from({ length: count }, (_, i) => i) : [...new Set(editor.selections.map((sel) => sel.active.line))].filter((l) => l < count);
    const now = Date.now();
    editor.setDecorations(
      type,
      lines.map((line) => {
        const end = doc.lineAt(line).range.end;
        return { range: new vscode.Range(end, end), renderOptions: { after: { contentText: this.annotation(s, line, now) } } };
      }),
    );
  }

  /** `alice · 3 days ago`, "before the oldest revision" or "not in any revision (local change)". */
  private annotation(s: BlameState, line: number, now: number): string {
    const b = s.attribution.blameOf(line);
    if (b.origin === 'local') return vscode.l10n.t('not in any revision (local change)');
    if (b.origin === 'before') return vscode.l10n.t('before the oldest revision');
    const r = s.revisions[b.revision]!;
    const when = whenOf(r, now);
    const who = displayText(r.item.author).trim();
    return who ? `${who} · ${when}` : when;
  }

  private hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const s = this.states.get(key(doc.uri));
    if (!s || pos.line >= s.attribution.lineCount) return undefined;
    const b = s.attribution.blameOf(pos.line);
    const now = Date.now();
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [...HOVER_COMMANDS] };
    md.supportHtml = false;
    const links: string[] = [];
    const link = (title: string, command: (typeof HOVER_COMMANDS)[number], r: Listed) => commandLink(title, command, [this.files.address(s.target, r.item)]);
    const newest = s.revisions[s.revisions.length - 1]!;
    if (b.origin === 'local') {
      md.appendMarkdown('$(edit) **').appendText(vscode.l10n.t('not in any revision (local change)')).appendMarkdown('**\n\n');
      appendData(md, vscode.l10n.t('The newest revision ({0}) does not have this line.', whenAndAuthor(newest, now)), INERT).appendMarkdown('\n\n');
      links.push(link(vscode.l10n.t('Compare with Its Previous Revision'), 'siteRevisions.compareWithWorking', newest));
    } else {
      const r = s.revisions[b.revision]!;
      if (b.origin === 'before') {
        md.appendMarkdown('$(history) **').appendText(vscode.l10n.t('before the oldest revision')).appendMarkdown('**\n\n');
        appendData(md, vscode.l10n.t('The line is in the oldest revision kept ({0}) and unchanged since; it may be older.', whenAndAuthor(r, now)), INERT).appendMarkdown('\n\n');
      } else {
        md.appendMarkdown('$(git-commit) **');
        appendData(md, displayText(r.item.author).trim() || vscode.l10n.t('unknown author'), INERT).appendMarkdown('** · ');
        appendData(md, whenOf(r, now), INERT).appendMarkdown(' · ');
        appendData(md, vscode.l10n.t('revision {0}', r.item.id), INERT).appendMarkdown('\n\n');
      }
      appendData(md, exactDate({ time: r.time, item: r.item }), INERT).appendMarkdown('\n\n');
      links.push(link(vscode.l10n.t('Compare with This Revision'), 'siteRevisions.compareWithWorking', r));
      if (b.origin === 'revision') links.push(link(vscode.l10n.t('Compare with Its Previous Revision'), 'siteRevisions.compareWithPrevious', r));
      links.push(link(vscode.l10n.t('Open Revision'), 'siteRevisions.openRevision', r));
    }
    links.push(commandLink(vscode.l10n.t('Line History'), 'siteRevisions.showLineHistory', [{ uri: doc.uri.toString(), line: pos.line }]));
    md.appendMarkdown(links.join(' · '));
    return new vscode.Hover(md, doc.lineAt(pos.line).range);
  }

  dispose(): void {
    for (const s of this.states.values()) if (s.timer) clearTimeout(s.timer);
    this.states.clear();
    if (this.ui) [this.ui.type, ...this.ui.subs].forEach((d) => d.dispose());
    this.ui = undefined;
  }
}

/** The revisions with a content, oldest first (one the service could not give is left out). */
function usable(history: { id: string; date: string; author: string; content: string | undefined }[]): { listed: Listed; text: string }[] {
  const out: { listed: Listed; text: string }[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (r.content === undefined) continue;
    out.push({ listed: { item: { id: r.id, date: r.date, author: r.author }, time: parseRevisionDate(r.date) }, text: r.content });
  }
  return out;
}

function whenOf(r: Listed, now: number): string {
  return r.time === undefined ? displayText(r.item.date) || vscode.l10n.t('unknown date') : relativeTime(r.time, now, translate, vscode.env.language);
}

function whenAndAuthor(r: Listed, now: number): string {
  const who = displayText(r.item.author).trim();
  return who ? `${whenOf(r, now)}, ${who}` : whenOf(r, now);
}

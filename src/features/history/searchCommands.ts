// "Search History…": the input (text or regular expression, Match Case, Whole Word, then the
// mode), the scan through the core (src/core/search) with its progress in the view and — for a folder
// or a site — in a cancellable notification, and the commands of the History Search view: open a
// result, re-run, remove, clear, cancel.
import * as vscode from 'vscode';
import { readSettings } from '../../workbench/config';
import { translate } from '../../workbench/l10n';
import type { Log } from '../../workbench/log';
import type { RevisionsApi } from '../revisions';
import type { RevisionRef } from '../revisions/nodes';
import { compileQuery, directSchedule, QueryError, revisionStoreSource, searchHistory, type SearchMode, type SearchQuery } from '../../core/search';
import { message } from '../../workbench/messages';
import { describeError, type Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';
import { followScan, guarded } from './progress';
import { HISTORY_VIEW, OPEN_RESULT_COMMAND, SearchHitNode, SearchRunNode, type HistorySearchProvider, type SearchRun } from './historyView';
import { scopeLabel, scopeOf, type ViewScope } from './scope';
import type { CommandHandler } from './names';

export interface SearchCommandDeps {
  revisions: RevisionsApi;
  provider: HistorySearchProvider;
  notifier: Notifier;
  log: Log;
}

/** What "Search History…" can be given instead of asking (scripts, keybindings, tests). */
export interface SearchRequest {
  query?: SearchQuery;
  mode?: SearchMode;
}

/** The input box of "Search History…" while it is open (tests drive it). */
export const searchInput: { current?: vscode.InputBox; mode?: vscode.QuickPick<vscode.QuickPickItem> } = {};

export class SearchCommands {
  /** The last query typed: the next input starts with it. */
  private last: SearchQuery | undefined;

  constructor(private readonly deps: SearchCommandDeps) {}

  /** Each command's handler by id (the commands are registered at activation: src/features/history/register.ts). */
  commands(): Record<string, CommandHandler> {
    const { provider, notifier } = this.deps;
    const guard = <A extends unknown[]>(title: string, fn: (...a: A) => unknown) => guarded(notifier, title, fn);
    return {
      'siteRevisions.searchHistory': guard(vscode.l10n.t('Search History'), (arg?: unknown, request?: SearchRequest) => this.searchHistory(arg, request)),
      [OPEN_RESULT_COMMAND]: guard(vscode.l10n.t('Open Search Result'), (node?: unknown) => this.openResult(node)),
      'siteRevisions.rerunSearch': guard(vscode.l10n.t('Run Search Again'), (node?: unknown) => this.rerun(node)),
      'siteRevisions.removeSearch': (node?: unknown) => {
        if (node instanceof SearchRunNode) provider.remove(node.run);
      },
      'siteRevisions.clearSearches': () => provider.clear(),
      'siteRevisions.cancelSearch': () => {
        for (const r of provider.searches) if (r.state === 'running') r.abort.abort();
      },
    };
  }

  async searchHistory(arg: unknown, request: SearchRequest = {}): Promise<SearchRun | undefined> {
    const scope = await scopeOf(arg, this.deps.revisions, true);
    if (!scope) return undefined;
    const query = request.query ?? (await this.askQuery(scope));
    if (!query) return undefined;
    compileQuery(query, translate); // refuses an invalid query before anything starts
    const mode = request.mode ?? (request.query ? 'changes' : await this.askMode());
    if (!mode) return undefined;
    this.last = query;
    return this.start(scope, query, mode);
  }

  private async rerun(node: unknown): Promise<SearchRun | undefined> {
    const run = node instanceof SearchRunNode ? node.run : this.deps.provider.searches[0];
    if (!run) return undefined;
    this.deps.provider.remove(run);
    return this.start(run.scope, run.query, run.mode);
  }

  /** Starts a search; resolves with the run once it has ended (done, cancelled or failed). */
  async start(scope: ViewScope, query: SearchQuery, mode: SearchMode): Promise<SearchRun> {
    const { provider, revisions, log } = this.deps;
    for (const r of provider.searches) if (r.state === 'running') r.abort.abort(); // one scan at a time
    const run = provider.add(scope, query, mode);
    background('Showing the History Search view', vscode.commands.executeCommand(`${HISTORY_VIEW}.focus`));
    await followScan(run, {
      viewId: HISTORY_VIEW,
      // A folder or a site: many requests, so the progress is also a notification with Cancel.
      notification: scope.file === undefined ? vscode.l10n.t('Searching the history of {0}', scopeLabel(scope)) : undefined,
      redraw: (urgent) => provider.changed(urgent),
      start: (onProgress) =>
        searchHistory({
          scope: { siteId: scope.site.id, ...(scope.file !== undefined ? { file: scope.file } : {}), ...(scope.folder ? { folder: scope.folder } : {}) },
          source: revisionStoreSource(revisions.store),
          schedule: directSchedule,
          signal: run.abort.signal,
          query,
          mode,
          t: translate,
          onResult: (r) => {
            run.results.push(r);
            run.hits += r.hits.length;
            provider.changed();
          },
          onProgress,
        }),
      done: (summary) => {
        run.failures = summary.failures.map((f) => ({ path: f.path, message: describeError(f.error).message }));
        log.info(`History Search ${run.state}: ${summary.done}/${summary.total ?? 0} files, ${summary.hits} revisions listed, ${summary.failed} files could not be read`);
        for (const f of run.failures) log.warn(`History Search: ${f.path} could not be read: ${f.message}`);
      },
      failed: (e) => this.deps.notifier.error(message('Search History'), e, () => vscode.commands.executeCommand('siteRevisions.rerunSearch')),
    });
    return run;
  }

  /** The query: an input box with the three toggles of VS Code's search as buttons. */
  private async askQuery(scope: ViewScope): Promise<SearchQuery | undefined> {
    const q: SearchQuery = { pattern: '', isRegExp: false, matchCase: false, wholeWord: false, ...this.last };
    const editor = vscode.window.activeTextEditor;
    const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
    if (selected && !selected.includes('\n') && selected.length <= 200) q.pattern = selected;
    const box = vscode.window.createInputBox();
    searchInput.current = box;
    type Toggle = vscode.QuickInputButton & { key: 'matchCase' | 'wholeWord' | 'isRegExp' };
    const toggles = (): Toggle[] => [
      { key: 'matchCase', iconPath: new vscode.ThemeIcon(q.matchCase ? 'pass-filled' : 'case-sensitive'), tooltip: q.matchCase ? vscode.l10n.t('Match Case (on)') : vscode.l10n.t('Match Case (off)') },
      { key: 'wholeWord', iconPath: new vscode.ThemeIcon(q.wholeWord ? 'pass-filled' : 'whole-word'), tooltip: q.wholeWord ? vscode.l10n.t('Match Whole Word (on)') : vscode.l10n.t('Match Whole Word (off)') },
      { key: 'isRegExp', iconPath: new vscode.ThemeIcon(q.isRegExp ? 'pass-filled' : 'regex'), tooltip: q.isRegExp ? vscode.l10n.t('Use Regular Expression (on)') : vscode.l10n.t('Use Regular Expression (off)') },
    ];
    const flags = () => [q.matchCase ? vscode.l10n.t('Match Case') : '', q.wholeWord ? vscode.l10n.t('Whole Word') : '', q.isRegExp ? vscode.l10n.t('Regular Expression') : ''].filter(Boolean).join(', ');
    const refresh = () => {
      box.buttons = toggles();
      box.prompt = flags() ? vscode.l10n.t('Search in the revisions of {0} ({1})', scopeLabel(scope), flags()) : vscode.l10n.t('Search in the revisions of {0}', scopeLabel(scope));
      box.validationMessage = this.problem({ ...q, pattern: box.value });
    };
    box.title = vscode.l10n.t('Search History');
    box.placeholder = vscode.l10n.t('Text or regular expression (the buttons: Match Case, Whole Word, Regular Expression)');
    box.value = q.pattern;
    box.ignoreFocusOut = true;
    refresh();
    try {
      return await new Promise<SearchQuery | undefined>((resolve) => {
        box.onDidTriggerButton((b) => {
          const key = (b as Toggle).key;
          q[key] = !q[key];
          refresh();
        });
        box.onDidChangeValue(() => (box.validationMessage = this.problem({ ...q, pattern: box.value })));
        box.onDidAccept(() => {
          const why = this.problem({ ...q, pattern: box.value }, true);
          if (why !== undefined) box.validationMessage = why;
          else resolve({ ...q, pattern: box.value });
        });
        box.onDidHide(() => resolve(undefined));
        box.show();
      });
    } finally {
      box.dispose();
      if (searchInput.current === box) searchInput.current = undefined;
    }
  }

  /** Why the query cannot be used (for the input box), or undefined. */
  private problem(q: SearchQuery, accepting = false): string | undefined {
    if (q.pattern === '' && !accepting) return undefined; // nothing typed yet: no complaint until Enter
    try {
      compileQuery(q, translate);
      return undefined;
    } catch (e) {
      return e instanceof QueryError ? e.message : String(e);
    }
  }

  private async askMode(): Promise<SearchMode | undefined> {
    type Item = vscode.QuickPickItem & { mode: SearchMode };
    const qp = vscode.window.createQuickPick<Item>();
    searchInput.mode = qp as unknown as vscode.QuickPick<vscode.QuickPickItem>;
    qp.title = vscode.l10n.t('Search History');
    qp.placeholder = vscode.l10n.t('Which revisions to list');
    qp.items = [
      { mode: 'changes', label: `$(diff) ${vscode.l10n.t('Changes')}`, description: vscode.l10n.t('default'), detail: vscode.l10n.t('The revisions where the number of matches changed: “added 2”, “removed 1”') },
      { mode: 'contains', label: `$(search) ${vscode.l10n.t('Contains')}`, detail: vscode.l10n.t('Every revision that has a match') },
    ];
    try {
      return await new Promise<SearchMode | undefined>((resolve) => {
        qp.onDidAccept(() => resolve(qp.selectedItems[0]?.mode));
        qp.onDidHide(() => resolve(undefined));
        qp.show();
      });
    } finally {
      qp.dispose();
      if (searchInput.mode === (qp as unknown)) searchInput.mode = undefined;
    }
  }

  /**
   * A result: the diff of that revision against the one before it (or against the working
   * file, setting `siteRevisions.search.compareWith`), with the first match selected and shown.
   */
  async openResult(node: unknown): Promise<void> {
    if (!(node instanceof SearchHitNode)) return;
    const { commands, store } = this.deps.revisions;
    const run = node.run;
    const h = node.hit;
    const site = run.scope.site;
    const path = node.file.result.path;
    const ref: RevisionRef = { site, path, item: { id: h.id, date: h.date, author: h.author }, time: h.time };
    const list = store.peekRevisions(site.id, path) ?? (await store.revisions(site.id, path));
    const prevItem = h.previousId === undefined ? undefined : list.items.find((d) => d.item.id === h.previousId);
    const prev: RevisionRef | undefined = prevItem ? { site, path, item: prevItem.item, time: prevItem.time } : undefined;
    const p = h.preview;
    const range = p ? new vscode.Range(p.line, p.character, p.endLine, p.endCharacter) : undefined;
    // The match is in this revision, or (everything removed) in the one before.
    const matchIn = h.previewIn === 'previous' ? prev : ref;
    if (readSettings().searchCompareWith === 'workingFile') await commands.compareWithWorking(ref);
    else if (prev) await commands.compareTwo(prev, ref, range && matchIn === ref ? { selection: range } : {});
    else await commands.open(ref, range ? { selection: range } : {});
    if (range && matchIn) this.select(this.deps.revisions.revisionDocumentUri(matchIn), range);
  }

  /** Selects and reveals the match in the editor that shows its revision (either side of a diff). */
  private select(uri: vscode.Uri, range: vscode.Range): void {
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    if (!editor) return;
    editor.selection = new vscode.Selection(range.start, range.end);
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}

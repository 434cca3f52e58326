// "Site Changes…" (a site or a folder; a period: today, the last 7 or 30 days, since a date; an
// optional author filter), the scan through the core with its progress, and "Open Changes": every
// changed file in ONE multi-file diff editor (`vscode.changes`), each file its last revision
// before the period against its newest in it — or against the working file — or, where that
// command does not exist, the diffs one by one.
import * as vscode from 'vscode';
import { translate } from '../../workbench/l10n';
import type { Log } from '../../workbench/log';
import type { RevisionsApi } from '../revisions';
import { FolderMapping } from '../revisions/mapping';
import { fileName, type RevisionRef } from '../revisions/nodes';
import { directSchedule, parseDay, revisionStoreSource, periodLabel, scanSiteChanges, SiteChangesBuilder, type DatedRevision, type FileChanges, type Period } from '../../core/search';
import { inform, message } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';
import { followScan, guarded } from './progress';
import { displayText } from '../../core/util/text';
import { CHANGES_VIEW, ChangeRevisionNode, OPEN_CHANGE_COMMAND, type ChangesRun, type SiteChangesProvider } from './changesView';
import { scopeLabel, scopeOf, type ViewScope } from './scope';
import type { CommandHandler } from './names';

export interface ChangesCommandDeps {
  revisions: RevisionsApi;
  provider: SiteChangesProvider;
  notifier: Notifier;
  log: Log;
}

/** What "Site Changes…" can be given instead of asking. */
export interface ChangesRequest {
  period?: Period;
  /** Authors to keep; empty or absent: everyone. */
  authors?: string[];
}

export type OpenChangesAgainst = 'before' | 'working';

/** What "Open Changes" did (for tests and scripts). */
export interface OpenChangesOutcome {
  how: 'multiDiff' | 'oneByOne' | 'none';
  resources: [label: vscode.Uri, left: vscode.Uri | undefined, right: vscode.Uri | undefined][];
}

export class ChangesCommands {
  /** Whether `vscode.changes` exists in this VS Code (looked up once); a test may turn it off. */
  multiDiff: boolean | undefined;

  constructor(private readonly deps: ChangesCommandDeps) {}

  /** Each command's handler by id (the commands are registered at activation: src/features/history/register.ts). */
  commands(): Record<string, CommandHandler> {
    const { provider, notifier } = this.deps;
    const guard = <A extends unknown[]>(title: string, fn: (...a: A) => unknown) => guarded(notifier, title, fn);
    return {
      'siteRevisions.siteChanges': guard(vscode.l10n.t('Site Changes'), (arg?: unknown, request?: ChangesRequest) => this.siteChanges(arg, request)),
      'siteRevisions.openChanges': guard(vscode.l10n.t('Open Changes'), (against?: unknown) => this.openChanges(against === 'before' || against === 'working' ? against : undefined)),
      [OPEN_CHANGE_COMMAND]: guard(vscode.l10n.t('Compare with Previous Revision'), (node?: unknown) => this.openChange(node)),
      'siteRevisions.cancelSiteChanges': () => provider.run?.abort.abort(),
      'siteRevisions.clearSiteChanges': () => provider.clear(),
    };
  }

  async siteChanges(arg: unknown, request: ChangesRequest = {}): Promise<ChangesRun | undefined> {
    const scope = await scopeOf(arg, this.deps.revisions, false);
    if (!scope) return undefined;
    const period = request.period ?? (await this.askPeriod());
    if (!period) return undefined;
    const authors = request.authors ?? (request.period ? [] : await this.askAuthors());
    if (!authors) return undefined;
    return this.start(scope, period, authors);
  }

  /** Starts a scan; resolves with the run once it has ended. */
  async start(scope: ViewScope, period: Period, authors: string[]): Promise<ChangesRun> {
    const { provider, revisions, log } = this.deps;
    const filter = { period, authors, now: Date.now() };
    // An empty grouping until the scan's first file (and a PeriodError before any request).
    const builder = new SiteChangesBuilder(filter, translate);
    const run: ChangesRun = { scope, filter, builder, progress: undefined, state: 'running', abort: new AbortController() };
    provider.start(run);
    background('Showing the Site Changes view', vscode.commands.executeCommand(`${CHANGES_VIEW}.focus`));
    await followScan(run, {
      viewId: CHANGES_VIEW,
      notification: vscode.l10n.t('Listing the changes of {0}', scopeLabel(scope)),
      redraw: (urgent) => provider.changed(urgent),
      start: (onProgress) =>
        scanSiteChanges({
          scope: { siteId: scope.site.id, ...(scope.folder ? { folder: scope.folder } : {}) },
          source: revisionStoreSource(revisions.store),
          schedule: directSchedule,
          signal: run.abort.signal,
          filter,
          t: translate,
          onFile: (_f, scanned) => {
            run.builder = scanned; // the scan's grouping, as it grows
            provider.changed();
          },
          onProgress,
        }),
      done: (summary) => {
        run.builder = summary.builder;
        log.info(`Site Changes ${run.state}: ${summary.done}/${summary.total ?? 0} files, ${run.builder.revisionCount} revisions in the period`);
      },
      failed: (e) => this.deps.notifier.error(message('Site Changes'), e),
    });
    return run;
  }

  private async askPeriod(): Promise<Period | undefined> {
    type Item = vscode.QuickPickItem & { period?: Period };
    const items: Item[] = [
      { label: periodLabel({ kind: 'today' }, translate), period: { kind: 'today' } },
      { label: periodLabel({ kind: 'days', days: 7 }, translate), period: { kind: 'days', days: 7 } },
      { label: periodLabel({ kind: 'days', days: 30 }, translate), period: { kind: 'days', days: 30 } },
      { label: vscode.l10n.t('Since a Date…') },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Site Changes'), placeHolder: vscode.l10n.t('Which period') });
    if (!pick) return undefined;
    if (pick.period) return pick.period;
    const date = await vscode.window.showInputBox({
      title: vscode.l10n.t('Site Changes'),
      prompt: vscode.l10n.t('The first day (YYYY-MM-DD), in your time zone'),
      placeHolder: new Date().toISOString().slice(0, 10),
      validateInput: (v) => (parseDay(v) ? undefined : vscode.l10n.t('Enter a date as YYYY-MM-DD.')),
    });
    return date ? { kind: 'since', date: date.trim() } : undefined;
  }

  /** Everyone ([]), or the authors typed (comma-separated); undefined when cancelled. */
  private async askAuthors(): Promise<string[] | undefined> {
    const everyone = vscode.l10n.t('Everyone');
    const some = vscode.l10n.t('Only Some Authors…');
    const pick = await vscode.window.showQuickPick([everyone, some], { title: vscode.l10n.t('Site Changes'), placeHolder: vscode.l10n.t('Whose changes') });
    if (!pick) return undefined;
    if (pick === everyone) return [];
    const typed = await vscode.window.showInputBox({ title: vscode.l10n.t('Site Changes'), prompt: vscode.l10n.t('Authors, separated by commas (as the revisions name them, e.g. an email address)') });
    if (typed === undefined) return undefined;
    return typed
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
  }

  private ref(site: ViewScope['site'], path: string, r: DatedRevision): RevisionRef {
    return { site, path, item: { id: r.id, date: r.date, author: r.author }, time: r.time };
  }

  /** A revision of the view: its diff against the revision before it. */
  private async openChange(node: unknown): Promise<void> {
    if (!(node instanceof ChangeRevisionNode)) return;
    const run = node.fileNode.dayNode.run;
    await this.deps.revisions.commands.compareWithPrevious(this.ref(run.scope.site, node.path, node.revision));
  }

  /**
   * Every changed file in one multi-file diff editor: `before` — its last revision before the
   * period (none: the file is new) against its newest in the period; `working` — its newest in
   * the period against the working file.
   */
  async openChanges(against?: OpenChangesAgainst): Promise<OpenChangesOutcome> {
    const run = this.deps.provider.run;
    const files = run?.builder.files() ?? [];
    if (!run || !files.length) {
      inform(message('There are no changes to open: run “{0}” first.', message('Site Changes…')));
      return { how: 'none', resources: [] };
    }
    const how = against ?? (await this.askAgainst());
    if (!how) return { how: 'none', resources: [] };
    const site = run.scope.site;
    let folder: vscode.Uri | undefined;
    if (how === 'working') {
      folder = await this.deps.revisions.folders.ensure(site, vscode.l10n.t('Choose the local folder of “{0}” to compare with its working files.', displayText(site.name)));
      if (!folder) return { how: 'none', resources: [] };
    }
    const uriOf = (r: DatedRevision, f: FileChanges) => this.deps.revisions.revisionDocumentUri(this.ref(site, f.path, r));
    const resources: OpenChangesOutcome['resources'] = [];
    let refused = 0;
    for (const f of files) {
      const newest = uriOf(f.newest, f);
      if (how === 'before') {
        resources.push([newest, f.before && uriOf(f.before, f), newest]);
        continue;
      }
      const w = FolderMapping.resolveWorkingFile(folder!, f.path);
      if (!w.ok) {
        refused++;
        this.deps.log.warn(`Open Changes: ${w.reason}`);
        continue;
      }
      resources.push([w.uri, newest, w.uri]);
    }
    if (refused) inform(message('{0} files are left out: their paths cannot be mapped into the local folder (see the log).', refused));
    const title =
      how === 'before'
        ? vscode.l10n.t('Changes of {0} — {1}', scopeLabel(run.scope), periodLabel(run.filter.period, translate))
        : vscode.l10n.t('Changes of {0} — {1} ↔ working files', scopeLabel(run.scope), periodLabel(run.filter.period, translate));
    this.multiDiff ??= (await vscode.commands.getCommands(true)).includes('vscode.changes');
    if (this.multiDiff) {
      await vscode.commands.executeCommand('vscode.changes', title, resources);
      return { how: 'multiDiff', resources };
    }
    for (const [label, left, right] of resources) {
      if (left && right) await vscode.commands.executeCommand('vscode.diff', left, right, `${fileName(label.path)} — ${title}`, { preview: false });
      else if (right) await vscode.commands.executeCommand('vscode.open', right, { preview: false });
    }
    return { how: 'oneByOne', resources };
  }

  private async askAgainst(): Promise<OpenChangesAgainst | undefined> {
    type Item = vscode.QuickPickItem & { how: OpenChangesAgainst };
    const pick = await vscode.window.showQuickPick<Item>(
      [
        { how: 'before', label: `$(history) ${vscode.l10n.t('Against the Last Revision Before the Period')}`, detail: vscode.l10n.t('What changed in the period, on the site') },
        { how: 'working', label: `$(file) ${vscode.l10n.t('Against the Working Files')}`, detail: vscode.l10n.t('The newest revision of each file against your local copy') },
      ],
      { title: vscode.l10n.t('Open Changes'), placeHolder: vscode.l10n.t('Compare each changed file') },
    );
    return pick?.how;
  }
}

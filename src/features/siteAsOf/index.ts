// A whole site as it was (issue 27), the part a person sees: "Site As It Was…" from the Sites
// view (a site or a folder), a Site Changes row ("before this change") or the palette; the
// read-only tree of the site as of the moment; one multi-file diff against the working files or
// the newest revisions; the restore into the mapped folder in one undoable edit (./restore.ts);
// the export into a folder or a .zip (./export.ts); and "Compare with Another Site…". The work
// is the plain-Node core in src/core/asof, through the revisions feature's RevisionStore (its caches,
// the request scheduler at background priority, the account's disk store).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { isApiError } from '../../core/api/errors';
import { withoutUserinfo } from '../../core/api/userinfo';
import type { Session } from '../auth/session';
import { compareSites, momentText, type AsOfFile, type AsOfProgress, type CompareProgress } from '../../core/asof';
import type { Log } from '../../workbench/log';
import { accountKey, type RevisionsApi } from '../revisions';
import { FolderMapping } from '../revisions/mapping';
import { FileNode, FolderNode } from '../revisions/nodes';
import { SiteNode } from '../sites/sitesTree';
import type { SitesModel } from '../sites/sitesModel';
import type { TreeNode } from '../../workbench/tree/node';
import { setContext } from '../../workbench/context';
import { inform, message, plain } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import { exportAsOf, type ExportRequest } from './export';
import { askMoment, momentOf, type ChosenMoment } from './moment';
import type { SiteAsOfCommand } from './register';
import { restoreAsOf } from './restore';
import { openDiffs, readAsOf, sameBytes, withRunProgress, workingBytes, type DiffOutcome, type DiffResources } from './work';
import { AS_OF_VIEW, AsOfView, COMPARE_VIEW, CompareView, pairUris, refOf, scopeText, type AsOfRun, type AsOfScope, type CompareRun, type Run, type RunView } from './views';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface SiteAsOfDeps {
  session: Session;
  model: SitesModel;
  revisions: RevisionsApi;
  notifier: Notifier;
  log: Log;
}

/** What "Compare with Another Site…" can be given instead of asking. */
export interface CompareRequest {
  /** The other site's id. */
  other?: string;
  otherFolder?: string;
  /** Epoch ms or text to read; 'newest': the newest revisions. */
  moment?: number | string;
}

export function activateSiteAsOf(deps: SiteAsOfDeps, subscriptions: vscode.Disposable[]): Record<SiteAsOfCommand, (...args: never[]) => unknown> {
  const { session, revisions, notifier, log } = deps;
  const store = revisions.store;
  const asOfView = new AsOfView();
  const compareView = new CompareView();
  const asOfTv = vscode.window.createTreeView<TreeNode>(AS_OF_VIEW, { treeDataProvider: asOfView, showCollapseAll: true });
  const compareTv = vscode.window.createTreeView<TreeNode>(COMPARE_VIEW, { treeDataProvider: compareView, showCollapseAll: true });
  asOfView.attach(asOfTv);
  compareView.attach(compareTv);
  /** The restore, export or diff under way on the as-of view (its Cancel stops it too). */
  let busy: AbortController | undefined;

  const states = () => {
    setContext('siteRevisions.asOf.running', asOfView.run?.state === 'running' || !!busy);
    setContext('siteRevisions.asOf.done', asOfView.run?.state === 'done');
    setContext('siteRevisions.compareSites.running', compareView.run?.state === 'running');
    setContext('siteRevisions.compareSites.done', compareView.run?.state === 'done');
  };
  const show = async (view: 'asOf' | 'compareSites') => {
    setContext(`siteRevisions.${view}.shown`, true);
    await vscode.commands.executeCommand(`${view === 'asOf' ? AS_OF_VIEW : COMPARE_VIEW}.focus`);
  };

  let account = accountKey(session);
  subscriptions.push(
    asOfTv,
    compareTv,
    asOfView,
    compareView,
    asOfView.onDidChangeTreeData(states),
    compareView.onDidChangeTreeData(states),
    // Signed out or another account: nothing read for the previous one shows.
    session.onDidChange(() => {
      const now = accountKey(session);
      if (now === account) return;
      account = now;
      busy?.abort();
      asOfView.clear();
      compareView.clear();
    }),
  );

  /** The scope of a command's argument (a Sites view node, `{site, folder}`), else a site to pick. */
  const scopeOf = async (arg: unknown, placeHolder: string): Promise<AsOfScope | undefined> => {
    if (arg instanceof SiteNode) return { site: arg.site };
    if (arg instanceof FolderNode) return { site: arg.site, folder: arg.folder.key };
    if (arg instanceof FileNode) return { site: arg.site };
    const o = arg as Partial<AsOfScope> | undefined;
    if (o && typeof o === 'object' && o.site?.id) return { site: o.site, ...(o.folder ? { folder: o.folder } : {}) };
    const site = await revisions.commands.siteOf(typeof arg === 'string' ? arg : undefined, placeHolder);
    return site && { site };
  };

  /** Runs `work` for a view's run: progress, end state, failure shown. */
  const follow = async <R extends Run, T>(viewId: string, view: RunView<R>, run: R, title: string, work: (report: (p: AsOfProgress | CompareProgress) => void) => Promise<T>, done: (value: T) => void): Promise<R> => {
    view.start(run);
    states();
    try {
      const value = await withRunProgress(viewId, title, run.abort, (report) =>
        work((p) => {
          run.progress = p;
          view.changed();
          report(p);
        }),
      );
      done(value);
      run.state = run.abort.signal.aborted ? 'cancelled' : 'done';
    } catch (e) {
      if (run.abort.signal.aborted) run.state = 'cancelled';
      else {
        run.state = 'failed';
        run.error = e instanceof Error ? e.message : String(e);
        notifier.error(plain(title), e);
      }
    }
    if (view.run === run) view.changed(true);
    return run;
  };

  const startAsOf = async (scope: AsOfScope, moment: ChosenMoment): Promise<AsOfRun> => {
    const run: AsOfRun = { scope, moment, state: 'running', abort: new AbortController() };
    background('Showing the view of a site as it was', show('asOf'));
    return follow(
      AS_OF_VIEW,
      asOfView,
      run,
      vscode.l10n.t('Reading {0} as of {1}', scopeText(scope), moment.label),
      (onProgress) => readAsOf(run, store, run.abort.signal, onProgress),
      (result) => {
        run.result = result;
        log.info(`Site as it was: ${result.files.length} files as of ${momentText(moment.time, true)} UTC, ${result.notYet.length} not yet, ${result.failures.length} could not be read${result.cancelled ? ' (cancelled)' : ''}`);
      },
    );
  };

  /** The as-of run the view shows, done; else says what to do first. */
  const doneRun = (): AsOfRun | undefined => {
    const run = asOfView.run;
    if (run?.state === 'done' && run.result) return run;
    inform(message('Show a site as it was first: “{0}”.', message('Site As It Was…')));
    return undefined;
  };

  /** Runs a restore, export or diff of the as-of view, cancellable from its title bar. */
  const busyWith = async <T>(fn: (abort: AbortController) => Promise<T>): Promise<T> => {
    busy?.abort();
    const abort = (busy = new AbortController());
    states();
    try {
      return await fn(abort);
    } finally {
      if (busy === abort) busy = undefined;
      states();
    }
  };

  const compareWorking = async (): Promise<DiffOutcome> => {
    const run = doneRun();
    if (!run) return { how: 'none', resources: [] };
    const site = run.scope.site;
    const folder = await revisions.folders.ensure(site, vscode.l10n.t('Choose the local folder of “{0}” to compare with its working files.', displayText(site.name)));
    if (!folder) return { how: 'none', resources: [] };
    const resources: DiffResources = [];
    let refused = 0;
    const targets = new Map<string, vscode.Uri | undefined>();
    const target = (path: string) => {
      if (targets.has(path)) return targets.get(path);
      const w = FolderMapping.resolveWorkingFile(folder, path);
      if (!w.ok) {
        refused++;
        log.warn(`Site as it was ↔ working files: ${w.reason}`);
      }
      targets.set(path, w.ok ? w.uri : undefined);
      return targets.get(path);
    };
    const cancelled = await busyWith((abort) =>
      withRunProgress(AS_OF_VIEW, vscode.l10n.t('Comparing {0} as of {1} with the working files', scopeText(run.scope), run.moment.label), abort, async (report) => {
        const r = await readAsOf(run, store, abort.signal, report, {
          want: (f) => target(f.path) !== undefined,
          take: async (f, bytes) => {
            const uri = target(f.path)!;
            const working = await workingBytes(uri);
            const rev = revisions.revisionDocumentUri(refOf(site, f.path, f.revision));
            if (!working) resources.push([uri, rev, undefined]);
            else if (!sameBytes(working, bytes)) resources.push([uri, rev, uri]);
          },
        });
        for (const f of r.notYet) {
          const uri = target(f.path);
          if (uri && (await workingBytes(uri))) resources.push([uri, undefined, uri]);
        }
        return r.cancelled;
      }),
    );
    if (cancelled) return { how: 'none', resources: [] };
    if (refused) inform(message('{0} files are left out: their paths cannot be mapped into the local folder (see the log).', refused));
    if (!resources.length) {
      inform(message('The working files are as {0} was at that moment.', plain(scopeText(run.scope))));
      return { how: 'none', resources };
    }
    return openDiffs(vscode.l10n.t('{0} as of {1} ↔ working files', scopeText(run.scope), run.moment.label), sortByLabel(resources));
  };

  const compareNewest = async (): Promise<DiffOutcome> => {
    const run = doneRun();
    if (!run) return { how: 'none', resources: [] };
    const scope = { siteId: run.scope.site.id, ...(run.scope.folder ? { folder: run.scope.folder } : {}) };
    const c = await busyWith((abort) =>
      withRunProgress(AS_OF_VIEW, vscode.l10n.t('Comparing {0} as of {1} with its newest revisions', scopeText(run.scope), run.moment.label), abort, (report) =>
        compareSites({ reads: store, a: { ...scope, moment: run.moment.time }, b: scope, signal: abort.signal, onProgress: report }),
      ),
    );
    if (c.cancelled) return { how: 'none', resources: [] };
    const uri = (f: AsOfFile) => revisions.revisionDocumentUri(refOf(run.scope.site, f.path, f.revision));
    const resources: DiffResources = [...c.differ.map((p): DiffResources[number] => [uri(p.b), uri(p.a), uri(p.b)]), ...c.onlyB.map((f): DiffResources[number] => [uri(f), undefined, uri(f)]), ...c.onlyA.map((f): DiffResources[number] => [uri(f), uri(f), undefined])];
    if (!resources.length) {
      inform(message('Nothing changed in {0} since that moment.', plain(scopeText(run.scope))));
      return { how: 'none', resources };
    }
    return openDiffs(vscode.l10n.t('{0} as of {1} ↔ newest revisions', scopeText(run.scope), run.moment.label), sortByLabel(resources));
  };

  const pickOtherSite = async (a: AsOfScope): Promise<Site | undefined> => {
    const sites = (await deps.model.visibleSites()).filter((s) => s.id !== a.site.id);
    if (!sites.length) {
      inform(message('There is no other site to compare with.'));
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      sites.map((s) => ({ label: displayText(s.name), description: [s.server_type, withoutUserinfo(s.domain)].map((x) => displayText(x)).filter(Boolean).join(' · '), site: s })),
      { title: vscode.l10n.t('Compare {0} with another site', scopeText(a)), placeHolder: vscode.l10n.t('The other site (staging and production, say)'), matchOnDescription: true },
    );
    return pick?.site;
  };

  /** The folder of the other site to compare with (undefined key: the whole site); undefined when cancelled. */
  const pickFolder = async (site: Site, like: string | undefined): Promise<{ key: string | undefined } | undefined> => {
    const model = await store.siteFiles(site.id);
    const keys: string[] = [];
    const walk = (f: (typeof model)['root']) => {
      for (const d of f.folders) {
        if (keys.length >= 2000) return;
        keys.push(d.key);
        walk(d);
      }
    };
    walk(model.root);
    type Item = vscode.QuickPickItem & { key?: string };
    const items: Item[] = [{ label: `$(root-folder) ${vscode.l10n.t('The Whole Site')}` }];
    if (like && keys.includes(like)) items.push({ label: `$(folder) ${displayText(like)}`, description: vscode.l10n.t('the same folder'), key: like });
    items.push(...keys.filter((k) => k !== like).map((k) => ({ label: `$(folder) ${displayText(k)}`, key: k })));
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Compare with {0}', displayText(site.name)), placeHolder: vscode.l10n.t('Which folder of it (paths are matched relative to the folders)') });
    return pick && { key: pick.key };
  };

  const compare = async (arg?: unknown, request: CompareRequest = {}): Promise<CompareRun | undefined> => {
    const a = await scopeOf(arg, vscode.l10n.t('Site to compare with another'));
    if (!a) return undefined;
    const other = request.other ? await revisions.controller.site(request.other) : await pickOtherSite(a);
    if (!other) return undefined;
    let folder = request.otherFolder;
    if (!request.other) {
      const picked = await pickFolder(other, a.folder);
      if (!picked) return undefined;
      folder = picked.key;
    }
    const b: AsOfScope = { site: other, ...(folder ? { folder } : {}) };
    let moment: ChosenMoment | undefined;
    if (request.moment === undefined) {
      const newest = vscode.l10n.t('Their Newest Revisions');
      const pick = await vscode.window.showQuickPick([newest, vscode.l10n.t('As of a Moment…')], { title: vscode.l10n.t('Compare {0} with {1}', scopeText(a), scopeText(b)), placeHolder: vscode.l10n.t('Compare which revisions') });
      if (!pick) return undefined;
      if (pick !== newest && !(moment = await askMoment(vscode.l10n.t('Compare {0} with {1}', scopeText(a), scopeText(b))))) return undefined;
    } else if (request.moment !== 'newest') moment = momentOf(request.moment);
    const run: CompareRun = { a, b, moment, state: 'running', abort: new AbortController() };
    background('Showing the compare of two sites', show('compareSites'));
    const side = (s: AsOfScope) => ({ siteId: s.site.id, ...(s.folder ? { folder: s.folder } : {}), ...(moment ? { moment: moment.time } : {}) });
    return follow(
      COMPARE_VIEW,
      compareView,
      run,
      vscode.l10n.t('Comparing {0} with {1}', scopeText(a), scopeText(b)),
      (onProgress) => compareSites({ reads: store, a: side(a), b: side(b), signal: run.abort.signal, onProgress }),
      (result) => {
        run.result = result;
        log.info(`Compare sites: ${result.differ.length} differ, ${result.same} the same, ${result.onlyA.length} + ${result.onlyB.length} on one side only, ${result.contentReads} contents read`);
      },
    );
  };

  const openDifferences = (): Promise<DiffOutcome> => {
    const run = compareView.run;
    const c = run?.state === 'done' ? run.result : undefined;
    if (!run || !c) {
      inform(message('Compare two sites first: “{0}”.', message('Compare with Another Site…')));
      return Promise.resolve({ how: 'none', resources: [] });
    }
    const entry = (rel: string, a: AsOfFile | undefined, b: AsOfFile | undefined): DiffResources[number] => {
      const u = pairUris(run, rel, a, b);
      return [(u.right ?? u.left)!, u.left, u.right];
    };
    const resources: DiffResources = [...c.differ.map((p) => entry(p.rel, p.a, p.b)), ...c.onlyA.map((f) => entry(f.rel, f, undefined)), ...c.onlyB.map((f) => entry(f.rel, undefined, f))];
    return openDiffs(vscode.l10n.t('{0} ↔ {1}', scopeText(run.a), scopeText(run.b)), resources);
  };

  const guard =
    <A extends unknown[]>(title: string, fn: (...a: A) => unknown) =>
    async (...a: A): Promise<unknown> => {
      try {
        return await fn(...a);
      } catch (e) {
        if (isApiError(e) && e.kind === 'cancelled') log.info(`${title}: cancelled`);
        notifier.error(plain(title), e);
        return undefined;
      }
    };

  return {
    'siteRevisions.siteAsOf': guard(vscode.l10n.t('Site As It Was'), async (arg?: unknown, request?: { moment?: number | string }) => {
      const scope = await scopeOf(arg, vscode.l10n.t('Site to show as it was'));
      if (!scope) return undefined;
      const moment = momentOf(request?.moment) ?? (await askMoment(vscode.l10n.t('{0} as it was', scopeText(scope))));
      return moment && startAsOf(scope, moment);
    }),
    'siteRevisions.siteAsOfBefore': guard(vscode.l10n.t('Site As It Was'), (node?: unknown) => {
      const before = beforeChange(node);
      if (!before) {
        inform(message('Choose a day or a revision of the Site Changes view.'));
        return undefined;
      }
      return startAsOf(before.scope, before.moment);
    }),
    'siteRevisions.asOfCompareWorking': guard(vscode.l10n.t('Compare with Working Files'), compareWorking),
    'siteRevisions.asOfCompareNewest': guard(vscode.l10n.t('Compare with Newest Revisions'), compareNewest),
    'siteRevisions.asOfRestore': guard(vscode.l10n.t('Restore Into Local Folder'), () => {
      const run = doneRun();
      return run && busyWith((abort) => restoreAsOf(run, abort, deps));
    }),
    'siteRevisions.asOfExport': guard(vscode.l10n.t('Export'), (request?: ExportRequest) => {
      const run = doneRun();
      return run && busyWith((abort) => exportAsOf(run, abort, deps, request));
    }),
    'siteRevisions.asOfCancel': () => {
      busy?.abort();
      asOfView.run?.abort.abort();
    },
    'siteRevisions.asOfClear': () => asOfView.clear(),
    'siteRevisions.compareSites': guard(vscode.l10n.t('Compare with Another Site'), compare),
    'siteRevisions.compareSitesOpen': guard(vscode.l10n.t('Open Differences'), openDifferences),
    'siteRevisions.compareSitesCancel': () => compareView.run?.abort.abort(),
    'siteRevisions.compareSitesClear': () => compareView.clear(),
  };
}

/** A Site Changes row (a day or a revision of it: src/features/history/changesView.ts) as a scope and the moment just before it. */
function beforeChange(node: unknown): { scope: AsOfScope; moment: ChosenMoment } | undefined {
  type Scoped = { run?: { scope?: { site?: Site; folder?: string } } };
  const n = node as ({ revision?: { id?: unknown; time?: unknown }; fileNode?: { dayNode?: Scoped } } & Scoped & { day?: { day?: unknown; start?: unknown } }) | undefined;
  if (!n || typeof n !== 'object') return undefined;
  const scopeOf = (s: Scoped | undefined): AsOfScope | undefined => (s?.run?.scope?.site?.id ? { site: s.run.scope.site, ...(s.run.scope.folder ? { folder: s.run.scope.folder } : {}) } : undefined);
  const fromRevision = scopeOf(n.fileNode?.dayNode);
  if (fromRevision && typeof n.revision?.time === 'number' && typeof n.revision.id === 'string') {
    const time = n.revision.time - 1;
    return { scope: fromRevision, moment: { time, label: vscode.l10n.t('just before revision {0} ({1})', displayText(n.revision.id), momentText(n.revision.time)) } };
  }
  const fromDay = scopeOf(n);
  if (fromDay && typeof n.day?.start === 'number' && typeof n.day.day === 'string') {
    return { scope: fromDay, moment: { time: n.day.start - 1, label: vscode.l10n.t('the start of {0}', displayText(n.day.day)) } };
  }
  return undefined;
}

function sortByLabel(r: DiffResources): DiffResources {
  return r.sort((x, y) => (x[0].path < y[0].path ? -1 : x[0].path > y[0].path ? 1 : 0));
}

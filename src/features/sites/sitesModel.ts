// The list of sites of the signed-in account: loaded once, merged while in flight, refetched on
// refresh, sorted and filtered. The view's state (for its welcome views) is derived here.
//
// With the disk cache: the list (without passwords: the store keeps none) is shown from disk at
// once and fetched behind at background priority; Refresh fetches first. When the service cannot
// be reached, the cached list is shown and the state is `offline` until a request succeeds
// again. A cached site never fills the password fields of a save: editing asks for a fresh
// Get Sites first (freshSite).
import * as vscode from 'vscode';
import type { ListIssues, Site } from '../../core/api/types';
import { withoutSiteUserinfo } from '../../core/api/userinfo';
import type { Session } from '../auth/session';
import type { CachedSite, DiskStore } from '../../core/store';
import { InFlight } from '../../core/util/inflight';
import { describeError } from '../../workbench/notify';
import { setContext } from '../../workbench/context';
import { background } from '../../core/util/background';
import { failureOf, isOffline, serviceWordsOf, type ServiceWords, type ViewProblem, type ViewState } from './viewState';
import { Disposable } from '../../core/util/disposable';

export type { ViewState } from './viewState';

/** Where the model reports what it could not show. */
export interface ModelLog {
  warn(message: string): void;
  error(message: string): void;
}

export function compareSites(a: Site, b: Site): number {
  return a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }) || a.id.localeCompare(b.id, undefined, { numeric: true });
}

export function matchesFilter(site: Site, filter: string): boolean {
  if (!filter) return true;
  const f = filter.toLowerCase();
  // What the view shows is what a filter finds (never a password in a URL: typing it finds nothing).
  const shown = withoutSiteUserinfo(site);
  return [site.name, shown.domain, site.server_type, shown.web_url, site.dir].some((v) => v.toLowerCase().includes(f));
}

export class SitesModel extends Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  /** Fires when the list, the filter or the state changes. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidRefresh = new vscode.EventEmitter<void>();
  /** Fires when the user asks for fresh data: caches below the sites level must drop. */
  readonly onDidRefresh = this._onDidRefresh.event;
  private readonly _onDidChangeState = new vscode.EventEmitter<ViewState>();
  /** Fires when the view's state (loading, ready, error…) changes; it does not re-render the tree. */
  readonly onDidChangeState = this._onDidChangeState.event;
  private readonly _onDidFailWithWords = new vscode.EventEmitter<ServiceWords>();
  /**
   * Fires when a load of the sites fails and the service said why in its own words (the view's
   * welcome content, fixed text, cannot carry them: the view shows them beside it).
   */
  readonly onDidFailWithWords = this._onDidFailWithWords.event;

  private sites: Site[] | undefined;
  private inflight = new InFlight();
  private generation = 0;
  private _state: ViewState = 'signedOut';
  private _problem: ViewProblem | undefined;
  private _error: string | undefined;
  private _issues: ListIssues | undefined;
  private _filter = '';
  /** The list in memory came from a Get Sites of this session (not from the disk cache). */
  private fresh = false;
  /** When the list in memory was fetched from the service (epoch ms). */
  private _fetchedAt: number | undefined;
  /** After the user's Refresh: fetched before shown (the disk only when offline). */
  private fetchFirst = false;

  /** @param disk the signed-in account's disk store, when there is one. */
  constructor(
    private readonly session: Session,
    private readonly log: ModelLog,
    private readonly disk: () => Promise<DiskStore | undefined> = () => Promise.resolve(undefined),
  ) {
    super();
    for (const emitter of [this._onDidChange, this._onDidRefresh, this._onDidChangeState, this._onDidFailWithWords]) this.own(emitter);
    this.own(
      session.onDidChangeOnline((online) => {
        if (!online) {
          if (this._state === 'ready' || this._state === 'empty') this.setState('offline');
          return;
        }
        // Back: the list is fetched behind what is shown, and the state follows.
        if (this._state === 'offline') this.refreshBehind(this.generation, true);
      }),
    );
  }

  /** Whether a list with at least one site is loaded (the offline message is drawn over rows only). */
  get hasSites(): boolean {
    return !!this.sites?.length;
  }

  /** When the sites shown were fetched from the service (epoch ms); undefined before a list is loaded. */
  get fetchedAt(): number | undefined {
    return this._fetchedAt;
  }

  /** The disk store when there is one and it is usable. */
  private async store(): Promise<DiskStore | undefined> {
    const d = await this.disk().catch(() => undefined);
    if (!d) return undefined;
    await d.ready;
    return d.enabled ? d : undefined;
  }

  get state(): ViewState {
    return this._state;
  }
  /** The specific message of the last failure (the log has it; the view shows the state's explanation). */
  get errorMessage(): string | undefined {
    return this._error;
  }
  /** The hint of the failure state, when its cause is known. */
  get problem(): ViewProblem | undefined {
    return this._problem;
  }
  /** What the last list of sites held that could not be shown (see ListReply). */
  get issues(): ListIssues | undefined {
    return this._issues;
  }
  get filter(): string {
    return this._filter;
  }

  setFilter(f: string): void {
    this._filter = f.trim();
    setContext('siteRevisions.filtered', !!this._filter);
    this._onDidChange.fire();
  }

  /** Sorted, filtered sites; loads them on first use. */
  async visibleSites(): Promise<Site[]> {
    const all = await this.all();
    return all.filter((s) => matchesFilter(s, this._filter)).sort(compareSites);
  }

  /** All sites (unfiltered), loading them when not loaded yet. Rejects when loading fails. */
  async all(): Promise<Site[]> {
    if (this.session.state === 'signedOut') {
      this.setState('signedOut');
      return [];
    }
    // Nothing is sent with credentials the service refused: the view asks to sign in again.
    if (this.session.state === 'expired') {
      this.setState('expired');
      return [];
    }
    if (this.sites) return this.sites;
    const gen = this.generation;
    return this.inflight.run(`sites:${gen}`, async () => {
      this.setState('loading');
      const disk = await this.store();
      if (disk && !this.fetchFirst) {
        const hit = await disk.peek({ kind: 'sites' });
        if (hit && gen === this.generation) {
          const sites = this.use(hit.value.map(fromCache), hit.fetchedAt, false, undefined);
          this.refreshBehind(gen, false);
          return sites;
        }
      }
      try {
        const sites = await this.session.call((c) => c.getSites());
        if (gen === this.generation) this.use(sites, Date.now(), true, sites.issues);
        await disk?.put({ kind: 'sites' }, sites);
        return sites;
      } catch (e) {
        const hit = disk && isOffline(e) ? await disk.peek({ kind: 'sites' }) : undefined;
        if (hit && gen === this.generation) {
          this.log.warn(`Could not load the sites (${describeError(e).message}); showing the sites cached ${new Date(hit.fetchedAt).toISOString()}.`);
          return this.use(hit.value.map(fromCache), hit.fetchedAt, false, undefined, 'offline');
        }
        if (gen === this.generation) {
          this._error = describeError(e).message;
          // The view shows the state's explanation; the exact message is here, behind its Show Log button.
          this.log.error(`Could not load the sites: ${this._error}`);
          const f = failureOf(e);
          this.setState(f.state, f.problem);
          const words = serviceWordsOf(e);
          if (words) this._onDidFailWithWords.fire(words);
        }
        throw e;
      }
    });
  }

  /** Takes a list in: from the service (`fresh`) or from the disk. */
  private use(sites: Site[], fetchedAt: number, fresh: boolean, issues: ListIssues | undefined, state?: ViewState): Site[] {
    this.sites = sites;
    this.fresh = fresh;
    this._fetchedAt = fetchedAt;
    this._error = undefined;
    this._issues = issues;
    if (issues?.skipped) {
      const n = issues.skipped;
      this.log.warn(`Sites: ${n} could not be shown (${issues.problems.join('; ')}${n > issues.problems.length ? '; …' : ''})`);
    }
    this.setState(state ?? (this.session.offline ? 'offline' : sites.length || issues?.skipped ? 'ready' : 'empty'));
    return sites;
  }

  /** Fetches the list behind what is shown (background priority); redraws when it changed. */
  private refreshBehind(gen: number, always: boolean): void {
    background(
      'Refreshing the sites behind the cached list',
      this.session.call((c) => c.getSites({ priority: 'background' })).then(
        async (sites) => {
          if (gen !== this.generation) return;
          const before = this.sites;
          this.use(sites, Date.now(), true, sites.issues);
          if (always || !before || JSON.stringify(before.map(comparable)) !== JSON.stringify(sites.map(comparable))) this._onDidChange.fire();
          await (await this.store())?.put({ kind: 'sites' }, sites);
        },
        (e: unknown) => {
          if (gen !== this.generation) return;
          if (isOffline(e) && this.sites) this.setState('offline');
          this.log.warn(`Could not refresh the cached sites: ${describeError(e).message}`);
        },
      ),
    );
  }

  /**
   * A site as Get Sites gives it now, for an edit or a duplicate (their save sends the stored
   * passwords back): from the list in memory when that came from the service, else after one
   * Get Sites. Rejects when that fails (offline…): a cached site has no passwords to send.
   */
  async freshSite(id: string): Promise<Site | undefined> {
    return (await this.fetchFresh()).find((s) => s.id === id);
  }

  /**
   * The sites as the service lists them now (what a language-model tool answers with): the list
   * in memory when it came from the service, else one Get Sites; the cached list only when the
   * service cannot be reached.
   */
  async current(): Promise<Site[]> {
    try {
      return await this.fetchFresh();
    } catch (e) {
      if (isOffline(e)) return this.all();
      throw e;
    }
  }

  private async fetchFresh(): Promise<Site[]> {
    if (this.fresh && this.sites) return this.sites;
    if (this.session.state !== 'signedIn') return this.all();
    const gen = this.generation;
    const sites = await this.session.call((c) => c.getSites());
    if (gen === this.generation) {
      this.use(sites, Date.now(), true, sites.issues);
      this._onDidChange.fire();
      background('Caching the sites', this.store().then((d) => d?.put({ kind: 'sites' }, sites)));
    }
    return sites;
  }

  find(id: string): Site | undefined {
    return this.sites?.find((s) => s.id === id);
  }

  /** Drops everything cached and tells the view to refetch. */
  refresh(): void {
    this.generation++;
    this.fetchFirst = true;
    this.sites = undefined;
    this._onDidRefresh.fire();
    this._onDidChange.fire();
  }

  /** Forgets all data (sign-out, another account, an expired session). */
  clear(): void {
    this.generation++;
    this.fetchFirst = false;
    this.fresh = false;
    this._fetchedAt = undefined;
    this.sites = undefined;
    this._error = undefined;
    this._issues = undefined;
    const s = this.session.state;
    this.setState(s === 'signedOut' ? 'signedOut' : s === 'expired' ? 'expired' : 'loading');
    this._onDidRefresh.fire();
    this._onDidChange.fire();
  }

  private setState(s: ViewState, problem?: ViewProblem): void {
    if (this._problem !== problem) {
      this._problem = problem;
      setContext('siteRevisions.viewProblem', problem ?? '');
    }
    if (this._state === s) return;
    this._state = s;
    setContext('siteRevisions.view', s);
    this._onDidChangeState.fire(s);
  }
}

/** A cached site as the view shows it: the secret fields empty (they were never stored). */
function fromCache(c: CachedSite): Site {
  return { ...c, ftp_pass: '', db_password: '' };
}

/** What of a site the view shows (a cached copy has no secrets: they are not compared). */
function comparable(s: Site): CachedSite {
  const { ftp_pass: _p, db_password: _d, ...rest } = s;
  return rest;
}

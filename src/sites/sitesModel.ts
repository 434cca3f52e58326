// The list of sites of the signed-in account: loaded once, merged while in flight, refetched on
// refresh, sorted and filtered. The view's state (for its welcome views) is derived here.
import * as vscode from 'vscode';
import type { ListIssues, Site } from '../api/types';
import type { Session } from '../auth/session';
import { InFlight } from '../util/inflight';
import { describeError } from '../ui/notify';
import { setContext } from '../ui/context';
import { failureOf, type ViewProblem, type ViewState } from './viewState';
import { Disposable } from '../util/disposable';

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
  return [site.name, site.domain, site.server_type, site.web_url, site.dir].some((v) => v.toLowerCase().includes(f));
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

  private sites: Site[] | undefined;
  private inflight = new InFlight();
  private generation = 0;
  private _state: ViewState = 'signedOut';
  private _problem: ViewProblem | undefined;
  private _error: string | undefined;
  private _issues: ListIssues | undefined;
  private _filter = '';

  constructor(
    private readonly session: Session,
    private readonly log: ModelLog,
  ) {
    super();
    for (const emitter of [this._onDidChange, this._onDidRefresh, this._onDidChangeState]) this.own(emitter);
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
      try {
        const sites = await this.session.call((c) => c.getSites());
        if (gen === this.generation) {
          this.sites = sites;
          this._error = undefined;
          this._issues = sites.issues;
          if (sites.issues?.skipped) {
            const n = sites.issues.skipped;
            this.log.warn(`Sites: ${n} could not be shown (${sites.issues.problems.join('; ')}${n > sites.issues.problems.length ? '; …' : ''})`);
          }
          this.setState(sites.length || sites.issues?.skipped ? 'ready' : 'empty');
        }
        return sites;
      } catch (e) {
        if (gen === this.generation) {
          this._error = describeError(e).message;
          // The view shows the state's explanation; the exact message is here, behind its Show Log button.
          this.log.error(`Could not load the sites: ${this._error}`);
          const f = failureOf(e);
          this.setState(f.state, f.problem);
        }
        throw e;
      }
    });
  }

  find(id: string): Site | undefined {
    return this.sites?.find((s) => s.id === id);
  }

  /** Drops everything cached and tells the view to refetch. */
  refresh(): void {
    this.generation++;
    this.sites = undefined;
    this._onDidRefresh.fire();
    this._onDidChange.fire();
  }

  /** Forgets all data (sign-out, another account, an expired session). */
  clear(): void {
    this.generation++;
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

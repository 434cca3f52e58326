// The list of sites of the signed-in account: loaded once, merged while in flight, refetched on
// refresh, sorted and filtered. The view's state (for its welcome views) is derived here.
import * as vscode from 'vscode';
import type { Site } from '../api/types';
import { isApiError } from '../api/errors';
import type { Session } from '../auth/session';
import { InFlight } from '../util/inflight';
import { describeError } from '../ui/notify';
import { setContext } from '../ui/context';

/** `expired`: the service refused the stored credentials; nothing is requested until the user signs in. */
export type ViewState = 'signedOut' | 'loading' | 'ready' | 'empty' | 'error' | 'unreachable' | 'expired';

export function compareSites(a: Site, b: Site): number {
  return a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }) || a.id.localeCompare(b.id, undefined, { numeric: true });
}

export function matchesFilter(site: Site, filter: string): boolean {
  if (!filter) return true;
  const f = filter.toLowerCase();
  return [site.name, site.domain, site.server_type, site.web_url, site.dir].some((v) => v.toLowerCase().includes(f));
}

export class SitesModel implements vscode.Disposable {
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
  private _error: string | undefined;
  private _filter = '';

  constructor(private readonly session: Session) {}

  get state(): ViewState {
    return this._state;
  }
  /** The specific message of the last failure, shown in the view. */
  get errorMessage(): string | undefined {
    return this._error;
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
    if (this.sites) return this.sites;
    const gen = this.generation;
    return this.inflight.run(`sites:${gen}`, async () => {
      this.setState('loading');
      try {
        const sites = await this.session.call((c) => c.getSites());
        if (gen === this.generation) {
          this.sites = sites;
          this._error = undefined;
          this.setState(sites.length ? 'ready' : 'empty');
        }
        return sites;
      } catch (e) {
        if (gen === this.generation) {
          this._error = describeError(e).message;
          const unreachable = isApiError(e) && (e.kind === 'network' || e.kind === 'timeout' || (e.kind === 'http' && e.retryable));
          this.setState(this.session.state === 'expired' ? 'expired' : unreachable ? 'unreachable' : 'error');
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

  /** The service refused the credentials (the session expired): the view says so; a loaded list stays. */
  markExpired(): void {
    this.setState('expired');
  }

  /** Forgets all data (sign-out). */
  clear(): void {
    this.generation++;
    this.sites = undefined;
    this._error = undefined;
    this.setState(this.session.state === 'signedOut' ? 'signedOut' : 'loading');
    this._onDidRefresh.fire();
    this._onDidChange.fire();
  }

  private setState(s: ViewState): void {
    if (this._state === s) return;
    this._state = s;
    setContext('siteRevisions.view', s);
    this._onDidChangeState.fire(s);
  }

  dispose(): void {
    this._onDidChange.dispose();
    this._onDidRefresh.dispose();
    this._onDidChangeState.dispose();
  }
}

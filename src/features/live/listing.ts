// Folder listings of the live servers, shared by the Sites view's Live Files rows and the
// `site-live:` file system: a folder is listed once (its batches arrive as the server sends
// them), whoever asks first; both read the same entries until a refresh. A listing can be
// cancelled (the Live Files row's "Cancel"), and then shows what had arrived.
import type { LiveEntry, LiveFs } from '../../core/live';
import { LiveError } from '../../core/live';

export type ListingState = 'loading' | 'done' | 'cancelled' | 'failed';

export class Listing {
  entries: LiveEntry[] = [];
  state: ListingState = 'loading';
  error: unknown;
  readonly abort = new AbortController();
  readonly done: Promise<void>;
  private readonly listeners = new Set<() => void>();
  /** When it finished (epoch ms). */
  finishedAt: number | undefined;

  constructor(
    fs: LiveFs,
    readonly path: string,
  ) {
    this.done = (async () => {
      try {
        for await (const batch of fs.list(path, { signal: this.abort.signal })) {
          this.entries.push(...batch);
          this.changed();
        }
        this.state = this.abort.signal.aborted ? 'cancelled' : 'done';
      } catch (e) {
        if (this.abort.signal.aborted || (e instanceof LiveError && e.kind === 'cancelled')) this.state = 'cancelled';
        else {
          this.state = 'failed';
          this.error = e;
        }
      }
      this.finishedAt = Date.now();
      this.changed();
    })();
  }

  /** Calls `fn` on each batch and at the end; returns the unsubscribe. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch {
        // a listener's failure is its own
      }
    }
  }

  cancel(): void {
    if (this.state === 'loading') this.abort.abort();
  }

  /** The entry named `name`, once listed. */
  find(name: string): LiveEntry | undefined {
    return this.entries.find((e) => e.name === name);
  }
}

/** The listings of every site, by site id and folder path. */
export class Listings {
  private readonly map = new Map<string, Listing>();

  private static key(siteId: string, path: string): string {
    return `${siteId}\n${path}`;
  }

  /** The listing of a folder, started now unless one is under way or done (a cancelled or failed one starts again when `again`). */
  get(siteId: string, path: string, fs: LiveFs, again = false): Listing {
    const k = Listings.key(siteId, path);
    const have = this.map.get(k);
    if (have && (have.state === 'loading' || have.state === 'done' || !again)) return have;
    const l = new Listing(fs, path);
    this.map.set(k, l);
    return l;
  }

  /** The listing if there is one (nothing is started). */
  peek(siteId: string, path: string): Listing | undefined {
    return this.map.get(Listings.key(siteId, path));
  }

  /** Forgets the listings of a site (under `path`, or all), cancelling those under way. */
  forget(siteId: string, path?: string): void {
    for (const [k, l] of this.map) {
      const [sid, p] = k.split('\n') as [string, string];
      if (sid !== siteId) continue;
      if (path !== undefined && path !== '' && p !== path && !p.startsWith(`${path}/`)) continue;
      l.cancel();
      this.map.delete(k);
    }
  }

  clear(): void {
    for (const l of this.map.values()) l.cancel();
    this.map.clear();
  }
}

// The revision store's lists (no `vscode`): a site's files as folders and a file's revisions,
// newest first, each bounded in bytes in memory. A list not in memory is shown from the disk
// store at once and refreshed behind, at `background` priority, with the signal of the read that
// showed it (a scan's refreshes end with the scan), at most once per list per refresh and
// MAX_BEHIND at once; one dropped (its action ended, or too many at once) is made at the next
// look. After invalidate() (the user's Refresh), lists are fetched first. When the service cannot
// be reached (`isOffline`), a list is shown from disk, marked `offline` with the time it was
// fetched. A result that arrives after a refresh is not kept.
import { InvalidReplyError } from '../api/errors';
import type { ListIssues } from '../api/types';
import type { DiskStore } from '../store';
import type { ContentCache } from './contentCache';
import { buildFolderModel, type FolderModel } from './folders';
import { ByteLru } from './lru';
import { sortNewestFirst } from './ordering';
import type { Owner, Ownership } from './ownership';
import type { ListOptions, ListOrigin, ListUpdate, ReadOptions, RevisionItem, RevisionList, RevisionStoreOptions, SiteFiles, StoreLog, StoreRequests } from './revisionTypes';

/**
 * Refreshes behind outstanding at once (waiting or in flight). More are not queued (the list is
 * refreshed at its next look): a scan over thousands of lists on disk must not fill the
 * scheduler's background lane ahead of its own requests.
 */
export const MAX_BEHIND = 4;

/** The log line of a list reply's entries that could not be used. */
function issuesText(what: string, issues: ListIssues): string {
  const more = issues.skipped > issues.problems.length ? '; …' : '';
  return `${what}: ${issues.skipped} could not be shown (${issues.problems.join('; ')}${more})`;
}

function filesKey(siteId: string): string {
  return siteId;
}

function listKey(siteId: string, path: string): string {
  return `${siteId}\u0000${path}`;
}

/** Estimated bytes of a folder model in memory (the Scale bench: about 200 bytes per path). */
function modelBytes(m: FolderModel): number {
  return 1024 + m.files.length * 200;
}

/** Estimated bytes of a revision list in memory. */
function listBytes(l: RevisionList): number {
  return 512 + l.items.length * 160;
}

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** A site's files as the disk store holds them (undefined: not there). */
async function filesFromDisk(d: DiskStore, siteId: string): Promise<SiteFiles | undefined> {
  const hit = await d.peek({ kind: 'files', siteId });
  return hit ? { ...buildFolderModel(hit.value), fetchedAt: hit.fetchedAt } : undefined;
}

/** A file's revisions as the disk store holds them, newest first (undefined: not there). */
async function revisionsFromDisk(d: DiskStore, siteId: string, path: string): Promise<RevisionList | undefined> {
  const hit = await d.peek({ kind: 'revisions', siteId, path });
  return hit ? { siteId, path, items: sortNewestFirst(hit.value), fetchedAt: hit.fetchedAt } : undefined;
}

/** What the two lists (a site's files, a file's revisions) need to be read the same way. */
interface ListRead<T extends ListOrigin> {
  /** The operation, for a CancelledError. */
  what: string;
  memory: ByteLru<string, T>;
  /** Its key in `memory`. */
  key: string;
  /** Its key among the merged reads and the refreshes behind. */
  id: string;
  fromDisk(d: DiskStore): Promise<T | undefined>;
  /** One request; the reply stored in the owner's disk store. */
  fetch(owner: Owner, o: ReadOptions): Promise<T>;
  update: ListUpdate;
  same(a: T, b: T): boolean;
}

export class RevisionLists {
  private readonly files: ByteLru<string, SiteFiles>;
  private readonly lists: ByteLru<string, RevisionList>;
  /** Bumped by invalidate(): a list read before is not kept. */
  private gen = 0;
  /** After the user's Refresh: lists are fetched before they are shown (the disk only when offline). */
  private fetchFirst = false;
  /** Lists refreshed behind in this generation (at most one request per list per refresh). */
  private readonly behind = new Set<string>();
  /** Refreshes behind outstanding now (bounded by MAX_BEHIND). */
  private behindNow = 0;
  /** Aborts the refreshes behind of this generation (a Refresh or another account drops them). */
  private behindAbort = new AbortController();

  constructor(
    private readonly owners: Ownership,
    private readonly contents: ContentCache,
    private readonly requests: StoreRequests,
    private readonly log: StoreLog | undefined,
    private readonly opts: RevisionStoreOptions,
  ) {
    const bound = opts.listBytes ?? 64 * 1024 * 1024;
    this.files = new ByteLru<string, SiteFiles>(bound / 2, modelBytes);
    this.lists = new ByteLru<string, RevisionList>(bound / 2, listBytes);
  }

  /** The generation (bumped by each invalidate()): a read keeps what it brought only in the one it started in. */
  get generation(): number {
    return this.gen;
  }

  /** Whether lists are fetched before they are shown (after the user's Refresh). */
  get fetchingFirst(): boolean {
    return this.fetchFirst;
  }

  /** Refreshes behind outstanding now (waiting for a slot or in flight). */
  get refreshingBehind(): number {
    return this.behindNow;
  }

  /** Keeps a file's revisions read in generation `gen` when that is still the current one. */
  keep(list: RevisionList, gen: number): void {
    if (gen === this.gen) this.lists.set(listKey(list.siteId, list.path), list);
  }

  /**
   * A list from memory, else the disk's copy or one request (merged with identical reads). A
   * copy from disk (in memory or not) is refreshed behind, with the caller's signal.
   */
  private list<T extends ListOrigin>(r: ListRead<T>, o: ListOptions): Promise<T> {
    const inMemory = o.fresh ? undefined : r.memory.get(r.key);
    if (inMemory) {
      this.refreshBehind(r, inMemory, undefined, o.signal);
      return Promise.resolve(inMemory);
    }
    const gen = this.gen;
    const owner = this.owners.owner();
    // A fresh read that brings something else than the list shown says so, as a refresh behind does.
    const before = o.fresh ? r.memory.peek(r.key) : undefined;
    const read = this.owners.shared(`${r.id}:${gen}${o.fresh ? ':fresh' : ''}`, o, r.what, (so) => this.listed(r, gen, owner, so, o.fresh === true));
    read.then(
      (shown) => {
        if (before && !shown.offline && gen === this.gen && !r.same(before, shown)) this.opts.onDidUpdate?.(r.update);
        this.refreshBehind(r, shown, owner, o.signal);
      },
      () => undefined,
    );
    return read;
  }

  /**
   * Shows the disk's copy of a list, or fetches it. From disk (not after a Refresh): at once.
   * Fetched: stored on disk; when the service cannot be reached, the disk's copy marked offline
   * instead.
   */
  private async listed<T extends ListOrigin>(r: ListRead<T>, gen: number, owner: Owner, o: ReadOptions, fresh = false): Promise<T> {
    const d = await owner.disk;
    if (d && !this.fetchFirst && !fresh) {
      const cached = await r.fromDisk(d);
      this.owners.check(owner, r.what);
      if (cached && gen === this.gen) {
        r.memory.set(r.key, cached);
        return cached;
      }
    }
    try {
      const fresh = await r.fetch(owner, o);
      if (gen === this.gen) r.memory.set(r.key, fresh);
      return fresh;
    } catch (e) {
      const cached = d && (this.opts.isOffline?.(e) ?? false) && !o.signal?.aborted ? await r.fromDisk(d) : undefined;
      if (!cached) throw e;
      this.owners.check(owner, r.what);
      cached.offline = true;
      if (gen === this.gen) r.memory.set(r.key, cached);
      return cached;
    }
  }

  /**
   * Fetches a list shown from disk behind it, once per refresh, with the signal of the read that
   * showed it: a refresh whose action ended (a scan cancelled or over, a load aborted) is
   * dropped, and so is every one of the previous generation; a dropped one, or one not started
   * because MAX_BEHIND are outstanding, is made at the next look. Its failure is logged, not shown.
   */
  private refreshBehind<T extends ListOrigin>(r: ListRead<T>, shown: T, owner: Owner | undefined, signal: AbortSignal | undefined): void {
    if (shown.fetchedAt === undefined || shown.offline || signal?.aborted || this.behind.has(r.id) || this.behindNow >= MAX_BEHIND) return;
    if (owner && !this.owners.isCurrent(owner)) return;
    const gen = this.gen;
    this.behind.add(r.id);
    this.behindNow++;
    const stop = signal ? AbortSignal.any([signal, this.behindAbort.signal]) : this.behindAbort.signal;
    r.fetch(owner ?? this.owners.owner(), { priority: 'background', signal: stop })
      .then(
        (fresh) => {
          if (gen !== this.gen) return;
          r.memory.set(r.key, fresh);
          if (!r.same(shown, fresh)) this.opts.onDidUpdate?.(r.update);
        },
        (e: unknown) => {
          if (!stop.aborted) return this.log?.debug(`Revisions: refreshing a cached list failed (${(e as Error).message})`);
          if (gen === this.gen) this.behind.delete(r.id); // dropped with its action: the next look refreshes it
        },
      )
      .finally(() => this.behindNow--);
  }

  /** The files of a site as folders: from memory, the disk (refreshed behind) or one request (`fresh`: one request). */
  siteFiles(siteId: string, o: ListOptions = {}): Promise<SiteFiles> {
    return this.list<SiteFiles>(
      {
        what: 'Get Revision Files',
        memory: this.files,
        key: filesKey(siteId),
        id: `files:${siteId}`,
        fromDisk: (d) => filesFromDisk(d, siteId),
        fetch: (owner, fo) => this.fetchFiles(siteId, owner, fo),
        update: { kind: 'files', siteId },
        same: (a, b) => a.skipped === b.skipped && sameStrings(a.files.map((f) => f.path), b.files.map((f) => f.path)),
      },
      o,
    );
  }

  private async fetchFiles(siteId: string, owner: Owner, o: ReadOptions): Promise<SiteFiles> {
    this.requests.files++;
    const t0 = Date.now();
    const paths = await this.owners.request(owner, 'Get Revision Files', (c) => c.getRevisionFiles(siteId, o));
    const built = buildFolderModel(paths);
    const model: FolderModel = paths.issues?.skipped ? { ...built, skipped: built.skipped + paths.issues.skipped } : built;
    if (paths.issues?.skipped) this.log?.warn(issuesText(`File paths of site ${siteId}`, paths.issues));
    this.log?.debug(`Revisions: ${model.files.length} files with revisions on site ${siteId} (${Date.now() - t0} ms)`);
    await (await owner.disk)?.put({ kind: 'files', siteId }, paths);
    return model;
  }

  peekSiteFiles(siteId: string): SiteFiles | undefined {
    return this.files.peek(filesKey(siteId));
  }

  /**
   * The revisions of a file, newest first: from memory, the disk (refreshed behind) or one
   * request (`fresh`: one request). Content the service sends anyway goes to the content cache
   * (not the list).
   */
  revisions(siteId: string, path: string, o: ListOptions = {}): Promise<RevisionList> {
    const key = listKey(siteId, path);
    const comparable = (l: RevisionList) => l.items.map((d) => `${d.item.id}\u0000${d.item.date}\u0000${d.item.author}`);
    return this.list<RevisionList>(
      {
        what: 'Get Revisions',
        memory: this.lists,
        key,
        id: `revs:${key}`,
        fromDisk: (d) => revisionsFromDisk(d, siteId, path),
        fetch: (owner, fo) => this.fetchRevisions(siteId, path, owner, fo),
        update: { kind: 'revisions', siteId, path },
        same: (a, b) => sameStrings(comparable(a), comparable(b)),
      },
      o,
    );
  }

  /**
   * One Get Revisions, the list stored on disk. Contents the service sends go to the content
   * cache. With `newestContent` (a folder's status: RevisionStore.newest), they are asked for
   * (the reply capped at its bytes), only the newest revision's is kept, and the disk is left
   * alone: see `newest`.
   */
  private async fetchRevisions(siteId: string, path: string, owner: Owner, o: ReadOptions, newestContent?: { maxReplyBytes: number }): Promise<RevisionList> {
    this.requests.revisions++;
    const asked = newestContent ? { ...o, withContent: true, maxResponseBytes: newestContent.maxReplyBytes } : o;
    const raw = await this.owners.request(owner, 'Get Revisions', (c) => c.getRevisions(siteId, path, asked));
    const seen = new Set<string>();
    const items: RevisionItem[] = [];
    const contents = new Map<string, string>();
    for (const r of raw) {
      if (seen.has(r.id)) continue; // the same revision twice: shown once
      seen.add(r.id);
      if (typeof r.content === 'string') contents.set(r.id, r.content);
      items.push({ id: r.id, date: r.date, author: r.author });
    }
    const list: RevisionList = { siteId, path, items: sortNewestFirst(items), ...(raw.issues?.skipped ? { skipped: raw.issues.skipped } : {}) };
    const newest = list.items[0]?.item.id;
    for (const [id, content] of contents) if (!newestContent || id === newest) this.contents.put(siteId, id, content);
    if (raw.issues?.skipped) this.log?.warn(issuesText(`Revisions of a file of site ${siteId}`, raw.issues));
    this.log?.debug(`Revisions: ${items.length} revisions of a file on site ${siteId}${contents.size ? ` (${contents.size} sent with content, ${newestContent ? 'the newest' : 'all'} cached)` : ''}`);
    if (!newestContent) await (await owner.disk)?.put({ kind: 'revisions', siteId, path }, items);
    return list;
  }

  peekRevisions(siteId: string, path: string): RevisionList | undefined {
    return this.lists.peek(listKey(siteId, path));
  }

  /** Finds a listed revision by id (any file of the site), without a request. */
  findListed(siteId: string, revisionId: string): { list: RevisionList; index: number } | undefined {
    for (const list of this.lists.values()) {
      if (list.siteId !== siteId) continue;
      const index = list.items.findIndex((d) => d.item.id === revisionId);
      if (index >= 0) return { list, index };
    }
    return undefined;
  }

  // ---- For the status of a mapped folder (src/core/status): what is cached, read without a request.

  /** A site's files from memory or the disk; never a request (undefined: not cached). */
  async cachedSiteFiles(siteId: string): Promise<SiteFiles | undefined> {
    return this.cachedList(this.files, filesKey(siteId), 'Get Revision Files', (d) => filesFromDisk(d, siteId));
  }

  /** A file's revisions from memory or the disk, newest first; never a request (undefined: not cached). */
  async cachedRevisions(siteId: string, path: string): Promise<RevisionList | undefined> {
    return this.cachedList(this.lists, listKey(siteId, path), 'Get Revisions', (d) => revisionsFromDisk(d, siteId, path));
  }

  private async cachedList<T extends ListOrigin>(memory: ByteLru<string, T>, key: string, what: string, fromDisk: (d: DiskStore) => Promise<T | undefined>): Promise<T | undefined> {
    const inMemory = memory.get(key);
    if (inMemory) return inMemory;
    const gen = this.gen;
    const owner = this.owners.owner();
    const d = await owner.disk;
    const cached = d && (await fromDisk(d));
    this.owners.check(owner, what);
    if (cached && gen === this.gen) memory.set(key, cached);
    return cached;
  }

  /**
   * The list of RevisionStore.newest: from memory or the disk, else ONE Get Revisions with
   * content capped at `maxReplyBytes` (merged with identical reads), over the cap the list alone.
   */
  async newestList(siteId: string, path: string, read: ReadOptions, maxReplyBytes: number): Promise<RevisionList> {
    let list = await this.cachedRevisions(siteId, path);
    if (!list) {
      const gen = this.gen;
      const owner = this.owners.owner();
      const key = listKey(siteId, path);
      list = await this.owners.shared(`newest:${key}:${gen}`, read, 'Get Revisions', (so) => this.fetchRevisions(siteId, path, owner, so, { maxReplyBytes })).catch((e: unknown) => {
        if (!(e instanceof InvalidReplyError && e.problem === 'reply too large')) throw e;
        return this.revisions(siteId, path, read);
      });
      if (gen === this.gen) this.lists.set(key, list);
    }
    return list;
  }

  /** Forgets the lists (the user refreshed): the next look asks the service first. */
  invalidate(): void {
    this.gen++;
    this.fetchFirst = true;
    this.behind.clear();
    this.behindAbort.abort();
    this.behindAbort = new AbortController();
    this.files.clear();
    this.lists.clear();
  }

  /** Forgets the lists (another account): they come from disk first again. */
  clear(): void {
    this.invalidate();
    this.fetchFirst = false;
  }
}

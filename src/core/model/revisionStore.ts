// The revision data of the signed-in account, with no `vscode` import (unit-testable):
// - the files of each site (Get Revision Files) as a folder model;
// - the revisions of each file (Get Revisions, no_content=1), sorted newest first;
// - revision contents (Get Revision) in a byte-bounded LRU. Revisions never change, so contents
//   survive a refresh; they are dropped when the account changes.
//
// With the account's disk store (src/core/store, option `disk`) behind the memory:
// - a content is read from disk before it is requested, and stored there once fetched: a window
//   reload reopens revisions with no request;
// - a list (files, revisions) not in memory is shown from disk at once and refreshed behind, at
//   `background` priority, with the signal of the read that showed it (a scan's refreshes end
//   with the scan), at most once per list per refresh and MAX_BEHIND at once; one dropped (its
//   action ended, or too many at once) is made at the next look. `onDidUpdate` says when a
//   refresh brought something else. After invalidate() (the user's Refresh), lists are fetched first;
// - when the service cannot be reached (`isOffline`), a list is shown from disk, marked
//   `offline` with the time it was fetched;
// - allContents() is the disk store's fetchAllContents (one Get Revisions with content, size-
//   capped, per-revision fallback), read back through the memory LRU and the disk; one file's
//   history is held in memory only up to `historyBytes` (HistoryTooLargeError beyond).
// Every read takes `{signal, priority}`. Identical concurrent reads are merged; each caller can
// abort on its own, and the request is aborted when every caller has. A result that arrives
// after a refresh is not cached. Lists in memory are bounded in bytes (`listBytes`).
// Accounts: a read takes the account (clear() starts the next) and its disk store when it
// starts; a reply or a disk read that arrives for an account that is no longer the current one
// is stored nowhere (not in memory, not on any disk) and its caller gets a CancelledError.
import { createHash } from 'node:crypto';
import { CancelledError, InvalidReplyError } from '../api/errors';
import type { ListIssues, ListReply, RequestPriority, Revision, RevisionSummary } from '../api/types';
import { RequestScheduler } from '../scheduler';
import { fetchAllContents, type DiskStore } from '../store';
import { encodeSliced, sha256Sliced } from '../store/slices';
import { buildFolderModel, type FolderModel } from './folders';
import { ByteLru } from './lru';
import { sortNewestFirst, type Dated } from './ordering';
import { mb } from '../util/bytes';

/**
 * One file's history is too large to be held in memory at once (allContents; History Search
 * counts it as a file it could not read and goes on).
 */
export class HistoryTooLargeError extends Error {
  /**
   * @param bytes the history's contents (UTF-8), or with `atLeast` a lower bound of them (the
   * service's reply was cut off at the bound)
   * @param limit the bound (`siteRevisions.revisions.cacheSizeMB` unless given)
   */
  constructor(
    readonly siteId: string,
    readonly path: string,
    readonly bytes: number,
    readonly limit: number,
    readonly atLeast = false,
  ) {
    super(
      `The history of “${path}” (site ${siteId}) is too large to read at once: ${atLeast ? 'more than ' : ''}${mb(bytes)} of revisions, over the ${mb(limit)} allowed (the setting siteRevisions.revisions.cacheSizeMB).`,
    );
    this.name = 'HistoryTooLargeError';
  }
}

/** How a read is made: cancellable, and at the user's or at background priority (the scheduler's). */
export interface ReadOptions {
  signal?: AbortSignal;
  priority?: RequestPriority;
}

/** A list read: `fresh` asks the service now, whatever is cached (the disk's copy only when it cannot be reached). */
type ListOptions = ReadOptions & { fresh?: boolean };

/** The three reads the store needs (the service client has them). */
export interface RevisionSource {
  getRevisionFiles(siteId: string, o?: ReadOptions): Promise<ListReply<string>>;
  getRevisions(siteId: string, file: string, o?: ReadOptions & { withContent?: boolean; maxResponseBytes?: number }): Promise<ListReply<RevisionSummary>>;
  getRevision(siteId: string, revisionId: string, o?: ReadOptions): Promise<Revision>;
}

/** A revision with its content (undefined when the service could not give it). */
export interface RevisionWithContent extends RevisionItem {
  content: string | undefined;
}

/** Runs a call with the current client (Session.call: handles "signed out" once). */
export type Caller = <T>(fn: (source: RevisionSource) => Promise<T>) => Promise<T>;

/** A revision as listed, without its content. */
export type RevisionItem = Omit<RevisionSummary, 'content'>;

/** Where a list shown came from, when not from a request just made. */
export interface ListOrigin {
  /** When it was fetched from the service (epoch ms); set when it came from the disk cache. */
  fetchedAt?: number;
  /** Shown from the disk cache because the service could not be reached. */
  offline?: boolean;
}

export interface RevisionList extends ListOrigin {
  siteId: string;
  path: string;
  /** Newest first. */
  items: Dated<RevisionItem>[];
  /** Entries of the reply that could not be used (see ListReply). */
  skipped?: number;
}

/** A site's files as folders, and where they came from. */
export type SiteFiles = FolderModel & ListOrigin;

/** A list that a refresh behind (or a fetch after an offline spell) replaced with something else. */
export type ListUpdate = { kind: 'files'; siteId: string } | { kind: 'revisions'; siteId: string; path: string };

export interface RevisionStoreOptions {
  /** The signed-in account's disk store, when there is one (one that is not `enabled` is skipped). */
  disk?: () => Promise<DiskStore | undefined>;
  /** Whether an error means the service cannot be reached: lists then come from the disk. */
  isOffline?: (e: unknown) => boolean;
  /** A list shown changed after a refresh behind. */
  onDidUpdate?: (u: ListUpdate) => void;
  /** Bytes (estimated) of the file and revision lists kept in memory; default 64 MiB. */
  listBytes?: number;
  /**
   * The most bytes (UTF-8) of one file's history that allContents() holds in memory at once;
   * default: the content cache's bound (`revisions.cacheSizeMB`), read at each call.
   */
  historyBytes?: number;
}

export interface StoreLog {
  debug(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
}

/** The log line of a list reply's entries that could not be used. */
function issuesText(what: string, issues: ListIssues): string {
  const more = issues.skipped > issues.problems.length ? '; …' : '';
  return `${what}: ${issues.skipped} could not be shown (${issues.problems.join('; ')}${more})`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function contentKey(siteId: string, revisionId: string): string {
  return `${siteId}\u0000${revisionId}`;
}

function filesKey(siteId: string): string {
  return siteId;
}

function listKey(siteId: string, path: string): string {
  return `${siteId}\u0000${path}`;
}

/** SHA-256 of bytes, hex. */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Contents larger than the whole LRU kept beside it (the two sides of a compare). */
const LARGE_SLOTS = 2;

/** Most digests kept (about 100 bytes each): enough for every revision a person looks at. */
const MAX_DIGESTS = 200_000;

/**
 * Refreshes behind outstanding at once (waiting or in flight). More are not queued (the list is
 * refreshed at its next look): a scan over thousands of lists on disk must not fill the
 * scheduler's background lane ahead of its own requests.
 */
export const MAX_BEHIND = 4;

/** Estimated bytes of a folder model in memory (the Scale bench: about 200 bytes per path). */
function modelBytes(m: FolderModel): number {
  return 1024 + m.files.length * 200;
}

/** Estimated bytes of a revision list in memory. */
function listBytes(l: RevisionList): number {
  return 512 + l.items.length * 160;
}

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whose a read is, taken when it starts: the account (clear() starts the next) and that account's disk store. */
interface Owner {
  readonly account: number;
  readonly disk: Promise<DiskStore | undefined>;
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

export class RevisionStore {
  /** Revision contents (UTF-8 bytes), bounded by `revisions.cacheSizeMB`. */
  readonly cache: ByteLru<string, Uint8Array>;
  /**
   * The last contents fetched that are larger than the whole LRU: kept (two, the older replaced
   * by the next) so that opening one — `stat`, then `readFile`, then Compare with Working File —
   * costs one request, not one per call, and a compare of two such revisions keeps both.
   */
  private large: { key: string; bytes: Uint8Array }[] = [];
  private readonly files: ByteLru<string, SiteFiles>;
  private readonly lists: ByteLru<string, RevisionList>;
  /** Content digests outlive the cache (a revision's content never changes). */
  private readonly digests = new Map<string, string>();
  /** Merges identical concurrent reads; each caller aborts on its own (the scheduler's share()). */
  private readonly merged = new RequestScheduler();
  private generation = 0;
  /** Bumped by clear(): what was read for a previous account is stored nowhere. */
  private account = 0;
  /** After the user's Refresh: lists are fetched before they are shown (the disk only when offline). */
  private fetchFirst = false;
  /** Lists refreshed behind in this generation (at most one request per list per refresh). */
  private readonly behind = new Set<string>();
  /** Refreshes behind outstanding now (bounded by MAX_BEHIND). */
  private behindNow = 0;
  /** Aborts the refreshes behind of this generation (a Refresh or another account drops them). */
  private behindAbort = new AbortController();
  /** Requests sent by this store, per operation, and contents read from disk (for the log and tests). */
  readonly requests = { files: 0, revisions: 0, content: 0, fromDisk: 0 };

  constructor(
    private readonly call: Caller,
    cacheBytes: number,
    private readonly log?: StoreLog,
    private readonly opts: RevisionStoreOptions = {},
  ) {
    this.cache = new ByteLru<string, Uint8Array>(cacheBytes, (b) => b.byteLength);
    const bound = opts.listBytes ?? 64 * 1024 * 1024;
    this.files = new ByteLru<string, SiteFiles>(bound / 2, modelBytes);
    this.lists = new ByteLru<string, RevisionList>(bound / 2, listBytes);
  }

  /** Refreshes behind outstanding now (waiting for a slot or in flight); for tests and the log. */
  get refreshingBehind(): number {
    return this.behindNow;
  }

  /** The disk store when there is one and it is usable. */
  private async disk(): Promise<DiskStore | undefined> {
    const d = await this.opts.disk?.().catch(() => undefined);
    if (!d) return undefined;
    await d.ready;
    return d.enabled ? d : undefined;
  }

  /** The account a read starts for, with its disk store (asked for now, not when the reply is in). */
  private owner(): Owner {
    return { account: this.account, disk: this.disk() };
  }

  /** Throws a CancelledError when the account changed since `owner` was taken: what was read belongs to no one now. */
  private check(owner: Owner, what: string): void {
    if (owner.account !== this.account) throw new CancelledError(what);
  }

  /** One service call for `owner`: its reply only when that account is still the current one. */
  private async request<T>(owner: Owner, what: string, fn: (source: RevisionSource) => Promise<T>): Promise<T> {
    this.check(owner, what);
    const value = await this.call(fn);
    this.check(owner, what);
    return value;
  }

  /** Whether `e` means the service could not be reached (the classifier it was given: `isOffline`). */
  isOffline(e: unknown): boolean {
    return this.opts.isOffline?.(e) ?? false;
  }

  /** Runs `work` once for every caller asking for `key` meanwhile; a caller whose signal aborts leaves (CancelledError). */
  private shared<T>(key: string, o: ReadOptions, what: string, work: (o: ReadOptions) => Promise<T>): Promise<T> {
    const priority = o.priority ?? 'user';
    return this.merged.share(key, o.signal ? { priority, signal: o.signal, cancelled: () => new CancelledError(what) } : { priority }, (call) =>
      work({ ...(call.signal ? { signal: call.signal } : {}), priority: call.priority }),
    );
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
    const gen = this.generation;
    const owner = this.owner();
    // A fresh read that brings something else than the list shown says so, as a refresh behind does.
    const before = o.fresh ? r.memory.peek(r.key) : undefined;
    const read = this.shared(`${r.id}:${gen}${o.fresh ? ':fresh' : ''}`, o, r.what, (so) => this.listed(r, gen, owner, so, o.fresh === true));
    read.then(
      (shown) => {
        if (before && !shown.offline && gen === this.generation && !r.same(before, shown)) this.opts.onDidUpdate?.(r.update);
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
      this.check(owner, r.what);
      if (cached && gen === this.generation) {
        r.memory.set(r.key, cached);
        return cached;
      }
    }
    try {
      const fresh = await r.fetch(owner, o);
      if (gen === this.generation) r.memory.set(r.key, fresh);
      return fresh;
    } catch (e) {
      const cached = d && this.isOffline(e) && !o.signal?.aborted ? await r.fromDisk(d) : undefined;
      if (!cached) throw e;
      this.check(owner, r.what);
      cached.offline = true;
      if (gen === this.generation) r.memory.set(r.key, cached);
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
    if (owner && owner.account !== this.account) return;
    const gen = this.generation;
    this.behind.add(r.id);
    this.behindNow++;
    const stop = signal ? AbortSignal.any([signal, this.behindAbort.signal]) : this.behindAbort.signal;
    r.fetch(owner ?? this.owner(), { priority: 'background', signal: stop })
      .then(
        (fresh) => {
          if (gen !== this.generation) return;
          r.memory.set(r.key, fresh);
          if (!r.same(shown, fresh)) this.opts.onDidUpdate?.(r.update);
        },
        (e: unknown) => {
          if (!stop.aborted) return this.log?.debug(`Revisions: refreshing a cached list failed (${(e as Error).message})`);
          if (gen === this.generation) this.behind.delete(r.id); // dropped with its action: the next look refreshes it
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
        fromDisk: async (d) => {
          const hit = await d.peek({ kind: 'files', siteId });
          return hit ? { ...buildFolderModel(hit.value), fetchedAt: hit.fetchedAt } : undefined;
        },
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
    const paths = await this.request(owner, 'Get Revision Files', (c) => c.getRevisionFiles(siteId, o));
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
        fromDisk: async (d) => {
          const hit = await d.peek({ kind: 'revisions', siteId, path });
          return hit ? { siteId, path, items: sortNewestFirst(hit.value), fetchedAt: hit.fetchedAt } : undefined;
        },
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
    const raw = await this.request(owner, 'Get Revisions', (c) => c.getRevisions(siteId, path, asked));
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
    for (const [id, content] of contents) if (!newestContent || id === newest) this.putContent(siteId, id, content);
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

  /**
   * A revision's content as UTF-8 bytes: from memory, then the disk, then one Get Revision (then
   * kept in both); concurrent calls merge, and the request is aborted when every caller has.
   */
  content(siteId: string, revisionId: string, o: ReadOptions = {}): Promise<Uint8Array> {
    const key = contentKey(siteId, revisionId);
    const cached = this.peekContent(siteId, revisionId);
    if (cached) {
      this.cache.get(key);
      return Promise.resolve(cached);
    }
    const owner = this.owner();
    return this.shared(`content:${owner.account}:${key}`, o, 'Get Revision', async (so) => {
      // One revision can be 20 MB: it is encoded and hashed in slices (src/core/store/slices.ts), so
      // the host's thread is never held for the whole of it.
      const d = await owner.disk;
      const stored = await d?.getContent(siteId, revisionId);
      this.check(owner, 'Get Revision');
      if (stored) {
        this.requests.fromDisk++;
        const sum = this.digests.has(key) ? undefined : await sha256Sliced(stored);
        this.check(owner, 'Get Revision');
        this.keepBytes(key, stored, sum);
        return stored;
      }
      this.requests.content++;
      const rev = await this.request(owner, 'Get Revision', (c) => c.getRevision(siteId, revisionId, so));
      const bytes = await encodeSliced(rev.content, true);
      const sum = this.digests.has(key) ? undefined : await sha256Sliced(bytes);
      this.check(owner, 'Get Revision');
      this.keepBytes(key, bytes, sum);
      await d?.putContent(siteId, revisionId, bytes);
      return bytes;
    });
  }

  /** The bound of one file's history in memory. */
  private get historyBytes(): number {
    return this.opts.historyBytes ?? this.cache.maxBytes;
  }

  /** Throws HistoryTooLargeError when `bytes` of one file's history are over the bound. */
  private bounded(siteId: string, path: string, bytes: number): void {
    if (bytes > this.historyBytes) throw new HistoryTooLargeError(siteId, path, bytes, this.historyBytes);
  }

  /**
   * Every revision of a file with its content, newest first — what History Search and blame need.
   * With the disk store: its fetchAllContents (nothing requested when the file's stored list and
   * every content are on disk; else ONE Get Revisions with content, capped, falling back to Get
   * Revision per revision at background priority), read back through the memory LRU and the
   * disk. Without it: from the memory caches when complete, else one Get Revisions with content.
   * A content the service cannot give comes back `undefined` (the caller skips that revision).
   * A history of more than `historyBytes` is not read into memory: HistoryTooLargeError.
   */
  async allContents(siteId: string, path: string, o: ReadOptions = {}): Promise<RevisionWithContent[]> {
    const listed = this.peekRevisions(siteId, path);
    if (listed) {
      const cached = listed.items.map((d) => this.peekContent(siteId, d.item.id));
      if (cached.every((b) => b !== undefined)) {
        this.bounded(siteId, path, cached.reduce((n, b) => n + b.byteLength, 0));
        return listed.items.map((d, i) => ({ ...d.item, content: decoder.decode(cached[i]) }));
      }
    }
    const owner = this.owner();
    const d = await owner.disk;
    if (!d) return this.allContentsFromService(siteId, path, owner, o);
    const gen = this.generation;
    const r = await fetchAllContents(
      {
        getRevisions: (s, f, co) => this.request(owner, 'Get Revisions', (c) => c.getRevisions(s, f, co)),
        getRevision: (s, id, co) => this.request(owner, 'Get Revision', (c) => c.getRevision(s, id, co)),
      },
      d,
      siteId,
      path,
      // After the user's Refresh the list on disk may be old (a revision saved since): the one
      // request with content is made even when the disk has every content it lists.
      { ...(o.signal ? { signal: o.signal } : {}), priority: o.priority ?? 'background', fresh: this.fetchFirst && !listed },
    );
    this.requests.revisions += r.requests.withContent + r.requests.list;
    this.requests.content += r.requests.single;
    this.requests.fromDisk += r.fromDisk;
    const hit = await d.peek({ kind: 'revisions', siteId, path });
    this.check(owner, 'Get Revisions');
    const list: RevisionList = { siteId, path, items: sortNewestFirst(hit?.value ?? []), ...(hit ? { fetchedAt: hit.fetchedAt } : {}) };
    if (gen === this.generation && hit) this.lists.set(listKey(siteId, path), list);
    // Sizes from memory and the disk's index: nothing is read when the whole is over the bound.
    this.bounded(siteId, path, list.items.reduce((n, { item }) => n + (this.peekContent(siteId, item.id)?.byteLength ?? d.contentBytes(siteId, item.id) ?? 0), 0));
    const out: RevisionWithContent[] = [];
    for (const { item } of list.items) {
      let bytes = this.peekContent(siteId, item.id);
      if (!bytes) {
        bytes = await d.getContent(siteId, item.id);
        this.check(owner, 'Get Revision');
        // The memory cache stays in front of the disk: what was read is there for the next look.
        if (bytes) this.keepBytes(contentKey(siteId, item.id), bytes);
      }
      out.push({ ...item, content: bytes ? decoder.decode(bytes) : undefined });
    }
    return out;
  }

  /**
   * allContents without a disk store: one Get Revisions with content (its reply capped at the
   * bound), the memory caches filled.
   */
  private async allContentsFromService(siteId: string, path: string, owner: Owner, o: ReadOptions): Promise<RevisionWithContent[]> {
    const gen = this.generation;
    const limit = this.historyBytes;
    this.requests.revisions++;
    const raw = await this.request(owner, 'Get Revisions', (c) => c.getRevisions(siteId, path, { ...o, withContent: true, maxResponseBytes: limit })).catch((e: unknown) => {
      // The reply is longer than the bound: its contents (a little less, JSON escapes them) may well be too.
      throw e instanceof InvalidReplyError && e.problem === 'reply too large' ? new HistoryTooLargeError(siteId, path, limit, limit, true) : e;
    });
    const seen = new Set<string>();
    const items: RevisionItem[] = [];
    const texts = new Map<string, string | undefined>();
    let bytes = 0;
    for (const r of raw) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      items.push({ id: r.id, date: r.date, author: r.author });
      texts.set(r.id, r.content);
      if (typeof r.content === 'string') bytes += this.putContent(siteId, r.id, r.content).byteLength;
    }
    this.bounded(siteId, path, bytes);
    const list: RevisionList = { siteId, path, items: sortNewestFirst(items), ...(raw.issues?.skipped ? { skipped: raw.issues.skipped } : {}) };
    if (gen === this.generation) this.lists.set(listKey(siteId, path), list);
    const out: RevisionWithContent[] = [];
    for (const { item } of list.items) {
      let content = texts.get(item.id);
      if (content === undefined) {
        const cached = this.peekContent(siteId, item.id);
        if (cached) content = decoder.decode(cached);
        else {
          this.requests.content++;
          content = await this.request(owner, 'Get Revision', (c) => c.getRevision(siteId, item.id, o)).then(
            (r) => r.content,
            (e: unknown) => {
              if (o.signal?.aborted || e instanceof CancelledError) throw e;
              this.log?.warn(`The content of revision ${item.id} of site ${siteId} could not be fetched`, e);
              return undefined;
            },
          );
          if (content !== undefined) this.putContent(siteId, item.id, content);
        }
        if (content !== undefined) bytes += encoder.encode(content).byteLength;
        this.bounded(siteId, path, bytes);
      }
      out.push({ ...item, content });
    }
    return out;
  }

  peekContent(siteId: string, revisionId: string): Uint8Array | undefined {
    const key = contentKey(siteId, revisionId);
    return this.cache.peek(key) ?? this.large.find((l) => l.key === key)?.bytes;
  }

  /** The SHA-256 of a revision's content when it has been seen (even if evicted since). */
  digestOf(siteId: string, revisionId: string): string | undefined {
    return this.digests.get(contentKey(siteId, revisionId));
  }

  /** digestOf, else the disk store's (its index holds the SHA-256 of every content it keeps): nothing is read or requested. */
  async storedDigest(siteId: string, revisionId: string): Promise<string | undefined> {
    return this.digestOf(siteId, revisionId) ?? (await this.disk())?.digestOf(siteId, revisionId);
  }

  private putContent(siteId: string, revisionId: string, content: string): Uint8Array {
    const bytes = encoder.encode(content);
    this.keepBytes(contentKey(siteId, revisionId), bytes);
    return bytes;
  }

  /** Into the LRU (or, larger than all of it, the one large slot), with its digest (`known`: already computed). */
  private keepBytes(key: string, bytes: Uint8Array, known?: string): void {
    if (!this.cache.set(key, bytes) && !this.large.some((l) => l.key === key)) this.large = [...this.large.slice(-(LARGE_SLOTS - 1)), { key, bytes }];
    if (!this.digests.has(key)) {
      if (this.digests.size >= MAX_DIGESTS) this.digests.delete(this.digests.keys().next().value as string);
      this.digests.set(key, known ?? digest(bytes));
    }
  }

  // ---- For the status of a mapped folder (src/core/status): what is cached, read without a request,
  // and a file's newest revision with one request.

  /** A site's files from memory or the disk; never a request (undefined: not cached). */
  async cachedSiteFiles(siteId: string): Promise<SiteFiles | undefined> {
    return this.cachedList(this.files, filesKey(siteId), 'Get Revision Files', async (d) => {
      const hit = await d.peek({ kind: 'files', siteId });
      return hit ? { ...buildFolderModel(hit.value), fetchedAt: hit.fetchedAt } : undefined;
    });
  }

  /** A file's revisions from memory or the disk, newest first; never a request (undefined: not cached). */
  async cachedRevisions(siteId: string, path: string): Promise<RevisionList | undefined> {
    return this.cachedList(this.lists, listKey(siteId, path), 'Get Revisions', async (d) => {
      const hit = await d.peek({ kind: 'revisions', siteId, path });
      return hit ? { siteId, path, items: sortNewestFirst(hit.value), fetchedAt: hit.fetchedAt } : undefined;
    });
  }

  private async cachedList<T extends ListOrigin>(memory: ByteLru<string, T>, key: string, what: string, fromDisk: (d: DiskStore) => Promise<T | undefined>): Promise<T | undefined> {
    const inMemory = memory.get(key);
    if (inMemory) return inMemory;
    const gen = this.generation;
    const owner = this.owner();
    const d = await owner.disk;
    const cached = d && (await fromDisk(d));
    this.check(owner, what);
    if (cached && gen === this.generation) memory.set(key, cached);
    return cached;
  }

  /** The SHA-256 of a revision's content when it was seen or is on disk (nothing is read). */
  async cachedDigest(siteId: string, revisionId: string): Promise<string | undefined> {
    return this.digestOf(siteId, revisionId) ?? (await this.disk())?.digestOf(siteId, revisionId);
  }

  /**
   * A file's revisions (newest first) and the digest of the newest one's content: from memory or
   * the disk when both are there; else ONE Get Revisions with content, its reply capped at
   * `maxReplyBytes`, the list and the newest content kept in memory (the older contents it
   * carried are not); over the cap, or when the service leaves a content out, the list (no
   * content) and the newest revision (Get Revision), cached as any. What ONE Get Revisions brings
   * is not written to the disk cache: a folder's first status reads thousands of files at once,
   * their writes cost about as much as the requests (bench/scmChild.ts), and after a reload the
   * folder's status comes from its own snapshot (src/core/status/snapshot.ts). A file with no revision
   * has no digest.
   */
  async newest(siteId: string, path: string, o: ReadOptions & { maxReplyBytes: number }): Promise<{ list: RevisionList; digest: string | undefined }> {
    const read: ReadOptions = { ...(o.signal ? { signal: o.signal } : {}), priority: o.priority ?? 'background' };
    let list = await this.cachedRevisions(siteId, path);
    if (!list) {
      const gen = this.generation;
      const owner = this.owner();
      const key = listKey(siteId, path);
      list = await this.shared(`newest:${key}:${gen}`, read, 'Get Revisions', (so) => this.fetchRevisions(siteId, path, owner, so, { maxReplyBytes: o.maxReplyBytes })).catch((e: unknown) => {
        if (!(e instanceof InvalidReplyError && e.problem === 'reply too large')) throw e;
        return this.revisions(siteId, path, read);
      });
      if (gen === this.generation) this.lists.set(key, list);
    }
    const newest = list.items[0]?.item.id;
    if (newest === undefined) return { list, digest: undefined };
    const sum = (await this.cachedDigest(siteId, newest)) ?? (await this.content(siteId, newest, read).then((bytes) => this.digestOf(siteId, newest) ?? digest(bytes)));
    return { list, digest: sum };
  }

  /** Forgets the file and revision lists (the user refreshed): the next look asks the service first. */
  invalidate(): void {
    this.generation++;
    this.fetchFirst = true;
    this.behind.clear();
    this.behindAbort.abort();
    this.behindAbort = new AbortController();
    this.files.clear();
    this.lists.clear();
  }

  /** Forgets everything, contents included (sign-out, another account, Clear Cache): lists come from disk first again. */
  clear(): void {
    this.account++;
    this.invalidate();
    this.fetchFirst = false;
    this.cache.clear();
    this.large = [];
    this.digests.clear();
  }
}

// The revision data of the signed-in account, with no `vscode` import (unit-testable):
// - the files of each site (Get Revision Files) as a folder model;
// - the revisions of each file (Get Revisions, no_content=1), sorted newest first;
// - revision contents (Get Revision) in a byte-bounded LRU. Revisions never change, so contents
//   survive a refresh; they are dropped when the account changes.
//
// With the account's disk store (src/store, option `disk`) behind the memory:
// - a content is read from disk before it is requested, and stored there once fetched: a window
//   reload reopens revisions with no request;
// - a list (files, revisions) not in memory is shown from disk at once and refreshed behind, at
//   `background` priority, at most once per list per refresh; `onDidUpdate` says when that
//   brought something else. After invalidate() (the user's Refresh), lists are fetched first;
// - when the service cannot be reached (`isOffline`), a list is shown from disk, marked
//   `offline` with the time it was fetched;
// - allContents() is the disk store's fetchAllContents (one Get Revisions with content, size-
//   capped, per-revision fallback), read back through the memory LRU and the disk.
// Every read takes `{signal, priority}`. Identical concurrent reads are merged; each caller can
// abort on its own, and the request is aborted when every caller has. A result that arrives
// after a refresh is not cached. Lists in memory are bounded in bytes (`listBytes`).
import { createHash } from 'node:crypto';
import { CancelledError } from '../api/errors';
import type { ListIssues, ListReply, RequestPriority, Revision, RevisionSummary } from '../api/types';
import { RequestScheduler } from '../scheduler';
import { fetchAllContents, type DiskStore } from '../store';
import { encodeSliced, sha256Sliced } from '../store/slices';
import { buildFolderModel, type FolderModel } from './folders';
import { ByteLru } from './lru';
import { sortNewestFirst, type Dated } from './ordering';

/** How a read is made: cancellable, and at the user's or at background priority (the scheduler's). */
export interface ReadOptions {
  signal?: AbortSignal;
  priority?: RequestPriority;
}

/** The three reads the store needs (the service client has them). */
export interface RevisionSource {
  getRevisionFiles(siteId: string, o?: ReadOptions): Promise<ListReply<string>>;
  getRevisions(siteId: string, file: string, o?: ReadOptions & { withContent?: boolean }): Promise<ListReply<RevisionSummary>>;
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

/** Estimated bytes of a folder model in memory (the Scale bench: about 200 bytes per path). */
function modelBytes(m: FolderModel): number {
  return 1024 + m.files.length * 200;
}

/** Estimated bytes of a revision list in memory. */
function listBytes(l: RevisionList): number {
  return 512 + l.items.length * 160;
}

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

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
  /** Bumped by clear(): contents fetched for a previous account are not cached. */
  private account = 0;
  /** After the user's Refresh: lists are fetched before they are shown (the disk only when offline). */
  private fetchFirst = false;
  /** Lists refreshed behind in this generation (at most one request per list per refresh). */
  private readonly behind = new Set<string>();
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

  /** The disk store when there is one and it is usable. */
  private async disk(): Promise<DiskStore | undefined> {
    const d = await this.opts.disk?.().catch(() => undefined);
    if (!d) return undefined;
    await d.ready;
    return d.enabled ? d : undefined;
  }

  private offline(e: unknown): boolean {
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
   * Shows the disk's copy of a list, or fetches it. From disk (not after a Refresh): at once, and
   * refreshed behind. Fetched: stored on disk; when the service cannot be reached, the disk's copy
   * marked offline instead.
   */
  private async listed<T extends ListOrigin>(
    key: string,
    gen: number,
    fromDisk: (d: DiskStore) => Promise<T | undefined>,
    fetch: (o: ReadOptions) => Promise<T>,
    o: ReadOptions,
    keep: (value: T) => void,
    update: ListUpdate,
    same: (a: T, b: T) => boolean,
  ): Promise<T> {
    const d = await this.disk();
    if (d && !this.fetchFirst) {
      const cached = await fromDisk(d);
      if (cached && gen === this.generation) {
        keep(cached);
        this.refreshBehind(key, gen, () => fetch({ priority: 'background' }), (fresh) => {
          keep(fresh);
          if (!same(cached, fresh)) this.opts.onDidUpdate?.(update);
        });
        return cached;
      }
    }
    try {
      const fresh = await fetch(o);
      if (gen === this.generation) keep(fresh);
      return fresh;
    } catch (e) {
      const cached = d && this.offline(e) && !o.signal?.aborted ? await fromDisk(d) : undefined;
      if (!cached) throw e;
      cached.offline = true;
      if (gen === this.generation) keep(cached);
      return cached;
    }
  }

  /** Fetches a list behind what is shown, once per refresh; its failure is logged, not shown. */
  private refreshBehind<T>(key: string, gen: number, fetch: () => Promise<T>, done: (fresh: T) => void): void {
    if (this.behind.has(key)) return;
    this.behind.add(key);
    fetch().then(
      (fresh) => {
        if (gen === this.generation) done(fresh);
      },
      (e: unknown) => this.log?.debug(`Revisions: refreshing a cached list failed (${(e as Error).message})`),
    );
  }

  /** The files of a site as folders: from memory, the disk (refreshed behind) or one request. */
  siteFiles(siteId: string, o: ReadOptions = {}): Promise<SiteFiles> {
    const cached = this.files.get(filesKey(siteId));
    if (cached) return Promise.resolve(cached);
    const gen = this.generation;
    const keep = (m: SiteFiles) => this.files.set(filesKey(siteId), m);
    return this.shared(`files:${gen}:${siteId}`, o, 'Get Revision Files', (so) =>
      this.listed(
        `files:${siteId}`,
        gen,
        async (d) => {
          const hit = await d.peek({ kind: 'files', siteId });
          return hit ? { ...buildFolderModel(hit.value), fetchedAt: hit.fetchedAt } : undefined;
        },
        (fo) => this.fetchFiles(siteId, fo),
        so,
        keep,
        { kind: 'files', siteId },
        (a, b) => a.skipped === b.skipped && sameStrings(a.files.map((f) => f.path), b.files.map((f) => f.path)),
      ),
    );
  }

  private async fetchFiles(siteId: string, o: ReadOptions): Promise<SiteFiles> {
    this.requests.files++;
    const t0 = Date.now();
    const paths = await this.call((c) => c.getRevisionFiles(siteId, o));
    const built = buildFolderModel(paths);
    const model: FolderModel = paths.issues?.skipped ? { ...built, skipped: built.skipped + paths.issues.skipped } : built;
    if (paths.issues?.skipped) this.log?.warn(issuesText(`File paths of site ${siteId}`, paths.issues));
    this.log?.debug(`Revisions: ${model.files.length} files with revisions on site ${siteId} (${Date.now() - t0} ms)`);
    await (await this.disk())?.put({ kind: 'files', siteId }, paths);
    return model;
  }

  peekSiteFiles(siteId: string): SiteFiles | undefined {
    return this.files.peek(filesKey(siteId));
  }

  /**
   * The revisions of a file, newest first: from memory, the disk (refreshed behind) or one
   * request. Content the service sends anyway goes to the content cache (not the list).
   */
  revisions(siteId: string, path: string, o: ReadOptions = {}): Promise<RevisionList> {
    const key = listKey(siteId, path);
    const cached = this.lists.get(key);
    if (cached) return Promise.resolve(cached);
    const gen = this.generation;
    const keep = (l: RevisionList) => this.lists.set(key, l);
    return this.shared(`revs:${gen}:${key}`, o, 'Get Revisions', (so) =>
      this.listed(
        `revs:${key}`,
        gen,
        async (d) => {
          const hit = await d.peek({ kind: 'revisions', siteId, path });
          return hit ? { siteId, path, items: sortNewestFirst(hit.value), fetchedAt: hit.fetchedAt } : undefined;
        },
        (fo) => this.fetchRevisions(siteId, path, gen, fo),
        so,
        keep,
        { kind: 'revisions', siteId, path },
        (a, b) => sameStrings(a.items.map((d) => `${d.item.id}\u0000${d.item.date}\u0000${d.item.author}`), b.items.map((d) => `${d.item.id}\u0000${d.item.date}\u0000${d.item.author}`)),
      ),
    );
  }

  private async fetchRevisions(siteId: string, path: string, gen: number, o: ReadOptions): Promise<RevisionList> {
    this.requests.revisions++;
    const raw = await this.call((c) => c.getRevisions(siteId, path, o));
    const seen = new Set<string>();
    const items: RevisionItem[] = [];
    let withContent = 0;
    for (const r of raw) {
      if (seen.has(r.id)) continue; // the same revision twice: shown once
      seen.add(r.id);
      if (typeof r.content === 'string') {
        withContent++;
        if (gen === this.generation) this.putContent(siteId, r.id, r.content);
      }
      items.push({ id: r.id, date: r.date, author: r.author });
    }
    const list: RevisionList = { siteId, path, items: sortNewestFirst(items), ...(raw.issues?.skipped ? { skipped: raw.issues.skipped } : {}) };
    if (raw.issues?.skipped) this.log?.warn(issuesText(`Revisions of a file of site ${siteId}`, raw.issues));
    this.log?.debug(`Revisions: ${items.length} revisions of a file on site ${siteId}${withContent ? ` (${withContent} sent with content, cached)` : ''}`);
    await (await this.disk())?.put({ kind: 'revisions', siteId, path }, items);
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
    const account = this.account;
    return this.shared(`content:${account}:${key}`, o, 'Get Revision', async (so) => {
      // One revision can be 20 MB: it is encoded and hashed in slices (src/store/slices.ts), so
      // the host's thread is never held for the whole of it.
      const d = await this.disk();
      const stored = await d?.getContent(siteId, revisionId);
      if (stored) {
        this.requests.fromDisk++;
        const sum = this.digests.has(key) ? undefined : await sha256Sliced(stored);
        if (account === this.account) this.keepBytes(key, stored, sum);
        return stored;
      }
      this.requests.content++;
      const rev = await this.call((c) => c.getRevision(siteId, revisionId, so));
      const bytes = await encodeSliced(rev.content, true);
      const sum = account === this.account && !this.digests.has(key) ? await sha256Sliced(bytes) : undefined;
      if (account !== this.account) return bytes;
      this.keepBytes(key, bytes, sum);
      await d?.putContent(siteId, revisionId, bytes);
      return bytes;
    });
  }

  /**
   * Every revision of a file with its content, newest first — what History Search and blame need.
   * With the disk store: its fetchAllContents (nothing requested when the file's stored list and
   * every content are on disk; else ONE Get Revisions with content, capped, falling back to Get
   * Revision per revision at background priority), read back through the memory LRU and the
   * disk. Without it: from the memory caches when complete, else one Get Revisions with content.
   * A content the service cannot give comes back `undefined` (the caller skips that revision).
   */
  async allContents(siteId: string, path: string, o: ReadOptions = {}): Promise<RevisionWithContent[]> {
    const listed = this.peekRevisions(siteId, path);
    if (listed) {
      const cached = listed.items.map((d) => this.peekContent(siteId, d.item.id));
      if (cached.every((b) => b !== undefined)) return listed.items.map((d, i) => ({ ...d.item, content: decoder.decode(cached[i]) }));
    }
    const d = await this.disk();
    if (!d) return this.allContentsFromService(siteId, path, o);
    const gen = this.generation;
    const r = await fetchAllContents(
      {
        getRevisions: (s, f, co) => this.call((c) => c.getRevisions(s, f, co)),
        getRevision: (s, id, co) => this.call((c) => c.getRevision(s, id, co)),
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
    const list: RevisionList = { siteId, path, items: sortNewestFirst(hit?.value ?? []), ...(hit ? { fetchedAt: hit.fetchedAt } : {}) };
    if (gen === this.generation && hit) this.lists.set(listKey(siteId, path), list);
    const out: RevisionWithContent[] = [];
    const account = this.account;
    for (const { item } of list.items) {
      let bytes = this.peekContent(siteId, item.id);
      if (!bytes) {
        bytes = await d.getContent(siteId, item.id);
        // The memory cache stays in front of the disk: what was read is there for the next look.
        if (bytes && account === this.account) this.keepBytes(contentKey(siteId, item.id), bytes);
      }
      out.push({ ...item, content: bytes ? decoder.decode(bytes) : undefined });
    }
    return out;
  }

  /** allContents without a disk store: one Get Revisions with content, the memory caches filled. */
  private async allContentsFromService(siteId: string, path: string, o: ReadOptions): Promise<RevisionWithContent[]> {
    const gen = this.generation;
    const account = this.account;
    this.requests.revisions++;
    const raw = await this.call((c) => c.getRevisions(siteId, path, { ...o, withContent: true }));
    const seen = new Set<string>();
    const items: RevisionItem[] = [];
    const texts = new Map<string, string | undefined>();
    for (const r of raw) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      items.push({ id: r.id, date: r.date, author: r.author });
      texts.set(r.id, r.content);
      if (typeof r.content === 'string' && account === this.account) this.putContent(siteId, r.id, r.content);
    }
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
          content = await this.call((c) => c.getRevision(siteId, item.id, o)).then(
            (r) => r.content,
            (e: unknown) => {
              if (o.signal?.aborted) throw e;
              this.log?.warn(`The content of revision ${item.id} of site ${siteId} could not be fetched`, e);
              return undefined;
            },
          );
          if (content !== undefined && account === this.account) this.putContent(siteId, item.id, content);
        }
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

  /** Forgets the file and revision lists (the user refreshed): the next look asks the service first. */
  invalidate(): void {
    this.generation++;
    this.fetchFirst = true;
    this.behind.clear();
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

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
//
// The store is made of parts, each in its own file: whose a read is (ownership.ts), the lists
// (revisionLists.ts), the contents in memory (contentCache.ts), the whole-history reads
// (historyReads.ts); its types are in revisionTypes.ts. It reads single contents itself.
import { isTooLarge, type InvalidReplyError } from '../api/errors';
import { tooLarge } from '../api/failure';
import { MAX_REPLY_BYTES } from '../api/limits';
import { encodeSliced, sha256Sliced } from '../store/slices';
import { ContentCache, contentKey, digest } from './contentCache';
import { HistoryReads } from './historyReads';
import type { ByteLru } from './lru';
import { Ownership } from './ownership';
import { RevisionLists } from './revisionLists';
import type { Caller, ListOptions, ReadOptions, RevisionList, RevisionStoreOptions, RevisionWithContent, SiteFiles, StoreLog, StoreRequests } from './revisionTypes';

export { contentKey, digest } from './contentCache';
export { HistoryTooLargeError } from './historyReads';
export { MAX_BEHIND } from './revisionLists';
export type { Caller, ListOrigin, ListUpdate, ReadOptions, RevisionItem, RevisionList, RevisionSource, RevisionStoreOptions, RevisionWithContent, SiteFiles, StoreLog } from './revisionTypes';

export class RevisionStore {
  /** Revision contents (UTF-8 bytes), bounded by `revisions.cacheSizeMB`. */
  readonly cache: ByteLru<string, Uint8Array>;
  /** Requests sent by this store, per operation, and contents read from disk (for the log and tests). */
  readonly requests: StoreRequests = { files: 0, revisions: 0, content: 0, fromDisk: 0 };
  private readonly owners: Ownership;
  private readonly contents: ContentCache;
  private readonly lists: RevisionLists;
  private readonly history: HistoryReads;
  /**
   * Revisions whose content was refused as larger than the largest reply the client reads, by
   * contentKey, with that refusal: revisions never change, so they are not asked for again (the
   * account's; cleared with it). Bounded: the oldest go beyond TOO_LARGE_MAX.
   */
  private readonly refused = new Map<string, InvalidReplyError>();

  constructor(
    call: Caller,
    cacheBytes: number,
    log?: StoreLog,
    private readonly opts: RevisionStoreOptions = {},
  ) {
    this.owners = new Ownership(call, opts.disk);
    this.contents = new ContentCache(cacheBytes);
    this.cache = this.contents.lru;
    this.lists = new RevisionLists(this.owners, this.contents, this.requests, log, opts);
    this.history = new HistoryReads({
      owners: this.owners,
      lists: this.lists,
      contents: this.contents,
      requests: this.requests,
      log,
      historyBytes: () => opts.historyBytes ?? this.cache.maxBytes,
    });
  }

  /** Refreshes behind outstanding now (waiting for a slot or in flight); for tests and the log. */
  get refreshingBehind(): number {
    return this.lists.refreshingBehind;
  }

  /** Whether `e` means the service could not be reached (the classifier it was given: `isOffline`). */
  isOffline(e: unknown): boolean {
    return this.opts.isOffline?.(e) ?? false;
  }

  /** The files of a site as folders: from memory, the disk (refreshed behind) or one request (`fresh`: one request). */
  siteFiles(siteId: string, o: ListOptions = {}): Promise<SiteFiles> {
    return this.lists.siteFiles(siteId, o);
  }

  peekSiteFiles(siteId: string): SiteFiles | undefined {
    return this.lists.peekSiteFiles(siteId);
  }

  /**
   * The revisions of a file, newest first: from memory, the disk (refreshed behind) or one
   * request (`fresh`: one request). Content the service sends anyway goes to the content cache
   * (not the list).
   */
  revisions(siteId: string, path: string, o: ListOptions = {}): Promise<RevisionList> {
    return this.lists.revisions(siteId, path, o);
  }

  peekRevisions(siteId: string, path: string): RevisionList | undefined {
    return this.lists.peekRevisions(siteId, path);
  }

  /** Finds a listed revision by id (any file of the site), without a request. */
  findListed(siteId: string, revisionId: string): { list: RevisionList; index: number } | undefined {
    return this.lists.findListed(siteId, revisionId);
  }

  /**
   * A revision's content as UTF-8 bytes: from memory, then the disk, then one Get Revision (then
   * kept in both); concurrent calls merge, and the request is aborted when every caller has.
   */
  content(siteId: string, revisionId: string, o: ReadOptions = {}): Promise<Uint8Array> {
    const key = contentKey(siteId, revisionId);
    const cached = this.peekContent(siteId, revisionId);
    if (cached) {
      this.contents.touch(key);
      return Promise.resolve(cached);
    }
    // Refused before as too large: sure to be refused again, so it is not asked for.
    const refused = this.refused.get(key);
    if (refused) return Promise.reject(refused);
    const owner = this.owners.owner();
    return this.owners.shared(`content:${owner.account}:${key}`, o, 'Get Revision', async (so) => {
      // One revision can be 20 MB: it is encoded and hashed in slices (src/core/store/slices.ts), so
      // the host's thread is never held for the whole of it.
      const d = await owner.disk;
      const stored = await d?.getContent(siteId, revisionId);
      this.owners.check(owner, 'Get Revision');
      if (stored) {
        this.requests.fromDisk++;
        const sum = this.contents.hasDigest(key) ? undefined : await sha256Sliced(stored);
        this.owners.check(owner, 'Get Revision');
        this.contents.keep(key, stored, sum);
        return stored;
      }
      this.requests.content++;
      const rev = await this.owners.request(owner, 'Get Revision', (c) => c.getRevision(siteId, revisionId, so)).catch((e: unknown) => {
        if (isTooLarge(e) && this.owners.isCurrent(owner)) this.rememberTooLarge(key, e);
        throw e;
      });
      const bytes = await encodeSliced(rev.content, true);
      const sum = this.contents.hasDigest(key) ? undefined : await sha256Sliced(bytes);
      this.owners.check(owner, 'Get Revision');
      this.contents.keep(key, bytes, sum);
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
   * A history of more than `historyBytes` is not read into memory: HistoryTooLargeError.
   */
  allContents(siteId: string, path: string, o: ReadOptions = {}): Promise<RevisionWithContent[]> {
    return this.history.allContents(siteId, path, o);
  }

  peekContent(siteId: string, revisionId: string): Uint8Array | undefined {
    return this.contents.peek(siteId, revisionId);
  }

  /** Whether a revision's content was refused as too large (it is then never asked for again). */
  isTooLarge(siteId: string, revisionId: string): boolean {
    return this.refused.has(contentKey(siteId, revisionId));
  }

  /**
   * A revision known to be too large from elsewhere (a folder's status snapshot, of this account):
   * reads of it are refused at once, as after a refusal of the service's reply.
   */
  markTooLarge(siteId: string, revisionId: string): void {
    const key = contentKey(siteId, revisionId);
    if (!this.refused.has(key)) this.rememberTooLarge(key, tooLarge('Get Revision', MAX_REPLY_BYTES));
  }

  private rememberTooLarge(key: string, e: InvalidReplyError): void {
    this.refused.delete(key);
    this.refused.set(key, e);
    if (this.refused.size > TOO_LARGE_MAX) this.refused.delete(this.refused.keys().next().value!);
  }

  /** The SHA-256 of a revision's content when it has been seen (even if evicted since). */
  digestOf(siteId: string, revisionId: string): string | undefined {
    return this.contents.digestOf(siteId, revisionId);
  }

  /** digestOf, else the disk store's (its index holds the SHA-256 of every content it keeps): nothing is read or requested. */
  async storedDigest(siteId: string, revisionId: string): Promise<string | undefined> {
    return this.digestOf(siteId, revisionId) ?? (await this.owners.disk())?.digestOf(siteId, revisionId);
  }

  // ---- For the status of a mapped folder (src/core/status): what is cached, read without a request,
  // and a file's newest revision with one request.

  /** A site's files from memory or the disk; never a request (undefined: not cached). */
  cachedSiteFiles(siteId: string): Promise<SiteFiles | undefined> {
    return this.lists.cachedSiteFiles(siteId);
  }

  /** A file's revisions from memory or the disk, newest first; never a request (undefined: not cached). */
  cachedRevisions(siteId: string, path: string): Promise<RevisionList | undefined> {
    return this.lists.cachedRevisions(siteId, path);
  }

  /** The SHA-256 of a revision's content when it was seen or is on disk (nothing is read). */
  cachedDigest(siteId: string, revisionId: string): Promise<string | undefined> {
    return this.storedDigest(siteId, revisionId);
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
   * has no digest. `digest: false`: no content is read for the digest (the one Get Revisions
   * may still bring it). A newest content refused as too large: `tooLarge`, no digest.
   */
  async newest(siteId: string, path: string, o: ReadOptions & { maxReplyBytes: number; digest?: boolean }): Promise<{ list: RevisionList; digest: string | undefined; tooLarge?: true }> {
    const read: ReadOptions = { ...(o.signal ? { signal: o.signal } : {}), priority: o.priority ?? 'background' };
    const list = await this.lists.newestList(siteId, path, read, o.maxReplyBytes);
    const newest = list.items[0]?.item.id;
    if (newest === undefined) return { list, digest: undefined };
    const cached = await this.cachedDigest(siteId, newest);
    // `digest: false`: what the reply brought, and no content read for it.
    if (cached !== undefined || o.digest === false) return { list, digest: cached };
    try {
      const sum = await this.content(siteId, newest, read).then((bytes) => this.digestOf(siteId, newest) ?? digest(bytes));
      return { list, digest: sum };
    } catch (e) {
      if (isTooLarge(e)) return { list, digest: undefined, tooLarge: true };
      throw e;
    }
  }

  /** Forgets the file and revision lists (the user refreshed): the next look asks the service first. */
  invalidate(): void {
    this.lists.invalidate();
  }

  /** Forgets everything, contents included (sign-out, another account, Clear Cache): lists come from disk first again. */
  clear(): void {
    this.owners.next();
    this.lists.clear();
    this.contents.clear();
    this.refused.clear();
  }
}

/** Revisions remembered as too large, at most. */
const TOO_LARGE_MAX = 10_000;

// The revision store's whole-history reads (no `vscode`): every revision of a file with its
// content, what History Search and blame need. With the account's disk store: its
// fetchAllContents (one Get Revisions with content, size-capped, per-revision fallback), read
// back through the memory LRU and the disk. Without it: one Get Revisions with content, the
// memory caches filled. One file's history is held in memory only up to `historyBytes`
// (HistoryTooLargeError beyond).
import { CancelledError, InvalidReplyError } from '../api/errors';
import { fetchAllContents } from '../store';
import { mb } from '../util/bytes';
import { contentKey, type ContentCache } from './contentCache';
import { sortNewestFirst } from './ordering';
import type { Owner, Ownership } from './ownership';
import type { RevisionLists } from './revisionLists';
import type { ReadOptions, RevisionItem, RevisionList, RevisionWithContent, StoreLog, StoreRequests } from './revisionTypes';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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

/** What the whole-history reads use of the store: its parts, its counters, its log and the bound. */
export interface HistoryParts {
  owners: Ownership;
  lists: RevisionLists;
  contents: ContentCache;
  requests: StoreRequests;
  log: StoreLog | undefined;
  /** The bound of one file's history in memory, read at each call. */
  historyBytes(): number;
}

export class HistoryReads {
  constructor(private readonly p: HistoryParts) {}

  /** Throws HistoryTooLargeError when `bytes` of one file's history are over the bound. */
  private bounded(siteId: string, path: string, bytes: number): void {
    if (bytes > this.p.historyBytes()) throw new HistoryTooLargeError(siteId, path, bytes, this.p.historyBytes());
  }

  /** See RevisionStore.allContents. */
  async allContents(siteId: string, path: string, o: ReadOptions = {}): Promise<RevisionWithContent[]> {
    const { owners, lists, contents, requests } = this.p;
    const listed = lists.peekRevisions(siteId, path);
    if (listed) {
      const cached = listed.items.map((d) => contents.peek(siteId, d.item.id));
      if (cached.every((b) => b !== undefined)) {
        this.bounded(siteId, path, cached.reduce((n, b) => n + b.byteLength, 0));
        return listed.items.map((d, i) => ({ ...d.item, content: decoder.decode(cached[i]) }));
      }
    }
    const owner = owners.owner();
    const d = await owner.disk;
    if (!d) return this.fromService(siteId, path, owner, o);
    const gen = lists.generation;
    const r = await fetchAllContents(
      {
        getRevisions: (s, f, co) => owners.request(owner, 'Get Revisions', (c) => c.getRevisions(s, f, co)),
        getRevision: (s, id, co) => owners.request(owner, 'Get Revision', (c) => c.getRevision(s, id, co)),
      },
      d,
      siteId,
      path,
      // After the user's Refresh the list on disk may be old (a revision saved since): the one
      // request with content is made even when the disk has every content it lists.
      { ...(o.signal ? { signal: o.signal } : {}), priority: o.priority ?? 'background', fresh: lists.fetchingFirst && !listed },
    );
    requests.revisions += r.requests.withContent + r.requests.list;
    requests.content += r.requests.single;
    requests.fromDisk += r.fromDisk;
    const hit = await d.peek({ kind: 'revisions', siteId, path });
    owners.check(owner, 'Get Revisions');
    const list: RevisionList = { siteId, path, items: sortNewestFirst(hit?.value ?? []), ...(hit ? { fetchedAt: hit.fetchedAt } : {}) };
    if (hit) lists.keep(list, gen);
    // Sizes from memory and the disk's index: nothing is read when the whole is over the bound.
    this.bounded(siteId, path, list.items.reduce((n, { item }) => n + (contents.peek(siteId, item.id)?.byteLength ?? d.contentBytes(siteId, item.id) ?? 0), 0));
    const out: RevisionWithContent[] = [];
    for (const { item } of list.items) {
      let bytes = contents.peek(siteId, item.id);
      if (!bytes) {
        bytes = await d.getContent(siteId, item.id);
        owners.check(owner, 'Get Revision');
        // The memory cache stays in front of the disk: what was read is there for the next look.
        if (bytes) contents.keep(contentKey(siteId, item.id), bytes);
      }
      out.push({ ...item, content: bytes ? decoder.decode(bytes) : undefined });
    }
    return out;
  }

  /**
   * allContents without a disk store: one Get Revisions with content (its reply capped at the
   * bound), the memory caches filled.
   */
  private async fromService(siteId: string, path: string, owner: Owner, o: ReadOptions): Promise<RevisionWithContent[]> {
    const { owners, lists, contents, requests } = this.p;
    const gen = lists.generation;
    const limit = this.p.historyBytes();
    requests.revisions++;
    const raw = await owners.request(owner, 'Get Revisions', (c) => c.getRevisions(siteId, path, { ...o, withContent: true, maxResponseBytes: limit })).catch((e: unknown) => {
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
      if (typeof r.content === 'string') bytes += contents.put(siteId, r.id, r.content).byteLength;
    }
    this.bounded(siteId, path, bytes);
    const list: RevisionList = { siteId, path, items: sortNewestFirst(items), ...(raw.issues?.skipped ? { skipped: raw.issues.skipped } : {}) };
    lists.keep(list, gen);
    const out: RevisionWithContent[] = [];
    for (const { item } of list.items) {
      let content = texts.get(item.id);
      if (content === undefined) {
        const cached = contents.peek(siteId, item.id);
        if (cached) content = decoder.decode(cached);
        else {
          requests.content++;
          content = await owners.request(owner, 'Get Revision', (c) => c.getRevision(siteId, item.id, o)).then(
            (r) => r.content,
            (e: unknown) => {
              if (o.signal?.aborted || e instanceof CancelledError) throw e;
              this.p.log?.warn(`The content of revision ${item.id} of site ${siteId} could not be fetched`, e);
              return undefined;
            },
          );
          if (content !== undefined) contents.put(siteId, item.id, content);
        }
        if (content !== undefined) bytes += encoder.encode(content).byteLength;
        this.bounded(siteId, path, bytes);
      }
      out.push({ ...item, content });
    }
    return out;
  }
}

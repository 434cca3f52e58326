// The revision data of the signed-in account, with no `vscode` import (unit-testable):
// - the files of each site (Get Revision Files) as a folder model, cached until the Sites view
//   is refreshed;
// - the revisions of each file (Get Revisions, no_content=1), sorted newest first, cached the same way;
// - revision contents (Get Revision) in a byte-bounded LRU. Revisions never change, so contents
//   survive a refresh; they are dropped when the account changes.
// Identical concurrent requests are merged; a result that arrives after a refresh is not cached.
import { createHash } from 'node:crypto';
import type { ListIssues, ListReply, RequestPriority, Revision, RevisionSummary } from '../api/types';
import { InFlight } from '../util/inflight';
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

export interface RevisionList {
  siteId: string;
  path: string;
  /** Newest first. */
  items: Dated<RevisionItem>[];
  /** Entries of the reply that could not be used (see ListReply). */
  skipped?: number;
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

/** Most digests kept (about 100 bytes each): enough for every revision a person looks at. */
const MAX_DIGESTS = 200_000;

export class RevisionStore {
  /** Revision contents (UTF-8 bytes), bounded by `revisions.cacheSizeMB`. */
  readonly cache: ByteLru<string, Uint8Array>;
  private readonly files = new Map<string, FolderModel>();
  private readonly lists = new Map<string, RevisionList>();
  /** Content digests outlive the cache (a revision's content never changes). */
  private readonly digests = new Map<string, string>();
  private readonly inflight = new InFlight();
  private generation = 0;
  /** Bumped by clear(): contents fetched for a previous account are not cached. */
  private account = 0;
  /** Requests sent by this store, per operation (for the log and tests). */
  readonly requests = { files: 0, revisions: 0, content: 0 };

  constructor(
    private readonly call: Caller,
    cacheBytes: number,
    private readonly log?: StoreLog,
  ) {
    this.cache = new ByteLru<string, Uint8Array>(cacheBytes, (b) => b.byteLength);
  }

  /** The files of a site as folders; one request per site until `invalidate()`. */
  siteFiles(siteId: string): Promise<FolderModel> {
    const cached = this.files.get(filesKey(siteId));
    if (cached) return Promise.resolve(cached);
    const gen = this.generation;
    return this.inflight.run(`files:${gen}:${siteId}`, async () => {
      this.requests.files++;
      const t0 = Date.now();
      const paths = await this.call((c) => c.getRevisionFiles(siteId));
      const built = buildFolderModel(paths);
      const model: FolderModel = paths.issues?.skipped ? { ...built, skipped: built.skipped + paths.issues.skipped } : built;
      if (paths.issues?.skipped) this.log?.warn(issuesText(`File paths of site ${siteId}`, paths.issues));
      this.log?.debug(`Revisions: ${model.files.length} files with revisions on site ${siteId} (${Date.now() - t0} ms)`);
      if (gen === this.generation) this.files.set(filesKey(siteId), model);
      return model;
    });
  }

  peekSiteFiles(siteId: string): FolderModel | undefined {
    return this.files.get(filesKey(siteId));
  }

  /**
   * The revisions of a file, newest first; one request per file until `invalidate()`. Content the
   * service sends anyway goes to the content cache (it is not kept in the list).
   */
  revisions(siteId: string, path: string): Promise<RevisionList> {
    const key = listKey(siteId, path);
    const cached = this.lists.get(key);
    if (cached) return Promise.resolve(cached);
    const gen = this.generation;
    return this.inflight.run(`revs:${gen}:${key}`, async () => {
      this.requests.revisions++;
      const raw = await this.call((c) => c.getRevisions(siteId, path));
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
      if (gen === this.generation) this.lists.set(key, list);
      return list;
    });
  }

  peekRevisions(siteId: string, path: string): RevisionList | undefined {
    return this.lists.get(listKey(siteId, path));
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

  /** A revision's content as UTF-8 bytes: fetched once, then from the cache; concurrent calls merge. */
  content(siteId: string, revisionId: string): Promise<Uint8Array> {
    const key = contentKey(siteId, revisionId);
    const cached = this.cache.get(key);
    if (cached) return Promise.resolve(cached);
    const account = this.account;
    return this.inflight.run(`content:${account}:${key}`, async () => {
      this.requests.content++;
      const rev = await this.call((c) => c.getRevision(siteId, revisionId));
      if (account !== this.account) return encoder.encode(rev.content);
      return this.putContent(siteId, revisionId, rev.content);
    });
  }

  /**
   * Every revision of a file with its content, newest first — what History Search and blame need.
   * From the caches when the file's list and every content are there (no request); otherwise ONE
   * Get Revisions with content, which also refreshes the file's list and fills the content cache;
   * a revision the reply leaves without content is fetched on its own. A content the service
   * cannot give comes back `undefined` (the caller skips that revision).
   */
  async allContents(siteId: string, path: string, o: ReadOptions = {}): Promise<RevisionWithContent[]> {
    const listed = this.peekRevisions(siteId, path);
    if (listed) {
      const cached = listed.items.map((d) => this.cache.peek(contentKey(siteId, d.item.id)));
      if (cached.every((b) => b !== undefined)) return listed.items.map((d, i) => ({ ...d.item, content: decoder.decode(cached[i]) }));
    }
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
        const cached = this.cache.peek(contentKey(siteId, item.id));
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
    return this.cache.peek(contentKey(siteId, revisionId));
  }

  /** The SHA-256 of a revision's content when it has been seen (even if evicted since). */
  digestOf(siteId: string, revisionId: string): string | undefined {
    return this.digests.get(contentKey(siteId, revisionId));
  }

  private putContent(siteId: string, revisionId: string, content: string): Uint8Array {
    const key = contentKey(siteId, revisionId);
    const bytes = encoder.encode(content);
    this.cache.set(key, bytes);
    if (!this.digests.has(key)) {
      if (this.digests.size >= MAX_DIGESTS) this.digests.delete(this.digests.keys().next().value as string);
      this.digests.set(key, digest(bytes));
    }
    return bytes;
  }

  /** Forgets the file and revision lists (the user refreshed): the next look asks again. */
  invalidate(): void {
    this.generation++;
    this.files.clear();
    this.lists.clear();
  }

  /** Forgets everything, contents included (sign-out, another account). */
  clear(): void {
    this.account++;
    this.invalidate();
    this.cache.clear();
    this.digests.clear();
  }
}

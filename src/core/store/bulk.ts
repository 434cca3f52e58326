// Every revision's content of one file into the disk store, in one request where possible
// (plain Node).
//
// 1. What is on disk is used: when the stored revision list names only revisions whose content
//    is stored, nothing is requested at all.
// 2. Otherwise ONE Get Revisions with content (no_content=0), its reply capped while it streams
//    in (`maxReplyBytes`, the client's per-call maxResponseBytes): each content is stored, and the
//    list (without content) too.
// 3. Revisions the reply lists without content, or all of them when the reply was over the cap
//    (then the list comes from the store, or from one Get Revisions without content), are
//    fetched one by one with Get Revision at `background` priority: through the client's
//    scheduler, user actions go first.
// Cancellation and "signed out" end the whole call (thrown); another failure of one revision
// only lists it in `failed`.
import { AuthError, CancelledError, InvalidReplyError } from '../api/errors';
import type { CallOptions, Revision, RevisionSummary } from '../api/types';
import type { DiskStore } from './diskStore';

/** The two reads this needs (SiteRevisionClient has them). */
export interface BulkSource {
  getRevisions(siteId: string, file: string, o?: CallOptions & { withContent?: boolean }): Promise<RevisionSummary[]>;
  getRevision(siteId: string, revisionId: string, o?: CallOptions): Promise<Revision>;
}

export interface BulkOptions {
  signal?: AbortSignal;
  /** Priority of the one Get Revisions request (default `background`); the per-revision fallback is always `background`. */
  priority?: CallOptions['priority'];
  /** The largest reply the one request may have (default 16 MiB); a larger one is abandoned while it streams in. */
  maxReplyBytes?: number;
  /** Per-revision requests outstanding at once in a fallback (default 6; the scheduler bounds the origin as well). */
  concurrency?: number;
  /**
   * The list on disk may be old (the user refreshed): the service is asked even when every
   * revision the disk lists has its content there.
   */
  fresh?: boolean;
}

export interface BulkResult {
  /** Revisions the file has. */
  revisions: number;
  /** Contents that were stored already. */
  fromDisk: number;
  /** Contents stored now. */
  stored: number;
  /** Requests made: Get Revisions with content, Get Revisions without content, Get Revision. */
  requests: { withContent: number; list: number; single: number };
  /** Why Get Revision was needed: the reply left content out, or it was over the cap. */
  fallback: 'none' | 'content-omitted' | 'over-cap';
  /** Revisions whose content could not be fetched or stored. */
  failed: string[];
}

export const DEFAULT_BULK_REPLY_BYTES = 16 * 1024 * 1024;

export async function fetchAllContents(source: BulkSource, store: DiskStore, siteId: string, path: string, o: BulkOptions = {}): Promise<BulkResult> {
  const result: BulkResult = { revisions: 0, fromDisk: 0, stored: 0, requests: { withContent: 0, list: 0, single: 0 }, fallback: 'none', failed: [] };
  await store.ready;
  if (!store.enabled) return result;
  const { signal } = o;
  const listKey = { kind: 'revisions', siteId, path } as const;

  // 1. All on disk already?
  await store.refresh();
  let ids = (await store.peek(listKey))?.value.map((r) => r.id);
  if (!o.fresh && ids && ids.every((id) => store.hasContent(siteId, id))) {
    result.revisions = result.fromDisk = ids.length;
    return result;
  }

  // 2. One request for everything.
  let reply: RevisionSummary[] | undefined;
  try {
    result.requests.withContent++;
    reply = await source.getRevisions(siteId, path, { signal, priority: o.priority ?? 'background', withContent: true, maxResponseBytes: o.maxReplyBytes ?? DEFAULT_BULK_REPLY_BYTES });
  } catch (e) {
    if (!(e instanceof InvalidReplyError && e.problem === 'reply too large')) throw e;
    result.fallback = 'over-cap';
  }

  const missing: string[] = [];
  if (reply) {
    const revisions = uniqueById(reply);
    await store.put(listKey, revisions);
    ids = revisions.map((r) => r.id);
    const sent: { id: string; content: string }[] = [];
    for (const r of revisions) {
      if (store.hasContent(siteId, r.id)) result.fromDisk++;
      else if (typeof r.content !== 'string') missing.push(r.id);
      else sent.push({ id: r.id, content: r.content });
    }
    // Several at once: their file writes overlap.
    await eachLimited(sent, 8, async (r) => {
      if (await store.putContent(siteId, r.id, r.content)) result.stored++;
      else result.failed.push(r.id);
    });
    if (missing.length) result.fallback = 'content-omitted';
  } else {
    if (!ids || o.fresh) {
      result.requests.list++;
      const revisions = uniqueById(await source.getRevisions(siteId, path, { signal, priority: 'background' }));
      await store.put(listKey, revisions);
      ids = revisions.map((r) => r.id);
    }
    for (const id of ids) {
      if (store.hasContent(siteId, id)) result.fromDisk++;
      else missing.push(id);
    }
  }
  result.revisions = ids.length;

  // 3. One by one, behind whatever the user does.
  await eachLimited(missing, o.concurrency ?? 6, async (id) => {
    result.requests.single++;
    try {
      const rev = await source.getRevision(siteId, id, { signal, priority: 'background' });
      if (await store.putContent(siteId, id, rev.content)) result.stored++;
      else result.failed.push(id);
    } catch (e) {
      if (e instanceof CancelledError || e instanceof AuthError || signal?.aborted) throw e;
      result.failed.push(id);
    }
  });
  return result;
}

function uniqueById(list: RevisionSummary[]): RevisionSummary[] {
  const seen = new Set<string>();
  return list.filter((r) => !seen.has(r.id) && seen.add(r.id));
}

/** Runs `fn` for every item, at most `limit` at once; the first error stops new starts and is thrown once the running ones end. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
}

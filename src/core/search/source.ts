// Pure (no `vscode`): what the search engine needs from the rest of the extension, as small
// interfaces, and one implementation of each on the plain service client.
//
// What the extension passes (see README "History Search and Site Changes"):
// - `HistorySource`: `storeSource(client, store)` (store.ts here) — the file and revision lists
//   fetched and kept in the disk store (src/core/store/), and `revisionContents` through the store's
//   `fetchAllContents`: nothing requested when every content is on disk, else ONE Get Revisions
//   with content; so a second search of the same scope sends no content request;
// - `Schedule`: `directSchedule`, with a client made with the request scheduler
//   (src/core/scheduler/, the client's `scheduler` option): each request then takes its slot in the
//   client, at the `priority: 'background'` the sources forward.
// `clientSource` (below) is the same without a store (tests, or the disk store turned off).
//
// A caution for the wiring: the engine calls `schedule` once around each source call and
// never nests them. A `schedule` that holds a slot of the same scheduler the client takes its
// slots from would deadlock a scan that fills every slot: with the scheduler in the client,
// `schedule` must be `directSchedule` (or only order the calls, never hold a slot).
import type { CallOptions, Revision, RevisionSummary } from '../api/types';
import type { RevisionText } from './history';

/** Passed with every source call of a scan. */
export interface SourceCallOptions {
  /** Aborts the call (the engine aborts it when the scan is cancelled). */
  signal: AbortSignal;
  /** Scans are background work: a user's click goes first (the client's scheduler reads it). */
  priority: 'background';
}

/** A revision as listed without content. */
export type RevisionMeta = Pick<RevisionSummary, 'id' | 'date' | 'author'>;

export interface HistorySource {
  /** The paths of a site's files that have revisions (Get Revision Files). */
  listFiles(siteId: string, o: SourceCallOptions): Promise<readonly string[]>;
  /** A file's revisions without content (Get Revisions, no_content=1). */
  listRevisions(siteId: string, path: string, o: SourceCallOptions): Promise<readonly RevisionMeta[]>;
  /**
   * Every revision of a file with its content, in one go: at most ONE Get Revisions request with
   * content, none when every content is cached. A revision whose content is missing can come
   * with `content: undefined` (it is skipped). Bytes are UTF-8.
   */
  revisionContents(siteId: string, path: string, o: SourceCallOptions): Promise<readonly RevisionText[]>;
}

/**
 * Runs one source call of a scan when the scheduler lets background work start, with a signal
 * that aborts it. If `signal` is aborted before `fn` starts, `fn` must never run (the promise
 * rejects); if it aborts while `fn` runs, `fn`'s signal aborts too.
 */
export type Schedule = <T>(fn: (signal: AbortSignal) => Promise<T>, signal: AbortSignal) => Promise<T>;

/** The error a cancelled scan step rejects with (name `AbortError`, like the platform's). */
export function abortError(): Error {
  const e = new Error('The search was cancelled.');
  e.name = 'AbortError';
  return e;
}

/** A `Schedule` that starts `fn` at once (no queue), unless `signal` is already aborted. */
export const directSchedule: Schedule = (fn, signal) => (signal.aborted ? Promise.reject(abortError()) : fn(signal));

/** The three reads the sources need (SiteRevisionClient has them). */
export interface RevisionReads {
  getRevisionFiles(siteId: string, o?: CallOptions): Promise<string[]>;
  getRevisions(siteId: string, file: string, o?: CallOptions & { withContent?: boolean }): Promise<RevisionSummary[]>;
  getRevision(siteId: string, revisionId: string, o?: CallOptions): Promise<Revision>;
}

/**
 * A `HistorySource` straight on the service client, without a cache: one request per call;
 * `revisionContents` asks Get Revisions with content and, for revisions the reply carries no
 * content for, one Get Revision each (one after another, in the same scheduled step).
 */
export function clientSource(client: RevisionReads): HistorySource {
  return {
    listFiles: (siteId, o) => client.getRevisionFiles(siteId, { signal: o.signal, priority: o.priority }),
    listRevisions: async (siteId, path, o) => (await client.getRevisions(siteId, path, { signal: o.signal, priority: o.priority })).map(({ id, date, author }) => ({ id, date, author })),
    async revisionContents(siteId, path, o) {
      const list: RevisionText[] = await client.getRevisions(siteId, path, { signal: o.signal, priority: o.priority, withContent: true });
      for (let i = 0; i < list.length; i++) {
        const r = list[i]!;
        if (typeof r.content === 'string') continue;
        const full = await client.getRevision(siteId, r.id, { signal: o.signal, priority: o.priority });
        list[i] = { ...r, content: full.content };
      }
      return list;
    },
  };
}

/**
 * What `revisionStoreSource` reads: the extension's revision store (src/core/model/revisionStore.ts), whose
 * caches (and, behind them, the disk store and the request scheduler) serve the views as well.
 */
export interface StoreReads {
  siteFiles(siteId: string, o: SourceCallOptions): Promise<{ readonly files: readonly { readonly path: string }[] }>;
  revisions(siteId: string, path: string, o: SourceCallOptions): Promise<{ readonly items: readonly { readonly item: RevisionMeta }[] }>;
  allContents(siteId: string, path: string, o: SourceCallOptions): Promise<readonly RevisionText[]>;
}

/**
 * The `HistorySource` of the extension: the revision store the views read through, so a list the
 * tree already loaded costs nothing and a scan fills the caches the tree then uses. Every read
 * carries the scan's signal and background priority: after a cancel, nothing of the scan that
 * waits for a slot starts, and a caller leaves a read shared with a view at once (the view keeps
 * the request); a list shown from disk is refreshed behind with that signal too.
 */
export function revisionStoreSource(store: StoreReads): HistorySource {
  return {
    listFiles: async (siteId, o) => (await store.siteFiles(siteId, o)).files.map((f) => f.path),
    listRevisions: async (siteId, path, o) => (await store.revisions(siteId, path, o)).items.map((d) => d.item),
    revisionContents: (siteId, path, o) => store.allContents(siteId, path, o),
  };
}

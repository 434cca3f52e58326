// Pure (no `vscode`): what the search engine needs from the rest of the extension, as small
// interfaces, and one implementation of each on the plain service client.
//
// The extension is meant to pass (see README "History search"):
// - `HistorySource`: the revision store (src/store/) — file lists and revision lists from its
//   cache or one request each, and `revisionContents` from its content cache or ONE Get
//   Revisions request with content (its bulk read), so a second search of the same scope sends
//   no content request;
// - `Schedule`: the request scheduler (src/scheduler/) at `background` priority.
// Until those exist, and in the unit tests, `clientSource` (below) and `directSchedule` serve.
//
// A caution for the wiring: the engine calls `schedule` once around each source call and
// never nests them. If the scheduler takes its slot inside the client (per attempt), `schedule`
// must not hold a slot as well — pass `directSchedule` and let the source forward
// `priority: 'background'` to the client — or a scan with all slots taken by `schedule` would
// wait forever for the client's own slots.
import type { RevisionSummary } from '../api/types';
import type { RevisionText } from './history';

/** Passed with every source call of a scan. */
export interface SourceCallOptions {
  /** Aborts the call (the engine aborts it when the scan is cancelled). */
  signal: AbortSignal;
  /** Scans are background work: a user's click goes first. */
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

/** The three reads the client source needs (SiteRevisionClient has them). */
export interface RevisionReads {
  getRevisionFiles(siteId: string, o?: { signal?: AbortSignal }): Promise<string[]>;
  getRevisions(siteId: string, file: string, o?: { signal?: AbortSignal; withContent?: boolean }): Promise<RevisionSummary[]>;
  getRevision(siteId: string, revisionId: string, o?: { signal?: AbortSignal }): Promise<{ id: string; content: string }>;
}

/**
 * A `HistorySource` straight on the service client, without a cache: one request per call;
 * `revisionContents` asks Get Revisions with content and, for revisions the reply carries no
 * content for, one Get Revision each (one after another, in the same scheduled step).
 */
export function clientSource(client: RevisionReads): HistorySource {
  return {
    listFiles: (siteId, o) => client.getRevisionFiles(siteId, { signal: o.signal }),
    listRevisions: async (siteId, path, o) => (await client.getRevisions(siteId, path, { signal: o.signal })).map(({ id, date, author }) => ({ id, date, author })),
    async revisionContents(siteId, path, o) {
      const list: RevisionText[] = await client.getRevisions(siteId, path, { signal: o.signal, withContent: true });
      for (let i = 0; i < list.length; i++) {
        const r = list[i]!;
        if (typeof r.content === 'string') continue;
        const full = await client.getRevision(siteId, r.id, { signal: o.signal });
        list[i] = { ...r, content: full.content };
      }
      return list;
    },
  };
}

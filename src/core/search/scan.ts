// Pure (no `vscode`): the scan engine behind History Search and Site Changes.
//
// scope (a file, a folder of the revisions tree, a whole site) → its files (one Get Revision
// Files through the source, none for a file) → one source call per file, each through the
// injected `schedule` at background priority, at most `concurrency` at a time, started in
// natural path order → the per-file result is computed outside the scheduled step (the slot is
// free again, and the worker's next request is already on its way) and handed to the caller as
// soon as it is ready (callback, or an async iterator with back-pressure), with progress after
// every file.
//
// Cancellation (the caller's AbortSignal): no source call starts after the abort (each worker
// checks before it schedules, and `schedule` must not start a step whose signal is aborted);
// the calls in flight get an aborted signal; nothing is reported after it; and the scan's
// promise settles at once — it does not wait for the aborted requests to come back.
//
// Memory: a worker holds one file's data (e.g. every revision's content of that file) from its
// reply until the file is searched, then only the result, plus the reply it is waiting for; so
// at most 2 × `concurrency` files' contents are alive at once, however many files the scope has.
//
// Failures: an error that concerns one file (the service refused it, its reply was wrong, its
// history is too large to hold) is counted and reported in `failures`, and the scan goes on; any
// other error (signed out, the service cannot be reached, …) stops the scan: the calls in flight
// are aborted and the promise rejects with that error.
import { ApiError } from '../api/errors';
import { displayPath, naturalCompare } from '../model/folders';
import { HistoryTooLargeError } from '../model/revisionStore';
import { english, type Translate } from '../util/l10n';
import type { FileSearchResult, RevisionText, SearchMode } from './history';
import { OffThreadSearch, type TimeBudget } from './offThread';
import { compileQuery, type SearchQuery } from './query';
import { SiteChangesBuilder, type ChangesFilter, type FileChanges } from './siteChanges';
import { abortError, directSchedule, type HistorySource, type RevisionMeta, type Schedule, type SourceCallOptions } from './source';

/** What to scan. */
export interface Scope {
  siteId: string;
  /** One file, by its exact path: no file list is asked for. */
  file?: string;
  /**
   * A folder of the revisions tree, by its key (display segments joined with `/`, as
   * src/core/model/folders.ts builds it); absent or '' = the whole site.
   */
  folder?: string;
}

export interface ScanProgress {
  phase: 'listing' | 'scanning' | 'done' | 'cancelled';
  /** Files finished (with or without a result, or failed). */
  done: number;
  /** Files in the scope; undefined while the file list is being read. */
  total: number | undefined;
  /** Files that produced a result so far. */
  found: number;
  /** Files that could not be read (the scan went on). */
  failed: number;
}

export interface FileFailure {
  path: string;
  error: unknown;
}

export interface ScanSummary extends ScanProgress {
  cancelled: boolean;
  failures: FileFailure[];
}

export interface ScanOptions {
  scope: Scope;
  source: HistorySource;
  /** Default: `directSchedule` (no queue). */
  schedule?: Schedule;
  /** Files worked on at once; default 6. */
  concurrency?: number;
  signal?: AbortSignal;
  /** After the file list, after every file, and at the end. */
  onProgress?: (p: ScanProgress) => void;
  /** Whether an error concerns one file only (the scan goes on); default `isFileError`. */
  isFileError?: (e: unknown) => boolean;
}

export const DEFAULT_CONCURRENCY = 6;

/** Errors that concern one file: the service refused it, its reply could not be read, or its history is too large to hold. */
export function isFileError(e: unknown): boolean {
  return (e instanceof ApiError && (e.kind === 'service' || e.kind === 'invalid-reply' || e.kind === 'http')) || e instanceof HistoryTooLargeError;
}

/** A whole number ≥ 1, or the default when `n` is not a finite number. */
function positiveInt(n: number | undefined, dflt: number): number {
  return typeof n === 'number' && Number.isFinite(n) ? Math.max(1, Math.floor(n)) : dflt;
}

/** The files of `paths` in the scope, each once, in natural path order. */
export function filesInScope(paths: readonly unknown[], folder: string | undefined): string[] {
  const prefix = folder ? `${folder}/` : '';
  const out = new Set<string>();
  for (const p of paths) {
    if (typeof p !== 'string' || p === '') continue;
    if (prefix && !displayPath(p).startsWith(prefix)) continue;
    out.add(p);
  }
  return [...out].sort(naturalCompare);
}

/** One unit of per-file work: a scheduled fetch, then processing outside the scheduler. */
interface FileWork<D, R> {
  fetch(path: string, o: SourceCallOptions): Promise<D>;
  /** May be asynchronous (History Search matches on its own thread); `signal` aborts with the scan. */
  process(path: string, data: D, signal: AbortSignal): R | undefined | Promise<R | undefined>;
  /** Awaited before the worker processes its next file (back-pressure; that file's request may already be on its way). */
  emit(result: R): void | Promise<void>;
}

/** Runs `work` over the scope's files. See the header for the guarantees. */
export async function runScan<D, R>(o: ScanOptions, work: FileWork<D, R>): Promise<ScanSummary> {
  const schedule = o.schedule ?? directSchedule;
  const concurrency = positiveInt(o.concurrency, DEFAULT_CONCURRENCY);
  const fileError = o.isFileError ?? isFileError;
  const { siteId } = o.scope;
  const ac = new AbortController();
  const outer = o.signal;
  const progress: ScanProgress = { phase: 'listing', done: 0, total: undefined, found: 0, failed: 0 };
  const failures: FileFailure[] = [];
  const report = () => {
    try {
      o.onProgress?.({ ...progress });
    } catch {
      // a failing listener must not break the scan
    }
  };
  const finish = (cancelled: boolean): ScanSummary => {
    progress.phase = cancelled ? 'cancelled' : 'done';
    report();
    return { ...progress, cancelled, failures };
  };
  if (outer?.aborted) return finish(true);

  // Settles when the caller aborts or an error stops the scan; the scan's steps race against
  // it, so the scan never waits for a request that was aborted.
  let fatal: { error: unknown } | undefined;
  let halt!: () => void;
  const halted = new Promise<'halted'>((resolve) => {
    halt = () => {
      ac.abort();
      resolve('halted');
    };
  });
  const onAbort = () => halt();
  outer?.addEventListener('abort', onAbort, { once: true });
  const step = <T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> => (ac.signal.aborted ? Promise.reject(abortError()) : schedule(fn, ac.signal));

  try {
    let paths: string[];
    if (o.scope.file !== undefined) {
      paths = [o.scope.file];
    } else {
      report();
      const listing = step((signal) => o.source.listFiles(siteId, { signal, priority: 'background' }));
      listing.catch(() => undefined);
      const listed = await Promise.race([listing, halted]);
      if (listed === 'halted') return finish(true);
      paths = filesInScope(listed, o.scope.folder);
    }
    progress.phase = 'scanning';
    progress.total = paths.length;
    report();

    let next = 0;
    // Each worker keeps one request going while it works on the file before: the next file's
    // fetch starts as soon as a reply is in, before that reply is processed, so the per-file
    // work does not lengthen the time between requests. A worker holds at most the reply it
    // processes and the one in flight.
    type Pending = { path: string; data: Promise<D> };
    const take = (): Pending | undefined => {
      if (ac.signal.aborted || next >= paths.length) return undefined;
      const path = paths[next++]!;
      const data = step((signal) => work.fetch(path, { signal, priority: 'background' }));
      data.catch(() => undefined); // handled where it is awaited; this one may be dropped on abort
      return { path, data };
    };
    const processed = async (path: string, data: D): Promise<{ result: R | undefined } | undefined> => (ac.signal.aborted ? undefined : { result: await work.process(path, data, ac.signal) });
    const worker = async (): Promise<void> => {
      let pending = take();
      while (pending) {
        const { path } = pending;
        const current = pending.data;
        pending = undefined;
        let out: { result: R | undefined } | undefined;
        try {
          const data = await current;
          pending = take(); // the next request starts before this reply is processed
          out = await processed(path, data);
        } catch (e) {
          if (ac.signal.aborted) return;
          if (!fileError(e)) {
            fatal ??= { error: e };
            halt();
            return;
          }
          failures.push({ path, error: e });
          progress.failed++;
          progress.done++;
          report();
          pending ??= take();
          continue;
        }
        if (!out || ac.signal.aborted) return;
        progress.done++;
        if (out.result !== undefined) {
          progress.found++;
          await work.emit(out.result);
          if (ac.signal.aborted) return;
        }
        report();
      }
    };
    const workers = Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, worker));
    workers.catch(() => undefined);
    await Promise.race([workers, halted]);
    if (fatal) throw fatal.error;
    return finish(ac.signal.aborted);
  } finally {
    outer?.removeEventListener('abort', onAbort);
    if (!ac.signal.aborted) ac.abort(); // nothing of this scan outlives it
  }
}

// ---------------------------------------------------------------------------------------------
// History Search

export interface HistorySearchOptions extends ScanOptions {
  query: SearchQuery;
  /** How long one file's matching may take (offThread.ts); default DEFAULT_BUDGET. */
  budget?: TimeBudget;
  /** Default 'changes'. */
  mode?: SearchMode;
  /** Each file with at least one reported revision, as soon as it is searched. Awaited (back-pressure). */
  onResult?: (result: FileSearchResult) => void | Promise<void>;
  t?: Translate;
}

export interface HistorySearchSummary extends ScanSummary {
  /** Reported revisions over all files. */
  hits: number;
  /** Revisions searched over all files. */
  revisions: number;
}

/**
 * Searches the history of the scope's files: one `revisionContents` call per file, each file
 * matched on the search thread (offThread.ts). Rejects with a QueryError (before any request)
 * when the query cannot be used, and with a SearchTimeoutError (a QueryError too) when a file's
 * matching took longer than its budget: the search stops there.
 */
export async function searchHistory(o: HistorySearchOptions): Promise<HistorySearchSummary> {
  const t = o.t ?? english;
  compileQuery(o.query, t);
  const mode = o.mode ?? 'changes';
  let hits = 0;
  let revisions = 0;
  const matching = new OffThreadSearch(o.query, mode, { budget: o.budget, t });
  try {
    const summary = await runScan<readonly RevisionText[], FileSearchResult>(o, {
      fetch: (path, c) => o.source.revisionContents(o.scope.siteId, path, c),
      process: async (path, list, signal) => {
        const r = await matching.search(o.scope.siteId, path, list, signal);
        revisions += r.revisions;
        if (!r.hits.length) return undefined;
        hits += r.hits.length;
        return r;
      },
      emit: (r) => o.onResult?.(r),
    });
    return { ...summary, hits, revisions };
  } finally {
    matching.close();
  }
}

/**
 * The same as an async iterator: results as they are found; the scan waits while `buffer`
 * results are not taken yet. Leaving the loop early (break, throw) cancels the scan. `summary`
 * settles with the scan (it rejects when the scan fails; the loop then throws the same error).
 */
export function searchHistoryIterable(o: HistorySearchOptions & { buffer?: number }): AsyncIterable<FileSearchResult> & { summary: Promise<HistorySearchSummary> } {
  return iterate<FileSearchResult, HistorySearchSummary>(o, positiveInt(o.buffer, 16), (emit, signal) => searchHistory({ ...o, signal, onResult: emit }));
}

// ---------------------------------------------------------------------------------------------
// Site Changes

export interface SiteChangesOptions extends ScanOptions {
  filter: ChangesFilter;
  /** Each file with changes in the period, as soon as its revision list is read. Awaited. */
  onFile?: (file: FileChanges, builder: SiteChangesBuilder) => void | Promise<void>;
  t?: Translate;
}

export interface SiteChangesSummary extends ScanSummary {
  /** The grouping: `days()`, `files()`, `authors()`. */
  builder: SiteChangesBuilder;
}

/**
 * Site Changes of the scope: one `listRevisions` call per file (no content). Rejects with a
 * PeriodError or ZoneError (before any request) when the filter cannot be used.
 */
export async function scanSiteChanges(o: SiteChangesOptions): Promise<SiteChangesSummary> {
  const builder = new SiteChangesBuilder(o.filter, o.t ?? english);
  const summary = await runScan<readonly RevisionMeta[], FileChanges>(o, {
    fetch: (path, c) => o.source.listRevisions(o.scope.siteId, path, c),
    process: (path, list) => builder.add(path, list),
    emit: (f) => o.onFile?.(f, builder),
  });
  return { ...summary, builder };
}

// ---------------------------------------------------------------------------------------------

/** Turns a callback scan into an async iterator with a bounded buffer. */
function iterate<T, S>(o: { signal?: AbortSignal }, capacity: number, start: (emit: (item: T) => Promise<void>, signal: AbortSignal) => Promise<S>): AsyncIterable<T> & { summary: Promise<S> } {
  const ac = new AbortController();
  const forward = () => ac.abort();
  if (o.signal?.aborted) ac.abort();
  else o.signal?.addEventListener('abort', forward, { once: true });
  const queue: T[] = [];
  let wake: (() => void) | undefined; // the consumer waits for an item or the end
  let room: (() => void) | undefined; // the producer waits for space
  let ended = false;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const emit = async (item: T): Promise<void> => {
    queue.push(item);
    poke();
    while (queue.length >= capacity && !ac.signal.aborted) await new Promise<void>((r) => (room = r));
  };
  const summary = start(emit, ac.signal).finally(() => {
    ended = true;
    o.signal?.removeEventListener('abort', forward);
    poke();
  });
  summary.catch(() => undefined);
  const stop = () => {
    ac.abort();
    const r = room;
    room = undefined;
    r?.();
  };
  return {
    summary,
    [Symbol.asyncIterator](): AsyncIterator<T> {
      return {
        async next(): Promise<IteratorResult<T>> {
          for (;;) {
            if (queue.length) {
              const value = queue.shift()!;
              const r = room;
              room = undefined;
              r?.();
              return { value, done: false };
            }
            if (ended) {
              await summary; // throws the scan's error
              return { value: undefined, done: true };
            }
            await new Promise<void>((r) => (wake = r));
          }
        },
        async return(): Promise<IteratorResult<T>> {
          stop();
          queue.length = 0;
          return { value: undefined, done: true };
        },
      };
    },
  };
}

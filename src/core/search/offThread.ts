// Pure (no `vscode`): History Search's matching on a thread of its own, bounded in time and
// cancellable at any point (docs/decisions.md, "Regular expressions: a worker thread, not a linear-time engine", has the figures behind the choice).
//
// A JavaScript regular expression backtracks: `(a+)+$` over 30 `a`s and a `!` runs for over a
// minute, and nothing else runs on its thread meanwhile — not even the Cancel that would stop
// it. So the matching (searchRevisions, history.ts, with JavaScript's own RegExp: the exact
// semantics the query decisions describe) runs in a worker thread (searchWorker.ts), and the host
// keeps the power to end it:
// - a time budget per file: `baseMs` + `msPerMB` for each MB of that file's contents (500 ms +
//   50 ms/MB by default: a 200 KB file gets 510 ms, 50 revisions × 200 KB about 1 s; ordinary
//   expressions need a few ms per MB). Over it, the thread is terminated — even in the middle of
//   one match — and the search rejects with a SearchTimeoutError that names the file, the
//   revision and what to change;
// - Cancel (the scan's AbortSignal) terminates the thread at once, whatever it is doing.
// A terminated thread is gone; the next search starts a fresh one (about 30 ms). A thread that
// ended its search well is kept for the next search, idle and unref'd, for IDLE_MS.
//
// The threads are a pool of at most MAX_THREADS, shared by every search (the views' and the
// language-model tools'): each file takes a thread for its matching and gives it back, and a file
// that finds none free waits in line (its budget starts when it gets one). 40 searches at once
// used to start 40 threads (+289 MB of RSS); now they take turns on two. Cancel drops a file
// that waits, and terminates a thread that matches.
//
// The thread's script is a file of its own (dist/searchWorker.js). When it is missing (the
// extension was updated under a running window), the search fails with UpdatedWhileOpenError,
// which the window shows as its "reload the window" message, as for a missing chunk.
//
// What crosses the thread boundary: the file's revisions (structured clone; strings are copied,
// about 1 ms per MB on the host's thread), sent in parts of at most PART_BYTES with a turn of the
// host's event loop between parts, so that a large history never holds the host's thread long;
// the result (counts and previews) comes back.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { english, type Translate } from '../util/l10n';
import { missingModule, UpdatedWhileOpenError } from '../util/loadOnce';
import type { FileSearchResult, RevisionText, SearchMode } from './history';
import { QueryError, type SearchQuery } from './query';
import { abortError } from './source';
import type { FromWorker, ToWorker, WorkerData } from './searchWorker';

/** Where the search thread's script is: next to this module's output (out/src/search/ in plain Node, dist/ in the extension's bundle). */
export function searchWorkerFile(): string {
  return path.join(__dirname, 'searchWorker.js');
}

/** How long one file's search may take: `baseMs` + `msPerMB` per MB (2^20 characters or bytes) of its contents. */
export interface TimeBudget {
  baseMs: number;
  msPerMB: number;
}

export const DEFAULT_BUDGET: Readonly<TimeBudget> = { baseMs: 500, msPerMB: 50 };

/** A thread that ended its search well waits this long for the next one, then ends. */
export const IDLE_MS = 30_000;
/** The most search threads at once (searching or idle), whatever the number of searches. */
export const MAX_THREADS = 2;
/** The most content bytes (UTF-16 units or UTF-8 bytes) in one message to the thread. */
export const PART_BYTES = 2 * 1024 * 1024;

/** The search of a file took longer than its budget and was stopped; `message` says what to change. */
export class SearchTimeoutError extends QueryError {
  constructor(
    message: string,
    /** The file whose search was stopped. */
    readonly path: string,
    /** The revision whose content was being searched, when known. */
    readonly revisionId: string | undefined,
    /** The budget it went over (ms). */
    readonly limitMs: number,
  ) {
    super(message);
    this.name = 'SearchTimeoutError';
  }
}

function sizeOf(content: RevisionText['content']): number {
  return typeof content === 'string' ? content.length : content instanceof Uint8Array ? content.byteLength : 0;
}

/** The budget of a file whose contents are `bytes` long. */
export function budgetMs(bytes: number, budget: TimeBudget = DEFAULT_BUDGET): number {
  return Math.round(budget.baseMs + (budget.msPerMB * bytes) / (1024 * 1024));
}

/** A turn of the event loop (other callbacks, timers and I/O run in between). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One worker thread and what the host knows of it. */
class SearchThread {
  readonly worker: Worker;
  /** [job, revision index] while the thread searches (see searchWorker.ts). */
  readonly progress = new Int32Array(new SharedArrayBuffer(8));
  private readonly waiting = new Map<number, { resolve: (r: FileSearchResult) => void; reject: (e: Error) => void }>();
  dead = false;
  /** Settles when the thread's script has loaded (a slow start is not counted in a budget); rejects if it stops first. */
  readonly ready: Promise<void>;

  constructor() {
    const workerData: WorkerData = { progress: this.progress.buffer as SharedArrayBuffer };
    this.worker = new Worker(searchWorkerFile(), { workerData });
    let started!: () => void;
    let failed!: (e: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => ((started = resolve), (failed = reject)));
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') return started();
      const w = this.waiting.get(m.job);
      if (!w) return;
      this.waiting.delete(m.job);
      if (m.type === 'result') w.resolve(m.result);
      else w.reject(Object.assign(new Error(m.message), { name: m.name }));
    });
    const fail = (why: Error) => {
      this.dead = true;
      failed(why);
      for (const w of this.waiting.values()) w.reject(why);
      this.waiting.clear();
    };
    this.worker.on('error', (e) => {
      const missing = missingModule(e);
      fail(missing !== undefined ? new UpdatedWhileOpenError(missing) : e instanceof Error ? e : new Error(String(e)));
    });
    this.worker.on('exit', (code) => fail(new Error(`The search thread stopped (exit code ${code}).`)));
  }

  post(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  result(job: number): Promise<FileSearchResult> {
    if (this.dead) return Promise.reject(new Error('The search thread stopped.'));
    return new Promise((resolve, reject) => this.waiting.set(job, { resolve, reject }));
  }

  /** Ends the thread now, in the middle of a match if need be. */
  terminate(): void {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate().catch(() => undefined);
  }
}

/** Threads that ended a file well and wait for the next (unref'd), each with the timer that ends it. */
const idle: { thread: SearchThread; timer: NodeJS.Timeout }[] = [];
/** Files waiting for a thread, first come first served. */
const waiting: ((thread: SearchThread) => void)[] = [];
/** The last job number: unique across searches, since they share the threads (and a thread's progress names its job). */
let jobs = 0;
/** Threads started and not yet exited (searching, idle, or terminated and not gone yet): at most MAX_THREADS. */
let live = 0;

function startThread(): SearchThread {
  const thread = new SearchThread();
  live++;
  thread.worker.once('exit', () => {
    live--;
    serveWaiting();
  });
  return thread;
}

function takeIdle(): SearchThread | undefined {
  for (let i = idle.pop(); i; i = idle.pop()) {
    clearTimeout(i.timer);
    if (i.thread.dead) continue;
    i.thread.worker.ref();
    return i.thread;
  }
  return undefined;
}

/** A thread now, if one is idle or the pool has room; undefined when all are taken. */
function freeThread(): SearchThread | undefined {
  return takeIdle() ?? (live < MAX_THREADS ? startThread() : undefined);
}

/** Hands free threads to the files in line. */
function serveWaiting(): void {
  while (waiting.length) {
    const thread = freeThread();
    if (!thread) return;
    waiting.shift()!(thread);
  }
}

/** A thread for one file: at once when one is free, else when one is (in turn). Rejects with an AbortError when `signal` aborts first. */
function acquire(signal: AbortSignal | undefined): Promise<SearchThread> {
  if (signal?.aborted) return Promise.reject(abortError());
  const now = waiting.length ? undefined : freeThread();
  if (now) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const grant = (thread: SearchThread) => {
      signal?.removeEventListener('abort', drop);
      resolve(thread);
    };
    const drop = () => {
      const i = waiting.indexOf(grant);
      if (i >= 0) waiting.splice(i, 1);
      reject(abortError());
    };
    signal?.addEventListener('abort', drop, { once: true });
    waiting.push(grant);
  });
}

/** Gives a thread back: to the next file in line, or idle for IDLE_MS. A terminated one frees its place when it has exited. */
function release(thread: SearchThread): void {
  if (thread.dead) return;
  const next = waiting.shift();
  if (next) return next(thread);
  thread.worker.unref();
  const timer = setTimeout(() => {
    const i = idle.findIndex((x) => x.thread === thread);
    if (i >= 0) idle.splice(i, 1);
    thread.terminate();
  }, IDLE_MS);
  timer.unref();
  idle.push({ thread, timer });
}

/** Starts a thread to wait idle when none is idle and the pool has room (its start then overlaps the first reads). */
function warmUp(): void {
  if (idle.length || waiting.length || live >= MAX_THREADS) return;
  release(startThread());
}

/** Search threads running now (searching or idle); for tests and the bench. */
export function searchThreads(): number {
  return live;
}

/** Ends the idle search threads, if any (tests, and the extension's deactivation). */
export function endIdleSearchThread(): void {
  for (let i = idle.pop(); i; i = idle.pop()) {
    clearTimeout(i.timer);
    i.thread.terminate();
  }
}

export interface OffThreadOptions {
  budget?: TimeBudget;
  t?: Translate;
}

/**
 * One History Search's matching on the search threads: `search` per file, one file at a time
 * (calls wait their turn), each on a thread of the pool (a file's budget starts when it has one),
 * `close` at the end. The query must have been checked with compileQuery (an invalid one fails
 * each file).
 */
export class OffThreadSearch {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly budget: TimeBudget;
  private readonly t: Translate;

  constructor(
    readonly query: SearchQuery,
    readonly mode: SearchMode,
    o: OffThreadOptions = {},
  ) {
    this.budget = o.budget ?? DEFAULT_BUDGET;
    this.t = o.t ?? english;
    // A thread started now, so that its start (about 30 ms) overlaps the reading of the first contents.
    warmUp();
  }

  /** Searches one file's revisions. Rejects with SearchTimeoutError over the budget, with an AbortError when `signal` aborts. */
  search(siteId: string, path: string, revisions: readonly RevisionText[], signal?: AbortSignal): Promise<FileSearchResult> {
    const run = this.queue.then(() => this.run(siteId, path, revisions, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Ends the session: a file of it not started yet fails with an AbortError. */
  close(): void {
    this.closed = true;
  }

  private async run(siteId: string, path: string, revisions: readonly RevisionText[], signal: AbortSignal | undefined): Promise<FileSearchResult> {
    if (signal?.aborted || this.closed) throw abortError();
    const thread = await acquire(signal);
    try {
      return await this.runOn(thread, siteId, path, revisions, signal);
    } finally {
      release(thread);
    }
  }

  private async runOn(thread: SearchThread, siteId: string, path: string, revisions: readonly RevisionText[], signal: AbortSignal | undefined): Promise<FileSearchResult> {
    const job = ++jobs;
    let timer: NodeJS.Timeout | undefined;
    let stop: ((e: Error) => void) | undefined;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    const onAbort = () => {
      thread.terminate();
      stop?.(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal?.aborted) throw abortError();
      // The parts, with a turn of the event loop after each: the host's thread copies them.
      let bytes = 0;
      let part: RevisionText[] = [];
      let partBytes = 0;
      const send = async () => {
        if (signal?.aborted) throw abortError();
        thread.post({ type: 'add', job, revisions: part });
        part = [];
        partBytes = 0;
        await turn();
      };
      for (const r of revisions) {
        const size = sizeOf(r?.content);
        if (partBytes && partBytes + size > PART_BYTES) await send();
        part.push(r);
        partBytes += size;
        bytes += size;
      }
      if (part.length) await send();
      // The budget counts the search, not the thread's start (a loaded machine can take long).
      await Promise.race([thread.ready, stopped]);
      if (signal?.aborted) throw abortError();
      const limit = budgetMs(bytes, this.budget);
      const result = thread.result(job);
      thread.post({ type: 'run', job, siteId, path, query: this.query, mode: this.mode });
      timer = setTimeout(() => {
        const at = Atomics.load(thread.progress, 0) === job ? Atomics.load(thread.progress, 1) : -1;
        thread.terminate();
        stop?.(this.timeout(path, at >= 0 ? revisions[at]?.id : undefined, limit));
      }, limit);
      return await Promise.race([result, stopped]);
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private timeout(path: string, revisionId: string | undefined, limitMs: number): SearchTimeoutError {
    const t = this.t;
    const seconds = (limitMs / 1000).toFixed(1);
    const where = revisionId !== undefined ? t('revision {0} of {1}', revisionId, path) : path;
    const message = this.query.isRegExp
      ? t(
          'The regular expression took more than {0} s on {1}, so the search was stopped. Nested quantifiers such as (a+)+ or (\\w+\\s?)+ can take exponential time on some lines: write it so that each part of a line can match in one way only (for example a+ instead of (a+)+), or search for plain text.',
          seconds,
          where,
        )
      : t('The search took more than {0} s on {1}, so it was stopped.', seconds, where);
    return new SearchTimeoutError(message, path, revisionId, limitMs);
  }
}

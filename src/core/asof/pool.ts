// Pure (no `vscode`): work over many files, a few at a time. History Search's scan engine
// (src/core/search/scan.ts) is a pipeline of its own shape (it lists the scope, fetches one file
// ahead of the one it processes, emits results with back-pressure); a site as it was needs a plain
// pool whose steps are mostly answered from memory, so it gives the thread a turn between them:
// - at most `concurrency` items are worked on at once (the request scheduler below bounds the
//   requests to the service; this bounds what is held in memory);
// - cancellation: no item starts after the abort, and the pool settles at once (it does not wait
//   for the work in flight, whose requests the same signal aborts); a sink that writes waits for its
//   own writes before it cleans up (the export's abort(), ./export.ts);
// - an error that concerns one file (the service refused it, its reply was unusable) is counted
//   and the pool goes on; any other (signed out, the service cannot be reached, a disk full) stops
//   it: the work in flight is aborted and the pool rejects with that error.
import { isFileError } from '../search/scan';

export interface PoolSummary {
  done: number;
  failures: { path: string; error: unknown }[];
  cancelled: boolean;
}

/** How long the work may go on before it lets the thread do something else (ms). */
export const SLICE_MS = 8;

/**
 * Awaited between steps: lets the event loop turn (setImmediate) once `SLICE_MS` have passed since
 * it last did. Reads answered from memory resolve at once, and thousands of them in a row would
 * otherwise hold the thread (promise callbacks run before any other event). One for the whole
 * process, so that every run under way (both sides of a compare, their pools) stops at the same
 * turn: a slicer each would let each run its own slice before the loop gets to its timers and I/O.
 */
export const breathe: () => Promise<void> | undefined = (() => {
  let since = performance.now();
  let turn: Promise<void> | undefined;
  return () => {
    if (turn || performance.now() - since < SLICE_MS) return turn;
    return (turn = new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        turn = undefined;
        resolve();
      }),
    ));
  };
})();

/** Runs `work` over `paths`; after each (with or without success) `progress` counts it and `report` says so. See the header. */
export async function runPool(
  paths: readonly string[],
  o: { concurrency: number; signal?: AbortSignal | undefined; progress: { done: number; failed: number }; report: () => void },
  work: (path: string, signal: AbortSignal) => Promise<void>,
): Promise<PoolSummary> {
  const ac = new AbortController();
  const failures: PoolSummary['failures'] = [];
  let done = 0;
  let next = 0;
  let fatal: { error: unknown } | undefined;
  let halt!: () => void;
  const halted = new Promise<void>((resolve) => (halt = resolve));
  const stop = () => {
    ac.abort();
    halt();
  };
  if (o.signal?.aborted) return { done, failures, cancelled: true };
  o.signal?.addEventListener('abort', stop, { once: true });
  const worker = async () => {
    while (!ac.signal.aborted && next < paths.length) {
      await breathe();
      if (ac.signal.aborted || next >= paths.length) return;
      const path = paths[next++]!;
      try {
        await work(path, ac.signal);
      } catch (e) {
        if (ac.signal.aborted) return;
        if (!isFileError(e)) {
          fatal ??= { error: e };
          stop();
          return;
        }
        failures.push({ path, error: e });
      }
      if (ac.signal.aborted) return;
      o.progress.done = ++done;
      o.progress.failed = failures.length;
      o.report();
    }
  };
  try {
    const all = Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, paths.length)) }, worker));
    all.catch(() => undefined);
    await Promise.race([all, halted]);
    if (fatal) throw fatal.error;
    return { done, failures, cancelled: ac.signal.aborted };
  } finally {
    o.signal?.removeEventListener('abort', stop);
    ac.abort();
  }
}

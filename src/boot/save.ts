// When the bundle writes V8's code cache (./codeCache.ts): imports nothing, so that
// src/extension.ts can use it without loading what the loader needs.
import type { CodeCacheReport } from './codeCache';

/**
 * Saves the cache `delayMs` after `settled` (activation's asynchronous part) has ended, so that the
 * functions of activation and of the first work after it are in it; `onSaved` hears the outcome.
 * Disposing it before then cancels the save.
 */
export function saveWhenSettled(report: CodeCacheReport, settled: Promise<unknown>, delayMs: number, onSaved: (r: Awaited<ReturnType<CodeCacheReport['save']>>) => void): { dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  if (report.state !== 'used' && report.state !== 'off') {
    // save() never rejects; a throwing onSaved must not become an unhandled rejection.
    const save = () => report.save().then(onSaved).catch(() => undefined);
    const start = () => {
      if (disposed) return;
      timer = setTimeout(save, delayMs);
      timer.unref?.();
    };
    settled.then(start, start);
  }
  return {
    dispose: () => {
      disposed = true;
      if (timer) clearTimeout(timer);
    },
  };
}

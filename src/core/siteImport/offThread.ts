// A site file parsed on a thread of its own (./siteImportWorker.ts): reading FileZilla's XML of a
// few thousand sites takes a noticeable moment, and an import file is input from anywhere, so
// none of it runs on the extension host's thread. The thread is stopped by the caller's signal
// (Cancel) and after `timeoutMs`; it ends by itself once it has answered.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { english, type Translate } from '../util/l10n';
import type { ImportJob, ImportReply } from './siteImportWorker';
import { ImportFileError, type ImportResult } from './types';

/** The thread's script: next to this module (dist/ in the extension, out/… in plain Node). */
export function siteImportWorkerFile(): string {
  return path.join(__dirname, 'siteImportWorker.js');
}

/** The caller stopped the read (Cancel). */
export class ImportCancelledError extends Error {
  override readonly name = 'ImportCancelledError';
}

export interface OffThreadOptions {
  signal?: AbortSignal;
  /** The thread is stopped after this long (default 60 s). */
  timeoutMs?: number;
  /** The display language's translations (vscode.l10n.bundle). */
  bundle?: Record<string, string>;
  t?: Translate;
  /** The thread's script (default siteImportWorkerFile(); the benchmark passes the packaged one). */
  workerFile?: string;
}

/** Parses a file's bytes on a thread of its own: the result, or the ImportFileError it met. */
export function parseOffThread(bytes: Uint8Array, file: string, o: OffThreadOptions = {}): Promise<ImportResult> {
  const t = o.t ?? english;
  return new Promise((resolve, reject) => {
    if (o.signal?.aborted) return reject(new ImportCancelledError(t('Cancelled.')));
    const job: ImportJob = { bytes, file, ...(o.bundle ? { bundle: o.bundle } : {}) };
    const worker = new Worker(o.workerFile ?? siteImportWorkerFile(), { workerData: job });
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      worker.terminate().catch(() => undefined);
      f();
    };
    const onAbort = () => finish(() => reject(new ImportCancelledError(t('Cancelled.'))));
    const timer = setTimeout(() => finish(() => reject(new ImportFileError('malformed', t('Reading the file took more than {0} s: it is not read.', Math.round((o.timeoutMs ?? 60_000) / 1000))))), o.timeoutMs ?? 60_000);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: ImportReply) =>
      finish(() => {
        if (m.ok) resolve(m.result);
        else if (m.kind === 'other') reject(new Error(m.message));
        else reject(new ImportFileError(m.kind, m.message));
      }),
    );
    worker.once('error', (e) => finish(() => reject(e)));
    worker.once('exit', (code) => finish(() => reject(new Error(`The import's thread stopped (exit code ${code}) before it answered.`))));
  });
}

// Pure (no `vscode`): the import's thread — the entry of a worker thread (dist/siteImportWorker.js
// in the extension, esbuild.mjs; out/src/core/siteImport/siteImportWorker.js in plain Node) that
// decodes and parses one site file, so that a large or hostile file never holds the extension
// host's thread. One file per thread: the host starts it with the file's bytes and its name,
// and the translations of the display language (`bundle`, vscode.l10n.bundle), and gets back
//   { ok: true, result }  or  { ok: false, kind, message }  (kind: an ImportFileError's, or 'other').
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { formatMessage, type Translate } from '../util/l10n';
import { parseSiteText } from './parse';
import { decodeImportText } from './text';
import { ImportFileError, type ImportErrorKind, type ImportResult } from './types';

export interface ImportJob {
  bytes: Uint8Array;
  file: string;
  /** Message → translation (the host's vscode.l10n.bundle); English when absent. */
  bundle?: Record<string, string>;
}

export type ImportReply = { ok: true; result: ImportResult } | { ok: false; kind: ImportErrorKind | 'other'; message: string };

/** Parses one job (exported for the host's fallback and for tests). */
export function runImportJob(job: ImportJob): ImportReply {
  const t: Translate = (message, ...args) => formatMessage(job.bundle?.[message] ?? message, args);
  try {
    return { ok: true, result: parseSiteText(decodeImportText(job.bytes, t), job.file, t) };
  } catch (e) {
    if (e instanceof ImportFileError) return { ok: false, kind: e.kind, message: e.message };
    return { ok: false, kind: 'other', message: e instanceof Error ? e.message : String(e) };
  }
}

if (!isMainThread && parentPort) parentPort.postMessage(runImportJob(workerData as ImportJob));

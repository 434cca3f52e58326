// Pure (no `vscode`): the search thread — the entry of a worker thread (dist/searchWorker.js in
// the extension, esbuild.mjs; out/src/search/searchWorker.js in plain Node) that runs History
// Search's matching, so that no regular expression runs on the extension host's thread. The
// host's side is offThread.ts (which says why and how it is cut); the protocol:
//
//   → { type: 'add', job, revisions }   a part of one file's revisions (several parts, so that
//                                        no one message holds up the host's thread long)
//   → { type: 'run', job, siteId, path, query, mode }
//                                        search the parts of `job` (searchRevisions, history.ts)
//   ← { type: 'ready' }                 once, when this script has loaded (the budgets start then)
//   ← { type: 'result', job, result }   or { type: 'error', job, name, message }
//
// While a content is searched, `progress` (an Int32Array on memory shared with the host) holds
// [job, index of that revision in the job's list], so that when the host stops this thread it
// can say which revision the expression took too long on.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { searchRevisions, type RevisionText, type SearchMode } from './history';
import { compileQuery, type Matcher, type SearchQuery } from './query';

export type ToWorker =
  | { type: 'add'; job: number; revisions: RevisionText[] }
  | { type: 'run'; job: number; siteId: string; path: string; query: SearchQuery; mode: SearchMode };

export type FromWorker = { type: 'ready' } | { type: 'result'; job: number; result: ReturnType<typeof searchRevisions> } | { type: 'error'; job: number; name: string; message: string };

export interface WorkerData {
  /** Two Int32 on a SharedArrayBuffer: the job being searched and the index of its revision (-1: none yet). */
  progress: SharedArrayBuffer;
}

/** Answers the host's messages (exported for a test that drives it without a thread). */
export function serve(post: (m: FromWorker) => void, progress: Int32Array): (m: ToWorker) => void {
  const parts = new Map<number, RevisionText[]>();
  let compiled: { key: string; matcher: Matcher } | undefined;
  return (m) => {
    if (m.type === 'add') {
      let list = parts.get(m.job);
      if (!list) parts.set(m.job, (list = []));
      for (const r of m.revisions) list.push(r);
      return;
    }
    const list = parts.get(m.job) ?? [];
    parts.delete(m.job);
    Atomics.store(progress, 0, m.job);
    Atomics.store(progress, 1, -1);
    try {
      const key = JSON.stringify(m.query);
      if (compiled?.key !== key) compiled = { key, matcher: compileQuery(m.query) };
      const indexOf = new Map<RevisionText, number>();
      list.forEach((r, i) => indexOf.set(r, i));
      const result = searchRevisions(m.siteId, m.path, list, compiled.matcher, m.mode, (r) => Atomics.store(progress, 1, indexOf.get(r) ?? -1));
      post({ type: 'result', job: m.job, result });
    } catch (e) {
      post({ type: 'error', job: m.job, name: e instanceof Error ? e.name : 'Error', message: e instanceof Error ? e.message : String(e) });
    }
  };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const data = workerData as WorkerData;
  port.on('message', serve((m) => port.postMessage(m), new Int32Array(data.progress)));
  port.postMessage({ type: 'ready' } satisfies FromWorker);
}

// One sample of the History Search figures, in a fresh Node process (plain Node, no vscode):
//
//   node out/bench/searchChild.js file [--regex-first]
//     one file of 50 revisions × 200 KB, its reply already parsed (what the store hands over):
//     the first search of the process ("changes" mode, on the search thread as the extension
//     runs it) with a text query and with a regular expression, then warm repeats; the same from
//     the reply's JSON text; and the same search on this thread, as before the search thread.
//
//   node out/bench/searchChild.js hostile N
//     the hostile expression N (0–2) through the engine: time to its end or cut, and the
//     event loop's delay meanwhile.
//
//   node out/bench/searchChild.js scan URL [--concurrency 6]
//     a whole-site History Search of the service's search-scale site (2,000 files × 20
//     revisions × 10 KB, test/server/searchScale.ts) through the engine and the plain client:
//     wall time, requests, the heap sampled with process.memoryUsage() every 5 ms, and the event
//     loop's delay (perf_hooks.monitorEventLoopDelay) over the whole scan.
//
//   node out/bench/searchChild.js cancel URL [--concurrency 6]
//     the same scan cancelled once 100 files are done, at a moment when every request the
//     engine has started is at the service; then the requests that arrived at the service after
//     the abort (its request log, `arrivedAt`), and how long the scan took to settle.
//
// Prints one JSON line on stdout.
import { performance } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import { SiteRevisionClient } from '../src/core/api';
import { noRedaction, parseEnvelope, toRevisions } from '../src/core/api/validate';
import { clientSource, compileQuery, OffThreadSearch, searchHistory, searchRevisions, SearchTimeoutError, type HistorySource, type RevisionText, type SearchQuery } from '../src/core/search';
import { HOSTILE, revisionsWith } from '../test/unit/helpers/hostile';
import { sampleLoopDelay, type LoopDelay } from './lib';
import { DEMO } from '../test/server/demo';
import { SEARCH_SCALE_FILES, SEARCH_SCALE_MARKED, SEARCH_SCALE_SITE_ID } from '../test/server/searchScale';

const WARM_RUNS = 5;
export const FILE_REVISIONS = 50;
export const FILE_BYTES = 200 * 1024;
export const TEXT_QUERY: SearchQuery = { pattern: 'TODO-SEARCH-MARKER' };
export const REGEX_QUERY: SearchQuery = { pattern: 'function\\s+\\w+Handler\\(|TODO-\\w+-MARKER', isRegExp: true };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * 50 revisions of a 200 KB source file, each changing a few lines of the one before; the marker
 * is added in revision 10, again in 20, and both are removed in 35. Oldest first, one hour apart.
 */
export function fileHistory(): RevisionText[] {
  const words = ['request', 'reply', 'cache', 'store', 'site', 'file', 'revision', 'header', 'footer', 'style', 'script', 'image'];
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < FILE_BYTES; n++) {
    const w = (k: number) => words[(n * 7 + k * 5) % words.length]!;
    const line =
      n % 40 === 0
        ? `function ${w(0)}${w(1)[0]!.toUpperCase()}${w(1).slice(1)}Handler(${w(2)}, ${w(3)}) {`
        : n % 40 === 39
          ? '}'
          : `  const ${w(0)}${n} = ${w(1)}.${w(2)}(${w(3)}, ${n}); // ${w(4)} ${w(5)} ${w(6)}`;
    lines.push(line);
    size += line.length + 1;
  }
  const out: RevisionText[] = [];
  for (let r = 1; r <= FILE_REVISIONS; r++) {
    for (let k = 0; k < 5; k++) {
      const i = (r * 131 + k * 977) % lines.length;
      if (lines[i] !== '}' && !lines[i]!.startsWith('function') && !lines[i]!.includes('MARKER')) lines[i] = `  const edited${r}_${k} = ${i}; // revision ${r}`;
    }
    if (r === 10) lines.splice(100, 0, '  // TODO-SEARCH-MARKER: check the time-out');
    if (r === 20) lines.splice(2000, 0, '  // TODO-SEARCH-MARKER: and the retries');
    if (r === 35) for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.includes('TODO-SEARCH-MARKER')) lines.splice(i, 1);
    const date = new Date(Date.UTC(2026, 0, 1) + r * 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    out.push({ id: String(1000 + r), date, author: 'demo@example.com', content: lines.join('\n') + '\n' });
  }
  return out;
}

function time<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/**
 * The search as the extension runs it: on the search thread (src/core/search/offThread.ts). The first
 * query of the process starts the thread (the first search's figure includes it); the second
 * finds it waiting. `inProcessMs`: the same search on this thread, as before the search thread
 * (the first of the process too, so it pays for compiling the matcher's code).
 */
async function fileSample(regexFirst: boolean) {
  const revisions = fileHistory();
  // The service's reply (newest first, as a store might keep it) and its JSON text.
  const body = JSON.stringify({ success: true, revisions: [...revisions].reverse() });
  const bytes = revisions.reduce((n, r) => n + Buffer.byteLength(r.content as string), 0);
  const run = async (q: SearchQuery, list: () => readonly RevisionText[]) => {
    const off = new OffThreadSearch(q, 'changes');
    try {
      return await off.search('1', 'src/app.ts', list());
    } finally {
      off.close();
    }
  };
  const order: ['text' | 'regex', SearchQuery][] = regexFirst ? [['regex', REGEX_QUERY], ['text', TEXT_QUERY]] : [['text', TEXT_QUERY], ['regex', REGEX_QUERY]];
  const out: Record<string, { coldMs: number; warmMedianMs: number; fromBodyMs: number; inProcessMs: number; loop: LoopDelay; hits: string[] }> = {};
  for (const [name, q] of order) {
    const loop = sampleLoopDelay();
    const cold = await timeAsync(() => run(q, () => revisions));
    const coldLoop = loop.stop();
    const warm: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) warm.push((await timeAsync(() => run(q, () => revisions))).ms);
    const fromBody = await timeAsync(() => run(q, () => toRevisions('Get Revisions', parseEnvelope('Get Revisions', body, 'application/json', noRedaction), noRedaction)));
    const inProcess = time(() => searchRevisions('1', 'src/app.ts', revisions, compileQuery(q), 'changes'));
    const hits = cold.value.hits.map((h) => `${h.id}:${h.count}+${h.added}-${h.removed}`);
    if (hits.join() !== inProcess.value.hits.map((h) => `${h.id}:${h.count}+${h.added}-${h.removed}`).join()) throw new Error(`${name}: the search thread found other revisions than the in-process search`);
    out[name] = { coldMs: cold.ms, warmMedianMs: median(warm), fromBodyMs: fromBody.ms, inProcessMs: inProcess.ms, loop: coldLoop, hits };
  }
  return { revisions: revisions.length, bytes, replyBytes: Buffer.byteLength(body), text: out.text!, regex: out.regex! };
}

/**
 * One of the hostile expressions (test/unit/helpers/hostile.ts) searched in a file whose
 * newest revision holds its line, as History Search and the language-model tool run it (the
 * engine, the default budget): the time from the call to its end (a SearchTimeoutError), and the
 * event loop's delay meanwhile. The first search of the process (it starts the search thread).
 */
async function hostileSample(index: number) {
  const h = HOSTILE[index];
  if (!h) throw new Error(`no hostile expression ${index}`);
  const list = revisionsWith(h.line);
  const source: HistorySource = {
    listFiles: () => Promise.resolve(['css/site.css']),
    listRevisions: () => Promise.resolve(list),
    revisionContents: () => Promise.resolve(list),
  };
  const loop = sampleLoopDelay();
  const t0 = performance.now();
  let outcome: string;
  let message = '';
  try {
    const s = await searchHistory({ scope: { siteId: '1', file: 'css/site.css' }, source, query: { pattern: h.pattern, isRegExp: true } });
    outcome = `ended: ${s.hits} revisions`;
  } catch (e) {
    outcome = e instanceof SearchTimeoutError ? 'cut' : `failed: ${String(e)}`;
    message = e instanceof Error ? e.message : String(e);
  }
  const endMs = performance.now() - t0;
  return { name: h.name, pattern: h.pattern, endMs, outcome, message, loop: loop.stop() };
}

async function control(url: string, name: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/__control/${name}`, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return (await res.json()) as Record<string, unknown>;
}

interface Stats {
  requests: { arrivedAt: number; operation?: string; status: number }[];
  inFlight: number;
  maxInFlight: number;
}

/** Counts the source calls that are running (started and not settled). */
function counted(inner: HistorySource): { source: HistorySource; running: () => number; started: () => number } {
  let running = 0;
  let started = 0;
  const wrap =
    <A extends unknown[], T>(fn: (...a: A) => Promise<T>) =>
    (...a: A): Promise<T> => {
      started++;
      running++;
      return fn(...a).finally(() => running--);
    };
  return {
    source: { listFiles: wrap(inner.listFiles.bind(inner)), listRevisions: wrap(inner.listRevisions.bind(inner)), revisionContents: wrap(inner.revisionContents.bind(inner)) },
    running: () => running,
    started: () => started,
  };
}

async function scanSample(url: string, concurrency: number, cancelAfter?: number) {
  const client = new SiteRevisionClient({ baseUrl: url, credentials: () => DEMO.user, timeoutMs: 60_000, retries: 0 });
  const c = counted(clientSource(client));
  await control(url, 'reset-stats');
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  let peakExternal = v8.getHeapStatistics().external_memory;
  // The heap every 5 ms from V8's statistics (what process.memoryUsage() reads too, without its
  // RSS read from /proc, which cost ~0.2 ms a sample on the scan's critical path); RSS every 50 ms.
  let ticks = 0;
  const sampler = setInterval(() => {
    const h = v8.getHeapStatistics();
    peakHeap = Math.max(peakHeap, h.used_heap_size);
    peakExternal = Math.max(peakExternal, h.external_memory);
    if (ticks++ % 10 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 5);
  const ac = new AbortController();
  let abortedAt = 0;
  let startedAtAbort = 0;
  let hitFiles = 0;
  let contentBytes = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  // The event loop from the file list on (the first request also loads undici, which the
  // extension has loaded long before a scan).
  let loop: ReturnType<typeof sampleLoopDelay> | undefined;
  const summary = await searchHistory({
    scope: { siteId: String(SEARCH_SCALE_SITE_ID) },
    source: {
      ...c.source,
      revisionContents: async (site, path, o) => {
        const list = await c.source.revisionContents(site, path, o);
        for (const r of list) contentBytes += typeof r.content === 'string' ? r.content.length : 0;
        return list;
      },
    },
    concurrency,
    signal: ac.signal,
    query: { pattern: SEARCH_SCALE_MARKED.text, matchCase: true },
    onResult: () => void hitFiles++,
    onProgress: async (p) => {
      if (p.phase === 'scanning') loop ??= sampleLoopDelay();
      if (cancelAfter === undefined || abortedAt || p.done < cancelAfter) return;
      abortedAt = -1; // once
      // Abort when every request the engine has started has arrived at the service, so that a
      // request seen there after the abort can only have been started after it.
      for (;;) {
        const before = c.started();
        const s = (await control(url, 'stats')) as unknown as Stats;
        if (ac.signal.aborted) return;
        // Nothing started during the round trip, and everything running is at the service.
        if (c.started() === before && s.inFlight === c.running() && c.running() > 0) break;
        await new Promise((r) => setTimeout(r, 1));
      }
      abortedAt = performance.timeOrigin + performance.now();
      startedAtAbort = c.started();
      ac.abort();
    },
  });
  const wallMs = performance.now() - t0;
  const loopDelay = loop?.stop();
  const cpu = process.cpuUsage(cpu0);
  const settledMs = abortedAt > 0 ? performance.timeOrigin + performance.now() - abortedAt : undefined;
  clearInterval(sampler);
  // Wait for the service and the engine to be idle, then read the service's log.
  for (;;) {
    const s = (await control(url, 'stats')) as unknown as Stats;
    if (s.inFlight === 0 && c.running() === 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const stats = (await control(url, 'stats')) as unknown as Stats;
  await client.dispose();
  return {
    files: SEARCH_SCALE_FILES,
    concurrency,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    requests: stats.requests.length,
    maxInFlight: stats.maxInFlight,
    hitFiles,
    hits: summary.hits,
    done: summary.done,
    cancelled: summary.cancelled,
    contentMB: contentBytes / 1024 / 1024,
    baseHeapMB: base.heapUsed / 1024 / 1024,
    peakHeapMB: peakHeap / 1024 / 1024,
    peakRssMB: peakRss / 1024 / 1024,
    peakExternalMB: peakExternal / 1024 / 1024,
    afterAbort: abortedAt > 0 ? stats.requests.filter((r) => r.arrivedAt > abortedAt).length : undefined,
    sourceCallsAfterAbort: abortedAt > 0 ? c.started() - startedAtAbort : undefined,
    settledMs,
    loop: loopDelay,
  };
}

async function main(): Promise<void> {
  const [mode, url] = process.argv.slice(2);
  const flag = (name: string, dflt: number) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  let out: unknown;
  if (mode === 'file') out = await fileSample(process.argv.includes('--regex-first'));
  else if (mode === 'hostile') out = await hostileSample(Number(url));
  else if (mode === 'scan' && url) out = await scanSample(url, flag('--concurrency', 6));
  else if (mode === 'cancel' && url) out = await scanSample(url, flag('--concurrency', 6), 100);
  else throw new Error('usage: searchChild.js file [--regex-first] | hostile N | scan URL | cancel URL [--concurrency N]');
  process.stdout.write(JSON.stringify(out) + '\n');
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`searchChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

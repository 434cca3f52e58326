// The History Search figures of `npm run bench` (src/core/search), measured by bench/searchChild.ts in
// fresh Node processes:
//  - one file of 50 revisions × 200 KB: the first "changes" search of a process from the parsed
//    reply, a text and a regular-expression query (alternating which goes first);
//  - a whole-site scan of the local service's search-scale site (2,000 files × 20 revisions ×
//    10 KB, `--search-scale`, in its own process with `--latency 20`) through the engine with
//    concurrency 6: wall time against the ideal schedule (requests ÷ concurrency × latency),
//    requests at once at the service, and the peak heap (process.memoryUsage() every 5 ms);
//  - the same scan cancelled after 100 files: requests that arrived at the service after the
//    abort (its request log), and how soon the scan settled;
//  - the same scan with no latency: the floor the two processes' work sets on this machine
//    (the CPU time of the scanning process and of the service, per file, is reported too);
//  - the event loop's delay (perf_hooks.monitorEventLoopDelay, 1 ms) during the first file
//    search, during each scan from its file list on, and during each of the hostile
//    expressions (test/unit/helpers/hostile.ts) with the time until its search is cut.
// The file searches run on the search thread as the extension runs them (src/core/search/offThread.ts),
// with the same search on the calling thread beside them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cleanup, startService as startServiceProcess } from '../test/host/common';
import { HOSTILE } from '../test/unit/helpers/hostile';
import { lastJson, log, LOOP_TARGETS, loopOk, loopSamples, loopText, median, medianLoop, ownLoop, round, runNode, type LoopDelay } from './lib';
import type { Row } from './report';

export const SEARCH_TARGETS = { fileSearchMs: 100, scanRatio: 1.25, scanHeapMB: 150, requestsAfterCancel: 0 };
const LATENCY_MS = 20;
const CONCURRENCY = 6;

interface FileSample {
  revisions: number;
  bytes: number;
  replyBytes: number;
  text: FileKind;
  regex: FileKind;
}

interface FileKind {
  coldMs: number;
  warmMedianMs: number;
  fromBodyMs: number;
  /** The same search on the calling thread, as before the search thread. */
  inProcessMs: number;
  /** The event loop during the first search. */
  loop: LoopDelay;
  hits: string[];
}

interface HostileSample {
  name: string;
  pattern: string;
  endMs: number;
  outcome: string;
  message: string;
  loop: LoopDelay;
}

interface ScanSample {
  files: number;
  concurrency: number;
  wallMs: number;
  /** CPU time of the scanning process. */
  cpuMs: number;
  /** CPU time of the service process during the scan (Linux /proc; undefined elsewhere). */
  serviceCpuMs?: number;
  requests: number;
  maxInFlight: number;
  hits: number;
  done: number;
  cancelled: boolean;
  contentMB: number;
  peakHeapMB: number;
  peakRssMB: number;
  afterAbort?: number;
  sourceCallsAfterAbort?: number;
  settledMs?: number;
  loop?: LoopDelay;
}

export interface SearchFigures {
  file: FileSample[];
  /** Per hostile expression (test/unit/helpers/hostile.ts), its samples. */
  hostile: HostileSample[][];
  scan: (ScanSample & { idealMs: number; ratio: number })[];
  cancel: ScanSample[];
  /** The same scan with 0 ms of latency. */
  floor: ScanSample[];
  loadAverage: number[];
}

/** CPU time (ms) a process has used so far, from /proc/PID/stat (utime + stime at 100 ticks per second); undefined where there is no /proc. */
function processCpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function configure(url: string, config: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url}/__control/config`, { method: 'POST', body: JSON.stringify(config), headers: { 'content-type': 'application/json' } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`service config: HTTP ${res.status}`);
}

export async function searchBench(o: { quick: boolean; tmp: string; cleanup: Cleanup }): Promise<SearchFigures> {
  const child = path.join(__dirname, 'searchChild.js');
  const file: FileSample[] = [];
  for (let i = 0; i < (o.quick ? 2 : 6); i++) {
    const r = await runNode([child, 'file', ...(i % 2 ? ['--regex-first'] : [])], { label: 'search file', timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`search file sample ${i + 1} failed (exit ${r.code ?? r.signal})`);
    file.push(lastJson<FileSample>(r.stdout));
  }
  const hostile: HostileSample[][] = [];
  for (let k = 0; k < HOSTILE.length; k++) {
    const list: HostileSample[] = [];
    for (let i = 0; i < (o.quick ? 1 : 3); i++) {
      const r = await runNode([child, 'hostile', String(k)], { label: 'search hostile', timeoutMs: 120_000 });
      if (r.code !== 0) throw new Error(`hostile expression ${k} sample ${i + 1} failed (exit ${r.code ?? r.signal})`);
      list.push(lastJson<HostileSample>(r.stdout));
    }
    hostile.push(list);
  }
  const service = await startServiceProcess({ dataFile: path.join(o.tmp, 'search-service', 'service.json'), args: ['--quiet', '--search-scale', '--latency', String(LATENCY_MS)], cleanup: o.cleanup });
  const loadAverage = os.loadavg();
  const scanOnce = async (mode: 'scan' | 'cancel', label: string): Promise<ScanSample> => {
    const cpu0 = processCpuMs(service.pid);
    const r = await runNode(['--expose-gc', child, mode, service.url, '--concurrency', String(CONCURRENCY)], { label, timeoutMs: 300_000 });
    if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code ?? r.signal})`);
    const cpu1 = processCpuMs(service.pid);
    return { ...lastJson<ScanSample>(r.stdout), serviceCpuMs: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined };
  };
  try {
    const scan: SearchFigures['scan'] = [];
    const cancel: ScanSample[] = [];
    for (let i = 0; i < (o.quick ? 1 : 3); i++) {
      const s = await scanOnce('scan', `search scan ${i + 1}`);
      const idealMs = (s.requests / CONCURRENCY) * LATENCY_MS;
      scan.push({ ...s, idealMs, ratio: s.wallMs / idealMs });
      log(`search scan ${i + 1}: ${(s.wallMs / 1000).toFixed(1)} s (${(s.wallMs / idealMs).toFixed(2)} × ideal), peak heap ${s.peakHeapMB.toFixed(0)} MB`);
      cancel.push(await scanOnce('cancel', `search cancel ${i + 1}`));
    }
    await configure(service.url, { latencyMs: 0 });
    const floor = [await scanOnce('scan', 'search scan without latency')];
    return { file, hostile, scan, cancel, floor, loadAverage };
  } finally {
    await service.stop();
  }
}

export function searchRows(f: SearchFigures): Row[] {
  const rows: Row[] = [];
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const mb = f.file[0] ? (f.file[0].bytes / 1024 / 1024).toFixed(1) : '?';
  for (const kind of ['text', 'regex'] as const) {
    const cold = median(f.file.map((x) => x[kind].coldMs));
    const consistent = new Set(f.file.map((x) => x[kind].hits.join())).size === 1;
    rows.push({
      group: 'History search',
      id: `search.file.${kind}Ms`,
      name: `one file, 50 revisions × 200 KB (${mb} MB), "changes", ${kind === 'text' ? 'a text query' : 'a regular expression'}: reply → results on the search thread (plain Node, first search: the thread's start included)`,
      measured: `${ms(cold)} (the thread waiting from a search before ${ms(median(f.file.map((x) => x[kind].warmMedianMs)))}; from the reply's JSON text ${ms(median(f.file.map((x) => x[kind].fromBodyMs)))}; on the calling thread, as before, ${ms(median(f.file.map((x) => x[kind].inProcessMs)))}; event loop ${loopText(medianLoop(f.file.map((x) => x[kind].loop)))})${consistent ? '' : '; RESULTS DIFFER between samples'}`,
      value: round(cold, 2),
      unit: 'ms',
      target: `≤ ${SEARCH_TARGETS.fileSearchMs} ms`,
      ok: consistent && cold <= SEARCH_TARGETS.fileSearchMs,
    });
  }
  for (const list of f.hostile) {
    const h = list[0]!;
    const end = median(list.map((x) => x.endMs));
    const loop = medianLoop(list.map((x) => x.loop));
    const outcomes = [...new Set(list.map((x) => x.outcome))];
    const cut = outcomes.length === 1 && (outcomes[0] === 'cut' || outcomes[0]!.startsWith('ended'));
    rows.push({
      group: 'History search',
      id: `search.hostile.${HOSTILE.findIndex((x) => x.pattern === h.pattern)}`,
      name: `hostile expression ${h.name}: search → its end or cut, and the event loop meanwhile (plain Node, first search)`,
      measured: `${ms(end)} (${outcomes.join(', ')}; samples ${list.map((x) => x.endMs.toFixed(0)).join(', ')} ms); event loop ${loopText(loop)}`,
      value: round(end, 1),
      unit: 'ms',
      target: `≤ ${LOOP_TARGETS.hostileEndMs} ms; loop max ≤ ${LOOP_TARGETS.maxMs} ms`,
      ok: cut && end <= LOOP_TARGETS.hostileEndMs && ownLoop(loop).maxMs <= LOOP_TARGETS.maxMs,
    });
  }
  if (f.scan.length && f.scan.every((x) => x.loop)) {
    const loops = f.scan.map((x) => x.loop!);
    const loop = medianLoop(loops);
    rows.push({
      group: 'History search',
      id: 'search.scan.loopMs',
      name: `event loop of the process during the whole-site scan below, from its file list to its end (monitorEventLoopDelay, 1 ms; median of ${loops.length} scans)`,
      measured: `${loopText(loop)} (${loopSamples(loops)})`,
      value: round(ownLoop(loop).maxMs, 1),
      unit: 'ms',
      target: `max ≤ ${LOOP_TARGETS.maxMs} ms, p99 ≤ ${LOOP_TARGETS.p99Ms} ms`,
      ok: loopOk(loop),
    });
  }
  if (f.scan.length) {
    const ratio = median(f.scan.map((x) => x.ratio));
    const s = f.scan[0]!;
    const maxAtOnce = Math.max(...f.scan.map((x) => x.maxInFlight));
    rows.push({
      group: 'History search',
      id: 'search.scan.ratio',
      name: `whole-site scan, ${s.files.toLocaleString('en')} files × 20 revisions × 10 KB, concurrency ${s.concurrency}, ${LATENCY_MS} ms service latency: wall time ÷ ideal (requests ÷ concurrency × latency)`,
      measured: `${ratio.toFixed(2)} (${(median(f.scan.map((x) => x.wallMs)) / 1000).toFixed(2)} s ÷ ${(s.idealMs / 1000).toFixed(2)} s; samples ${f.scan.map((x) => x.ratio.toFixed(2)).join(', ')}; ${s.requests} requests, at most ${maxAtOnce} at once at the service)`,
      value: round(ratio, 3),
      unit: 'ratio',
      target: `≤ ${SEARCH_TARGETS.scanRatio}`,
      ok: ratio <= SEARCH_TARGETS.scanRatio && maxAtOnce <= s.concurrency && f.scan.every((x) => x.done === x.files && !x.cancelled),
    });
    const heap = Math.max(...f.scan.map((x) => x.peakHeapMB));
    rows.push({
      group: 'History search',
      id: 'search.scan.peakHeapMB',
      name: `peak heap of that scan while ${s.contentMB.toFixed(0)} MB of revision content pass through (highest sample)`,
      measured: `${heap.toFixed(1)} MB (peak RSS ${Math.max(...f.scan.map((x) => x.peakRssMB)).toFixed(0)} MB)`,
      value: round(heap, 1),
      unit: 'MB',
      target: `≤ ${SEARCH_TARGETS.scanHeapMB} MB`,
      ok: heap <= SEARCH_TARGETS.scanHeapMB,
    });
  }
  if (f.floor.length && f.scan.length) {
    const fl = f.floor[0]!;
    const perFile = (x: ScanSample, v: number | undefined) => (v === undefined ? 'n/a' : `${(v / x.requests).toFixed(2)} ms`);
    rows.push({
      group: 'History search',
      id: 'search.scan.floorMs',
      name: 'the same scan with 0 ms latency: the floor set by the work of the two processes on this machine; CPU per request',
      measured: `${(fl.wallMs / 1000).toFixed(2)} s; CPU per request: scanning process ${perFile(fl, fl.cpuMs)}, service ${perFile(fl, fl.serviceCpuMs)} (with 20 ms latency: ${perFile(f.scan[0]!, median(f.scan.map((x) => x.cpuMs)))} and ${perFile(f.scan[0]!, f.scan[0]!.serviceCpuMs)}); load average ${f.loadAverage.map((l) => l.toFixed(1)).join(' ')} on ${os.availableParallelism()} cores`,
      value: round(fl.wallMs, 0),
      unit: 'ms',
      target: '',
      ok: null,
    });
  }
  if (f.cancel.length) {
    const after = f.cancel.map((x) => (x.afterAbort ?? NaN) + (x.sourceCallsAfterAbort ?? 0));
    const worst = Math.max(...after);
    rows.push({
      group: 'History search',
      id: 'search.cancel.requestsAfter',
      name: 'cancel that scan after 100 files: requests that arrived at the service after the abort',
      measured: `${after.join(', ')} (settled ${median(f.cancel.map((x) => x.settledMs ?? NaN)).toFixed(1)} ms after the abort, not waiting for the ${CONCURRENCY} requests in flight)`,
      value: Number.isNaN(worst) ? null : worst,
      unit: 'requests',
      target: `${SEARCH_TARGETS.requestsAfterCancel}`,
      ok: !Number.isNaN(worst) && worst === SEARCH_TARGETS.requestsAfterCancel && f.cancel.every((x) => x.cancelled),
    });
  }
  return rows;
}

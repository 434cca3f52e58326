// The figures of a whole site as it was (src/core/asof) in `npm run bench`, measured by
// bench/asOfChild.ts in fresh Node processes against the local service's search-scale site and
// its staging twin (`--search-scale`, in a process of its own with `--latency 20`), read through
// the RevisionStore with the request scheduler at concurrency 6 and a disk store, as the extension:
//  - the site as of a moment, cold: wall time ÷ the ideal schedule (requests ÷ 6 × 20 ms);
//  - the same again: from the memory caches in the window, and from the disk store after a
//    reload; 0 content requests;
//  - an export of it into a new folder, against one fs.cp of that folder (the same bytes);
//  - the site and its twin compared, both cached: time to the tree, 0 content requests;
//  - the heap's peak during any of them, and the event loop (the longest stretch of the
//    process's own work between two turns, and the loop's delay).
import * as os from 'node:os';
import * as path from 'node:path';
import { Cleanup, startService as startServiceProcess } from '../test/host/common';
import { lastJson, log, median, round, runNode } from './lib';
import type { Row } from './report';
import type { Measured } from './asOfChild';

export const AS_OF_TARGETS = { coldRatio: 1.25, cachedMs: 1000, exportRatio: 2, compareMs: 500, heapMB: 150, heldMs: 50 };
const LATENCY_MS = 20;
const CONCURRENCY = 6;

interface ColdSample {
  cold: Measured;
  cached: Measured;
  facts: { files: number; notYet: number; failed: number; cancelled: boolean; tenths: number };
  contentMB: number;
}
interface DiskSample {
  disk: Measured;
  facts: ColdSample['facts'];
}
interface ExportSample {
  fromDisk: Measured;
  fromMemory: Measured;
  zip: Measured;
  cp: Measured;
  files: number;
  exportMB: number;
  zipMB: number;
}
interface CompareSample {
  first?: Measured;
  known: Measured;
  facts: { differ: number; same: number; onlyA: number; onlyB: number; contentReads: number; failed: number };
}

export interface AsOfFigures {
  cold: ColdSample[];
  disk: DiskSample[];
  exports: ExportSample[];
  compare: CompareSample[];
  compareDisk: CompareSample[];
  loadAverage: number[];
}

export async function asOfBench(o: { quick: boolean; tmp: string; cleanup: Cleanup }): Promise<AsOfFigures> {
  const child = path.join(__dirname, 'asOfChild.js');
  const service = await startServiceProcess({ dataFile: path.join(o.tmp, 'asof-service', 'service.json'), args: ['--quiet', '--search-scale', '--latency', String(LATENCY_MS)], cleanup: o.cleanup });
  const loadAverage = os.loadavg();
  const f: AsOfFigures = { cold: [], disk: [], exports: [], compare: [], compareDisk: [], loadAverage };
  const sample = async <T>(args: string[], label: string): Promise<T> => {
    const r = await runNode(['--expose-gc', child, ...args], { label, timeoutMs: 600_000 });
    if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code ?? r.signal})`);
    return lastJson<T>(r.stdout);
  };
  try {
    for (let i = 0; i < (o.quick ? 1 : 3); i++) {
      const disk = path.join(o.tmp, `asof-disk-${i}`);
      const s = await sample<ColdSample>(['cold', service.url, disk], `as of, cold ${i + 1}`);
      f.cold.push(s);
      log(`as of, cold ${i + 1}: ${(s.cold.ms / 1000).toFixed(1)} s (${(s.cold.ms / ideal(s.cold)).toFixed(2)} × ideal); again ${s.cached.ms.toFixed(0)} ms`);
      f.disk.push(await sample<DiskSample>(['disk', service.url, disk], `as of, from disk ${i + 1}`));
      f.exports.push(await sample<ExportSample>(['export', service.url, disk, path.join(o.tmp, `asof-out-${i}`)], `export ${i + 1}`));
      f.compare.push(await sample<CompareSample>(['compare', service.url, disk], `compare ${i + 1}`));
      f.compareDisk.push(await sample<CompareSample>(['compareDisk', service.url, disk], `compare from disk ${i + 1}`));
    }
    return f;
  } finally {
    await service.stop();
  }
}

/** requests ÷ concurrency × latency */
function ideal(m: Measured): number {
  const requests = Object.values(m.requests).reduce((a, b) => a + b, 0);
  return (requests / CONCURRENCY) * LATENCY_MS;
}

const contentRequests = (m: Measured) => m.requests.getRevision ?? 0;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/**
 * The longest stretch of own work of each kind of run (the median over its samples, as every
 * figure here), and the highest of those: one sample's stretch grown by a loaded machine (more
 * replies ready at once after the thread waited for a core) does not decide it.
 */
function heldOf(kinds: Record<string, Measured[]>): { held: number; worst: string; each: string } {
  const per = Object.entries(kinds)
    .filter(([, ms]) => ms.length && ms.every((m) => m.heldMs !== undefined))
    .map(([k, ms]) => [k, median(ms.map((m) => m.heldMs!))] as const);
  if (!per.length) return { held: NaN, worst: '', each: '' };
  const worst = per.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { held: worst[1], worst: worst[0], each: per.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ') };
}

export function asOfRows(f: AsOfFigures): Row[] {
  const rows: Row[] = [];
  const group = 'Site as of a moment';
  if (f.cold.length) {
    const s = f.cold[0]!;
    const ratios = f.cold.map((x) => x.cold.ms / ideal(x.cold));
    const ratio = median(ratios);
    const complete = f.cold.every((x) => x.facts.files === 2000 && x.facts.tenths === 2000 && !x.facts.failed && !x.facts.cancelled);
    rows.push({
      group,
      id: 'asof.cold.ratio',
      name: `the search-scale site (2,000 files × 20 revisions × 10 KB) as of a moment with every content, cold (empty caches, a disk store), concurrency ${CONCURRENCY}, ${LATENCY_MS} ms service latency: wall time ÷ ideal (requests ÷ concurrency × latency)`,
      measured: `${ratio.toFixed(2)} (${secs(median(f.cold.map((x) => x.cold.ms)))} ÷ ${secs(ideal(s.cold))}; samples ${ratios.map((r) => r.toFixed(2)).join(', ')}; ${Object.values(s.cold.requests).reduce((a, b) => a + b, 0)} requests: 1 file list, ${s.cold.requests.getRevisions} revision lists, ${contentRequests(s.cold)} contents, ${s.contentMB.toFixed(0)} MB)${complete ? '' : '; INCOMPLETE'}`,
      value: round(ratio, 3),
      unit: 'ratio',
      target: `≤ ${AS_OF_TARGETS.coldRatio}`,
      ok: complete && ratio <= AS_OF_TARGETS.coldRatio,
    });
    const cached = median(f.cold.map((x) => x.cached.ms));
    const cachedContents = Math.max(...f.cold.map((x) => contentRequests(x.cached)));
    rows.push({
      group,
      id: 'asof.cached.ms',
      name: 'the same again in the same window (the memory caches): wall time, content requests',
      measured: `${cached.toFixed(0)} ms, ${cachedContents} content requests (${Math.max(...f.cold.map((x) => Object.values(x.cached.requests).reduce((a, b) => a + b, 0)))} requests in all)`,
      value: round(cached, 1),
      unit: 'ms',
      target: `≤ ${AS_OF_TARGETS.cachedMs} ms, 0 content requests`,
      ok: cached <= AS_OF_TARGETS.cachedMs && cachedContents === 0,
    });
  }
  if (f.disk.length) {
    const ms = median(f.disk.map((x) => x.disk.ms));
    const contents = Math.max(...f.disk.map((x) => contentRequests(x.disk)));
    rows.push({
      group,
      id: 'asof.disk.ms',
      name: 'the same after a window reload (a fresh process: lists and contents from the disk store, lists refreshed behind): wall time, content requests',
      measured: `${ms.toFixed(0)} ms, ${contents} content requests (${median(f.disk.map((x) => x.disk.requests.getRevisions ?? 0)).toFixed(0)} lists refreshed behind meanwhile)`,
      value: round(ms, 1),
      unit: 'ms',
      target: `≤ ${AS_OF_TARGETS.cachedMs} ms, 0 content requests`,
      ok: ms <= AS_OF_TARGETS.cachedMs && contents === 0 && f.disk.every((x) => x.facts.files === 2000),
    });
  }
  if (f.exports.length) {
    const ratios = f.exports.map((x) => x.fromMemory.ms / x.cp.ms);
    const ratio = median(ratios);
    const e = f.exports[0]!;
    rows.push({
      group,
      id: 'asof.export.ratio',
      name: `export of that site as of the moment into a new folder (${e.files.toLocaleString('en')} files, ${e.exportMB.toFixed(0)} MB; contents from the memory cache) ÷ one fs.cp of the exported folder (the same bytes)`,
      measured: `${ratio.toFixed(2)} (${median(f.exports.map((x) => x.fromMemory.ms)).toFixed(0)} ms ÷ ${median(f.exports.map((x) => x.cp.ms)).toFixed(0)} ms; samples ${ratios.map((r) => r.toFixed(2)).join(', ')}); from the disk store after a reload ${median(f.exports.map((x) => x.fromDisk.ms)).toFixed(0)} ms; into a .zip ${median(f.exports.map((x) => x.zip.ms)).toFixed(0)} ms (${e.zipMB.toFixed(1)} MB)`,
      value: round(ratio, 3),
      unit: 'ratio',
      target: `≤ ${AS_OF_TARGETS.exportRatio}`,
      ok: ratio <= AS_OF_TARGETS.exportRatio && f.exports.every((x) => x.files === 2000 && contentRequests(x.fromMemory) === 0 && contentRequests(x.fromDisk) === 0),
    });
  }
  if (f.compare.length) {
    const ms = median(f.compare.map((x) => x.known.ms));
    const c = f.compare[0]!.facts;
    const reads = Math.max(...f.compare.map((x) => x.facts.contentReads + contentRequests(x.known)));
    const right = f.compare.every((x) => x.facts.differ === 100 && x.facts.same === 1890 && x.facts.onlyA === 10 && x.facts.onlyB === 10 && !x.facts.failed);
    rows.push({
      group,
      id: 'asof.compare.ms',
      name: 'compare the site with its staging twin (2,000 files each, newest revisions), both cached: time to the tree, content requests',
      measured: `${ms.toFixed(0)} ms, ${reads} content reads (${c.differ} differ, ${c.same} the same, ${c.onlyA} + ${c.onlyB} on one side only${right ? '' : '; WRONG COUNTS'}); after a reload (digests from the disk store's index) ${median(f.compareDisk.map((x) => x.known.ms)).toFixed(0)} ms, ${Math.max(...f.compareDisk.map((x) => x.facts.contentReads))} content reads`,
      value: round(ms, 1),
      unit: 'ms',
      target: `≤ ${AS_OF_TARGETS.compareMs} ms, 0 content requests`,
      ok: ms <= AS_OF_TARGETS.compareMs && reads === 0 && right,
    });
  }
  const all = [...f.cold.flatMap((x) => [x.cold, x.cached]), ...f.disk.map((x) => x.disk), ...f.exports.flatMap((x) => [x.fromDisk, x.fromMemory, x.zip]), ...f.compare.flatMap((x) => [...(x.first ? [x.first] : []), x.known]), ...f.compareDisk.map((x) => x.known)];
  if (all.length) {
    const heap = Math.max(...all.map((m) => m.peakHeapMB));
    rows.push({
      group,
      id: 'asof.peakHeapMB',
      name: 'peak heap during any of the above (V8 statistics every 5 ms; highest sample)',
      measured: `${heap.toFixed(1)} MB`,
      value: round(heap, 1),
      unit: 'MB',
      target: `≤ ${AS_OF_TARGETS.heapMB} MB`,
      ok: heap <= AS_OF_TARGETS.heapMB,
    });
    const kinds: Record<string, Measured[]> = {
      cold: f.cold.map((x) => x.cold),
      cached: f.cold.map((x) => x.cached),
      'after a reload': f.disk.map((x) => x.disk),
      'export from disk': f.exports.map((x) => x.fromDisk),
      'export from memory': f.exports.map((x) => x.fromMemory),
      '.zip': f.exports.map((x) => x.zip),
      'compare first': f.compare.flatMap((x) => (x.first ? [x.first] : [])),
      compare: f.compare.map((x) => x.known),
      'compare after a reload': f.compareDisk.map((x) => x.known),
    };
    const { held, worst, each } = heldOf(kinds);
    rows.push({
      group,
      id: 'asof.heldMs',
      name: 'the thread during any of the above: the longest stretch of the process’s own work between two turns of the event loop (CPU time between 1 ms timer ticks, Node ≥ 23.9), and the loop’s delay (monitorEventLoopDelay, 1 ms; it adds the time the thread waited for a core)',
      measured: Number.isNaN(held)
        ? `n/a (no CPU time per thread here); loop delay max ${Math.max(...all.map((m) => m.loopMaxMs)).toFixed(0)} ms`
        : `longest own stretch ${held.toFixed(1)} ms (${worst}; the median of each kind of run: ${each}; the highest single sample ${Math.max(...all.map((m) => m.heldMs ?? 0)).toFixed(1)} ms), loop delay max ${Math.max(...all.map((m) => m.loopMaxMs)).toFixed(0)} ms`,
      value: Number.isNaN(held) ? null : round(held, 1),
      unit: 'ms',
      target: `≤ ${AS_OF_TARGETS.heldMs} ms`,
      ok: Number.isNaN(held) ? null : held <= AS_OF_TARGETS.heldMs,
    });
  }
  return rows;
}

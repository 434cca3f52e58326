// One sample of the figures of a whole site as it was (src/core/asof), in a fresh Node process (plain
// Node, no vscode), against the local service's search-scale site (2,000 files × 20 revisions ×
// 10 KB) and its staging twin, read as the extension reads: the RevisionStore over the client
// with the request scheduler (concurrency 6) and, as by default, the account's disk store:
//
//   node out/bench/asOfChild.js cold URL DISK
//     the site as of a moment (revision 10 of every file), with every content, into an empty disk
//     store: wall time, requests; then the same again in the process (the memory caches)
//   node out/bench/asOfChild.js disk URL DISK
//     the same from the disk store of `cold` (a window reloaded): wall time, content requests
//   node out/bench/asOfChild.js export URL DISK OUT
//     the site as of the moment exported into a new folder (contents from the disk store, then
//     again from memory), and into a .zip; one fs.cp of the exported folder (the same bytes)
//   node out/bench/asOfChild.js compare URL DISK
//     the site and its twin compared by their newest revisions (reading their contents), then
//     again (every digest known: to the tree); `compareDisk` the second in a fresh process
//
// Each figure comes with the heap's peak (V8's statistics every 5 ms) and the event loop's delay
// (perf_hooks.monitorEventLoopDelay, 1 ms) over it. Prints one JSON line on stdout.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import { SiteRevisionClient } from '../src/core/api';
import { compareSites, siteAsOf } from '../src/core/asof';
import { folderWriter, zipWriter } from '../src/core/asof/export';
import { RevisionStore } from '../src/core/model/revisionStore';
import { RequestScheduler } from '../src/core/scheduler';
import { isOffline } from '../src/features/sites/viewState';
import { DiskStore } from '../src/core/store';
import { DEMO } from '../test/server/demo';
import { sampleLoopDelay } from './lib';
import { SEARCH_SCALE_FILES, SEARCH_SCALE_SITE_ID, SEARCH_SCALE_TWIN_ID } from '../test/server/searchScale';

export const CONCURRENCY = 6;
/** Revision 10 of the last file of the search-scale site (revision r of file i is dated (r × 2,000 + i) minutes after its base). */
export const AS_OF_MOMENT = Date.UTC(2025, 5, 1, 8, 0, 0) + (10 * SEARCH_SCALE_FILES + SEARCH_SCALE_FILES - 1) * 60_000;
const SITE = String(SEARCH_SCALE_SITE_ID);
const TWIN = String(SEARCH_SCALE_TWIN_ID);

export interface Measured {
  ms: number;
  peakHeapMB: number;
  loopMaxMs: number;
  loopP99Ms: number;
  /**
   * The most CPU time this thread spent between two ticks of a 1 ms timer (Node ≥ 23.9): the
   * longest stretch of the process's own work. A loop delay much longer than it is time the thread
   * waited for a core on a loaded machine.
   */
  heldMs?: number;
  /** Requests the service received, by operation. */
  requests: Record<string, number>;
}

async function control(url: string, name: string): Promise<{ counts?: Record<string, number>; inFlight?: number }> {
  const res = await fetch(`${url}/__control/${name}`, { method: name === 'stats' ? 'GET' : 'POST' });
  return (await res.json()) as { counts?: Record<string, number> };
}

/** Runs `fn` with the heap and the event loop sampled; the service's requests counted from a reset. */
async function measure<T>(url: string, fn: () => Promise<T>): Promise<{ m: Measured; value: T }> {
  await control(url, 'reset-stats');
  (globalThis as { gc?: () => void }).gc?.();
  let peak = v8.getHeapStatistics().used_heap_size;
  const sampler = setInterval(() => (peak = Math.max(peak, v8.getHeapStatistics().used_heap_size)), 5);
  const loop = sampleLoopDelay();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const l = loop.stop();
  clearInterval(sampler);
  peak = Math.max(peak, v8.getHeapStatistics().used_heap_size);
  // The requests of the work, once the service has answered them all (refreshes behind too).
  for (let s = await control(url, 'stats'); (s.inFlight ?? 0) > 0; s = await control(url, 'stats')) await new Promise((r) => setTimeout(r, 10));
  const counts = (await control(url, 'stats')).counts ?? {};
  return { value, m: { ms, peakHeapMB: peak / 1024 / 1024, loopMaxMs: l.maxMs, loopP99Ms: l.p99Ms, ...(l.heldMs !== undefined ? { heldMs: l.heldMs } : {}), requests: counts } };
}

function open(url: string, dir: string) {
  const scheduler = new RequestScheduler({ concurrency: CONCURRENCY });
  const client = new SiteRevisionClient({ baseUrl: url, credentials: () => DEMO.user, timeoutMs: 60_000, retries: 0, scheduler });
  const disk = new DiskStore(dir, { maxBytes: 1024 * 1024 * 1024 });
  // 64 MB of contents in memory: the default of siteRevisions.revisions.cacheSizeMB.
  const store = new RevisionStore((fn) => fn(client), 64 * 1024 * 1024, undefined, { disk: () => Promise.resolve(disk), isOffline });
  return { store, client, close: async () => (await client.dispose(), await disk.dispose(), scheduler.dispose()) };
}

async function main(): Promise<void> {
  const [mode, url, dir, out] = process.argv.slice(2);
  if (!mode || !url || !dir) throw new Error('usage: asOfChild.js cold|disk|export|compare|compareDisk URL DISK [OUT]');
  const { store, client, close } = open(url, dir);
  // HTTP is loaded and connected before anything is measured (the extension has done it by the time
  // a person asks for a site as it was: the Sites view asked for the sites).
  await client.getSites();
  let bytes = 0;
  const asOf = (take: (path: string, b: Uint8Array, time?: number) => unknown = () => undefined) =>
    siteAsOf({
      reads: store,
      siteId: SITE,
      moment: AS_OF_MOMENT,
      contents: {
        take: async (f, b) => {
          bytes += b.byteLength;
          await take(f.path, b, f.revision.time);
        },
      },
    });
  const facts = (r: Awaited<ReturnType<typeof asOf>>) => ({ files: r.files.length, notYet: r.notYet.length, failed: r.failures.length, cancelled: r.cancelled, tenths: r.files.filter((f) => f.revision.id.endsWith('10')).length });
  let result: Record<string, unknown>;
  switch (mode) {
    case 'cold': {
      const cold = await measure(url, asOf);
      const coldBytes = bytes;
      const cached = await measure(url, asOf);
      result = { cold: cold.m, cached: cached.m, facts: facts(cold.value), contentMB: coldBytes / 1024 / 1024 };
      break;
    }
    case 'disk': {
      const d = await measure(url, asOf);
      result = { disk: d.m, facts: facts(d.value) };
      break;
    }
    case 'export': {
      if (!out) throw new Error('export needs OUT');
      fs.mkdirSync(out, { recursive: true });
      const exportTo = async (target: string, zip = false) => {
        const w = zip ? await zipWriter(target) : await folderWriter(target);
        const r = await asOf((p, b, time) => w.add(p, b, time));
        return { r, s: await w.commit() };
      };
      const fromDisk = await measure(url, () => exportTo(path.join(out, 'from-disk')));
      const fromMemory = await measure(url, () => exportTo(path.join(out, 'from-memory')));
      const zip = await measure(url, () => exportTo(path.join(out, 'site.zip'), true));
      const cp = await measure(url, () => fs.promises.cp(path.join(out, 'from-memory'), path.join(out, 'cp'), { recursive: true }));
      result = { fromDisk: fromDisk.m, fromMemory: fromMemory.m, zip: zip.m, cp: cp.m, files: fromMemory.value.s.files, exportMB: fromMemory.value.s.bytes / 1024 / 1024, zipMB: fs.statSync(path.join(out, 'site.zip')).size / 1024 / 1024 };
      break;
    }
    case 'compare':
    case 'compareDisk': {
      const run = () => compareSites({ reads: store, a: { siteId: SITE }, b: { siteId: TWIN } });
      const first = mode === 'compare' ? await measure(url, run) : undefined;
      const known = await measure(url, run);
      const c = known.value;
      result = { ...(first ? { first: first.m } : {}), known: known.m, facts: { differ: c.differ.length, same: c.same, onlyA: c.onlyA.length, onlyB: c.onlyB.length, contentReads: c.contentReads, failed: c.failures.length } };
      break;
    }
    default:
      throw new Error(`unknown mode ${mode}`);
  }
  await close();
  process.stdout.write(JSON.stringify(result) + '\n');
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`asOfChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

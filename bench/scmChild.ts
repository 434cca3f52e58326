// One sample of the working-copy figures (issue 28), in a fresh Node process (plain Node, no
// vscode; the status engine src/core/status, the revision store and its disk cache, the scheduler):
//
//   node out/bench/scmChild.js prepare DIR
//     writes the working folder of the service's search-scale site (2,000 files, 20 revisions
//     each, test/server/searchScale.ts): every file as its newest revision (saved before it),
//     except 20 edited here, 20 that are an older revision saved before the newest, 20 missing;
//     and 100 local files with no revision.
//
//   node out/bench/scmChild.js cold URL DIR CACHE
//     the folder's status with nothing cached (what the Source Control view does for a folder
//     mapped for the first time: the cached pass, then the rest asked at background priority,
//     one Get Revisions with content per file), through a scheduler of concurrency 6: wall time.
//
//   node out/bench/scmChild.js warm URL DIR CACHE
//     a new process on the disk cache the cold sample filled (a window reloaded): the first
//     status (the folder's snapshot, its 2,000 working files checked by size and time), then the
//     pass over the revision store's disk cache that follows it, then one file saved (edited on
//     disk) and its state updated from its new digest (what a save costs); the event loop's delay
//     sampled all along; requests counted at the service (none is expected).
//
//   node out/bench/scmChild.js large-prepare DIR
//     a mapped folder of large working files, sparse (they take no disk; read, they are zeros after
//     a random first KB): four of 600 MB and one of 2.5 GB, over the largest revision the client
//     can read (64 MiB: not compared, never read), and eight of 48 MB, read and hashed.
//
//   node out/bench/scmChild.js large DIR DIGEST [peer]
//     the status of that folder against a site that lists the 13 paths (a source of its own: the
//     working side is what is measured; one 48 MB file is its newest revision, DIGEST), through
//     src/core/status (streaming SHA-256 in 1 MiB slices within the budget of bytes in flight):
//     the event loop's delay all along, the process's peak RSS over its RSS before, the wall time.
//     `peer`: the same 48 MB files the way status read them before (fs.readFile and a synchronous
//     SHA-256, 12 at a time), in its own process — the 600 MB and 2.5 GB files are left out of it
//     (read whole they would take 4.9 GB; the 2.5 GB one cannot be read so at all).
//
//   node out/bench/scmChild.js lines
//     line history of 10 lines of a 5,000-line file with 50 revisions, contents in memory (the
//     blame workload, test/unit/helpers/blameHistory.ts): the first call of the process, then warm.
//
// Prints one JSON line on stdout.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SiteRevisionClient } from '../src/core/api';
import { loadBlame } from '../src/core/blame/load';
import { RevisionStore } from '../src/core/model/revisionStore';
import { RequestScheduler } from '../src/core/scheduler';
import { isOffline } from '../src/features/sites/viewState';
import { FolderStatus, stateOf } from '../src/core/status';
import { changedOnDisk, scanStatus, storeSource, type StatusSource } from '../src/core/status/scan';
import { readSnapshot, restoreSnapshot, snapshotOf, snapshotSource, writeSnapshot } from '../src/core/status/snapshot';
import { DigestCache, nodeWorkingFs, READ_BUDGET, readWorking } from '../src/core/status/working';
import { DiskStore } from '../src/core/store';
import { DEMO } from '../test/server/demo';
import { SEARCH_SCALE_SITE_ID, SearchScaleData } from '../test/server/searchScale';
import { generateHistory } from '../test/unit/helpers/blameHistory';
import { runQueueWaitMs, sampleLoopDelay, threadCpuMs, type LoopDelay } from './lib';

export const SCM_WORKLOAD = { files: 2000, edited: 20, older: 20, missing: 20, localOnly: 100, concurrency: 6 };
const MiB = 1024 * 1024;
/** The large working files: over the limit (never read) and under it (read and hashed). */
export const SCM_LARGE_WORKLOAD = { tooLarge: [600, 600, 600, 600, 2560].map((mb) => mb * MiB), hashed: Array.from({ length: 8 }, () => 48 * MiB) };
const SITE = String(SEARCH_SCALE_SITE_ID);

export interface ScmColdSample {
  wallMs: number;
  /** The time this process's thread waited for a core meanwhile (Linux run-queue wait; undefined elsewhere): the machine's other work, not ours. */
  waitMs?: number;
  /** This thread's CPU time meanwhile (Node ≥ 23.9). */
  cpuMs?: number;
  /** Requests the service received, by operation. */
  requests: Record<string, number>;
  maxInFlight: number;
  groups: { changedLocally: number; newerOnService: number; onlyOnService: number; unknown: number; localOnly: number };
}

export interface ScmWarmSample {
  /** The first status of the process: the snapshot read, every working file's size and time checked. */
  firstMs: number;
  /** The pass over the store's disk cache after it (2,000 lists and digests; the folder walked). */
  cachedMs: number;
  /** One file saved: read, hashed, its state updated, the groups made again. */
  saveMs: number;
  /** A look at every working file's size and time (what the source control does now and then for what the watcher missed): none changed. */
  sweepMs: number;
  sweepChanged: number;
  /** Requests the service received during both. */
  requests: number;
  /**
   * The event loop's delay (monitorEventLoopDelay, 1 ms), and the most CPU time this thread spent
   * between two ticks of a 1 ms timer (`heldMs`, Node ≥ 23.9): a delay much longer than it is time
   * the thread waited for a core on a loaded machine, not work it did.
   */
  loop: LoopDelay;
  groups: ScmColdSample['groups'];
  saveChanged: boolean;
}

export interface ScmLargeSample {
  wallMs: number;
  loop: LoopDelay;
  /** The process's RSS before the work, and its peak (resourceUsage().maxRSS) over it, in MB. */
  rssBeforeMB: number;
  rssPeakOverMB: number;
  /** Bytes hashed, and the most bytes in flight at once (the budget's peak; ours only). */
  hashedMB: number;
  budgetPeakMB?: number;
  groups?: { same: number; changedLocally: number; notCompared: number; onlyOnService: number; unknown: number };
}

export interface ScmLinesSample {
  coldMs: number;
  /** This thread's CPU time of the first call (Node ≥ 23.9): the figure judged. */
  coldCpuMs?: number;
  warmMs: number;
  entries: number;
}

const stats = async (url: string) => (await (await fetch(`${url}/__control/stats`)).json()) as { requests: { operation?: string }[]; maxInFlight: number };
const reset = async (url: string) => void (await (await fetch(`${url}/__control/reset-stats`, { method: 'POST' })).arrayBuffer());

function groupsOf(status: FolderStatus): ScmColdSample['groups'] {
  const g = status.groups();
  return { changedLocally: g.changedLocally.length, newerOnService: g.newerOnService.length, onlyOnService: g.onlyOnService.length, unknown: g.unknown, localOnly: status.localOnly.count };
}

function prepare(dir: string): void {
  const data = new SearchScaleData();
  fs.rmSync(dir, { recursive: true, force: true });
  const w = SCM_WORKLOAD;
  data.paths.forEach((p, i) => {
    if (i % 100 < 1 && i / 100 < w.missing) return; // 20 missing: files 0, 100, … 1900
    const revs = data.revisions(p, true)!;
    const newest = revs.at(-1)!;
    const time = Date.parse(`${newest.date.replace(' ', 'T')}Z`);
    const file = path.join(dir, ...p.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (i % 100 === 1) fs.writeFileSync(file, `${newest.content!}// edited here\n`); // 20 edited now
    else if (i % 100 === 2) {
      fs.writeFileSync(file, revs[0]!.content!); // 20 older, saved before the newest revision
      fs.utimesSync(file, new Date(time - 60_000), new Date(time - 60_000));
    } else {
      fs.writeFileSync(file, newest.content!);
      fs.utimesSync(file, new Date(time - 1000), new Date(time - 1000));
    }
  });
  for (let i = 0; i < w.localOnly; i++) {
    const file = path.join(dir, 'local', `draft-${i}.txt`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `draft ${i}\n`);
  }
}

function open(url: string, cache: string) {
  const scheduler = new RequestScheduler({ concurrency: SCM_WORKLOAD.concurrency });
  const client = new SiteRevisionClient({ baseUrl: url, credentials: () => DEMO.user, timeoutMs: 60_000, retries: 0, scheduler });
  const disk = new DiskStore(cache, { maxBytes: 2 * 1024 * 1024 * 1024 });
  const store = new RevisionStore((fn) => fn(client), 64 * 1024 * 1024, undefined, { disk: () => Promise.resolve(disk), isOffline });
  return { store, disk, close: async () => (await disk.dispose(), await client.dispose()) };
}

async function cold(url: string, dir: string, cache: string): Promise<ScmColdSample> {
  const { store, close } = open(url, cache);
  await reset(url);
  const status = new FolderStatus(false);
  const digests = new DigestCache();
  const working = nodeWorkingFs(dir);
  const wait0 = runQueueWaitMs();
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  const cached = await scanStatus(status, storeSource(store, SITE, 'cached'), working, digests, { walkMax: 20_000 });
  const unknown = status
    .all()
    .filter((e) => stateOf(e) === 'unknown')
    .map((e) => e.path);
  await scanStatus(status, storeSource(store, SITE, 'complete'), working, digests, cached.noList ? { walkMax: 20_000 } : { paths: unknown });
  const wallMs = performance.now() - t0;
  const waitMs = wait0 === undefined ? undefined : runQueueWaitMs()! - wait0;
  const cpuMs = cpu0 === undefined ? undefined : threadCpuMs()! - cpu0;
  await writeSnapshot(path.join(cache, 'status'), snapshotOf(status, SITE, dir));
  const s = await stats(url);
  const requests: Record<string, number> = {};
  for (const r of s.requests) requests[r.operation ?? '?'] = (requests[r.operation ?? '?'] ?? 0) + 1;
  const out = { wallMs, ...(waitMs !== undefined ? { waitMs } : {}),  ...(cpuMs !== undefined ? { cpuMs } : {}), requests, maxInFlight: s.maxInFlight, groups: groupsOf(status) };
  await close();
  return out;
}

async function warm(url: string, dir: string, cache: string): Promise<ScmWarmSample> {
  const { store, close, disk } = open(url, cache);
  // The host has the account's disk store open before any folder's status (the Sites view uses it).
  await disk.ready;
  await reset(url);
  const loop = sampleLoopDelay();
  const status = new FolderStatus(false);
  const digests = new DigestCache();
  const working = nodeWorkingFs(dir);
  const t0 = performance.now();
  const snap = await readSnapshot(path.join(cache, 'status'), SITE, dir);
  if (!snap) throw new Error('no snapshot: run the cold sample first');
  restoreSnapshot(status, snap, digests);
  await scanStatus(status, snapshotSource(status), working, digests);
  status.groups();
  const firstMs = performance.now() - t0;
  const groups = groupsOf(status);
  const t1 = performance.now();
  await scanStatus(status, storeSource(store, SITE, 'cached'), working, digests, { walkMax: 20_000 });
  status.groups();
  const cachedMs = performance.now() - t1;
  // A save: a file that was the newest revision edited on disk; its state from its new digest.
  const entry = status.all().find((e) => stateOf(e) === 'same')!;
  const file = path.join(dir, ...entry.relative.split('/'));
  const before = fs.readFileSync(file);
  const mtime = fs.statSync(file).mtime;
  fs.appendFileSync(file, '// saved here\n');
  await new Promise((r) => setTimeout(r, 20));
  const t2 = performance.now();
  const changes = status.updateWorking(entry.relative, await readWorking(working, entry.relative, digests));
  status.groups();
  const saveMs = performance.now() - t2;
  // What the source control does now and then for what VS Code's watcher missed: a stat of each file.
  fs.writeFileSync(file, before);
  fs.utimesSync(file, mtime, mtime);
  status.updateWorking(entry.relative, await readWorking(working, entry.relative, digests));
  const t3 = performance.now();
  const swept = await changedOnDisk(status, working);
  const sweepMs = performance.now() - t3;
  const l = loop.stop();
  // The folder as it was, for the next sample.
  fs.writeFileSync(file, before);
  fs.utimesSync(file, mtime, mtime);
  const requests = (await stats(url)).requests.length;
  await close();
  return { firstMs, cachedMs, saveMs, sweepMs, sweepChanged: swept.length, requests, loop: l, groups, saveChanged: changes.some((c) => c.after === 'changedLocally') };
}

const largeFiles = () => [...SCM_LARGE_WORKLOAD.tooLarge.map((size, i) => ({ rel: `backups/backup-${i}.tar`, size })), ...SCM_LARGE_WORKLOAD.hashed.map((size, i) => ({ rel: `media/video-${i}.mp4`, size }))];

/** Writes the large folder (sparse) and prints the digest of the first 48 MB file, hashed here as it was written. */
function largePrepare(dir: string): { digest: string } {
  fs.rmSync(dir, { recursive: true, force: true });
  let digest = '';
  for (const f of largeFiles()) {
    const file = path.join(dir, ...f.rel.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const head = randomBytes(1024);
    fs.writeFileSync(file, head);
    fs.truncateSync(file, f.size);
    if (!digest && f.size <= 64 * MiB) {
      const h = createHash('sha256').update(head);
      const zeros = Buffer.alloc(MiB);
      for (let left = f.size - head.length; left > 0; left -= MiB) h.update(left >= MiB ? zeros : zeros.subarray(0, left));
      digest = h.digest('hex');
    }
  }
  return { digest };
}

async function large(dir: string, digest: string, peer: boolean): Promise<ScmLargeSample> {
  const files = largeFiles();
  const rssBefore = process.memoryUsage().rss;
  const loop = sampleLoopDelay();
  const t0 = performance.now();
  let hashed = 0;
  let out: Pick<ScmLargeSample, 'groups' | 'budgetPeakMB'> = {};
  if (peer) {
    // Before issue 32: fs.readFile and a synchronous SHA-256, 12 files at once, no size limit (the files that can be read so).
    const readable = files.filter((f) => f.size <= 64 * MiB);
    let next = 0;
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        while (next < readable.length) {
          const f = readable[next++]!;
          const bytes = await fs.promises.readFile(path.join(dir, ...f.rel.split('/')));
          createHash('sha256').update(bytes).digest('hex');
          hashed += bytes.byteLength;
        }
      }),
    );
  } else {
    const status = new FolderStatus(false);
    const source: StatusSource = {
      asks: false,
      siteFiles: () => Promise.resolve({ paths: files.map((f) => f.rel), offline: false }),
      // Every newest revision dated long before the files (a differing file is Changed Locally); the first 48 MB file's is that file.
      newest: (p) => Promise.resolve({ newest: { id: '1', date: '2020-01-01 00:00:00', author: 'bench', time: Date.parse('2020-01-01T00:00:00Z'), digest: p === 'media/video-0.mp4' ? digest : '0'.repeat(64) }, offline: false }),
    };
    await scanStatus(status, source, nodeWorkingFs(dir), new DigestCache());
    const g = status.groups();
    out = {
      groups: { same: status.all().filter((e) => stateOf(e) === 'same').length, changedLocally: g.changedLocally.length, notCompared: g.notCompared.length, onlyOnService: g.onlyOnService.length, unknown: g.unknown },
      budgetPeakMB: READ_BUDGET.peak / MiB,
    };
    hashed = files.filter((f) => f.size <= 64 * MiB).reduce((n, f) => n + f.size, 0);
  }
  const wallMs = performance.now() - t0;
  const l = loop.stop();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  return { wallMs, loop: l, rssBeforeMB: rssBefore / MiB, rssPeakOverMB: (peakRss - rssBefore) / MiB, hashedMB: hashed / MiB, ...out };
}

async function lines(): Promise<ScmLinesSample> {
  const g = generateHistory({ lines: 5000, revisions: 50, changeFraction: 0.03, seed: 14 });
  const blame = await loadBlame();
  const range = { start: 2500, end: 2510 };
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  const first = await blame.lineHistory(g.revisions, range);
  const coldMs = performance.now() - t0;
  const coldCpuMs = cpu0 === undefined ? undefined : threadCpuMs()! - cpu0;
  const warmRuns: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await blame.lineHistory(g.revisions, range);
    warmRuns.push(performance.now() - t);
  }
  warmRuns.sort((a, b) => a - b);
  return { coldMs, ...(coldCpuMs !== undefined ? { coldCpuMs } : {}), warmMs: warmRuns[2]!, entries: first.length };
}

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  let out: unknown;
  if (mode === 'prepare') {
    prepare(args[0]!);
    out = { prepared: true };
  } else if (mode === 'cold') out = await cold(args[0]!, args[1]!, args[2]!);
  else if (mode === 'warm') out = await warm(args[0]!, args[1]!, args[2]!);
  else if (mode === 'lines') out = await lines();
  else if (mode === 'large-prepare') out = largePrepare(args[0]!);
  else if (mode === 'large') out = await large(args[0]!, args[1]!, args[2] === 'peer');
  else throw new Error(`unknown mode ${mode}`);
  process.stdout.write(JSON.stringify(out) + '\n');
}

// Run as a child process (bench/run.ts imports this file for its workload and types only).
if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`scmChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

// One measurement of guarded transfers (src/core/transfer) in a fresh Node process, driven by
// bench/transfer.ts: the folder download or upload, the guard check of a folder upload whose
// bases are known (against listing the same folder), and upload on save of one file (against one
// bare upload). This process's event loop is sampled during each (bench/lib.ts). Prints one JSON
// object on its last line.
//
//   node out/bench/transferChild.js CONFIG.json
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LastSeen } from '../src/core/live/lastSeen';
import { openLive, siteEndpoint, type HostKey, type LiveFs, type LocalSiteSettings, type SiteLike, type TrustStore } from '../src/core/live';
import { Bases } from '../src/core/transfer/bases';
import { KeptCopies } from '../src/core/transfer/copies';
import { Transfers } from '../src/core/transfer/transfer';
import { sampleLoopDelay, type LoopDelay } from './lib';

export interface ChildConfig {
  op: 'download' | 'upload' | 'guard' | 'save';
  site: SiteLike;
  /** This computer's settings for the site (the FTP pool's size). */
  settings?: LocalSiteSettings;
  password: string;
  /** SFTP: the known_hosts file for the address connected to. */
  knownHostsFile?: string;
  /** The mapped folder, the account's cache folder, and the folder transferred (root-relative). */
  local: string;
  cache: string;
  dir: string;
  /** save: how many saves (and bare uploads) to time. */
  rounds?: number;
}

export interface ChildResult {
  op: ChildConfig['op'];
  ms: number;
  files: number;
  bytes: number;
  counts?: Record<string, number>;
  loop: LoopDelay;
  /** guard: the listing alone; save: the bare uploads. */
  baselineMs?: number;
  samples?: number[];
  baselineSamples?: number[];
}

function memoryStore(): TrustStore {
  const keys = new Map<string, HostKey[]>();
  return {
    hostKeys: async (h, p) => keys.get(`${h}:${p}`) ?? [],
    addHostKey: async (h, p, k) => void keys.set(`${h}:${p}`, [k]),
    pins: async () => [],
    addPin: async () => undefined,
    cleartextAllowed: async () => true,
    allowCleartext: async () => undefined,
  };
}

function open(c: ChildConfig): LiveFs {
  const m = siteEndpoint(c.site, c.settings ?? {});
  if (!m.ok) throw new Error(m.reason);
  return openLive(m.endpoint, { trust: { store: memoryStore(), knownHostsFiles: c.knownHostsFile ? [c.knownHostsFile] : [] }, secrets: { password: async () => c.password } });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const c = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as ChildConfig;
  const live = open(c);
  const siteId = String(c.site.id ?? 'bench');
  const copies = await KeptCopies.open({ folder: KeptCopies.folderFor(c.cache), maxBytes: 512 * 1024 * 1024 });
  const tx = new Transfers({ live, siteId, localRoot: c.local, bases: await Bases.load(Bases.fileFor(c.cache, siteId)), lastSeen: await LastSeen.load(LastSeen.fileFor(c.cache, siteId)), copies });
  let out: ChildResult;
  try {
    // The connection made first (its login is not a transfer's cost, nor a peer's: each of theirs is one process too, but logs in once).
    await live.stat('');
    if (c.op === 'download' || c.op === 'upload') {
      const loop = sampleLoopDelay();
      const t0 = performance.now();
      const r = c.op === 'download' ? await tx.downloadFolder(c.dir) : await tx.uploadFolder(c.dir);
      const ms = performance.now() - t0;
      const l = loop.stop();
      out = { op: c.op, ms, files: r.counts.downloaded + r.counts.uploaded, bytes: r.bytes, counts: { ...r.counts }, loop: l };
    } else if (c.op === 'guard') {
      // Listing the folder alone, then the guard check of an upload of it (every file unchanged
      // on both sides since the upload that recorded the bases): alternated, three of each.
      const list: number[] = [];
      const guard: number[] = [];
      const loops: LoopDelay[] = [];
      let counts: Record<string, number> = {};
      for (let i = 0; i < 3; i++) {
        let t0 = performance.now();
        const walked = await tx.walkLive(c.dir, new AbortController().signal);
        list.push(performance.now() - t0);
        if (walked.files.size === 0) throw new Error('nothing listed');
        const loop = sampleLoopDelay();
        t0 = performance.now();
        const r = await tx.uploadFolder(c.dir);
        guard.push(performance.now() - t0);
        loops.push(loop.stop());
        counts = { ...r.counts };
        if (r.counts.identical !== walked.files.size) throw new Error(`the guard check found ${JSON.stringify(r.counts)} for ${walked.files.size} files`);
      }
      const worst = loops.reduce((a, b) => (b.maxMs > a.maxMs ? b : a));
      out = { op: 'guard', ms: median(guard), baselineMs: median(list), samples: guard, baselineSamples: list, files: counts.identical ?? 0, bytes: 0, counts, loop: worst };
    } else {
      // Upload on save: one file saved again and again (its base known from the last upload),
      // against a bare upload of the same bytes to another file (the live layer's write alone).
      const rounds = c.rounds ?? 15;
      const file = `${c.dir}/saved.php`;
      const bare = `${c.dir}/bare.php`;
      const body = (i: number) => Buffer.from(`<?php // save ${String(i).padStart(4, '0')}\n${'echo "line";\n'.repeat(400)}`);
      await fsp.mkdir(path.join(c.local, c.dir), { recursive: true });
      await fsp.writeFile(path.join(c.local, ...file.split('/')), body(0));
      const first = await tx.uploadFile(file);
      if (first.action !== 'uploaded') throw new Error(`the first upload: ${first.action}`);
      await live.write(bare, body(0));
      const guarded: number[] = [];
      const plain: number[] = [];
      const loop = sampleLoopDelay();
      for (let i = 1; i <= rounds; i++) {
        await fsp.writeFile(path.join(c.local, ...file.split('/')), body(i));
        let t0 = performance.now();
        const r = await tx.uploadFile(file);
        guarded.push(performance.now() - t0);
        if (r.action !== 'uploaded') throw new Error(`save ${i}: ${r.action}${r.action === 'failed' ? `: ${r.error.message}` : ''}`);
        t0 = performance.now();
        await live.write(bare, body(i));
        plain.push(performance.now() - t0);
      }
      out = { op: 'save', ms: median(guarded), baselineMs: median(plain), samples: guarded, baselineSamples: plain, files: rounds, bytes: body(0).length, loop: loop.stop() };
    }
  } finally {
    await live.close();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

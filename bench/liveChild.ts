// One sample of the live-server figures (issue 33, step `live` of `npm run bench`), in a fresh
// Node process, so that neither the fault proxy nor the benchmark's own work shares its thread
// (the peers, rclone and OpenSSH's sftp, are processes of their own too):
//
//   node out/bench/liveChild.js proxy CONFIG      a fault proxy (test/live/faultProxy.ts) in front of a
//                                                 server: prints {"port"} once listening, runs until killed
//   node out/bench/liveChild.js list CONFIG       walkLive of `root` (every folder listed): wall time, files
//   node out/bench/liveChild.js read CONFIG       read() of `path`, every byte consumed: wall time, bytes
//   node out/bench/liveChild.js drift CONFIG      Live Drift (compareLive with the revision store's newest
//                                                 revisions, cached) against listing the same files plus the
//                                                 reads the drift needed, in turn; then again with the
//                                                 last-seen state of the first (no read needed) against the listing
//   node out/bench/liveChild.js test CONFIG       Test Connection, `samples` times (the first loads the protocol's chunk)
//
// CONFIG is a JSON object (LiveChildConfig). Each mode prints one JSON line on stdout. Every
// measured operation starts from a new LiveFs (nothing connected): the connection is part of it,
// as it is for the peers.
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SiteRevisionClient } from '../src/core/api';
import { compareLive, LastSeen, liveConcurrency, openLive, siteEndpoint, storeHistory, testConnection, walkLive, type LiveFs, type LiveOptions, type LocalSiteSettings, type SiteLike, type TrustStore } from '../src/core/live';
import { RevisionStore } from '../src/core/model/revisionStore';
import { RequestScheduler } from '../src/core/scheduler';
import { isOffline } from '../src/features/sites/viewState';
import { DEMO } from '../test/server/demo';
import { startFaultProxy } from '../test/live/faultProxy';

/**
 * As in the extension: ssh2's optional native parts are not there (esbuild.mjs leaves them out of
 * the bundle), so ssh2 runs on Node's crypto. Here node_modules has them: refused, so that the
 * figures are those of what ships (ssh2 is loaded later, on the first SFTP connection).
 */
function withoutNativeParts(): void {
  const m = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = m._load.bind(Module);
  m._load = (request, parent, isMain) => {
    if (request === 'cpu-features' || /sshcrypto\.node$/.test(request)) throw Object.assign(new Error(`${request} is not shipped with the extension`), { code: 'MODULE_NOT_FOUND' });
    return original(request, parent, isMain);
  };
}

export interface LiveChildConfig {
  site: SiteLike;
  local?: LocalSiteSettings;
  password: string;
  /** known_hosts files trusted (SFTP through a proxy: a copy written for the proxy's address). */
  knownHostsFiles?: string[];
  /** The folder listed (list), the file read (read), the folder compared (drift). */
  root?: string;
  path?: string;
  /** Samples (drift: pairs; test: connections). */
  samples?: number;
  /** drift: the local service holding the search-scale site's revisions, and its site id. */
  serviceUrl?: string;
  siteId?: string;
  /** proxy: what to front and how. */
  target?: { host: string; port: number; dataPorts?: { host: string; from: number; to: number } };
  latencyMs?: number;
  stall?: boolean;
}

export interface ListSample {
  ms: number;
  files: number;
  load: number;
}
export interface ReadSample {
  ms: number;
  bytes: number;
  load: number;
}
export interface DriftPair {
  /** compareLive with the newest revisions cached, no last-seen state. */
  driftMs: number;
  /** The same files listed (walkLive) plus the reads the drift made, with the same concurrency. */
  baselineMs: number;
  /** Which ran first in this pair. */
  first: 'drift' | 'baseline';
  reads: number;
  bytesRead: number;
  counts: Record<string, number>;
  /** compareLive again with the first one's last-seen state: no read needed. */
  againMs: number;
  againReads: number;
  /** walkLive alone (its baseline). */
  listMs: number;
  concurrency: number;
  load: number;
}
export interface DriftSample {
  pairs: DriftPair[];
  /** Files whose newest revision the store had cached before the drift. */
  cached: number;
  files: number;
}
export interface TestSample {
  ms: number[];
  ok: boolean[];
  stages: string[];
  errorKind?: string;
  errorStage?: string;
  load: number;
}

const load = () => os.loadavg()[0]!;

function memoryStore(): TrustStore {
  const keys = new Map<string, { type: string; key: string; fingerprint: string }[]>();
  return {
    hostKeys: async (h, p) => keys.get(`${h}:${p}`) ?? [],
    addHostKey: async (h, p, k) => void keys.set(`${h}:${p}`, [...(keys.get(`${h}:${p}`) ?? []), k]),
    pins: async () => [],
    addPin: async () => undefined,
    cleartextAllowed: async () => true,
    allowCleartext: async () => undefined,
  };
}

function options(c: LiveChildConfig): LiveOptions {
  return {
    trust: {
      store: memoryStore(),
      knownHostsFiles: c.knownHostsFiles ?? [],
      // The servers' self-signed certificates (FTPS): accepted for the connection, as after a pin.
      decider: { untrustedCertificate: async () => 'once' },
    },
    secrets: { password: async (q) => (q.reason === 'login' ? c.password : undefined) },
  };
}

function open(c: LiveChildConfig): LiveFs {
  const m = siteEndpoint(c.site, c.local ?? {});
  if (!m.ok) throw new Error(`the bench's site cannot be mapped: ${m.reason}`);
  return openLive(m.endpoint, options(c));
}

async function list(c: LiveChildConfig): Promise<ListSample> {
  const fsys = open(c);
  const t0 = performance.now();
  const files = await walkLive(fsys, c.root ?? '', { signal: new AbortController().signal, concurrency: liveConcurrency(fsys) });
  const ms = performance.now() - t0;
  await fsys.close();
  return { ms, files: files.size, load: load() };
}

async function read(c: LiveChildConfig): Promise<ReadSample> {
  const fsys = open(c);
  const t0 = performance.now();
  const s = await fsys.read(c.path!);
  let bytes = 0;
  for await (const chunk of s) bytes += chunk.length;
  const ms = performance.now() - t0;
  await fsys.close();
  return { ms, bytes, load: load() };
}

/** Runs `fn` over `items`, `n` at once. */
async function inTurn<T>(items: readonly T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]!);
  }));
}

async function drift(c: LiveChildConfig): Promise<DriftSample> {
  const scheduler = new RequestScheduler({ concurrency: 6 });
  const client = new SiteRevisionClient({ baseUrl: c.serviceUrl!, credentials: () => DEMO.user, timeoutMs: 60_000, retries: 0, scheduler });
  const store = new RevisionStore((fn) => fn(client), 256 * 1024 * 1024, undefined, { isOffline });
  const root = c.root ?? '';
  // The newest revision of every file fetched once (what the Sites view and the working copy's
  // status leave in the caches); the drift below reads only the caches.
  const complete = storeHistory(store, c.siteId!, 'complete');
  const signal = new AbortController().signal;
  const paths = await complete.paths(signal);
  await inTurn(paths, 12, async (p) => void (await complete.newest(p, signal)));
  const history = storeHistory(store, c.siteId!, 'cached');
  let cached = 0;
  for (const p of paths) if ((await history.newest(p, signal))?.sha256) cached++;

  const pairs: DriftPair[] = [];
  let lastReads: string[] = [];
  const state = path.join(os.tmpdir(), `sr-bench-lastseen-${process.pid}.json`);
  try {
    for (let k = 0; k < (c.samples ?? 3); k++) {
      const l0 = load();
      const readPaths: string[] = [];
      let result: Awaited<ReturnType<typeof compareLive>> | undefined;
      let concurrency = 0;
      const runDrift = async () => {
        const fsys = open(c);
        concurrency = liveConcurrency(fsys);
        // Every read the engine makes, recorded for the baseline.
        const tracked = new Proxy(fsys, {
          get(t, key) {
            if (key === 'read') return (p: string, o?: Parameters<LiveFs['read']>[1]) => (readPaths.push(p), t.read(p, o));
            const v = Reflect.get(t, key, t) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
          },
        });
        fs.rmSync(state, { force: true });
        const lastSeen = await LastSeen.load(state);
        const t0 = performance.now();
        result = await compareLive(tracked, { root, history, lastSeen });
        const ms = performance.now() - t0;
        await fsys.close();
        return ms;
      };
      const runBaseline = async (reads: readonly string[]) => {
        const fsys = open(c);
        const t0 = performance.now();
        await walkLive(fsys, root, { signal, concurrency: liveConcurrency(fsys) });
        await inTurn(reads, liveConcurrency(fsys), async (p) => {
          for await (const chunk of await fsys.read(p)) void chunk;
        });
        const ms = performance.now() - t0;
        await fsys.close();
        return ms;
      };
      // The baseline needs the drift's reads: the first pair's drift runs first; later pairs alternate.
      const first: DriftPair['first'] = k % 2 === 0 || !pairs.length ? 'drift' : 'baseline';
      let driftMs: number;
      let baselineMs: number;
      if (first === 'drift') {
        driftMs = await runDrift();
        baselineMs = await runBaseline(readPaths);
      } else {
        // The drift reads the same files each time (its last-seen state is emptied first).
        baselineMs = await runBaseline(lastReads);
        driftMs = await runDrift();
      }
      lastReads = [...readPaths];
      // Again, with the state the drift left: the unchanged files are not read.
      const fsys = open(c);
      const t1 = performance.now();
      const again = await compareLive(fsys, { root, history, lastSeen: await LastSeen.load(state) });
      const againMs = performance.now() - t1;
      await fsys.close();
      const list = open(c);
      const t2 = performance.now();
      await walkLive(list, root, { signal, concurrency: liveConcurrency(list) });
      const listMs = performance.now() - t2;
      await list.close();
      pairs.push({
        driftMs,
        baselineMs,
        first,
        reads: result!.progress.reads,
        bytesRead: result!.progress.bytesRead,
        counts: result!.counts,
        againMs,
        againReads: again.progress.reads,
        listMs,
        concurrency,
        load: (l0 + load()) / 2,
      });
    }
  } finally {
    fs.rmSync(state, { force: true });
    await client.dispose();
  }
  return { pairs, cached, files: paths.length };
}

async function test(c: LiveChildConfig): Promise<TestSample> {
  const m = siteEndpoint(c.site, c.local ?? {});
  if (!m.ok) throw new Error(`the bench's site cannot be mapped: ${m.reason}`);
  const out: TestSample = { ms: [], ok: [], stages: [], load: load() };
  for (let i = 0; i < (c.samples ?? 5); i++) {
    const t0 = performance.now();
    const r = await testConnection(m.endpoint, { ...options(c), password: c.password });
    out.ms.push(performance.now() - t0);
    out.ok.push(r.ok);
    if (i === 0) out.stages = r.stages.map((s) => `${s.stage} ${s.ok ? 'ok' : 'FAILED'} ${s.ms} ms`);
    if (r.error) {
      out.errorKind = r.error.kind;
      out.errorStage = r.error.stage;
    }
  }
  out.load = (out.load + load()) / 2;
  return out;
}

async function proxy(c: LiveChildConfig): Promise<never> {
  const p = await startFaultProxy(c.target!, { latencyMs: c.latencyMs ?? 0 });
  if (c.stall) p.stall(true);
  process.stdout.write(JSON.stringify({ port: p.port }) + '\n');
  const stop = () => void p.close().then(() => process.exit(0), () => process.exit(1));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The parent closing our stdin (or dying) ends us too.
  process.stdin.on('end', stop);
  process.stdin.resume();
  return new Promise<never>(() => undefined);
}

async function main(): Promise<void> {
  const [mode, configFile] = process.argv.slice(2);
  const c = JSON.parse(fs.readFileSync(configFile!, 'utf8')) as LiveChildConfig;
  withoutNativeParts();
  let out: unknown;
  if (mode === 'proxy') await proxy(c);
  else if (mode === 'list') out = await list(c);
  else if (mode === 'read') out = await read(c);
  else if (mode === 'drift') out = await drift(c);
  else if (mode === 'test') out = await test(c);
  else throw new Error(`unknown mode ${mode}`);
  process.stdout.write(JSON.stringify(out) + '\n');
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`liveChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

// The benchmarks of the extension (`npm run bench`, which compiles first):
//
//   node out/bench/run.js [--json] [--write-docs] [--quick] [--strict] [--skip-host] [--skip-package] [--only STEP]
//   node out/bench/run.js --from FILE [--json] [--write-docs] [--strict]
//
//   --json          print one JSON object on stdout (and nothing else there); logs go to stderr
//   --write-docs    put the table into docs/benchmarks.md between <!-- bench:start --> and <!-- bench:end -->
//   --quick         fewer iterations (a smoke run; the figures are noisier)
//   --strict        exit 1 when a target is missed (default: exit 0 once every figure was measured)
//   --skip-host     leave out the figures measured in the real extension host
//   --skip-package  no .vsix: measure a production build made here instead
//   --only STEP     only the step whose name starts with STEP (e.g. `blame`); not with --write-docs
//   --from FILE     measure nothing: report the figures of an earlier `--json` run saved in FILE
//
// Steps (each measured several times, medians reported):
//   1. size      `npm run package` into a temp folder: the .vsix, the production bundle inside it,
//                and esbuild's metafile (dist/meta.json) of that build;
//   2. host      the harness (test/host/run.ts --vsix) installs that .vsix in a real extension host
//                and runs test/integration/bench/*.bench.js there against the local service with
//                its large data set: requests per user action, the 20 MB revision (and the host's
//                event loop while the diff guard measures it and refuses it), activation; and
//                the host's event loop during a folder download and upload on save against the
//                real servers of test/live (transfer.bench.ts);
//   3. plain     fresh Node processes, interleaved: activation of the packaged bundle with a fake
//                `vscode` (no socket, undici not evaluated), and the folder model / ordering of
//                the large data set (bench/activationChild.ts, bench/scaleChild.ts);
//   4. client    the client against raw undici on one keep-alive connection (bench/clientOverhead.ts),
//                with the local service in its own process;
//   5. store     the disk store in fresh Node processes (bench/storeChild.ts): a 100 KB revision
//                and the 100,000-file list of a site read back after a restart;
//   5b. import   the preview of a 500-site FileZilla site manager in fresh Node processes
//                (bench/siteImportChild.ts), and which of its modules activation loads;
//   6. scheduler the request scheduler's overhead, its own cost, and 500 background reads with a
//                user action behind them (bench/schedulerBench.ts), the service (with its large
//                data set) in its own process;
//   7. blame     fresh Node processes, interleaved: revision blame of a generated 5,000-line file
//                with 50 revisions, re-attribution after an edit, and the line-diff packages
//                compared under the same blame code (bench/blameChild.ts, bench/diffCandidates.ts);
//                and the event loop while the blame is built in slices, as the extension builds it;
//   8. search    History Search (src/core/search): one file's history, a whole-site scan and its
//                cancellation against the service's search-scale data set, the issue's hostile
//                regular expressions cut, each with the event loop sampled (bench/search.ts).
//   9. asof      a whole site as it was (src/core/asof): the search-scale site as of a moment, cold
//                and cached, its export against fs.cp, the compare with its staging twin
//                (bench/asOf.ts).
//  10. scm       the working copy (bench/scmChild.ts): the status of a mapped folder of 2,000 files
//                cold (the service with its search-scale data set and 20 ms of latency) and after a
//                reload (from the caches), a save, the event loop meanwhile; line history.
//  11. live      the connection layer (src/core/live) against the real servers of test/live with 20 ms
//                of latency added by a loopback proxy: a 10,000-file tree listed over SFTP and FTP
//                against rclone, a 200 MB SFTP read against rclone and OpenSSH's sftp, Live Drift of
//                2,000 files, Test Connection (loopback, a dead host), the protocols' chunks
//                (bench/live.ts, bench/liveChild.ts).
//  12. transfer  guarded transfers (src/core/transfer) against the real SFTP and FTP servers of the
//                tests with 20 ms added: a 2,000-file 200 MB folder down and up against rclone and
//                lftp, the guard check of a folder upload, upload on save (bench/transfer.ts).
// Event-loop rows (issue "Trust", point 1): perf_hooks.monitorEventLoopDelay at 1 ms; targets
// max ≤ 50 ms and p99 ≤ 20 ms, and a hostile expression ended or cut within 1 s (LOOP_TARGETS).
// Every process started here is stopped before the end (and on Ctrl-C / SIGTERM).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Cleanup, startService as startServiceProcess } from '../test/host/common';
import { clientOverhead, type OverheadResult } from './clientOverhead';
import { schedulerBench, type SchedulerFigures } from './schedulerBench';
import { isStopping, lastJson, log, LOOP_TARGETS, loopOk, loopSamples, loopText, MB, median, medianLoop, ownLoop, repoRoot, round, runNode, stopChildren, stopStarting } from './lib';
import { BENCH_DOC, kb, markdown, textTable, withLoad, writeBenchTable, type Machine, type Row } from './report';
import { searchBench, searchRows } from './search';
import { asOfBench, asOfRows } from './asOf';
import { liveBench, liveRows } from './live';
import { transferBench, transferHostRows, transferRows } from './transfer';
import { analyseMetafile, type BundleAnalysis } from './size';
import type { BlameSample, SlicedBlameSample } from './blameChild';
import { SCM_LARGE_WORKLOAD, SCM_WORKLOAD, type ScmColdSample, type ScmLargeSample, type ScmLinesSample, type ScmWarmSample } from './scmChild';
import { CANDIDATES, CHOSEN } from './diffCandidates';
import { zipEntries, zipRead } from '../test/host/zip';
import type { HostFigures } from '../test/integration/bench/figures';

const USAGE = `npm run bench [-- options]   (node out/bench/run.js [options] after npx tsc -p .)

  --json          one JSON object on stdout (use npm run -s, so npm prints nothing there itself)
  --write-docs    put the table into docs/benchmarks.md between <!-- bench:start --> and <!-- bench:end -->
  --quick         fewer iterations (a smoke run; noisier)
  --strict        exit 1 when a target is missed (default: exit 0 once every figure was measured)
  --skip-host     leave out the figures measured in the real extension host
  --skip-package  no .vsix: measure a production build made here instead
  --only STEP     only the step whose name starts with STEP: size, extension, plain, client, import, blame, asof, scm, live, transfer
                  (a quicker look at one group; not with --write-docs)
  --from FILE     measure nothing: print (or put into docs/benchmarks.md) the figures of an earlier
                  --json run saved in FILE
`;

/** Built-in modules the bundle requires at load that the extension host has loaded before any extension (checked in the host). */
const HOST_BUILTINS = ['net', 'tls', 'crypto'];

const TARGETS = {
  overheadRatio: 1.05,
  folderModelMs: 150,
  folderModelMB: 100,
  orderingMs: 50,
  activationMs: 10,
  firstRequestMs: 38,
  // 400 KB until the connection layer (issue 33): ssh2 (about 300 KB minified), basic-ftp and the
  // protocols' chunks come on top of the rest; 1 MB is the issue's bound (docs/benchmarks.md).
  vsixKB: 1024,
  storeRevisionMs: 20,
  storeFilesModelMs: 200,
  schedulerOverheadPercent: 2,
  schedulerConcurrency: 6,
  blameMs: 150,
  reattributeMs: 20,
  scmFirstStatusMs: 300,
  scmSaveMs: 20,
  scmLoopMaxMs: 50,
  scmLargeLoopMaxMs: 50,
  scmLargeRssMB: 32,
  scmSweepMs: 100,
  scmColdRatio: 1.25,
  lineHistoryMs: 150,
  /** The as-of restore's plan of 200 × 1 MB while its confirmation waits (issue 32 §2: it held 201 MB). */
  restorePlanHeldMB: 16,
  importPreviewMs: 500,
};

/** The cold status's service latency (the ideal schedule: requests ÷ concurrency × latency). */
const SCM_LATENCY_MS = 20;

interface ImportPreviewSample {
  bytes: number;
  packagedThread: boolean;
  sites: number;
  rows: number;
  alreadyOnService: number;
  loadMs: number;
  coldMs: number;
  warmMs: number;
  parseWarmMs: number;
  emptyThreadMs: number;
}

interface StoreRevisionSample {
  openMs: number;
  readMs: number;
}

interface StoreFilesSample {
  openMs: number;
  peekMs: number;
  modelMs: number;
  listToModelMs: number;
}

interface ActivationSample {
  bundleBytes: number;
  loadMs: number;
  activateMs: number;
  totalMs: number;
  readyMs: number;
  sessionState: string;
  commands: number;
  sockets: number;
  dnsLookups: number;
  undiciEvaluated: boolean;
  builtins: string[];
  control?: { undiciEvaluated: boolean; sockets: number };
  /** The first request after activation: from the call to its socket's connect (loading and setting up undici). */
  firstRequestMs?: number;
}

interface ScaleSample {
  folderModel: { files: number; folders: number; coldMs: number; warmMedianMs: number; firstLevelMs: number; flatLayoutMs: number; pathsHeapBytes: number; modelHeapBytes: number; replyBytes: number };
  ordering: { revisions: number; page: number; coldMs: number; warmMedianMs: number; fromBodyColdMs: number; fromBodyWarmMedianMs: number; replyBytes: number };
}

interface SizeFigures {
  vsixBytes?: number;
  vsixFiles?: string[];
  bundleBytes: number;
  /** The bundle of the same build with the test handles, which the host and activation steps load. */
  benchBundleBytes?: number;
  /** The other JavaScript files next to it (the chunks: dist/chunk-….mjs, the webview's dist/siteEditor.js). */
  otherJs: { path: string; bytes: number }[];
  bundleSource: string;
  metafile?: BundleAnalysis;
  metafileMatchesBundle?: boolean;
}

function machine(): Machine {
  let cpu = 'unknown CPU';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? cpu;
  } catch {
    cpu = os.cpus()[0]?.model ?? cpu;
  }
  return {
    date: new Date().toISOString().slice(0, 10),
    nproc: os.availableParallelism(),
    cpu,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    loadAverage: os.loadavg().map((l) => round(l, 2)),
  };
}

const ms = (n: number | undefined, digits = 1) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${n.toFixed(digits)} ms`);
const pick = <T>(xs: T[], f: (x: T) => number) => xs.map(f);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      'write-docs': { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      'skip-host': { type: 'boolean', default: false },
      'skip-package': { type: 'boolean', default: false },
      only: { type: 'string' },
      from: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stderr.write(USAGE);
    return 0;
  }
  if (values.only !== undefined && values['write-docs']) {
    process.stderr.write('--only leaves figures out: it cannot be used with --write-docs\n');
    return 2;
  }
  if (values.from !== undefined) {
    const saved = JSON.parse(fs.readFileSync(values.from, 'utf8')) as Report;
    await emit(saved, values);
    return exitCode(saved, values.strict);
  }
  const quick = values.quick;
  const n = {
    abIterations: quick ? 100 : 300,
    abWarmup: quick ? 20 : 50,
    activation: quick ? 3 : 9,
    scale: quick ? 3 : 5,
    blame: quick ? 3 : 5,
    host: quick ? 2 : 3,
    store: quick ? 3 : 9,
    schedulerIterations: quick ? 200 : 600,
  };
  const started = Date.now();
  const m = machine();
  const cleanup = new Cleanup();
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, stopStarting);
  cleanup.installSignalHandlers();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-bench-'));
  cleanup.add('temp folder', () => fs.rmSync(tmp, { recursive: true, force: true }));
  cleanup.add('child processes', () => stopChildren());
  const errors: string[] = [];
  /** Each step's highest 1-minute load average, sampled every 5 s while it ran (the Load of its timing rows). */
  const loads = new Map<string, number>();
  const stage = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    const t0 = Date.now();
    if (values.only !== undefined && !name.startsWith(values.only)) return undefined;
    if (isStopping()) {
      errors.push(`${name}: interrupted`);
      return undefined;
    }
    log(`${name}…`);
    const sampleLoad = () => loads.set(name, Math.max(loads.get(name) ?? 0, os.loadavg()[0]!));
    sampleLoad();
    const loadSampler = setInterval(sampleLoad, 5000);
    try {
      const r = await fn();
      log(`${name}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      return r;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      errors.push(`${name}: ${msg}`);
      log(`${name} FAILED: ${e instanceof Error ? (e.stack ?? msg) : msg}`);
      return undefined;
    } finally {
      clearInterval(loadSampler);
      sampleLoad();
    }
  };
  /** The load of the step whose name starts with `prefix`. */
  const loadOf = (prefix: string) => [...loads].find(([n]) => n.startsWith(prefix))?.[1];

  try {
    // ---- 1. size: package into the temp folder; the bundle measured below is the one inside the .vsix
    const bundleDir = path.join(tmp, 'extension');
    const bundle = path.join(bundleDir, 'dist', 'extension.mjs');
    const size = await stage('size (npm run package)', async (): Promise<SizeFigures> => {
      if (values['skip-package']) {
        const meta = await productionMetafile(path.join(tmp, 'stage'));
        const dist = path.dirname(meta);
        const bytes = fs.statSync(path.join(dist, 'extension.mjs')).size;
        const otherJs = fs
          .readdirSync(dist)
          .filter((x) => /\.m?js$/.test(x) && x !== 'extension.mjs')
          .map((x) => ({ path: `dist/${x}`, bytes: fs.statSync(path.join(dist, x)).size }));
        // What the host and activation steps load: the same build with the test handles.
        const hooks = await productionMetafile(path.join(tmp, 'stage-hooks'), true);
        fs.mkdirSync(path.dirname(bundle), { recursive: true });
        for (const f of fs.readdirSync(path.dirname(hooks)).filter((x) => /\.m?js$/.test(x))) fs.copyFileSync(path.join(path.dirname(hooks), f), path.join(path.dirname(bundle), f));
        return { bundleBytes: bytes, benchBundleBytes: fs.statSync(bundle).size, otherJs, bundleSource: 'node esbuild.mjs --production (--skip-package: no .vsix)', ...metafileOf(meta, bytes) };
      }
      const vsix = path.join(tmp, 'site-revisions.vsix');
      const r = await runNode([path.join(repoRoot, 'scripts', 'task.mjs'), 'package', vsix], { label: 'package', passStdout: true, timeoutMs: 180_000 });
      if (r.code !== 0 || !fs.existsSync(vsix)) throw new Error(`npm run package failed (exit ${r.code ?? r.signal})`);
      const buf = fs.readFileSync(vsix);
      const entries = zipEntries(buf);
      const js = entries.find((e) => e.name === 'extension/dist/extension.mjs');
      if (!js) throw new Error('the .vsix holds no extension/dist/extension.mjs');
      // The host and activation steps need the test handles, which the users' .vsix does not
      // export (src/extension.ts): the same package built with them, installed and loaded instead.
      const benchVsix = path.join(tmp, 'site-revisions-bench.vsix');
      const rb = await runNode([path.join(repoRoot, 'scripts', 'task.mjs'), 'package', benchVsix], { label: 'package (test handles)', passStdout: true, timeoutMs: 180_000, env: { ...process.env, SITE_REVISIONS_TEST_HOOKS_BUILD: '1' } });
      if (rb.code !== 0 || !fs.existsSync(benchVsix)) throw new Error(`npm run package with the test handles failed (exit ${rb.code ?? rb.signal})`);
      const benchBuf = fs.readFileSync(benchVsix);
      // The packaged extension's code (the entry point and its chunks) and manifest, as installed.
      for (const e of zipEntries(benchBuf)) {
        if (!/^extension\/(dist\/[^/]+\.m?js|package\.json)$/.test(e.name)) continue;
        const to = path.join(bundleDir, e.name.slice('extension/'.length));
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.writeFileSync(to, zipRead(benchBuf, e));
      }
      // `npm run package` builds in a private copy and keeps no metafile: the same production
      // build (`node esbuild.mjs --production`) in a copy of src/ here writes dist/meta.json.
      const meta = await productionMetafile(path.join(tmp, 'stage'));
      return {
        vsixBytes: buf.length,
        vsixFiles: entries.map((e) => e.name).filter((x) => !x.endsWith('/')),
        bundleBytes: js.size,
        benchBundleBytes: fs.statSync(bundle).size,
        otherJs: entries.filter((e) => /^extension\/dist\/.+\.m?js$/.test(e.name) && e !== js).map((e) => ({ path: e.name.slice('extension/'.length), bytes: e.size })),
        bundleSource: 'extension/dist/extension.mjs of the .vsix',
        ...metafileOf(meta, js.size),
      };
    });

    // ---- 2. the real extension host
    const host = values['skip-host']
      ? undefined
      : await stage('extension host (test/integration/bench via test/host/run.ts)', async (): Promise<HostFigures> => {
          const out = path.join(tmp, 'host.json');
          // The packaged .vsix installed into the host, as users get it (the harness's --vsix); without
          // one, the repository's development bundle, built first as the integration tests do.
          const vsix = path.join(tmp, 'site-revisions-bench.vsix');
          const installed = fs.existsSync(vsix);
          if (!installed) {
            const b = await runNode([path.join(repoRoot, 'esbuild.mjs')], { label: 'esbuild', timeoutMs: 120_000 });
            if (b.code !== 0) throw new Error(`node esbuild.mjs failed (exit ${b.code ?? b.signal})`);
          }
          const harness = [path.join(repoRoot, 'out', 'test', 'host', 'run.js'), '--results', path.join(tmp, 'host-results.json'), '--grep', 'Bench:', '--timeout', '480', ...(installed ? ['--vsix', vsix] : [])];
          const r = await runNode(harness, {
            passStdout: true,
            // The as-of restore plan's 200 MB of revisions (a minute on a loaded machine) and the
            // transfers' suite (it starts the real servers and downloads 2 × 3 folders of 20 MB).
            timeoutMs: 600_000,
            env: { ...process.env, SR_LARGE: '1', SITE_REVISIONS_BENCH_OUT: out, SITE_REVISIONS_BENCH_SAMPLES: String(n.host), ...(fs.existsSync(bundle) ? { SITE_REVISIONS_BENCH_BUNDLE: bundle } : {}) },
          });
          if (!fs.existsSync(out)) throw new Error(`the bench suite wrote no figures (harness exit ${r.code ?? r.signal})`);
          const f = JSON.parse(fs.readFileSync(out, 'utf8')) as HostFigures;
          f.installedVsix = installed;
          if (r.code !== 0) errors.push(`extension host: the harness exited with ${r.code ?? r.signal}${f.errors.length ? `: ${f.errors.join('; ')}` : ''}`);
          return f;
        });

    // ---- 3. plain Node, interleaved fresh processes
    const plain = await stage('plain Node (activation, scale)', async () => {
      const activation: ActivationSample[] = [];
      const activationCold: ActivationSample[] = [];
      const scale: ScaleSample[] = [];
      if (!fs.existsSync(bundle)) throw new Error('no bundle to activate (the size step failed)');
      const preload = ['--preload', HOST_BUILTINS.join(',')];
      const sample = async (args: string[], into: ActivationSample[]) => {
        const r = await runNode([path.join(__dirname, 'activationChild.js'), ...args], { label: 'activation', timeoutMs: 60_000 });
        if (r.code !== 0) throw new Error(`activation sample ${into.length + 1} failed (exit ${r.code ?? r.signal})`);
        into.push(lastJson<ActivationSample>(r.stdout));
      };
      for (let i = 0; i < Math.max(n.activation, n.scale); i++) {
        if (i < n.activation) {
          // The manifest's "main" (dist/extension.mjs) imported and activated as in the extension
          // host (Node's built-ins of HOST_BUILTINS already loaded), and in a cold Node process.
          await sample([bundle, ...preload], activation);
          await sample([bundle], activationCold);
        }
        if (i < n.scale) {
          const r = await runNode(['--expose-gc', path.join(__dirname, 'scaleChild.js')], { label: 'scale', timeoutMs: 120_000 });
          if (r.code !== 0) throw new Error(`scale sample ${i + 1} failed (exit ${r.code ?? r.signal})`);
          scale.push(lastJson<ScaleSample>(r.stdout));
        }
      }
      return { activation, activationCold, scale };
    });

    // ---- 4. client overhead, the service in its own process
    const overhead = await stage('client overhead', async (): Promise<OverheadResult & { withLatency1ms?: OverheadResult }> => {
      const service = await startServiceProcess({ dataFile: path.join(tmp, 'service', 'service.json'), args: ['--quiet'], cleanup });
      try {
        const loopback = await clientOverhead(service.url, { iterations: n.abIterations, warmup: n.abWarmup });
        // The target: the same with 1 ms of service latency (a LAN; the internet is slower
        // still), where the client's fixed cost per call meets a request that leaves the machine.
        await configureService(service.url, { latencyMs: 1 });
        log('client overhead with 1 ms of service latency…');
        const lan = await clientOverhead(service.url, { iterations: n.abIterations, warmup: n.abWarmup });
        return { ...loopback, withLatency1ms: lan };
      } finally {
        await service.stop();
      }
    });

    // ---- 5. the disk store, fresh processes (the first read of a process is the figure)
    const store = await stage('disk store (fresh processes)', async () => {
      const folder = path.join(tmp, 'store', 'account');
      const child = path.join(__dirname, 'storeChild.js');
      const prep = await runNode([child, 'prepare', folder], { label: 'store', timeoutMs: 300_000 });
      if (prep.code !== 0) throw new Error(`filling the store failed (exit ${prep.code ?? prep.signal})`);
      const revision: StoreRevisionSample[] = [];
      const files: StoreFilesSample[] = [];
      for (let i = 0; i < n.store; i++) {
        for (const mode of ['revision', 'files'] as const) {
          const r = await runNode([child, mode, folder], { label: 'store', timeoutMs: 60_000 });
          if (r.code !== 0) throw new Error(`store sample ${i + 1} (${mode}) failed (exit ${r.code ?? r.signal})`);
          if (mode === 'revision') revision.push(lastJson<StoreRevisionSample>(r.stdout));
          else files.push(lastJson<StoreFilesSample>(r.stdout));
        }
      }
      return { revision, files };
    });

    // ---- 5b. the import's preview of a 500-site FileZilla file, fresh processes (the readers load on first use)
    const siteImport = await stage('import (preview of a 500-site sitemanager.xml, fresh processes)', async () => {
      const out: ImportPreviewSample[] = [];
      for (let i = 0; i < n.store; i++) {
        const thread = path.join(path.dirname(bundle), 'siteImportWorker.js');
        const r = await runNode([path.join(__dirname, 'siteImportChild.js')], { label: 'import', timeoutMs: 60_000, env: { ...process.env, ...(fs.existsSync(thread) ? { SR_IMPORT_WORKER: thread } : {}) } });
        if (r.code !== 0) throw new Error(`import sample ${i + 1} failed (exit ${r.code ?? r.signal})`);
        out.push(lastJson<ImportPreviewSample>(r.stdout));
      }
      return out;
    });

    // ---- 6. the request scheduler, the service (with the large data set) in its own process
    const scheduler = await stage('request scheduler', async (): Promise<SchedulerFigures> => {
      const service = await startServiceProcess({ dataFile: path.join(tmp, 'service-large', 'service.json'), args: ['--quiet', '--large'], cleanup });
      try {
        return await schedulerBench(service.url, {
          iterations: n.schedulerIterations,
          warmup: 50,
          latencyMs: 1,
          configure: (c) => configureService(service.url, c),
          resetStats: async () => void (await (await fetch(`${service.url}/__control/reset-stats`, { method: 'POST' })).arrayBuffer()),
          stats: async () => (await (await fetch(`${service.url}/__control/stats`)).json()) as { maxInFlight: number },
        });
      } finally {
        await service.stop();
      }
    });

    // ---- 5. revision blame and the diff candidates, interleaved fresh processes
    const blame = await stage('blame (plain Node)', async () => {
      const samples: Record<string, BlameSample[]> = {};
      for (let i = 0; i < n.blame; i++) {
        for (const name of ['default', ...Object.keys(CANDIDATES)]) {
          const r = await runNode([path.join(__dirname, 'blameChild.js'), name], { label: 'blame', timeoutMs: 120_000 });
          if (r.code !== 0) throw new Error(`blame sample ${i + 1} (${name}) failed (exit ${r.code ?? r.signal})`);
          (samples[name] ??= []).push(lastJson<BlameSample>(r.stdout));
        }
      }
      return samples;
    });

    // ---- 7b. revision blame as the extension builds it (in slices), the event loop sampled
    const blameSliced = await stage('blame in slices (plain Node)', async () => {
      const samples: SlicedBlameSample[] = [];
      for (let i = 0; i < n.blame; i++) {
        const r = await runNode([path.join(__dirname, 'blameChild.js'), 'sliced'], { label: 'blame sliced', timeoutMs: 120_000 });
        if (r.code !== 0) throw new Error(`sliced blame sample ${i + 1} failed (exit ${r.code ?? r.signal})`);
        samples.push(lastJson<SlicedBlameSample>(r.stdout));
      }
      return samples;
    });

    // ---- 8. History Search, the service (search-scale data set) in its own process
    const search = await stage('history search', () => searchBench({ quick, tmp, cleanup }));

    // ---- 9. A whole site as it was, the service (search-scale data set) in its own process
    const asOf = await stage('asof: a site as of a moment', () => asOfBench({ quick, tmp, cleanup }));
    // ---- 10. the working copy: a folder's status cold and after a reload, a save; line history
    const scm = await stage('scm (working copy)', async () => {
      const child = path.join(__dirname, 'scmChild.js');
      const work = path.join(tmp, 'scm-folder');
      const run = async (args: string[], label: string) => {
        const r = await runNode([child, ...args], { label, timeoutMs: 300_000 });
        if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code ?? r.signal})`);
        return r.stdout;
      };
      await run(['prepare', work], 'scm prepare');
      const service = await startServiceProcess({ dataFile: path.join(tmp, 'scm-service', 'service.json'), args: ['--quiet', '--search-scale', '--latency', String(SCM_LATENCY_MS)], cleanup });
      const cold: ScmColdSample[] = [];
      const warm: ScmWarmSample[] = [];
      const lines: ScmLinesSample[] = [];
      try {
        for (let i = 0; i < (quick ? 1 : 3); i++) {
          const cache = path.join(tmp, `scm-cache-${i}`);
          cold.push(lastJson<ScmColdSample>(await run(['cold', service.url, work, cache], `scm cold ${i + 1}`)));
          for (let k = 0; k < 2; k++) warm.push(lastJson<ScmWarmSample>(await run(['warm', service.url, work, cache], `scm warm ${i + 1}.${k + 1}`)));
          fs.rmSync(cache, { recursive: true, force: true });
        }
      } finally {
        await service.stop();
      }
      for (let i = 0; i < n.blame; i++) lines.push(lastJson<ScmLinesSample>(await run(['lines'], `line history ${i + 1}`)));
      // Large working files (sparse: no disk), ours and the way before, each sample in a fresh process.
      const largeDir = path.join(tmp, 'scm-large');
      const { digest } = lastJson<{ digest: string }>(await run(['large-prepare', largeDir], 'scm large prepare'));
      const large: ScmLargeSample[] = [];
      const largeBefore: ScmLargeSample[] = [];
      try {
        for (let i = 0; i < (quick ? 1 : 3); i++) {
          large.push(lastJson<ScmLargeSample>(await run(['large', largeDir, digest], `scm large ${i + 1}`)));
          largeBefore.push(lastJson<ScmLargeSample>(await run(['large', largeDir, digest, 'peer'], `scm large, the way before ${i + 1}`)));
        }
      } finally {
        fs.rmSync(largeDir, { recursive: true, force: true });
      }
      return { cold, warm, lines, large, largeBefore };
    });

    // ---- 11. the connection layer against real servers (issue 33)
    const live = await stage('live: the connection layer against real servers', () => liveBench({ quick, tmp, cleanup }));

    // ---- 12. guarded transfers against the real servers (test/live), with the peers
    const transfer = await stage('transfer (guarded upload and download, real servers)', () => transferBench({ quick, tmp, cleanup }));

    // ---- the report
    const rows: Row[] = [];
    // Each block below makes the rows of one step: `load` is that step's (set before the block).
    let load: number | undefined;
    const row = (r: Row) => rows.push(withLoad(r, load));

    load = loadOf('client overhead');
    if (overhead) {
      // The target is met with 1 ms of service latency (issue 16: the transport is plain
      // undici.request); on loopback, with no network at all, the ratio is shown, not judged.
      for (const o of overhead.withLatency1ms?.operations ?? []) {
        row({
          group: 'Client overhead',
          id: `overhead.${o.operation.replace(/\s+/g, '')}`,
          name: `${o.operation}, 1 ms of service latency (client ÷ raw undici)`,
          measured: `${o.ratio.toFixed(3)} (${o.clientMedianUs.toFixed(0)} µs ÷ ${o.rawMedianUs.toFixed(0)} µs)`,
          value: round(o.ratio, 4),
          unit: 'ratio',
          target: `≤ ${TARGETS.overheadRatio}`,
          ok: o.ratio <= TARGETS.overheadRatio,
        });
      }
      const worst = overhead.operations.reduce((a, b) => (b.ratio > a.ratio ? b : a));
      const best = overhead.operations.reduce((a, b) => (b.ratio < a.ratio ? b : a));
      const us = median(overhead.operations.map((o) => o.clientMedianUs - o.rawMedianUs));
      row({
        group: 'Client overhead',
        id: 'overhead.loopback',
        name: 'the six operations on loopback, no latency (client ÷ raw undici)',
        measured: `${best.ratio.toFixed(3)}–${worst.ratio.toFixed(3)} (highest: ${worst.operation}); the client's cost ≈ ${us.toFixed(0)} µs per call`,
        value: round(worst.ratio, 4),
        unit: 'ratio',
        target: '',
        ok: null,
      });
      if (!overhead.sameRequest || overhead.withLatency1ms?.sameRequest === false) errors.push('client overhead: the client and the raw call did not send the same request');
    }

    load = loadOf('extension host');
    if (host) {
      const acts = host.actions;
      const count = (key: string, name: string, target: number, cmp: 'eq' | 'le' = 'eq') => {
        const s = acts[key];
        if (!s?.length) {
          row({ group: 'Requests per action', id: `requests.${key}`, name, measured: 'not measured', value: null, unit: 'requests', target: `${cmp === 'le' ? '≤ ' : ''}${target}`, ok: null });
          return;
        }
        const worst = Math.max(...s.map((x) => x.requests));
        const good = s.every((x) => (cmp === 'eq' ? x.requests === target : x.requests <= target));
        row({
          group: 'Requests per action',
          id: `requests.${key}`,
          name,
          measured: `${s.map((x) => x.requests).join(', ')} (${ms(median(pick(s, (x) => x.ms)), 0)})`,
          value: worst,
          unit: 'requests',
          target: `${cmp === 'le' ? '≤ ' : ''}${target}`,
          ok: good,
        });
      };
      count('expandSite', 'expand a site (100,000 files) after Refresh (fetched first)', 1);
      count('expandFile', 'expand a file (10,000 revisions) after Refresh', 1);
      count('openRevision', 'open a revision, cold (not in memory nor on disk)', 1);
      count('openRevisionAgain', 'open it again (cached)', 0);
      count('compareWithPrevious', 'compare with previous after opening, cold', 1, 'le');
      count('concurrentExpandSite', '10 identical concurrent site expansions after Refresh', 1);
      count('concurrentExpandFile', '10 identical concurrent file expansions after Refresh', 1);
      count('concurrentOpen', '10 identical concurrent opens, cold', 1);
      count('openLargerThanCache', 'a revision larger than the memory cache, disk cache off: open (stat + read)', 1);
      count('openLargerThanCacheAgain', 'open it again', 0);
      count('compareLargerThanCache', 'compare it with previous', 1, 'le');
      count('reopenAfterReload', 'after a window reload: reopen a revision (from disk)', 0);
      count('expandCachedSiteAfterReload', 'after a window reload: expand the cached 100,000-file site (nodes from disk, then the refresh behind)', 1);
      count('openWorkingFile', 'open a mapped working file: blame + gutter + newer-revision alert', 2, 'le');
      count('openWorkingFileAgain', 'the same again within the alert’s throttle window', 0);
    }

    load = loadOf('plain Node');
    if (plain?.scale.length) {
      const s = plain.scale;
      const coldMs = median(pick(s, (x) => x.folderModel.coldMs));
      const heap = median(pick(s, (x) => x.folderModel.modelHeapBytes)) / MB;
      const orderMs = median(pick(s, (x) => x.ordering.coldMs));
      row({ group: 'Scale', id: 'scale.folderModelMs', name: 'folder model of 100,000 paths (first build, plain Node)', measured: `${ms(coldMs)} (warm ${ms(median(pick(s, (x) => x.folderModel.warmMedianMs)))})`, value: round(coldMs, 2), unit: 'ms', target: `≤ ${TARGETS.folderModelMs} ms`, ok: coldMs <= TARGETS.folderModelMs });
      row({ group: 'Scale', id: 'scale.folderModelMB', name: 'heap retained by that model', measured: `${heap.toFixed(1)} MB (+ ${(median(pick(s, (x) => x.folderModel.pathsHeapBytes)) / MB).toFixed(1)} MB of paths)`, value: round(heap, 2), unit: 'MB', target: `≤ ${TARGETS.folderModelMB} MB`, ok: heap <= TARGETS.folderModelMB });
      row({ group: 'Scale', id: 'scale.orderingMs', name: '10,000 revisions: reply → newest-first first page (plain Node)', measured: `${ms(orderMs)} (warm ${ms(median(pick(s, (x) => x.ordering.warmMedianMs)))}; from the body with validation ${ms(median(pick(s, (x) => x.ordering.fromBodyWarmMedianMs)))})`, value: round(orderMs, 2), unit: 'ms', target: `≤ ${TARGETS.orderingMs} ms`, ok: orderMs <= TARGETS.orderingMs });
    }
    load = loadOf('extension host');
    if (host?.huge?.samples.length) {
      const h = host.huge;
      const t = median(pick(h.samples, (x) => x.ms));
      const c = h.contentMs?.length ? median(h.contentMs) : undefined;
      row({ group: 'Scale', id: 'scale.hugeRevisionMs', name: '20 MB revision: request → document content (host)', measured: `${ms(t, 0)}${c !== undefined ? ` (request → bytes in the extension ${ms(c, 0)})` : ''}`, value: round(t, 1), unit: 'ms', target: '', ok: null });
    }
    if (host?.diffGuard?.samples.length) {
      const g = host.diffGuard;
      for (const cold of [true, false]) {
        const list = g.samples.filter((x) => x.cold === cold);
        if (!list.length) continue;
        const loop = medianLoop(list.map((x) => x.loop));
        row({
          group: 'Scale',
          id: `scale.diffGuardLoop${cold ? 'Cold' : 'Warm'}Ms`,
          name: `the diff guard of a ${(g.bytes / MB).toFixed(0)} MB revision: the host's event loop during Compare with Working File (its working file open) until it is refused, the content ${cold ? 'fetched' : 'in memory'} (host; monitorEventLoopDelay, 1 ms)`,
          measured: `${loopText(loop)} (${loopSamples(list.map((x) => x.loop))}; ${ms(median(list.map((x) => x.ms)), 0)} to the refusal)`,
          value: round(ownLoop(loop).maxMs, 1),
          unit: 'ms',
          target: `max ≤ ${LOOP_TARGETS.maxMs} ms, p99 ≤ ${LOOP_TARGETS.p99Ms} ms`,
          ok: loopOk(loop) && list.every((x) => x.outcome === 'too-large'),
        });
      }
    }
    if (host?.actions.expandCachedSiteAfterReload?.length) {
      const t = median(pick(host.actions.expandCachedSiteAfterReload, (x) => x.ms));
      row({ group: 'Scale', id: 'scale.expandCachedSiteHostMs', name: 'after a window reload: expand the cached 100,000-file site, disk → nodes (host)', measured: ms(t, 0), value: round(t, 1), unit: 'ms', target: '≤ 500 ms', ok: t <= 500 });
    }
    if (host?.actions.expandSite?.length) {
      row({ group: 'Scale', id: 'scale.expandSiteHostMs', name: 'expand the 100,000-file site, request → nodes (host)', measured: ms(median(pick(host.actions.expandSite, (x) => x.ms)), 0), value: round(median(pick(host.actions.expandSite, (x) => x.ms)), 1), unit: 'ms', target: '', ok: null });
    }

    if (host?.restorePlan?.length) {
      const r = host.restorePlan;
      const held = median(r.map((x) => x.heldMB));
      const complete = r.every((x) => x.listed === x.files);
      row({
        group: 'Site as of a moment',
        id: 'asof.restorePlanHeapMB',
        name: `peak heap of an as-of restore plan of ${r[0]!.files} × ${(r[0]!.bytes / 1e6).toFixed(0)} MB: V8's used heap held while its confirmation waits (after a full collection), minus before "Restore Into Local Folder…" (host)`,
        measured: `${held.toFixed(1)} MB held; highest sample while the plan was read ${median(r.map((x) => x.peakMB)).toFixed(0)} MB${complete ? '' : '; NOT EVERY FILE LISTED'}`,
        value: round(held, 1),
        unit: 'MB',
        target: `≤ ${TARGETS.restorePlanHeldMB} MB held`,
        ok: complete && held <= TARGETS.restorePlanHeldMB,
      });
    }

    load = loadOf('plain Node');
    if (plain?.activation.length) {
      const a = plain.activation;
      const split = (xs: ActivationSample[]) => `${ms(median(pick(xs, (x) => x.totalMs)))} (load ${ms(median(pick(xs, (x) => x.loadMs)))} + activate ${ms(median(pick(xs, (x) => x.activateMs)))})`;
      row({ group: 'Activation', id: 'activation.plainMs', name: `import dist/extension.mjs + activate(), compiled from source (plain Node, fake vscode; ${HOST_BUILTINS.join('/')} loaded, as in the host)`, measured: split(a), value: round(median(pick(a, (x) => x.totalMs)), 2), unit: 'ms', target: '', ok: null });
      const firstRequest = median(a.map((x) => x.firstRequestMs).filter((x): x is number => x !== undefined));
      row({ group: 'Activation', id: 'activation.firstRequestMs', name: 'the first request after a start: call → socket connect (loading the client\'s chunk and undici\'s, compiled from source; plain Node)', measured: ms(firstRequest), value: round(firstRequest, 2), unit: 'ms', target: `≤ ${TARGETS.firstRequestMs} ms`, ok: firstRequest <= TARGETS.firstRequestMs });
      if (plain.activationCold.length) {
        const cold = median(pick(plain.activationCold, (x) => x.totalMs));
        row({ group: 'Activation', id: 'activation.plainColdMs', name: `the same in a cold Node process (it loads ${HOST_BUILTINS.join('/')} too)`, measured: ms(cold), value: round(cold, 2), unit: 'ms', target: '', ok: null });
      }
      const all = [...a, ...plain.activationCold];
      const sockets = Math.max(...all.map((x) => x.sockets + x.dnsLookups));
      const undici = all.some((x) => x.undiciEvaluated);
      const control = all.find((x) => x.control)?.control;
      const controlOk = !!control && control.undiciEvaluated && control.sockets > 0;
      row({ group: 'Activation', id: 'activation.network', name: 'sockets / DNS lookups during activation', measured: String(sockets), value: sockets, unit: 'count', target: '0', ok: sockets === 0 });
      row({ group: 'Activation', id: 'activation.undici', name: 'undici evaluated during activation', measured: `${undici ? 'yes' : 'no'} (detector ${controlOk ? 'fires on the first request' : 'NOT verified'})`, value: undici ? 1 : 0, unit: 'bool', target: 'no', ok: !undici && controlOk });
    }
    load = loadOf('extension host');
    if (host) {
      const f = host.activation.fresh ?? [];
      if (f.length) {
        const t = median(pick(f, (x) => x.totalMs));
        row({ group: 'Activation', id: 'activation.hostFreshMs', name: 'import dist/extension.mjs + activate() in the host, compiled from source (fresh copies: every start)', measured: `${ms(t)} (load ${ms(median(pick(f, (x) => x.loadMs)))} + activate ${ms(median(pick(f, (x) => x.activateMs)))}); requests ${Math.max(...f.map((x) => x.requests))}`, value: round(t, 2), unit: 'ms', target: `≤ ${TARGETS.activationMs} ms`, ok: t <= TARGETS.activationMs });
        const r = median(pick(f, (x) => x.firstRequestMs));
        row({ group: 'Activation', id: 'activation.hostFirstRequestMs', name: 'their first request in the host: Get Sites, call → reply from the local service (loading the client\'s chunk and undici\'s)', measured: ms(r), value: round(r, 2), unit: 'ms', target: '', ok: null });
      }
      if (host.activation.builtinsBefore) {
        const missing = HOST_BUILTINS.filter((b) => !host.activation.builtinsBefore!.includes(b));
        row({ group: 'Activation', id: 'activation.hostBuiltins', name: `${HOST_BUILTINS.join('/')} already loaded in the host before the extension activates`, measured: missing.length ? `no: ${missing.join(', ')} missing` : 'yes', value: missing.length ? 0 : 1, unit: 'bool', target: 'yes', ok: missing.length === 0 });
      }
      row({
        group: 'Activation',
        id: 'activation.hostFirstMs',
        name: `first activation in the host (extension.activate(), one sample; ${host.installedVsix ? 'installed .vsix' : 'development bundle'})`,
        measured: host.activation.firstActivateMs !== undefined ? ms(host.activation.firstActivateMs, 0) : 'already active',
        value: host.activation.firstActivateMs !== undefined ? round(host.activation.firstActivateMs, 1) : null,
        unit: 'ms',
        target: '',
        ok: null,
      });
    }

    load = loadOf('disk store');
    if (store) {
      const read = median(pick(store.revision, (x) => x.readMs));
      const open = median(pick([...store.revision, ...store.files], (x) => x.openMs));
      row({ group: 'Disk store', id: 'store.revisionMs', name: 'reopen a 100 KB revision from disk (fresh process: the store’s read, hash checked)', measured: `${ms(read, 2)} (opening the store before it: ${ms(open)})`, value: round(read, 3), unit: 'ms', target: `≤ ${TARGETS.storeRevisionMs} ms`, ok: read <= TARGETS.storeRevisionMs });
      const total = median(pick(store.files, (x) => x.listToModelMs));
      row({
        group: 'Disk store',
        id: 'store.filesModelMs',
        name: 'a cached site of 100,000 files after a restart: file list from disk → folder model (fresh process)',
        measured: `${ms(total)} (list ${ms(median(pick(store.files, (x) => x.peekMs)))} + model ${ms(median(pick(store.files, (x) => x.modelMs)))})`,
        value: round(total, 2),
        unit: 'ms',
        target: `≤ ${TARGETS.storeFilesModelMs} ms`,
        ok: total <= TARGETS.storeFilesModelMs,
      });
    }
    load = loadOf('import');
    if (siteImport?.length) {
      const cold = median(pick(siteImport, (x) => x.coldMs));
      const x = siteImport[0]!;
      row({
        group: 'Import',
        id: 'import.previewMs',
        name: `preview of a ${x.sites}-site sitemanager.xml (${kb(x.bytes)}): read, parsed on the import's thread (${x.packagedThread ? 'the packaged dist/siteImportWorker.js' : 'out/\'s modules: no package built'}), checked against the site form, matched with 300 sites on the service (first call of a fresh process, the import's code loaded; plain Node)`,
        measured: `${ms(cold)} (loading the code ${ms(median(pick(siteImport, (y) => y.loadMs)))}; warm ${ms(median(pick(siteImport, (y) => y.warmMs)))}; the parse alone ${ms(median(pick(siteImport, (y) => y.parseWarmMs)))}; an empty thread started ${ms(median(pick(siteImport, (y) => y.emptyThreadMs)))}; ${x.alreadyOnService} found on the service)`,
        value: round(cold, 2),
        unit: 'ms',
        target: `≤ ${TARGETS.importPreviewMs} ms`,
        ok: cold <= TARGETS.importPreviewMs && x.rows === x.sites,
      });
    }
    if (size?.metafile) {
      const loaded = size.metafile.activationInputs.filter((i) => /^src\/(core\/siteImport\/|features\/siteImport\/(?!register\.ts$|names\.ts$))|^node_modules\/(fast-xml-parser|jsonc-parser)\//.test(i));
      row({ group: 'Import', id: 'import.atActivation', name: 'modules of the import (its readers, fast-xml-parser, jsonc-parser) that activation loads', measured: loaded.length ? loaded.join(', ') : 'none', value: loaded.length, unit: 'count', target: '0', ok: loaded.length === 0 });
    }
    load = loadOf('request scheduler');
    if (scheduler) {
      const o = scheduler.overhead;
      row({ group: 'Scheduler', id: 'scheduler.overheadPercent', name: `overhead per request at ${o.latencyMs} ms service latency (client with − without scheduler, ÷ raw undici)`, measured: `${o.percentOfRaw.toFixed(2)} % (${o.pairedDiffMedianUs.toFixed(1)} µs of ${o.rawMedianUs.toFixed(0)} µs)`, value: round(o.percentOfRaw, 3), unit: '%', target: `≤ ${TARGETS.schedulerOverheadPercent} %`, ok: o.percentOfRaw <= TARGETS.schedulerOverheadPercent });
      row({ group: 'Scheduler', id: 'scheduler.inProcessUs', name: 'its own cost per read (a shared call holding a slot, in process, no I/O)', measured: `${scheduler.inProcessUs.toFixed(2)} µs`, value: round(scheduler.inProcessUs, 3), unit: 'µs', target: '', ok: null });
      const c = scheduler.concurrency;
      row({ group: 'Scheduler', id: 'scheduler.maxInFlight', name: `${c.requests} concurrent background reads, concurrency ${c.limit}: most in flight at the service`, measured: `${c.maxInFlight}${c.failed ? ` (${c.failed} failed)` : ''}`, value: c.maxInFlight, unit: 'requests', target: `≤ ${TARGETS.schedulerConcurrency}`, ok: c.maxInFlight <= TARGETS.schedulerConcurrency && c.failed === 0 });
      row({ group: 'Scheduler', id: 'scheduler.userOvertaken', name: 'a user action queued behind them: requests started between queueing it and its start', measured: `${c.startedBeforeUser} (${c.inFlightWhenQueued} in flight when it was queued)`, value: c.startedBeforeUser, unit: 'requests', target: '0', ok: c.startedBeforeUser === 0 });
    }
    load = loadOf('blame (plain');
    const own = blame?.default;
    if (own?.length) {
      const cold = median(pick(own, (x) => x.coldMs));
      const what = `${own[0]!.lines.toLocaleString('en-US')} lines × ${own[0]!.revisions} revisions`;
      row({ group: 'Blame', id: 'blame.historyMs', name: `blame of ${what}, first in a process (plain Node; ${CHOSEN})`, measured: `${ms(cold)} (CPU ${ms(median(pick(own, (x) => x.coldCpuMs)))}; warm ${ms(median(pick(own, (x) => x.warmMs)))}; loading the module ${ms(median(pick(own, (x) => x.loadMs)))})`, value: round(cold, 2), unit: 'ms', target: `≤ ${TARGETS.blameMs} ms`, ok: cold <= TARGETS.blameMs });
      const att = own.filter((x) => x.attribute).map((x) => x.attribute!);
      const first = median(pick(att, (x) => x.coldMs));
      row({ group: 'Blame', id: 'blame.reattributeMs', name: 're-attribution after a one-line edit (first call after blaming)', measured: `${ms(first)} (the next ${att[0]!.edits - 1} edits ${ms(median(pick(att, (x) => x.warmMs)), 2)})`, value: round(first, 2), unit: 'ms', target: `≤ ${TARGETS.reattributeMs} ms`, ok: first <= TARGETS.reattributeMs });
      const ext = median(own.filter((x) => x.extendMs !== undefined).map((x) => x.extendMs!));
      row({ group: 'Blame', id: 'blame.extendMs', name: 'one newer revision taken in (extend), not the whole history again', measured: ms(ext, 2), value: round(ext, 2), unit: 'ms', target: '', ok: null });
      const kept = Math.max(...Object.values(blame!).flat().map((x) => x.keptLines));
      for (const [name, list] of Object.entries(blame!)) {
        if (name === 'default') continue;
        const k = Math.min(...list.map((x) => x.keptLines));
        const c = median(pick(list, (x) => x.coldMs));
        row({
          group: 'Blame',
          id: `blame.candidate.${name.replace(/\W+/g, '')}`,
          name: `diff package ${name}: blame first / warm; the package alone on whole files (warm)`,
          measured: `${ms(c, 0)} / ${ms(median(pick(list, (x) => x.warmMs)), 0)}; alone ${ms(median(pick(list, (x) => x.raw.warmMs)), 0)}; ${k === kept ? 'minimal' : `NOT minimal (${kept - k} lines fewer kept)`}`,
          value: round(c, 1),
          unit: 'ms',
          target: '',
          ok: null,
        });
      }
    }
    load = loadOf('blame in slices');
    if (blameSliced?.length) {
      const loop = medianLoop(blameSliced.map((x) => x.loop));
      const b = blameSliced[0]!;
      row({
        group: 'Blame',
        id: 'blame.loopMs',
        name: `event loop while Toggle Revision Blame builds the blame of ${b.lines.toLocaleString('en')} lines × ${b.revisions} revisions (BlameHistory.build, in slices; first in a process; monitorEventLoopDelay, 1 ms)`,
        measured: `${loopText(loop)} (${loopSamples(blameSliced.map((x) => x.loop))}; built in ${ms(median(blameSliced.map((x) => x.ms)))})`,
        value: round(ownLoop(loop).maxMs, 1),
        unit: 'ms',
        target: `max ≤ ${LOOP_TARGETS.maxMs} ms, p99 ≤ ${LOOP_TARGETS.p99Ms} ms`,
        ok: loopOk(loop),
      });
    }
    load = loadOf('history search');
    if (search) searchRows(search).forEach(row);
    load = loadOf('asof');
    if (asOf) asOfRows(asOf).forEach(row);
    load = loadOf('scm');
    if (scm) scmRows(scm).forEach(row);
    load = loadOf('live');
    if (live) {
      liveRows(live).forEach(row);
      errors.push(...live.errors.map((e) => `live: ${e}`));
    }
    load = loadOf('transfer');
    if (transfer) transferRows(transfer).forEach(row);
    load = loadOf('extension host');
    transferHostRows(host?.transfer).forEach(row);
    load = undefined;

    if (size) {
      if (host?.bundleBytes !== undefined && host.bundleBytes !== size.benchBundleBytes) {
        errors.push(`extension host: the fresh copies were loaded from a bundle of ${host.bundleBytes} bytes, not the packaged one with test handles (${size.benchBundleBytes})`);
      }
      row({ group: 'Size', id: 'size.bundle', name: 'dist/extension.mjs (production; the entry point)', measured: kb(size.bundleBytes), value: size.bundleBytes, unit: 'bytes', target: '', ok: null });
      const outputs = size.metafile?.outputs ?? [];
      if (size.metafile) row({ group: 'Size', id: 'size.activation', name: `what activation loads: the entry point and the ${outputs.filter((o) => o.atActivation).length - 1} chunks it imports`, measured: kb(size.metafile.activationBytes), value: size.metafile.activationBytes, unit: 'bytes', target: '', ok: null });
      /** When each chunk split off for a dynamic import() is loaded, by the module it was split for. */
      const loadedWhen: [RegExp, string][] = [
        [/^src\/core\/api\/undiciParts\.ts$/, 'undici (its Agent, ProxyAgent and dispatcher API): loaded on the first request'],
        [/^src\/features\/auth\/clientFactory\.ts$/, 'the service client: loaded on the first request'],
        [/^src\/features\/auth\/diskStore\.ts$/, 'the disk store: loaded when the disk cache is first read'],
        [/^src\/features\/revisions\/index\.ts$/, 'the revisions feature: loaded on the first expansion of a site, revision document or revision command, or once a folder is mapped and the session restored'],
        [/^src\/features\/sites\/commands\.ts$/, 'the site commands: loaded on the first of them (create, edit, duplicate, delete, open web URL, copy details) or a site form restored after a reload'],
        [/^src\/features\/scm\/index\.ts$/, 'the source controls and Line History: loaded on their first command, or once a folder is mapped and the session restored'],
        [/^src\/features\/siteAsOf\/index\.ts$/, 'a site as it was, compare sites: loaded on their first command'],
        [/^src\/core\/blame\/index\.ts$/, 'the revision blame: loaded when blame is first used'],
        [/^src\/features\/editor\/index\.ts$/, 'the editor features: loaded on the first blame or compare command, or once a folder is mapped and the session restored'],
        [/^src\/features\/history\/feature\.ts$/, 'History Search, Site Changes, the language-model tools: loaded on their first command or tool call'],
        [/^src\/features\/sites\/siteEditor\.ts$/, 'the site editor\'s host side: loaded when a site form first opens'],
      ];
      for (const o of size.otherJs) {
        // By name, else by size: a chunk with code from node_modules is named after paths that differ in the build's copy.
        const out = outputs.find((x) => path.basename(x.path) === path.basename(o.path)) ?? outputs.find((x) => x.bytes === o.bytes);
        const what = out?.entryPoint ? (loadedWhen.find(([re]) => re.test(out.entryPoint!))?.[1] ?? `${out.entryPoint}: loaded on first use`) : out?.atActivation ? 'shared, loaded at activation' : out ? 'shared by chunks loaded on first use' : o.path === 'dist/siteEditor.js' ? 'the site editor\'s webview script' : 'not in the metafile';
        row({ group: 'Size', id: `size.${path.basename(o.path).replace(/\.m?js$/, '')}`, name: `${o.path} (${what})`, measured: kb(o.bytes), value: o.bytes, unit: 'bytes', target: '', ok: null });
      }
      if (size.vsixBytes !== undefined) row({ group: 'Size', id: 'size.vsix', name: '.vsix', measured: `${kb(size.vsixBytes)} (${size.vsixFiles?.length ?? '?'} files)`, value: size.vsixBytes, unit: 'bytes', target: `≤ ${TARGETS.vsixKB} KB`, ok: size.vsixBytes <= TARGETS.vsixKB * 1024 });
      if (size.metafileMatchesBundle === false) errors.push(`size: the production build's dist/meta.json (${size.metafile?.outputBytes} bytes) does not describe the packaged bundle (${size.bundleBytes} bytes): were the sources changed during the run?`);
    }

    const report = {
      machine: m,
      durationSeconds: round((Date.now() - started) / 1000, 1),
      quick,
      targets: TARGETS,
      figures: rows,
      details: {
        clientOverhead: overhead,
        host,
        activation: plain?.activation,
        activationCold: plain?.activationCold,
        scale: plain?.scale,
        store,
        scheduler,
        blame,
        blameSliced,
        search,
        transfer,
        scm,
        live,
        size,
      },
      errors,
      ok: errors.length === 0,
      targetsMissed: rows.filter((r) => r.ok === false).map((r) => r.id),
    };
    await emit(report, values);
    log(`finished in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return exitCode(report, values.strict);
  } finally {
    await cleanup.run();
  }
}

/** The working-copy rows: a folder's status after a reload and cold, a save, the event loop, line history, large working files. */
function scmRows(f: { cold: ScmColdSample[]; warm: ScmWarmSample[]; lines: ScmLinesSample[]; large?: ScmLargeSample[]; largeBefore?: ScmLargeSample[] }): Row[] {
  const rows: Row[] = [];
  const w = SCM_WORKLOAD;
  const what = `a mapped folder of ${w.files.toLocaleString('en-US')} files (${w.edited} changed locally, ${w.older} older than the service, ${w.missing} missing, ${w.localOnly} with no revision)`;
  const groupsOk = (g: ScmColdSample['groups']) => g.changedLocally === w.edited && g.newerOnService === w.older && g.onlyOnService === w.missing && g.unknown === 0;
  if (f.warm.length) {
    const first = median(f.warm.map((x) => x.firstMs));
    const ok = f.warm.every((x) => x.requests === 0 && groupsOk(x.groups));
    rows.push({ group: 'Working copy', id: 'scm.firstStatusMs', name: `status of ${what}, everything cached, after a reload: the folder's snapshot, every working file checked (fresh process)`, measured: `${ms(first)} (then the pass over the disk cache: ${ms(median(f.warm.map((x) => x.cachedMs)), 0)}; ${f.warm.map((x) => x.requests).reduce((a, b) => a + b, 0)} requests${ok ? '' : '; GROUPS WRONG'})`, value: round(first, 2), unit: 'ms', target: `≤ ${TARGETS.scmFirstStatusMs} ms`, ok: ok && first <= TARGETS.scmFirstStatusMs });
    const save = median(f.warm.map((x) => x.saveMs));
    const requests = Math.max(...f.warm.map((x) => x.requests));
    rows.push({ group: 'Working copy', id: 'scm.saveMs', name: 'a save of one file: read, hashed, its state and the groups updated', measured: `${ms(save, 2)}, ${requests} requests${f.warm.every((x) => x.saveChanged) ? '' : '; STATE NOT UPDATED'}`, value: round(save, 3), unit: 'ms', target: `≤ ${TARGETS.scmSaveMs} ms, 0 requests`, ok: save <= TARGETS.scmSaveMs && requests === 0 && f.warm.every((x) => x.saveChanged) });
    // Judged on the thread's own work (its CPU time between two 1 ms ticks; bench/lib.ts ownLoop).
    const loop = medianLoop(f.warm.map((x) => x.loop));
    const max = ownLoop(loop).maxMs;
    rows.push({ group: 'Working copy', id: 'scm.loopMaxMs', name: 'event loop meanwhile (the status, the pass over the disk cache, the save; monitorEventLoopDelay, 1 ms)', measured: `${loopText(loop)} (${loopSamples(f.warm.map((x) => x.loop))})`, value: round(max, 1), unit: 'ms', target: `max ≤ ${TARGETS.scmLoopMaxMs} ms`, ok: max <= TARGETS.scmLoopMaxMs });
  }
  if (f.cold.length) {
    // Judged on the status's own time: the wall time less the time its thread waited for a core
    // (Linux run-queue wait), which is what else the machine does. (The local service's own waits
    // stay in: they are not on the status's path in a way one counter can tell, docs/benchmarks.md.)
    const waited = (x: ScmColdSample) => x.waitMs ?? 0;
    const ratios = f.cold.map((x) => {
      const requests = Object.values(x.requests).reduce((a, b) => a + b, 0);
      const ideal = (requests / w.concurrency) * SCM_LATENCY_MS;
      return { ...x, requests, ideal, wall: x.wallMs / ideal, own: (x.wallMs - waited(x)) / ideal };
    });
    const ratio = median(ratios.map((x) => x.own));
    const byWait = f.cold.every((x) => x.waitMs !== undefined);
    const s2 = (n: number) => `${(n / 1000).toFixed(2)} s`;
    const one = f.cold.every((x) => x.requests.getRevisions === w.files && x.requests.getRevisionFiles === 1 && Object.keys(x.requests).length === 2 && groupsOk(x.groups));
    rows.push({
      group: 'Working copy',
      id: 'scm.coldRatio',
      name: `status of the same folder with nothing cached: one Get Revisions (with content) per file at background priority, concurrency ${w.concurrency}, ${SCM_LATENCY_MS} ms service latency: wall time ÷ ideal (requests ÷ concurrency × latency)`,
      measured: `${ratio.toFixed(2)}${byWait ? ` (wall time less the ${s2(median(f.cold.map((x) => x.waitMs!)))} its thread waited for a core; as measured ${median(ratios.map((x) => x.wall)).toFixed(2)}` : ' (as measured'}, ${s2(median(f.cold.map((x) => x.wallMs)))}; samples ${ratios.map((x) => x.own.toFixed(2)).join(', ')}; its CPU ${f.cold.every((x) => x.cpuMs !== undefined) ? s2(median(f.cold.map((x) => x.cpuMs!))) : 'n/a'}; requests ${JSON.stringify(f.cold[0]!.requests)}, at most ${Math.max(...f.cold.map((x) => x.maxInFlight))} at once)`,
      value: round(ratio, 3),
      unit: 'ratio',
      target: `≤ ${TARGETS.scmColdRatio}, one Get Revisions per file`,
      ok: one && ratio <= TARGETS.scmColdRatio,
    });
  }
  if (f.warm.length) {
    const sweep = median(f.warm.map((x) => x.sweepMs));
    const none = f.warm.every((x) => x.sweepChanged === 0);
    rows.push({
      group: 'Working copy',
      id: 'scm.sweepMs',
      name: `a look at every working file's size and time, none changed (what a folder's source control does every ${Math.max(3, (w.files * 2) / 1000)} s while the window has the focus, for what VS Code's file watcher missed), ${w.files.toLocaleString('en-US')} files`,
      measured: `${ms(sweep)} (samples ${f.warm.map((x) => x.sweepMs.toFixed(1)).join(', ')} ms)${none ? '' : '; CHANGES SEEN'}`,
      value: round(sweep, 2),
      unit: 'ms',
      target: `≤ ${TARGETS.scmSweepMs} ms`,
      ok: none && sweep <= TARGETS.scmSweepMs,
    });
  }
  if (f.large?.length) {
    const l = SCM_LARGE_WORKLOAD;
    const gb = (b: number) => `${(b / 1024 ** 3).toFixed(1)} GB`;
    const what = `a mapped folder with large working files (sparse: ${l.tooLarge.map((b) => (b >= 1024 ** 3 ? gb(b) : `${b / 1024 ** 2} MB`)).join(', ')} over the largest revision the client can read, not read; ${l.hashed.length} × ${l.hashed[0]! / 1024 ** 2} MB, hashed)`;
    // Judged on the thread's own work where measured (issue 32 §8), the loop's delay beside it.
    const loop = medianLoop(f.large.map((x) => x.loop));
    const own = ownLoop(loop);
    const before = f.largeBefore ?? [];
    const groupsOk = f.large.every((x) => x.groups && x.groups.notCompared === l.tooLarge.length && x.groups.same === 1 && x.groups.changedLocally === l.hashed.length - 1 && x.groups.onlyOnService === 0 && x.groups.unknown === 0);
    rows.push({
      group: 'Working copy',
      id: 'scm.largeLoopMaxMs',
      name: `event loop during the status of ${what}`,
      measured: `${loopText(loop)} (samples ${loopSamples(f.large.map((x) => x.loop))}; ${(median(f.large.map((x) => x.wallMs)) / 1000).toFixed(2)} s)${before.length ? `; the way before (fs.readFile and a synchronous SHA-256, the 48 MB files alone): ${loopText(medianLoop(before.map((x) => x.loop)))}` : ''}${groupsOk ? '' : '; GROUPS WRONG'}`,
      value: round(own.maxMs, 1),
      unit: 'ms',
      target: `max ≤ ${TARGETS.scmLargeLoopMaxMs} ms`,
      ok: groupsOk && own.maxMs <= TARGETS.scmLargeLoopMaxMs,
    });
    const rss = median(f.large.map((x) => x.rssPeakOverMB));
    rows.push({
      group: 'Working copy',
      id: 'scm.largeRssMB',
      name: `peak RSS over the RSS before, during the status of the same folder (${median(f.large.map((x) => x.hashedMB)).toFixed(0)} MB hashed)`,
      measured: `${rss.toFixed(1)} MB (bytes in flight at most ${median(f.large.map((x) => x.budgetPeakMB ?? 0)).toFixed(0)} MB)${before.length ? `; the way before, the 48 MB files alone: ${median(before.map((x) => x.rssPeakOverMB)).toFixed(0)} MB` : ''}`,
      value: round(rss, 1),
      unit: 'MB',
      target: `≤ ${TARGETS.scmLargeRssMB} MB`,
      ok: rss <= TARGETS.scmLargeRssMB,
    });
  }
  if (f.lines.length) {
    // Judged on the thread's CPU time of the first call where measured (its wall time beside it).
    const cpu = f.lines.every((x) => x.coldCpuMs !== undefined) ? median(f.lines.map((x) => x.coldCpuMs!)) : undefined;
    const wall = median(f.lines.map((x) => x.coldMs));
    const judged = cpu ?? wall;
    rows.push({ group: 'Working copy', id: 'scm.lineHistoryMs', name: 'line history of 10 lines of a 5,000-line file with 50 revisions, contents in memory (first call of a process)', measured: `${cpu !== undefined ? `${ms(cpu)} of CPU time (wall ${ms(wall)})` : ms(wall)} (warm ${ms(median(f.lines.map((x) => x.warmMs)))}; ${f.lines[0]!.entries} revisions changed them)`, value: round(judged, 2), unit: 'ms', target: `≤ ${TARGETS.lineHistoryMs} ms`, ok: judged <= TARGETS.lineHistoryMs });
  }
  return rows;
}

/** What `--json` prints (and `--from` reads back). */
interface Report {
  machine: Machine;
  figures: Row[];
  details: { size?: SizeFigures };
  errors: string[];
  targetsMissed: string[];
}

function exitCode(report: Report, strict: boolean): number {
  if (report.errors.length) return 1;
  return strict && report.targetsMissed.length ? 1 : 0;
}

/**
 * Prints the report (one JSON object, or the table) and writes docs/benchmarks.md's table when asked.
 * Resolves once stdout has taken the whole text: a pipe takes 64 KiB at a time, and an exit
 * before the rest is written would cut it off.
 */
async function emit(report: Report, o: { json: boolean; 'write-docs': boolean }): Promise<void> {
  const { figures: rows, machine: m, errors } = report;
  const metafile = report.details.size?.metafile;
  const modules = metafile?.top ?? [];
  const text = o.json ? JSON.stringify(report) + '\n' : textTable(rows, m, modules) + '\n' + (errors.length ? `\nErrors:\n${errors.map((e) => `  ${e}`).join('\n')}\n` : '');
  await new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
  if (o['write-docs']) {
    if (errors.length) log('docs/benchmarks.md not updated: some figures could not be measured');
    else {
      writeBenchTable(BENCH_DOC, markdown(rows, m, modules, metafile?.byPackage ?? []));
      log('docs/benchmarks.md: benchmark table updated');
    }
  }
}

async function configureService(url: string, config: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url}/__control/config`, { method: 'POST', body: JSON.stringify(config), headers: { 'content-type': 'application/json' } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`service config: HTTP ${res.status}`);
}

/** Runs the project's production build (esbuild.mjs --production) in a copy of the sources; returns its dist/meta.json. */
async function productionMetafile(stage: string, testHooks = false): Promise<string> {
  fs.mkdirSync(stage, { recursive: true });
  for (const name of ['src', 'esbuild.mjs', 'package.json', 'tsconfig.json']) {
    if (fs.existsSync(path.join(repoRoot, name))) fs.cpSync(path.join(repoRoot, name), path.join(stage, name), { recursive: true });
  }
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
  const r = await runNode([path.join(stage, 'esbuild.mjs'), '--production', ...(testHooks ? ['--test-hooks'] : [])], { label: 'esbuild', cwd: stage, timeoutMs: 120_000 });
  const meta = path.join(stage, 'dist', 'meta.json');
  if (r.code !== 0 || !fs.existsSync(meta)) throw new Error(`the production build failed (exit ${r.code ?? r.signal})`);
  return meta;
}

function metafileOf(file: string, bundleBytes: number): { metafile?: BundleAnalysis; metafileMatchesBundle?: boolean } {
  if (!fs.existsSync(file)) return {};
  const metafile = analyseMetafile(file);
  return { metafile, metafileMatchesBundle: metafile.outputBytes === bundleBytes };
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(1);
  },
);

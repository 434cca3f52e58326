// Shared plumbing of the host scripts (run, desktop, start, screenshots): paths, run folders,
// free ports, child processes that are stopped as a whole, and the local service.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The repository root (this file runs from out/test/host/). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');
/** Where Node 24 and code-server are installed; env SITE_REVISIONS_CACHE_DIR overrides (e.g. a CI cache). */
export const cacheDir = process.env.SITE_REVISIONS_CACHE_DIR ? path.resolve(process.env.SITE_REVISIONS_CACHE_DIR) : path.join(repoRoot, '.cache');
export const runsDir = path.join(repoRoot, '.test-runs');
/** The compiled suite folder (holds index.js), used as extensionTestsPath. */
export const integrationOutDir = path.join(repoRoot, 'out', 'test', 'integration');
export const serviceMain = path.join(repoRoot, 'out', 'test', 'server', 'main.js');
export const EXTENSION_ID = 'site-revisions.site-revisions';

export function log(msg: string): void {
  process.stderr.write(`[host] ${msg}\n`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function extensionVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Creates `<repo>/.test-runs/<kind>-<id>/`. Ids stay short: VS Code puts unix sockets under
 * TMPDIR, and a socket path must stay under ~107 bytes.
 */
export function makeRunDir(kind: string, opts: { keepLast?: number } = {}): string {
  fs.mkdirSync(runsDir, { recursive: true });
  if (opts.keepLast !== undefined) pruneRunDirs(kind, opts.keepLast);
  const id = `${kind}-${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 2).toString(36)}`;
  const dir = path.join(runsDir, id);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Deletes old run folders of `kind` (kept from failed runs), keeping the newest `keep` and any from the last 15 minutes. */
function pruneRunDirs(kind: string, keep: number): void {
  const prefix = `${kind}-`;
  const dirs = fs
    .readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith(prefix))
    .map((d) => ({ p: path.join(runsDir, d.name), t: fs.statSync(path.join(runsDir, d.name)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const d of dirs.slice(keep)) {
    if (Date.now() - d.t < 15 * 60 * 1000) continue;
    fs.rmSync(d.p, { recursive: true, force: true });
  }
}

/** A private temp folder for sockets: inside the run folder when its path is short enough. */
export function makeTmpDir(runDir: string): string {
  const inside = path.join(runDir, 't');
  if (inside.length <= 56) {
    fs.mkdirSync(inside, { recursive: true, mode: 0o700 });
    return inside;
  }
  return fs.mkdtempSync(path.join(os.tmpdir(), 'sr-'));
}

export function writeJson(file: string, value: unknown, mode?: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n', mode === undefined ? {} : { mode });
  if (mode !== undefined) fs.chmodSync(file, mode);
}

function tryListen(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(undefined));
    srv.listen({ port, host, exclusive: true }, () => {
      const addr = srv.address();
      const got = typeof addr === 'object' && addr ? addr.port : undefined;
      srv.close(() => resolve(got));
    });
  });
}

/** A free TCP port on `host`: `preferred` when it is free, otherwise one the OS picks. */
export async function freePort(preferred?: number, host = '127.0.0.1'): Promise<number> {
  if (preferred) {
    const p = await tryListen(preferred, host);
    if (p) return p;
  }
  const p = await tryListen(0, host);
  if (!p) throw new Error(`no free port on ${host}`);
  return p;
}

/** Environment of child processes: the caller's, without variables of an enclosing VS Code / Electron. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(VSCODE_|ELECTRON_)/.test(k)) continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

// ---------------------------------------------------------------------------------------------
// Processes

interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  cmd: string;
}

/** All processes (Linux /proc); an empty list elsewhere. */
export function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      let cmd = '';
      try {
        cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        /* gone */
      }
      out.push({ pid: Number(name), state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]), cmd: cmd || stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      /* the process ended meanwhile */
    }
  }
  return out;
}

/** Live (non-zombie) processes in the group `pgid` or below `rootPid`. */
function treeOf(rootPid: number, procs = listProcesses()): ProcInfo[] {
  const byParent = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = byParent.get(p.ppid) ?? [];
    list.push(p);
    byParent.set(p.ppid, list);
  }
  const found = new Map<number, ProcInfo>();
  for (const p of procs) if (p.pgrp === rootPid || p.pid === rootPid) found.set(p.pid, p);
  const stack = [...found.values()];
  while (stack.length) {
    const p = stack.pop()!;
    for (const c of byParent.get(p.pid) ?? []) {
      if (!found.has(c.pid)) {
        found.set(c.pid, c);
        stack.push(c);
      }
    }
  }
  return [...found.values()].filter((p) => p.state !== 'Z' && p.pid !== process.pid);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a process started with `detached: true` together with its whole group and every
 * descendant (SIGTERM, then SIGKILL after `graceMs`). Returns what is still alive afterwards
 * (normally nothing).
 */
export async function killTree(rootPid: number, graceMs = 4000): Promise<string[]> {
  const hasProc = fs.existsSync('/proc/self/stat');
  const alive = (): ProcInfo[] => (hasProc ? treeOf(rootPid) : groupAlive(rootPid) ? [{ pid: rootPid, ppid: 0, pgrp: rootPid, state: 'R', cmd: '(group)' }] : []);
  let targets = alive();
  if (!targets.length) return [];
  signal(-rootPid, 'SIGTERM');
  for (const p of targets) signal(p.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(100);
    targets = alive();
    if (!targets.length) return [];
  }
  signal(-rootPid, 'SIGKILL');
  for (const p of targets) signal(p.pid, 'SIGKILL');
  for (let i = 0; i < 30; i++) {
    await sleep(100);
    targets = alive();
    if (!targets.length) return [];
  }
  return targets.map((p) => `${p.pid} ${p.cmd.slice(0, 120)}`);
}

/** A signal this soon after the first is a copy of it (see installSignalHandlers). */
const REPEAT_MS = 1000;

/** Runs clean-up steps once (last registered first), on normal exit and on SIGINT/SIGTERM/SIGHUP. */
export class Cleanup {
  private readonly steps: { label: string; fn: () => Promise<void> | void }[] = [];
  private readonly groups = new Set<number>();
  private running: Promise<void> | undefined;

  add(label: string, fn: () => Promise<void> | void): void {
    this.steps.push({ label, fn });
  }

  /** A process group that is SIGKILLed synchronously if this process exits without clean-up. */
  trackGroup(pgid: number): void {
    this.groups.add(pgid);
  }
  untrackGroup(pgid: number): void {
    this.groups.delete(pgid);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      while (this.steps.length) {
        const step = this.steps.pop()!;
        try {
          await step.fn();
        } catch (err) {
          log(`clean-up "${step.label}" failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    })();
    return this.running;
  }

  installSignalHandlers(): void {
    let first: number | undefined;
    const onSignal = (sig: NodeJS.Signals): void => {
      if (first !== undefined) {
        // A terminal's Ctrl+C reaches every process of the group, and the wrappers (npm,
        // scripts/task.mjs) pass it on too: its copies arrive within moments. A signal later
        // than that is someone insisting.
        if (Date.now() - first < REPEAT_MS) return;
        log(`${sig} again: exiting now`);
        process.exit(130);
      }
      first = Date.now();
      log(`${sig}: stopping everything this script started…`);
      const code = sig === 'SIGINT' ? 130 : sig === 'SIGTERM' ? 143 : 129;
      const timer = setTimeout(() => process.exit(code), 15000);
      timer.unref();
      this.run().then(
        () => process.exit(code),
        () => process.exit(code),
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    process.on('exit', () => {
      for (const g of this.groups) signal(-g, 'SIGKILL');
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Line-oriented child output

/** Calls `onLine` for each complete line of a stream. */
export function onLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i).replace(/\r$/, ''));
      buf = buf.slice(i + 1);
    }
  });
  stream.on('end', () => {
    if (buf) onLine(buf);
    buf = '';
  });
}

/** Keeps the last lines of some output for error messages. */
export class Tail {
  private readonly lines: string[] = [];
  constructor(private readonly max = 40) {}
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.max) this.lines.shift();
  }
  toString(): string {
    return this.lines.join('\n');
  }
}

// ---------------------------------------------------------------------------------------------
// The local service (test/server, a separate process)

export interface Service {
  url: string;
  pid: number;
  /** Every line the service printed so far. */
  output: string[];
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** The JSON file the service keeps its data in. */
  dataFile: string;
  port?: number;
  args?: string[];
  logFile?: string;
  timeoutMs?: number;
  cleanup?: Cleanup;
}

export function serviceAvailable(): boolean {
  return fs.existsSync(serviceMain);
}

/** Starts `node out/test/server/main.js --port P --data FILE` and waits for its `SERVICE_READY <url>` line. */
export function startService(opts: ServiceOptions): Promise<Service> {
  if (!serviceAvailable()) return Promise.reject(new Error(`${path.relative(repoRoot, serviceMain)} does not exist (compile first: npx tsc -p .)`));
  fs.mkdirSync(path.dirname(opts.dataFile), { recursive: true });
  const args = [serviceMain, '--port', String(opts.port ?? 0), '--data', opts.dataFile, ...(opts.args ?? [])];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: repoRoot, env: cleanEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid!;
  opts.cleanup?.trackGroup(pid);
  const logStream = opts.logFile ? fs.createWriteStream(opts.logFile) : undefined;
  const output: string[] = [];
  const tail = new Tail();
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      const left = await killTree(pid);
      opts.cleanup?.untrackGroup(pid);
      logStream?.end();
      if (left.length) log(`service: still running after SIGKILL: ${left.join('; ')}`);
    })());
  opts.cleanup?.add('service', stop);
  return new Promise<Service>((resolve, reject) => {
    let ready = false;
    const timer = setTimeout(() => {
      stop().catch((e: unknown) => log(`service: stopping after the time-out failed: ${String(e)}`));
      reject(new Error(`the service did not print SERVICE_READY within ${(opts.timeoutMs ?? 30000) / 1000} s; its output:\n${tail}`));
    }, opts.timeoutMs ?? 30000);
    const onLine = (line: string): void => {
      output.push(line);
      tail.push(line);
      logStream?.write(line + '\n');
      const m = /^SERVICE_READY\s+(\S+)/.exec(line);
      if (m && !ready) {
        ready = true;
        clearTimeout(timer);
        resolve({ url: m[1]!, pid, output, stop });
      }
    };
    onLines(child.stdout, onLine);
    onLines(child.stderr, onLine);
    child.on('exit', (code, sig) => {
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`the service exited (${sig ?? code}) before it was ready; its output:\n${tail}`));
      } else if (!stopped) {
        log(`the service exited unexpectedly (${sig ?? code})`);
      }
    });
  });
}

/** Runs a script's main() and exits with its code; an exception is logged and exits 1. */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      log(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exit(1);
    },
  );
}

export interface RunResults {
  passed: number;
  failed: number;
  pending?: number;
  tests: { title: string; fullTitle: string; state: string; durationMs: number; error?: string }[];
}

/**
 * The end of a test run: writes the results file, prints the closing `N passed, N failed` line,
 * keeps the run folder when something failed (or when asked), and returns the exit code.
 */
export function finishRun(o: { results: RunResults; t0: number; runDir: string; keep: boolean; resultsFile?: string }): number {
  const { results } = o;
  if (o.resultsFile) writeJson(o.resultsFile, { passed: results.passed, failed: results.failed, ...(results.pending ? { pending: results.pending } : {}), tests: results.tests });
  console.log(`\n${results.passed} passed, ${results.failed} failed${results.pending ? `, ${results.pending} pending` : ''} (${((Date.now() - o.t0) / 1000).toFixed(1)} s)`);
  const failed = results.failed > 0;
  if (failed || o.keep) log(`run folder kept: ${path.relative(process.cwd(), o.runDir) || o.runDir}`);
  else fs.rmSync(o.runDir, { recursive: true, force: true });
  return failed ? 1 : 0;
}

// Small helpers shared by the benchmark scripts: statistics, logging to stderr (stdout is kept
// for the table or the one JSON object), and child processes that are always waited for.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The repository root (this file runs from out/bench/). */
export const repoRoot = path.resolve(__dirname, '..', '..');

export function log(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}

export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The q-quantile (0..1) by linear interpolation. */
export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** Rounds to `digits` decimals (for JSON output). */
export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export const MB = 1024 * 1024;

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

const running = new Set<ChildProcess>();
let stopping = false;

/** After this (Ctrl-C, SIGTERM), no new child process is started. */
export function stopStarting(): void {
  stopping = true;
}

export function isStopping(): boolean {
  return stopping;
}

/**
 * Runs `node args…` and collects its stdout; its stderr goes to ours, prefixed. The child is
 * registered so that stopChildren() ends it if the benchmark is interrupted.
 */
export function runNode(args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; label?: string; passStdout?: boolean; cwd?: string } = {}): Promise<ChildResult> {
  if (stopping) return Promise.reject(new Error('stopping: no new process is started'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd ?? repoRoot, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    const prefix = opts.label ? `[${opts.label}] ` : '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (opts.passStdout) process.stderr.write(d);
      else stdout += d;
    });
    child.stderr.setEncoding('utf8');
    let pending = '';
    child.stderr.on('data', (d: string) => {
      pending += d;
      let i: number;
      while ((i = pending.indexOf('\n')) >= 0) {
        process.stderr.write(`${prefix}${pending.slice(0, i)}\n`);
        pending = pending.slice(i + 1);
      }
    });
    let timer: NodeJS.Timeout | undefined;
    if (opts.timeoutMs) {
      timer = setTimeout(() => {
        log(`${opts.label ?? args[0]} did not finish within ${opts.timeoutMs! / 1000} s: stopping it`);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }, opts.timeoutMs);
    }
    child.on('error', (e) => {
      running.delete(child);
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      if (pending) process.stderr.write(`${prefix}${pending}\n`);
      resolve({ code, signal, stdout });
    });
  });
}

/** Ends the children still running (SIGTERM, then SIGKILL after `graceMs`) and waits for them. */
export async function stopChildren(graceMs = 8000): Promise<void> {
  const list = [...running];
  await Promise.all(
    list.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const kill = setTimeout(() => c.kill('SIGKILL'), graceMs);
          c.once('close', () => {
            clearTimeout(kill);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}

/** The last line of a child's stdout that parses as a JSON object. */
export function lastJson<T>(stdout: string): T {
  const lines = stdout.trim().split('\n').reverse();
  for (const l of lines) {
    const t = l.trim();
    if (t.startsWith('{')) return JSON.parse(t) as T;
  }
  throw new Error(`no JSON result in the output:\n${stdout.slice(-2000)}`);
}

/** The event loop's delay over a stretch of work (perf_hooks.monitorEventLoopDelay, 1 ms resolution), in ms. */
export interface LoopDelay {
  maxMs: number;
  p99Ms: number;
  meanMs: number;
  /** Ticks of the monitor's timer (its samples). */
  samples: number;
  /**
   * The most CPU time this thread spent between two ticks of a 1 ms timer (process.threadCpuUsage,
   * Node ≥ 23.9): the longest stretch of this process's own work that held the loop. A delay much
   * longer than it is time the thread waited for a core (a loaded machine), not work it did.
   */
  heldMs?: number;
}

/** Targets of the event-loop rows (issue "Trust", point 1): what the host's thread may be held for. */
export const LOOP_TARGETS = { maxMs: 50, p99Ms: 20, hostileEndMs: 1000 };

/** Starts sampling this thread's event-loop delay; `stop()` ends it and gives the figures. */
export function sampleLoopDelay(): { stop(): LoopDelay } {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const cpu = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);
  let heldUs = 0;
  let last = cpu?.();
  const ticker = cpu
    ? setInterval(() => {
        const now = cpu();
        heldUs = Math.max(heldUs, now.user + now.system - (last!.user + last!.system));
        last = now;
      }, 1)
    : undefined;
  return {
    stop() {
      h.disable();
      if (ticker) clearInterval(ticker);
      // The stretch since the last tick counts too (work that never let the timer fire held it all).
      if (cpu) {
        const now = cpu();
        heldUs = Math.max(heldUs, now.user + now.system - (last!.user + last!.system));
      }
      return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, meanMs: h.mean / 1e6, samples: h.count, ...(cpu ? { heldMs: heldUs / 1000 } : {}) };
    },
  };
}

/** A LoopDelay as a table shows it. */
export function loopText(l: LoopDelay): string {
  return `max ${l.maxMs.toFixed(1)} ms, p99 ${l.p99Ms.toFixed(1)} ms${l.heldMs !== undefined ? `, own work held it ≤ ${l.heldMs.toFixed(1)} ms` : ''}`;
}

/** Whether a LoopDelay meets LOOP_TARGETS. */
export function loopOk(l: LoopDelay): boolean {
  return l.maxMs <= LOOP_TARGETS.maxMs && l.p99Ms <= LOOP_TARGETS.p99Ms;
}

/** The median of each figure over samples (each figure on its own). */
export function medianLoop(ls: readonly LoopDelay[]): LoopDelay {
  const held = ls.map((l) => l.heldMs).filter((x): x is number => x !== undefined);
  return {
    maxMs: median(ls.map((l) => l.maxMs)),
    p99Ms: median(ls.map((l) => l.p99Ms)),
    meanMs: median(ls.map((l) => l.meanMs)),
    samples: median(ls.map((l) => l.samples)),
    ...(held.length === ls.length && held.length ? { heldMs: median(held) } : {}),
  };
}

// Small helpers shared by the benchmark scripts: statistics, logging to stderr (stdout is kept
// for the table or the one JSON object), and child processes that are always waited for.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { createHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

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
  /** The 99th percentile of that CPU time per tick (ms). */
  heldP99Ms?: number;
}

/**
 * Targets of the event-loop rows (issue "Trust", point 1): what the host's thread may be held for.
 * Judged on the thread's own work (its CPU time between two ticks: `heldMs`, `heldP99Ms`) where
 * Node measures it, so that a figure of our work does not depend on what else the machine does
 * (issue 32 §8); the loop's delay is shown beside it.
 */
export const LOOP_TARGETS = { maxMs: 50, p99Ms: 20, hostileEndMs: 1000 };

const threadCpu = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);

/** This thread's CPU time so far (ms; Node ≥ 23.9), else undefined. */
export function threadCpuMs(): number | undefined {
  const u = threadCpu?.();
  return u ? (u.user + u.system) / 1000 : undefined;
}

/**
 * The time this thread has waited for a core so far (ms): the run-queue wait of
 * /proc/thread-self/schedstat (Linux). Undefined elsewhere.
 */
export function runQueueWaitMs(): number | undefined {
  try {
    const [, wait] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(/\s+/);
    const ns = Number(wait);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/** Starts sampling this thread's event-loop delay and its own CPU time per tick; `stop()` ends it and gives the figures. */
export function sampleLoopDelay(): { stop(): LoopDelay } {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const cpu = threadCpu;
  const perTick = createHistogram(); // µs of CPU between two ticks
  let heldUs = 0;
  let last = cpu?.();
  const take = () => {
    const now = cpu!();
    const us = Math.max(1, now.user + now.system - (last!.user + last!.system));
    heldUs = Math.max(heldUs, us);
    perTick.record(Math.round(us));
    last = now;
  };
  const ticker = cpu ? setInterval(take, 1) : undefined;
  return {
    stop() {
      h.disable();
      if (ticker) clearInterval(ticker);
      // The stretch since the last tick counts too (work that never let the timer fire held it all).
      if (cpu) take();
      return {
        maxMs: h.max / 1e6,
        p99Ms: h.percentile(99) / 1e6,
        meanMs: h.mean / 1e6,
        samples: h.count,
        ...(cpu ? { heldMs: heldUs / 1000, heldP99Ms: perTick.percentile(99) / 1000 } : {}),
      };
    },
  };
}

/** The figures a LoopDelay is judged by: the thread's own work where measured, else the loop's delay. */
export function ownLoop(l: LoopDelay): { maxMs: number; p99Ms: number; byCpu: boolean } {
  return l.heldMs !== undefined ? { maxMs: l.heldMs, p99Ms: l.heldP99Ms ?? l.heldMs, byCpu: true } : { maxMs: l.maxMs, p99Ms: l.p99Ms, byCpu: false };
}

/** A LoopDelay as a table shows it: what it is judged by first, the loop's delay after. */
export function loopText(l: LoopDelay): string {
  const own = ownLoop(l);
  const delay = `loop delay max ${l.maxMs.toFixed(1)} ms, p99 ${l.p99Ms.toFixed(1)} ms`;
  return own.byCpu ? `own work max ${own.maxMs.toFixed(1)} ms, p99 ${own.p99Ms.toFixed(1)} ms (CPU time between 1 ms ticks); ${delay}` : delay;
}

/** The samples of a row, each as `max/p99` of what it is judged by, and the loops' delay max. */
export function loopSamples(ls: readonly LoopDelay[]): string {
  const own = ls.map(ownLoop);
  const what = own.every((o) => o.byCpu) ? 'own work' : 'loop delay';
  return `samples: ${own.map((o) => `${o.maxMs.toFixed(0)}/${o.p99Ms.toFixed(0)}`).join(', ')} ms ${what} max/p99; loop delay max ${ls.map((l) => l.maxMs.toFixed(0)).join(', ')} ms`;
}

/** Whether a LoopDelay meets LOOP_TARGETS (on its own work where measured). */
export function loopOk(l: LoopDelay): boolean {
  const own = ownLoop(l);
  return own.maxMs <= LOOP_TARGETS.maxMs && own.p99Ms <= LOOP_TARGETS.p99Ms;
}

/** The median of each figure over samples (each figure on its own). */
export function medianLoop(ls: readonly LoopDelay[]): LoopDelay {
  const held = ls.map((l) => l.heldMs).filter((x): x is number => x !== undefined);
  const heldP99 = ls.map((l) => l.heldP99Ms).filter((x): x is number => x !== undefined);
  return {
    maxMs: median(ls.map((l) => l.maxMs)),
    p99Ms: median(ls.map((l) => l.p99Ms)),
    meanMs: median(ls.map((l) => l.meanMs)),
    samples: median(ls.map((l) => l.samples)),
    ...(held.length === ls.length && held.length ? { heldMs: median(held) } : {}),
    ...(heldP99.length === ls.length && heldP99.length ? { heldP99Ms: median(heldP99) } : {}),
  };
}

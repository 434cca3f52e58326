// What every protocol of the live layer shares: root-relative paths, cancellation with a
// timeout, and Node's network errors turned into LiveError with a next step. Plain Node.
import { getMaxListeners, setMaxListeners } from 'node:events';
import type { DriverContext } from './driver';
import { LiveError, type LiveErrorKind, type LiveStage } from './types';

// ---- Paths

/** Checks a root-relative path ('' or 'a/b'): no empty, `.` or `..` segment, no NUL, no leading slash. */
export function checkPath(path: string, stage: LiveStage = 'list'): string {
  if (path === '') return '';
  const segs = path.split('/');
  if (segs.some((s) => s === '' || s === '.' || s === '..' || s.includes('\0'))) {
    throw new LiveError('outside-root', stage, `The path "${path}" is not a path inside the site's folder.`, { next: 'Use a path relative to the site\'s folder, without "..".' });
  }
  return path;
}

/** Joins a root-relative folder and a name. */
export function joinRel(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

/** The folder of a root-relative path ('' for the root's children). */
export function parentRel(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Joins an absolute server path (POSIX) and a root-relative one. */
export function joinAbs(root: string, rel: string): string {
  if (!rel) return root || '/';
  return root.endsWith('/') ? root + rel : `${root}/${rel}`;
}

/**
 * Resolves a link target (absolute on the server, or relative to the link's folder) against the
 * root: the root-relative path when it stays inside, undefined when it leaves it.
 */
export function resolveLinkTarget(rootAbs: string, linkRel: string, target: string): string | undefined {
  let segs: string[];
  if (target.startsWith('/')) {
    const root = rootAbs.replace(/\/+$/, '');
    if (target !== root && !target.startsWith(`${root}/`)) return undefined;
    segs = target.slice(root.length).split('/');
  } else {
    segs = [...parentRel(linkRel).split('/'), ...target.split('/')];
  }
  const out: string[] = [];
  for (const s of segs) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (!out.length) return undefined;
      out.pop();
    } else out.push(s);
  }
  return out.join('/');
}

// ---- Cancellation and timeouts

export function cancelled(stage: LiveStage): LiveError {
  return new LiveError('cancelled', stage, 'Cancelled.', { next: 'Run it again when you want.' });
}

export function timedOut(stage: LiveStage, ms: number, what = 'The server'): LiveError {
  return new LiveError('timeout', stage, `${what} did not answer within ${Math.round(ms / 1000)} s.`, {
    next: 'Check that the server is up and reachable from this computer, or raise the site\'s timeout.',
    data: { timeoutMs: ms },
  });
}

/** A timer that a question to a person can hold (PersonTime.hold). */
export interface Pausable {
  pause(): void;
  resume(): void;
}

/**
 * The time a person takes to answer during one connection attempt (an unknown host key, a
 * certificate, a password or passphrase prompt). The timeout is the SERVER's silence: the timers
 * held here pause while a question is open and start again in full once it is answered, and a
 * step's `ms` leaves the person's time out (StageReport.personMs says it).
 */
export class PersonTime {
  private doneMs = 0;
  private open = 0;
  private since = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly timers = new Set<Pausable>();
  /** A question was asked during this attempt (whatever the answer). */
  asked = false;

  /** Runs `fn`, a question to a person: held timers pause meanwhile, its time is counted. */
  async during<T>(fn: () => Promise<T>): Promise<T> {
    this.asked = true;
    if (this.open++ === 0) {
      this.since = Date.now();
      for (const t of this.timers) t.pause();
    }
    try {
      return await fn();
    } finally {
      if (--this.open === 0) {
        this.doneMs += Date.now() - this.since;
        for (const t of this.timers) t.resume();
        for (const w of this.idleWaiters.splice(0)) w();
      }
    }
  }

  /** The person's time so far, ms (a question still open included). */
  total(): number {
    return this.doneMs + (this.open ? Date.now() - this.since : 0);
  }

  /** Resolves once no question is open (a server that closed meanwhile is judged after the answer). */
  idle(): Promise<void> {
    return this.open ? new Promise((r) => this.idleWaiters.push(r)) : Promise.resolve();
  }

  /** Pauses `t` during questions (at once if one is open); returns what lets it go. */
  hold(t: Pausable): () => void {
    this.timers.add(t);
    if (this.open) t.pause();
    return () => this.timers.delete(t);
  }

  /** A step's times from `t0` (Date.now()) and `p0` (total() then): the server's part and the person's. */
  step(t0: number, p0: number): { ms: number; personMs?: number } {
    const personMs = this.total() - p0;
    return { ms: Math.max(0, Date.now() - t0 - personMs), ...(personMs > 0 ? { personMs } : {}) };
  }
}

/**
 * The server's silence: fires `onSilent` once the server has said nothing for `ms` (`heard` counts
 * what it said so far, e.g. a socket's bytesRead: the silence starts again whenever it grew).
 * `pause()` stops it while a person answers a question, `resume()` starts it again in full (the
 * server is waited for from then on). `stop()` ends it for good.
 */
export class SilenceTimer implements Pausable {
  private timer: NodeJS.Timeout | undefined;
  private paused = 0;
  private stopped = false;
  private said = 0;

  constructor(
    private readonly ms: number,
    private readonly onSilent: () => void,
    private readonly heard: () => number = () => 0,
  ) {
    this.arm();
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || this.paused) return;
    this.said = this.heard();
    this.timer = setTimeout(() => {
      if (this.heard() !== this.said) return this.arm();
      this.stopped = true;
      this.onSilent();
    }, this.ms);
  }

  pause(): void {
    this.paused++;
    this.arm();
  }

  resume(): void {
    if (this.paused > 0) this.paused--;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * Which steps of a connection attempt are told (DriverContext.stage): 'all' for the first
 * attempt; 'again' for the one reconnection after the server closed the connection while a
 * person answered (every step but the name, the TCP step with RECONNECTED as its warning);
 * 'login' for a retry after a refused password; 'none' for later connections of a pool.
 */
export type ReportMode = 'all' | 'again' | 'login' | 'none';

export function reports(mode: ReportMode, stage: LiveStage): boolean {
  return mode === 'all' || (mode === 'again' && stage !== 'resolve') || (mode === 'login' && stage === 'login');
}

export const RECONNECTED = 'the server closed the connection while a question was open (servers end a login that waits too long); connected again, and the server\'s identity was checked again';

/**
 * Whether a failed connection attempt is tried once more: the server closed the connection after
 * a person was asked something during it (sshd's LoginGraceTime, an FTP server's login timeout),
 * so the person's answer still holds and nothing about the server is known to be wrong. The
 * attempt's questions are answered first (a refusal is not a lost connection).
 */
async function closedWhileAsking(e: unknown, person: PersonTime, signal: AbortSignal): Promise<boolean> {
  await person.idle();
  return person.asked && !signal.aborted && e instanceof LiveError && e.kind === 'connection-lost';
}

/** One attempt at a connection (FTP, SFTP): its steps told as `mode` says, its questions timed by `person`. */
type ConnectAttempt<C> = (mode: ReportMode, person: PersonTime, refused: string | undefined) => Promise<C>;

/**
 * What the FTP and SFTP drivers share: the root found at the first login (an absolute server
 * path), paths under it, and new connections made attempt by attempt (connectInAttempts), the
 * first of the LiveFs telling its steps.
 */
export abstract class LoginDriver {
  protected root: string | undefined;
  private first = true;

  constructor(protected readonly ctx: DriverContext) {}

  /** The root as an absolute server path ('/' until the first login). */
  rootAbs(): string {
    return this.root ?? '/';
  }

  protected abs(path: string): string {
    return joinAbs(this.rootAbs(), path);
  }

  /** A new connection; `toError` makes a LiveError of anything else thrown. */
  protected connectNew<C>(signal: AbortSignal, toError: (e: unknown) => LiveError, attempt: ConnectAttempt<C>): Promise<C> {
    const report = this.first;
    this.first = false;
    return connectInAttempts(this.ctx, report, signal, toError, attempt);
  }
}

/**
 * Makes a connection attempt by attempt: a password refused with `data.retry` 1 (SFTP: ssh2 logs in
 * again only on a new connection) is asked again, twice at most, with the server's words; a
 * connection the server closed while a person answered (closedWhileAsking) is made once more. The
 * failing step is told when `report` (the first connection of a LiveFs, whose steps are shown).
 */
async function connectInAttempts<C>(ctx: DriverContext, report: boolean, signal: AbortSignal, toError: (e: unknown) => LiveError, attempt: ConnectAttempt<C>): Promise<C> {
  const ep = ctx.endpoint;
  let mode: ReportMode = report ? 'all' : 'none';
  let reconnected = false;
  let refused: string | undefined;
  try {
    for (let tries = 0; ; tries++) {
      const person = new PersonTime();
      try {
        return await attempt(mode, person, refused);
      } catch (e) {
        if (e instanceof LiveError && e.kind === 'auth' && e.data?.retry === 1 && tries < 2) {
          refused = e.detail ?? 'authentication failed';
          mode = report ? 'login' : 'none';
          continue;
        }
        if (!reconnected && (await closedWhileAsking(e, person, signal))) {
          reconnected = true;
          mode = report ? 'again' : 'none';
          ctx.options.log?.('info', `${ep.protocol.toUpperCase()} ${ep.host}:${ep.port}: ${RECONNECTED}.`);
          continue;
        }
        throw e;
      }
    }
  } catch (e) {
    const le = toError(e);
    if (report) ctx.stage({ stage: le.stage, ok: false, detail: le.message, ms: 0 });
    throw le;
  }
}

/**
 * Lets `n` operations at once listen to one signal (each adds a listener or two while it runs:
 * a walk listing 16 folders at once) without Node's "possible EventTarget memory leak" warning.
 */
export function allowListeners(signal: AbortSignal, n: number): void {
  const want = n * 4 + 10;
  if (getMaxListeners(signal) < want) setMaxListeners(want, signal);
}

export function throwIfAborted(signal: AbortSignal | undefined, stage: LiveStage): void {
  if (signal?.aborted) throw cancelled(stage);
}

/**
 * Runs `fn` with a signal that aborts on the caller's signal, and rejects on it at once even if
 * `fn` does not listen (its late result is dropped; `onAbort` cleans up, e.g. closes a socket).
 */
export async function abortable<T>(signal: AbortSignal | undefined, stage: LiveStage, fn: () => Promise<T>, onAbort?: () => void): Promise<T> {
  throwIfAborted(signal, stage);
  if (!signal) return fn();
  let off: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    const h = () => {
      try {
        onAbort?.();
      } finally {
        reject(cancelled(stage));
      }
    };
    signal.addEventListener('abort', h, { once: true });
    off = () => signal.removeEventListener('abort', h);
  });
  const work = fn();
  work.catch(() => undefined); // a late failure after abort is nobody's
  try {
    return await Promise.race([work, stop]);
  } finally {
    off?.();
  }
}

/** A promise that rejects with a timeout LiveError after `ms` unless `fn` settles first. */
export async function withTimeout<T>(ms: number, stage: LiveStage, fn: () => Promise<T>, onTimeout?: () => void, what?: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        onTimeout?.();
      } finally {
        reject(timedOut(stage, ms, what));
      }
    }, ms);
  });
  const work = fn();
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- Network errors

const NET: Record<string, [LiveErrorKind, string, string]> = {
  ENOTFOUND: ['dns', 'The host name did not resolve', 'Check the host name, and this computer\'s network and DNS.'],
  EAI_AGAIN: ['dns', 'The host name could not be resolved now', 'Check this computer\'s network and DNS, then try again.'],
  ECONNREFUSED: ['refused', 'Connection refused', 'Is the port right? Check that the server runs and listens on that port.'],
  EHOSTUNREACH: ['unreachable', 'The host cannot be reached', 'Check the address, and this computer\'s network or VPN.'],
  ENETUNREACH: ['unreachable', 'The network cannot be reached', 'Check this computer\'s network or VPN.'],
  ETIMEDOUT: ['timeout', 'The connection timed out', 'Check the host and port, and whether a firewall drops the connection.'],
  ECONNRESET: ['connection-lost', 'The server closed the connection', 'Try again; if it repeats, the server or a firewall may be refusing this computer.'],
  EPIPE: ['connection-lost', 'The connection was closed while sending', 'Try again.'],
  ECONNABORTED: ['connection-lost', 'The connection was aborted', 'Try again.'],
};

/** Whether `e` is a Node system error with one of these codes. */
export function errCode(e: unknown): string | undefined {
  const c = (e as { code?: unknown } | undefined)?.code;
  return typeof c === 'string' ? c : undefined;
}

/** A Node network error (or anything) as a LiveError of `stage`; a LiveError passes through. */
export function netError(e: unknown, stage: LiveStage, where: string): LiveError {
  if (e instanceof LiveError) return e;
  const code = errCode(e);
  const known = code ? NET[code] : undefined;
  if (known) return new LiveError(known[0], stage, `${known[1]} (${where}, ${code}).`, { next: known[2], detail: code ?? '', cause: e });
  const msg = e instanceof Error ? e.message : String(e);
  if (/timeout/i.test(msg)) return new LiveError('timeout', stage, `${where}: the server did not answer in time.`, { next: 'Check that the server is up, or raise the site\'s timeout.', detail: msg, cause: e });
  if (/closed|socket hang up|end of file|disconnect/i.test(msg)) return new LiveError('connection-lost', stage, `${where}: the connection was closed.`, { next: 'Try again; if it repeats, check the server\'s logs.', detail: msg, cause: e });
  return new LiveError('protocol', stage, `${where}: ${msg}`, { next: 'Try again; if it repeats, check the server\'s logs.', detail: msg, cause: e });
}

/** Collects an async iterable of batches into one array. */
export async function gather<T>(it: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const b of it) all.push(...b);
  return all;
}

/** A simple queue that turns pushed batches into an async iterable (list's batches). */
export class BatchQueue<T> implements AsyncIterable<T[]> {
  private readonly items: T[][] = [];
  private done = false;
  private error: unknown;
  private wake: (() => void) | undefined;

  push(batch: T[]): void {
    if (!batch.length) return;
    this.items.push(batch);
    this.wake?.();
  }
  end(error?: unknown): void {
    this.done = true;
    this.error = error;
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<T[]> {
    for (;;) {
      const b = this.items.shift();
      if (b) {
        yield b;
        continue;
      }
      if (this.done) {
        if (this.error !== undefined) throw this.error;
        return;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}

// What every protocol of the live layer shares: root-relative paths, cancellation with a
// timeout, and Node's network errors turned into LiveError with a next step. Plain Node.
import { getMaxListeners, setMaxListeners } from 'node:events';
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

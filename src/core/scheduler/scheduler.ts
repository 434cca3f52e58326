// The one request scheduler: every request the extension sends to the service passes here
// (through SiteRevisionClient's `scheduler` option). No `vscode` import: plain Node, unit-tested
// against the local service.
//
// What it does, per service origin (scheme://host:port):
// - Bounded concurrency: at most `concurrency` (default 6) requests in flight; the others wait.
// - Priorities: `user` (what a person is waiting for: opening a revision, expanding a node, a
//   command) before `background` (refreshes, prefetching, scans); first in, first out within a
//   priority. A retry of a request that already had its turn goes to the head of its priority.
// - Back-off: `backOff(origin, ms)` (the client calls it on HTTP 429/503 with Retry-After) stops
//   every new request to that origin until the time has passed, not only the one that was told;
//   what waits meanwhile starts afterwards in priority order (user first).
// - Cancellation: a waiting request whose AbortSignal fires leaves the queue at once and never
//   starts.
// - Coalescing: `share(key, …)` runs one call for all callers that ask for the same key while it
//   is in flight (the client uses operation + target + account, for reads only). Each caller can
//   abort on its own; the shared call is aborted only when every caller has aborted. When a `user`
//   caller joins a shared call that waits as `background`, it is moved up to `user`.
//
// API (all that a caller needs):
//   const scheduler = new RequestScheduler({ concurrency: 6 });
//   const release = await scheduler.acquire(origin, { priority, signal });   // then send, then release()
//   const value = await scheduler.share(key, { priority, signal, cancelled }, (call) => work(call.signal, call));
//   scheduler.backOff(origin, retryAfterMs);
//   scheduler.stats(origin);          // { active, queued, started, paused } for logs, tests and benchmarks
//   scheduler.setConcurrency(n); scheduler.dispose();
// `acquire` rejects (with `signal.reason`) only when its signal aborts, or after dispose().
// The cost is a few object allocations per request: no timers except one per back-off.

export type Priority = 'user' | 'background';

export interface SchedulerOptions {
  /** Requests in flight per origin; default 6. */
  concurrency?: number;
  /** Queue changes worth logging (a back-off and its end). */
  onEvent?: (e: SchedulerEvent) => void;
}

export interface SchedulerEvent {
  type: 'backoff' | 'resume';
  origin: string;
  /** For `backoff`: how long no request to the origin starts. */
  ms?: number;
  /** Requests waiting for the origin at that moment. */
  queued: number;
}

/** Frees the slot; calling it again does nothing. */
export type Release = () => void;

export interface AcquireOptions {
  /** Default `user`. Ignored when `shared` is given (the shared call's priority applies). */
  priority?: Priority;
  signal?: AbortSignal;
  /** Wait at the head of the priority instead of the tail (a retry of a request that already had its turn). */
  front?: boolean;
  /** The shared call (from share()) this request belongs to. */
  shared?: SharedCall;
}

/** What share() hands to the shared work. */
export interface SharedCall {
  /**
   * Aborted when every caller of the shared call has aborted. Undefined when the first caller
   * gave no signal: that caller can never abort, so neither can the shared call (and it saves
   * the cost of a controller and a listener per request).
   */
  readonly signal: AbortSignal | undefined;
  /** `user` as soon as one caller is a user action. */
  readonly priority: Priority;
}

export interface ShareOptions {
  priority?: Priority;
  signal?: AbortSignal;
  /** The error a caller gets when its own signal aborts; default `signal.reason`. */
  cancelled?: () => unknown;
}

export interface OriginStats {
  /** Requests holding a slot. */
  active: number;
  /** Requests waiting for a slot. */
  queued: number;
  /** Slots handed out since the scheduler was made. */
  started: number;
  /** Whether a back-off holds the origin. */
  paused: boolean;
}

interface Waiter {
  q: OriginQueue;
  lane: Priority;
  done: boolean;
  resolve: (release: Release) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  group: Group | undefined;
}

/** A FIFO with O(1) push, unshift (while there is room at the head) and shift. */
class Lane {
  items: (Waiter | undefined)[] = [];
  head = 0;
  push(w: Waiter): void {
    this.items.push(w);
  }
  unshift(w: Waiter): void {
    if (this.head > 0) this.items[--this.head] = w;
    else this.items.unshift(w);
  }
  /** The next waiter still waiting in this lane (cancelled and promoted ones are skipped). */
  shift(lane: Priority): Waiter | undefined {
    const { items } = this;
    while (this.head < items.length) {
      const w = items[this.head];
      items[this.head++] = undefined;
      if (w && !w.done && w.lane === lane) {
        this.compact();
        return w;
      }
    }
    this.items = [];
    this.head = 0;
    return undefined;
  }
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

class OriginQueue {
  active = 0;
  /** Waiters not yet started nor cancelled. */
  waiting = 0;
  started = 0;
  readonly user = new Lane();
  readonly background = new Lane();
  timer: NodeJS.Timeout | undefined;
  /** performance.now() at which the running back-off ends. */
  until = 0;
  constructor(readonly origin: string) {}
  get paused(): boolean {
    return this.timer !== undefined;
  }
}

class Group implements SharedCall {
  readonly controller: AbortController | undefined;
  waiters = 0;
  promise!: Promise<unknown>;
  /** This call's requests waiting for a slot (moved up when a user joins); made when one waits. */
  queued: Set<Waiter> | undefined;
  constructor(
    public priority: Priority,
    abortable: boolean,
  ) {
    this.controller = abortable ? new AbortController() : undefined;
  }
  get signal(): AbortSignal | undefined {
    return this.controller?.signal;
  }
}

export class RequestScheduler {
  private limit: number;
  private readonly origins = new Map<string, OriginQueue>();
  private readonly groups = new Map<string, Group>();
  private disposed = false;

  constructor(private readonly opts: SchedulerOptions = {}) {
    this.limit = checkConcurrency(opts.concurrency ?? 6);
  }

  get concurrency(): number {
    return this.limit;
  }

  /** Changes the bound; waiting requests start at once when it grows. */
  setConcurrency(n: number): void {
    this.limit = checkConcurrency(n);
    for (const q of this.origins.values()) this.pump(q);
  }

  /**
   * Waits for a slot to `origin`. Resolves with the function that frees it (call it when the
   * request is over, whatever its outcome). Rejects with the signal's reason when the signal
   * aborts first: the request then never starts.
   */
  acquire(origin: string, o: AcquireOptions = {}): Promise<Release> {
    const { signal, shared } = o;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.disposed) return Promise.reject(new Error('The request scheduler was disposed.'));
    const now = this.tryAcquire(origin);
    if (now) return Promise.resolve(now);
    const q = this.queueOf(origin);
    const group = shared as Group | undefined;
    const lane: Priority = group ? group.priority : (o.priority ?? 'user');
    return new Promise<Release>((resolve, reject) => {
      const w: Waiter = { q, lane, done: false, resolve, reject, signal, onAbort: undefined, group };
      if (signal) {
        w.onAbort = () => {
          if (w.done) return;
          w.done = true;
          q.waiting--;
          group?.queued?.delete(w);
          reject(signal.reason);
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      if (group) (group.queued ??= new Set()).add(w);
      const target = lane === 'user' ? q.user : q.background;
      if (o.front) target.unshift(w);
      else target.push(w);
      q.waiting++;
    });
  }

  /**
   * A slot at once when one is free and nothing waits for the origin (nor a back-off holds it);
   * otherwise undefined (then acquire() waits in line). Saves a promise on the common path.
   */
  tryAcquire(origin: string): Release | undefined {
    const q = this.queueOf(origin);
    if (q.waiting !== 0 || q.active >= this.limit || q.paused || this.disposed) return undefined;
    q.active++;
    q.started++;
    return this.releaser(q);
  }

  /**
   * Runs `work` once for every caller that asks for `key` while it is in flight; each caller gets
   * its result. A caller whose signal aborts is rejected at once (with `cancelled()`); the work's
   * own signal aborts only when every caller has aborted, and a later caller then starts anew.
   */
  share<T>(key: string, o: ShareOptions, work: (call: SharedCall) => Promise<T>): Promise<T> {
    const { signal } = o;
    const cancelled = (): unknown => (o.cancelled ? o.cancelled() : signal?.reason);
    if (signal?.aborted) return Promise.reject(cancelled());
    const priority = o.priority ?? 'user';
    let g = this.groups.get(key);
    if (!g) {
      const group = new Group(priority, signal !== undefined);
      g = group;
      this.groups.set(key, group);
      let p: Promise<T>;
      try {
        p = work(group);
      } catch (e) {
        p = Promise.reject(e);
      }
      const forget = (): void => {
        if (this.groups.get(key) === group) this.groups.delete(key);
      };
      group.promise = p;
      p.then(forget, forget);
    } else if (priority === 'user' && g.priority === 'background') {
      this.promote(g);
    }
    const group = g;
    group.waiters++;
    const shared = group.promise as Promise<T>;
    if (!signal) return shared;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(cancelled());
        if (--group.waiters === 0) {
          if (this.groups.get(key) === group) this.groups.delete(key);
          group.controller?.abort();
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      shared.then(
        (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      );
    });
  }

  /**
   * No new request to `origin` starts for `ms` (the service said Retry-After). A longer back-off
   * already running is kept; a shorter one is extended.
   */
  backOff(origin: string, ms: number): void {
    if (!(ms > 0) || this.disposed) return;
    const q = this.queueOf(origin);
    const until = performance.now() + ms;
    if (q.timer && until <= q.until) return;
    clearTimeout(q.timer);
    q.until = until;
    q.timer = setTimeout(() => {
      q.timer = undefined;
      this.emit({ type: 'resume', origin, queued: q.waiting });
      this.pump(q);
    }, ms);
    this.emit({ type: 'backoff', origin, ms, queued: q.waiting });
  }

  stats(origin: string): OriginStats {
    const q = this.origins.get(origin);
    return q ? { active: q.active, queued: q.waiting, started: q.started, paused: q.paused } : { active: 0, queued: 0, started: 0, paused: false };
  }

  /** Rejects every waiting request and stops the back-off timers; later acquire() calls reject. */
  dispose(): void {
    this.disposed = true;
    const err = new Error('The request scheduler was disposed.');
    for (const q of this.origins.values()) {
      clearTimeout(q.timer);
      q.timer = undefined;
      for (let w = q.user.shift('user') ?? q.background.shift('background'); w; w = q.user.shift('user') ?? q.background.shift('background')) {
        this.settle(q, w)?.reject(err);
      }
    }
  }

  private queueOf(origin: string): OriginQueue {
    let q = this.origins.get(origin);
    if (!q) {
      q = new OriginQueue(origin);
      this.origins.set(origin, q);
    }
    return q;
  }

  private releaser(q: OriginQueue): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      q.active--;
      if (q.waiting) this.pump(q);
    };
  }

  /** Starts waiting requests while there is room: user first, then background. */
  private pump(q: OriginQueue): void {
    while (q.waiting > 0 && q.active < this.limit && !q.paused && !this.disposed) {
      const w = q.user.shift('user') ?? q.background.shift('background');
      if (!w) break;
      this.settle(q, w);
      q.active++;
      q.started++;
      w.resolve(this.releaser(q));
    }
  }

  /** Takes a waiter off the queue's books (it is about to start or be rejected). */
  private settle(q: OriginQueue, w: Waiter): Waiter | undefined {
    if (w.done) return undefined;
    w.done = true;
    q.waiting--;
    w.group?.queued?.delete(w);
    if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
    return w;
  }

  /** A user joined a shared call that waits as background: its waiting requests move to the user lane. */
  private promote(g: Group): void {
    g.priority = 'user';
    for (const w of g.queued ?? []) {
      if (w.done || w.lane === 'user') continue;
      // The background lane skips it from now on.
      w.lane = 'user';
      w.q.user.push(w);
    }
  }

  private emit(e: SchedulerEvent): void {
    try {
      this.opts.onEvent?.(e);
    } catch {
      // a failing listener must not stop the queue
    }
  }
}

function checkConcurrency(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new TypeError('concurrency must be a whole number of at least 1.');
  return n;
}

// A small pool of connections per site: at most `size` at once, the idle ones closed after
// `idleMs`, a waiter woken when one is released; a connection released as broken (a transfer
// cancelled mid-way leaves an FTP control connection in an unknown state) is closed and a new
// one made for the next user. Plain Node.
import { cancelled } from './util';

interface Waiter<C> {
  resolve(c: C | undefined): void;
  reject(e: unknown): void;
}

export class Pool<C> {
  private readonly idle: { conn: C; timer: NodeJS.Timeout }[] = [];
  private readonly waiters: Waiter<C>[] = [];
  private live = 0;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly create: (signal: AbortSignal) => Promise<C>,
    private readonly destroy: (c: C) => void,
    private readonly idleMs: number,
  ) {}

  /** Connections open now (in use and idle). */
  get open(): number {
    return this.live;
  }

  /** A connection: an idle one, a new one while under the size, or the next one released. */
  async acquire(signal: AbortSignal): Promise<C> {
    for (;;) {
      if (signal.aborted) throw cancelled('connect');
      const idle = this.idle.pop();
      if (idle) {
        clearTimeout(idle.timer);
        return idle.conn;
      }
      if (this.live < this.size) {
        this.live++;
        try {
          return await this.create(signal);
        } catch (e) {
          this.live--;
          this.wakeOne();
          throw e;
        }
      }
      const got = await new Promise<C | undefined>((resolve, reject) => {
        const w: Waiter<C> = { resolve, reject };
        const onAbort = () => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(cancelled('connect'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        w.resolve = (c) => {
          signal.removeEventListener('abort', onAbort);
          resolve(c);
        };
        this.waiters.push(w);
      });
      if (got !== undefined) return got;
      // undefined: a slot was freed; loop to take it
    }
  }

  /** Gives a connection back; `broken` closes it (the next user gets a new one). */
  release(conn: C, broken = false): void {
    if (broken || this.closed) {
      this.live--;
      try {
        this.destroy(conn);
      } catch {
        // already gone
      }
      this.wakeOne();
      return;
    }
    const w = this.waiters.shift();
    if (w) return w.resolve(conn);
    const timer = setTimeout(() => {
      const i = this.idle.findIndex((x) => x.conn === conn);
      if (i >= 0) {
        this.idle.splice(i, 1);
        this.live--;
        try {
          this.destroy(conn);
        } catch {
          // already gone
        }
      }
    }, this.idleMs);
    timer.unref?.();
    this.idle.push({ conn, timer });
  }

  /** Runs `fn` with a connection; a failure of `isBroken` kind closes it. */
  async use<T>(signal: AbortSignal, fn: (c: C) => Promise<T>, isBroken: (e: unknown) => boolean = () => true): Promise<T> {
    const c = await this.acquire(signal);
    try {
      const r = await fn(c);
      this.release(c, signal.aborted);
      return r;
    } catch (e) {
      this.release(c, signal.aborted || isBroken(e));
      throw e;
    }
  }

  /**
   * Opens connections up to `n` (within the size) in the background and keeps them idle, for
   * work about to need them (a walk): each logs in while the first one works, instead of when
   * the work finds it has none. A failure is left for the user that opens the next one.
   */
  warm(n: number): void {
    while (!this.closed && this.live < Math.min(n, this.size)) {
      this.live++;
      this.create(new AbortController().signal).then(
        (c) => this.release(c),
        () => {
          this.live--;
          this.wakeOne();
        },
      );
    }
  }

  private wakeOne(): void {
    this.waiters.shift()?.resolve(undefined);
  }

  /** Closes every idle connection; those in use are closed when released. */
  close(): void {
    this.closed = true;
    for (const i of this.idle.splice(0)) {
      clearTimeout(i.timer);
      this.live--;
      try {
        this.destroy(i.conn);
      } catch {
        // already gone
      }
    }
    for (const w of this.waiters.splice(0)) w.reject(cancelled('connect'));
  }
}

// Upload on save (issue 34 §5), plain Node: one queue per site. A save enqueues its path; saves of
// the same file within `debounceMs` of each other are one upload (what is on disk when it
// starts), and a save during that upload makes one more after it. Each upload goes through the
// guard (the `upload` given: Transfers.uploadFile). The queue:
// - reports its state by events (for a status-bar item): each path queued, uploading, failed
//   (with the reason and the next step: Retry), in conflict (with the guard's choices), or
//   waiting to be back online;
// - survives going offline and a restart: it is written to the account's cache folder
//   (`<account>/transfer/<site>.upload-queue.json`, atomically) on every change, read back by
//   open(); a failure that means the server cannot be reached (no route, refused, a timeout, a
//   lost connection, a name that does not resolve) pauses it and it tries again by itself, less
//   and less often (2 s, 5 s, 15 s, 30 s, then every minute), or at once on online();
// - never loses a save: a failed upload leaves the working file as it is, and its path queued
//   until Retry or Remove.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { TransferError, type Conflict, type FileOutcome, type Resolution, type TransferErrorKind } from './types';

export type QueueState = 'queued' | 'uploading' | 'failed' | 'conflict' | 'offline';

export interface QueueItem {
  path: string;
  state: QueueState;
  /** When it entered this state (epoch ms). */
  since: number;
  /** Uploads tried for it since it was queued. */
  attempts: number;
  /** Why it failed (or why it waits: offline). */
  error?: { kind: TransferErrorKind; message: string; next: string };
  /** The guard's conflict, with its choices (answering one settles the item). */
  conflict?: Conflict;
}

export interface QueueSnapshot {
  siteId: string;
  items: QueueItem[];
  counts: Record<QueueState, number>;
  /** The server could not be reached at the last try: uploads wait. */
  offline: boolean;
  /** When the next try is due while offline (epoch ms). */
  retryAt?: number;
  /** Uploads done since the queue opened (for a status line). */
  uploaded: number;
}

export interface UploadQueueOptions {
  siteId: string;
  /** The queue's file: UploadQueue.fileFor(accountCacheDir, siteId). */
  file: string;
  /** One guarded upload (Transfers.uploadFile with the signal). */
  upload: (path: string, signal: AbortSignal) => Promise<FileOutcome>;
  /** Saves of one file closer than this are one upload (default 400 ms). */
  debounceMs?: number;
  /** Uploads at once (default 2). */
  concurrency?: number;
  /** The wait before the n-th try while offline (default 2 s, 5 s, 15 s, 30 s, then 60 s). */
  retryMs?: (attempt: number) => number;
  /** Whether a failure means the server cannot be reached (default: dns, refused, unreachable, timeout, connection-lost). */
  isOffline?: (e: TransferError) => boolean;
  log?: (level: 'debug' | 'info' | 'warn', message: string) => void;
}

const OFFLINE_KINDS: readonly TransferErrorKind[] = ['dns', 'refused', 'unreachable', 'timeout', 'connection-lost'];
const RETRY = [2000, 5000, 15000, 30000];
const VERSION = 1;

interface Entry extends QueueItem {
  due: number;
  again: boolean;
}

type Listener = (s: QueueSnapshot) => void;

export class UploadQueue {
  private readonly items = new Map<string, Entry>();
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;
  private running = 0;
  private offline = false;
  private retryAt: number | undefined;
  private offlineTries = 0;
  private uploaded = 0;
  private disposed = false;
  private readonly abort = new AbortController();
  private writing: Promise<void> = Promise.resolve();
  private idleWaiters: (() => void)[] = [];

  private constructor(private readonly o: UploadQueueOptions) {}

  /** The queue's file of a site under the account's cache folder. */
  static fileFor(accountCacheDir: string, siteId: string): string {
    return path.join(accountCacheDir, 'transfer', `${siteId.replace(/[^A-Za-z0-9_-]/g, '_')}.upload-queue.json`);
  }

  /** Opens the queue: what a previous session left queued (or failed) is queued again and uploads start. */
  static async open(o: UploadQueueOptions): Promise<UploadQueue> {
    const q = new UploadQueue(o);
    try {
      const j = JSON.parse(await fsp.readFile(o.file, 'utf8')) as { version?: number; siteId?: string; items?: unknown[] };
      if (j.version === VERSION && j.siteId === o.siteId && Array.isArray(j.items)) {
        for (const raw of j.items) {
          const it = raw as Partial<QueueItem>;
          if (typeof it.path !== 'string' || !it.path) continue;
          const failed = it.state === 'failed';
          q.items.set(it.path, {
            path: it.path,
            state: failed ? 'failed' : 'queued',
            since: typeof it.since === 'number' ? it.since : Date.now(),
            attempts: typeof it.attempts === 'number' ? it.attempts : 0,
            ...(failed && it.error ? { error: it.error } : {}),
            due: Date.now(),
            again: false,
          });
        }
      }
    } catch {
      // nothing queued yet, or unreadable: an empty queue
    }
    q.schedule();
    return q;
  }

  /** Called with a snapshot after every change. */
  onDidChange(l: Listener): { dispose(): void } {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  }

  snapshot(): QueueSnapshot {
    const items = [...this.items.values()].map(({ due: _d, again: _a, ...it }) => ({ ...it }));
    const counts = { queued: 0, uploading: 0, failed: 0, conflict: 0, offline: 0 } as Record<QueueState, number>;
    for (const it of items) counts[it.state]++;
    return { siteId: this.o.siteId, items, counts, offline: this.offline, ...(this.retryAt !== undefined ? { retryAt: this.retryAt } : {}), uploaded: this.uploaded };
  }

  /** A save of `path`: queued (saves close together are one upload). */
  enqueue(p: string): void {
    if (this.disposed) return;
    const now = Date.now();
    const due = now + (this.o.debounceMs ?? 400);
    const it = this.items.get(p);
    if (it?.state === 'uploading') it.again = true;
    else if (it && it.state !== 'conflict') {
      it.due = due;
      if (it.state === 'failed') this.set(it, 'queued');
    } else {
      // New, or saved again while a conflict is shown: the conflict is answered by uploading again.
      if (it?.conflict) void it.conflict.cancel().catch(() => undefined);
      this.items.set(p, { path: p, state: this.offline ? 'offline' : 'queued', since: now, attempts: 0, due, again: false });
    }
    this.changed();
    this.schedule();
  }

  /** Retry: a failed path (or every failed one, and at once when offline). */
  retry(p?: string): void {
    for (const it of this.items.values()) {
      if (p !== undefined && it.path !== p) continue;
      if (it.state === 'failed' || it.state === 'offline') {
        it.due = Date.now();
        this.set(it, 'queued');
      }
    }
    if (this.offline) this.online();
    this.changed();
    this.schedule();
  }

  /** Removes a path from the queue (its save stays local, not uploaded). */
  remove(p: string): void {
    const it = this.items.get(p);
    if (!it || it.state === 'uploading') return;
    if (it.conflict) void it.conflict.cancel().catch(() => undefined);
    this.items.delete(p);
    this.changed();
  }

  /** Back online (the VS Code side may know it, e.g. after a successful request): tries now. */
  online(): void {
    if (!this.offline) return;
    this.offline = false;
    this.retryAt = undefined;
    this.offlineTries = 0;
    for (const it of this.items.values()) if (it.state === 'offline') this.set(it, 'queued');
    for (const it of this.items.values()) it.due = Math.min(it.due, Date.now());
    this.changed();
    this.schedule();
  }

  /** Resolves when nothing is queued or uploading (failed, conflict and offline items may remain). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops: no new upload starts, one in flight is cancelled (its path stays queued on disk for the next session). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.timer);
    this.abort.abort();
    this.listeners.clear();
    await this.persist();
    await this.writing;
  }

  // ---- inside

  private isIdle(): boolean {
    for (const it of this.items.values()) if (it.state === 'queued' || it.state === 'uploading') return false;
    return true;
  }

  private set(it: Entry, state: QueueState): void {
    it.state = state;
    it.since = Date.now();
    if (state !== 'failed' && state !== 'offline') delete it.error;
    if (state !== 'conflict') delete it.conflict;
  }

  private changed(): void {
    this.persist().catch(() => undefined);
    const s = this.snapshot();
    for (const l of this.listeners) {
      try {
        l(s);
      } catch {
        // a failing listener does not stop the queue
      }
    }
    if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Writes the queue (one write at a time; the last state wins). */
  private persist(): Promise<void> {
    const items = [...this.items.values()].map((it) => ({ path: it.path, state: it.state === 'uploading' || it.state === 'conflict' || it.state === 'offline' ? 'queued' : it.state, since: it.since, attempts: it.attempts, ...(it.error && it.state === 'failed' ? { error: it.error } : {}) }));
    const body = JSON.stringify({ version: VERSION, siteId: this.o.siteId, items });
    this.writing = this.writing.then(async () => {
      try {
        await fsp.mkdir(path.dirname(this.o.file), { recursive: true, mode: 0o700 });
        const tmp = `${this.o.file}.${randomBytes(4).toString('hex')}.tmp`;
        await fsp.writeFile(tmp, body, { mode: 0o600 });
        await fsp.rename(tmp, this.o.file).catch(async (e: unknown) => {
          await fsp.rm(tmp, { force: true });
          throw e;
        });
      } catch (e) {
        this.o.log?.('warn', `The upload queue could not be written (${e instanceof Error ? e.message : String(e)}); it is kept in memory.`);
      }
    });
    return this.writing;
  }

  /** Starts what is due, and sets the timer for what is due later. */
  private schedule(): void {
    if (this.disposed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = Date.now();
    const max = Math.max(1, this.o.concurrency ?? 2);
    let next = Infinity;
    if (this.offline) {
      // One try when the retry is due; the others wait for it.
      if (this.retryAt !== undefined && this.retryAt <= now && this.running === 0) {
        const probe = [...this.items.values()].find((it) => it.state === 'offline' || it.state === 'queued');
        if (probe) this.start(probe);
      } else if (this.retryAt !== undefined) next = this.retryAt;
    } else {
      for (const it of this.items.values()) {
        if (it.state !== 'queued') continue;
        if (it.due <= now && this.running < max) this.start(it);
        else if (it.due > now) next = Math.min(next, it.due);
        else next = Math.min(next, now + 50);
      }
    }
    if (next !== Infinity) {
      this.timer = setTimeout(() => this.schedule(), Math.max(0, next - now));
      this.timer.unref?.();
    }
  }

  private start(it: Entry): void {
    this.running++;
    it.attempts++;
    it.again = false;
    this.set(it, 'uploading');
    this.changed();
    this.o
      .upload(it.path, this.abort.signal)
      .catch((e: unknown): FileOutcome => ({ path: it.path, action: 'failed', error: TransferError.from(e, it.path) }))
      .then((out) => this.finished(it, out))
      .finally(() => {
        this.running--;
        this.changed();
        this.schedule();
      })
      .catch((e: unknown) => this.o.log?.('warn', `Upload on save: ${e instanceof Error ? e.message : String(e)}`));
  }

  private finished(it: Entry, out: FileOutcome): void {
    if (this.disposed) return;
    const again = it.again;
    if (out.action === 'failed') {
      const e = out.error;
      if (e.kind === 'cancelled') {
        this.set(it, 'queued');
        return;
      }
      if ((this.o.isOffline ?? ((x: TransferError) => OFFLINE_KINDS.includes(x.kind)))(e)) {
        this.offline = true;
        const wait = (this.o.retryMs ?? ((n: number) => RETRY[n] ?? 60_000))(this.offlineTries++);
        this.retryAt = Date.now() + wait;
        this.set(it, 'offline');
        it.error = { kind: e.kind, message: e.message, next: 'The upload waits until the server can be reached again (Retry to try now).' };
        for (const other of this.items.values()) if (other.state === 'queued') this.set(other, 'offline');
        this.o.log?.('info', `Upload on save: the server cannot be reached (${e.kind}); ${this.items.size} file(s) wait, next try in ${Math.round(wait / 1000)} s.`);
        return;
      }
      this.set(it, 'failed');
      it.error = { kind: e.kind, message: e.message, next: e.next };
      if (again) {
        it.due = Date.now();
        this.set(it, 'queued');
      }
      return;
    }
    if (this.offline) this.online();
    if (out.action === 'conflict') {
      this.set(it, 'conflict');
      it.conflict = this.settleOnAnswer(it, out.conflict);
      if (again) it.again = false; // the conflict shows the newest working file when answered
      return;
    }
    this.uploaded += out.action === 'uploaded' ? 1 : 0;
    if (again) {
      it.due = Date.now() + (this.o.debounceMs ?? 400);
      it.attempts = 0;
      this.set(it, 'queued');
    } else this.items.delete(it.path);
  }

  /** The conflict with its choices wrapped: an answer that settles it removes the item (a new conflict replaces it). */
  private settleOnAnswer(it: Entry, c: Conflict): Conflict {
    const wrap = (fn: (o?: Parameters<Conflict['overwriteLive']>[0]) => Promise<Resolution>) => async (o?: Parameters<Conflict['overwriteLive']>[0]) => {
      const r = await fn(o);
      if (this.items.get(it.path) !== it) return r;
      if (r.outcome === 'changed' && r.conflict) it.conflict = this.settleOnAnswer(it, r.conflict);
      else if (r.outcome === 'failed') {
        this.set(it, 'failed');
        it.error = { kind: r.error.kind, message: r.error.message, next: r.error.next };
      } else if (r.outcome === 'done' || r.outcome === 'cancelled' || r.outcome === 'changed') {
        if (r.outcome === 'done' && r.file.action === 'uploaded') this.uploaded++;
        this.items.delete(it.path);
      }
      this.changed();
      return r;
    };
    return { ...c, overwriteLive: wrap(c.overwriteLive), overwriteWorking: wrap(c.overwriteWorking), cancel: wrap(() => c.cancel()) };
  }
}

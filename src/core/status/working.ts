// The working files of a mapped folder as status reads them (plain Node; no `vscode`): a file's
// size, modification time and SHA-256, and the list of the folder's files for the count of local
// files with no revision. `nodeWorkingFs` reads a local folder with node:fs; src/features/scm gives the
// same interface over vscode.workspace.fs for a folder of another file system.
//
// Nothing here holds the extension host's thread or its memory for a large file:
//   - a file larger than the largest revision the client can read (MAX_REPLY_BYTES, 64 MiB: no
//     revision it can read can equal it) is not read at all: "not compared (too large)";
//   - a file is hashed as it is read, in slices of SLICE bytes (one buffer per file, a turn of the
//     event loop between two slices), never read whole into memory;
//   - every read of every folder waits for its share of one budget of bytes in flight
//     (READ_BUDGET, 8 MiB): a file takes its size of it while it is read, at most SLICE (1 MiB),
//     at least 64 KiB (so that at most 128 files are open at once);
//   - a file that is there but cannot be read (permissions, an I/O error) is "not compared
//     (unreadable)", never taken for absent; only a file that is not there (any more) is absent.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { MAX_REPLY_BYTES } from '../api/limits';
import { SLICE } from '../store/slices';
import type { WorkingFile } from './index';

export interface WorkingStat {
  size: number;
  mtime: number;
}

/** How a file is hashed: the budget of bytes in flight it takes its share of, and the caller's signal. */
export interface HashOptions {
  budget?: ReadBudget;
  signal?: AbortSignal;
}

/** A mapped folder's files, by path relative to it (segments joined with `/`). */
export interface WorkingFs {
  /** The file's size and modification time; undefined when there is no file there (nothing, or a folder). */
  stat(relative: string): Promise<WorkingStat | undefined>;
  /**
   * SHA-256 (hex) of the file's bytes, read in slices within the budget; rejects when it cannot be
   * read (with the error's code) or the signal aborts.
   */
  hash(relative: string, o?: HashOptions): Promise<string>;
  /**
   * The folder's files, at most `max` (`complete` false when there were more). Folders named
   * `.git` are left out, and so are symbolic links to folders (never followed).
   */
  list(max: number, signal?: AbortSignal): Promise<{ files: string[]; complete: boolean }>;
}

/**
 * Bytes read at once, in all: a read takes its share (`acquire`) before it starts and gives it back
 * when it ends. A share larger than the whole budget is given when nothing else is in flight.
 */
export class ReadBudget {
  private used = 0;
  private readonly waiting: { bytes: number; go: () => void }[] = [];
  /** The most bytes in flight at once so far (tests, the benchmark). */
  peak = 0;

  constructor(readonly maxBytes: number) {}

  get inFlight(): number {
    return this.used;
  }

  /** Waits for `bytes` of the budget; the function it gives back returns them (once). */
  async acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw abortError();
    if (this.waiting.length || !this.fits(bytes)) {
      // Taken for it by wake(), in the order of asking.
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const i = this.waiting.indexOf(w);
          if (i < 0) return;
          this.waiting.splice(i, 1);
          this.wake();
          reject(abortError());
        };
        const w = {
          bytes,
          go: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(w);
      });
    } else this.used += bytes;
    this.peak = Math.max(this.peak, this.used);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.used -= bytes;
      this.wake();
    };
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.maxBytes;
  }

  /** The first waiting reads that fit now, in their order. */
  private wake(): void {
    while (this.waiting.length && this.fits(this.waiting[0]!.bytes)) {
      const w = this.waiting.shift()!;
      this.used += w.bytes;
      w.go();
    }
  }
}

function abortError(): Error {
  const e = new Error('The read was cancelled.');
  e.name = 'AbortError';
  return e;
}

/** Bytes in flight for every status read of the extension host at once (8 slices). */
export const READ_BUDGET = new ReadBudget(8 * SLICE);

/**
 * The largest working file that is compared: a larger one cannot equal any revision the client
 * can read (MAX_REPLY_BYTES; docs/decisions.md "The working copy").
 */
export const MAX_COMPARED_BYTES = MAX_REPLY_BYTES;

/** The folder at `root` on the local disk. */
export function nodeWorkingFs(root: string): WorkingFs {
  const abs = (relative: string) => path.join(root, ...relative.split('/'));
  return {
    async stat(relative) {
      try {
        const st = await fsp.stat(abs(relative));
        return st.isFile() ? { size: st.size, mtime: st.mtimeMs } : undefined;
      } catch {
        return undefined;
      }
    },
    hash: (relative, o) => hashFile(abs(relative), o),
    async list(max, signal) {
      const files: string[] = [];
      const pending: string[] = [''];
      while (pending.length) {
        if (signal?.aborted) break;
        const dir = pending.pop()!;
        let entries: import('node:fs').Dirent[];
        try {
          entries = await fsp.readdir(dir ? abs(dir) : root, { withFileTypes: true });
        } catch {
          continue; // unreadable: what it holds is not counted
        }
        for (const e of entries) {
          const rel = dir ? `${dir}/${e.name}` : e.name;
          if (e.isDirectory()) {
            if (e.name !== '.git') pending.push(rel);
          } else if (e.isFile() || e.isSymbolicLink()) {
            if (e.isSymbolicLink() && !(await isFileLink(abs(rel)))) continue;
            if (files.length >= max) return { files, complete: false };
            files.push(rel);
          }
        }
      }
      return { files, complete: !signal?.aborted };
    },
  };
}

/**
 * SHA-256 of a local file, read in slices of at most SLICE bytes into one buffer, hashed as they
 * come: the file is never in memory whole, and the thread does at most one slice's hashing
 * between two turns of the event loop (each read is a turn).
 */
export async function hashFile(file: string, o: HashOptions = {}): Promise<string> {
  const budget = o.budget ?? READ_BUDGET;
  // Its share is taken before the file is opened: files waiting for the budget hold no descriptor.
  const size = (await fsp.stat(file)).size;
  const release = await budget.acquire(shareOf(size), o.signal);
  try {
    const fh = await fsp.open(file, 'r');
    try {
      const h = createHash('sha256');
      const buf = Buffer.allocUnsafe(Math.max(1, Math.min(size, SLICE)));
      // Until the end of the file as it is now (a file that grew meanwhile is read to its end:
      // its size and time at the next look say it changed).
      for (;;) {
        if (o.signal?.aborted) throw abortError();
        const { bytesRead } = await fh.read(buf, 0, buf.byteLength, null);
        if (!bytesRead) break;
        h.update(buf.subarray(0, bytesRead));
      }
      return h.digest('hex');
    } finally {
      await fh.close().catch(() => undefined);
    }
  } finally {
    release();
  }
}

/**
 * A file's share of the budget: its size, at most one slice, at least 64 KiB (so that the budget
 * also bounds the files open at once: 128).
 */
export function shareOf(size: number): number {
  return Math.min(SLICE, Math.max(64 * 1024, size));
}

async function isFileLink(p: string): Promise<boolean> {
  try {
    return (await fsp.stat(p)).isFile();
  } catch {
    return false;
  }
}

/**
 * Digests of working files by size and modification time: a file not touched since it was
 * hashed is not read again (as Git's index does with its stat data).
 */
export class DigestCache {
  private readonly known = new Map<string, { size: number; mtime: number; digest: string }>();

  get(relative: string, st: WorkingStat): string | undefined {
    const k = this.known.get(relative);
    return k && k.size === st.size && k.mtime === st.mtime ? k.digest : undefined;
  }

  set(relative: string, st: WorkingStat, digest: string): void {
    this.known.set(relative, { size: st.size, mtime: st.mtime, digest });
  }
}

export interface ReadWorkingOptions extends HashOptions {
  /** The largest file compared (default MAX_COMPARED_BYTES); a larger one is not read. */
  maxBytes?: number;
}

/**
 * A working file's size, time and digest (read and hashed unless `digests` knows it); null when
 * there is none. A file over `maxBytes` is not read ("tooLarge"); one that is there but cannot be
 * read is "unreadable" — neither is ever null.
 */
export async function readWorking(fs: WorkingFs, relative: string, digests: DigestCache, o: ReadWorkingOptions = {}): Promise<WorkingFile | null> {
  const st = await fs.stat(relative);
  if (!st) return null;
  if (st.size > (o.maxBytes ?? MAX_COMPARED_BYTES)) return { size: st.size, mtime: st.mtime, digest: undefined, notCompared: 'tooLarge' };
  let digest = digests.get(relative, st);
  if (digest === undefined) {
    try {
      digest = await fs.hash(relative, o);
    } catch (e) {
      if (o.signal?.aborted) throw e;
      // Gone between the two looks: absent. Still there: not compared, never absent.
      const now = await fs.stat(relative);
      if (!now) return null;
      const code = (e as NodeJS.ErrnoException | undefined)?.code;
      return { size: now.size, mtime: now.mtime, digest: undefined, notCompared: 'unreadable', why: code ?? (e instanceof Error ? e.message : String(e)) };
    }
    // Hashed as it was read: a write in between gives another size or time at the next look.
    digests.set(relative, st, digest);
  }
  return { size: st.size, mtime: st.mtime, digest };
}

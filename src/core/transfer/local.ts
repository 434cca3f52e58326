// The working side of transfers: the mapped folder on this computer's disk (plain Node).
// - Paths are the live layer's root-relative paths; a path written here must pass the restore's
//   rules (src/core/model/safePath.ts: no `..`, no `:`, nothing inside `.git` or `.vscode`…).
// - Symbolic links are never followed out of the folder: a link to a file inside it is read
//   (and written through) as that file; a link whose target is outside, and a link to a folder,
//   are left alone (listed as skipped with the reason).
// - Writes go to a temporary file in the same folder, renamed over the target when complete
//   (as the disk store does, src/core/store/files.ts): a cancel, a failure or a crash leaves the
//   old file or the new one, never a torn one. Temporary names: `.<name>.sr-<pid>-<random>.tmp`;
//   those of processes that are gone are removed by the next folder transfer.
import { createHash } from 'node:crypto';
import { promises as fsp, type Dirent, type Stats } from 'node:fs';
import * as path from 'node:path';
import { isInside, restoreRefusal, safeSegments } from '../model/safePath';
import { processAlive } from '../store/files';
import { TransferError, type SkipReason } from './types';

/** Files up to this size are read into memory whole (hash and upload from one read); larger ones are streamed twice. */
export const IN_MEMORY_BYTES = 16 * 1024 * 1024;

export interface LocalFile {
  path: string;
  /** The file read (the link's target when `path` is a link inside the folder). */
  abs: string;
  size: number;
  mtimeMs: number;
  /** Permission bits (0 on Windows, where they mean nothing to a server). */
  mode: number;
}

export interface LocalSkip {
  path: string;
  reason: SkipReason;
  detail: string;
}

const TEMP_RE = /^\..*\.sr-(\d+)-[0-9a-f]+\.tmp$/;
const caseless = process.platform === 'win32' || process.platform === 'darwin';

function cancelledError(p?: string): TransferError {
  return new TransferError('cancelled', 'local', 'Cancelled.', { next: 'Run it again when you want.', ...(p !== undefined ? { path: p } : {}) });
}

export function throwIfCancelled(signal: AbortSignal | undefined, p?: string): void {
  if (signal?.aborted) throw cancelledError(p);
}

export class LocalFolder {
  private real: Promise<string> | undefined;

  constructor(readonly root: string) {}

  /** The folder's real path (links in it resolved), once. */
  realRoot(): Promise<string> {
    this.real ??= fsp.realpath(this.root).catch(() => path.resolve(this.root));
    return this.real;
  }

  /** The absolute path of a root-relative one (no check). */
  abs(p: string): string {
    return p ? path.join(this.root, ...p.split('/')) : this.root;
  }

  private async inside(real: string): Promise<boolean> {
    const root = await this.realRoot();
    const norm = (x: string) => x.split(path.sep).join('/');
    return isInside(norm(root), norm(real), caseless);
  }

  /**
   * What is at `p`: a file (through a link inside the folder), nothing, or something not to
   * follow. Never throws for a missing file.
   */
  async lookup(p: string, dirs?: Map<string, Promise<string | undefined>>): Promise<{ kind: 'file'; file: LocalFile } | { kind: 'missing' } | { kind: 'skip'; skip: LocalSkip }> {
    const abs = this.abs(p);
    let lst: Stats;
    try {
      lst = await fsp.lstat(abs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return { kind: 'missing' };
      throw TransferError.from(e, p);
    }
    // A link in a parent folder that leads out of the folder is never followed.
    // (`dirs`: the folders' real paths of one walk, each resolved once.)
    const dir = path.dirname(abs);
    let real = dirs?.get(dir);
    if (!real) {
      real = fsp.realpath(dir).catch(() => undefined);
      dirs?.set(dir, real);
    }
    const parentReal = await real;
    const rootReal = await this.realRoot();
    if (parentReal && parentReal !== rootReal && !(await this.inside(parentReal))) {
      return { kind: 'skip', skip: { path: p, reason: 'link-outside', detail: 'A folder on its way is a symbolic link to a place outside the mapped folder; it is not followed.' } };
    }
    if (lst.isSymbolicLink()) {
      let real: string;
      let st: Stats;
      try {
        real = await fsp.realpath(abs);
        st = await fsp.stat(real);
      } catch {
        return { kind: 'skip', skip: { path: p, reason: 'link-outside', detail: 'A symbolic link whose target does not exist.' } };
      }
      if (!(await this.inside(real))) return { kind: 'skip', skip: { path: p, reason: 'link-outside', detail: 'A symbolic link to a place outside the mapped folder; it is not followed.' } };
      if (st.isDirectory()) return { kind: 'skip', skip: { path: p, reason: 'link-to-folder', detail: 'A symbolic link to a folder; links to folders are not followed.' } };
      if (!st.isFile()) return { kind: 'skip', skip: { path: p, reason: 'not-a-file', detail: 'Not a regular file.' } };
      return { kind: 'file', file: fileOf(p, real, st) };
    }
    if (lst.isDirectory()) return { kind: 'skip', skip: { path: p, reason: 'not-a-file', detail: 'A folder, not a file.' } };
    if (!lst.isFile()) return { kind: 'skip', skip: { path: p, reason: 'not-a-file', detail: 'Not a regular file.' } };
    return { kind: 'file', file: fileOf(p, abs, lst) };
  }

  /** Why `p` cannot be written in the mapped folder (the restore's rules), or undefined. */
  refusal(p: string): string | undefined {
    const s = safeSegments(p);
    if (!s.ok) return s.reason;
    return restoreRefusal(p, s.segments);
  }

  /**
   * Where a download of `p` writes: the path itself, or the target of a link to a file inside the
   * folder. Refused ('refused-path', 'outside-root') when it cannot be written here.
   */
  async writeTarget(p: string): Promise<string> {
    const why = this.refusal(p);
    if (why) throw new TransferError('refused-path', 'local', why, { next: 'Open the live file to read it instead; it is not written into the mapped folder.', path: p });
    const abs = this.abs(p);
    const dir = path.dirname(abs);
    await fsp.mkdir(dir, { recursive: true }).catch((e: unknown) => {
      throw TransferError.from(e, p);
    });
    const dirReal = await fsp.realpath(dir);
    if (dirReal !== (await this.realRoot()) && !(await this.inside(dirReal))) {
      throw new TransferError('outside-root', 'local', `A folder on the way to ${p} is a symbolic link to a place outside the mapped folder.`, { next: 'Remove the link, or download elsewhere.', path: p });
    }
    const lst = await fsp.lstat(abs).catch(() => undefined);
    if (lst?.isSymbolicLink()) {
      const real = await fsp.realpath(abs).catch(() => undefined);
      if (!real || !(await this.inside(real))) throw new TransferError('outside-root', 'local', `${p} in the mapped folder is a symbolic link to a place outside it; it is not written through.`, { next: 'Remove the link, or download elsewhere.', path: p });
      return real;
    }
    if (lst?.isDirectory()) throw new TransferError('not-a-file', 'local', `${p} is a folder in the mapped folder.`, { next: 'Rename the folder, or download elsewhere.', path: p });
    return abs;
  }

  /** Reads a whole file (its SHA-256 too). */
  async readAll(f: LocalFile, signal?: AbortSignal): Promise<{ bytes: Buffer; sha256: string }> {
    throwIfCancelled(signal, f.path);
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(f.abs, signal ? { signal } : {});
    } catch (e) {
      if (signal?.aborted) throw cancelledError(f.path);
      throw TransferError.from(e, f.path);
    }
    return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  }

  /** A file's SHA-256, streamed. */
  async hash(f: LocalFile, signal?: AbortSignal): Promise<string> {
    const h = createHash('sha256');
    for await (const c of this.stream(f, signal)) h.update(c);
    return h.digest('hex');
  }

  /** A file's bytes as a stream (cancellable). */
  async *stream(f: LocalFile, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(f.abs, 'r');
    } catch (e) {
      throw TransferError.from(e, f.path);
    }
    try {
      const buf = Buffer.allocUnsafe(256 * 1024);
      for (;;) {
        throwIfCancelled(signal, f.path);
        const { bytesRead } = await fh.read(buf, 0, buf.length, null);
        if (!bytesRead) break;
        yield Buffer.from(buf.subarray(0, bytesRead));
      }
    } finally {
      await fh.close();
    }
  }

  /**
   * Writes `source` to `target` (writeTarget's answer) through a temporary file in the same
   * folder, renamed over it once complete and hashed. `mode`: the permission bits to keep (those
   * of the file replaced); `mtime`: the live file's time, set on the new file when known.
   */
  async writeAtomic(target: string, source: AsyncIterable<Uint8Array>, o: { signal?: AbortSignal; mode?: number; mtime?: number; onBytes?: (n: number) => void; expectSha256?: string; path: string }): Promise<{ sha256: string; size: number }> {
    const dir = path.dirname(target);
    const tmp = path.join(dir, `.${path.basename(target).slice(0, 80)}.sr-${process.pid}-${Math.random().toString(16).slice(2, 10)}.tmp`);
    const h = createHash('sha256');
    let size = 0;
    let fh: fsp.FileHandle | undefined;
    try {
      fh = await fsp.open(tmp, 'wx', o.mode !== undefined ? o.mode & 0o777 : 0o666);
      for await (const c of source) {
        throwIfCancelled(o.signal, o.path);
        h.update(c);
        size += c.length;
        await fh.write(c);
        o.onBytes?.(c.length);
      }
      throwIfCancelled(o.signal, o.path);
      await fh.close();
      fh = undefined;
      const sha256 = h.digest('hex');
      if (o.expectSha256 !== undefined && sha256 !== o.expectSha256) {
        throw new TransferError('connection-lost', 'live', `The bytes read from the server for ${o.path} are not the ones checked a moment ago.`, { next: 'Try again.', path: o.path });
      }
      if (o.mode !== undefined && process.platform !== 'win32') await fsp.chmod(tmp, o.mode & 0o7777);
      if (o.mtime !== undefined && Number.isFinite(o.mtime)) await fsp.utimes(tmp, new Date(), new Date(o.mtime)).catch(() => undefined);
      await fsp.rename(tmp, target);
      return { sha256, size };
    } catch (e) {
      await fh?.close().catch(() => undefined);
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      if (o.signal?.aborted && !(e instanceof TransferError && e.kind !== 'cancelled')) throw cancelledError(o.path);
      throw TransferError.from(e, o.path);
    }
  }

  /** Deletes a file of the folder (not through a link). Gone already: fine. */
  async remove(p: string): Promise<void> {
    try {
      await fsp.rm(this.abs(p), { force: true });
    } catch (e) {
      throw TransferError.from(e, p);
    }
  }

  /**
   * The files under `dir` (root-relative), and what was left alone: links outside the folder or
   * to folders, special files. `exclude(path, isDir)` leaves paths out (skipped 'excluded'; an
   * excluded folder is not entered). Temporary files of our own writes are not listed; those of
   * processes that are gone are removed.
   */
  async walk(dir: string, o: { exclude?: (p: string, isDir: boolean) => boolean; signal?: AbortSignal } = {}): Promise<{ files: LocalFile[]; skipped: LocalSkip[] }> {
    const files: LocalFile[] = [];
    const skipped: LocalSkip[] = [];
    const pending = [dir];
    const dirs = new Map<string, Promise<string | undefined>>();
    while (pending.length) {
      throwIfCancelled(o.signal);
      const d = pending.pop()!;
      let entries: Dirent[];
      try {
        entries = await fsp.readdir(this.abs(d), { withFileTypes: true });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        throw TransferError.from(e, d);
      }
      for (const e of entries) {
        const p = d ? `${d}/${e.name}` : e.name;
        const m = TEMP_RE.exec(e.name);
        if (m && e.isFile()) {
          const pid = Number(m[1]);
          if (pid !== process.pid && !processAlive(pid)) await fsp.rm(this.abs(p), { force: true }).catch(() => undefined);
          continue;
        }
        if (e.isDirectory()) {
          if (o.exclude?.(p, true)) skipped.push({ path: p, reason: 'excluded', detail: 'Excluded (a folder).' });
          else pending.push(p);
          continue;
        }
        if (o.exclude?.(p, false)) {
          skipped.push({ path: p, reason: 'excluded', detail: 'Excluded.' });
          continue;
        }
        const l = await this.lookup(p, dirs);
        if (l.kind === 'file') files.push(l.file);
        else if (l.kind === 'skip') skipped.push(l.skip);
      }
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, skipped };
  }
}

function fileOf(p: string, abs: string, st: Stats): LocalFile {
  return { path: p, abs, size: st.size, mtimeMs: st.mtimeMs, mode: process.platform === 'win32' ? 0 : st.mode & 0o7777 };
}


/** Whether a file name is one of our temporary files (the live folder's poll leaves them out: src/features/live/poll.ts). */
export function isTempName(name: string): boolean {
  return TEMP_RE.test(name) || /\.sr-[0-9a-f]+\.tmp$/.test(name);
}

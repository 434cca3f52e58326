// Upload and download guarded by the history (issue 34 §1–§3), plain Node: one site's live
// file system (src/core/live) and its mapped folder (local.ts), the last-seen state (the base),
// the newest revisions (the base when nothing was transferred yet) and the store of kept copies.
//
// Upload of a file: the working file is read (and hashed); the live file is stat'ed (or taken
// from the folder's listing) and compared with its base (guard.ts). Unchanged → its bytes are
// kept (from the base's blob when it is kept, else read now into the store: a read that also
// proves the hash) → the working bytes are written to a temporary name and renamed over it (the
// live layer's write), with the live file's permission bits kept → the server's own size and raw
// time (stat after the write) become the new last-seen record. Changed → nothing is written: a
// Conflict, with the live bytes held for the diffs and the three choices.
// Download of a file: the working file, if any, is compared with its base (un-uploaded edits →
// Conflict; unsaved edits, said by the caller → Conflict) → the live bytes go to a temporary
// file next to the working file, hashed as they come, renamed over it → last-seen recorded.
// Folders: listed once on each side (no stat per file), then the files go through the same steps,
// a few at once (FTP: the site's pool; SFTP: requests in flight on its one connection); conflicts
// are set aside and listed, the others go on; a cancel stops at once and leaves no partial file
// (temporary files on both sides are removed).
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { HistorySource } from '../live/compare';
import type { LastSeen } from '../live/lastSeen';
import { LiveError, type LiveEntry, type LiveFs } from '../live/types';
import type { Bases } from './bases';
import type { KeptCopies } from './copies';
import { baseOf, newestOf, sameVersion, unchangedSince } from './guard';
import { IN_MEMORY_BYTES, LocalFolder, throwIfCancelled, type LocalFile, type LocalSkip } from './local';
import { TransferError, type BaseInfo, type Conflict, type ConflictReason, type FileOutcome, type FolderResult, type KeepReason, type KeptCopy, type Resolution, type TransferOptions, type TransferProgress } from './types';

export interface TransferSite {
  live: LiveFs;
  /** The site's id (keys the kept copies and the last-seen state). */
  siteId: string;
  /** The mapped folder (absolute path on this computer). */
  localRoot: string;
  /** The guard's bases: what this computer last downloaded or uploaded (Bases.load(Bases.fileFor(accountCacheDir, siteId))). */
  bases: Bases;
  /** The live layer's last-seen state, the hash cache of Compare and Live Drift (LastSeen.load(LastSeen.fileFor(…))): updated after each transfer. Optional. */
  lastSeen?: LastSeen;
  /** The account's kept copies (KeptCopies.open). */
  copies: KeptCopies;
  /** The newest revisions (storeHistory(store, siteId, 'complete')): the base when nothing was transferred yet, and the third side of the diffs. */
  history?: HistorySource;
  /** Whether the editor holds unsaved edits of a working file (a download over it is then a conflict). */
  isUnsaved?: (path: string) => boolean;
  /** Files at once in folder transfers (default: FTP the site's pool size, SFTP 8, WebDAV 4, S3 6). */
  concurrency?: number;
  /** 'content': read and hash the live file before every replace, even when its size and time say unchanged (default 'metadata'). */
  verify?: 'metadata' | 'content';
  log?: (level: 'debug' | 'info' | 'warn', message: string) => void;
}

export interface FileOptions extends TransferOptions {
  /** Keep the transferred bytes as the path's base (default true for one file, false in folders). */
  keepBase?: boolean;
  /** Why a replaced live file is kept (default 'upload'). */
  why?: KeepReason;
}

export interface FolderOptions extends TransferOptions {
  /** Leaves paths out (site-relative path, whether it is a folder): see ignore.ts. */
  exclude?: (path: string, isDir: boolean) => boolean;
  /** Only these paths (a sync plan's rows). */
  only?: readonly string[];
  /** Each file's outcome as soon as it is known (a view can list them as they come). */
  onFile?: (o: FileOutcome) => void;
}

/** What a file's live side is known to be before its step: an entry from a listing, null (known absent), undefined (stat it). */
type Known = LiveEntry | null | undefined;

/** What an upload sends: a working file, or bytes given (a save, a put-back). */
interface Source {
  file?: LocalFile;
  size: number;
  sha256: string;
  /** The bytes when read whole (files up to IN_MEMORY_BYTES, and bytes given). */
  bytes?: Buffer;
}

/** Counts progress and hands it on, at most every 100 ms (and at the end). */
export class Progress {
  readonly p: TransferProgress = { phase: 'listing', files: { done: 0, total: 0 }, bytes: { done: 0, total: 0 }, conflicts: 0, failed: 0, skipped: 0 };
  private last = 0;
  constructor(private readonly cb: TransferOptions['onProgress']) {}
  tell(force = false): void {
    if (!this.cb) return;
    const now = Date.now();
    if (!force && now - this.last < 100) return;
    this.last = now;
    try {
      this.cb({ ...this.p, files: { ...this.p.files }, bytes: { ...this.p.bytes } });
    } catch {
      // a failing listener does not stop a transfer
    }
  }
  bytes(n: number): void {
    this.p.bytes.done += n;
    this.tell();
  }
  outcome(o: FileOutcome): void {
    this.p.files.done++;
    if (o.action === 'conflict') this.p.conflicts++;
    else if (o.action === 'failed') this.p.failed++;
    else if (o.action === 'skipped') this.p.skipped++;
    this.tell();
  }
}

const noSignal = new AbortController().signal;

export class Transfers {
  readonly local: LocalFolder;
  private readonly dirs = new Map<string, Promise<void>>();
  /** The permission bits this server gave a new file (the stat after a write that asked for none). */
  private newFileMode: number | undefined;

  constructor(readonly site: TransferSite) {
    this.local = new LocalFolder(site.localRoot);
  }

  private get protocol() {
    return this.site.live.endpoint.protocol;
  }

  /** Files at once in folder transfers. */
  get concurrency(): number {
    const ep = this.site.live.endpoint;
    return Math.max(1, this.site.concurrency ?? (ep.protocol === 'sftp' ? 8 : ep.poolSize));
  }

  // ---------------------------------------------------------------------------------------------
  // One file

  /** Uploads the working file at `path` over the live one, through the guard. */
  uploadFile(p: string, o: FileOptions = {}): Promise<FileOutcome> {
    return this.single(p, o, (prog) => this.upload(p, undefined, { ...o, keepBase: o.keepBase ?? true }, prog));
  }

  /** Downloads the live file at `path` over the working one, through the guard. */
  downloadFile(p: string, o: FileOptions = {}): Promise<FileOutcome> {
    return this.single(p, o, (prog) => this.download(p, undefined, { ...o, keepBase: o.keepBase ?? true }, prog));
  }

  /** One file's step with its progress (one file) and the state written after it. */
  private async single(p: string, o: TransferOptions, step: (prog: Progress) => Promise<FileOutcome>): Promise<FileOutcome> {
    const prog = new Progress(o.onProgress);
    prog.p.phase = 'transferring';
    prog.p.files.total = 1;
    const out = await this.once(p, () => step(prog));
    await this.saveState();
    prog.outcome(out);
    prog.p.phase = 'done';
    prog.tell(true);
    return out;
  }

  /**
   * Writes `bytes` to the live file at `path` through the guard, with no working file involved:
   * the writable live folder's save (why 'save') and a kept copy put back (why 'put-back'). The
   * live file must be what this computer last saw of it (or absent); its bytes are kept first.
   * A live file changed since: a Conflict whose Overwrite writes these bytes.
   */
  async saveLive(p: string, bytes: Uint8Array, o: FileOptions = {}): Promise<FileOutcome> {
    const out = await this.once(p, () => this.upload(p, undefined, { ...o, keepBase: o.keepBase ?? true, why: o.why ?? 'save' }, undefined, bytesSource(bytes)));
    await this.saveState();
    return out;
  }

  /**
   * Deletes the live file at `path` (the writable live folder) through the guard: it must be what
   * this computer last saw of it (else a failure of kind 'exists'; `force` deletes it anyway). Its
   * bytes are kept first, whatever.
   */
  async deleteLive(p: string, o: FileOptions & { force?: boolean } = {}): Promise<FileOutcome> {
    const out = await this.once(p, () => this.removeLive(p, undefined, o.why ?? 'delete', o.signal ?? noSignal, o.force === true));
    await this.saveState();
    return out;
  }

  /**
   * Puts a kept copy back on the server at its path, through the guard (see saveLive): the live
   * file there now must be what this computer last saw (or absent), and its bytes are kept first.
   */
  async putBack(copyId: string, o: TransferOptions = {}): Promise<FileOutcome> {
    const c = this.site.copies.get(copyId);
    if (!c) return { path: copyId, action: 'failed', error: new TransferError('damaged-copy', 'store', 'That kept copy is not there any more.', { next: 'Refresh the list of overwritten copies.' }) };
    let bytes: Uint8Array;
    try {
      bytes = await this.site.copies.read(copyId);
    } catch (e) {
      return { path: c.path, action: 'failed', error: TransferError.from(e, c.path) };
    }
    return this.saveLive(c.path, bytes, { ...o, why: 'put-back', keepBase: false });
  }

  /** Deletes a live file through the guard (deleteLive, a sync's delete); its bytes are kept first. (Used by sync.ts.) */
  async removeLive(p: string, known: Known, why: KeepReason, signal: AbortSignal, force = false): Promise<FileOutcome> {
    const { livePath, entry } = await this.resolveLive(p, known, signal);
    if (!entry) return { path: p, action: 'deleted', side: 'live' };
    const base = await baseOf(livePath, this.site.bases, this.site.history, signal);
    const check = await this.checkLive(livePath, entry, base, signal);
    if (!force && (base.from === 'none' || check.liveSha !== base.sha256)) {
      throw new TransferError('exists', 'live', `${p} changed on the server since this computer last saw it: it was not deleted.`, { next: 'Compare it with what you expected; delete it again to delete it anyway (its bytes are kept).', path: p });
    }
    const kept = await this.keepLive(livePath, entry, check.liveSha, why, undefined);
    await this.site.live.delete(livePath, { signal });
    this.recordLive(livePath, undefined, '', 'upload');
    await this.site.copies.dropBase(this.site.siteId, livePath);
    return { path: p, action: 'deleted', side: 'live', kept };
  }

  /**
   * Deletes a working file (a sync's delete of a file deleted on the server) through the guard: it
   * must be what this computer last transferred (or the version a conflict showed: `expectSha`),
   * and the live file must still be gone. Its bytes are kept first.
   * (Used by sync.ts.)
   */
  async removeLocal(p: string, signal: AbortSignal, expectSha?: string): Promise<FileOutcome> {
    const l = await this.local.lookup(p);
    if (l.kind === 'missing') return { path: p, action: 'deleted', side: 'local' };
    if (l.kind === 'skip') return { path: p, action: 'skipped', reason: l.skip.reason, detail: l.skip.detail };
    const w = l.file.size <= IN_MEMORY_BYTES ? await this.local.readAll(l.file, signal) : { sha256: await this.local.hash(l.file, signal), bytes: undefined };
    const { livePath, entry } = await this.resolveLive(p, undefined, signal);
    const base = await baseOf(livePath, this.site.bases, this.site.history, signal);
    if (expectSha !== undefined ? w.sha256 !== expectSha : base.from === 'none' || w.sha256 !== base.sha256) {
      return { path: p, action: 'conflict', conflict: await this.conflict('sync', 'deleted-live', p, livePath, entry, undefined, undefined, { file: l.file, size: l.file.size, sha256: w.sha256 }, this.site.isUnsaved?.(p), base, signal) };
    }
    if (entry) throw new TransferError('exists', 'live', `${p} is on the server again: the working file was not deleted.`, { next: 'Make the plan again.', path: p });
    const kept = await this.keepWorking(p, l.file, w.bytes, 'sync-delete');
    await this.local.remove(p);
    this.recordLive(livePath, undefined, '', 'download');
    return { path: p, action: 'deleted', side: 'local', kept };
  }

  /** A sync plan's conflict as it stands now, with its choices. (Used by sync.ts.) */
  async syncConflict(p: string, reason: ConflictReason, signal: AbortSignal): Promise<FileOutcome> {
    const { livePath, entry } = await this.resolveLive(p, undefined, signal);
    const l = await this.local.lookup(p);
    const base = await baseOf(livePath, this.site.bases, this.site.history, signal);
    let working: Source | undefined;
    if (l.kind === 'file') working = { file: l.file, size: l.file.size, sha256: l.file.size <= IN_MEMORY_BYTES ? (await this.local.readAll(l.file, signal)).sha256 : await this.local.hash(l.file, signal) };
    const check = entry ? await this.checkLive(livePath, entry, base, signal) : undefined;
    if (check && working && check.liveSha === working.sha256) {
      this.recordLive(livePath, entry, working.sha256, 'read', working.file);
      return { path: p, action: 'identical', sha256: working.sha256 };
    }
    return { path: p, action: 'conflict', conflict: await this.conflict('sync', reason, p, livePath, entry, check?.liveSha, check?.blob, working, this.site.isUnsaved?.(p), base, signal) };
  }

  // ---------------------------------------------------------------------------------------------
  // Folders

  /** Uploads the working folder `dir` (root-relative, '' the whole mapped folder) to the live one. */
  async uploadFolder(dir: string, o: FolderOptions = {}): Promise<FolderResult> {
    const signal = o.signal ?? noSignal;
    const prog = new Progress(o.onProgress);
    const result = emptyResult(o.onFile);
    try {
      const [localSide, liveSide] = await Promise.all([this.local.walk(dir, { ...(o.exclude ? { exclude: o.exclude } : {}), signal }), this.walkLive(dir, signal, o.exclude)]);
      for (const s of localSide.skipped) push(result, prog, { path: s.path, action: 'skipped', reason: s.reason, detail: s.detail });
      const only = o.only && new Set(o.only);
      const files = localSide.files.filter((f) => !only || only.has(f.path));
      prog.p.phase = 'transferring';
      prog.p.files.total = files.length;
      prog.p.bytes.total = files.reduce((n, f) => n + f.size, 0);
      prog.tell(true);
      for (const d of liveSide.dirs) this.dirs.set(d, Promise.resolve());
      await this.pool(files, signal, result, async (f) => {
        const out = await this.settle(f.path, () => this.upload(f.path, liveSide.files.get(f.path) ?? null, { signal, keepBase: false, why: 'upload', working: f }, prog));
        push(result, prog, out);
      });
    } catch (e) {
      this.cancelOrThrow(e, signal, result);
    } finally {
      this.dirs.clear();
      await this.saveState();
    }
    return finish(result, prog);
  }

  /** Downloads the live folder `dir` into the mapped folder. */
  async downloadFolder(dir: string, o: FolderOptions = {}): Promise<FolderResult> {
    const signal = o.signal ?? noSignal;
    const prog = new Progress(o.onProgress);
    const result = emptyResult(o.onFile);
    try {
      const liveSide = await this.walkLive(dir, signal, o.exclude);
      for (const s of liveSide.skipped) push(result, prog, { path: s.path, action: 'skipped', reason: s.reason, detail: s.detail });
      const only = o.only && new Set(o.only);
      const files = [...liveSide.files.values()].filter((e) => !only || only.has(e.path)).sort((a, b) => (a.path < b.path ? -1 : 1));
      prog.p.phase = 'transferring';
      prog.p.files.total = files.length;
      prog.p.bytes.total = files.reduce((n, e) => n + (e.size ?? 0), 0);
      prog.tell(true);
      await this.pool(files, signal, result, async (e) => {
        const out = await this.settle(e.path, () => this.download(e.path, e, { signal, keepBase: false }, prog));
        push(result, prog, out);
      });
    } catch (e) {
      this.cancelOrThrow(e, signal, result);
    } finally {
      await this.saveState();
    }
    return finish(result, prog);
  }

  /**
   * The live tree under `dir`: files (and links to files inside the root) by path, folders, and
   * what is left alone (links outside the root or to folders; excluded paths). Folders are listed a
   * few at once. A folder that does not exist is an empty tree.
   */
  async walkLive(dir: string, signal: AbortSignal, exclude?: (p: string, isDir: boolean) => boolean): Promise<{ files: Map<string, LiveEntry>; dirs: string[]; skipped: LocalSkip[] }> {
    const files = new Map<string, LiveEntry>();
    const dirs: string[] = [];
    const skipped: LocalSkip[] = [];
    let level = [dir];
    const n = Math.max(2, Math.min(this.concurrency, 8));
    while (level.length) {
      const next: string[] = [];
      await runAll(level, n, signal, async (d) => {
        try {
          for await (const batch of this.site.live.list(d, { signal })) {
            for (const e of batch) {
              if (e.type === 'dir') {
                if (exclude?.(e.path, true)) skipped.push({ path: e.path, reason: 'excluded', detail: 'Excluded (a folder).' });
                else {
                  next.push(e.path);
                  dirs.push(e.path);
                }
              } else if (exclude?.(e.path, false)) skipped.push({ path: e.path, reason: 'excluded', detail: 'Excluded.' });
              else if (e.type === 'file') files.set(e.path, e);
              else if (e.type === 'symlink') {
                const t = e.link?.targetType;
                if (t === 'file') files.set(e.path, e);
                else if (t === 'dir') skipped.push({ path: e.path, reason: 'link-to-folder', detail: 'A symbolic link to a folder on the server; links to folders are not followed.' });
                else skipped.push({ path: e.path, reason: 'link-outside', detail: t === 'missing' ? 'A symbolic link on the server whose target does not exist.' : 'A symbolic link on the server to a place outside the site\'s folder; it is not followed.' });
              }
            }
          }
        } catch (e) {
          if (e instanceof LiveError && e.kind === 'not-found' && d === dir) return;
          throw e;
        }
      });
      level = next;
    }
    return { files, dirs, skipped };
  }

  // ---------------------------------------------------------------------------------------------
  // The steps

  /** Runs a step of a single-file operation: whatever it throws, a cancel included, becomes a 'failed' outcome. */
  private async once(p: string, fn: () => Promise<FileOutcome>): Promise<FileOutcome> {
    try {
      return await this.settle(p, fn);
    } catch (e) {
      return { path: p, action: 'failed', error: TransferError.from(e, p) };
    }
  }

  /** Runs a step and turns what it throws into a file outcome (a cancel is rethrown). (Used by sync.ts.) */
  async settle(p: string, fn: () => Promise<FileOutcome>): Promise<FileOutcome> {
    try {
      return await fn();
    } catch (e) {
      const err = TransferError.from(e, p);
      if (err.kind === 'cancelled') throw err;
      return { path: p, action: 'failed', error: err };
    }
  }

  /** The live path a root-relative path is written to (a link to a file inside the root: its target), and what is there. (Used by sync.ts.) */
  async resolveLive(p: string, known: Known, signal: AbortSignal): Promise<{ livePath: string; entry: LiveEntry | undefined }> {
    let entry = known === undefined ? await this.site.live.stat(p, { signal }) : (known ?? undefined);
    let livePath = p;
    if (entry?.type === 'symlink') {
      const l = entry.link;
      if ((l?.targetType === 'file' || l?.targetType === 'missing') && l.path !== undefined) {
        livePath = l.path;
        entry = l.targetType === 'file' ? await this.site.live.stat(livePath, { signal }) : undefined;
      } else {
        throw new TransferError('outside-root', 'live', `${p} on the server is a symbolic link ${l?.targetType === 'dir' ? 'to a folder' : "to a place outside the site's folder"}; it is not written through.`, { next: 'Transfer the file it points to instead.', path: p });
      }
    }
    if (entry && entry.type !== 'file') throw new TransferError('not-a-file', 'live', `${p} on the server is ${entry.type === 'dir' ? 'a folder' : 'not a regular file'}.`, { next: 'Rename one of them.', path: p });
    return { livePath, entry };
  }

  /**
   * The live file's hash: the base's when the metadata says unchanged (no read; with its blob when
   * kept), else read into the store as it comes. Returns the hash and the blob that holds those
   * bytes, when there is one (none: they are read when they must be kept).
   */
  private async checkLive(livePath: string, entry: LiveEntry, base: BaseInfo, signal: AbortSignal): Promise<{ liveSha: string; blob: string | undefined }> {
    if (base.from === 'last-seen' && this.site.verify !== 'content' && unchangedSince(entry, base, this.protocol)) {
      return { liveSha: base.sha256, blob: (await this.site.copies.hasBlob(base.sha256)) ? base.sha256 : undefined };
    }
    const r = await this.readLiveToStore(livePath, entry, signal);
    return { liveSha: r, blob: r };
  }

  /** Reads a live file into a blob of the store (refused before reading when the store cannot hold it). */
  private async readLiveToStore(livePath: string, entry: LiveEntry, signal: AbortSignal): Promise<string> {
    this.site.copies.checkRoom(entry.size ?? 0, livePath);
    const sink = await this.site.copies.sink();
    try {
      const s = await this.site.live.read(livePath, { signal });
      try {
        for await (const c of s) {
          throwIfCancelled(signal, livePath);
          await sink.write(c);
          if (sink.size > this.site.copies.maxBytes) this.site.copies.checkRoom(sink.size, livePath);
        }
      } finally {
        s.destroy();
      }
    } catch (e) {
      await sink.abort();
      throw e;
    }
    return (await sink.commit()).sha256;
  }

  /** Keeps the live bytes (blob `sha256`, checked) before they are replaced or deleted. */
  private async keepLive(livePath: string, entry: LiveEntry, sha256: string, why: KeepReason, heldId: string | undefined): Promise<KeptCopy> {
    const held = heldId ? this.site.copies.get(heldId) : undefined;
    if (held && held.sha256 === sha256) {
      const k = await this.site.copies.promote(held.id, why);
      if (k) return k;
    }
    if (!(await this.site.copies.hasBlob(sha256))) {
      // The blob went meanwhile (evicted): read the bytes now; they must still be those checked.
      const got = await this.readLiveToStore(livePath, entry, noSignal);
      if (got !== sha256) throw new TransferError('exists', 'live', `${livePath} changed on the server a moment ago: it was not replaced.`, { next: 'Try again to compare.', path: livePath });
    }
    return this.site.copies.keep({ kind: 'copy', siteId: this.site.siteId, path: livePath, size: entry.size ?? 0, sha256, why, side: 'live', live: liveTimes(entry) });
  }

  /** Records what the live file now is (the base), and tells the live layer's hash cache. */
  private recordLive(livePath: string, e: LiveEntry | undefined, sha256: string, by: 'read' | 'download' | 'upload', local?: { size: number; mtimeMs: number }): void {
    if (e) {
      this.site.bases.set(livePath, e, sha256, by, local);
      this.site.lastSeen?.set(livePath, e, sha256, by);
    } else {
      this.site.bases.delete(livePath);
      this.site.lastSeen?.delete(livePath);
    }
  }

  /** The working file at `p`, or why it is not uploaded. */
  private async workingFile(p: string): Promise<LocalFile | FileOutcome> {
    const l = await this.local.lookup(p);
    if (l.kind === 'missing') throw new TransferError('no-working-file', 'local', `${p} is not in the mapped folder.`, { next: 'Download it first, or choose another file.', path: p });
    if (l.kind === 'skip') return { path: p, action: 'skipped', reason: l.skip.reason, detail: l.skip.detail };
    return l.file;
  }

  /** The working file as an upload source (read whole when small, else hashed in a first pass). */
  private async workingSource(f: LocalFile, signal: AbortSignal): Promise<Source> {
    const l = { file: f };
    if (l.file.size <= IN_MEMORY_BYTES) {
      const { bytes, sha256 } = await this.local.readAll(l.file, signal);
      return { file: { ...l.file, size: bytes.length }, size: bytes.length, sha256, bytes };
    }
    return { file: l.file, size: l.file.size, sha256: await this.local.hash(l.file, signal) };
  }

  /** Makes the live folder of `livePath` when it may be missing (not when the file itself exists, nor on S3). */
  private async ensureParent(livePath: string, entry: LiveEntry | undefined, signal: AbortSignal): Promise<void> {
    if (entry || !this.site.live.capabilities.realFolders) return;
    const parent = livePath.includes('/') ? livePath.slice(0, livePath.lastIndexOf('/')) : '';
    if (!parent) return;
    let made = this.dirs.get(parent);
    if (!made) {
      made = (async () => {
        const st = await this.site.live.stat(parent, { signal });
        if (st?.type === 'dir' || st?.type === 'symlink') return;
        await this.site.live.mkdir(parent, { signal });
      })();
      this.dirs.set(parent, made);
      made.catch(() => this.dirs.delete(parent));
    }
    await made;
  }

  /**
   * One upload through the guard (see the file's comment): the working file at `p`, or `given`
   * bytes (a save of the live folder, a put-back). With `expect` (Overwrite): instead of the base,
   * the live file must be the version a conflict showed.
   * (Used by sync.ts.)
   */
  async upload(p: string, known: Known, o: FileOptions & { expect?: Shown; working?: LocalFile }, prog?: Progress, given?: Source): Promise<FileOutcome> {
    const signal = o.signal ?? noSignal;
    throwIfCancelled(signal, p);
    // The working file (read unless its size and time say it is the base's) and the live file's
    // stat, at the same time: the one is the disk's, the other the network's.
    const [local, { livePath, entry }] = await Promise.all([
      (async (): Promise<{ wf?: LocalFile; src?: Source; out?: FileOutcome }> => {
        if (given) return { src: given };
        const wf = o.working ?? (await this.workingFile(p));
        if ('action' in wf) return { out: wf };
        const unchanged = !o.expect && this.site.verify !== 'content' && this.site.bases.workingUnchanged(p, wf) !== undefined;
        return unchanged ? { wf } : { wf, src: await this.workingSource(wf, signal) };
      })(),
      this.resolveLive(p, known, signal),
    ]);
    if (local.out) return local.out;
    const wf = local.wf;
    const base = await baseOf(livePath, this.site.bases, this.site.history, signal);
    // Nothing changed on either side since the base, by the working file's size and time and the
    // live file's metadata: nothing to read, nothing to write.
    if (wf && entry && !o.expect && base.from === 'last-seen' && this.site.verify !== 'content' && this.site.bases.workingUnchanged(livePath, wf) === base.sha256 && unchangedSince(entry, base, this.protocol)) {
      return { path: p, action: 'identical', sha256: base.sha256 };
    }
    const src = local.src ?? (await this.workingSource(wf!, signal));
    // The bytes to send become the next base's blob (single-file uploads): written to the store
    // meanwhile, recorded as the base while they are sent.
    const baseBlob = o.keepBase && src.bytes ? this.site.copies.putBlob(src.bytes).catch(() => undefined) : undefined;
    const again = (reasonIfChanged: ConflictReason, liveSha: string | undefined, blob: string | undefined) =>
      this.conflictOutcome('upload', reasonIfChanged, p, livePath, entry, liveSha, blob, src, undefined, base, signal, given);
    let kept: KeptCopy | undefined;
    if (entry) {
      let check: { liveSha: string; blob: string | undefined };
      const shown = o.expect;
      if (shown?.liveSha !== undefined && sameVersion(entry, shown.entry, this.protocol) && (await this.site.copies.hasBlob(shown.liveSha))) check = { liveSha: shown.liveSha, blob: shown.liveSha };
      else check = await this.checkLive(livePath, entry, base, signal);
      if (check.liveSha === src.sha256) {
        this.recordLive(livePath, entry, src.sha256, 'read', src.file);
        if (shown?.heldId) await this.site.copies.release(shown.heldId);
        return { path: p, action: 'identical', sha256: src.sha256 };
      }
      if (shown) {
        if (check.liveSha !== shown.liveSha) {
          if (shown.heldId) await this.site.copies.release(shown.heldId);
          return changed(await again(base.from === 'none' ? 'no-base' : 'live-changed', check.liveSha, check.blob));
        }
      } else if (base.from === 'none' || check.liveSha !== base.sha256) {
        return again(base.from === 'none' ? 'no-base' : 'live-changed', check.liveSha, check.blob);
      }
      if (!check.blob) {
        // Unchanged by its metadata, and the bytes are not kept yet: read them now, and they must be the base's.
        const got = await this.readLiveToStore(livePath, entry, signal);
        if (got !== check.liveSha) return shown ? changed(await again('live-changed', got, got)) : again('live-changed', got, got);
        check.blob = got;
      }
      kept = await this.keepLive(livePath, entry, check.liveSha, o.why ?? 'upload', shown?.heldId);
    } else if (o.expect?.heldId) {
      // The live file shown is gone: nothing is overwritten any more.
      await this.site.copies.release(o.expect.heldId);
    }
    await this.ensureParent(livePath, entry, signal);
    const body: Uint8Array | AsyncIterable<Uint8Array> = src.bytes ?? this.local.stream(src.file!, signal);
    const baseKept = baseBlob?.then((blob) => (blob ? this.site.copies.baseFromBlob(this.site.siteId, livePath, blob, src.size) : undefined)).catch(() => undefined);
    // Permission bits: the replaced file's are kept (a chmod after the write), unless they are what
    // this server gives a new file anyway (learned from an earlier write that asked for none).
    const wantMode = entry?.mode !== undefined && this.site.live.capabilities.chmod ? entry.mode : undefined;
    const askMode = wantMode !== undefined && wantMode !== this.newFileMode;
    let sent = 0;
    const r = await this.site.live.write(livePath, body, {
      signal,
      size: src.size,
      ...(askMode ? { mode: wantMode } : {}),
      onProgress: (b) => {
        prog?.bytes(b - sent);
        sent = b;
      },
    });
    // The server's own size and raw time for what was written (a stat after the write).
    const after = r.entry ?? (await this.site.live.stat(livePath, { signal }).catch(() => undefined));
    const notDone = [...r.notDone];
    if (!askMode && after?.mode !== undefined) {
      if (wantMode === undefined) this.newFileMode = after.mode;
      else if (after.mode !== wantMode) {
        // The server gave it other bits than it gave new files before: say so, and ask next time.
        this.newFileMode = undefined;
        notDone.push('mode');
      }
    }
    this.recordLive(livePath, after, src.sha256, 'upload', src.file);
    if (baseKept) await baseKept;
    else await this.site.copies.dropBase(this.site.siteId, livePath).catch(() => undefined);
    return { path: p, action: 'uploaded', bytes: src.size, sha256: src.sha256, ...(after ? { entry: after } : {}), ...(kept ? { kept } : {}), ...(notDone.length ? { notDone } : {}) };
  }

  /**
   * One download through the guard. With `expect` (Take Theirs): instead of the base, both files
   * must be the versions a conflict showed, and the working file's bytes are kept first.
   * (Used by sync.ts.)
   */
  async download(p: string, known: Known, o: FileOptions & { expect?: Shown }, prog?: Progress): Promise<FileOutcome> {
    const signal = o.signal ?? noSignal;
    throwIfCancelled(signal, p);
    const { livePath, entry } = await this.resolveLive(p, known, signal);
    if (!entry) throw new TransferError('not-found', 'live', `${p} is not on the server.`, { next: 'Refresh: it may have been moved or deleted.', path: p });
    const why = this.local.refusal(p);
    if (why) return { path: p, action: 'skipped', reason: 'refused-path', detail: why };
    const target = await this.local.writeTarget(p);
    const l = await this.local.lookup(p);
    if (l.kind === 'skip') return { path: p, action: 'skipped', reason: l.skip.reason, detail: l.skip.detail };
    const working = l.kind === 'file' ? l.file : undefined;
    const base = await baseOf(livePath, this.site.bases, this.site.history, signal);
    const shown = o.expect;
    let w: { sha256: string; bytes: Buffer | undefined } | undefined;
    const statSha = working && !shown && base.from === 'last-seen' && this.site.verify !== 'content' ? this.site.bases.workingUnchanged(livePath, working) : undefined;
    if (statSha !== undefined && statSha === (base as { sha256: string }).sha256) {
      // The working file is, by its size and time, what this computer transferred: no read. And the live file too: nothing to do.
      if (base.from === 'last-seen' && unchangedSince(entry, base, this.protocol) && this.site.isUnsaved?.(p) !== true) return { path: p, action: 'identical', sha256: statSha };
      w = { sha256: statSha, bytes: undefined };
    } else if (working) w = working.size <= IN_MEMORY_BYTES ? await this.local.readAll(working, signal) : { sha256: await this.local.hash(working, signal), bytes: undefined };
    const wsrc = working && w ? { file: working, size: working.size, sha256: w.sha256 } : undefined;
    let fromBlob: string | undefined;
    let keptWorking: KeptCopy | undefined;
    if (shown) {
      // Take Theirs: both sides must still be the ones shown.
      const liveNow = await this.stillShown(livePath, entry, shown, signal);
      if (w?.sha256 !== shown.workingSha || !liveNow.same) {
        if (shown.heldId) await this.site.copies.release(shown.heldId);
        const check = liveNow.sha ? { liveSha: liveNow.sha, blob: liveNow.sha } : await this.checkLive(livePath, entry, base, signal);
        const reason: ConflictReason = w?.sha256 !== shown.workingSha ? 'working-changed' : 'live-changed';
        return changed(await this.conflictOutcome('download', reason, p, livePath, entry, check.liveSha, check.blob, wsrc, this.site.isUnsaved?.(p), base, signal));
      }
      fromBlob = shown.liveSha;
      if (working && w) keptWorking = await this.keepWorking(p, working, w.bytes);
    } else if (working && w) {
      const unsaved = this.site.isUnsaved?.(p) === true;
      if (unsaved || base.from === 'none' || w.sha256 !== base.sha256) {
        const check = await this.checkLive(livePath, entry, base, signal);
        if (!unsaved && check.liveSha === w.sha256) {
          this.recordLive(livePath, entry, w.sha256, 'read', working);
          return { path: p, action: 'identical', sha256: w.sha256 };
        }
        return this.conflictOutcome('download', unsaved ? 'unsaved' : base.from === 'none' ? 'no-base' : 'working-changed', p, livePath, entry, check.liveSha, check.blob, wsrc, unsaved, base, signal);
      }
    }
    // The bytes: those a conflict showed (held in the store), else read from the server as they come.
    const keepBase = o.keepBase === true && (entry.size ?? Infinity) <= BASE_FILE_BYTES;
    const chunks: Uint8Array[] = [];
    let source: AsyncIterable<Uint8Array>;
    let stream: { destroy(): void } | undefined;
    if (fromBlob) source = blobStream(this.site.copies.blobFile(fromBlob));
    else {
      const s = await this.site.live.read(livePath, { signal });
      stream = s;
      source = s;
    }
    let res: { sha256: string; size: number };
    try {
      res = await this.local.writeAtomic(target, keepBase ? tee(source, chunks) : source, {
        signal,
        path: p,
        ...(working?.mode ? { mode: working.mode } : {}),
        ...(entry.mtime !== undefined ? { mtime: entry.mtime } : {}),
        onBytes: (n) => prog?.bytes(n),
        ...(fromBlob ? { expectSha256: fromBlob } : {}),
      });
    } finally {
      stream?.destroy();
    }
    const st = await fsp.stat(target).catch(() => undefined);
    this.recordLive(livePath, entry, res.sha256, 'download', st && { size: st.size, mtimeMs: st.mtimeMs });
    if (keepBase) await this.site.copies.setBase(this.site.siteId, livePath, Buffer.concat(chunks)).catch(() => undefined);
    if (shown?.heldId) await this.site.copies.release(shown.heldId);
    return { path: p, action: 'downloaded', bytes: res.size, sha256: res.sha256, entry, ...(keptWorking ? { kept: keptWorking } : {}) };
  }

  /** Whether the live file is still the version shown: by metadata, else by reading it (then its hash is given too). */
  private async stillShown(livePath: string, entry: LiveEntry, shown: Shown, signal: AbortSignal): Promise<{ same: boolean; sha?: string }> {
    if (!shown.entry || shown.liveSha === undefined) return { same: false };
    if (sameVersion(entry, shown.entry, this.protocol) && (await this.site.copies.hasBlob(shown.liveSha))) return { same: true };
    const sha = await this.readLiveToStore(livePath, entry, signal);
    return { same: sha === shown.liveSha, sha };
  }

  /** Keeps a working file's bytes before Take Theirs replaces them. */
  private async keepWorking(p: string, f: LocalFile, bytes: Buffer | undefined, why: KeepReason = 'take-theirs'): Promise<KeptCopy> {
    this.site.copies.checkRoom(f.size, p);
    let sha256: string;
    if (bytes) sha256 = await this.site.copies.putBlob(bytes);
    else {
      const sink = await this.site.copies.sink();
      try {
        for await (const c of this.local.stream(f)) await sink.write(c);
      } catch (e) {
        await sink.abort();
        throw e;
      }
      sha256 = (await sink.commit()).sha256;
    }
    return this.site.copies.keep({ kind: 'copy', siteId: this.site.siteId, path: p, size: f.size, sha256, why, side: 'local' });
  }

  // ---------------------------------------------------------------------------------------------
  // Conflicts

  private async conflictOutcome(direction: 'upload' | 'download' | 'sync', reason: ConflictReason, p: string, livePath: string, entry: LiveEntry | undefined, liveSha: string | undefined, blob: string | undefined, working: Source | undefined, unsaved: boolean | undefined, base: BaseInfo, signal: AbortSignal, given?: Source): Promise<FileOutcome> {
    return { path: p, action: 'conflict', conflict: await this.conflict(direction, reason, p, livePath, entry, liveSha, blob, working, unsaved, base, signal, given) };
  }

  /**
   * A conflict: the live bytes held for the diffs, the newest revision, and the three choices.
   * `given`: the bytes to upload are these (a save, a put-back), not the working file.
   * (Used by sync.ts.)
   */
  async conflict(direction: 'upload' | 'download' | 'sync', reason: ConflictReason, p: string, livePath: string, entry: LiveEntry | undefined, liveSha: string | undefined, blob: string | undefined, working: Source | undefined, unsaved: boolean | undefined, base: BaseInfo, signal: AbortSignal, given?: Source): Promise<Conflict> {
    let held: KeptCopy | undefined;
    if (entry && liveSha) {
      if (!blob || !(await this.site.copies.hasBlob(blob))) blob = await this.readLiveToStore(livePath, entry, signal).catch(() => undefined);
      if (blob === liveSha) held = await this.site.copies.keep({ kind: 'held', siteId: this.site.siteId, path: livePath, size: entry.size ?? 0, sha256: blob, why: 'upload', side: 'live', live: liveTimes(entry) }).catch(() => undefined);
    }
    const newest = await newestOf(this.site.history, livePath, signal);
    const shown: Shown = { liveSha, entry, workingSha: working?.sha256, ...(held ? { heldId: held.id } : {}) };
    let settled = false;
    const choice = (fn: (o: TransferOptions) => Promise<FileOutcome>) => async (o: TransferOptions = {}): Promise<Resolution> => {
      if (settled) return { outcome: 'failed', error: new TransferError('cancelled', 'local', 'This conflict was already answered.', { next: 'Transfer the file again to see where it stands.', path: p }) };
      settled = true;
      try {
        const f = await this.settle(p, () => fn(o));
        await this.saveState();
        if ((f as Changed).changed) return f.action === 'conflict' ? { outcome: 'changed', conflict: f.conflict } : { outcome: 'changed', file: f };
        if (f.action === 'failed') return { outcome: 'failed', error: f.error };
        return { outcome: 'done', file: f };
      } catch (e) {
        settled = false; // cancelled: the choice can be made again
        const err = TransferError.from(e, p);
        return err.kind === 'cancelled' ? { outcome: 'cancelled' } : { outcome: 'failed', error: err };
      }
    };
    return {
      direction,
      siteId: this.site.siteId,
      path: p,
      reason,
      message: conflictMessage(direction, reason, p),
      live: { exists: !!entry, ...(entry ? pickEntry(entry) : {}), ...(liveSha ? { sha256: liveSha } : {}), ...(held ? { copy: held } : {}) },
      working: { exists: !!working && !given, file: this.local.abs(p), ...(working && !given ? { size: working.size, sha256: working.sha256 } : {}), ...(unsaved ? { unsaved } : {}) },
      base,
      ...(newest ? { newest: { revisionId: newest.revisionId, ...(newest.sha256 ? { sha256: newest.sha256 } : {}) } } : {}),
      // Overwrite: the live side becomes the working one (deleted when there is no working file).
      overwriteLive: choice(async (o) => {
        if (working || given) return this.upload(p, undefined, { ...o, keepBase: true, why: given ? 'put-back' : 'upload', expect: shown }, undefined, given);
        const sig = o.signal ?? noSignal;
        const now = await this.resolveLive(p, undefined, sig);
        if (now.entry && !(await this.stillShown(now.livePath, now.entry, shown, sig)).same) return changed(await this.syncConflict(p, reason, sig));
        return this.removeLive(p, now.entry ?? null, 'sync-delete', sig, true);
      }),
      // Take Theirs: the working side becomes the live one (deleted when there is no live file).
      overwriteWorking: choice((o) => {
        if (!entry) return this.removeLocal(p, o.signal ?? noSignal, working?.sha256);
        return this.download(p, undefined, { ...o, keepBase: true, expect: shown });
      }),
      cancel: async () => {
        if (settled) return { outcome: 'cancelled' };
        settled = true;
        if (held) await this.site.copies.release(held.id).catch(() => undefined);
        return { outcome: 'cancelled' };
      },
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  /** Runs `fn` over `items`, `concurrency` at once; stops starting new ones once cancelled. */
  private async pool<T>(items: readonly T[], signal: AbortSignal, result: FolderResult, fn: (t: T) => Promise<void>): Promise<void> {
    await runAll(items, this.concurrency, signal, async (t) => {
      try {
        await fn(t);
      } catch (e) {
        if (TransferError.from(e).kind === 'cancelled' || signal.aborted) {
          result.cancelled = true;
          return;
        }
        throw e;
      }
    });
    if (signal.aborted) result.cancelled = true;
  }

  private cancelOrThrow(e: unknown, signal: AbortSignal, result: FolderResult): void {
    if (signal.aborted || TransferError.from(e).kind === 'cancelled') {
      result.cancelled = true;
      return;
    }
    throw TransferError.from(e);
  }

  /** Writes the bases and the last-seen state (a failure is logged: it costs a read, or a conflict to answer, next time; nothing else). */
  async saveState(): Promise<void> {
    await Promise.all(
      ([['bases', this.site.bases], ['last-seen state', this.site.lastSeen]] as const).map(async ([what, s]) => {
        try {
          await s?.save();
        } catch (e) {
          this.site.log?.('warn', `The ${what} could not be written (${e instanceof Error ? e.message : String(e)}).`);
        }
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------------

/** The live versions a conflict showed (what its choices check before writing). */
interface Shown {
  liveSha: string | undefined;
  entry: LiveEntry | undefined;
  workingSha: string | undefined;
  heldId?: string;
}

/** An outcome reached because a side changed since a conflict was shown (nothing was written). */
type Changed = FileOutcome & { changed?: true };

function changed(o: FileOutcome): FileOutcome {
  return Object.assign(o, { changed: true as const });
}

/** Files up to this size get their bytes kept as the path's base after a single-file transfer. */
const BASE_FILE_BYTES = 4 * 1024 * 1024;

function bytesSource(bytes: Uint8Array): Source {
  return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

function liveTimes(e: LiveEntry): { mtimeRaw?: string; mtime?: number } {
  return { ...(e.mtimeRaw !== undefined ? { mtimeRaw: e.mtimeRaw } : {}), ...(e.mtime !== undefined ? { mtime: e.mtime } : {}) };
}

function pickEntry(e: LiveEntry): { size?: number; mtimeRaw?: string; mtime?: number; etag?: string } {
  return { ...(e.size !== undefined ? { size: e.size } : {}), ...liveTimes(e), ...(e.etag !== undefined ? { etag: e.etag } : {}) };
}

const onFileOf = new WeakMap<FolderResult, (o: FileOutcome) => void>();

export function emptyResult(onFile?: (o: FileOutcome) => void): FolderResult {
  const r: FolderResult = { files: [], conflicts: [], counts: { uploaded: 0, downloaded: 0, identical: 0, conflicts: 0, failed: 0, skipped: 0, deleted: 0 }, bytes: 0, cancelled: false };
  if (onFile) onFileOf.set(r, onFile);
  return r;
}

export function push(r: FolderResult, prog: Progress, o: FileOutcome): void {
  r.files.push(o);
  try {
    onFileOf.get(r)?.(o);
  } catch {
    // a failing listener does not stop a transfer
  }
  switch (o.action) {
    case 'uploaded':
      r.counts.uploaded++;
      r.bytes += o.bytes;
      break;
    case 'downloaded':
      r.counts.downloaded++;
      r.bytes += o.bytes;
      break;
    case 'identical':
      r.counts.identical++;
      break;
    case 'conflict':
      r.counts.conflicts++;
      r.conflicts.push(o.conflict);
      break;
    case 'failed':
      r.counts.failed++;
      break;
    case 'skipped':
      r.counts.skipped++;
      return;
    case 'deleted':
      r.counts.deleted++;
      break;
  }
  prog.outcome(o);
}

export function finish(r: FolderResult, prog: Progress): FolderResult {
  r.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  prog.p.phase = 'done';
  prog.tell(true);
  return r;
}

/** Runs `fn` over items, `n` at once, until done or cancelled; the first error (not a cancel) is rethrown after the others end. */
export async function runAll<T>(items: readonly T[], n: number, signal: AbortSignal, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  let failed: unknown;
  const worker = async () => {
    while (i < items.length && failed === undefined && !signal.aborted) {
      const t = items[i++]!;
      try {
        await fn(t);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  if (failed !== undefined) throw failed;
}

async function* tee(source: AsyncIterable<Uint8Array>, into: Uint8Array[]): AsyncIterable<Uint8Array> {
  for await (const c of source) {
    into.push(c);
    yield c;
  }
}

async function* blobStream(file: string): AsyncIterable<Uint8Array> {
  const { createReadStream } = await import('node:fs');
  for await (const c of createReadStream(file)) yield c as Buffer;
}

function conflictMessage(direction: 'upload' | 'download' | 'sync', reason: ConflictReason, p: string): string {
  const name = JSON.stringify(p);
  switch (reason) {
    case 'live-changed':
      return `${name} changed on the server since this computer last transferred it: it was not ${direction === 'download' ? 'downloaded' : 'uploaded'}.`;
    case 'no-base':
      return `${name} is on the server with other bytes, and nothing says which is newer (never transferred from here, no revision): it was not ${direction === 'download' ? 'downloaded' : 'uploaded'}.`;
    case 'working-changed':
      return `${name} in the mapped folder has edits that were not uploaded: it was not downloaded over them.`;
    case 'unsaved':
      return `${name} has unsaved edits in the editor: it was not downloaded over them.`;
    case 'both-changed':
      return `${name} changed both in the mapped folder and on the server since the last transfer.`;
    case 'deleted-live':
      return `${name} changed in the mapped folder, and was deleted on the server since the last transfer.`;
    case 'deleted-local':
      return `${name} was deleted from the mapped folder, and changed on the server since the last transfer.`;
  }
}


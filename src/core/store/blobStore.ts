// The engine under the disk store (plain Node: no `vscode` import): string keys, each naming a
// content-addressed blob, in one folder per account. It holds the files, the index, the bound
// and the lifecycle; DiskStore (diskStore.ts) says what the keys are (revision contents, lists).
//
// Layout, below the folder the caller gives (folders 0700, files 0600):
//   v1/blobs/<2 hex>/<sha256>   every stored value, named by the SHA-256 of its bytes: two
//                               revisions with the same content, or a list fetched again
//                               unchanged, share one file; each read checks the hash
//   v1/index/                   which key names which blob, sizes, LRU order (catalog.ts)
//   v1/tmp/                     temporary files of atomic writes (renamed into blobs/)
// A key is evicted least recently used first once everything stored exceeds `maxBytes`; a blob
// is deleted when no key names it any more.
//
// Nothing here throws at the caller for a disk problem (full, read-only, unreadable, corrupt):
// the problem is logged once per operation, a read is a miss, a write is skipped.
// fs.promises is read where it is used, so that activating does not load it (see esbuild.mjs).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { Catalog, type Entry } from './catalog';
import { cleanTemp, isMissing, privateDir, writeAtomic } from './files';
import { isHash } from './indexLines';
import { sha256Sliced } from './slices';

export interface DiskStoreOptions {
  /**
   * Bound of everything stored (contents and lists), in bytes. 0 turns the store off: nothing is
   * read or written, and what an earlier session stored in the folder is deleted.
   */
  maxBytes: number;
  /** Problems worth a line in the log (a disk error, a corrupt entry dropped). */
  log?: (message: string) => void;
}

export interface StoreStats {
  /** Keys stored (contents and lists). */
  entries: number;
  /** Bytes of the blobs they name (each blob once). */
  bytes: number;
  maxBytes: number;
}

/** Blobs that no key names are deleted at compaction once they are this old (a blob another window just wrote may not be in the index yet). */
const ORPHAN_AGE_MS = 10 * 60_000;
/** Eviction frees this much below the bound at most (or a tenth of it, if less). */
const EVICT_SLACK_BYTES = 8 * 1024 * 1024;
/** Use records wait this long to be written together. */
const USE_FLUSH_MS = 1000;

/** Keys to content-addressed blobs on disk; DiskStore (diskStore.ts) is what the extension uses. */
export abstract class BlobStore {
  private max: number;
  private readonly data: string;
  private readonly blobsDir: string;
  private readonly tmpDir: string;
  protected readonly catalog: Catalog;
  private opening: Promise<void>;
  /** Open and usable (maxBytes > 0 and the folder could be set up). */
  private open = false;
  private disposed = false;
  /** Serializes everything that changes the index or the files. */
  private chain: Promise<unknown> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | undefined;
  private compacting = false;
  private readonly madeDirs = new Set<string>();
  /** Blobs being written by puts that the index does not name yet (not to be deleted meanwhile). */
  private readonly writing = new Map<string, number>();
  /** The puts in progress (destroy() waits for them). */
  private readonly writes = new Set<Promise<boolean>>();

  constructor(
    readonly folder: string,
    private readonly opts: DiskStoreOptions,
  ) {
    this.max = checkBytes(opts.maxBytes);
    this.data = path.join(folder, 'v1');
    this.blobsDir = path.join(this.data, 'blobs');
    this.tmpDir = path.join(this.data, 'tmp');
    this.catalog = new Catalog(path.join(this.data, 'index'), this.tmpDir, (m) => this.log(m));
    this.opening = this.start();
  }

  /** Settles once the index is loaded (or the store is off); operations wait for it themselves. */
  get ready(): Promise<void> {
    return this.opening;
  }

  /** Whether the store reads and writes (maxBytes > 0, the folder usable, not disposed). */
  get enabled(): boolean {
    return this.open && !this.disposed;
  }

  get maxBytes(): number {
    return this.max;
  }

  stats(): StoreStats {
    return { entries: this.catalog.entries.size, bytes: this.catalog.total, maxBytes: this.max };
  }

  /**
   * Changes the bound: a smaller one evicts at once; 0 turns the store off and deletes what it
   * holds; from 0 to more, the store starts (empty).
   */
  async setMaxBytes(maxBytes: number): Promise<void> {
    const next = checkBytes(maxBytes);
    await this.opening.catch(() => undefined);
    const was = this.max;
    this.max = next;
    if (this.disposed) return;
    if (next === 0) {
      if (was !== 0) await this.exclusive(() => this.wipe());
    } else if (!this.open) {
      this.opening = this.start();
      await this.opening;
    } else {
      await this.exclusive(() => this.enforce());
    }
  }

  // ---- housekeeping

  /** Takes in what other windows stored or evicted since the last look. */
  async refresh(): Promise<void> {
    if (!(await this.usable())) return;
    await this.exclusive(() => this.catalog.refresh());
  }

  /**
   * Folds the index's journals into a new snapshot now and sweeps blobs no key names (done on its
   * own when the journals outgrow the snapshot). False when the store is off or another window is
   * compacting.
   */
  async compact(): Promise<boolean> {
    if (!(await this.usable())) return false;
    try {
      return await this.exclusive(() => (this.open ? this.catalog.compact(() => this.sweep()) : false));
    } catch (e) {
      this.log(`The disk cache index could not be compacted (${describe(e)}).`);
      return false;
    }
  }

  /** Deletes everything the store holds for this account (it stays usable). */
  async clear(): Promise<void> {
    if (!(await this.usable())) return;
    await this.exclusive(async () => {
      await this.wipe();
      await this.setUp();
      this.open = true;
    });
  }

  /**
   * Writes what waits and closes the journal. Later calls do nothing. The store is off afterwards
   * whether that last write succeeded or not (a full disk: it rejects then).
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.opening.catch(() => undefined);
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    try {
      await this.exclusive(() => (this.open ? this.catalog.close() : undefined));
    } finally {
      this.disposed = true;
    }
  }

  /**
   * Closes the store and deletes its folder (sign-out, another account): the folder goes
   * whatever happens to the last write of the index (a full disk, a folder removed meanwhile),
   * and after the writes in progress have ended (none recreates it). Throws only when the folder
   * itself cannot be deleted.
   */
  async destroy(): Promise<void> {
    try {
      await this.dispose();
    } catch (e) {
      this.log(`The disk cache index could not be written before the cache was deleted (${describe(e)}).`);
    }
    await Promise.allSettled([...this.writes]);
    await fsp.rm(this.folder, { recursive: true, force: true });
  }

  // ---- inside (the protected members are what DiskStore reads and writes with)

  private async start(): Promise<void> {
    this.open = false;
    try {
      if (this.max === 0) {
        // Off: nothing stays on disk (what an earlier session stored goes), nothing is created.
        await this.exclusive(() => this.wipe());
        return;
      }
      await this.exclusive(() => this.setUp());
      this.open = true;
      await this.exclusive(() => this.enforce());
      this.maybeCompact();
    } catch (e) {
      this.open = false;
      this.log(`The disk cache in ${this.folder} cannot be used (${describe(e)}); revisions are fetched from the service.`);
    }
  }

  /** Creates the folders, removes temporary files of processes that are gone, loads the index. */
  private async setUp(): Promise<void> {
    for (const dir of [this.folder, this.data, this.blobsDir, path.join(this.data, 'index'), this.tmpDir]) await privateDir(dir);
    this.madeDirs.clear();
    await cleanTemp(this.tmpDir);
    await this.catalog.load();
  }

  /** Deletes the store's files (and the account folder when nothing else is in it). */
  private async wipe(): Promise<void> {
    this.open = false;
    await this.catalog.reset();
    this.madeDirs.clear();
    await fsp.rm(this.data, { recursive: true, force: true });
    await fsp.rmdir(this.folder).catch(() => undefined);
  }

  protected async usable(): Promise<boolean> {
    await this.opening;
    return this.enabled;
  }

  protected exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** The entry of a key; on a miss, the other windows' journals are read first. */
  protected async entryOf(key: string): Promise<Entry | undefined> {
    if (!(await this.usable())) return undefined;
    const e = this.catalog.get(key);
    if (e) return e;
    try {
      await this.exclusive(() => this.catalog.refresh());
    } catch (err) {
      this.log(`The disk cache index could not be read (${describe(err)}).`);
    }
    return this.catalog.get(key);
  }

  protected async read(key: string): Promise<Uint8Array | undefined> {
    const e = await this.entryOf(key);
    return e ? this.readEntry(key, e) : undefined;
  }

  /** The blob's bytes when they match the hash; otherwise the key (or every key naming a corrupt blob) is dropped. */
  protected async readEntry(key: string, e: Entry): Promise<Buffer | undefined> {
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(this.blobPath(e.hash));
    } catch (err) {
      if (!isMissing(err)) this.log(`A disk cache entry could not be read (${describe(err)}); it is fetched again.`);
      await this.exclusive(() => this.dropKey(key, e.hash)).catch(() => undefined);
      return undefined;
    }
    if (bytes.length !== e.size || (await sha256Sliced(bytes)) !== e.hash) {
      this.log('A corrupt disk cache entry was dropped; it is fetched again.');
      await this.exclusive(() => this.dropBlob(e.hash)).catch(() => undefined);
      return undefined;
    }
    this.catalog.use(key);
    this.flushSoon();
    return bytes;
  }

  /**
   * The blob is written outside the lock (content-addressed: two writers of the same bytes write
   * the same file), so that concurrent puts overlap their file I/O; the index is updated under it,
   * and one journal write carries every record queued meanwhile.
   */
  protected write(key: string, bytes: Uint8Array, stamp: number): Promise<boolean> {
    const p = this.writeNow(key, bytes, stamp);
    this.writes.add(p);
    const done = () => this.writes.delete(p);
    p.then(done, done);
    return p;
  }

  private async writeNow(key: string, bytes: Uint8Array, stamp: number): Promise<boolean> {
    if (bytes.byteLength > this.max) return false;
    const hash = await sha256Sliced(bytes);
    this.writing.set(hash, (this.writing.get(hash) ?? 0) + 1);
    let writing = true;
    const done = (): void => {
      if (!writing) return;
      writing = false;
      const n = this.writing.get(hash)! - 1;
      if (n) this.writing.set(hash, n);
      else this.writing.delete(hash);
    };
    try {
      if (!this.enabled) return false;
      await this.ensureBlob(hash, bytes);
      const named = await this.exclusive(async () => {
        if (!this.enabled) return false;
        await this.unlinkFreed(this.catalog.put(key, hash, bytes.byteLength, stamp));
        return true;
      });
      done(); // the index names the blob now: its reference count protects it
      if (!named) return false;
      await this.exclusive(async () => {
        if (!this.open) return;
        await this.catalog.flush();
        await this.enforce();
      });
      this.maybeCompact();
      return true;
    } catch (e) {
      this.log(`A disk cache entry could not be stored (${describe(e)}).`);
      return false;
    } finally {
      done();
    }
  }

  private async ensureBlob(hash: string, bytes: Uint8Array): Promise<void> {
    const file = this.blobPath(hash);
    if (await exists(file)) {
      // Shared with a key stored before: fresh again, so no sweep takes it for an orphan before the index names it.
      const now = new Date();
      await fsp.utimes(file, now, now).catch(() => undefined);
      return;
    }
    const dir = path.dirname(file);
    if (!this.madeDirs.has(dir)) {
      await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
      this.madeDirs.add(dir);
    }
    await writeAtomic(this.tmpDir, file, bytes);
  }

  /**
   * Once everything stored exceeds the bound, evicts least recently used keys (after taking in the
   * other windows' changes) down to a little below it, so that the next writes do not evict again
   * one by one.
   */
  private async enforce(): Promise<void> {
    if (!this.open || this.catalog.total <= this.max) return;
    await this.catalog.refresh();
    const target = this.max - Math.min(Math.floor(this.max / 10), EVICT_SLACK_BYTES);
    while (this.catalog.total > target) {
      const oldest = this.catalog.oldest();
      if (oldest === undefined) break;
      await this.unlinkFreed(this.catalog.drop(oldest));
    }
    await this.catalog.flush();
  }

  protected async dropKey(key: string, hash: string): Promise<void> {
    if (!this.open || this.catalog.get(key)?.hash !== hash) return;
    await this.unlinkFreed(this.catalog.drop(key));
    await this.catalog.flush();
  }

  /** A blob failed its check: every key naming it goes, and the file. */
  private async dropBlob(hash: string): Promise<void> {
    if (!this.open) return;
    for (const [key, e] of [...this.catalog.entries]) if (e.hash === hash) this.catalog.drop(key);
    await fsp.rm(this.blobPath(hash), { force: true });
    await this.catalog.flush();
  }

  /** Deletes a blob no key names any more, unless a put is about to name it again. */
  protected async unlinkFreed(hash: string | undefined): Promise<void> {
    if (hash && !this.writing.has(hash)) await fsp.rm(this.blobPath(hash), { force: true });
  }

  private flushSoon(): void {
    if (this.flushTimer || this.disposed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.exclusive(() => (this.open ? this.catalog.flush() : undefined)).catch((e: unknown) => this.log(`The disk cache index could not be written (${describe(e)}).`));
    }, USE_FLUSH_MS);
    this.flushTimer.unref?.();
  }

  /** Folds the journals into a new snapshot in the background when they have grown (catalog.ts). */
  private maybeCompact(): void {
    if (this.compacting || !this.catalog.wantsCompaction) return;
    this.compacting = true;
    const done = (): void => {
      this.compacting = false;
    };
    // compact() logs its own failures and never rejects.
    this.compact().then(done, done);
  }

  /** Deletes blobs no key names (older than ORPHAN_AGE_MS) and stale temporary files. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const sub of await fsp.readdir(this.blobsDir).catch(() => [] as string[])) {
      const dir = path.join(this.blobsDir, sub);
      for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
        if (isHash(name) && this.catalog.referenced(name)) continue;
        const file = path.join(dir, name);
        const st = await fsp.stat(file).catch(() => undefined);
        if (st && now - st.mtimeMs > ORPHAN_AGE_MS) await fsp.rm(file, { force: true, recursive: true });
      }
    }
    await cleanTemp(this.tmpDir);
  }

  private blobPath(hash: string): string {
    return path.join(this.blobsDir, hash.slice(0, 2), hash);
  }

  private log(message: string): void {
    try {
      this.opts.log?.(message);
    } catch {
      // a failing logger must not break the store
    }
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.access(file);
    return true;
  } catch {
    return false;
  }
}

function checkBytes(n: number): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new TypeError('maxBytes must be a number of bytes, 0 or more.');
  return Math.floor(n);
}

function describe(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const msg = e instanceof Error ? e.message : String(e);
  return code ? `${code}: ${msg}` : msg;
}

// Nothing lost (issue 34 §3): before an upload, a sync or a save replaces or deletes a live file,
// its bytes are kept here; so are a working file's bytes before Take Theirs replaces them. The
// "Overwritten on the server" view lists these copies; one can be read (for a diff), put back
// (through the guard: transfer.ts putBack) or deleted. Plain Node.
//
// One store per account, under the account's cache folder (`<account>/overwritten/`), so that it
// goes with the account at sign-out (src/features/auth/accountCache.ts deletes that folder):
//   blobs/<2 hex>/<sha256>   the bytes, named by their SHA-256 (two copies of the same bytes share
//                            one file); files 0400 (0600 on Windows), folders 0700
//   tmp/                     blobs being written (renamed into blobs/ when complete)
//   index.log                one line per record, `<crc32> <json>`: ["P", entry] (an entry is
//                            kept or changed) or ["D", id] (it is gone); appended, compacted
//                            (temporary file + rename, under index.lock) once mostly dead
// Crash safety: a blob is complete before a record names it; a torn or corrupt line fails its
// CRC and is skipped (that copy is lost, nothing else); a record naming a missing blob is
// dropped; every read checks the blob's SHA-256 against its name, so a copy is never a wrong one.
// Two windows of the same account may share the store: each reads what the other appended
// before it lists, keeps or evicts.
//
// Entries are of three kinds:
// - 'copy': the bytes of a file that was replaced or deleted (what the view lists);
// - 'held': a live file's bytes as a conflict shows them (for its diffs), released when the
//   conflict is resolved or cancelled, or turned into a 'copy' when Overwrite replaces it;
// - 'base': the bytes this computer last transferred for a path (one per path), so that the next
//   upload over an unchanged live file keeps its copy without reading it again.
// The bound (bytes of the blobs, each once) is kept by evicting, oldest first: held entries older
// than a day, then bases, then copies. A single copy larger than the bound cannot be kept: the
// upload that needs it is refused ('cannot-keep'), never done without it.
import { createHash, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { cleanTemp, FILE_MODE, isMissing, ownedName, privateDir, takeLock } from '../store/files';
import { checked, crcOf, isHash } from '../store/indexLines';
import { TransferError, type KeepReason, type KeptCopy } from './types';

export type CopyKind = 'copy' | 'held' | 'base';

/** What the index records of an entry (KeptCopy without the derived `file`, plus its kind). */
export interface CopyRecord extends Omit<KeptCopy, 'file'> {
  kind: CopyKind;
}

export interface KeptCopiesOptions {
  /** The store's folder: KeptCopies.folderFor(accountCacheDir). */
  folder: string;
  /** Bound of everything kept, bytes (each blob once). */
  maxBytes: number;
  /** Bases: at most this many bytes in all (default a quarter of maxBytes) … */
  baseMaxBytes?: number;
  /** … and only files up to this size (default 4 MiB). */
  baseMaxFileBytes?: number;
  log?: (message: string) => void;
}

/** A blob being written: bytes go in, and commit() names it by its hash. */
export interface BlobSink {
  write(chunk: Uint8Array): Promise<void>;
  /** The blob complete: renamed into the store; its hash and size. */
  commit(): Promise<{ sha256: string; size: number }>;
  /** Dropped: the temporary file removed. */
  abort(): Promise<void>;
  readonly size: number;
}

const INDEX = 'index.log';
const LOCK = 'index.lock';
const HELD_MAX_AGE_MS = 24 * 3600_000;
const ORPHAN_AGE_MS = 10 * 60_000;
const BLOB_MODE = process.platform === 'win32' ? FILE_MODE : 0o400;

/** The default bound of the store (the VS Code side's setting overrides it). */
export const DEFAULT_COPIES_BYTES = 256 * 1024 * 1024;

type Record = ['P', CopyRecord] | ['D', string];

function parse(line: string): Record | undefined {
  const json = checked(line);
  if (json === undefined) return undefined;
  try {
    const r = JSON.parse(json) as unknown;
    if (!Array.isArray(r)) return undefined;
    if (r[0] === 'D' && typeof r[1] === 'string') return ['D', r[1]];
    if (r[0] === 'P' && isRecord(r[1])) return ['P', r[1]];
  } catch {
    // skipped
  }
  return undefined;
}

function isRecord(v: unknown): v is CopyRecord {
  const r = v as CopyRecord | undefined;
  return (
    !!r &&
    typeof r.id === 'string' &&
    /^[0-9a-f]{8,32}$/.test(r.id) &&
    typeof r.siteId === 'string' &&
    typeof r.path === 'string' &&
    typeof r.at === 'number' &&
    Number.isSafeInteger(r.size) &&
    r.size >= 0 &&
    isHash(r.sha256) &&
    (r.kind === 'copy' || r.kind === 'held' || r.kind === 'base') &&
    (r.side === 'live' || r.side === 'local') &&
    typeof r.why === 'string'
  );
}

function line(r: Record): string {
  const json = JSON.stringify(r);
  return `${crcOf(json)} ${json}\n`;
}

export class KeptCopies {
  private readonly entries = new Map<string, CopyRecord>();
  private readonly blobsDir: string;
  private readonly tmpDir: string;
  private readonly indexFile: string;
  /** How much of index.log is read (bytes), and its identity (a compaction replaces the file). */
  private readAt = 0;
  private readIno = 0;
  private deadLines = 0;
  private max: number;
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(private readonly o: KeptCopiesOptions) {
    this.max = o.maxBytes;
    this.blobsDir = path.join(o.folder, 'blobs');
    this.tmpDir = path.join(o.folder, 'tmp');
    this.indexFile = path.join(o.folder, INDEX);
  }

  /** The store's folder under an account's cache folder. */
  static folderFor(accountCacheDir: string): string {
    return path.join(accountCacheDir, 'overwritten');
  }

  /** Opens (or creates) the store; temporary files of processes that are gone are removed. */
  static async open(o: KeptCopiesOptions): Promise<KeptCopies> {
    const s = new KeptCopies(o);
    for (const d of [o.folder, s.blobsDir, s.tmpDir]) await privateDir(d);
    await cleanTemp(s.tmpDir);
    await s.refresh();
    return s;
  }

  get maxBytes(): number {
    return this.max;
  }

  /** Changes the bound (evicting now if it shrank). */
  async setMaxBytes(n: number): Promise<void> {
    this.max = n;
    await this.serial(() => this.enforce(new Set()));
  }

  /** The copies a view lists (kind 'copy'), newest first; of one site when `siteId` is given. */
  async list(siteId?: string): Promise<KeptCopy[]> {
    await this.serial(() => this.refresh());
    return [...this.entries.values()]
      .filter((e) => e.kind === 'copy' && (siteId === undefined || e.siteId === siteId))
      .sort((a, b) => b.at - a.at || (a.id < b.id ? -1 : 1))
      .map((e) => this.view(e));
  }

  /** An entry of any kind by id. */
  get(id: string): KeptCopy | undefined {
    const e = this.entries.get(id);
    return e && this.view(e);
  }

  /** Bytes of the blobs kept (each once), entries by kind, the bound. */
  stats(): { bytes: number; copies: number; held: number; bases: number; maxBytes: number } {
    const n = { copies: 0, held: 0, bases: 0 };
    for (const e of this.entries.values()) n[e.kind === 'copy' ? 'copies' : e.kind === 'held' ? 'held' : 'bases']++;
    return { bytes: this.bytes(), ...n, maxBytes: this.max };
  }

  /** The file holding a blob's bytes. */
  blobFile(sha256: string): string {
    return path.join(this.blobsDir, sha256.slice(0, 2), sha256);
  }

  /** Whether a blob with these bytes is on disk now. */
  async hasBlob(sha256: string): Promise<boolean> {
    try {
      return (await fsp.stat(this.blobFile(sha256))).isFile();
    } catch {
      return false;
    }
  }

  /** A copy's bytes, checked against its hash ('damaged-copy' when they do not match; the entry is then dropped). */
  async read(id: string): Promise<Uint8Array> {
    const e = this.entries.get(id);
    if (!e) throw gone(id);
    let bytes: Buffer;
    try {
      bytes = await fsp.readFile(this.blobFile(e.sha256));
    } catch (err) {
      if (isMissing(err)) {
        await this.serial(() => this.append([['D', id]]));
        throw gone(id);
      }
      throw TransferError.from(err);
    }
    if (createHash('sha256').update(bytes).digest('hex') !== e.sha256) {
      await this.serial(async () => {
        await this.append([['D', id]]);
        await fsp.rm(this.blobFile(e.sha256), { force: true });
      });
      throw new TransferError('damaged-copy', 'store', `The kept copy of ${e.path} is damaged on disk; it was removed.`, { next: 'Nothing can be put back from it.', path: e.path });
    }
    return bytes;
  }

  /** A copy's bytes as a stream; the iterator throws 'damaged-copy' at the end if they do not match the hash. */
  async *stream(id: string): AsyncIterable<Uint8Array> {
    const e = this.entries.get(id);
    if (!e) throw gone(id);
    const h = createHash('sha256');
    let f: fsp.FileHandle;
    try {
      f = await fsp.open(this.blobFile(e.sha256), 'r');
    } catch (err) {
      throw isMissing(err) ? gone(id) : TransferError.from(err);
    }
    try {
      for await (const c of f.readableWebStream() as AsyncIterable<Uint8Array>) {
        h.update(c);
        yield c;
      }
    } finally {
      await f.close();
    }
    if (h.digest('hex') !== e.sha256) throw new TransferError('damaged-copy', 'store', `The kept copy of ${e.path} is damaged on disk.`, { next: 'Nothing can be put back from it.', path: e.path });
  }

  /** Deletes a copy (its blob goes when nothing else names it). */
  async remove(id: string): Promise<void> {
    await this.serial(async () => {
      await this.refresh();
      const e = this.entries.get(id);
      if (!e) return;
      await this.append([['D', id]]);
      await this.unlinkIfFree(e.sha256);
    });
  }

  // ---- what transfers use

  /**
   * Refuses (TransferError 'cannot-keep') a copy of `size` bytes that the bound cannot hold, before
   * anything is read or written.
   */
  checkRoom(size: number, p: string): void {
    if (size > this.max) {
      throw new TransferError('cannot-keep', 'store', `${p} on the server is ${size} bytes, more than the ${Math.floor(this.max / 1048576)} MB kept for overwritten files: it was not replaced.`, {
        next: 'Raise the limit of overwritten copies, or download the live file first to keep it yourself.',
        path: p,
      });
    }
  }

  /** A new blob, written as the bytes come (a temporary file renamed into place by commit()). */
  async sink(): Promise<BlobSink> {
    const tmp = path.join(this.tmpDir, ownedName('', '.tmp'));
    const f = await fsp.open(tmp, 'wx', FILE_MODE);
    const h = createHash('sha256');
    let size = 0;
    let done = false;
    const finish = async () => {
      if (done) return;
      done = true;
      await f.close().catch(() => undefined);
    };
    return {
      get size() {
        return size;
      },
      write: async (c) => {
        h.update(c);
        size += c.length;
        await f.write(c);
      },
      commit: async () => {
        await finish();
        const sha256 = h.digest('hex');
        const dest = this.blobFile(sha256);
        try {
          await fsp.mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
          await fsp.chmod(tmp, BLOB_MODE);
          await fsp.rename(tmp, dest);
        } catch (e) {
          await fsp.rm(tmp, { force: true });
          throw TransferError.from(e);
        }
        return { sha256, size };
      },
      abort: async () => {
        await finish();
        await fsp.rm(tmp, { force: true });
      },
    };
  }

  /** Stores bytes as a blob (for a working file's copy, or a base); returns their hash. */
  async putBlob(bytes: Uint8Array): Promise<string> {
    const s = await this.sink();
    try {
      await s.write(bytes);
    } catch (e) {
      await s.abort();
      throw TransferError.from(e);
    }
    return (await s.commit()).sha256;
  }

  /**
   * Records an entry naming a blob already stored (hasBlob), then keeps the bound; the entry just
   * kept is never the one evicted. Returns it as listed.
   */
  async keep(r: Omit<CopyRecord, 'id' | 'at'> & { id?: string; at?: number }): Promise<KeptCopy> {
    return this.serial(async () => {
      await this.refresh();
      const rec: CopyRecord = { ...r, id: r.id ?? randomBytes(8).toString('hex'), at: r.at ?? Date.now() };
      const out: Record[] = [['P', rec]];
      if (rec.kind === 'base') {
        for (const e of this.entries.values()) if (e.kind === 'base' && e.siteId === rec.siteId && e.path === rec.path && e.id !== rec.id) out.push(['D', e.id]);
      }
      const before = out.slice(1).map((x) => this.entries.get(x[1] as string)!.sha256);
      await this.append(out);
      for (const sha of before) await this.unlinkIfFree(sha);
      await this.enforce(new Set([rec.id]));
      if (!(await this.hasBlob(rec.sha256))) {
        await this.append([['D', rec.id]]);
        throw new TransferError('cannot-keep', 'store', `The copy of ${rec.path} could not be kept.`, { next: 'Check the disk space of this computer and try again.', path: rec.path });
      }
      return this.view(rec);
    });
  }

  /** The bytes this computer last transferred for a path, when they are kept (a base blob on disk). */
  async baseOf(siteId: string, p: string): Promise<string | undefined> {
    let found: CopyRecord | undefined;
    for (const e of this.entries.values()) if (e.kind === 'base' && e.siteId === siteId && e.path === p) found = e;
    return found && (await this.hasBlob(found.sha256)) ? found.sha256 : undefined;
  }

  /** Keeps `bytes` as the base of a path when small enough (nothing when not: the next upload then reads the live file). */
  async setBase(siteId: string, p: string, bytes: Uint8Array): Promise<void> {
    if (bytes.length > (this.o.baseMaxFileBytes ?? 4 * 1024 * 1024) || bytes.length > this.baseBound()) return;
    const sha256 = await this.putBlob(bytes);
    await this.keep({ kind: 'base', siteId, path: p, size: bytes.length, sha256, why: 'download', side: 'live' });
  }

  /** Records a blob already stored (putBlob) as the base of a path, when small enough. */
  async baseFromBlob(siteId: string, p: string, sha256: string, size: number): Promise<void> {
    if (size > (this.o.baseMaxFileBytes ?? 4 * 1024 * 1024) || size > this.baseBound()) return;
    await this.keep({ kind: 'base', siteId, path: p, size, sha256, why: 'upload', side: 'live' });
  }

  /** Forgets the base of a path (its live file is gone or replaced by someone else). */
  async dropBase(siteId: string, p: string): Promise<void> {
    await this.serial(async () => {
      const ids = [...this.entries.values()].filter((e) => e.kind === 'base' && e.siteId === siteId && e.path === p);
      if (!ids.length) return;
      await this.append(ids.map((e) => ['D', e.id] as Record));
      for (const e of ids) await this.unlinkIfFree(e.sha256);
    });
  }

  /** Turns a held entry into a copy (Overwrite replaced the live file it shows). */
  async promote(id: string, why: KeepReason): Promise<KeptCopy | undefined> {
    const e = this.entries.get(id);
    if (!e) return undefined;
    return this.keep({ ...e, kind: 'copy', why, at: Date.now() });
  }

  /** Releases a held entry (its conflict was resolved or cancelled). */
  async release(id: string): Promise<void> {
    const e = this.entries.get(id);
    if (e?.kind === 'held') await this.remove(id);
  }

  // ---- inside

  private baseBound(): number {
    return this.o.baseMaxBytes ?? Math.floor(this.max / 4);
  }

  private view(e: CopyRecord): KeptCopy {
    const { kind: _kind, ...rest } = e;
    return { ...rest, file: this.blobFile(e.sha256) };
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const r = this.chain.then(fn);
    this.chain = r.catch(() => undefined);
    return r;
  }

  /** Bytes of the blobs named (each once). */
  private bytes(kinds?: readonly CopyKind[]): number {
    const seen = new Map<string, number>();
    for (const e of this.entries.values()) if (!kinds || kinds.includes(e.kind)) seen.set(e.sha256, e.size);
    let n = 0;
    for (const s of seen.values()) n += s;
    return n;
  }

  /** Reads what was appended since the last look (everything again after a compaction replaced the file). */
  private async refresh(): Promise<void> {
    let st: import('node:fs').Stats;
    try {
      st = await fsp.stat(this.indexFile);
    } catch (e) {
      if (!isMissing(e)) throw e;
      this.entries.clear();
      this.readAt = 0;
      this.readIno = 0;
      return;
    }
    if (st.ino !== this.readIno || st.size < this.readAt) {
      this.entries.clear();
      this.readAt = 0;
      this.deadLines = 0;
      this.readIno = st.ino;
    }
    if (st.size === this.readAt) return;
    const f = await fsp.open(this.indexFile, 'r');
    let text: string;
    try {
      const buf = Buffer.alloc(st.size - this.readAt);
      const { bytesRead } = await f.read(buf, 0, buf.length, this.readAt);
      text = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await f.close();
    }
    // Whole lines only (a line being appended by another window is read next time).
    const end = text.lastIndexOf('\n');
    if (end < 0) return;
    this.readAt += Buffer.byteLength(text.slice(0, end + 1));
    for (const l of text.slice(0, end).split('\n')) {
      const r = parse(l);
      if (!r) {
        this.deadLines++;
        continue;
      }
      if (r[0] === 'P') {
        if (this.entries.has(r[1].id)) this.deadLines++;
        this.entries.set(r[1].id, r[1]);
      } else if (this.entries.delete(r[1])) this.deadLines += 2;
    }
  }

  private async append(records: Record[]): Promise<void> {
    if (!records.length) return;
    await fsp.appendFile(this.indexFile, records.map(line).join(''), { mode: FILE_MODE });
    await this.refresh();
    if (this.deadLines > 200 && this.deadLines > this.entries.size * 2) await this.compact();
  }

  /** Rewrites the index with the live entries only, then removes blobs no entry names. */
  private async compact(): Promise<void> {
    const lock = path.join(this.o.folder, LOCK);
    if (!(await takeLock(lock))) return;
    try {
      await this.refresh();
      const tmp = path.join(this.tmpDir, ownedName('', '.tmp'));
      await fsp.writeFile(tmp, [...this.entries.values()].map((e) => line(['P', e])).join(''), { mode: FILE_MODE, flag: 'wx' });
      await fsp.rename(tmp, this.indexFile);
      this.readAt = 0;
      this.readIno = 0;
      await this.refresh();
      await this.sweep();
    } finally {
      await fsp.rm(lock, { force: true });
    }
  }

  /** Removes blobs that no entry names (old enough that no other window is about to name them). */
  private async sweep(): Promise<void> {
    const named = new Set([...this.entries.values()].map((e) => e.sha256));
    const now = Date.now();
    for (const sub of await fsp.readdir(this.blobsDir).catch((): string[] => [])) {
      const dir = path.join(this.blobsDir, sub);
      for (const name of await fsp.readdir(dir).catch((): string[] => [])) {
        if (named.has(name)) continue;
        const file = path.join(dir, name);
        const st = await fsp.stat(file).catch(() => undefined);
        if (st && now - st.mtimeMs > ORPHAN_AGE_MS) await fsp.rm(file, { force: true });
      }
    }
  }

  private async unlinkIfFree(sha256: string): Promise<void> {
    for (const e of this.entries.values()) if (e.sha256 === sha256) return;
    await fsp.rm(this.blobFile(sha256), { force: true }).catch(() => undefined);
  }

  /** Evicts, oldest first, held entries older than a day, then bases (also over their own bound), then copies, until under the bound. */
  private async enforce(protect: Set<string>): Promise<void> {
    const now = Date.now();
    const order = (kind: CopyKind, pred: (e: CopyRecord) => boolean = () => true) =>
      [...this.entries.values()].filter((e) => e.kind === kind && !protect.has(e.id) && pred(e)).sort((a, b) => a.at - b.at);
    const evict = async (list: CopyRecord[], over: () => boolean) => {
      for (const e of list) {
        if (!over()) return;
        await this.append([['D', e.id]]);
        await this.unlinkIfFree(e.sha256);
        if (e.kind === 'copy') this.o.log?.(`The oldest overwritten copy (${e.path}, ${e.size} bytes) was removed to stay within ${this.max} bytes.`);
      }
    };
    await evict(order('base'), () => this.bytes(['base']) > this.baseBound());
    if (this.bytes() <= this.max) return;
    await evict(
      order('held', (e) => now - e.at > HELD_MAX_AGE_MS),
      () => this.bytes() > this.max,
    );
    await evict(order('base'), () => this.bytes() > this.max);
    await evict(order('copy'), () => this.bytes() > this.max);
  }
}

function gone(id: string): TransferError {
  return new TransferError('damaged-copy', 'store', 'That kept copy is not there any more (removed, or evicted to stay within the bound).', { next: 'Refresh the list of overwritten copies.', path: id });
}

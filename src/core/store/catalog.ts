// The disk store's index (plain Node): which key (a revision's content, or a list) is stored in
// which blob, how big the blobs are, and which keys were used least recently.
//
// On disk, in `<store>/index/`, shared by every process (window) that opens the store:
// - `snapshot`: the whole index at some moment, one line `<crc32> <json>`, replaced atomically
//   (temporary file + rename) by whichever process compacts;
// - `j-<pid>-<random>.log`: one append-only journal per open store instance, written only by
//   that instance, one record per line `<crc32> <json>\n`:
//     ["P", key, hash, size, stamp, time]   key now names blob `hash` (`stamp`: when the value was fetched)
//     ["U", key, time]                      key was used (LRU); written in batches
//     ["D", key, hash]                      key no longer names blob `hash` (evicted, corrupt, forgotten)
// Every instance keeps the index in memory: the snapshot, then every journal replayed from the
// offset the snapshot covers. refresh() reads what other instances appended since (only whole
// lines; a torn or corrupt line, e.g. of a killed process, fails its CRC and is skipped). A
// single writer per journal means appends of two processes never interleave.
//
// Compaction (when the journals outgrow the snapshot) runs under `index/lock` (a file created
// exclusively; taken over when its process is gone): the compacting instance writes a new
// snapshot that covers every journal up to where it read, deletes the covered journals of
// processes that are gone, and starts a fresh journal of its own; other instances notice the new
// snapshot on their next refresh, reload it, and start fresh journals themselves.
//
// The index may lag or lose a record (a crash between writing a blob and appending its record,
// a race of two processes); that costs a cache miss or an orphan blob, never a wrong answer:
// blobs are named by the SHA-256 of their bytes and checked on every read, and orphan blobs are
// swept at compaction.
// fs.promises is read where it is used, so that activating does not load it (see esbuild.mjs).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { FILE_MODE, isMissing, ownedName, ownerPid, processAlive, takeLock, writeAtomic } from './files';
import { checked, crcOf, isCount, isHash, parseRecord, type JournalRecord } from './indexLines';

export interface Entry {
  /** SHA-256 (hex) of the blob. */
  hash: string;
  size: number;
  /** When the value was fetched from the service (epoch ms). */
  stamp: number;
  /** Last use (epoch ms). */
  used: number;
}

interface Blob {
  size: number;
  refs: number;
}

const SNAPSHOT_FORMAT = 'site-revisions-store-index';
const SNAPSHOT = 'snapshot';
const LOCK = 'lock';
/** Journals are compacted once they hold more than this, or more than the snapshot's size. */
const COMPACT_MIN_BYTES = 1024 * 1024;
/** … or when there are more journal files than this. */
const COMPACT_MAX_JOURNALS = 24;

export class Catalog {
  /** Least recently used first (Map order). */
  readonly entries = new Map<string, Entry>();
  private readonly blobs = new Map<string, Blob>();
  /** Bytes of the blobs that some key names (each blob once). */
  total = 0;
  /** How far each journal has been applied. */
  private readonly offsets = new Map<string, number>();
  /** The size of each journal when last looked at. */
  private readonly sizes = new Map<string, number>();
  private snapshotId = '';
  private snapshotBytes = 0;
  private own: { name: string; file: fsp.FileHandle; size: number } | undefined;
  private pending: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly tmpDir: string,
    private readonly warn: (msg: string) => void,
  ) {}

  // ---- the index in memory

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  hasBlob(hash: string): boolean {
    return this.blobs.has(hash);
  }

  /** key → blob; returns the blob no key names any more, if any. */
  put(key: string, hash: string, size: number, stamp: number, time = Date.now()): string | undefined {
    this.queue(['P', key, hash, size, stamp, time]);
    return this.applyPut(key, hash, size, stamp, time);
  }

  /** Marks a key used (the LRU order); the journal gets it with the next flush. */
  use(key: string, time = Date.now()): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.applyUse(key, e, time);
    this.queue(['U', key, time]);
  }

  /** Forgets a key; returns the blob no key names any more, if any. */
  drop(key: string): string | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.queue(['D', key, e.hash]);
    return this.applyDrop(key, e.hash);
  }

  /** The least recently used key. */
  oldest(): string | undefined {
    for (const k of this.entries.keys()) return k;
    return undefined;
  }

  /** Whether records wait to be written. */
  get dirty(): boolean {
    return this.pending.length > 0;
  }

  private applyPut(key: string, hash: string, size: number, stamp: number, time: number): string | undefined {
    const old = this.entries.get(key);
    let freed: string | undefined;
    if (old) {
      if (old.hash === hash) {
        // The same value again (a list fetched again unchanged): newer stamp, now used.
        this.entries.delete(key);
        this.entries.set(key, { hash, size, stamp: Math.max(stamp, old.stamp), used: Math.max(time, old.used) });
        return undefined;
      }
      if (stamp < old.stamp) return undefined; // an older value, replayed late
      this.entries.delete(key);
      freed = this.unref(old.hash);
    }
    this.entries.set(key, { hash, size, stamp, used: time });
    const b = this.blobs.get(hash);
    if (b) b.refs++;
    else {
      this.blobs.set(hash, { size, refs: 1 });
      this.total += size;
    }
    return freed === hash ? undefined : freed;
  }

  private applyUse(key: string, e: Entry, time: number): void {
    if (time < e.used) return;
    e.used = time;
    this.entries.delete(key);
    this.entries.set(key, e);
  }

  private applyDrop(key: string, hash: string): string | undefined {
    const e = this.entries.get(key);
    if (!e || e.hash !== hash) return undefined;
    this.entries.delete(key);
    return this.unref(hash);
  }

  private unref(hash: string): string | undefined {
    const b = this.blobs.get(hash);
    if (!b) return undefined;
    if (--b.refs > 0) return undefined;
    this.blobs.delete(hash);
    this.total -= b.size;
    return hash;
  }

  private apply(r: JournalRecord): void {
    switch (r[0]) {
      case 'P':
        this.applyPut(r[1], r[2], r[3], r[4], r[5]);
        break;
      case 'U': {
        const e = this.entries.get(r[1]);
        if (e) this.applyUse(r[1], e, r[2]);
        break;
      }
      case 'D':
        this.applyDrop(r[1], r[2]);
        break;
    }
  }

  private clearMemory(): void {
    this.entries.clear();
    this.blobs.clear();
    this.total = 0;
    this.offsets.clear();
  }

  // ---- on disk

  /** Loads the snapshot and replays every journal. */
  async load(): Promise<void> {
    this.clearMemory();
    this.snapshotId = '';
    await this.refresh();
  }

  /**
   * Takes in what other instances wrote since the last look: a newer snapshot (then the index is
   * rebuilt from it), and the new whole lines of every journal.
   */
  async refresh(): Promise<void> {
    const snap = path.join(this.dir, SNAPSHOT);
    let id = '';
    try {
      const st = await fsp.stat(snap);
      id = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
    if (id !== this.snapshotId) {
      // Our own records are in our journal: written first, they are replayed with the others.
      await this.flush();
      this.clearMemory();
      this.snapshotId = id;
      this.snapshotBytes = 0;
      if (id) await this.readSnapshot(snap);
      // A journal of ours that the snapshot covers entirely is replaced by a fresh one.
      if (this.own && this.offsets.get(this.own.name) === this.own.size) await this.rotate();
    }
    let names: string[];
    try {
      names = (await fsp.readdir(this.dir)).filter((n) => n.startsWith('j-') && n.endsWith('.log'));
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    const present = new Set(names);
    for (const n of [...this.offsets.keys()]) if (!present.has(n)) this.offsets.delete(n);
    for (const n of [...this.sizes.keys()]) if (!present.has(n)) this.sizes.delete(n);
    for (const name of names) await this.replay(name);
  }

  private async readSnapshot(file: string): Promise<void> {
    let text: string;
    try {
      text = await fsp.readFile(file, 'utf8');
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    this.snapshotBytes = text.length;
    const json = checked(text.endsWith('\n') ? text.slice(0, -1) : text);
    let snap: { format?: unknown; covers?: unknown; entries?: unknown } | undefined;
    try {
      snap = json === undefined ? undefined : (JSON.parse(json) as typeof snap);
    } catch {
      snap = undefined;
    }
    if (!snap || snap.format !== SNAPSHOT_FORMAT || !Array.isArray(snap.entries)) {
      // Rebuilt from the journals; blobs nobody names are swept at the next compaction.
      this.warn('The disk cache index was unreadable and is rebuilt from its journals.');
      return;
    }
    if (snap.covers && typeof snap.covers === 'object') {
      for (const [name, off] of Object.entries(snap.covers as Record<string, unknown>)) {
        if (typeof off === 'number' && off >= 0) this.offsets.set(name, off);
      }
    }
    for (const e of snap.entries as unknown[]) {
      if (!Array.isArray(e)) continue;
      const [key, hash, size, stamp, used] = e as unknown[];
      if (typeof key !== 'string' || !isHash(hash) || !isCount(size) || typeof stamp !== 'number' || typeof used !== 'number') continue;
      this.applyPut(key, hash, size, stamp, used);
    }
  }

  /** Applies the whole lines a journal gained since its offset. */
  private async replay(name: string): Promise<void> {
    const from = this.offsets.get(name) ?? 0;
    const full = path.join(this.dir, name);
    let file: fsp.FileHandle;
    try {
      // Most journals have not grown since the last look: one stat, no open.
      const before = (await fsp.stat(full)).size;
      this.sizes.set(name, before);
      if (before <= from) return;
      file = await fsp.open(full, 'r');
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    try {
      const { size } = await file.stat();
      this.sizes.set(name, size);
      if (size <= from) return;
      const buf = Buffer.allocUnsafe(size - from);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await file.read(buf, got, buf.length - got, from + got);
        if (!bytesRead) break;
        got += bytesRead;
      }
      const end = buf.lastIndexOf(0x0a, got - 1);
      if (end < 0) return; // no whole line yet
      for (const line of buf.toString('utf8', 0, end).split('\n')) {
        const r = parseRecord(line);
        if (r) this.apply(r);
      }
      this.offsets.set(name, from + end + 1);
    } finally {
      await file.close();
    }
  }

  private queue(r: JournalRecord): void {
    const json = JSON.stringify(r);
    this.pending.push(`${crcOf(json)} ${json}\n`);
  }

  /** Appends the waiting records to this instance's journal in one write. */
  async flush(): Promise<void> {
    if (!this.pending.length) return;
    const data = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    if (!this.own) await this.openJournal();
    const own = this.own!;
    let off = 0;
    while (off < data.length) {
      const { bytesWritten } = await own.file.write(data, off, data.length - off);
      off += bytesWritten;
    }
    own.size += data.length;
    // Our records are in memory already: the journal is applied up to its end.
    this.offsets.set(own.name, own.size);
    this.sizes.set(own.name, own.size);
  }

  private async openJournal(): Promise<void> {
    const name = ownedName('j-', '.log');
    const file = await fsp.open(path.join(this.dir, name), 'ax', FILE_MODE);
    this.own = { name, file, size: 0 };
    this.offsets.set(name, 0);
  }

  /** Closes this instance's journal and deletes it (the snapshot covers it); the next record opens a new one. */
  private async rotate(): Promise<void> {
    const own = this.own;
    if (!own) return;
    this.own = undefined;
    await own.file.close().catch(() => undefined);
    await fsp.rm(path.join(this.dir, own.name), { force: true });
    this.offsets.delete(own.name);
    this.sizes.delete(own.name);
  }

  /** Whether the journals have grown enough to be folded into a new snapshot. */
  get wantsCompaction(): boolean {
    let bytes = 0;
    for (const s of this.sizes.values()) bytes += s;
    return bytes > Math.max(COMPACT_MIN_BYTES, this.snapshotBytes) || this.sizes.size > COMPACT_MAX_JOURNALS;
  }

  /**
   * Folds the journals into a new snapshot (see the header). Returns false when another process
   * holds the lock. `sweep` runs while the lock is held, with the up-to-date index.
   */
  async compact(sweep?: () => Promise<void>): Promise<boolean> {
    const lock = path.join(this.dir, LOCK);
    if (!(await takeLock(lock))) return false;
    try {
      await this.refresh();
      await this.flush();
      const covers: Record<string, number> = Object.fromEntries(this.offsets);
      const entries: [string, string, number, number, number][] = [];
      for (const [k, e] of this.entries) entries.push([k, e.hash, e.size, e.stamp, e.used]);
      const json = JSON.stringify({ format: SNAPSHOT_FORMAT, v: 1, covers, entries });
      const snap = path.join(this.dir, SNAPSHOT);
      await writeAtomic(this.tmpDir, snap, `${crcOf(json)} ${json}\n`);
      const st = await fsp.stat(snap);
      this.snapshotId = `${st.ino}:${st.size}:${st.mtimeMs}`;
      this.snapshotBytes = st.size;
      // Covered journals of processes that are gone, and our own, are no longer needed.
      for (const [name, off] of Object.entries(covers)) {
        if (this.own?.name === name) continue;
        if (off === this.sizes.get(name) && !processAlive(ownerPid(name))) {
          await fsp.rm(path.join(this.dir, name), { force: true });
          this.offsets.delete(name);
          this.sizes.delete(name);
        }
      }
      await this.rotate();
      await sweep?.();
      return true;
    } finally {
      await fsp.rm(lock, { force: true }).catch(() => undefined);
    }
  }

  /** Writes what waits and closes the journal (the store can be opened again later). */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      const own = this.own;
      this.own = undefined;
      await own?.file.close().catch(() => undefined);
    }
  }

  /** Forgets the index in memory and the journal handle (the files are being deleted). */
  async reset(): Promise<void> {
    this.pending = [];
    const own = this.own;
    this.own = undefined;
    await own?.file.close().catch(() => undefined);
    this.clearMemory();
    this.sizes.clear();
    this.snapshotId = '';
    this.snapshotBytes = 0;
  }

  /** The hashes some key names (for the sweep). */
  referenced(hash: string): boolean {
    return this.blobs.has(hash);
  }
}

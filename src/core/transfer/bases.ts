// The guard's bases (issue 34 §2): per site, what this computer last DOWNLOADED or UPLOADED for
// each path — the live file's size, the server's raw modification time and etag as reported after
// the transfer, and the SHA-256 of the bytes. Plain Node.
//
// Apart from the live layer's last-seen state (src/core/live/lastSeen.ts) on purpose: that one is
// also a cache of hashes that Compare Live with Local and Live Drift fill with plain reads; a
// read there must not become the base, or a live change seen in a comparison would be overwritten
// by the next upload without a conflict. Transfers update both: this file as the base, the
// last-seen state as the hash cache.
//
// One JSON file per site under the account's cache folder (`<account>/transfer/<site>.bases.json`,
// so it goes at sign-out), written atomically (temporary file + rename). Two windows of the same
// account may share it: save() merges this window's changes into what is on disk, so one window
// does not drop the other's records. No secret is in it.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { LastSeenRecord, LiveEntry } from '../live/types';

const VERSION = 1;

/** A base: the live file after the transfer, and the working file's size and time then (its hash is the same bytes'). */
export type BaseRecord = LastSeenRecord & { by: 'download' | 'upload' | 'read'; local?: { size: number; mtimeMs: number } };

function valid(r: unknown): r is BaseRecord {
  const x = r as BaseRecord | undefined;
  return !!x && typeof x.size === 'number' && typeof x.mtimeRaw === 'string' && typeof x.sha256 === 'string' && /^[0-9a-f]{64}$/.test(x.sha256) && typeof x.at === 'number';
}

async function readRecords(file: string): Promise<Map<string, BaseRecord>> {
  const out = new Map<string, BaseRecord>();
  try {
    const j = JSON.parse(await fsp.readFile(file, 'utf8')) as { version?: number; records?: Record<string, unknown> };
    if (j.version === VERSION && j.records && typeof j.records === 'object') for (const [k, r] of Object.entries(j.records)) if (valid(r)) out.set(k, r);
  } catch {
    // none yet, or unreadable: empty
  }
  return out;
}

export class Bases {
  /** Paths changed since the last save: the record, or null for a delete. */
  private readonly changes = new Map<string, BaseRecord | null>();

  private constructor(
    readonly file: string,
    private readonly records: Map<string, BaseRecord>,
  ) {}

  /** The file of a site under the account's cache folder. */
  static fileFor(accountCacheDir: string, siteId: string): string {
    return path.join(accountCacheDir, 'transfer', `${siteId.replace(/[^A-Za-z0-9_-]/g, '_')}.bases.json`);
  }

  static async load(file: string): Promise<Bases> {
    return new Bases(file, await readRecords(file));
  }

  get size(): number {
    return this.records.size;
  }

  get(p: string): BaseRecord | undefined {
    return this.records.get(p);
  }

  /** The base's hash when the working file is, by its size and time, the one recorded with it (no read needed). */
  workingUnchanged(p: string, f: { size: number; mtimeMs: number }): string | undefined {
    const r = this.records.get(p);
    return r?.local && r.local.size === f.size && r.local.mtimeMs === f.mtimeMs ? r.sha256 : undefined;
  }

  /**
   * Records a transfer (forgets the path when the server reported no size or no time). `local`:
   * the working file's size and modification time when it held these bytes — a working file
   * found with the same two later is not read again (as Git's index does with its stat data).
   */
  set(p: string, e: Pick<LiveEntry, 'size' | 'mtimeRaw' | 'etag'>, sha256: string, by: 'download' | 'upload' | 'read', local?: { size: number; mtimeMs: number }): void {
    if (e.size === undefined || e.mtimeRaw === undefined) {
      this.delete(p);
      return;
    }
    const r: BaseRecord = { size: e.size, mtimeRaw: e.mtimeRaw, sha256, ...(e.etag ? { etag: e.etag } : {}), at: Date.now(), by, ...(local ? { local: { size: local.size, mtimeMs: local.mtimeMs } } : {}) };
    this.records.set(p, r);
    this.changes.set(p, r);
  }

  delete(p: string): void {
    if (this.records.delete(p) || this.changes.has(p)) this.changes.set(p, null);
  }

  /** Writes this window's changes, merged into what is on disk now (temporary file + rename). */
  async save(): Promise<void> {
    if (!this.changes.size) return;
    const onDisk = await readRecords(this.file);
    for (const [p, r] of this.changes) {
      if (r) onDisk.set(p, r);
      else onDisk.delete(p);
    }
    await fsp.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    await fsp.writeFile(tmp, JSON.stringify({ version: VERSION, records: Object.fromEntries(onDisk) }), { mode: 0o600 });
    try {
      await fsp.rename(tmp, this.file);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
    this.changes.clear();
    // What other windows recorded meanwhile is this window's too now.
    for (const [p, r] of onDisk) if (!this.records.has(p) || this.records.get(p)!.at < r.at) this.records.set(p, r);
  }
}

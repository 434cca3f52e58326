// What this computer last saw of each live file of a site (issue 33 §6; issue 34's guard uses
// the same record as its "base"): size, the server's raw modification time, SHA-256, and what
// recorded it (a read, a download, an upload). A live file whose size and raw time are what we
// hashed needs no read to know its hash. One JSON file per site under the account's cache
// folder (it goes with the account at sign-out), written atomically (temporary file + rename).
// No secret is in it.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { LastSeenRecord, LiveEntry } from './types';

const VERSION = 1;

export class LastSeen {
  private dirty = false;

  private constructor(
    readonly file: string,
    private readonly records: Map<string, LastSeenRecord>,
  ) {}

  /** The file of a site under the account's cache folder. */
  static fileFor(accountCacheDir: string, siteId: string): string {
    return path.join(accountCacheDir, 'live', `${siteId.replace(/[^A-Za-z0-9_-]/g, '_')}.last-seen.json`);
  }

  /** Reads the file (a missing or unreadable one is an empty state). */
  static async load(file: string): Promise<LastSeen> {
    const records = new Map<string, LastSeenRecord>();
    try {
      const j = JSON.parse(await fsp.readFile(file, 'utf8')) as { version?: number; records?: Record<string, LastSeenRecord> };
      if (j.version === VERSION && j.records && typeof j.records === 'object') {
        for (const [k, r] of Object.entries(j.records)) {
          if (r && typeof r.size === 'number' && typeof r.mtimeRaw === 'string' && typeof r.sha256 === 'string') records.set(k, r);
        }
      }
    } catch {
      // none yet, or unreadable: start empty
    }
    return new LastSeen(file, records);
  }

  get size(): number {
    return this.records.size;
  }

  get(p: string): LastSeenRecord | undefined {
    return this.records.get(p);
  }

  /** The hash of a live entry when it is what was last hashed (same size, same raw time, same etag when both have one). */
  hashIfUnchanged(p: string, e: Pick<LiveEntry, 'size' | 'mtimeRaw' | 'etag'>): string | undefined {
    const r = this.records.get(p);
    if (!r || e.size === undefined || e.mtimeRaw === undefined) return undefined;
    if (r.size !== e.size || r.mtimeRaw !== e.mtimeRaw) return undefined;
    if (r.etag && e.etag && r.etag !== e.etag) return undefined;
    return r.sha256;
  }

  set(p: string, e: Pick<LiveEntry, 'size' | 'mtimeRaw' | 'etag'>, sha256: string, by: LastSeenRecord['by']): void {
    if (e.size === undefined || e.mtimeRaw === undefined) return;
    this.records.set(p, { size: e.size, mtimeRaw: e.mtimeRaw, sha256, ...(e.etag ? { etag: e.etag } : {}), at: Date.now(), by });
    this.dirty = true;
  }

  delete(p: string): void {
    if (this.records.delete(p)) this.dirty = true;
  }

  /** Writes the file if anything changed (temporary file + rename). */
  async save(): Promise<void> {
    if (!this.dirty) return;
    await fsp.mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    await fsp.writeFile(tmp, JSON.stringify({ version: VERSION, records: Object.fromEntries(this.records) }), { mode: 0o600 });
    try {
      await fsp.rename(tmp, this.file);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
    this.dirty = false;
  }
}

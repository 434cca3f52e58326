// The last known status of a mapped folder, kept on disk (plain Node; no `vscode`): what the
// Source Control view shows at once after a window reload, before the revision store's caches
// and the service are looked at. It holds each file's newest revision with its content's digest,
// and each working file's size, modification time and digest — so a working file not touched
// since is not read again (as Git's index does), and a newest revision whose content is not
// cached keeps its digest (or that its content was refused as too large: it is not asked for
// again). One JSON file per site and folder, in the signed-in account's cache
// folder (deleted with it at sign-out, and by Clear Cache); a file that cannot be read or does
// not describe that site and folder is ignored.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { FolderStatus, NewestRevision, StatusEntry, WorkingFile } from './index';
import type { StatusSource } from './scan';
import type { DigestCache } from './working';

/** [id, date, author, time (null: not a date), digest (null: unknown), 1 when its content was refused as too large (else absent)] */
type NewestRow = [string, string, string, number | null, string | null] | [string, string, string, number | null, null, 1];
/** [size, mtime, digest (null: unknown)] */
type WorkingRow = [number, number, string | null];
/** [path, newest (null: no revision; 0: not known), working (null: no file; 0: not looked at)] */
type EntryRow = [string, NewestRow | null | 0, WorkingRow | null | 0];

export interface StatusSnapshot {
  v: 1;
  siteId: string;
  folder: string;
  savedAt: number;
  localOnly: { count: number; complete: boolean };
  entries: EntryRow[];
}

/** The file name of a site's folder's snapshot (a hash: the folder's path is not spelled out). */
export function snapshotName(siteId: string, folder: string): string {
  return `${createHash('sha256').update(`${siteId}\u0000${folder}`).digest('hex').slice(0, 32)}.json`;
}

export function snapshotOf(status: FolderStatus, siteId: string, folder: string, now = Date.now()): StatusSnapshot {
  const newest = (n: StatusEntry['newest']): EntryRow[1] =>
    n === undefined ? 0 : n === null ? null : n.tooLarge && n.digest === undefined ? [n.id, n.date, n.author, n.time ?? null, null, 1] : [n.id, n.date, n.author, n.time ?? null, n.digest ?? null];
  const working = (w: StatusEntry['working']): EntryRow[2] => (w === undefined ? 0 : w === null ? null : [w.size, w.mtime, w.digest ?? null]);
  return { v: 1, siteId, folder, savedAt: now, localOnly: status.localOnly, entries: status.all().map((e) => [e.path, newest(e.newest), working(e.working)]) };
}

const isStr = (x: unknown): x is string => typeof x === 'string';
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function newestOf(x: unknown): NewestRevision | null | undefined {
  if (x === null) return null;
  if (!Array.isArray(x) || (x.length !== 5 && x.length !== 6) || !isStr(x[0]) || !isStr(x[1]) || !isStr(x[2]) || !(x[3] === null || isNum(x[3])) || !(x[4] === null || isStr(x[4]))) return undefined;
  const tooLarge = x.length === 6 && x[5] === 1 && x[4] === null;
  return { id: x[0], date: x[1], author: x[2], time: x[3] ?? undefined, digest: x[4] ?? undefined, ...(tooLarge ? { tooLarge: true } : {}) };
}

function workingOf(x: unknown): WorkingFile | null | undefined {
  if (x === null) return null;
  if (!Array.isArray(x) || x.length !== 3 || !isNum(x[0]) || !isNum(x[1]) || !(x[2] === null || isStr(x[2]))) return undefined;
  return { size: x[0], mtime: x[1], digest: x[2] ?? undefined };
}

/**
 * Puts a snapshot into `status` (its paths become the site's list) and the working files' digests
 * into `digests`; what does not read as a snapshot entry is left unknown.
 */
export function restoreSnapshot(status: FolderStatus, snap: StatusSnapshot, digests: DigestCache): void {
  const rows = snap.entries.filter((r) => Array.isArray(r) && isStr(r[0]));
  status.setSiteFiles(rows.map((r) => r[0]));
  for (const [p, n, w] of rows) {
    const e = status.get(p);
    if (!e) continue;
    e.newest = newestOf(n);
    e.working = workingOf(w);
    if (e.working?.digest) digests.set(e.relative, e.working, e.working.digest);
  }
  if (snap.localOnly && isNum(snap.localOnly.count)) status.setLocalCount(snap.localOnly.count, snap.localOnly.complete === true);
}

/** The snapshot of that site's folder in `dir`, or undefined (none, unreadable, or another's). */
export async function readSnapshot(dir: string, siteId: string, folder: string): Promise<StatusSnapshot | undefined> {
  try {
    const v = JSON.parse(await fsp.readFile(path.join(dir, snapshotName(siteId, folder)), 'utf8')) as Partial<StatusSnapshot>;
    return v && v.v === 1 && v.siteId === siteId && v.folder === folder && Array.isArray(v.entries) ? (v as StatusSnapshot) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the snapshot (a temporary file renamed over the old one). `dir` is made inside its
 * parent, which must exist: a write that comes after the account's folder was deleted (sign-out)
 * does not make it again.
 */
export async function writeSnapshot(dir: string, snap: StatusSnapshot): Promise<void> {
  await fsp.mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
  const file = path.join(dir, snapshotName(snap.siteId, snap.folder));
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(snap), { mode: 0o600 });
  await fsp.rename(tmp, file).catch(async (e: unknown) => {
    await fsp.rm(tmp, { force: true });
    throw e;
  });
}

/**
 * The status as the snapshot left it, as a source: its list of paths and nothing newer (a scan with
 * it only looks at the working files: those whose size and time are as recorded are not read).
 */
export function snapshotSource(status: FolderStatus): StatusSource {
  return { asks: false, siteFiles: () => Promise.resolve({ paths: status.all().map((e) => e.path), offline: false }), newest: () => Promise.resolve(undefined) };
}

// The guard's rules (issue 34 §2), plain Node and pure but for the history lookup.
//
// The base of a path, in order: what this computer last downloaded or uploaded for it (its
// record in bases.ts: size, the server's raw modification time, SHA-256, and the etag when the
// protocol gives one), else the newest revision on the service (its content's SHA-256), else none.
//
// A live file is UNCHANGED since a last-seen record, without reading it, when its size is the
// same and
// - WebDAV and S3: its etag is the same (a change token by their specifications; S3's is the
//   MD5 of the bytes, Apache's the size and the time in microseconds) — the raw time is not
//   needed (S3 lists and HEAD write it in two formats);
// - FTP and SFTP: its raw time is the same string the server sent then (MLSD/MLST `modify`,
//   SFTP's seconds), and the etag too when both have one (MLSD `unique`: another file put in its
//   place is not taken as unchanged). A LIST time (no exact time: `mtime` undefined) never proves
//   anything: the file is read.
// Otherwise it is read and hashed, and unchanged when the hash is the base's. Times are only
// ever compared raw with raw, from the same server: never a live time with a local one or with a
// revision's date (a server clock hours off, or in another time zone, raises no alarm).
import type { HistorySource } from '../live/compare';
import type { LastSeenRecord, LiveEntry, LiveProtocol } from '../live/types';
import type { BaseInfo } from './types';

/** An etag without its weak marker and quotes (Apache answers W/"…" for a file written this second, "…" later). */
export function normalEtag(etag: string | undefined): string | undefined {
  if (!etag) return undefined;
  return etag.replace(/^W\//i, '').replace(/^"(.*)"$/, '$1') || undefined;
}

/** Whether a live entry is, by its metadata alone, the file a last-seen record describes (see the file's comment). */
export function unchangedSince(e: Pick<LiveEntry, 'size' | 'mtime' | 'mtimeRaw' | 'etag'>, base: Pick<LastSeenRecord, 'size' | 'mtimeRaw' | 'etag'>, protocol: LiveProtocol): boolean {
  if (e.size === undefined || e.size !== base.size) return false;
  const a = normalEtag(e.etag);
  const b = normalEtag(base.etag);
  if (protocol === 'webdav' || protocol === 's3') {
    if (a && b) return a === b;
  } else if (a && b && a !== b) return false;
  if (e.mtime === undefined || e.mtimeRaw === undefined) return false;
  return e.mtimeRaw === base.mtimeRaw;
}

/** Whether two entries of the same file are the same version by metadata (the "still the one shown" check). */
export function sameVersion(a: LiveEntry | undefined, b: Pick<LiveEntry, 'size' | 'mtime' | 'mtimeRaw' | 'etag'> | undefined, protocol: LiveProtocol): boolean {
  if (!a || !b) return !a && !b;
  if (b.mtimeRaw === undefined || b.size === undefined) return false;
  return unchangedSince(a, { size: b.size, mtimeRaw: b.mtimeRaw, ...(b.etag ? { etag: b.etag } : {}) }, protocol) && (b.mtime !== undefined || normalEtag(b.etag) !== undefined);
}

/** The newest revision of a path, when the history knows it (never throws). */
export async function newestOf(history: HistorySource | undefined, p: string, signal: AbortSignal): Promise<{ revisionId: string; sha256?: string; size?: number } | undefined> {
  if (!history) return undefined;
  try {
    const n = await history.newest(p, signal);
    return n ?? undefined;
  } catch {
    return undefined;
  }
}

/** The base of a path (see the file's comment). */
export async function baseOf(p: string, bases: { get(p: string): LastSeenRecord | undefined }, history: HistorySource | undefined, signal: AbortSignal): Promise<BaseInfo> {
  const r = bases.get(p);
  if (r) return { from: 'last-seen', sha256: r.sha256, size: r.size, mtimeRaw: r.mtimeRaw, ...(r.etag ? { etag: r.etag } : {}), at: r.at, by: r.by };
  const n = await newestOf(history, p, signal);
  if (n?.sha256) return { from: 'newest-revision', sha256: n.sha256, revisionId: n.revisionId, ...(n.size !== undefined ? { size: n.size } : {}) };
  return { from: 'none' };
}

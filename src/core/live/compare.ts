// Compare Live with Local and Live Drift (issue 33 §6), plain Node: the live tree under a root
// (folders listed a few at a time, progress, cancel), the local folder, and the newest revision
// of each path from the revision store's caches. Groups: differs from local, differs from the
// newest revision, only live, only local, only in the history.
//
// The rule: sizes first; a file of the same size is decided by SHA-256 (a same-size edit is
// caught). Modification times never decide "changed" (a clock offset or time zone is not a
// change); the live side's hash comes from the "last seen" state when the file has the same size
// and the same raw time as when it was hashed, else the file is read (and the state updated).
import { createHash } from 'node:crypto';
import type { RevisionStore } from '../model/revisionStore';
import { storeSource, type StatusMode } from '../status/scan';
import { DigestCache, readWorking, type WorkingFs } from '../status/working';
import type { LastSeen } from './lastSeen';
import { LiveError, type CompareGroup, type CompareRow, type LiveEntry, type LiveFs } from './types';
import { allowListeners, cancelled } from './util';

/** A path's newest revision as the comparison needs it. */
export interface NewestInfo {
  revisionId: string;
  /** SHA-256 hex of its content (UTF-8), when known without a request. */
  sha256?: string;
  /** Its content's length in bytes, when known. */
  size?: number;
}

export interface HistorySource {
  /** The site's paths that have revisions (root-relative to the site's folder). */
  paths(signal: AbortSignal): Promise<string[]>;
  /** A path's newest revision (null: none; undefined: not known without a request in this mode). */
  newest(path: string, signal: AbortSignal): Promise<NewestInfo | null | undefined>;
}

/** The revision store as a history source (mode 'cached': memory and disk only; 'complete': asks what is missing). */
export function storeHistory(store: RevisionStore, siteId: string, mode: StatusMode = 'cached'): HistorySource {
  const src = storeSource(store, siteId, mode);
  return {
    async paths(signal) {
      const f = await src.siteFiles(signal);
      return (f?.paths ?? []).map(sitePath);
    },
    async newest(path, signal) {
      const tries = [path, `/${path}`];
      for (const p of tries) {
        const n = await src.newest(p, signal).catch(() => undefined);
        if (n?.newest) {
          const size = store.peekContent(siteId, n.newest.id)?.length;
          return { revisionId: n.newest.id, ...(n.newest.digest ? { sha256: n.newest.digest } : {}), ...(size !== undefined ? { size } : {}) };
        }
        if (n && n.newest === null) return null;
      }
      return undefined;
    },
  };
}

/** A service path as a root-relative one ('/a//b' → 'a/b'). */
export function sitePath(p: string): string {
  return p.split('/').filter((s) => s && s !== '.').join('/');
}

export interface CompareOptions {
  /** The folder compared, root-relative ('' the whole site). */
  root?: string;
  /** The local folder (the mapped folder of the site), for Compare Live with Local. */
  local?: WorkingFs;
  /** The newest revisions, for Live Drift and "only in the history". */
  history?: HistorySource;
  /** The site's last-seen state (read-through: hashes reused, reads recorded). */
  lastSeen?: LastSeen;
  signal?: AbortSignal;
  /** Folders listed and files read at once (default liveConcurrency(live): FTP's pool size, else 16). */
  concurrency?: number;
  /** Files larger than this are not read to be hashed (basis 'unreadable'); default 256 MiB. */
  maxReadBytes?: number;
  onProgress?: (p: CompareProgress) => void;
  /** Each row as soon as it is decided. */
  onRow?: (row: CompareRow) => void;
}

export interface CompareProgress {
  folders: number;
  liveFiles: number;
  decided: number;
  reads: number;
  bytesRead: number;
}

export interface CompareResult {
  rows: CompareRow[];
  progress: CompareProgress;
  /** Rows per group. */
  counts: Record<CompareGroup, number>;
}

/** Runs up to `n` of `items` at once through `fn`, stopping at the first failure or on abort. */
async function pool<T>(items: T[], n: number, signal: AbortSignal, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  let failed: unknown;
  const worker = async () => {
    while (i < items.length && failed === undefined) {
      if (signal.aborted) throw cancelled('list');
      const t = items[i++]!;
      try {
        await fn(t);
      } catch (e) {
        failed ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failed !== undefined) throw failed;
}

/**
 * How many folders to list (and files to read) at once on `live` when the caller does not say:
 * FTP carries one transfer per connection, so its pool's size; SFTP multiplexes requests on one
 * channel and WebDAV and S3 are HTTP requests, so more at once only fill the round trips (16:
 * with 20 ms of latency a folder listed over SFTP takes three round trips, and rclone lists 8
 * folders at once on 8 connections).
 */
export function liveConcurrency(live: LiveFs): number {
  return live.endpoint.protocol === 'ftp' ? Math.max(1, live.endpoint.poolSize) : 16;
}

/**
 * Walks the live tree under `root`: every file (and link to a file inside the root), by
 * root-relative path. Up to `concurrency` folders are listed at once, and a folder's subfolders
 * are queued as its batches arrive (no level waits for the slowest folder of the one before).
 */
export async function walkLive(live: LiveFs, root: string, o: { signal: AbortSignal; concurrency?: number; onFolder?: (files: number) => void }): Promise<Map<string, LiveEntry>> {
  const files = new Map<string, LiveEntry>();
  const n = Math.max(1, o.concurrency ?? liveConcurrency(live));
  allowListeners(o.signal, n);
  live.warm?.(n);
  const queue: string[] = [root];
  let active = 0;
  let failed: { e: unknown } | undefined;
  await new Promise<void>((resolve, reject) => {
    const settle = () => {
      if (active) return;
      if (failed) reject(failed.e);
      else if (!queue.length) resolve();
    };
    const pump = () => {
      if (!failed && o.signal.aborted) failed = { e: cancelled('list') };
      while (!failed && active < n && queue.length) {
        const dir = queue.shift()!;
        active++;
        (async () => {
          for await (const batch of live.list(dir, { signal: o.signal })) {
            for (const e of batch) {
              if (e.type === 'dir') queue.push(e.path);
              else if (e.type === 'file' || (e.type === 'symlink' && e.link?.targetType === 'file')) files.set(e.path, e);
            }
            pump();
          }
          o.onFolder?.(files.size);
        })().then(
          () => {
            active--;
            pump();
            settle();
          },
          (e: unknown) => {
            failed ??= { e };
            active--;
            settle();
          },
        );
      }
      settle();
    };
    pump();
  });
  return files;
}

async function hashLive(live: LiveFs, path: string, signal: AbortSignal, onBytes: (n: number) => void): Promise<string> {
  const h = createHash('sha256');
  const s = await live.read(path, { signal });
  for await (const c of s) {
    h.update(c);
    onBytes(c.length);
  }
  return h.digest('hex');
}

/** Compares the live tree with the local folder and/or the newest revisions (see the file's comment). */
export async function compareLive(live: LiveFs, o: CompareOptions): Promise<CompareResult> {
  const signal = o.signal ?? new AbortController().signal;
  const root = o.root ?? '';
  const n = o.concurrency ?? liveConcurrency(live);
  allowListeners(signal, n);
  const maxRead = o.maxReadBytes ?? 256 * 1024 * 1024;
  const progress: CompareProgress = { folders: 0, liveFiles: 0, decided: 0, reads: 0, bytesRead: 0 };
  const rows: CompareRow[] = [];
  const tell = () => o.onProgress?.({ ...progress });
  const emit = (r: CompareRow) => {
    rows.push(r);
    o.onRow?.(r);
  };
  const under = (p: string) => !root || p === root || p.startsWith(`${root}/`);

  const liveFiles = await walkLive(live, root, {
    signal,
    concurrency: n,
    onFolder: (count) => {
      progress.folders++;
      progress.liveFiles = count;
      tell();
    },
  });

  // Live hashes, read at most once per file: from the last-seen state or by reading.
  const liveHash = new Map<string, Promise<string | undefined>>();
  const fromState = new Set<string>();
  const hashOf = (p: string): Promise<string | undefined> => {
    let h = liveHash.get(p);
    if (!h) {
      const e = liveFiles.get(p)!;
      const known = o.lastSeen?.hashIfUnchanged(p, e);
      if (known) {
        fromState.add(p);
        h = Promise.resolve(known);
      }
      else if ((e.size ?? 0) > maxRead) h = Promise.resolve(undefined);
      else {
        h = (async () => {
          progress.reads++;
          try {
            const sum = await hashLive(live, p, signal, (b) => (progress.bytesRead += b));
            o.lastSeen?.set(p, e, sum, 'read');
            return sum;
          } catch (err) {
            if (err instanceof LiveError && (err.kind === 'cancelled' || err.kind === 'timeout' || err.kind === 'connection-lost')) throw err;
            return undefined;
          }
        })();
      }
      liveHash.set(p, h);
    }
    return h;
  };
  const liveInfo = (e: LiveEntry, sha?: string) => ({ ...(e.size !== undefined ? { size: e.size } : {}), ...(e.mtime !== undefined ? { mtime: e.mtime } : {}), ...(e.mtimeRaw !== undefined ? { mtimeRaw: e.mtimeRaw } : {}), ...(sha ? { sha256: sha } : {}) });

  // Live ↔ local
  if (o.local) {
    const listed = await o.local.list(Number.MAX_SAFE_INTEGER, signal);
    const localPaths = listed.files.map(sitePath).filter(under);
    const localSet = new Set(localPaths);
    const digests = new DigestCache();
    const both = [...liveFiles.keys()].filter((p) => localSet.has(p));
    await pool(both, n, signal, async (p) => {
      const e = liveFiles.get(p)!;
      const w = await readWorking(o.local!, p, digests);
      if (!w) return;
      const local = { size: w.size, mtime: w.mtime, ...(w.digest ? { sha256: w.digest } : {}) };
      if (e.size !== undefined && e.size !== w.size) {
        emit({ path: p, group: 'differsFromLocal', basis: 'size', live: liveInfo(e), local });
      } else {
        const sum = await hashOf(p);
        if (sum === undefined) emit({ path: p, group: 'differsFromLocal', basis: 'unreadable', live: liveInfo(e), local });
        else if (sum !== w.digest) emit({ path: p, group: 'differsFromLocal', basis: fromState.has(p) ? 'lastSeen' : 'hash', live: liveInfo(e, sum), local });
      }
      progress.decided++;
      tell();
    });
    for (const p of liveFiles.keys()) if (!localSet.has(p)) emit({ path: p, group: 'onlyLive', basis: 'size', live: liveInfo(liveFiles.get(p)!) });
    for (const p of localPaths) {
      if (liveFiles.has(p)) continue;
      const st = await o.local.stat(p);
      emit({ path: p, group: 'onlyLocal', basis: 'size', ...(st ? { local: { size: st.size, mtime: st.mtime } } : {}) });
    }
  }

  // Live ↔ newest revision (drift), and what is only in the history
  if (o.history) {
    const h = o.history;
    const historyPaths = (await h.paths(signal)).filter(under);
    const inHistory = new Set(historyPaths);
    const withHistory = [...liveFiles.keys()].filter((p) => inHistory.has(p));
    await pool(withHistory, n, signal, async (p) => {
      const e = liveFiles.get(p)!;
      const nw = await h.newest(p, signal);
      if (!nw) return;
      const newest = { revisionId: nw.revisionId, ...(nw.sha256 ? { sha256: nw.sha256 } : {}), ...(nw.size !== undefined ? { size: nw.size } : {}) };
      if (nw.size !== undefined && e.size !== undefined && nw.size !== e.size) {
        emit({ path: p, group: 'differsFromNewest', basis: 'size', live: liveInfo(e), newest });
      } else if (nw.sha256) {
        const sum = await hashOf(p);
        if (sum === undefined) emit({ path: p, group: 'differsFromNewest', basis: 'unreadable', live: liveInfo(e), newest });
        else if (sum !== nw.sha256) emit({ path: p, group: 'differsFromNewest', basis: fromState.has(p) ? 'lastSeen' : 'hash', live: liveInfo(e, sum), newest });
      }
      progress.decided++;
      tell();
    });
    if (!o.local) for (const p of liveFiles.keys()) if (!inHistory.has(p)) emit({ path: p, group: 'onlyLive', basis: 'size', live: liveInfo(liveFiles.get(p)!) });
    for (const p of historyPaths) if (!liveFiles.has(p)) emit({ path: p, group: 'onlyInHistory', basis: 'size' });
  }

  await o.lastSeen?.save().catch(() => undefined);
  const counts = { differsFromLocal: 0, differsFromNewest: 0, onlyLive: 0, onlyLocal: 0, onlyInHistory: 0 } as Record<CompareGroup, number>;
  for (const r of rows) counts[r.group]++;
  rows.sort((a, b) => (a.group === b.group ? (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) : a.group < b.group ? -1 : 1));
  tell();
  return { rows, progress, counts };
}


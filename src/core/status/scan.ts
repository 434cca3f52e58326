// Reading a mapped folder's status (plain Node; no `vscode`): the site's file list and each
// file's newest revision from the revision store, each working file from the folder, into a
// FolderStatus (./index.ts). Three ways to ask the store:
//   cached    memory and the disk cache only: never a request (what the Source Control view
//             shows at once, and again after every save);
//   complete  what is not cached is asked for at background priority: the site's list, then per
//             file ONE Get Revisions with content (the list and the newest content kept;
//             RevisionStore.newest) — a file already listed costs at most its newest content;
//   refresh   the lists asked of the service again (Refresh, and the alert's interval), at
//             background priority; a content only for a newest revision not seen before.
// When the service cannot be reached, a list comes from the disk cache marked offline (the
// store does that) and nothing more is asked of the service: the result says `offline`.
import { isTooLarge } from '../api/errors';
import type { RevisionStore } from '../model/revisionStore';
import type { FolderStatus, NewestRevision, StatusEntry, WorkingFile } from './index';
import { readWorking, type DigestCache, type ReadBudget, type WorkingFs } from './working';

export type StatusMode = 'cached' | 'complete' | 'refresh';

/** What the service side of a status reads (the revision store, asked the mode's way). */
export interface StatusSource {
  /** Whether it asks the service (not only the caches). */
  readonly asks: boolean;
  /** The site's file paths; undefined when the mode may not ask and nothing is cached. */
  siteFiles(signal?: AbortSignal): Promise<{ paths: readonly string[]; offline: boolean } | undefined>;
  /**
   * A file's newest revision (null: it has none; undefined: not cached and the mode may not ask).
   * `digest: false`: its content's digest is not needed (no working file to compare, or one that
   * is not compared), so no content is read for it.
   */
  newest(path: string, signal?: AbortSignal, o?: { digest?: boolean }): Promise<{ newest: NewestRevision | null; offline: boolean } | undefined>;
  /** Whether a failure of it means the service could not be reached (absent: no failure is). */
  isOffline?(e: unknown): boolean;
}

/** The reply size above which a file's newest revision is asked for alone (list, then content). */
export const NEWEST_REPLY_BYTES = 256 * 1024;

/** The revision store as a status source of one site, asked the `mode`'s way. */
export function storeSource(store: RevisionStore, siteId: string, mode: StatusMode): StatusSource {
  const read = (signal?: AbortSignal) => ({ priority: 'background' as const, ...(signal ? { signal } : {}) });
  return {
    asks: mode !== 'cached',
    isOffline: (e) => store.isOffline(e),
    async siteFiles(signal) {
      const model = mode === 'cached' ? await store.cachedSiteFiles(siteId) : await store.siteFiles(siteId, { ...read(signal), fresh: mode === 'refresh' });
      return model && { paths: model.files.map((f) => f.path), offline: model.offline === true };
    },
    async newest(path, signal, o) {
      const wanted = o?.digest !== false;
      if (mode === 'complete') {
        const got = await store.newest(siteId, path, { ...read(signal), maxReplyBytes: NEWEST_REPLY_BYTES, digest: wanted });
        return { newest: newestOf(got.list.items[0], got.digest, got.tooLarge ?? store.isTooLarge(siteId, got.list.items[0]?.item.id ?? '')), offline: false };
      }
      const list = mode === 'cached' ? await store.cachedRevisions(siteId, path) : await store.revisions(siteId, path, { ...read(signal), fresh: true });
      if (!list) return undefined;
      const first = list.items[0];
      if (!first) return { newest: null, offline: list.offline === true };
      let digest = await store.cachedDigest(siteId, first.item.id);
      let tooLarge = store.isTooLarge(siteId, first.item.id);
      // A content is read only when its digest is needed, is not known, and is not known to be too large to read.
      if (digest === undefined && !tooLarge && wanted && mode === 'refresh' && !list.offline) {
        try {
          await store.content(siteId, first.item.id, read(signal));
          digest = store.digestOf(siteId, first.item.id);
        } catch (e) {
          if (!isTooLarge(e)) throw e;
          tooLarge = true;
        }
      }
      return { newest: newestOf(first, digest, tooLarge), offline: list.offline === true };
    },
  };
}

function newestOf(d: { item: { id: string; date: string; author: string }; time: number | undefined } | undefined, digest: string | undefined, tooLarge = false): NewestRevision | null {
  return d ? { id: d.item.id, date: d.item.date, author: d.item.author, time: d.time, digest, ...(tooLarge && digest === undefined ? { tooLarge: true } : {}) } : null;
}

export interface ScanOptions {
  signal?: AbortSignal;
  /** Files read at once (default 12: working files and store reads; the scheduler bounds the requests in flight, twice its default, so that requests stay in flight while replies are stored). */
  concurrency?: number;
  /** Only these site paths (default: every entry whose state is not known). */
  paths?: readonly string[];
  /** A working file as the editor has it (unsaved edits), instead of the disk's. */
  override?: (relative: string) => WorkingFile | undefined;
  /**
   * Reads a working file from disk instead of readWorking (the caller's bookkeeping around it);
   * undefined: keep what the entry has (a newer look at the file has set it meanwhile).
   */
  readWorking?: (relative: string, signal?: AbortSignal) => Promise<WorkingFile | null | undefined>;
  /** The largest working file compared, and the budget of bytes in flight (readWorking's options). */
  maxBytes?: number;
  budget?: ReadBudget;
  /** Called after each file (a view redraws now and then). */
  onFile?: (entry: StatusEntry) => void;
  /** The most local files walked for the count of those with no revision (0: not counted). */
  walkMax?: number;
}

export interface ScanResult {
  /** The site's list could not be read this way (cached mode with nothing cached). */
  noList: boolean;
  /** Something came from the disk cache because the service could not be reached. */
  offline: boolean;
  /** Files whose newest revision could not be read (not offline: another failure). */
  failed: number;
  /** The first such failure. */
  error?: unknown;
}

/**
 * Reads the status of the folder into `status`: the site's list (entries of paths no longer
 * listed go), then each file's newest revision and working file. Once the service cannot be
 * reached, nothing more is asked of it (the files left keep what was known).
 */
export async function scanStatus(status: FolderStatus, source: StatusSource, working: WorkingFs, digests: DigestCache, o: ScanOptions = {}): Promise<ScanResult> {
  const result: ScanResult = { noList: false, offline: false, failed: 0 };
  let files: Awaited<ReturnType<StatusSource['siteFiles']>>;
  try {
    files = await source.siteFiles(o.signal);
  } catch (e) {
    if (!source.isOffline?.(e)) throw e;
    return { ...result, offline: true };
  }
  if (!files) return { ...result, noList: true };
  result.offline = files.offline;
  status.setSiteFiles(files.paths);
  const todo = o.paths ? o.paths.map((p) => status.get(p)).filter((e): e is StatusEntry => !!e) : status.all();
  let next = 0;
  const read = o.readWorking ?? ((relative: string, signal?: AbortSignal) => readWorking(working, relative, digests, { ...(signal ? { signal } : {}), ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}), ...(o.budget ? { budget: o.budget } : {}) }));
  const worker = async () => {
    while (next < todo.length && !o.signal?.aborted) {
      const entry = todo[next++]!;
      const local = o.override?.(entry.relative);
      if (local) entry.working = local;
      else {
        let w: WorkingFile | null | undefined;
        try {
          w = await read(entry.relative, o.signal);
        } catch (e) {
          if (o.signal?.aborted) break;
          throw e;
        }
        if (w !== undefined) entry.working = w;
      }
      // Once the service cannot be reached, only the caches are read.
      if (!result.offline || !source.asks) {
        try {
          // A content's digest is only needed to compare a working file that is there and compared.
          const w = entry.working;
          const got = await source.newest(entry.path, o.signal, { digest: !!w && !w.notCompared });
          if (got) {
            const known = entry.newest;
            // An offline list is the last known one: a newest revision known before stays.
            if (!(got.offline && known)) entry.newest = got.newest;
            // The same revision whose content is not cached keeps the digest known before (a snapshot), or that it is too large.
            if (got.newest && known && got.newest.id === known.id && got.newest.digest === undefined) {
              got.newest.digest = known.digest;
              if (known.tooLarge) got.newest.tooLarge = true;
            }
            if (got.offline) result.offline = true;
          }
        } catch (e) {
          if (o.signal?.aborted) break;
          if (source.isOffline?.(e)) result.offline = true;
          else {
            result.failed++;
            result.error ??= e;
          }
        }
      }
      o.onFile?.(entry);
    }
  };
  const walk = o.walkMax ? working.list(o.walkMax, o.signal) : undefined;
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 12, Math.max(1, todo.length)) }, worker));
  const local = await walk;
  if (local && !o.signal?.aborted) status.setLocalFiles(local.files, local.complete);
  return result;
}

/**
 * The working files whose size, time or presence differ from what the status last saw (a stat of
 * each, `concurrency` at once; nothing is read): what a file watcher should have reported. VS
 * Code's watcher misses changes (seen here: every change in folders made in quick succession, for
 * as long as the window is open), so the source control looks for itself now and then.
 * Entries not looked at yet, and those `skip` names (unsaved edits), are left out.
 */
export async function changedOnDisk(status: FolderStatus, working: WorkingFs, o: { signal?: AbortSignal; concurrency?: number; skip?: (relative: string) => boolean } = {}): Promise<string[]> {
  const seen = new Map<string, WorkingFile | null>();
  for (const e of status.all()) if (e.working !== undefined && !seen.has(e.relative) && !o.skip?.(e.relative)) seen.set(e.relative, e.working);
  const todo = [...seen];
  const changed: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < todo.length && !o.signal?.aborted) {
      const [relative, known] = todo[next++]!;
      const st = await working.stat(relative);
      if (!st ? known !== null : !known || known.size !== st.size || known.mtime !== st.mtime) changed.push(relative);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 8, Math.max(1, todo.length)) }, worker));
  return o.signal?.aborted ? [] : changed;
}

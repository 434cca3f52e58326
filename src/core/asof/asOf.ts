// Pure (no `vscode`): a site (or a folder of it) as it was at a moment — for every file of the
// scope, the newest revision dated at or before the moment. A file whose revisions are all later
// "did not exist yet"; a file the service lists with no revision at all is not part of the
// site's history, and neither is one whose revision dates cannot be read (counted: `undated`).
// Without a moment, each file's newest revision (what "compare two sites" uses by default).
//
// Reads go through the revision store (src/core/model/revisionStore.ts): its memory and disk caches, the
// request scheduler, the signed-in account's isolation. Every read is at background priority
// with the run's signal, a few files at a time (./pool.ts): one Get Revision Files, one Get
// Revisions (no content) per file, and — when the caller wants contents (restore, export,
// compare) — one Get Revision of the chosen revision, handed over as soon as it is in (nothing
// holds more than a few contents at once). A second run over cached history sends no content
// request; a cancelled run reads nothing more and hands over nothing more.
import type { Dated } from '../model/ordering';
import { displayPath, naturalCompare } from '../model/folders';
import type { ReadOptions, RevisionItem } from '../model/revisionStore';
import { runPool } from './pool';

/** What the run reads (the RevisionStore has it). */
export interface AsOfReads {
  siteFiles(siteId: string, o: ReadOptions): Promise<{ readonly files: readonly { readonly path: string }[] }>;
  /** Newest first (unreadable dates last), as the store sorts them. */
  revisions(siteId: string, path: string, o: ReadOptions): Promise<{ readonly items: readonly Dated<RevisionItem>[] }>;
  content(siteId: string, revisionId: string, o: ReadOptions): Promise<Uint8Array>;
  /** The SHA-256 of a content seen before (memory, or the disk store's index), without a request. */
  storedDigest(siteId: string, revisionId: string): Promise<string | undefined>;
}

/** A revision as listed, with its parsed time (undefined: the date could not be read). */
export interface AtRevision extends RevisionItem {
  time: number | undefined;
}

export interface AsOfFile {
  /** The exact path the service sent. */
  path: string;
  /** Its display path relative to the scope's folder (what two sites are matched by). */
  rel: string;
  revision: AtRevision;
}

export interface NotYetFile {
  path: string;
  rel: string;
  /** Its oldest revision (after the moment). */
  first: AtRevision;
}

export interface AsOfProgress {
  phase: 'listing' | 'reading' | 'done' | 'cancelled';
  /** Files finished (with or without success). */
  done: number;
  /** Files in the scope; undefined while they are being listed. */
  total: number | undefined;
  failed: number;
}

export interface AsOfResult {
  siteId: string;
  /** The folder of the scope (display key), '' for the whole site. */
  folder: string;
  /** Epoch ms; undefined: each file's newest revision. */
  moment: number | undefined;
  /** Files as of the moment, in natural order of `rel`. */
  files: AsOfFile[];
  /** Files whose first revision is after the moment. */
  notYet: NotYetFile[];
  /** Files none of whose revision dates can be read (they cannot be placed before or after). */
  undated: number;
  /** Files whose list (or content) could not be read. */
  failures: { path: string; error: unknown }[];
  cancelled: boolean;
  /** Files in the scope. */
  total: number;
}

export interface ContentSink {
  /** Whether this file's content is wanted (default: every file's). */
  want?(file: AsOfFile): boolean;
  /** A file's content, as soon as it is in; awaited before the worker takes its next file. */
  take(file: AsOfFile, bytes: Uint8Array, signal: AbortSignal): void | Promise<void>;
}

export interface AsOfOptions {
  reads: AsOfReads;
  siteId: string;
  /** A folder of the site (the revisions tree's key: display segments joined with `/`); absent or '': the whole site. */
  folder?: string;
  moment?: number;
  signal?: AbortSignal;
  /** Files worked on at once (default 8: a little over the scheduler's 6, so its slots never wait for this side). */
  concurrency?: number;
  onProgress?: (p: AsOfProgress) => void;
  /** Read the chosen revisions' contents and hand them over. */
  contents?: ContentSink;
}

export const AS_OF_CONCURRENCY = 8;

/** The scope's files (each once, natural order of their relative path), with their relative path. */
export function filesOfScope(paths: readonly string[], folder: string | undefined): { path: string; rel: string }[] {
  const prefix = folder ? `${folder}/` : '';
  const seen = new Set<string>();
  const out: { path: string; rel: string }[] = [];
  for (const path of paths) {
    if (typeof path !== 'string' || path === '' || seen.has(path)) continue;
    const shown = displayPath(path);
    if (prefix && !shown.startsWith(prefix)) continue;
    seen.add(path);
    out.push({ path, rel: shown.slice(prefix.length) });
  }
  return out.sort((a, b) => naturalCompare(a.rel, b.rel) || naturalCompare(a.path, b.path));
}

const at = (d: Dated<RevisionItem>): AtRevision => ({ id: d.item.id, date: d.item.date, author: d.item.author, time: d.time });

/**
 * The revision of a file as of `moment` (newest first list): the newest dated at or before it;
 * `notYet` with its oldest revision when every dated one is later; `none` when no date can be
 * read. Without a moment: the newest revision.
 */
export function pickAsOf(items: readonly Dated<RevisionItem>[], moment: number | undefined): { kind: 'at'; revision: AtRevision } | { kind: 'notYet'; first: AtRevision } | { kind: 'none' } {
  const dated = items.filter((d) => d.time !== undefined);
  if (moment === undefined) return items.length ? { kind: 'at', revision: at(dated[0] ?? items[0]!) } : { kind: 'none' };
  if (!dated.length) return { kind: 'none' };
  const found = dated.find((d) => d.time! <= moment);
  return found ? { kind: 'at', revision: at(found) } : { kind: 'notYet', first: at(dated[dated.length - 1]!) };
}

/** The site (or folder) as of the moment. See the header. */
export async function siteAsOf(o: AsOfOptions): Promise<AsOfResult> {
  const result: AsOfResult = { siteId: o.siteId, folder: o.folder ?? '', moment: o.moment, files: [], notYet: [], undated: 0, failures: [], cancelled: false, total: 0 };
  const progress: AsOfProgress = { phase: 'listing', done: 0, total: undefined, failed: 0 };
  const report = () => o.onProgress?.({ ...progress });
  const read = (signal: AbortSignal | undefined): ReadOptions => ({ ...(signal ? { signal } : {}), priority: 'background' });
  report();
  if (o.signal?.aborted) return finish(result, progress, true, report);
  let listed: Awaited<ReturnType<AsOfReads['siteFiles']>>;
  try {
    listed = await o.reads.siteFiles(o.siteId, read(o.signal));
  } catch (e) {
    // Cancelled while the files were listed: the read says so with its own error.
    if (o.signal?.aborted) return finish(result, progress, true, report);
    throw e;
  }
  if (o.signal?.aborted) return finish(result, progress, true, report);
  const scope = filesOfScope(
    listed.files.map((f) => f.path),
    o.folder,
  );
  const relOf = new Map(scope.map((f) => [f.path, f.rel]));
  result.total = scope.length;
  progress.phase = 'reading';
  progress.total = scope.length;
  report();
  const picked = new Map<string, AsOfFile | NotYetFile | null>();
  const summary = await runPool(
    scope.map((f) => f.path),
    { concurrency: o.concurrency ?? AS_OF_CONCURRENCY, signal: o.signal, progress, report },
    async (path, signal) => {
      const list = await o.reads.revisions(o.siteId, path, read(signal));
      const p = pickAsOf(list.items, o.moment);
      const rel = relOf.get(path)!;
      if (p.kind === 'none') return void picked.set(path, null);
      if (p.kind === 'notYet') return void picked.set(path, { path, rel, first: p.first });
      const file: AsOfFile = { path, rel, revision: p.revision };
      if (o.contents && (o.contents.want?.(file) ?? true)) {
        const bytes = await o.reads.content(o.siteId, file.revision.id, read(signal));
        if (signal.aborted) return;
        await o.contents.take(file, bytes, signal);
      }
      if (!signal.aborted) picked.set(path, file);
    },
  );
  result.failures = summary.failures;
  // In the scope's order, whatever order the files finished in.
  for (const { path } of scope) {
    const p = picked.get(path);
    if (p === null) result.undated++;
    else if (p && 'revision' in p) result.files.push(p);
    else if (p) result.notYet.push(p);
  }
  return finish(result, progress, summary.cancelled, report);
}

function finish(result: AsOfResult, progress: AsOfProgress, cancelled: boolean, report: () => void): AsOfResult {
  result.cancelled = cancelled;
  progress.phase = cancelled ? 'cancelled' : 'done';
  report();
  return result;
}

// Pure (no `vscode`): two sites (say staging and production), or a folder of each, compared file
// by file — by their newest revisions, or as of a moment (./asOf.ts on each side; a side of its
// own moment: one site as of then against its newest revisions).
//
// Files are matched by their display path relative to each side's folder, exactly (a site's
// `a.php` and the other's `A.php` are two files). A pair is the same when it is the same revision
// of the same site, or when the contents' SHA-256 are equal: known without a request for every
// content either side has seen (the store's memory, or the disk store's index), so an identical
// pair whose contents are cached costs no content request. Otherwise the content is read (through
// the store, at background priority, a few at a time). Files one side has and the other has not
// (or not yet, as of the moment) are listed apart.
import { digest } from '../model/revisionStore';
import { naturalCompare } from '../model/folders';
import { siteAsOf, AS_OF_CONCURRENCY, type AsOfFile, type AsOfReads, type AsOfResult } from './asOf';
import { breathe, runPool } from './pool';

export interface CompareSide {
  siteId: string;
  /** A folder of the site (display key); absent or '': the whole site. */
  folder?: string;
  /** As of this moment (epoch ms); absent: each file's newest revision. */
  moment?: number;
}

export interface ComparePair {
  rel: string;
  a: AsOfFile;
  b: AsOfFile;
}

export interface CompareProgress {
  phase: 'listing' | 'comparing' | 'done' | 'cancelled';
  done: number;
  /** Files of both sides while listing, then the pairs whose contents are read; undefined while unknown. */
  total: number | undefined;
  failed: number;
}

export interface CompareResult {
  a: AsOfResult;
  b: AsOfResult;
  /** Pairs whose contents differ, in natural order of their path. */
  differ: ComparePair[];
  /** Pairs with the same content. */
  same: number;
  onlyA: AsOfFile[];
  onlyB: AsOfFile[];
  /** Pairs that could not be compared (a content could not be read), and files whose list could not be read. */
  failures: { path: string; error: unknown }[];
  cancelled: boolean;
  /** Contents read to compare (from a cache or the service): 0 when every digest was known. */
  contentReads: number;
}

export interface CompareOptions {
  reads: AsOfReads;
  a: CompareSide;
  b: CompareSide;
  signal?: AbortSignal;
  concurrency?: number;
  onProgress?: (p: CompareProgress) => void;
}

export async function compareSites(o: CompareOptions): Promise<CompareResult> {
  const progress: CompareProgress = { phase: 'listing', done: 0, total: undefined, failed: 0 };
  const report = () => o.onProgress?.({ ...progress });
  const sides = { a: { done: 0, total: undefined as number | undefined, failed: 0 }, b: { done: 0, total: undefined as number | undefined, failed: 0 } };
  const side = (which: 'a' | 'b') =>
    siteAsOf({
      reads: o.reads,
      siteId: o[which].siteId,
      ...(o[which].folder ? { folder: o[which].folder } : {}),
      ...(o[which].moment !== undefined ? { moment: o[which].moment } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.concurrency ? { concurrency: o.concurrency } : {}),
      onProgress: (p) => {
        sides[which] = { done: p.done, total: p.total, failed: p.failed };
        progress.done = sides.a.done + sides.b.done;
        progress.failed = sides.a.failed + sides.b.failed;
        progress.total = sides.a.total === undefined || sides.b.total === undefined ? undefined : sides.a.total + sides.b.total;
        report();
      },
    });
  const [a, b] = await Promise.all([side('a'), side('b')]);
  const result: CompareResult = { a, b, differ: [], same: 0, onlyA: [], onlyB: [], failures: [...a.failures, ...b.failures], cancelled: a.cancelled || b.cancelled, contentReads: 0 };
  if (result.cancelled) return ended(result, progress, report);

  const inB = new Map<string, AsOfFile>();
  for (const f of b.files) if (!inB.has(f.rel)) inB.set(f.rel, f);
  const matched = new Set<AsOfFile>();
  const pairs: ComparePair[] = [];
  for (const f of a.files) {
    const other = inB.get(f.rel);
    if (!other || matched.has(other)) result.onlyA.push(f);
    else {
      matched.add(other);
      pairs.push({ rel: f.rel, a: f, b: other });
    }
  }
  result.onlyB = b.files.filter((f) => !matched.has(f));

  // The digests known without reading anything; the rest are read.
  const known = new Map<string, string>();
  const key = (siteId: string, f: AsOfFile) => `${siteId}\u0000${f.revision.id}`;
  const digestOf = async (siteId: string, f: AsOfFile) => {
    const k = key(siteId, f);
    let d = known.get(k);
    if (d === undefined && (d = await o.reads.storedDigest(siteId, f.revision.id)) !== undefined) known.set(k, d);
    return d;
  };
  const verdict = new Map<ComparePair, boolean>();
  const unknown: ComparePair[] = [];
  for (const p of pairs) {
    await breathe();
    if (o.signal?.aborted) return ended({ ...result, cancelled: true }, progress, report);
    if (o.a.siteId === o.b.siteId && p.a.revision.id === p.b.revision.id) {
      verdict.set(p, true);
      continue;
    }
    const [da, db] = [await digestOf(o.a.siteId, p.a), await digestOf(o.b.siteId, p.b)];
    if (da !== undefined && db !== undefined) verdict.set(p, da === db);
    else unknown.push(p);
  }
  progress.phase = 'comparing';
  progress.done = 0;
  progress.failed = 0;
  progress.total = unknown.length;
  report();
  const byRel = new Map(unknown.map((p) => [p.rel, p]));
  const readDigest = async (siteId: string, f: AsOfFile, signal: AbortSignal) => {
    const k = key(siteId, f);
    const d = known.get(k);
    if (d !== undefined) return d;
    const bytes = await o.reads.content(siteId, f.revision.id, { signal, priority: 'background' });
    result.contentReads++;
    const fresh = digest(bytes);
    known.set(k, fresh);
    return fresh;
  };
  const summary = await runPool(
    unknown.map((p) => p.rel),
    { concurrency: o.concurrency ?? AS_OF_CONCURRENCY, signal: o.signal, progress, report },
    async (rel, signal) => {
      const p = byRel.get(rel)!;
      const da = await readDigest(o.a.siteId, p.a, signal);
      const db = await readDigest(o.b.siteId, p.b, signal);
      if (!signal.aborted) verdict.set(p, da === db);
    },
  );
  result.failures.push(...summary.failures);
  result.cancelled = summary.cancelled;
  for (const p of pairs) {
    const v = verdict.get(p);
    if (v === true) result.same++;
    else if (v === false) result.differ.push(p);
  }
  result.differ.sort((x, y) => naturalCompare(x.rel, y.rel));
  return ended(result, progress, report);
}

function ended(result: CompareResult, progress: CompareProgress, report: () => void): CompareResult {
  progress.phase = result.cancelled ? 'cancelled' : 'done';
  report();
  return result;
}

// One sample of the "scale" figures, in a fresh Node process started with --expose-gc (the
// first, cold call is what the extension pays: it builds a site's model once per session):
//  - the folder model of the large site's 100,000 revision paths (time; heap retained by it);
//  - the 10,000 revisions of big/history.txt from the client's reply to the first page shown
//    (the store's de-duplication and newest-first sort, then the page).
// Prints one JSON line on stdout.
import { performance } from 'node:perf_hooks';
import { parseEnvelope, toFiles, toRevisions } from '../src/core/api/validate';
import { noRedaction } from '../src/core/util/redact';
import type { RevisionSummary } from '../src/core/api/types';
import { buildFolderModel, flatFiles, type FolderModel } from '../src/core/model/folders';
import { pageOf } from '../src/core/model/paging';
import { RevisionStore, type RevisionSource } from '../src/core/model/revisionStore';
import { HISTORY_PATH, LARGE_SITE_ID, LargeData } from '../test/server/large';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  process.stderr.write('scaleChild: run with --expose-gc\n');
  process.exit(2);
}
const fullGc = (): void => {
  gc();
  gc();
};
const heap = (): number => process.memoryUsage().heapUsed;

const WARM_RUNS = Number(process.env.BENCH_SCALE_WARM ?? 5);
const PAGE = 50;

/** Times `fn` once. */
async function time<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  // The service's data, as the extension receives it: the reply's JSON text, parsed.
  const { filesBody, revisionsBody } = replies();
  const siteId = String(LARGE_SITE_ID);
  fullGc();

  // ---- folder model: heap before the reply is parsed, with the paths, with the model
  const h0 = heap();
  let paths: string[] | undefined = toFilesOf(filesBody);
  fullGc();
  const h1 = heap();
  const cold = await time(() => buildFolderModel(paths!));
  let model: FolderModel | undefined = cold.value;
  // What the tree shows first: the site's top level (sorts the root's children).
  const firstLevel = await time(() => model!.root.folders.length + model!.root.files.length);
  fullGc();
  const h2 = heap();
  const fileCount = model.files.length;
  const folderStats = countFolders(model);
  // The flat layout sorts every path once (a setting; not what the default tree does).
  const flat = await time(() => flatFiles(model!).length);
  model = undefined;
  fullGc();
  const warm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    const r = await time(() => buildFolderModel(paths!));
    warm.push(r.ms);
  }
  paths = undefined;
  fullGc();

  // ---- 10,000 revisions: from the parsed reply to the first page (what RevisionStore.revisions
  // and the tree's pageOf do), then the same from the reply's text (with the client's validation).
  const parsedRevisions = toRevisionsOf(revisionsBody);
  const fromReply = async (list: () => RevisionSummary[]) => {
    const source: RevisionSource = {
      getRevisionFiles: () => Promise.reject(new Error('not used')),
      getRevisions: () => Promise.resolve(list()),
      getRevision: () => Promise.reject(new Error('not used')),
    };
    const store = new RevisionStore((fn) => fn(source), 64 * 1024 * 1024);
    const r = await store.revisions(siteId, HISTORY_PATH);
    return pageOf(r.items, PAGE, PAGE);
  };
  const orderCold = await time(() => fromReply(() => parsedRevisions));
  if (orderCold.value.items.length !== PAGE || orderCold.value.remaining !== 10_000 - PAGE) throw new Error('unexpected page');
  const newest = orderCold.value.items[0]!.item.id;
  const orderWarm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) orderWarm.push((await time(() => fromReply(() => parsedRevisions))).ms);
  const bodyCold = await time(() => fromReply(() => toRevisionsOf(revisionsBody)));
  const bodyWarm: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) bodyWarm.push((await time(() => fromReply(() => toRevisionsOf(revisionsBody)))).ms);

  const out = {
    folderModel: {
      files: fileCount,
      folders: folderStats,
      coldMs: cold.ms,
      warmMedianMs: median(warm),
      firstLevelMs: firstLevel.ms,
      flatLayoutMs: flat.ms,
      pathsHeapBytes: h1 - h0,
      modelHeapBytes: h2 - h1,
      replyBytes: Buffer.byteLength(filesBody),
    },
    ordering: {
      revisions: parsedRevisions.length,
      page: PAGE,
      newestId: newest,
      coldMs: orderCold.ms,
      warmMedianMs: median(orderWarm),
      fromBodyColdMs: bodyCold.ms,
      fromBodyWarmMedianMs: median(bodyWarm),
      replyBytes: Buffer.byteLength(revisionsBody),
    },
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

/** The reply bodies of Get Revision Files (site 900000) and Get Revisions (big/history.txt), as the service sends them. */
function replies(): { filesBody: string; revisionsBody: string } {
  const large = new LargeData();
  return {
    filesBody: JSON.stringify({ success: true, files: large.paths }),
    revisionsBody: JSON.stringify({ success: true, revisions: large.revisions(HISTORY_PATH, false) }),
  };
}

function toFilesOf(body: string): string[] {
  return toFiles('Get Revision Files', parseEnvelope('Get Revision Files', body, 'application/json', noRedaction), noRedaction);
}

function toRevisionsOf(body: string): RevisionSummary[] {
  return toRevisions('Get Revisions', parseEnvelope('Get Revisions', body, 'application/json', noRedaction), noRedaction);
}

function countFolders(model: FolderModel): number {
  let n = 0;
  const walk = (f: FolderModel['root']) => {
    for (const c of f._folders ?? []) {
      n++;
      walk(c);
    }
  };
  walk(model.root);
  return n;
}

main().catch((e: unknown) => {
  process.stderr.write(`scaleChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

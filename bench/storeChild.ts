// One sample of the disk store figures, in a fresh Node process (no cache in the process; the
// operating system's page cache is allowed):
//   node storeChild.js prepare <folder>    fills a store: 2,000 small revisions, one of 100 KB,
//                                          and the 100,000-file list of the large site; compacts
//   node storeChild.js revision <folder>   opens it and reads the 100 KB revision (store → bytes)
//   node storeChild.js files <folder>      opens it, reads the file list and builds the folder model
// Prints one JSON line on stdout.
import { performance } from 'node:perf_hooks';
import { buildFolderModel } from '../src/core/model/folders';
import { DiskStore } from '../src/core/store';
import { LARGE_SITE_ID, LargeData } from '../test/server/large';

const SITE = String(LARGE_SITE_ID);
export const REVISION_BYTES = 100 * 1024;
const MAX_BYTES = 512 * 1024 * 1024;

function revisionText(bytes: number, seed: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const line = `${String(n).padStart(6, '0')}  const value${(n * 7 + seed) % 997} = compute(${n}, "${seed}"); // keep in sync\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('').slice(0, bytes);
}

async function main(): Promise<void> {
  const [mode, folder] = process.argv.slice(2);
  if (!folder) throw new Error('usage: storeChild.js prepare|revision|files <folder>');
  const problems: string[] = [];
  const t0 = performance.now();
  const store = new DiskStore(folder, { maxBytes: MAX_BYTES, log: (m) => problems.push(m) });
  await store.ready;
  const openMs = performance.now() - t0;
  let out: Record<string, unknown>;
  switch (mode) {
    case 'prepare': {
      for (let i = 0; i < 2000; i++) await store.putContent(SITE, `small-${i}`, revisionText(2048, i));
      await store.putContent(SITE, 'revision-100k', revisionText(REVISION_BYTES, 1));
      const paths = new LargeData().paths;
      await store.put({ kind: 'files', siteId: SITE }, paths);
      await store.compact();
      out = { stats: store.stats(), files: paths.length };
      break;
    }
    case 'revision': {
      const t1 = performance.now();
      const bytes = await store.getContent(SITE, 'revision-100k');
      const readMs = performance.now() - t1;
      if (bytes?.byteLength !== REVISION_BYTES) throw new Error(`read ${bytes?.byteLength} bytes`);
      out = { openMs, readMs, bytes: bytes.byteLength, entries: store.stats().entries };
      break;
    }
    case 'files': {
      const t1 = performance.now();
      const cached = await store.peek({ kind: 'files', siteId: SITE });
      const t2 = performance.now();
      if (!cached) throw new Error('no file list on disk');
      const model = buildFolderModel(cached.value);
      const t3 = performance.now();
      // What the tree shows first: the site's top level.
      if (!(model.root.folders.length + model.root.files.length)) throw new Error('empty model');
      out = { openMs, peekMs: t2 - t1, modelMs: t3 - t2, listToModelMs: t3 - t1, files: model.files.length };
      break;
    }
    default:
      throw new Error(`unknown mode ${mode}`);
  }
  await store.dispose();
  if (problems.length) throw new Error(`the store reported: ${problems.join('; ')}`);
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`storeChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

// A second process on a disk store folder, for the store's unit tests (a window of its own):
//   node storeChild.js kill-before-rename <folder>   stores the list ["v1.txt"], then starts
//       storing ["v2.txt"] and stops between writing the temporary file and renaming it
//       (prints "PAUSED <temp file>"), waiting to be killed;
//   node storeChild.js writer <folder> <tag> <n>     stores n contents "<tag>-<i>" under site
//       <tag>, compacting halfway, then prints "DONE".
import * as fs from 'node:fs';
import { DiskStore } from '../../../src/core/store';

async function main(): Promise<void> {
  const [mode, folder, tag, count] = process.argv.slice(2);
  const store = new DiskStore(folder!, { maxBytes: 64 * 1024 * 1024, log: (m) => process.stderr.write(`[store child] ${m}\n`) });
  await store.ready;
  if (mode === 'kill-before-rename') {
    await store.put({ kind: 'files', siteId: '1' }, ['v1.txt']);
    // The next atomic write stops right before its rename, as if the process were killed there.
    fs.promises.rename = (from: fs.PathLike) => {
      process.stdout.write(`PAUSED ${String(from)}\n`);
      // Alive until killed: a promise that never settles holds no handle, and Node would exit on
      // its own (the test then saw no SIGKILL on a loaded machine, where the kill came later).
      setInterval(() => undefined, 60_000);
      return new Promise<void>(() => undefined);
    };
    await store.put({ kind: 'files', siteId: '1' }, ['v2.txt']);
    return;
  }
  if (mode === 'writer') {
    const n = Number(count);
    for (let i = 0; i < n; i++) {
      if (!(await store.putContent(tag!, String(i), `${tag}-${i}`))) throw new Error(`could not store ${i}`);
      if (i === n >> 1) await store.compact();
    }
    await store.dispose();
    process.stdout.write('DONE\n');
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

main().catch((e: unknown) => {
  process.stderr.write(`storeChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

// The blame code is a chunk of its own in the extension's build: whatever imports
// src/blame/load.ts gets `require('./blame.js')` on first use, not the blame code or its diff
// package (esbuild.mjs). Built here with the project's own esbuild options, into a temporary
// folder, from a small entry that stands for the extension.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions } from 'esbuild';
import type { BlameModule } from '../../src/blame/load';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

describe('blame: a chunk of its own in the bundle', function () {
  this.timeout(60_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-blame-chunk-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the loader becomes require("./blame.js"); that chunk holds the blame code and the diff package, and works', async () => {
    const esbuild = await import('esbuild');
    const { options } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { options: BuildOptions };
    const entry = path.join(dir, 'entry.ts');
    fs.writeFileSync(entry, `export { loadBlame } from ${JSON.stringify(path.join(repoRoot, 'src', 'blame', 'load.ts'))};\n`);
    const out = path.join(dir, 'dist');
    const result = await esbuild.build({ ...options, entryPoints: { entry, blame: path.join(repoRoot, 'src', 'blame', 'index.ts') }, outdir: out, sourcemap: false, logLevel: 'silent' });
    assert.deepEqual(result.errors, []);
    const meta = result.metafile!;
    const inputsOf = (file: string) => Object.keys(meta.outputs[path.relative(process.cwd(), path.join(out, file)).split(path.sep).join('/')]?.inputs ?? {});
    const entryInputs = inputsOf('entry.js');
    const blameInputs = inputsOf('blame.js');
    assert.ok(entryInputs.length, 'the entry was built');
    assert.deepEqual(entryInputs.filter((i) => /src\/blame\/(?!load\.ts)|fast-myers-diff/.test(i)), [], 'the entry holds only the loader');
    assert.ok(blameInputs.some((i) => i.includes('node_modules/fast-myers-diff/')), 'the chunk holds the diff package');
    assert.ok(blameInputs.some((i) => i.endsWith('src/blame/blame.ts')), 'the chunk holds the blame code');
    assert.match(fs.readFileSync(path.join(out, 'entry.js'), 'utf8'), /require\("\.\/blame\.js"\)/);

    // Loaded the way the extension loads it: on the first call, once.
    const load = createRequire(__filename);
    const chunk = load.resolve(path.join(out, 'blame.js'));
    const { loadBlame } = load(path.join(out, 'entry.js')) as { loadBlame: () => Promise<BlameModule> };
    assert.equal(load.cache[chunk], undefined, 'not loaded before the first call');
    const m = await loadBlame();
    assert.ok(load.cache[chunk], 'loaded by the first call');
    assert.equal(await loadBlame(), m);
    const a = m.BlameHistory.of(['a\nb\n', 'a\nx\nb\n']).attribute('a\nx\nb\nc\n');
    assert.deepEqual(Array.from(a.revisions), [0, 1, 0, m.LOCAL, 0]);
  });
});

// History Search, Site Changes and the language-model tools are a chunk of their own in the
// extension's build (dist/history.js): activation neither parses nor runs them; the chunk
// imports every other module of the extension from the running bundle (src/history/host.ts)
// instead of carrying a copy. Built here with the project's own esbuild options into a temporary
// folder. That the shipped chunk works in the real workbench is the installed-.vsix Smoke suite's
// "History Search, a chunk of its own…".
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';
import { HISTORY_COMMANDS, OPEN_CHANGE_COMMAND, OPEN_RESULT_COMMAND } from '../../src/history/names';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const CHUNK = /^src\/(searchView|search|lm)\/|^src\/history\/chunk\.ts$/;

describe('History Search and the language-model tools: a chunk of their own in the bundle', function () {
  this.timeout(60_000);
  let dir: string;
  let meta: Metafile;
  let out: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-history-chunk-'));
    out = path.join(dir, 'dist');
    const esbuild = await import('esbuild');
    const { options, historyOptions } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { options: BuildOptions; historyOptions: BuildOptions };
    const cwd = process.cwd();
    process.chdir(repoRoot); // the entry points are relative to the repository
    try {
      const [main, chunk] = await Promise.all([
        esbuild.build({ ...options, entryPoints: { extension: 'src/extension.ts' }, outdir: out, sourcemap: false, logLevel: 'silent' }),
        esbuild.build({ ...historyOptions, outdir: out, sourcemap: false, logLevel: 'silent' }),
      ]);
      assert.deepEqual([...main.errors, ...chunk.errors], []);
      meta = { inputs: { ...main.metafile!.inputs, ...chunk.metafile!.inputs }, outputs: { ...main.metafile!.outputs, ...chunk.metafile!.outputs } };
    } finally {
      process.chdir(cwd);
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const inputsOf = (file: string) => {
    const key = Object.keys(meta.outputs).find((k) => k.endsWith(`/${file}`) && !k.endsWith('.map'));
    assert.ok(key, `${file} was built`);
    return Object.keys(meta.outputs[key].inputs);
  };

  it('the extension holds none of the chunk’s code, and loads it with require("./history.js")', () => {
    const inputs = inputsOf('extension.js');
    assert.ok(inputs.some((i) => i === 'src/history/shell.ts'), 'the stand-ins are in the extension');
    assert.deepEqual(inputs.filter((i) => CHUNK.test(i)), []);
    assert.match(fs.readFileSync(path.join(out, 'extension.js'), 'utf8'), /require\("\.\/history\.js"\)/);
  });

  it('the chunk holds its own code only: every other module of the extension, and vscode, comes from the running bundle', () => {
    const inputs = inputsOf('history.js');
    for (const f of ['src/searchView/historyView.ts', 'src/search/scan.ts', 'src/lm/tools.ts', 'src/history/chunk.ts']) assert.ok(inputs.includes(f), `${f} is in the chunk`);
    assert.deepEqual(inputs.filter((i) => i.startsWith('src/') && !CHUNK.test(i)), [], 'no copy of a module of the extension');
    const hosted = inputs.filter((i) => i.startsWith('history-host:')).map((i) => i.slice('history-host:'.length));
    for (const m of ['vscode', 'revisions/nodes', 'api/errors', 'tree/node', 'ui/context']) assert.ok(hosted.includes(m), `${m} comes from the extension (${hosted.join(', ')})`);
    const text = fs.readFileSync(path.join(out, 'history.js'), 'utf8');
    assert.match(text, /^module\.exports = \(__siteRevisionsHost\) => \{/);
  });

  it('the commands registered at activation for the chunk are exactly those it registers', () => {
    const constants: Record<string, string> = { OPEN_RESULT_COMMAND, OPEN_CHANGE_COMMAND };
    const registered = new Set<string>();
    for (const f of fs.readdirSync(path.join(repoRoot, 'src', 'searchView'))) {
      const text = fs.readFileSync(path.join(repoRoot, 'src', 'searchView', f), 'utf8');
      for (const m of text.matchAll(/registerCommand\(\s*(?:'([\w.]+)'|([A-Z_]+))/g)) registered.add(m[1] ?? constants[m[2]!] ?? `unknown constant ${m[2]}`);
    }
    assert.deepEqual([...registered].sort(), [...HISTORY_COMMANDS].sort());
  });
});

// History Search, Site Changes and the language-model tools (dist/history.js), the editor
// features (dist/blameView.js) and the site editor's host side (dist/siteEditorHost.js) are
// chunks of their own in the extension's build: activation neither parses nor runs them; a chunk
// imports every other module of the extension from the running bundle (src/chunks/host.ts)
// instead of carrying a copy. Built here with the project's own esbuild options into a temporary
// folder. That the shipped chunks work in the real workbench is the installed-.vsix Smoke suite's
// "…, a chunk of its own…" tests.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';
import { BLAME_VIEW_COMMANDS } from '../../src/blameView/names';
import { HISTORY_COMMANDS, OPEN_CHANGE_COMMAND, OPEN_RESULT_COMMAND } from '../../src/history/names';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const HISTORY = /^src\/(searchView|search|lm)\/|^src\/history\/chunk\.ts$/;
const BLAME_VIEW = /^src\/blameView\/(?!shell\.ts$|load\.ts$|names\.ts$)/;
const SITE_EDITOR = /^src\/sites\/(siteEditor|siteForm|protocol)\.ts$/;

describe('chunks loaded on first use: History Search with the language-model tools, and the editor features', function () {
  this.timeout(60_000);
  let dir: string;
  let meta: Metafile;
  let out: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-history-chunk-'));
    out = path.join(dir, 'dist');
    const esbuild = await import('esbuild');
    const { options, chunkOptions } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { options: BuildOptions; chunkOptions: (name: string) => BuildOptions };
    const cwd = process.cwd();
    process.chdir(repoRoot); // the entry points are relative to the repository
    try {
      const results = await Promise.all([
        esbuild.build({ ...options, entryPoints: { extension: 'src/extension.ts', boot: 'src/boot/main.ts' }, outdir: out, sourcemap: false, logLevel: 'silent' }),
        esbuild.build({ ...chunkOptions('history'), outdir: out, sourcemap: false, logLevel: 'silent' }),
        esbuild.build({ ...chunkOptions('blameView'), outdir: out, sourcemap: false, logLevel: 'silent' }),
        esbuild.build({ ...chunkOptions('siteEditorHost'), outdir: out, sourcemap: false, logLevel: 'silent' }),
      ]);
      assert.deepEqual(results.flatMap((r) => r.errors), []);
      meta = { inputs: {}, outputs: {} };
      for (const r of results) {
        Object.assign(meta.inputs, r.metafile!.inputs);
        Object.assign(meta.outputs, r.metafile!.outputs);
      }
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

  it('the extension holds none of the chunks’ code, and loads them with require("./history.js"), require("./blameView.js") and require("./siteEditorHost.js")', () => {
    const inputs = inputsOf('extension.js');
    for (const f of ['src/history/shell.ts', 'src/blameView/shell.ts', 'src/sites/editorLoad.ts']) assert.ok(inputs.includes(f), `${f}, the stand-ins, is in the extension`);
    assert.deepEqual(inputs.filter((i) => HISTORY.test(i) || BLAME_VIEW.test(i) || SITE_EDITOR.test(i)), []);
    const text = fs.readFileSync(path.join(out, 'extension.js'), 'utf8');
    assert.match(text, /require\("\.\/history\.js"\)/);
    assert.match(text, /require\("\.\/blameView\.js"\)/);
    assert.match(text, /require\("\.\/siteEditorHost\.js"\)/);
  });

  it('the entry point, dist/boot.js, is the code-cache loader alone (Node built-ins, nothing of the extension), and the bundle does not carry the loader', () => {
    assert.deepEqual(inputsOf('boot.js').sort(), ['src/boot/codeCache.ts', 'src/boot/main.ts']);
    assert.ok(fs.statSync(path.join(out, 'boot.js')).size < 8 * 1024);
    const requires = [...fs.readFileSync(path.join(out, 'boot.js'), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    assert.deepEqual(requires.filter((r) => !r.startsWith('node:')), [], 'only Node built-ins (the bundle is loaded by path)');
    const inputs = inputsOf('extension.js');
    assert.ok(inputs.includes('src/boot/save.ts'));
    assert.ok(!inputs.includes('src/boot/codeCache.ts'));
  });

  for (const [file, own, sample, hostedSample] of [
    ['history.js', HISTORY, ['src/searchView/historyView.ts', 'src/search/scan.ts', 'src/lm/tools.ts', 'src/history/chunk.ts'], ['vscode', 'revisions/nodes', 'api/errors', 'tree/node', 'ui/context']],
    ['blameView.js', BLAME_VIEW, ['src/blameView/index.ts', 'src/blameView/blame.ts', 'src/blameView/alert.ts'], ['vscode', 'blame/load', 'revisions/mapping', 'revisions/store']],
    ['siteEditorHost.js', SITE_EDITOR, ['src/sites/siteEditor.ts', 'src/sites/siteForm.ts', 'src/sites/protocol.ts'], ['vscode', 'api/types', 'ui/messages', 'sites/editorType']],
  ] as const) {
    it(`${file} holds its own code only: every other module of the extension, and vscode, comes from the running bundle`, () => {
      const inputs = inputsOf(file);
      for (const f of sample) assert.ok(inputs.includes(f), `${f} is in the chunk`);
      assert.deepEqual(inputs.filter((i) => i.startsWith('src/') && !own.test(i)), [], 'no copy of a module of the extension');
      const hosted = inputs.filter((i) => i.startsWith('chunk-host:')).map((i) => i.slice('chunk-host:'.length));
      for (const m of hostedSample) assert.ok(hosted.includes(m), `${m} comes from the extension (${hosted.join(', ')})`);
      assert.match(fs.readFileSync(path.join(out, file), 'utf8'), /^module\.exports = \(__siteRevisionsHost\) => \{/);
    });
  }

  const registeredIn = (folder: string, constants: Record<string, string>) => {
    const registered = new Set<string>();
    for (const f of fs.readdirSync(path.join(repoRoot, 'src', folder)).filter((f) => !['shell.ts', 'names.ts'].includes(f))) {
      const text = fs.readFileSync(path.join(repoRoot, 'src', folder, f), 'utf8');
      // vscode.commands.registerCommand(id or CONSTANT, …), or src/blameView's own command('id', …) helper.
      for (const m of text.matchAll(/registerCommand\(\s*(?:'(siteRevisions\.[\w.]+)'|([A-Z_]+))|\bcommand\(\s*'(siteRevisions\.[\w.]+)'/g)) registered.add(m[1] ?? m[3] ?? constants[m[2]!] ?? `unknown constant ${m[2]}`);
    }
    return [...registered].sort();
  };

  it('every contributed command a chunk registers has a stand-in at activation, and every stand-in is a command the chunk registers', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [folder, standIns, constants] of [
      ['searchView', HISTORY_COMMANDS, { OPEN_RESULT_COMMAND, OPEN_CHANGE_COMMAND }],
      ['blameView', BLAME_VIEW_COMMANDS, {}],
    ] as const) {
      const registered = registeredIn(folder, constants);
      assert.ok(registered.length >= standIns.length, `${folder}: ${registered.join(', ')}`);
      assert.deepEqual(registered.filter((c) => contributed.has(c) && !(standIns as readonly string[]).includes(c)), [], `${folder}: contributed commands without a stand-in`);
      assert.deepEqual(standIns.filter((c) => !registered.includes(c)), [], `${folder}: stand-ins the chunk does not take over`);
    }
  });
});

// The extension's build (esbuild.mjs): ES modules, split by esbuild into chunks. Built here with
// the project's own options into a temporary folder, then imported and activated in plain Node
// with a fake `vscode` (bench/fakeVscode.ts). What matters of the split:
// - activation stays small: what it loads holds none of the code loaded on first use (undici,
//   the blame code and its diff package, History Search with Site Changes and the language-model
//   tools, the editor features, the site editor's host side);
// - a module is in one file only (one instance: a class, a context-key cache, a sink);
// - `vscode` is imported as an ES module, never required (no copy of its exports);
// - every contributed command is registered at activation, and the lazily loaded code hands over
//   a handler for each of its commands.
// That the packaged files are all in the .vsix is test/unit/package.test.ts; that they run in the
// real workbench, the Smoke suite against the installed .vsix.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { registerHooks } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';
import { createFakeVscode, fakeContext } from '../../bench/fakeVscode';
import type { ExtensionApi } from '../../src/extension';
import { HISTORY_COMMANDS } from '../../src/features/history/names';
import { REVISION_COMMANDS } from '../../src/features/revisions/names';
import { SITE_IMPORT_COMMANDS } from '../../src/features/siteImport/names';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** Code loaded on first use, by the module its chunk is split for. */
const LAZY: [entry: RegExp, modules: RegExp][] = [
  [/^src\/core\/api\/undiciParts\.ts$/, /^node_modules\/undici\//],
  [/^src\/features\/auth\/clientFactory\.ts$/, /^src\/core\/api\/(client|validate|failure|http|agents|trust)\.ts$|^src\/core\/net\/(proxy|tls)\.ts$/],
  [/^src\/features\/revisions\/index\.ts$/, /^src\/features\/revisions\/(?!register\.ts$|names\.ts$|mapping\.ts$|goneSites\.ts$)|^src\/core\/model\/(revisionStore|revisionLists|historyReads|contentCache)\.ts$/],
  [/^src\/core\/blame\/index\.ts$/, /^src\/core\/blame\/(?!load\.ts$)|^node_modules\/fast-myers-diff\//],
  [/^src\/features\/history\/feature\.ts$/, /^src\/(features\/history|core\/search|features\/tools)\/(?!register\.ts$|names\.ts$)/],
  [/^src\/features\/editor\/index\.ts$/, /^src\/features\/editor\/(?!register\.ts$|names\.ts$)/],
  [/^src\/features\/scm\/index\.ts$/, /^src\/features\/scm\/(?!register\.ts$|names\.ts$)|^src\/core\/status\//],
  [/^src\/features\/sites\/commands\.ts$/, /^src\/features\/sites\/commands\.ts$/],
  [/^src\/features\/auth\/diskStore\.ts$/, /^src\/core\/store\/(?!account\.ts$)/],
  [/^src\/features\/siteImport\/index\.ts$/, /^src\/features\/siteImport\/(?!register\.ts$|names\.ts$)|^src\/core\/siteImport\/|^node_modules\/(fast-xml-parser|jsonc-parser|strnum|@nodable|path-expression-matcher|xml-naming|is-unsafe)\//],
  [/^src\/features\/sites\/siteEditor\.ts$/, /^src\/features\/sites\/(siteEditor|siteForm|formFields|formTexts|protocol)\.ts$/],
  [/^src\/features\/transfer\/index\.ts$/, /^src\/features\/transfer\/(?!register\.ts$|names\.ts$|flag\.ts$)|^src\/core\/transfer\/(?!uploadOnSave\.ts$)/],
  [/^src\/features\/live\/index\.ts$/, /^src\/features\/live\/(?!register\.ts$|names\.ts$)|^src\/core\/live\/|^src\/features\/tools\/liveTool\.ts$|^node_modules\/(basic-ftp|ssh2)\//],
];

describe('the build: ES modules split into chunks', function () {
  this.timeout(60_000);
  let dir: string;
  let out: string;
  let meta: Metafile;
  /** Output (relative to out/) → its inputs (relative to the repository). */
  let outputs: Map<string, { inputs: string[]; entryPoint?: string; imports: { path: string; kind: string; external?: boolean }[] }>;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-build-'));
    out = path.join(dir, 'dist');
    const esbuild = await import('esbuild');
    const { options } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { options: BuildOptions };
    const cwd = process.cwd();
    process.chdir(repoRoot); // the entry points are relative to the repository
    try {
      meta = (await esbuild.build({ ...options, outdir: out, sourcemap: false, minify: true, logLevel: 'silent', define: { __TEST_HOOKS__: 'true' } })).metafile!;
    } finally {
      process.chdir(cwd);
    }
    const tidy = (p: string) => /(?:^|\/)((?:src|node_modules)\/.*)$/.exec(p)?.[1] ?? p;
    outputs = new Map(
      Object.entries(meta.outputs).map(([k, o]) => [
        path.basename(k),
        { inputs: Object.keys(o.inputs).map(tidy), ...(o.entryPoint ? { entryPoint: tidy(o.entryPoint) } : {}), imports: o.imports.map((i) => ({ ...i, path: path.basename(i.path) })) },
      ]),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The entry point and the chunks it imports statically: what activation loads. */
  const atActivation = (): Set<string> => {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name) || !outputs.has(name)) return;
      seen.add(name);
      for (const i of outputs.get(name)!.imports) if (i.kind === 'import-statement' && !i.external) visit(i.path);
    };
    visit('extension.mjs');
    return seen;
  };

  it('activation loads none of the code loaded on first use; each part of it is a chunk of its own, imported with import()', () => {
    const loaded = [...atActivation()].flatMap((o) => outputs.get(o)!.inputs);
    assert.ok(loaded.includes('src/extension.ts') && loaded.includes('src/features/history/register.ts') && loaded.includes('src/features/editor/register.ts'));
    for (const [entry, modules] of LAZY) {
      assert.deepEqual(loaded.filter((i) => modules.test(i)), [], `activation loads code of ${entry}`);
      const chunk = [...outputs].find(([, o]) => o.entryPoint && entry.test(o.entryPoint));
      assert.ok(chunk, `a chunk is split for ${entry}`);
      const importedBy = [...outputs].filter(([, o]) => o.imports.some((i) => i.path === chunk[0] && i.kind === 'dynamic-import'));
      assert.ok(importedBy.length, `${chunk[0]} is imported with import()`);
    }
    const bytes = [...atActivation()].reduce((n, o) => n + fs.statSync(path.join(out, o)).size, 0);
    assert.ok(bytes < 100 * 1024, `activation loads ${bytes} bytes`);
  });

  it('what activation loads is one chunk of its code (with the entry, esbuild’s helpers and what the plain-Node parts loaded on first use share): every feature loaded on first use imports the entry', () => {
    const files = [...atActivation()];
    assert.ok(files.length <= 4, `activation loads ${files.length} files: ${files.join(', ')}`);
    const biggest = files.map((f) => outputs.get(f)!).sort((a, b) => b.inputs.length - a.inputs.length)[0]!;
    for (const m of ['src/extension.ts', 'src/features/auth/session.ts', 'src/features/sites/sitesTree.ts', 'src/features/revisions/register.ts', 'src/workbench/notify.ts']) assert.ok(biggest.inputs.includes(m), `${m} is in the activation chunk`);
  });

  it('every module is in one file only, and `vscode` is imported as an ES module (never required)', () => {
    const seen = new Map<string, string>();
    for (const [name, o] of outputs) {
      if (!name.endsWith('.mjs')) continue;
      for (const i of o.inputs) {
        assert.equal(seen.get(i), undefined, `${i} is in ${seen.get(i)} and in ${name}`);
        seen.set(i, name);
      }
      const js = fs.readFileSync(path.join(out, name), 'utf8');
      assert.doesNotMatch(js, /require\(\s*"vscode"\s*\)/, `${name} requires vscode`);
      for (const i of o.imports.filter((x) => x.path === 'vscode')) assert.equal(i.kind, 'import-statement', name);
    }
  });

  describe('imported and activated in plain Node (a fake `vscode`)', () => {
    let fake: ReturnType<typeof createFakeVscode>;
    let hooks: { deregister(): void };
    let api: ExtensionApi;
    let context: Record<string, unknown>;
    const FAKE = Symbol.for('siteRevisions.test.fakeVscode');

    before(async () => {
      fake = createFakeVscode();
      (globalThis as Record<symbol, unknown>)[FAKE] = fake.api;
      const shim = path.join(dir, 'vscode.mjs');
      const names = Object.keys(fake.api).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
      fs.writeFileSync(shim, [`const api = globalThis[Symbol.for(${JSON.stringify(FAKE.description)})];`, ...names.map((k) => `export const ${k} = api[${JSON.stringify(k)}];`)].join('\n'));
      const url = pathToFileURL(shim).href;
      hooks = registerHooks({ resolve: (specifier, ctx, next) => (specifier === 'vscode' ? { url, shortCircuit: true } : next(specifier, ctx)) });
      const serviceUrl = 'http://127.0.0.1:9';
      const email = 'bundle@example.com';
      context = fakeContext(repoRoot, { serviceUrl, email, password: 'pw', secretKey: `siteRevisions:${serviceUrl}:${email}:password` });
      const ext = (await import(pathToFileURL(path.join(out, 'extension.mjs')).href)) as { activate(c: unknown): ExtensionApi };
      api = ext.activate(context);
      await api.ready;
    });
    after(() => {
      for (const d of (context.subscriptions as { dispose(): unknown }[]).reverse()) d.dispose();
      hooks.deregister();
      delete (globalThis as Record<symbol, unknown>)[FAKE];
    });

    it('a request whose undici chunk is missing (updated under the window) fails with the reload message (its cause: UpdatedWhileOpenError)', async () => {
      const undici = [...outputs].find(([, o]) => o.entryPoint === 'src/core/api/undiciParts.ts')![0];
      fs.rmSync(path.join(out, undici));
      assert.equal(api.session.state, 'signedIn');
      const e = (await (await api.session.getClient()).getSites({ signal: new AbortController().signal }).then(
        () => assert.fail('the request succeeded'),
        (x: unknown) => x,
      )) as Error & { cause?: Error };
      assert.equal(e.cause?.name, 'UpdatedWhileOpenError', String(e));
      assert.match(e.message, /updated while this window was open\. Reload the window/);
    });

    it('every command package.json contributes is registered at activation', () => {
      const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } };
      const missing = manifest.contributes.commands.map((c) => c.command).filter((c) => !fake.commands.has(c));
      assert.deepEqual(missing, []);
    });

    it('the revisions feature is not loaded by activation; loaded on first use, it hands over a handler for each of its commands registered at activation', async () => {
      assert.throws(() => api.revisions, /not loaded yet/);
      for (const id of REVISION_COMMANDS) assert.ok(fake.commands.has(id), `${id} is registered at activation`);
      const revisions = await api.loadRevisions();
      assert.deepEqual(Object.keys(revisions.handlers).sort(), [...REVISION_COMMANDS].sort());
      assert.equal(api.revisions, revisions);
      assert.equal(await api.loadRevisions(), revisions, 'loaded once');
    });

    it('History Search, loaded on first use, hands over a handler for each of its commands registered at activation, and no other', async () => {
      const features = await api.history();
      assert.deepEqual(Object.keys(features.commands).sort(), [...HISTORY_COMMANDS].sort());
      for (const id of HISTORY_COMMANDS) assert.equal(typeof features.commands[id], 'function', id);
      assert.equal(await api.history(), features, 'loaded once');
    });

    it('Import Sites, loaded on first use, hands over a handler for each of its commands', async () => {
      const f = await api.siteImport();
      assert.deepEqual(Object.keys(f).filter((k) => k.startsWith('siteRevisions.')).sort(), [...SITE_IMPORT_COMMANDS].sort());
      assert.equal(await api.siteImport(), f, 'loaded once');
    });

    it('the import’s thread (dist/siteImportWorker.js, its own build with the parsers) reads a site file and answers', async () => {
      const esbuild = await import('esbuild');
      const { workerOptions } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { workerOptions: BuildOptions };
      const cwd = process.cwd();
      process.chdir(repoRoot);
      try {
        await esbuild.build({ ...workerOptions, outdir: out, sourcemap: false, minify: true, logLevel: 'silent' });
      } finally {
        process.chdir(cwd);
      }
      const { Worker } = await import('node:worker_threads');
      const file = path.join(repoRoot, 'test', 'fixtures', 'siteImport', 'profiles.sftp.json');
      const reply = await new Promise<{ ok: boolean; result?: { sites: unknown[] } }>((resolve, reject) => {
        const w = new Worker(path.join(out, 'siteImportWorker.js'), { workerData: { bytes: fs.readFileSync(file), file } });
        w.once('message', resolve);
        w.once('error', reject);
      });
      assert.equal(reply.ok, true, JSON.stringify(reply));
      assert.equal(reply.result?.sites.length, 2);
    });

    it('the editor features, loaded on first use, work on the objects activation made', async () => {
      const features = await api.blame();
      assert.equal(features.files.store, api.revisions.store);
      assert.equal(await api.blame(), features, 'loaded once');
    });
  });
});

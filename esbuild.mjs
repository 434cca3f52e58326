// Bundles the extension into dist/extension.js (loaded by dist/boot.js, package.json's "main", through
// V8's code cache: src/boot/), undici into dist/undici.js, the revision blame
// (src/blame/ with its diff package) into dist/blame.js, and History Search, Site Changes and the
// language-model tools into dist/history.js, and the editor features into dist/blameView.js (see
// hostModules). `vscode` is provided by the host.
// A second build, for the browser, bundles the site editor's webview script
// (src/sites/webview/main.ts, with the form rules of src/sites/siteForm.ts and the message
// protocol it shares with the extension) into dist/siteEditor.js: no `vscode`, no Node built-ins.
// `--watch` rebuilds on every change (npm run watch runs it next to a type-checking
// `tsc --watch`); `--production` minifies and leaves the test handles out.
//
// Activation pays only for dist/extension.js (see the README's Benchmarks):
// - undici (about 85 % of the code) is its own file, required on the first request (the dynamic
//   import in src/api/http.ts becomes `require('./undici.js')`): activating neither parses nor
//   evaluates it. The same for the blame code: src/blame/load.ts imports './index.js', which
//   becomes `require('./blame.js')`; and for the history chunk (src/history/load.ts, './chunk.js'
//   → `require('./history.js')`; src/blameView/load.ts → `require('./blameView.js')`).
// - `vscode` is imported once: esbuild wraps each `import * as vscode` of an external CommonJS
//   module in a copy of all its exports (about 200 names, in every one of ~17 modules), which
//   was a third of the time the bundle took to load. One shared module re-exports it instead.
import * as esbuild from 'esbuild';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// The handles the integration tests use (activate()'s return value) exist only in a test build:
// the development bundle, or a production bundle built with --test-hooks for the benchmarks.
// The .vsix users install is built without them, so its exports are empty (src/extension.ts).
const testHooks = !production || process.argv.includes('--test-hooks') || process.env.SITE_REVISIONS_TEST_HOOKS_BUILD === '1';

/** Every `import … from 'vscode'` resolves to one module that re-exports the host's `vscode`. */
const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) => (args.namespace === 'vscode-once' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-once' }));
    build.onLoad({ filter: /.*/, namespace: 'vscode-once' }, () => ({ contents: 'export * from "vscode";', loader: 'js' }));
  },
};

/**
 * In watch mode: one line when a build starts and one when it ends, and each error as
 * `✘ [ERROR] text` followed by `    file:line:column:` — what the problem matcher of
 * .vscode/tasks.json (the same as the esbuild problem matchers extension's `$esbuild-watch`)
 * reads, the column counted from 1 as VS Code counts it; esbuild's own log is off then, so
 * nothing is reported twice. The two builds (extension, webview) share one reporter: "started"
 * when the first of them starts, "finished" once every build under way has ended.
 */
function watchReport() {
  let running = 0;
  let errors = 0;
  return {
    name: 'watch-report',
    setup(build) {
      build.onStart(() => {
        if (running++ > 0) return;
        errors = 0;
        console.log('[watch] build started');
      });
      build.onEnd((result) => {
        for (const [kind, list] of [['ERROR', result.errors], ['WARNING', result.warnings]]) {
          for (const m of list) {
            const where = m.location ? `\n    ${m.location.file}:${m.location.line}:${m.location.column + 1}:\n      ${m.location.lineText}` : '';
            console.error(`${kind === 'ERROR' ? '✘' : '▲'} [${kind}] ${m.text}${where}`);
          }
        }
        errors += result.errors.length;
        if (--running > 0) return;
        console.log(`[watch] build finished${errors ? ` with ${errors} error(s)` : ''}, watching for changes`);
      });
    },
  };
}

/** The extension's imports of undici go to the separate output dist/undici.js. */
const undiciApart = {
  name: 'undici-apart',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, (args) => (args.kind === 'entry-point' ? undefined : { path: './undici.js', external: true }));
  },
};

/** A loader's `import('./<request>')` goes to the separate output `./<output>` (required on first use). */
function chunkApart(name, loaderFile, request, output) {
  const loader = fileURLToPath(new URL(loaderFile, import.meta.url));
  const filter = new RegExp(`^${request.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
  return {
    name,
    setup(build) {
      build.onResolve({ filter }, (args) => (path.resolve(args.importer) === loader ? { path: output, external: true } : undefined));
    },
  };
}

/** src/blame/load.ts's import of the blame module goes to the separate output dist/blame.js. */
const blameApart = chunkApart('blame-apart', 'src/blame/load.ts', './index.js', './blame.js');
/** src/history/load.ts's import of the history chunk goes to dist/history.js. */
const historyApart = chunkApart('history-apart', 'src/history/load.ts', './chunk.js', './history.js');

/** src/blameView/load.ts's import of the editor features goes to dist/blameView.js. */
const blameViewApart = chunkApart('blame-view-apart', 'src/blameView/load.ts', './index.js', './blameView.js');
/** src/sites/editorLoad.ts's import of the site editor's host side goes to dist/siteEditorHost.js. */
const siteEditorApart = chunkApart('site-editor-apart', 'src/sites/editorLoad.ts', './siteEditor.js', './siteEditorHost.js');

/**
 * A chunk loaded on first use that imports the extension's own modules: History Search, Site
 * Changes and the language-model tools (src/history/chunk.ts with src/searchView, src/search and
 * src/lm → dist/history.js), and the editor features (src/blameView but its shell.ts, load.ts and names.ts
 * → dist/blameView.js), and the site editor's host side (src/sites/siteEditor.ts with siteForm.ts and
 * protocol.ts → dist/siteEditorHost.js). Each is built as a function of the extension's modules it imports:
 * `module.exports = (host) => …`, and each such import reads `host['<path under src/>']`
 * (src/chunks/host.ts hands them over, src/chunks/load.ts calls the function), so that a chunk
 * shares the extension's classes and state instead of carrying copies of them (an `instanceof`
 * across the two would fail; a context-key cache or a sink would be two). `vscode` is one of them.
 * A module a chunk imports that host.ts does not hand over stops the build.
 */
const srcDir = fileURLToPath(new URL('src/', import.meta.url));
const abs = (p) => fileURLToPath(new URL(p, import.meta.url));
const CHUNKS = {
  history: { entry: 'src/history/chunk.ts', parts: ['src/history/chunk.ts', 'src/searchView/', 'src/search/', 'src/lm/'].map(abs), except: [] },
  blameView: { entry: 'src/blameView/index.ts', parts: ['src/blameView/'].map(abs), except: ['src/blameView/shell.ts', 'src/blameView/load.ts', 'src/blameView/names.ts'].map(abs) },
  siteEditorHost: { entry: 'src/sites/siteEditor.ts', parts: ['src/sites/siteEditor.ts', 'src/sites/siteForm.ts', 'src/sites/protocol.ts'].map(abs), except: [] },
};
const inChunk = (chunk, file) => !chunk.except.includes(file) && chunk.parts.some((p) => (p.endsWith(path.sep) ? file.startsWith(p) : file === p));

/** The keys of HOST_MODULES in src/chunks/host.ts (none when there is no such file, e.g. in a scratch copy). */
function hostKeys() {
  const file = abs('src/chunks/host.ts');
  return new Set(existsSync(file) ? [...readFileSync(file, 'utf8').matchAll(/^\s+'?([\w/]+)'?(?::|,)/gm)].map((m) => m[1]) : []);
}

function hostModules(name) {
  const chunk = CHUNKS[name];
  return {
    name: `${name}-host`,
    setup(build) {
      let keys;
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData?.hostCheck || !inChunk(chunk, args.importer)) return undefined;
        if (args.path === 'vscode') return { path: 'vscode', namespace: 'chunk-host' };
        if (!args.path.startsWith('.')) return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { hostCheck: true } });
        if (r.errors.length) return { errors: r.errors };
        if (inChunk(chunk, r.path) || !r.path.startsWith(srcDir)) return { path: r.path };
        const key = path.relative(srcDir, r.path).split(path.sep).join('/').replace(/(\/index)?\.ts$/, '');
        keys ??= hostKeys();
        if (!keys.has(key)) return { errors: [{ text: `the ${name} chunk imports src/${key} (from ${path.relative(process.cwd(), args.importer)}), which src/chunks/host.ts does not hand over: add it there` }] };
        return { path: key, namespace: 'chunk-host' };
      });
      build.onLoad({ filter: /.*/, namespace: 'chunk-host' }, (args) => ({ contents: `module.exports = __siteRevisionsHost[${JSON.stringify(args.path)}];`, loader: 'js' }));
    },
  };
}

/** What both builds share: minified for production, source maps in development, a metafile. */
const common = {
  bundle: true,
  outdir: 'dist',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
};

/** The build's options (exported for test/unit/blame.chunk.test.ts, which builds the loader with them). */
export const options = {
  ...common,
  entryPoints: { boot: 'src/boot/main.ts', extension: 'src/extension.ts', undici: 'undici', blame: 'src/blame/index.ts' },
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['vscode'],
  plugins: [vscodeOnce, undiciApart, blameApart, historyApart, blameViewApart, siteEditorApart],
  define: { __TEST_HOOKS__: testHooks ? 'true' : 'false' },
  // import('undici') → require('./undici.js') inside a promise, as when undici was bundled in (and
  // import('./index.js') in src/blame/load.ts → require('./blame.js')).
  supported: { 'dynamic-import': false },
};

/** The build of one chunk of CHUNKS (exported for test/unit/history.chunk.test.ts): see hostModules. */
export function chunkOptions(name) {
  return {
    ...options,
    entryPoints: { [name]: CHUNKS[name].entry },
    plugins: [hostModules(name)],
    banner: { js: 'module.exports = (__siteRevisionsHost) => { const module = { exports: {} }; const exports = module.exports;' },
    footer: { js: 'return module.exports; };' },
  };
}
const chunkBuilds = Object.keys(CHUNKS).map(chunkOptions);

/** The webview runs in a browser: an import of `vscode` or of a Node built-in is a build error that says so. */
const browserOnly = {
  name: 'browser-only',
  setup(build) {
    const nodeOnly = new Set(['vscode', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    build.onResolve({ filter: /^[a-z:_/]+$/ }, (args) =>
      nodeOnly.has(args.path) ? { errors: [{ text: `${args.path} is imported by ${path.relative(process.cwd(), args.importer)}, which the site editor's webview script reaches: the webview has no \`vscode\` and no Node built-ins` }] } : undefined,
    );
  },
};

/** The site editor's webview script (exported for test/unit/siteEditor.bundle.test.ts). */
export const webviewOptions = {
  ...common,
  entryPoints: { siteEditor: 'src/sites/webview/main.ts' },
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  plugins: [browserOnly],
};

/**
 * The search thread (src/search/searchWorker.ts → dist/searchWorker.js): History Search's matching
 * runs there, off the extension host's thread (src/search/offThread.ts starts it from
 * `searchWorkerFile()`, the file next to the module that starts it). Its own small entry: no
 * `vscode`, nothing of the extension but the matcher.
 */
export const workerOptions = {
  ...common,
  entryPoints: { searchWorker: 'src/search/searchWorker.ts' },
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [],
};

// Builds when run (`node esbuild.mjs`), not when imported.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (watch) {
    const report = watchReport();
    for (const o of [options, ...chunkBuilds, workerOptions, webviewOptions]) {
      const ctx = await esbuild.context({ ...o, logLevel: 'silent', plugins: [...o.plugins, report] });
      await ctx.watch();
    }
  } else {
    const [result, ...chunks] = await Promise.all([esbuild.build(options), ...chunkBuilds.map((o) => esbuild.build(o)), esbuild.build(workerOptions), esbuild.build(webviewOptions)]);
    mkdirSync('dist', { recursive: true });
    const meta = { inputs: { ...result.metafile.inputs }, outputs: { ...result.metafile.outputs } };
    for (const c of chunks.slice(0, chunkBuilds.length + 1)) {
      Object.assign(meta.inputs, c.metafile.inputs);
      Object.assign(meta.outputs, c.metafile.outputs);
    }
    writeFileSync('dist/meta.json', JSON.stringify(meta));
  }
}

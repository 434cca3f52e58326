// Bundles the extension as ES modules: dist/extension.mjs (package.json's "main") and the chunks
// esbuild's code splitting makes of what a dynamic `import()` reaches (dist/chunk-*.mjs), which
// the platform loads on first use: undici on the first request (src/core/api/agents.ts), the revision
// blame with its diff package, History Search with Site Changes and the language-model tools,
// the editor features, the site editor's host side. A module both sides import is in a shared
// chunk, one instance. `vscode` is provided by the host (an ES-module import of it, one module).
// esbuild puts each module in a chunk by the set of entry points (the main one and each import()
// target) that reach it: what activation loads would be cut into a dozen small files, one for
// each combination of features that also use a piece of it, and every file costs the host's
// module loader about 0.3 ms. So each feature loaded on first use imports src/extension.ts
// (one line at the top of its module, which runs nothing: the entry is loaded before it): every
// module activation loads is then reached by all of them, and is in one chunk
// (docs/benchmarks.md, "Activation").
// A second build, for the browser, bundles the site editor's webview script
// (src/features/sites/webview/main.ts, with the form rules of src/features/sites/siteForm.ts and formFields.ts and the message
// protocol it shares with the extension) into dist/siteEditor.js: no `vscode`, no Node built-ins.
// `--watch` rebuilds on every change (npm run watch runs it next to a type-checking
// `tsc --watch`); `--production` minifies and leaves the test handles out.
import * as esbuild from 'esbuild';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
// The handles the integration tests use (activate()'s return value) exist only in a test build:
// the development bundle, or a production bundle built with --test-hooks for the benchmarks.
// The .vsix users install is built without them, so its exports are empty (src/extension.ts).
const testHooks = !production || process.argv.includes('--test-hooks') || process.env.SITE_REVISIONS_TEST_HOOKS_BUILD === '1';

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
  // jsonc-parser's `main` is a UMD build whose factory requires its own files through a parameter,
  // which esbuild cannot follow (the bundle would require ./impl/… at run time): its ES-module build.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
};

/**
 * The extension's build (exported for the unit tests that build it: test/unit/bundle.test.ts).
 * Node's `require`, which the CommonJS packages bundled in (undici, diff) call for Node's
 * built-ins, and `__dirname` (the search thread's file is found next to the code that starts it:
 * src/core/search/offThread.ts) come from the banner: an ES module has neither.
 */
/**
 * The protocol modules of src/core/live (each a chunk loaded on first use, by `import()` in
 * src/core/live/fs.ts) reach modules that activation loads too (src/core/api/userinfo.ts…). A
 * chunk loaded on first use imports the entry, so that esbuild keeps those modules in
 * activation's one chunk instead of splitting each into a file of its own (CONTRIBUTING.md,
 * "Adding code loaded on first use"); src/core may not import the entry in its source (lint:
 * core is plain Node), so the build adds that one line to these files.
 */
const coreChunksImportEntry = {
  name: 'core-chunks-import-entry',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]core[\\/]live[\\/](ftp|sftp|webdav|s3)\.ts$/ }, async (a) => {
      const { readFile } = await import('node:fs/promises');
      return { contents: `import '../../extension';\n${await readFile(a.path, 'utf8')}`, loader: 'ts' };
    });
  },
};

export const options = {
  ...common,
  entryPoints: { extension: 'src/extension.ts' },
  format: 'esm',
  splitting: true,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunk-[hash]',
  platform: 'node',
  target: 'node20',
  // ssh2's optional native parts (src/core/live/sftp.ts): its SIMD probe and its compiled
  // crypto. Left out of the bundle, ssh2's own try/require finds neither and uses Node's crypto.
  external: ['vscode', 'cpu-features', '*.node'],
  define: { __TEST_HOOKS__: testHooks ? 'true' : 'false' },
  banner: { js: 'import{createRequire as __createRequire}from"node:module";const require=__createRequire(import.meta.url);const __dirname=import.meta.dirname;' },
  plugins: [coreChunksImportEntry],
};

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
  entryPoints: { siteEditor: 'src/features/sites/webview/main.ts' },
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  plugins: [browserOnly],
};

/**
 * The threads: the search thread (src/core/search/searchWorker.ts → dist/searchWorker.js), and the
 * import's (src/core/siteImport/siteImportWorker.ts → dist/siteImportWorker.js: the site-file
 * readers with fast-xml-parser and jsonc-parser, off the host's thread). The search thread: History Search's matching
 * runs there, off the extension host's thread (src/core/search/offThread.ts starts it from
 * `searchWorkerFile()`, the file next to the module that starts it). Its own small entry: no
 * `vscode`, nothing of the extension but the matcher.
 */
export const workerOptions = {
  ...common,
  entryPoints: { searchWorker: 'src/core/search/searchWorker.ts', siteImportWorker: 'src/core/siteImport/siteImportWorker.ts' },
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [],
};

// Builds when run (`node esbuild.mjs`), not when imported.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (watch) {
    const report = watchReport();
    for (const o of [options, workerOptions, webviewOptions]) {
      const ctx = await esbuild.context({ ...o, logLevel: 'silent', plugins: [...o.plugins, report] });
      await ctx.watch();
    }
  } else {
    // The chunks' names change with their content: those of an earlier build go first.
    mkdirSync('dist', { recursive: true });
    for (const f of readdirSync('dist')) if (/^chunk-\w+\.mjs(\.map)?$/.test(f)) rmSync(`dist/${f}`);
    const [result, worker] = await Promise.all([esbuild.build(options), esbuild.build(workerOptions), esbuild.build(webviewOptions)]);
    const meta = { inputs: { ...result.metafile.inputs, ...worker.metafile?.inputs }, outputs: { ...result.metafile.outputs, ...worker.metafile?.outputs } };
    writeFileSync('dist/meta.json', JSON.stringify(meta));
  }
}

// Bundles the extension into dist/extension.js. `vscode` is provided by the host.
// undici is bundled but only evaluated on the first request (dynamic import in src/api/http.ts).
import * as esbuild from 'esbuild';
import { writeFileSync, mkdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const options = {
  entryPoints: ['src/extension.ts'],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: 'dist/extension.js',
  external: ['vscode'],
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  const result = await esbuild.build(options);
  mkdirSync('dist', { recursive: true });
  writeFileSync('dist/meta.json', JSON.stringify(result.metafile));
}

// The live layer in the extension's build (esbuild.mjs, its own options): src/core/live/index.ts
// loads no protocol; FTP, SFTP, WebDAV and S3 are each a chunk of their own, imported with
// import() on the first connection; ssh2's native parts are not in the bundle. Prints each
// chunk's size (the figures of docs/design.md).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

describe('live servers: the build splits each protocol into a chunk loaded on first use', function () {
  this.timeout(60_000);
  let dir: string;
  let meta: Metafile;
  const tidy = (p: string) => /(?:^|\/)((?:src|node_modules)\/.*)$/.exec(p)?.[1] ?? p;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-live-build-'));
    const esbuild = await import('esbuild');
    const { options } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { options: BuildOptions };
    const cwd = process.cwd();
    process.chdir(repoRoot);
    try {
      meta = (await esbuild.build({ ...options, entryPoints: { live: 'src/core/live/index.ts' }, outdir: dir, sourcemap: false, minify: true, logLevel: 'silent' })).metafile!;
    } finally {
      process.chdir(cwd);
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('index.ts loads none of basic-ftp, ssh2, undici or a protocol module; each protocol is its own dynamically imported chunk', () => {
    const outs = Object.entries(meta.outputs).map(([k, o]) => ({ name: path.basename(k), inputs: Object.keys(o.inputs).map(tidy), entry: o.entryPoint ? tidy(o.entryPoint) : undefined, imports: o.imports, bytes: o.bytes }));
    const byName = new Map(outs.map((o) => [o.name, o]));
    const seen = new Set<string>();
    const visit = (n: string) => {
      if (seen.has(n) || !byName.has(n)) return;
      seen.add(n);
      for (const i of byName.get(n)!.imports) if (i.kind === 'import-statement' && !i.external) visit(path.basename(i.path));
    };
    visit('live.mjs');
    const loaded = [...seen].flatMap((n) => byName.get(n)!.inputs);
    assert.deepEqual(loaded.filter((i) => /node_modules\/(basic-ftp|ssh2|undici|asn1|bcrypt-pbkdf)\/|src\/core\/live\/(ftp|sftp|webdav|s3|http|sigv4|xml)\.ts$/.test(i)), []);
    const sizes: string[] = [`index (what importing src/core/live loads): ${[...seen].reduce((n, o) => n + byName.get(o)!.bytes, 0)} bytes`];
    for (const proto of ['ftp', 'sftp', 'webdav', 's3']) {
      const chunk = outs.find((o) => o.entry === `src/core/live/${proto}.ts`);
      assert.ok(chunk, `a chunk is split for ${proto}`);
      assert.ok(outs.some((o) => o.imports.some((i) => path.basename(i.path) === chunk.name && i.kind === 'dynamic-import')), `${proto} is imported with import()`);
      // What the first connection loads: the chunk and the chunks it imports statically (not those activation or the index already has).
      const mine = new Set<string>();
      const walk = (n: string) => {
        if (mine.has(n) || seen.has(n) || !byName.has(n)) return;
        mine.add(n);
        for (const i of byName.get(n)!.imports) if (i.kind === 'import-statement' && !i.external) walk(path.basename(i.path));
      };
      walk(chunk.name);
      sizes.push(`${proto}: ${[...mine].reduce((n, o) => n + byName.get(o)!.bytes, 0)} bytes in ${mine.size} file(s)`);
    }
    const all = outs.flatMap((o) => o.inputs);
    assert.ok(all.some((i) => i.startsWith('node_modules/ssh2/')), 'ssh2 is bundled');
    assert.ok(!all.some((i) => /\.node$|node_modules\/cpu-features\//.test(i)), 'no native part is bundled');
    const sftp = outs.find((o) => o.entry === 'src/core/live/sftp.ts')!;
    assert.ok(sftp.imports.some((i) => i.external && /sshcrypto\.node$/.test(i.path)) || outs.some((o) => o.imports.some((i) => i.external && /\.node$|cpu-features/.test(i.path))), 'the native parts are left to a require that fails softly');
    console.log(`      ${sizes.join('\n      ')}`);
  });
});

// The live layer in the extension's build (esbuild.mjs, its own options): src/core/live/index.ts
// loads no protocol; FTP, SFTP, WebDAV and S3 are each a chunk of their own, imported with
// import() on the first connection; ssh2's native parts are not in the bundle. Prints each
// chunk's size (the figures of docs/design.md; the bench's `live` step shows them as rows).
import * as assert from 'node:assert/strict';
import { buildLive, type LiveBuild } from '../../bench/liveBuild';

describe('live servers: the build splits each protocol into a chunk loaded on first use', function () {
  this.timeout(60_000);
  let build: LiveBuild;

  before(async () => {
    build = await buildLive();
  });

  it('index.ts loads none of basic-ftp, ssh2, undici or a protocol module; each protocol is its own dynamically imported chunk', () => {
    assert.deepEqual(build.indexProtocolModules, []);
    const sizes: string[] = [`index (what importing src/core/live loads): ${build.indexBytes} bytes`];
    for (const p of build.protocols) {
      assert.ok(p.chunk, `a chunk is split for ${p.protocol}`);
      assert.ok(p.dynamic, `${p.protocol} is imported with import()`);
      sizes.push(`${p.protocol}: ${p.bytes} bytes in ${p.files} file(s)`);
    }
    assert.ok(build.modules.some((i) => i.startsWith('node_modules/ssh2/')), 'ssh2 is bundled');
    assert.ok(!build.modules.some((i) => /\.node$|node_modules\/cpu-features\//.test(i)), 'no native part is bundled');
    assert.ok(build.externals.some((i) => /\.node$|cpu-features/.test(i)), 'the native parts are left to a require that fails softly');
    console.log(`      ${sizes.join('\n      ')}`);
  });
});

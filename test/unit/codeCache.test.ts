// The extension's entry point loads the bundle through V8's code cache (src/boot/codeCache.ts):
// real files, real V8 caches, in a temporary folder. That the installed extension takes its code
// from the cache after a window reload is `npm test`'s reload check (test/host/reload.ts).
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkedCache, codeCacheName, loadWithCodeCache, type CodeCacheReport } from '../../src/boot/codeCache';
import { saveWhenSettled } from '../../src/boot/save';
import { loadChunk, setChunkLoader } from '../../src/boot/chunks';

type Mod = { value(): string; dir: string; file: string; dep: string };

/** A module of enough code for V8 to cache, whose `value()` returns `word`, and which requires `./dep.js` next to it. */
function moduleSource(word: string): string {
  const fns = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i % 7}; }`).join('\n');
  return `'use strict';\n${fns}\nconst dep = require('./dep.js');\nlet total = 0; for (let i = 0; i < 200; i++) total += f${'1'}(i);\nmodule.exports = { value: () => '${word}', dir: __dirname, file: __filename, dep: dep.name, total };\n`;
}

describe('V8 code cache of the bundle (src/boot/codeCache.ts)', () => {
  let dir: string;
  let file: string;
  let cacheDir: string;
  const cacheFiles = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-code-cache-'));
    // A name of its own per test: Node's require cache would otherwise answer the "off" loads.
    file = path.join(dir, `bundle${crypto.randomBytes(3).toString('hex')}.js`);
    cacheDir = path.join(dir, 'storage', 'code-cache');
    fs.writeFileSync(path.join(dir, 'dep.js'), "module.exports = { name: 'dep next to the bundle' };");
    fs.writeFileSync(file, moduleSource('first'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const load = () => loadWithCodeCache<Mod>(file, cacheDir);

  it('a first load compiles from source and runs the module as require would; save() writes the cache, and the next load takes its code from it', async () => {
    const first = load();
    assert.equal(first.report.state, 'absent');
    assert.equal(first.exports.value(), 'first');
    assert.equal(first.exports.file, file);
    assert.equal(first.exports.dir, dir);
    assert.equal(first.exports.dep, 'dep next to the bundle', 'require resolves next to the file');
    assert.deepEqual(cacheFiles(), [], 'nothing is written before save()');
    const saved = await first.report.save();
    assert.equal(saved.outcome, 'written');
    assert.ok((saved.bytes ?? 0) > 1000, `a cache of ${saved.bytes} bytes`);
    assert.deepEqual(cacheFiles(), [codeCacheName(file, fs.readFileSync(file))]);
    assert.deepEqual(await first.report.save(), { outcome: 'kept' }, 'written once');

    const second = load();
    assert.equal(second.report.state, 'used');
    assert.equal(second.report.bytes, saved.bytes);
    assert.equal(second.exports.value(), 'first');
    assert.equal(second.exports.dep, 'dep next to the bundle');
    assert.deepEqual(await second.report.save(), { outcome: 'kept' }, 'a cache that was used is not written again');
  });

  it('a changed file of the same length never runs the old code (V8 itself checks only the length)', async () => {
    await load().report.save();
    fs.writeFileSync(file, moduleSource('other')); // 'first' → 'other': same length
    assert.equal(fs.statSync(file).size, Buffer.byteLength(moduleSource('first')));
    const next = load();
    assert.equal(next.report.state, 'absent', 'the cache is named after the source it was made from');
    assert.equal(next.exports.value(), 'other');
    assert.equal((await next.report.save()).outcome, 'written');
    assert.equal(cacheFiles().length, 1, 'the cache of the earlier version is removed');
    assert.equal(load().exports.value(), 'other');
  });

  it('a damaged cache (one byte changed, or cut short) is never handed to V8: compiled from source, then written again', async () => {
    // Handed to V8, a cache with one byte changed can crash the process: V8 verifies its own
    // checksum in debug builds only. So the flip goes into the first bytes of V8's data.
    await load().report.save();
    const cachePath = path.join(cacheDir, cacheFiles()[0]);
    const good = fs.readFileSync(cachePath);
    assert.ok(checkedCache(good));
    for (const damage of [(b: Buffer) => (b[32 + 100] ^= 0xff), (b: Buffer) => b.subarray(0, b.length - 10), () => Buffer.alloc(0)]) {
      const bad = Buffer.from(good);
      const result = damage(bad);
      fs.writeFileSync(cachePath, Buffer.isBuffer(result) ? result : bad);
      const loaded = load();
      assert.equal(loaded.report.state, 'damaged');
      assert.equal(loaded.exports.value(), 'first');
      assert.equal((await loaded.report.save()).outcome, 'written');
      assert.equal(load().report.state, 'used', 'the next start uses the cache written again');
    }
  });

  it('a cache V8 rejects (not its format) is compiled from source and written again', async () => {
    const data = crypto.randomBytes(4096);
    fs.mkdirSync(cacheDir, { recursive: true });
    fs.writeFileSync(path.join(cacheDir, codeCacheName(file, fs.readFileSync(file))), Buffer.concat([crypto.createHash('sha256').update(data).digest(), data]));
    const loaded = load();
    assert.equal(loaded.report.state, 'rejected');
    assert.equal(loaded.exports.value(), 'first');
    assert.equal((await loaded.report.save()).outcome, 'written');
    assert.equal(load().report.state, 'used');
  });

  it('without a storage folder the file is required as usual', async () => {
    const loaded = loadWithCodeCache<Mod>(file, undefined);
    assert.equal(loaded.report.state, 'off');
    assert.equal(loaded.exports.value(), 'first');
    assert.deepEqual(await loaded.report.save(), { outcome: 'kept' });
  });

  it('a storage folder that cannot be written costs the cache, not the start', async () => {
    fs.mkdirSync(path.dirname(cacheDir), { recursive: true });
    fs.writeFileSync(cacheDir, 'a file where the folder should be');
    const loaded = load();
    assert.equal(loaded.report.state, 'off', 'reading under a file fails with ENOTDIR');
    assert.equal(loaded.exports.value(), 'first');
    fs.rmSync(cacheDir);
    const again = load();
    assert.equal(again.report.state, 'absent');
    fs.writeFileSync(cacheDir, 'a file again');
    const saved = await again.report.save();
    assert.equal(saved.outcome, 'failed');
    assert.match(saved.error ?? '', /EEXIST|ENOTDIR/);
  });

  it("a module's error reaches the caller with the file's name in its stack", () => {
    fs.writeFileSync(file, "'use strict';\nfunction boom() { throw new Error('the bundle failed'); }\nboom();\n");
    assert.throws(() => load(), (e: Error) => e.message === 'the bundle failed' && (e.stack ?? '').includes(`${file}:2`));
  });

  it('writing removes caches of earlier versions and temporary files left long ago, not one another window is writing', async () => {
    fs.mkdirSync(cacheDir, { recursive: true });
    const base = path.basename(file, '.js');
    const old = path.join(cacheDir, `${base}-0123456789abcdef0123456789abcdef.v8cache`);
    const staleTmp = path.join(cacheDir, `${base}-x.v8cache.1.aa.tmp`);
    const freshTmp = path.join(cacheDir, `${base}-y.v8cache.2.bb.tmp`);
    const otherFile = path.join(cacheDir, 'history-0123.v8cache');
    for (const f of [old, staleTmp, freshTmp, otherFile]) fs.writeFileSync(f, 'x');
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(staleTmp, hourAgo, hourAgo);
    await load().report.save();
    assert.deepEqual(cacheFiles(), [path.basename(freshTmp), codeCacheName(file, fs.readFileSync(file)), path.basename(otherFile)].sort());
  });
});

describe('when the code cache is written (src/boot/save.ts)', () => {
  const report = (state: CodeCacheReport['state']) => {
    const calls: number[] = [];
    const r: CodeCacheReport = { state, ms: 1, bytes: 0, save: () => (calls.push(Date.now()), Promise.resolve({ outcome: 'written', bytes: 1 })) };
    return { r, calls };
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('after activation has settled and the delay has passed, once', async () => {
    const { r, calls } = report('absent');
    let settle!: () => void;
    const settled = new Promise<void>((res) => (settle = res));
    const outcomes: string[] = [];
    saveWhenSettled(r, settled, 30, (o) => outcomes.push(o.outcome));
    await sleep(80);
    assert.equal(calls.length, 0, 'not before activation settled');
    const t = Date.now();
    settle();
    await sleep(10);
    assert.equal(calls.length, 0, 'not before the delay');
    await sleep(80);
    assert.equal(calls.length, 1);
    assert.ok(calls[0] - t >= 25, `${calls[0] - t} ms after settling`);
    assert.deepEqual(outcomes, ['written']);
  });

  it('also when activation failed; never when disposed first, when the cache was used or when there is no folder', async () => {
    const failed = report('rejected');
    saveWhenSettled(failed.r, Promise.reject(new Error('no session')), 5, () => undefined);
    const disposed = report('absent');
    saveWhenSettled(disposed.r, Promise.resolve(), 5, () => undefined).dispose();
    const used = report('used');
    saveWhenSettled(used.r, Promise.resolve(), 5, () => undefined);
    const off = report('off');
    saveWhenSettled(off.r, Promise.resolve(), 5, () => undefined);
    await sleep(60);
    assert.deepEqual([failed.calls.length, disposed.calls.length, used.calls.length, off.calls.length], [1, 0, 0, 0]);
  });
});

describe('files the bundle loads later (src/boot/chunks.ts)', () => {
  afterEach(() => setChunkLoader(undefined));

  it('come through the loader dist/boot.js hands over, else through the caller\'s own import; a loader\'s failure is a rejection', async () => {
    const asked: string[] = [];
    assert.equal(await loadChunk('undici.js', () => Promise.resolve('imported')), 'imported');
    setChunkLoader((file) => (asked.push(file), 'from the loader'));
    assert.equal(await loadChunk('undici.js', () => Promise.resolve('imported')), 'from the loader');
    assert.deepEqual(asked, ['undici.js']);
    setChunkLoader(() => {
      throw new Error('cannot read');
    });
    await assert.rejects(loadChunk('undici.js', () => Promise.resolve('imported')), /cannot read/);
    setChunkLoader(undefined);
    assert.equal(await loadChunk('undici.js', () => Promise.resolve('imported')), 'imported');
  });
});

// The store of kept copies (src/core/transfer/copies.ts): bounded in bytes with the oldest evicted
// first (bases before copies), a copy larger than the bound refused before anything is written,
// crash safety (a torn or corrupt index line costs that copy only; a damaged blob is never given
// as a copy), two windows sharing one store, compaction. Plain Node, the disk only.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KeptCopies } from '../../src/core/transfer/copies';
import { TransferError } from '../../src/core/transfer/types';

describe('transfer: the store of kept copies', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'srcopies-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const open = (maxBytes = 1_000_000, extra: Partial<Parameters<typeof KeptCopies.open>[0]> = {}) => KeptCopies.open({ folder: KeptCopies.folderFor(dir), maxBytes, ...extra });
  const bytes = (c: string, n: number) => Buffer.alloc(n, c);
  async function keep(s: KeptCopies, p: string, b: Buffer, kind: 'copy' | 'base' | 'held' = 'copy', at?: number) {
    const sha256 = await s.putBlob(b);
    return s.keep({ kind, siteId: 'site', path: p, size: b.length, sha256, why: 'upload', side: 'live', ...(at !== undefined ? { at } : {}) });
  }

  it('keeps, lists newest first, reads back exactly, and removes', async () => {
    const s = await open();
    const a = await keep(s, 'a.txt', Buffer.from('A'), 'copy', 1000);
    const b = await keep(s, 'b.txt', Buffer.from('B'), 'copy', 2000);
    assert.deepEqual((await s.list()).map((c) => c.path), ['b.txt', 'a.txt']);
    assert.equal((await s.read(a.id)).toString(), 'A');
    assert.equal(fs.readFileSync(b.file, 'utf8'), 'B', 'the file named is the bytes');
    if (process.platform !== 'win32') assert.equal(fs.statSync(b.file).mode & 0o777, 0o400, 'read-only on disk');
    await s.remove(a.id);
    assert.deepEqual((await s.list()).map((c) => c.path), ['b.txt']);
    assert.equal(fs.existsSync(a.file), false, 'its blob went with it');
    // Another process opening the folder sees the same.
    assert.deepEqual((await (await open()).list()).map((c) => c.path), ['b.txt']);
  });

  it('stays within its bound: bases go first, then the oldest copies; the copy just kept stays', async () => {
    const s = await open(1000);
    await keep(s, 'base.txt', bytes('x', 200), 'base', 1);
    await keep(s, 'c1.txt', bytes('a', 300), 'copy', 10);
    await keep(s, 'c2.txt', bytes('b', 300), 'copy', 20);
    assert.equal(s.stats().bytes, 800);
    await keep(s, 'c3.txt', bytes('c', 300), 'copy', 30);
    // 1100 > 1000: the base goes first (900).
    assert.equal(s.stats().bases, 0);
    assert.deepEqual((await s.list()).map((c) => c.path), ['c3.txt', 'c2.txt', 'c1.txt']);
    await keep(s, 'c4.txt', bytes('d', 300), 'copy', 40);
    assert.deepEqual((await s.list()).map((c) => c.path), ['c4.txt', 'c3.txt', 'c2.txt'], 'the oldest copy was evicted');
    assert.ok(s.stats().bytes <= 1000);
  });

  it('refuses a copy larger than the bound before anything is read or written', async () => {
    const s = await open(1000);
    assert.throws(() => s.checkRoom(1001, 'big.bin'), (e: unknown) => e instanceof TransferError && e.kind === 'cannot-keep' && /Raise the limit/.test(e.next));
    s.checkRoom(1000, 'fits.bin');
  });

  it('a torn last line of the index costs that copy only', async () => {
    const s = await open();
    await keep(s, 'one.txt', Buffer.from('1'));
    await keep(s, 'two.txt', Buffer.from('2'));
    const index = path.join(KeptCopies.folderFor(dir), 'index.log');
    const text = fs.readFileSync(index, 'utf8');
    fs.writeFileSync(index, text.slice(0, text.length - 20)); // a crash in the middle of the last append
    const again = await open();
    assert.deepEqual((await again.list()).map((c) => c.path), ['one.txt']);
    // A line changed on disk fails its check: skipped, never trusted.
    const lines = fs.readFileSync(index, 'utf8').split('\n');
    lines[0] = lines[0]!.replace('one.txt', 'evil.txt');
    fs.writeFileSync(index, lines.join('\n'));
    assert.deepEqual(await (await open()).list(), []);
  });

  it('a damaged blob is never given as a copy: the read fails and the entry goes', async () => {
    const s = await open();
    const c = await keep(s, 'page.php', Buffer.from('original bytes'));
    fs.chmodSync(c.file, 0o600);
    fs.writeFileSync(c.file, 'tampered bytes');
    await assert.rejects(s.read(c.id), (e: unknown) => e instanceof TransferError && e.kind === 'damaged-copy');
    assert.deepEqual(await s.list(), []);
    // A blob gone from disk: the copy is reported gone, not read.
    const d = await keep(s, 'other.txt', Buffer.from('other'));
    fs.rmSync(d.file, { force: true });
    await assert.rejects(s.read(d.id), (e: unknown) => e instanceof TransferError && e.kind === 'damaged-copy');
  });

  it('two windows share the store: each sees what the other kept and removed', async () => {
    const a = await open();
    const b = await open();
    const k = await keep(a, 'from-a.txt', Buffer.from('a'));
    assert.deepEqual((await b.list()).map((c) => c.path), ['from-a.txt']);
    await b.remove(k.id);
    assert.deepEqual(await a.list(), []);
  });

  it('compacts its index once mostly dead, keeping every live entry; orphan blobs are swept', async () => {
    const s = await open();
    // A blob no entry names (a window killed between writing it and recording it), old enough.
    const orphan = path.join(KeptCopies.folderFor(dir), 'blobs', 'ab', 'ab'.padEnd(64, '0'));
    fs.mkdirSync(path.dirname(orphan), { recursive: true });
    fs.writeFileSync(orphan, 'orphan');
    fs.utimesSync(orphan, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
    const keepers = [];
    for (let i = 0; i < 5; i++) keepers.push(await keep(s, `keep${i}.txt`, Buffer.from(`keep ${i}`)));
    for (let i = 0; i < 150; i++) await s.remove((await keep(s, `tmp${i}.txt`, Buffer.from(`tmp ${i}`))).id);
    const index = path.join(KeptCopies.folderFor(dir), 'index.log');
    const lines = fs.readFileSync(index, 'utf8').split('\n').filter(Boolean).length;
    assert.ok(lines < 150, `compacted (${lines} lines)`);
    assert.equal(fs.existsSync(orphan), false, 'the orphan blob was swept');
    assert.deepEqual((await (await open()).list()).map((c) => c.path).sort(), keepers.map((k) => k.path).sort());
    for (const k of keepers) assert.equal((await s.read(k.id)).toString(), `keep ${k.path.slice(4, 5)}`);
  });

  it('bases: one per path, the newest; dropped on demand; not listed as copies', async () => {
    const s = await open();
    await s.setBase('site', 'a.txt', Buffer.from('v1'));
    await s.setBase('site', 'a.txt', Buffer.from('v2'));
    assert.equal(s.stats().bases, 1);
    const sha = await s.baseOf('site', 'a.txt');
    assert.ok(sha && (await s.hasBlob(sha)));
    assert.equal(fs.readFileSync(s.blobFile(sha), 'utf8'), 'v2');
    assert.deepEqual(await s.list(), []);
    await s.dropBase('site', 'a.txt');
    assert.equal(await s.baseOf('site', 'a.txt'), undefined);
  });
});

// The disk store (src/core/store) on real files in a temp folder: contents and lists, LRU eviction
// and size accounting, de-duplication, corrupt and torn entries, atomic writes across a killed
// process, two instances and two processes on one folder, permissions, "off", and secrets.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SiteRevisionClient, type Site } from '../../src/core/api';
import { accountFolderName, CACHED_SITE_FIELDS, DiskStore } from '../../src/core/store';
import { DEMO, startService } from '../server';

const KB = 1024;
const sha = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('utf8'));

/** Every file below `dir` (relative paths). */
function walk(dir: string, rel = ''): { files: string[]; dirs: string[] } {
  const out = { files: [] as string[], dirs: [rel || '.'] };
  for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, d.name);
    if (d.isDirectory()) {
      const sub = walk(dir, r);
      out.files.push(...sub.files);
      out.dirs.push(...sub.dirs);
    } else out.files.push(r);
  }
  return out;
}
const blobs = (folder: string) => walk(path.join(folder, 'v1', 'blobs')).files.map((f) => path.basename(f)).sort();

describe('disk store', function () {
  const roots: string[] = [];
  const stores: DiskStore[] = [];
  const logs: string[] = [];
  function newFolder(): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-store-'));
    roots.push(root);
    return path.join(root, 'account');
  }
  function open(folder: string, maxBytes = 64 * 1024 * 1024): DiskStore {
    const s = new DiskStore(folder, { maxBytes, log: (m) => logs.push(m) });
    stores.push(s);
    return s;
  }
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.dispose()));
    logs.length = 0;
  });
  after(() => {
    for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
  });

  it('keeps a content across a restart, keyed by site and revision, with its SHA-256', async () => {
    const folder = newFolder();
    const a = open(folder);
    assert.equal(await a.getContent('1', '1001'), undefined);
    assert.equal(await a.putContent('1', '1001', 'héllo'), true);
    assert.equal(text(await a.getContent('1', '1001')), 'héllo');
    assert.equal(await a.getContent('2', '1001'), undefined, 'another site, another key');
    await a.dispose();
    const b = open(folder);
    assert.equal(text(await b.getContent('1', '1001')), 'héllo');
    assert.equal(b.digestOf('1', '1001'), sha(Buffer.from('héllo', 'utf8')));
    assert.deepEqual(b.stats(), { entries: 1, bytes: 6, maxBytes: 64 * 1024 * 1024 });
  });

  it('evicts the least recently used first and counts bytes (also after a restart and a smaller bound)', async () => {
    const folder = newFolder();
    const s = open(folder, 100);
    await s.putContent('1', 'a', 'A'.repeat(40));
    await s.putContent('1', 'b', 'B'.repeat(40));
    assert.deepEqual(s.stats(), { entries: 2, bytes: 80, maxBytes: 100 });
    await s.getContent('1', 'a'); // a is now used more recently than b
    await s.putContent('1', 'c', 'C'.repeat(40));
    assert.equal(s.hasContent('1', 'b'), false);
    assert.equal(await s.getContent('1', 'b'), undefined);
    assert.equal(text(await s.getContent('1', 'a')), 'A'.repeat(40));
    assert.equal(text(await s.getContent('1', 'c')), 'C'.repeat(40));
    assert.deepEqual(s.stats(), { entries: 2, bytes: 80, maxBytes: 100 });
    assert.deepEqual(blobs(folder), [sha('A'.repeat(40)), sha('C'.repeat(40))].sort());
    assert.equal(await s.putContent('1', 'big', 'X'.repeat(101)), false, 'larger than the bound: not stored');
    await s.dispose();

    const again = open(folder, 100);
    await again.ready;
    assert.deepEqual(again.stats(), { entries: 2, bytes: 80, maxBytes: 100 });
    await again.setMaxBytes(50);
    assert.deepEqual(again.stats(), { entries: 1, bytes: 40, maxBytes: 50 });
    assert.equal(again.hasContent('1', 'a'), false, 'a was used before c was stored');
    assert.deepEqual(blobs(folder), [sha('C'.repeat(40))]);
  });

  it('stores the same content once for two revisions; evicting one keeps the blob for the other', async () => {
    const folder = newFolder();
    const s = open(folder, 100);
    const same = 'S'.repeat(40);
    await s.putContent('1', 'r1', same);
    await s.putContent('1', 'w', 'W'.repeat(40));
    await s.putContent('1', 'r2', same);
    assert.deepEqual(s.stats(), { entries: 3, bytes: 80, maxBytes: 100 }, 'the shared blob is counted once');
    assert.deepEqual(blobs(folder), [sha(same), sha('W'.repeat(40))].sort());
    // Over the bound: r1 goes first (frees nothing, r2 still names the blob), then w.
    await s.putContent('1', 'v', 'V'.repeat(40));
    assert.equal(s.hasContent('1', 'r1'), false);
    assert.equal(s.hasContent('1', 'w'), false);
    assert.equal(text(await s.getContent('1', 'r2')), same);
    assert.deepEqual(blobs(folder), [sha(same), sha('V'.repeat(40))].sort());
    assert.deepEqual(s.stats(), { entries: 2, bytes: 80, maxBytes: 100 });
  });

  it('concurrent puts of shared contents while evicting: every key the index names reads back, and the files are those it names', async () => {
    const folder = newFolder();
    const s = open(folder, 20 * KB);
    const content = (i: number) => `content-${i % 40}`.padEnd(KB, '.');
    await Promise.all(Array.from({ length: 300 }, (_, i) => s.putContent('1', String(i), content(i))));
    const named = new Set<string>();
    for (let i = 0; i < 300; i++) {
      if (!s.hasContent('1', String(i))) continue;
      assert.equal(text(await s.getContent('1', String(i))), content(i), `key ${i}`);
      named.add(sha(content(i)));
    }
    assert.ok(named.size >= 10);
    assert.ok(s.stats().bytes <= 20 * KB);
    assert.equal(s.stats().bytes, named.size * KB);
    assert.deepEqual(blobs(folder), [...named].sort());
  });

  it('drops a corrupt entry (one byte flipped): a miss, in every window, and it can be stored again', async () => {
    const folder = newFolder();
    const a = open(folder);
    const b = open(folder);
    const content = 'line one\nline two\n';
    await a.putContent('1', '1001', content);
    await a.put({ kind: 'files', siteId: '1' }, ['a.php', 'b/c.php']);
    assert.equal(text(await b.getContent('1', '1001')), content);
    for (const hash of [sha(content), sha('F1\na.php\nb/c.php')]) {
      const file = path.join(folder, 'v1', 'blobs', hash.slice(0, 2), hash);
      const bytes = fs.readFileSync(file);
      bytes[3] ^= 0x20;
      fs.writeFileSync(file, bytes);
    }
    assert.equal(await a.getContent('1', '1001'), undefined);
    assert.equal(await a.peek({ kind: 'files', siteId: '1' }), undefined);
    assert.ok(logs.some((m) => /corrupt/.test(m)));
    assert.equal(await b.getContent('1', '1001'), undefined, 'the other window finds no valid content either');
    assert.deepEqual(blobs(folder), []);
    assert.equal(await a.putContent('1', '1001', content), true);
    assert.equal(text(await b.getContent('1', '1001')), content);
  });

  it('lists: the value with the time it was fetched; an unchanged list fetched again is stored once; odd entries are dropped one by one', async () => {
    const folder = newFolder();
    const s = open(folder);
    assert.equal(await s.peek({ kind: 'files', siteId: '1' }), undefined);
    await s.put({ kind: 'files', siteId: '1' }, ['a.php', 7, '', 'b/c.php'] as unknown as string[], 1000);
    assert.deepEqual(await s.peek({ kind: 'files', siteId: '1' }), { value: ['a.php', 'b/c.php'], fetchedAt: 1000 });
    await s.put({ kind: 'files', siteId: '1' }, ['a.php', 'b/c.php'], 2000);
    assert.deepEqual(await s.peek({ kind: 'files', siteId: '1' }), { value: ['a.php', 'b/c.php'], fetchedAt: 2000 });
    assert.deepEqual(blobs(folder), [sha('F1\na.php\nb/c.php')], 'one path per line; stored once');
    // Paths a line-per-path file cannot hold exactly go as JSON.
    const odd = ['line\nbreak.txt', 'lone\ud800.txt', 'ok.txt'];
    await s.put({ kind: 'files', siteId: '3' }, odd);
    assert.deepEqual((await s.peek({ kind: 'files', siteId: '3' }))?.value, odd);
    await s.put({ kind: 'files', siteId: '4' }, []);
    assert.deepEqual((await s.peek({ kind: 'files', siteId: '4' }))?.value, []);
    const revisions = [
      { id: '2', date: '2024-02-01 10:00:00', author: 'bob', content: 'two' },
      { id: 5, date: null, author: 'x' },
      { date: '2024-01-01 10:00:00' },
      'junk',
    ];
    await s.put({ kind: 'revisions', siteId: '1', path: 'a.php' }, revisions as never, 3000);
    const got = await s.peek({ kind: 'revisions', siteId: '1', path: 'a.php' });
    assert.deepEqual(got, { value: [{ id: '2', date: '2024-02-01 10:00:00', author: 'bob' }, { id: '5', date: '', author: 'x' }], fetchedAt: 3000 });
    assert.equal(await s.peek({ kind: 'revisions', siteId: '1', path: 'b.php' }), undefined);
    assert.equal(await s.peek({ kind: 'files', siteId: '2' }), undefined);
    assert.ok(!walk(folder).files.some((f) => fs.readFileSync(path.join(folder, f)).includes('"two"')), 'no content in a stored list');
    await s.forgetSite('1');
    assert.equal(await s.peek({ kind: 'files', siteId: '1' }), undefined);
    assert.equal(await s.peek({ kind: 'revisions', siteId: '1', path: 'a.php' }), undefined);
    assert.equal((await s.peek({ kind: 'files', siteId: '3' }))?.value.length, 3, 'other sites stay');
    await s.forgetSite('3');
    await s.forgetSite('4');
    assert.deepEqual(blobs(folder), []);
  });

  it('two instances on one folder (two windows) see each other’s entries, evictions and compaction', async () => {
    const folder = newFolder();
    const a = open(folder, 10 * KB);
    const b = open(folder, 10 * KB);
    await a.putContent('1', 'x', 'x'.repeat(KB));
    assert.equal(text(await b.getContent('1', 'x')), 'x'.repeat(KB), 'b reads what a stored');
    await b.put({ kind: 'sites' }, [{ id: '1', name: 'One', ftp_pass: 'secret' }]);
    assert.equal((await a.peek({ kind: 'sites' }))?.value[0]?.name, 'One');
    // a evicts x (the least recently used in a's view; the sites list fits); b then misses it instead of reading a deleted blob.
    await a.setMaxBytes(1000);
    assert.equal(await b.getContent('1', 'x'), undefined);
    assert.equal((await b.peek({ kind: 'sites' }))?.value.length, 1);
    await a.setMaxBytes(10 * KB);
    for (let i = 0; i < 5; i++) await b.putContent('2', String(i), `b-${i}`);
    assert.equal(await a.compact(), true);
    await b.refresh();
    for (let i = 0; i < 5; i++) await b.putContent('3', String(i), `b3-${i}`);
    assert.equal(a.stats().entries, 6);
    await a.refresh();
    assert.deepEqual(a.stats(), b.stats());
    const c = open(folder, 10 * KB);
    for (let i = 0; i < 5; i++) {
      assert.equal(text(await c.getContent('2', String(i))), `b-${i}`);
      assert.equal(text(await c.getContent('3', String(i))), `b3-${i}`);
    }
    assert.deepEqual(c.stats(), b.stats());
  });

  it('two processes writing to one folder at once, each compacting midway, lose nothing', async () => {
    const folder = newFolder();
    const s = open(folder);
    await s.ready;
    const child = runChild(['writer', folder, 'child', '150']);
    for (let i = 0; i < 150; i++) {
      assert.equal(await s.putContent('parent', String(i), `parent-${i}`), true);
      if (i === 75) await s.compact();
    }
    assert.match((await child).stdout, /DONE/);
    await s.dispose();
    const fresh = open(folder);
    for (const tag of ['parent', 'child']) {
      for (let i = 0; i < 150; i++) assert.equal(text(await fresh.getContent(tag, String(i))), `${tag}-${i}`, `${tag} ${i}`);
    }
    assert.equal(fresh.stats().entries, 300);
    assert.deepEqual(logs, []);
  });

  it('a process killed between writing the temporary file and renaming it leaves the old entry; temporary files are ignored and cleaned', async () => {
    const folder = newFolder();
    let pid = 0;
    let tmp = '';
    const child = runChild(['kill-before-rename', folder], (line, proc) => {
      const m = /^PAUSED (.+)$/.exec(line);
      if (!m) return;
      pid = proc.pid!;
      tmp = m[1]!;
      assert.ok(fs.existsSync(tmp), 'the temporary file is there');
      // A torn temporary file of the same process, as a crash mid-write leaves it.
      fs.writeFileSync(path.join(path.dirname(tmp), `${pid}-0badc0de.tmp`), '["v2.t');
      proc.kill('SIGKILL');
    });
    const r = await child;
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(tmp && pid);
    assert.equal(fs.readdirSync(path.dirname(tmp)).length, 2);
    const s = open(folder);
    assert.deepEqual((await s.peek({ kind: 'files', siteId: '1' }))?.value, ['v1.txt']);
    assert.deepEqual(fs.readdirSync(path.dirname(tmp)), [], 'the dead process’s temporary files are gone');
    assert.equal(await s.put({ kind: 'files', siteId: '1' }, ['v2.txt']), true);
    assert.deepEqual((await s.peek({ kind: 'files', siteId: '1' }))?.value, ['v2.txt']);
  });

  it('skips a torn journal line and survives an unreadable index snapshot', async () => {
    const folder = newFolder();
    const a = open(folder);
    await a.putContent('1', 'x', 'x-content');
    await a.dispose();
    const index = path.join(folder, 'v1', 'index');
    const journal = fs.readdirSync(index).find((n) => n.endsWith('.log'))!;
    fs.appendFileSync(path.join(index, journal), '0badc0de ["P","[\\"c\\",\\"1\\",\\"y');
    const b = open(folder);
    assert.equal(text(await b.getContent('1', 'x')), 'x-content');
    await b.putContent('1', 'z', 'z-content');
    assert.equal(await b.compact(), true);
    await b.dispose();
    fs.writeFileSync(path.join(index, 'snapshot'), '{"not": "a snapshot"');
    const c = open(folder);
    await c.ready;
    assert.ok(logs.some((m) => /unreadable/.test(m)));
    // The index restarts from what is left; nothing wrong is served and the store works on.
    for (const id of ['x', 'z']) assert.ok([undefined, `${id}-content`].includes(text(await c.getContent('1', id))));
    assert.equal(await c.putContent('1', 'w', 'w-content'), true);
    assert.equal(text(await c.getContent('1', 'w')), 'w-content');
  });

  it('compaction sweeps blobs no key names (once they are old) and takes over a lock left by a process that is gone', async () => {
    const folder = newFolder();
    const s = open(folder);
    await s.putContent('1', '1', 'kept');
    const blobDir = path.join(folder, 'v1', 'blobs', 'ab');
    fs.mkdirSync(blobDir, { recursive: true });
    const old = path.join(blobDir, 'ab'.padEnd(64, '0'));
    const recent = path.join(blobDir, 'ab'.padEnd(64, '1'));
    fs.writeFileSync(old, 'orphan of a crash');
    fs.writeFileSync(recent, 'just written by another window, not in the index yet');
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(old, hourAgo, hourAgo);
    const deadPid = await new Promise<number>((resolve) => {
      const p = spawn(process.execPath, ['-e', '']);
      p.on('close', () => resolve(p.pid!));
    });
    fs.writeFileSync(path.join(folder, 'v1', 'index', 'lock'), String(deadPid));
    assert.equal(await s.compact(), true);
    assert.equal(fs.existsSync(old), false);
    assert.equal(fs.existsSync(recent), true);
    assert.equal(fs.existsSync(path.join(folder, 'v1', 'index', 'lock')), false);
    assert.equal(text(await s.getContent('1', '1')), 'kept');
  });

  it('never writes a secret: demo sites of every account (passwords, keys, tokens in URLs, unknown fields) are cut down before they reach the disk', async () => {
    const service = await startService({ quiet: true });
    const folder = newFolder();
    const s = open(folder);
    // Account credentials never reach the store's API at all; they are scanned for all the same
    // (except the demo account's password "demo", which is part of its email, an author name).
    const secrets: string[] = [DEMO.keyUser.password, DEMO.keyUser.apiKey, DEMO.team.password];
    try {
      const all: Site[] = [];
      for (const creds of [DEMO.user, DEMO.team, DEMO.keyUser]) {
        const client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => creds });
        try {
          all.push(...(await client.getSites()));
          if (creds === DEMO.user) {
            for (const site of ['1', '6']) {
              const files = await client.getRevisionFiles(site);
              await s.put({ kind: 'files', siteId: site }, files);
              const revs = await client.getRevisions(site, files[0]!, { withContent: true });
              await s.put({ kind: 'revisions', siteId: site, path: files[0]! }, revs);
              for (const r of revs) await s.putContent(site, r.id, r.content!);
            }
          }
        } finally {
          await client.dispose();
        }
      }
      for (const site of all) for (const f of ['ftp_pass', 'db_password'] as const) if (site[f]) secrets.push(site[f]);
      assert.ok(secrets.length >= 10, `${secrets.length} secrets in the demo data`);
      const hostile = {
        ...all[0]!,
        id: '99',
        git_url: 'https://deploy:ghp_T0KEN-in-git-url@git.example/x.git',
        web_url: 'https://admin:Web-Pa55-in-url@www.example/',
        db_phpmyadmin: 'https://pma-token-only@db.example/',
        save_password: 'Saved-Pa55',
        api_token: 'Unknown-field-T0KEN',
        nested: { password: 'Nested-Pa55' },
      };
      secrets.push('ghp_T0KEN-in-git-url', 'Web-Pa55-in-url', 'pma-token-only', 'Saved-Pa55', 'Unknown-field-T0KEN', 'Nested-Pa55');
      assert.equal(await s.put({ kind: 'sites' }, [...all, hostile]), true);
      await s.compact();
      await s.dispose();

      const { files } = walk(folder);
      assert.ok(files.length >= 5);
      for (const f of files) {
        const bytes = fs.readFileSync(path.join(folder, f));
        for (const secret of secrets) {
          for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])) {
            assert.ok(!bytes.includes(form), `a secret (${secret.slice(0, 3)}…) is in ${f}`);
          }
        }
      }
      const back = (await open(folder).peek({ kind: 'sites' }))!.value;
      assert.equal(back.length, all.length + 1);
      for (const site of back) assert.deepEqual(Object.keys(site).sort(), [...CACHED_SITE_FIELDS, 'shared'].sort());
      const h = back.find((x) => x.id === '99')!;
      assert.equal(h.git_url, 'https://git.example/x.git');
      assert.equal(h.web_url, 'https://www.example/');
      assert.equal(h.save_password, '');
      assert.equal(back.find((x) => x.id === all[0]!.id)!.name, all[0]!.name);
    } finally {
      await service.close();
    }
  });

  it('folders are 0700 and files 0600', async function () {
    if (process.platform === 'win32') this.skip();
    const folder = newFolder();
    const s = open(folder);
    await s.putContent('1', '1', 'one');
    await s.put({ kind: 'sites' }, [{ id: '1', name: 'One' }]);
    await s.getContent('1', '1');
    await s.compact();
    await s.putContent('1', '2', 'two');
    await s.dispose();
    const { files, dirs } = walk(folder);
    assert.ok(files.length >= 4 && dirs.length >= 5);
    for (const d of dirs) assert.equal(fs.statSync(path.join(folder, d)).mode & 0o777, 0o700, d);
    for (const f of files) assert.equal(fs.statSync(path.join(folder, f)).mode & 0o777, 0o600, f);
  });

  it('maxBytes 0 turns it off: nothing is written, and what an earlier session stored is deleted', async () => {
    const folder = newFolder();
    const off = open(folder, 0);
    assert.equal(await off.putContent('1', '1', 'one'), false);
    assert.equal(await off.put({ kind: 'files', siteId: '1' }, ['a']), false);
    assert.equal(await off.getContent('1', '1'), undefined);
    assert.equal(await off.peek({ kind: 'files', siteId: '1' }), undefined);
    assert.equal(off.enabled, false);
    assert.equal(fs.existsSync(folder), false, 'not even the folder');

    const on = open(folder);
    await on.putContent('1', '1', 'one');
    await on.dispose();
    assert.ok(fs.existsSync(path.join(folder, 'v1')));
    await open(folder, 0).ready;
    assert.equal(fs.existsSync(folder), false);

    const s = open(folder);
    await s.putContent('1', '1', 'one');
    await s.setMaxBytes(0);
    assert.equal(fs.existsSync(folder), false);
    assert.equal(await s.getContent('1', '1'), undefined);
    await s.setMaxBytes(1024);
    assert.equal(s.enabled, true);
    assert.equal(await s.getContent('1', '1'), undefined, 'starts empty');
    assert.equal(await s.putContent('1', '1', 'one'), true);
  });

  it('a disk problem is a miss, not an error (the folder cannot be created)', async () => {
    const root = newFolder();
    fs.mkdirSync(path.dirname(root), { recursive: true });
    fs.writeFileSync(root, 'a file where the folder should be');
    const s = open(path.join(root, 'account'));
    assert.equal(await s.putContent('1', '1', 'one'), false);
    assert.equal(await s.getContent('1', '1'), undefined);
    assert.equal(s.enabled, false);
    assert.ok(logs.some((m) => /cannot be used/.test(m)));
  });

  it('destroy() (sign-out) deletes the account’s folder even when the last write of the index fails, as on a full disk', async () => {
    const folder = newFolder();
    const earlier = open(folder);
    for (let i = 0; i < 61; i++) await earlier.putContent('1', String(1000 + i), `revision ${i}`);
    await earlier.dispose();
    // The account's next session reads a revision: a use record waits to be written to the index…
    const s = open(folder);
    assert.equal(text(await s.getContent('1', '1000')), 'revision 0');
    // …and the index can take no write any more (its folder has become a file: ENOTDIR, where a
    // full disk gives ENOSPC), so closing the store fails.
    const index = path.join(folder, 'v1', 'index');
    fs.rmSync(index, { recursive: true });
    fs.writeFileSync(index, '');
    await s.destroy();
    assert.equal(fs.existsSync(folder), false, 'the account’s folder and its 61 revisions are gone');
    assert.ok(logs.some((m) => /could not be written before the cache was deleted \(ENOTDIR/.test(m)), logs.join('\n'));
    assert.equal(s.enabled, false);
  });

  it('accountFolderName: one folder per service and email, named by a hash', () => {
    const a = accountFolderName('https://Revisions.example.com/', 'demo@example.com');
    assert.match(a, /^[0-9a-f]{32}$/);
    assert.equal(accountFolderName('https://user:pw@revisions.example.com?x=1#y', ' demo@example.com '), a);
    assert.notEqual(accountFolderName('https://revisions.example.com', 'other@example.com'), a);
    assert.notEqual(accountFolderName('https://revisions.example.com/app', 'demo@example.com'), a);
    assert.notEqual(accountFolderName('https://revisions.example.com:8443', 'demo@example.com'), a);
    assert.throws(() => accountFolderName('not a url', 'demo@example.com'), TypeError);
  });
});

/** Runs test/unit/helpers/storeChild.js with `args`; `onLine` sees each stdout line. */
function runChild(args: string[], onLine?: (line: string, proc: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [path.join(__dirname, 'helpers', 'storeChild.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    let pending = '';
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (d: string) => {
      stdout += d;
      pending += d;
      let i: number;
      while ((i = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, i);
        pending = pending.slice(i + 1);
        try {
          onLine?.(line, proc);
        } catch (e) {
          proc.kill('SIGKILL');
          reject(e);
        }
      }
    });
    proc.on('error', reject);
    proc.on('close', (code, signal) => resolve({ code, signal, stdout }));
  });
}

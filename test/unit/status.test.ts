// The status of a mapped folder (src/core/status) over the revision store and its disk cache, against
// the local service over real HTTP, with working files in a temporary folder: the three groups
// and the count of local files with no revision, computed here from the service's own data;
// what each way of asking costs in requests (cold: one Get Revisions per file; cached, after a
// reload: none; refresh: the lists again); a save updates one file with no request; offline
// keeps the last known state, marked.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SiteRevisionClient } from '../../src/core/api';
import { digest, RevisionStore } from '../../src/core/model/revisionStore';
import { parseRevisionDate } from '../../src/core/model/ordering';
import { RequestScheduler } from '../../src/core/scheduler';
import { isOffline } from '../../src/features/sites/viewState';
import { FolderStatus, stateOf, type GroupId } from '../../src/core/status';
import { scanStatus, storeSource, type StatusMode } from '../../src/core/status/scan';
import { readSnapshot, restoreSnapshot, snapshotName, snapshotOf, snapshotSource, writeSnapshot } from '../../src/core/status/snapshot';
import { DigestCache, MAX_COMPARED_BYTES, nodeWorkingFs, ReadBudget, readWorking, type WorkingFs } from '../../src/core/status/working';
import { SLICE } from '../../src/core/store/slices';
import { MAX_REPLY_BYTES } from '../../src/core/api/limits';
import { isTooLarge } from '../../src/core/api/errors';
import { createHash, randomBytes } from 'node:crypto';
import { DiskStore } from '../../src/core/store';
import { DEMO, startService, type RunningService } from '../server';

interface ServiceRevision {
  id: string;
  date: string;
  author: string;
  content: string;
}

describe('status of a mapped folder (local service)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let client: SiteRevisionClient;
  let siteId: string;
  let root: string;
  let folder: string;
  let cache: string;
  const disks: DiskStore[] = [];
  /** Every file of the site and its revisions, oldest first, straight from the service. */
  let site: Map<string, ServiceRevision[]>;

  const history = async (p: string): Promise<ServiceRevision[]> =>
    [...(await client.getRevisions(siteId, p, { withContent: true }))]
      .map((r) => ({ id: r.id, date: r.date, author: r.author, content: r.content! }))
      .sort((a, b) => parseRevisionDate(a.date)! - parseRevisionDate(b.date)! || Number(a.id) - Number(b.id));
  const write = (rel: string, text: string, mtime?: number) => {
    const file = path.join(folder, ...rel.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    if (mtime !== undefined) fs.utimesSync(file, new Date(mtime), new Date(mtime));
  };
  const store = (c = client) => {
    const disk = new DiskStore(cache, { maxBytes: 64 * 1024 * 1024 });
    disks.push(disk);
    return new RevisionStore((fn) => fn(c), 16 * 1024 * 1024, undefined, { disk: () => Promise.resolve(disk), isOffline });
  };
  const scan = (s: RevisionStore, status: FolderStatus, mode: StatusMode, digests = new DigestCache(), working: WorkingFs = nodeWorkingFs(folder)) => scanStatus(status, storeSource(s, siteId, mode), working, digests, { walkMax: 1000 });
  /** The folder's files, counting the ones hashed. */
  const counted = () => {
    const base = nodeWorkingFs(folder);
    const hashed: string[] = [];
    return { hashed, fs: { ...base, hash: (r: string, o?: Parameters<WorkingFs['hash']>[1]) => (hashed.push(r), base.hash(r, o)) } satisfies WorkingFs };
  };
  const groups = (status: FolderStatus) => {
    const g = status.groups();
    const names = (id: GroupId) => g[id].map((e) => e.path);
    return { changedLocally: names('changedLocally'), newerOnService: names('newerOnService'), onlyOnService: names('onlyOnService'), unknown: g.unknown, localOnly: status.localOnly.count };
  };
  const ops = () => service.requests().map((r) => `${r.operation}${/no_content=0/.test(r.url) ? '+content' : ''}`);

  before(async () => {
    service = await startService({ quiet: true });
    client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 10_000, retries: 0, scheduler: new RequestScheduler() });
    siteId = (await client.getSites()).find((s) => s.name === 'Acme Corporate')!.id;
  });
  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-status-'));
    folder = path.join(root, 'site');
    cache = path.join(root, 'cache');
    fs.mkdirSync(folder);
    service.configure({ down: false, latencyMs: 0 });
    // The seed again (a test adds a revision), as the service lists it now.
    await (await fetch(`${service.url}/__control/reseed`, { method: 'POST' })).arrayBuffer();
    site = new Map();
    for (const p of await client.getRevisionFiles(siteId)) site.set(p, await history(p));
    service.resetStats();
  });
  afterEach(async () => {
    for (const d of disks.splice(0)) await d.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });
  after(async () => {
    await client.dispose();
    await service.close();
  });

  /**
   * The working folder: every file of the site as its newest revision (old enough), except one
   * edited here (just now), one that is an older revision written before the newest was saved,
   * one missing; and two local files with no revision (and a .git folder, which is not counted).
   */
  const layout = () => {
    const paths = [...site.keys()];
    assert.ok(paths.length >= 4, 'the demo site has files');
    const [edited, older, missing] = paths;
    const newestTime = (p: string) => parseRevisionDate(site.get(p)!.at(-1)!.date)!;
    for (const p of paths) {
      const revs = site.get(p)!;
      if (p === missing) continue;
      if (p === edited) write(p, `${revs.at(-1)!.content}\n// edited here\n`);
      else if (p === older) write(p, revs[0]!.content, newestTime(p) - 60_000);
      else write(p, revs.at(-1)!.content, newestTime(p) - 1000);
    }
    write('notes/local-only.txt', 'mine\n');
    write('draft.php', '<?php // not saved to the site yet\n');
    write('.git/config', '[core]\n');
    // The oldest revision differs from the newest for the older file (else it would be the same).
    assert.notEqual(site.get(older!)![0]!.content, site.get(older!)!.at(-1)!.content);
    return { paths, edited: edited!, older: older!, missing: missing! };
  };

  it('cold: the groups as the service’s data says, with one Get Revisions (with content) per file and nothing else', async () => {
    const { paths, edited, older, missing } = layout();
    service.resetStats();
    const status = new FolderStatus(false);
    const r = await scan(store(), status, 'complete');
    assert.deepEqual(r, { noList: false, offline: false, failed: 0 });
    assert.deepEqual(groups(status), { changedLocally: [edited], newerOnService: [older], onlyOnService: [missing], unknown: 0, localOnly: 2 });
    assert.deepEqual(ops().sort(), ['getRevisionFiles', ...paths.map(() => 'getRevisions+content')].sort());
    // The entries carry the newest revision as the service lists it.
    const e = status.get(older)!;
    assert.equal(e.newest?.id, site.get(older)!.at(-1)!.id);
    assert.equal(e.newest?.digest, digest(Buffer.from(site.get(older)!.at(-1)!.content)));
  });

  it('cached: the same groups again with no request; a cached pass before a cold one, or after a reload without the folder’s snapshot, sends nothing', async () => {
    const { paths, edited, older, missing } = layout();
    const fresh = new FolderStatus(false);
    assert.deepEqual(await scan(store(), fresh, 'cached'), { noList: true, offline: false, failed: 0 }, 'nothing cached yet');
    assert.equal(service.count(), 0);
    const s = store();
    await scan(s, new FolderStatus(false), 'complete');
    service.resetStats();
    const status = new FolderStatus(false);
    await scan(s, status, 'cached');
    assert.deepEqual(groups(status), { changedLocally: [edited], newerOnService: [older], onlyOnService: [missing], unknown: 0, localOnly: 2 });
    assert.equal(service.count(), 0, 'no request');
    // A reload: the site's list is on disk; what one Get Revisions brought for the status is not
    // (the folder's snapshot has it: see the reload test below). Nothing is asked in a cached pass.
    for (const d of disks.splice(0)) await d.dispose();
    const reloaded = new FolderStatus(false);
    assert.equal((await scan(store(), reloaded, 'cached')).noList, false);
    assert.equal(groups(reloaded).unknown, paths.length, 'no file’s newest revision is known');
    assert.equal(service.count(), 0);
  });

  it('a save of one file updates its state from its new digest, with no request and no other file read', async () => {
    const { edited, older } = layout();
    const s = store();
    const status = new FolderStatus(false);
    const digests = new DigestCache();
    await scan(s, status, 'complete', digests);
    service.resetStats();
    const fsys = nodeWorkingFs(folder);
    // The edited file saved as the newest revision again: it leaves "Changed locally".
    write(edited, site.get(edited)!.at(-1)!.content);
    let changes = status.updateWorking(status.get(edited)!.relative, await readWorking(fsys, status.get(edited)!.relative, digests));
    assert.deepEqual(changes.map((c) => [c.entry.path, c.before, c.after]), [[edited, 'changedLocally', 'same']]);
    // The older file edited and saved now: newer than the revision, so changed locally.
    write(older, 'rewritten here\n');
    changes = status.updateWorking(status.get(older)!.relative, await readWorking(fsys, status.get(older)!.relative, digests));
    assert.deepEqual(changes.map((c) => [c.entry.path, c.before, c.after]), [[older, 'newerOnService', 'changedLocally']]);
    // Deleted: only on the service.
    fs.rmSync(path.join(folder, ...older.split('/')));
    changes = status.updateWorking(status.get(older)!.relative, await readWorking(fsys, status.get(older)!.relative, digests));
    assert.deepEqual(changes.map((c) => c.after), ['onlyOnService']);
    assert.equal(service.count(), 0, 'no request');
  });

  it('refresh: the lists are asked again (no content); a newer revision saved by a colleague is read once and moves its file to “Newer on the service”', async () => {
    const { paths, edited, older, missing } = layout();
    const s = store();
    const status = new FolderStatus(false);
    await scan(s, status, 'complete');
    const same = paths.find((p) => ![edited, older, missing].includes(p))!;
    const res = await fetch(`${service.url}/__control/add-revision`, { method: 'POST', body: JSON.stringify({ siteId, path: same, content: 'saved by a colleague\n' }) });
    const added = (await res.json()) as { id: string };
    service.resetStats();
    await scan(s, status, 'refresh');
    assert.deepEqual(groups(status).newerOnService, [older, same].sort((a, b) => status.get(a)!.relative.localeCompare(status.get(b)!.relative, undefined, { numeric: true })));
    assert.equal(status.get(same)!.newest?.id, added.id);
    assert.deepEqual(ops().sort(), ['getRevision', 'getRevisionFiles', ...paths.map(() => 'getRevisions')].sort(), 'every list again, and the one new content');
    // A cached pass now knows it too, with no request.
    service.resetStats();
    const again = new FolderStatus(false);
    await scan(s, again, 'cached');
    assert.ok(groups(again).newerOnService.includes(same));
    assert.equal(service.count(), 0);
  });

  it('offline: a refresh keeps the last known state and says it is offline', async () => {
    const { edited, older, missing } = layout();
    const s = store();
    const status = new FolderStatus(false);
    await scan(s, status, 'complete');
    service.configure({ down: true });
    const r = await scan(s, status, 'refresh');
    assert.equal(r.offline, true);
    assert.equal(r.failed, 0);
    assert.deepEqual(groups(status), { changedLocally: [edited], newerOnService: [older], onlyOnService: [missing], unknown: 0, localOnly: 2 });
  });

  it('a file whose history is over the reply bound: its list and its newest revision, each alone', async () => {
    const [p] = [...site.keys()];
    const s = store();
    service.resetStats();
    const { list, digest: sum } = await s.newest(siteId, p!, { maxReplyBytes: 64 });
    assert.equal(list.items[0]?.item.id, site.get(p!)!.at(-1)!.id);
    assert.equal(sum, digest(Buffer.from(site.get(p!)!.at(-1)!.content)));
    assert.deepEqual(ops(), ['getRevisions+content', 'getRevisions', 'getRevision']);
    // Now cached: nothing more.
    service.resetStats();
    assert.equal((await s.newest(siteId, p!, { maxReplyBytes: 64 })).digest, sum);
    assert.equal(service.count(), 0);
  });

  it('a window reload: the snapshot gives the last known status at once, reading only the working files changed since; the store’s pass after it keeps a digest it does not have', async () => {
    const { edited, older, missing } = layout();
    const status = new FolderStatus(false);
    await scan(store(), status, 'complete');
    const dir = path.join(root, 'snapshots');
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    await writeSnapshot(dir, snapshotOf(status, siteId, folder));
    assert.deepEqual(fs.readdirSync(dir), [snapshotName(siteId, folder)]);
    service.resetStats();
    // A new window: the snapshot, then the working files by size and time.
    let reads = 0;
    const base = nodeWorkingFs(folder);
    const counting: WorkingFs = { ...base, hash: (r, o) => (reads++, base.hash(r, o)) };
    const again = new FolderStatus(false);
    const digests = new DigestCache();
    const snap = await readSnapshot(dir, siteId, folder);
    assert.ok(snap);
    restoreSnapshot(again, snap, digests);
    await scanStatus(again, snapshotSource(again), counting, digests);
    assert.deepEqual(groups(again), { changedLocally: [edited], newerOnService: [older], onlyOnService: [missing], unknown: 0, localOnly: 2 });
    assert.equal(reads, 0, 'no working file read: none changed');
    write(older, 'edited since\n');
    await scanStatus(again, snapshotSource(again), counting, digests);
    assert.equal(reads, 1, 'the one changed since');
    assert.deepEqual(groups(again).changedLocally, [edited, older].sort((a, b) => again.get(a)!.relative.localeCompare(again.get(b)!.relative)));
    assert.equal(service.count(), 0);
    // The store's pass: the same newest revision without its content's digest keeps the one known.
    const sameId = { asks: false, siteFiles: () => Promise.resolve({ paths: again.all().map((e) => e.path), offline: false }), newest: (p: string) => Promise.resolve({ newest: { ...again.get(p)!.newest!, digest: undefined }, offline: false }) };
    await scanStatus(again, sameId, counting, digests);
    assert.equal(groups(again).unknown, 0);
    // Another site's or folder's snapshot, or a damaged one, is not taken.
    assert.equal(await readSnapshot(dir, '999', folder), undefined);
    assert.equal(await readSnapshot(dir, siteId, `${folder}-other`), undefined);
    fs.writeFileSync(path.join(dir, snapshotName(siteId, folder)), '{"v":1,');
    assert.equal(await readSnapshot(dir, siteId, folder), undefined);
  });

  it('a working file larger than the largest revision the client can read is not read: Not Compared (too large), never absent — 64 MiB + 1 byte, and 2.5 GB (which fs.readFile cannot read at all)', async () => {
    const { paths } = layout();
    // Two files the site lists, as large sparse files (no disk used; read, they are zeros).
    const [big, huge] = paths.slice(3);
    assert.ok(big && huge);
    assert.equal(MAX_COMPARED_BYTES, MAX_REPLY_BYTES, 'the figure: the largest reply the client reads');
    fs.truncateSync(path.join(folder, ...big.split('/')), MAX_REPLY_BYTES + 1);
    fs.truncateSync(path.join(folder, ...huge.split('/')), 2.5 * 1024 ** 3);
    const { hashed, fs: counting } = counted();
    const status = new FolderStatus(false);
    await scan(store(), status, 'complete', new DigestCache(), counting);
    assert.deepEqual(
      groups(status).onlyOnService.filter((p) => p === big || p === huge),
      [],
      'never taken for absent',
    );
    assert.deepEqual(status.groups().notCompared.map((e) => e.path).sort(), [big, huge].sort());
    for (const p of [big, huge]) assert.equal(status.get(p)!.working?.notCompared, 'tooLarge');
    assert.ok(!hashed.includes(big) && !hashed.includes(huge), `not read: ${hashed.join(', ')}`);
    // A file of exactly the limit is read and compared.
    fs.truncateSync(path.join(folder, ...big.split('/')), MAX_REPLY_BYTES);
    const w = await readWorking(counting, big, new DigestCache());
    assert.equal(w?.notCompared, undefined);
    assert.equal(w?.digest, createHash('sha256').update(fs.readFileSync(path.join(folder, ...big.split('/')))).digest('hex'));
  });

  it('a working file that is there but cannot be read is Not Compared (unreadable, with why), never only on the service; one gone between the two looks is absent', async () => {
    const { paths } = layout();
    const [, , , locked, vanishing] = paths;
    assert.ok(locked && vanishing);
    const base = nodeWorkingFs(folder);
    const denied = Object.assign(new Error(`EACCES: permission denied, open '${locked}'`), { code: 'EACCES' });
    const flaky: WorkingFs = {
      ...base,
      hash: async (r, o) => {
        if (r === locked) throw denied;
        if (r === vanishing) {
          fs.rmSync(path.join(folder, ...r.split('/')));
          throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        }
        return base.hash(r, o);
      },
    };
    const status = new FolderStatus(false);
    await scan(store(), status, 'complete', new DigestCache(), flaky);
    assert.deepEqual(status.groups().notCompared.map((e) => e.path), [locked]);
    assert.deepEqual(status.get(locked)!.working && { notCompared: status.get(locked)!.working!.notCompared, why: status.get(locked)!.working!.why }, { notCompared: 'unreadable', why: 'EACCES' });
    assert.ok(groups(status).onlyOnService.includes(vanishing), 'gone: absent');
    assert.ok(!groups(status).onlyOnService.includes(locked));
  });

  it('working files are hashed in slices within the budget of bytes in flight: the digests are the whole files’, and at most the budget is read at once', async () => {
    const { paths } = layout();
    const files = paths.slice(0, 6);
    const whole = new Map<string, string>();
    for (const p of files) {
      const bytes = randomBytes(3 * SLICE + 123);
      fs.mkdirSync(path.dirname(path.join(folder, ...p.split('/'))), { recursive: true });
      fs.writeFileSync(path.join(folder, ...p.split('/')), bytes);
      whole.set(p, createHash('sha256').update(bytes).digest('hex'));
    }
    const budget = new ReadBudget(2 * SLICE);
    const status = new FolderStatus(false);
    await scanStatus(status, storeSource(store(), siteId, 'complete'), nodeWorkingFs(folder), new DigestCache(), { budget, concurrency: 12 });
    for (const p of files) assert.equal(status.get(p)!.working?.digest, whole.get(p), p);
    assert.ok(budget.peak > 0 && budget.peak <= 2 * SLICE, `peak ${budget.peak}`);
    assert.equal(budget.inFlight, 0);
  });

  it('the budget of bytes in flight: reads wait their turn in order; a share larger than the budget goes alone; a wait ends with its signal', async () => {
    const b = new ReadBudget(100);
    const order: string[] = [];
    const r1 = await b.acquire(60);
    const p2 = b.acquire(60).then((r) => (order.push('second'), r));
    const p3 = b.acquire(10).then((r) => (order.push('third'), r));
    const ac = new AbortController();
    const p4 = b.acquire(500, ac.signal);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, [], 'the second waits, and the third behind it (in order)');
    ac.abort();
    await assert.rejects(p4, /cancelled/);
    r1();
    const r2 = await p2;
    const r3 = await p3;
    assert.deepEqual(order, ['second', 'third']);
    assert.equal(b.inFlight, 70);
    r2();
    r3();
    r3();
    assert.equal(b.inFlight, 0, 'each share is given back once');
    const big = await b.acquire(500);
    assert.equal(b.inFlight, 500, 'larger than the budget: alone');
    big();
  });

  it('a newest revision the client refuses as too large is Not Compared and never asked for again: not by a refresh, not by an open, not after a reload (the snapshot); a file with no working file has its content not read at all', async () => {
    const { paths } = layout();
    // A client whose largest reply is 300 KiB, and two files whose newest revision is larger.
    const small = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 10_000, retries: 0, maxResponseBytes: 300 * 1024, scheduler: new RequestScheduler() });
    try {
      const [present, , absent] = paths;
      assert.ok(present && absent && !fs.existsSync(path.join(folder, ...absent.split('/'))), 'the third file is missing');
      const big = (n: number) => `${'x'.repeat(400 * 1024)}${n}\n`;
      const added: string[] = [];
      for (const [i, p] of [present, absent].entries()) {
        const res = await fetch(`${service.url}/__control/add-revision`, { method: 'POST', body: JSON.stringify({ siteId, path: p, content: big(i) }) });
        added.push(((await res.json()) as { id: string }).id);
      }
      service.resetStats();
      const s = store(small);
      const status = new FolderStatus(false);
      await scan(s, status, 'complete');
      assert.deepEqual(status.groups().notCompared.map((e) => e.path), [present]);
      assert.equal(status.get(present)!.newest?.tooLarge, true);
      assert.equal(status.get(present)!.newest?.id, added[0]);
      assert.ok(groups(status).onlyOnService.includes(absent), 'no working file: only on the service');
      const gets = () => service.requests().filter((r) => r.operation === 'getRevision').map((r) => new URL(r.url, service.url).searchParams.get('revision'));
      assert.deepEqual(gets(), [added[0]], 'one read of the present file’s newest content (refused); none for the absent file’s');
      service.resetStats();
      await scan(s, status, 'refresh');
      assert.deepEqual(status.groups().notCompared.map((e) => e.path), [present]);
      assert.deepEqual(gets(), [], 'a refresh asks for neither');
      service.resetStats();
      await assert.rejects(s.content(siteId, added[0]!), (e: unknown) => isTooLarge(e));
      assert.equal(service.count(), 0, 'an open is refused with no request');
      // A reload: the snapshot says so, and a new store refuses it at once too.
      const snap = snapshotOf(status, siteId, folder);
      const again = new FolderStatus(false);
      restoreSnapshot(again, JSON.parse(JSON.stringify(snap)) as typeof snap, new DigestCache());
      assert.equal(again.get(present)!.newest?.tooLarge, true);
      const s2 = store(small);
      s2.markTooLarge(siteId, added[0]!);
      await assert.rejects(s2.content(siteId, added[0]!), (e: unknown) => isTooLarge(e));
      await scanStatus(again, storeSource(s2, siteId, 'refresh'), nodeWorkingFs(folder), new DigestCache());
      assert.deepEqual(again.groups().notCompared.map((e) => e.path), [present]);
      assert.ok(!gets().includes(added[0]!), 'not asked after the reload either');
      // The working file removed and brought back: its newest content is still not asked for.
      s.clear();
      assert.equal(s.isTooLarge(siteId, added[0]!), false, 'another account forgets it');
    } finally {
      await small.dispose();
    }
  });

  it('the rules: equal bytes are the same; a revision newer than the file that differs is newer on the service; a date that is not one is never newer; several raw paths of one file; refused paths', () => {
    const rev = (time: number | undefined, d: string) => ({ id: '1', date: '', author: '', time, digest: d });
    assert.equal(stateOf({ newest: rev(2000, 'a'), working: { size: 1, mtime: 1000, digest: 'a' } }), 'same');
    assert.equal(stateOf({ newest: rev(2000, 'a'), working: { size: 1, mtime: 1000, digest: 'b' } }), 'newerOnService');
    assert.equal(stateOf({ newest: rev(1000, 'a'), working: { size: 1, mtime: 1000, digest: 'b' } }), 'changedLocally');
    assert.equal(stateOf({ newest: rev(undefined, 'a'), working: { size: 1, mtime: 0, digest: 'b' } }), 'changedLocally');
    assert.equal(stateOf({ newest: rev(1000, 'a'), working: null }), 'onlyOnService');
    assert.equal(stateOf({ newest: null, working: null }), 'same', 'no revision: in no group');
    assert.equal(stateOf({ newest: rev(1000, 'a'), working: undefined }), 'unknown');
    assert.equal(stateOf({ newest: { ...rev(1000, 'a'), digest: undefined }, working: { size: 1, mtime: 0, digest: 'b' } }), 'unknown');

    const status = new FolderStatus(true);
    status.setSiteFiles(['a/B.php', 'a//b.php', '../x.php', '/etc/passwd', 'c.txt']);
    assert.deepEqual(status.refused, ['../x.php', '/etc/passwd']);
    assert.deepEqual(status.entriesOf('A/b.PHP').map((e) => e.path), ['a/B.php', 'a//b.php'], 'case ignored, both raw paths');
    status.setLocalFiles(['a/b.php', 'C.TXT', 'other.txt'], true);
    assert.deepEqual(status.localOnly, { count: 1, complete: true });
    for (const e of status.all()) e.newest = rev(1000, 'x');
    const changes = status.updateWorking('a/b.php', { size: 1, mtime: 5000, digest: 'y' });
    assert.deepEqual(changes.map((c) => [c.entry.path, c.before, c.after]), [['a/B.php', 'unknown', 'changedLocally'], ['a//b.php', 'unknown', 'changedLocally']]);
    // The list changes: what is known of a path still listed stays.
    status.setSiteFiles(['a/B.php']);
    assert.equal(status.get('a/B.php')!.working?.digest, 'y');
    assert.equal(status.get('c.txt'), undefined);
  });
});

// The revision store with the account's disk store and the request scheduler behind it
// (src/core/model/revisionStore.ts over src/core/store and src/core/scheduler), against the local service over
// real HTTP: what a window reload costs, lists shown from disk and refreshed behind, offline,
// cancellation of shared loads, a revision larger than the memory cache, bulk contents, and the
// bound of one file's history in memory.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SiteRevisionClient } from '../../src/core/api';
import { HistoryTooLargeError, RevisionStore, type ListUpdate, type RevisionStoreOptions } from '../../src/core/model/revisionStore';
import { RequestScheduler } from '../../src/core/scheduler';
import { revisionStoreSource, searchHistory } from '../../src/core/search';
import { isOffline } from '../../src/features/sites/viewState';
import { DiskStore } from '../../src/core/store';
import { DEMO, startService, type RunningService } from '../server';

describe('revisions: store with the disk cache (local service)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let root: string;
  let client: SiteRevisionClient;
  let siteId: string;
  let file: string;
  const disks: DiskStore[] = [];

  before(async () => {
    service = await startService({ quiet: true });
    client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 10_000, retries: 0, scheduler: new RequestScheduler() });
    const site = (await client.getSites()).find((s) => s.name === 'Acme Corporate')!;
    siteId = site.id;
    file = 'index.php';
  });
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-revdisk-'));
    service.configure({ down: false, latencyMs: 0 });
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

  /** A store as a window has it: the disk store of one folder (the account's), a fresh memory. */
  const open = (o: Partial<RevisionStoreOptions> & { cacheBytes?: number } = {}) => {
    const disk = new DiskStore(root, { maxBytes: 64 * 1024 * 1024 });
    disks.push(disk);
    const updates: ListUpdate[] = [];
    const store = new RevisionStore((fn) => fn(client), o.cacheBytes ?? 1024 * 1024, undefined, {
      disk: () => Promise.resolve(disk),
      isOffline,
      onDidUpdate: (u) => updates.push(u),
      ...o,
    });
    return { store, disk, updates };
  };
  const ops = () => service.requests().map((r) => r.operation);
  /** Waits for the service to have answered `n` requests (a refresh behind is not awaited by the caller). */
  const answered = async (n: number) => {
    while (service.requests().length < n) await new Promise((r) => setTimeout(r, 5));
  };

  it('after a reload (a new store on the same disk) revisions reopen with no request, and lists show from disk, refreshed behind once', async () => {
    const first = open();
    await first.store.siteFiles(siteId);
    const list = await first.store.revisions(siteId, file);
    const id = list.items[0]!.item.id;
    const bytes = await first.store.content(siteId, id);
    assert.deepEqual(ops(), ['getRevisionFiles', 'getRevisions', 'getRevision']);
    await first.disk.dispose();

    service.resetStats();
    const second = open();
    assert.deepEqual(Buffer.from(await second.store.content(siteId, id)), Buffer.from(bytes));
    assert.equal(service.count(), 0, 'the revision reopens from disk');
    assert.equal(second.store.requests.fromDisk, 1);

    const files = await second.store.siteFiles(siteId);
    assert.ok(files.fetchedAt !== undefined && files.files.some((f) => f.path === file), 'the files come from disk, with the time they were fetched');
    const revs = await second.store.revisions(siteId, file);
    assert.deepEqual(revs.items.map((d) => d.item.id), list.items.map((d) => d.item.id));
    // Then one background request per list, once: expanding again asks nothing more.
    await answered(2);
    await second.store.siteFiles(siteId);
    await second.store.revisions(siteId, file);
    assert.deepEqual(ops().sort(), ['getRevisionFiles', 'getRevisions']);
    assert.deepEqual(second.updates, [], 'nothing changed on the service: nothing is redrawn');
  });

  it('a refresh behind that brings something else says which list changed; Refresh (invalidate) fetches before showing', async () => {
    const second = open();
    const disk = second.disk;
    await disk.put({ kind: 'revisions', siteId, path: file }, [{ id: '1', date: '2000-01-01 00:00:00', author: 'old' }], 1000);
    const shown = await second.store.revisions(siteId, file);
    assert.deepEqual(shown.items.map((d) => d.item.id), ['1'], 'the disk copy at once');
    assert.equal(shown.fetchedAt, 1000);
    await answered(1);
    while (!second.updates.length) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(second.updates, [{ kind: 'revisions', siteId, path: file }]);
    assert.notDeepEqual((await second.store.revisions(siteId, file)).items.map((d) => d.item.id), ['1']);

    service.resetStats();
    second.store.invalidate();
    const fresh = await second.store.revisions(siteId, file);
    assert.equal(fresh.fetchedAt, undefined, 'fetched, not from disk');
    assert.deepEqual(ops(), ['getRevisions']);
  });

  it('offline: lists from disk marked offline, cached revisions open, an uncached one fails as unreachable; back online, it works', async () => {
    const { store } = open();
    store.invalidate(); // as after a Refresh: fetch first
    const list = await store.revisions(siteId, file);
    await store.siteFiles(siteId);
    const cachedId = list.items[0]!.item.id;
    const uncachedId = list.items[1]!.item.id;
    await store.content(siteId, cachedId);
    store.invalidate();
    store.cache.clear();

    service.configure({ down: true });
    const files = await store.siteFiles(siteId);
    assert.equal(files.offline, true);
    assert.ok(files.fetchedAt! > 0);
    const revs = await store.revisions(siteId, file);
    assert.equal(revs.offline, true);
    assert.ok((await store.content(siteId, cachedId)).byteLength > 0, 'a cached revision opens from disk');
    await assert.rejects(store.content(siteId, uncachedId), (e: unknown) => isOffline(e), 'an uncached revision: the service cannot be reached');
    await assert.rejects(store.siteFiles('no-such-site'), (e: unknown) => isOffline(e), 'an uncached list is not made up');

    service.configure({ down: false });
    store.invalidate();
    const back = await store.revisions(siteId, file);
    assert.equal(back.offline, undefined);
    assert.ok((await store.content(siteId, uncachedId)).byteLength > 0);
  });

  it('a caller that aborts leaves a shared load: the request goes on for the other, and is aborted when the last one aborts', async () => {
    const { store } = open();
    const id = (await store.revisions(siteId, file)).items[2]!.item.id;
    service.resetStats();
    service.configure({ latencyMs: 400 });
    const a = new AbortController();
    const b = new AbortController();
    const pa = store.content(siteId, id, { signal: a.signal });
    const pb = store.content(siteId, id, { signal: b.signal });
    while (service.inFlight() < 1) await new Promise((r) => setTimeout(r, 5));
    a.abort();
    await assert.rejects(pa, { name: 'CancelledError' });
    assert.ok((await pb).byteLength > 0, 'the second waiter keeps its request');
    assert.deepEqual(service.requests().map((r) => [r.operation, r.aborted ?? false]), [['getRevision', false]]);

    const other = (await store.revisions(siteId, file)).items[3]!.item.id;
    service.resetStats();
    const c = new AbortController();
    const d = new AbortController();
    const pc = store.content(siteId, other, { signal: c.signal });
    const pd = store.content(siteId, other, { signal: d.signal });
    while (service.inFlight() < 1) await new Promise((r) => setTimeout(r, 5));
    c.abort();
    d.abort();
    await assert.rejects(pc, { name: 'CancelledError' });
    await assert.rejects(pd, { name: 'CancelledError' });
    while (!service.requests().length) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(service.requests().map((r) => [r.operation, r.aborted ?? false]), [['getRevision', true]], 'the service saw the connection closed');
    service.configure({ latencyMs: 0 });
  });

  it('a revision larger than the whole memory cache is fetched once per open (stat, read, compare), and both sides of a compare are kept, with the disk store off', async () => {
    const { store } = open({ cacheBytes: 16, disk: () => Promise.resolve(undefined) });
    const id = (await store.revisions(siteId, file)).items[0]!.item.id;
    service.resetStats();
    const stat = await store.content(siteId, id);
    assert.ok(stat.byteLength > 16, 'larger than the cache');
    await store.content(siteId, id); // readFile
    await store.content(siteId, id); // Compare with Working File
    assert.deepEqual(ops(), ['getRevision']);
    assert.equal(store.cache.size, 0, 'the LRU holds none of it');
    // Compare with the previous one (as large): both sides are kept, one more request.
    const previous = (await store.revisions(siteId, file)).items[1]!.item.id;
    await store.content(siteId, previous);
    await store.content(siteId, id);
    await store.content(siteId, previous);
    assert.deepEqual(ops(), ['getRevision', 'getRevision']);
  });

  it('the lists kept in memory are bounded in bytes', async () => {
    const { store } = open({ listBytes: 4096, disk: () => Promise.resolve(undefined) });
    const files = await store.siteFiles(siteId);
    for (const f of files.files.slice(0, 12)) await store.revisions(siteId, f.path);
    const kept = files.files.slice(0, 12).filter((f) => store.peekRevisions(siteId, f.path)).length;
    assert.ok(kept > 0 && kept < 12, `some lists are evicted (${kept} of 12 kept)`);
  });

  it('allContents goes through the disk store: one Get Revisions with content, then none — also after a reload', async () => {
    const first = open();
    const all = await first.store.allContents(siteId, file, { priority: 'background' });
    assert.deepEqual(ops(), ['getRevisions']);
    assert.ok(all.length > 1 && all.every((r) => typeof r.content === 'string'));
    await first.disk.dispose();
    service.resetStats();
    const second = open();
    const again = await second.store.allContents(siteId, file);
    assert.equal(service.count(), 0);
    assert.deepEqual(again, all);
    assert.equal(second.store.requests.fromDisk, all.length);
  });
  it('after Refresh (invalidate), allContents asks the service in one request although the disk has the history: a revision saved since is in it; what it reads from disk is kept in memory', async () => {
    const first = open();
    const before = await first.store.allContents(siteId, file);
    const content = '<?php // saved on the service since\n';
    const res = await fetch(`${service.url}/__control/add-revision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ siteId, path: file, content }) });
    const { id } = (await res.json()) as { id: string };
    try {
      service.resetStats();
      assert.equal((await first.store.allContents(siteId, file)).length, before.length, 'no refresh: the history read before');
      assert.equal(service.count(), 0);
      first.store.invalidate();
      const after = await first.store.allContents(siteId, file);
      assert.equal(after.length, before.length + 1);
      assert.equal(after[0]!.id, id, 'the new revision, newest first');
      assert.equal(after[0]!.content, content);
      assert.deepEqual(ops(), ['getRevisions'], 'one Get Revisions with content: the list as it is now and every content');
      // A new window (another store on the same disk): the history from disk, then in memory too.
      await first.disk.dispose();
      service.resetStats();
      const second = open();
      assert.deepEqual(await second.store.allContents(siteId, file), after);
      assert.equal(service.count(), 0);
      for (const r of after) assert.ok(second.store.peekContent(siteId, r.id), `revision ${r.id} in memory`);
    } finally {
      await fetch(`${service.url}/__control/reseed`, { method: 'POST' });
    }
  });

  /** UTF-8 bytes of every revision's content, per file of Acme Corporate. */
  const historySizes = async (): Promise<Map<string, number>> => {
    const sizes = new Map<string, number>();
    for (const f of await client.getRevisionFiles(siteId)) {
      const all = await client.getRevisions(siteId, f, { withContent: true });
      sizes.set(f, all.reduce((n, r) => n + Buffer.byteLength(r.content ?? ''), 0));
    }
    return sizes;
  };
  const tooLarge = (bytes: RegExp) => (e: unknown) =>
    e instanceof HistoryTooLargeError && e.path === file && e.message.includes(`“${file}”`) && bytes.test(e.message) && /siteRevisions\.revisions\.cacheSizeMB/.test(e.message);

  it('one file’s history in memory is bounded: over the bound, allContents refuses it with the file and its size, before any of it is read into memory', async () => {
    const total = (await historySizes()).get(file)!;
    assert.ok(total > 2048, `a history of some size (${total} bytes)`);
    const { store } = open({ cacheBytes: 16 * 1024 * 1024, historyBytes: total - 1 });
    await assert.rejects(store.allContents(siteId, file), tooLarge(new RegExp(`${(total / 1024).toFixed(1)} KB of revisions, over the ${((total - 1) / 1024).toFixed(1)} KB allowed`)));
    assert.equal(store.cache.bytes, 0, 'no content of it in memory');
    // At the bound it is read (from the disk, where the refused call left it: no request).
    const count = (await client.getRevisions(siteId, file)).length;
    service.resetStats();
    const fits = open({ cacheBytes: 16 * 1024 * 1024, historyBytes: total });
    assert.equal((await fits.store.allContents(siteId, file)).length, count);
    assert.equal(service.count(), 0);
  });

  it('without the disk store, the one reply is cut off at the bound and refused; the bound is the content cache’s size unless given', async () => {
    const total = (await historySizes()).get(file)!;
    const { store } = open({ cacheBytes: total - 1, disk: () => Promise.resolve(undefined) });
    await assert.rejects(store.allContents(siteId, file), tooLarge(/more than .* of revisions/));
    assert.equal(store.peekRevisions(siteId, file), undefined);
    const roomy = open({ cacheBytes: total * 4, disk: () => Promise.resolve(undefined) });
    assert.ok((await roomy.store.allContents(siteId, file)).every((r) => typeof r.content === 'string'));
  });

  it('History Search counts a file too large to hold as one it could not read, and goes on with the others', async () => {
    const sizes = await historySizes();
    const bound = [...sizes.values()].sort((a, b) => a - b)[Math.floor(sizes.size / 2)]!;
    const over = [...sizes].filter(([, n]) => n > bound).map(([f]) => f).sort();
    assert.ok(over.length > 0 && over.length < sizes.size, `some files over ${bound} bytes, not all`);
    const summary = await searchHistory({ scope: { siteId }, source: revisionStoreSource(open({ cacheBytes: 16 * 1024 * 1024, historyBytes: bound }).store), query: { pattern: 'php' } });
    assert.equal(summary.cancelled, false);
    assert.equal(summary.done, sizes.size, 'every file done');
    assert.deepEqual(summary.failures.map((f) => f.path).sort(), over);
    assert.ok(summary.failures.every((f) => f.error instanceof HistoryTooLargeError));
    const searched = await Promise.all([...sizes].filter(([, n]) => n <= bound).map(async ([f]) => (await client.getRevisions(siteId, f)).length));
    assert.equal(summary.revisions, searched.reduce((a, b) => a + b, 0), 'the others searched');
  });
});

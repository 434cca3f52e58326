// Unit tests of the revision store (src/core/model/revisionStore.ts): caching, merging of identical
// concurrent requests, content sent with a list, refresh and account changes.
import * as assert from 'node:assert/strict';
import type { Revision, RevisionSummary } from '../../src/core/api/types';
import { SiteRevisionClient } from '../../src/core/api';
import { RevisionStore, digest, type RevisionSource } from '../../src/core/model/revisionStore';
import { startRawServer } from './helpers/rawServer';
import { DEMO, startService } from '../server';

class FakeSource implements RevisionSource {
  calls: string[] = [];
  files: Record<string, string[]> = { '1': ['b.php', 'a/c.php', 'a.php'] };
  revs: Record<string, RevisionSummary[]> = {
    'a.php': [
      { id: '1001', date: '2024-01-01 10:00:00', author: 'alice' },
      { id: '1003', date: '2024-03-01 10:00:00', author: 'bob', content: 'sent anyway' },
      { id: '1002', date: '2024-02-01 10:00:00', author: 'carol' },
      { id: '1002', date: '2024-02-01 10:00:00', author: 'carol' },
    ],
  };
  contents: Record<string, string> = { '1001': 'one', '1002': 'two', '1003': 'sent anyway' };
  delay = 5;
  failNext = false;
  private async step<T>(name: string, value: () => T): Promise<T> {
    this.calls.push(name);
    await new Promise((r) => setTimeout(r, this.delay));
    if (this.failNext) {
      this.failNext = false;
      throw new Error(`${name} failed`);
    }
    return value();
  }
  getRevisionFiles(siteId: string): Promise<string[]> {
    return this.step(`files:${siteId}`, () => [...(this.files[siteId] ?? [])]);
  }
  getRevisions(siteId: string, file: string): Promise<RevisionSummary[]> {
    return this.step(`revs:${siteId}:${file}`, () => (this.revs[file] ?? []).map((r) => ({ ...r })));
  }
  getRevision(siteId: string, revisionId: string): Promise<Revision> {
    return this.step(`rev:${siteId}:${revisionId}`, () => ({ id: revisionId, content: this.contents[revisionId] ?? '' }));
  }
}

function make(bytes = 1024 * 1024) {
  const src = new FakeSource();
  const store = new RevisionStore((fn) => fn(src), bytes);
  return { src, store };
}

describe('revisions: store', () => {
  it('identical concurrent expansions make one request; later ones use the cache until invalidate()', async () => {
    const { src, store } = make();
    const [a, b, c] = await Promise.all([store.siteFiles('1'), store.siteFiles('1'), store.siteFiles('1')]);
    assert.equal(a, b);
    assert.equal(b, c);
    assert.deepEqual(src.calls, ['files:1']);
    await store.siteFiles('1');
    assert.equal(src.calls.length, 1);
    store.invalidate();
    await store.siteFiles('1');
    assert.deepEqual(src.calls, ['files:1', 'files:1']);
  });

  it('a failure is not cached: the next expansion asks again', async () => {
    const { src, store } = make();
    src.failNext = true;
    await assert.rejects(store.siteFiles('1'), /failed/);
    const m = await store.siteFiles('1');
    assert.equal(m.files.length, 3);
    assert.equal(src.calls.length, 2);
  });

  it('a result that arrives after a refresh is not cached', async () => {
    const { src, store } = make();
    const p = store.siteFiles('1');
    store.invalidate();
    await p;
    await store.siteFiles('1');
    assert.equal(src.calls.length, 2);
  });

  it('revisions: newest first, duplicates once, content sent anyway goes to the content cache', async () => {
    const { src, store } = make();
    const list = await store.revisions('1', 'a.php');
    assert.deepEqual(list.items.map((d) => d.item.id), ['1003', '1002', '1001']);
    assert.ok(list.items.every((d) => !('content' in d.item)), 'the list holds no content');
    assert.equal(new TextDecoder().decode(store.peekContent('1', '1003')), 'sent anyway');
    assert.equal(store.digestOf('1', '1003'), digest(new TextEncoder().encode('sent anyway')));
    const bytes = await store.content('1', '1003');
    assert.equal(new TextDecoder().decode(bytes), 'sent anyway');
    assert.deepEqual(src.calls, ['revs:1:a.php'], 'no Get Revision for content already sent');
    assert.deepEqual(store.findListed('1', '1002')?.index, 1);
  });

  it('content: fetched once, concurrent opens merge, then served from the cache', async () => {
    const { src, store } = make();
    const all = await Promise.all([store.content('1', '1001'), store.content('1', '1001'), store.content('1', '1001')]);
    assert.ok(all.every((b) => b === all[0]));
    await store.content('1', '1001');
    store.invalidate(); // a refresh keeps contents: revisions never change
    await store.content('1', '1001');
    assert.deepEqual(src.calls, ['rev:1:1001']);
    assert.equal(store.requests.content, 1);
  });

  it('the content cache is bounded in bytes; a digest survives eviction', async () => {
    const { src, store } = make(5);
    src.contents['1001'] = 'abcd';
    src.contents['1002'] = 'efgh';
    await store.content('1', '1001');
    await store.content('1', '1002');
    assert.ok(store.cache.bytes <= 5);
    assert.equal(store.peekContent('1', '1001'), undefined);
    assert.ok(store.digestOf('1', '1001'));
    await store.content('1', '1001');
    assert.equal(src.calls.filter((c) => c === 'rev:1:1001').length, 2, 'evicted content is fetched again');
  });

  it('clear() (another account) drops contents, and a content in flight is not cached (its caller gets a CancelledError)', async () => {
    const { src, store } = make();
    await store.content('1', '1001');
    const p = store.content('1', '1002');
    store.clear();
    await assert.rejects(p, { name: 'CancelledError' });
    assert.equal(store.peekContent('1', '1001'), undefined);
    assert.equal(store.peekContent('1', '1002'), undefined);
    assert.equal(store.digestOf('1', '1001'), undefined);
    await store.content('1', '1001');
    assert.equal(src.calls.filter((c) => c === 'rev:1:1001').length, 2);
  });

  it('an unusable entry of a list costs that entry: the others are listed, the count is kept and logged (real client over HTTP)', async () => {
    const server = await startRawServer((req) =>
      req.url.includes('file=')
        ? { body: { revisions: [{ id: '1', date: '2024-01-01 10:00:00', author: 'a' }, { id: '2', date: 20240102 }, { id: '3', date: '2024-01-03 10:00:00', author: 'c' }] } }
        : { body: { files: ['a.php', 7, 'b/c.php'] } },
    );
    const client = new SiteRevisionClient({ baseUrl: server.url, credentials: () => ({ email: 'u@example.com', password: 'pw-secret' }), retries: 0 });
    const warned: string[] = [];
    const store = new RevisionStore((fn) => fn(client), 1024 * 1024, { debug: () => undefined, warn: (m) => warned.push(m) });
    try {
      const files = await store.siteFiles('1');
      assert.deepEqual(files.files.map((f) => f.path), ['a.php', 'b/c.php']);
      assert.equal(files.skipped, 1);
      const list = await store.revisions('1', 'a.php');
      assert.deepEqual(list.items.map((d) => d.item.id), ['3', '1']);
      assert.equal(list.skipped, 1);
      assert.equal(warned.length, 2);
      assert.match(warned[0]!, /^File paths of site 1: 1 could not be shown \(files\[1\] is a number, expected a path/);
      assert.match(warned[1]!, /^Revisions of a file of site 1: 1 could not be shown \(revisions\[1\]\.date is a number/);
      // A clean list has no count.
      store.invalidate();
      server.setHandler({ body: { success: true, files: ['a.php'] } });
      assert.equal((await store.siteFiles('1')).skipped, 0);
    } finally {
      await client.dispose();
      await server.close();
    }
  });
});

describe('revisions: store — every content of a file at once (local service)', () => {
  it('one Get Revisions with content, then nothing: contents are those of Get Revision, newest first', async () => {
    const service = await startService({ quiet: true });
    const client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 10_000 });
    try {
      const site = (await client.getSites())[0]!;
      const file = (await client.getRevisionFiles(site.id))[0]!;
      const expected = await client.getRevisions(site.id, file);
      const store = new RevisionStore((fn) => fn(client), 16 * 1024 * 1024);
      service.resetStats();
      const all = await store.allContents(site.id, file, { priority: 'background' });
      assert.deepEqual(service.requests().map((r) => r.operation), ['getRevisions']);
      assert.equal(all.length, expected.length);
      for (const r of all) assert.equal(r.content, (await client.getRevision(site.id, r.id)).content, `revision ${r.id}`);
      assert.deepEqual(all.map((r) => r.id), store.peekRevisions(site.id, file)!.items.map((d) => d.item.id));
      service.resetStats();
      const again = await store.allContents(site.id, file);
      assert.equal(service.count(), 0, 'everything is cached');
      assert.deepEqual(again, all);
      // Evicted contents are asked for again, in one request.
      store.cache.clear();
      await store.allContents(site.id, file);
      assert.deepEqual(service.requests().map((r) => r.operation), ['getRevisions']);
    } finally {
      await client.dispose();
      await service.close();
    }
  });
});

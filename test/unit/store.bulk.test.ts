// fetchAllContents (src/core/store/bulk.ts) against the local service over real HTTP, through a
// client with the request scheduler, into a disk store in a temp folder.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SiteRevisionClient } from '../../src/core/api';
import { RequestScheduler } from '../../src/core/scheduler';
import { DiskStore, fetchAllContents } from '../../src/core/store';
import { DEMO, startService, type RunningService } from '../server';
import { startRawServer } from './helpers/rawServer';
import { until } from './helpers/wait';

describe('disk store: every content of a file in one request', function () {
  let service: RunningService;
  let root: string;
  const SITE = '1';
  let file = '';
  /** The file's contents by revision id, as Get Revision gives them. */
  const expected = new Map<string, string>();
  const clients: SiteRevisionClient[] = [];
  const stores: DiskStore[] = [];
  let scheduler: RequestScheduler;

  function client(): SiteRevisionClient {
    const c = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, scheduler });
    clients.push(c);
    return c;
  }
  function store(maxBytes = 16 * 1024 * 1024): DiskStore {
    const s = new DiskStore(fs.mkdtempSync(path.join(root, 's-')), { maxBytes });
    stores.push(s);
    return s;
  }
  const ops = () => service.requests().map((r) => (r.operation === 'getRevisions' ? `getRevisions no_content=${new URL(r.url, 'http://x').searchParams.get('no_content')}` : r.operation));
  async function assertAllStored(s: DiskStore): Promise<void> {
    for (const [id, content] of expected) assert.equal(Buffer.from((await s.getContent(SITE, id))!).toString('utf8'), content, id);
  }

  before(async () => {
    service = await startService({ quiet: true });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-bulk-'));
    scheduler = new RequestScheduler({ concurrency: 1 });
    const c = client();
    const files = await c.getRevisionFiles(SITE);
    let best = 0;
    for (const f of files) {
      const n = (await c.getRevisions(SITE, f)).length;
      if (n > best) [best, file] = [n, f];
    }
    for (const r of await c.getRevisions(SITE, file)) expected.set(r.id, (await c.getRevision(SITE, r.id)).content);
    assert.ok(expected.size >= 5, `${file} has ${expected.size} revisions`);
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.dispose()));
    await Promise.all(clients.map((c) => c.dispose()));
    await service.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    service.configure({ latencyMs: 0, failNext: [] });
    service.resetStats();
  });

  it('gets every content with one Get Revisions; then, with all of it on disk, makes no request at all', async () => {
    const s = store();
    const c = client();
    const r = await fetchAllContents(c, s, SITE, file);
    assert.deepEqual(ops(), ['getRevisions no_content=0']);
    assert.deepEqual(r, { revisions: expected.size, fromDisk: 0, stored: expected.size, requests: { withContent: 1, list: 0, single: 0 }, fallback: 'none', failed: [] });
    await assertAllStored(s);
    const list = await s.peek({ kind: 'revisions', siteId: SITE, path: file });
    assert.deepEqual(new Set(list!.value.map((x) => x.id)), new Set(expected.keys()));
    assert.ok(list!.value.every((x) => !('content' in x)));

    service.resetStats();
    const again = await fetchAllContents(c, s, SITE, file);
    assert.equal(service.count(), 0);
    assert.deepEqual(again, { revisions: expected.size, fromDisk: expected.size, stored: 0, requests: { withContent: 0, list: 0, single: 0 }, fallback: 'none', failed: [] });
  });

  it('fresh (after the user refreshed): asks the service although the disk has every content it lists, and stores the revision saved since', async () => {
    const s = store();
    const c = client();
    await fetchAllContents(c, s, SITE, file);
    const res = await fetch(`${service.url}/__control/add-revision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ siteId: SITE, path: file, content: 'saved since\n' }) });
    const { id } = (await res.json()) as { id: string };
    try {
      service.resetStats();
      assert.equal((await fetchAllContents(c, s, SITE, file)).revisions, expected.size, 'not fresh: the list on disk');
      assert.equal(service.count(), 0);
      const r = await fetchAllContents(c, s, SITE, file, { fresh: true });
      assert.deepEqual(ops(), ['getRevisions no_content=0']);
      assert.deepEqual(r, { revisions: expected.size + 1, fromDisk: expected.size, stored: 1, requests: { withContent: 1, list: 0, single: 0 }, fallback: 'none', failed: [] });
      assert.equal(Buffer.from((await s.getContent(SITE, id))!).toString('utf8'), 'saved since\n');
    } finally {
      await fetch(`${service.url}/__control/reseed`, { method: 'POST' });
    }
  });

  it('falls back to one Get Revision per revision, at background priority, when the service leaves content out', async () => {
    // A service that ignores no_content=0 (the local service honors it): a canned one on loopback.
    const ids = ['11', '12', '13', '14', '15', '16', '17', '18'];
    const raw = await startRawServer((req) => {
      const q = new URL(req.url, 'http://x').searchParams;
      if (q.get('revision')) return { delayMs: 20, body: { success: true, id: q.get('revision'), content: `content of ${q.get('revision')}` } };
      if (q.get('file')) return { body: { success: true, revisions: ids.map((id) => ({ id, date: '2024-01-01 00:00:00', author: 'a' })) } };
      return { body: { success: true, sites: [] } };
    });
    const one = new RequestScheduler({ concurrency: 1 });
    const c = new SiteRevisionClient({ baseUrl: raw.url, credentials: () => DEMO.user, scheduler: one });
    clients.push(c);
    const what = () => raw.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('revision') ?? (new URL(r.url, 'http://x').pathname === '/api/sites' ? 'getSites' : 'getRevisions'));
    try {
      const s = store();
      const bulk = fetchAllContents(c, s, SITE, file);
      // While the per-revision requests run one at a time, a user action comes.
      await until(() => raw.requests.length >= 3 && one.stats(new URL(raw.url).origin).queued > 0, 'the fallback running with requests waiting');
      const arrived = raw.requests.length;
      const user = c.getSites();
      const r = await bulk;
      await user;
      assert.equal(what()[arrived], 'getSites', 'the user action went right after the request in flight');
      assert.deepEqual(r, { revisions: ids.length, fromDisk: 0, stored: ids.length, requests: { withContent: 1, list: 0, single: ids.length }, fallback: 'content-omitted', failed: [] });
      assert.deepEqual(what().filter((x) => x !== 'getSites'), ['getRevisions', ...ids]);
      for (const id of ids) assert.equal(Buffer.from((await s.getContent(SITE, id))!).toString('utf8'), `content of ${id}`);
    } finally {
      await raw.close();
    }
  });

  it('abandons a reply over the cap (announced by its length) and fetches revision by revision (only what is not on disk)', async () => {
    const s = store();
    const c = client();
    const r = await fetchAllContents(c, s, SITE, file, { maxReplyBytes: 300 });
    assert.deepEqual(r, { revisions: expected.size, fromDisk: 0, stored: expected.size, requests: { withContent: 1, list: 1, single: expected.size }, fallback: 'over-cap', failed: [] });
    assert.deepEqual(ops(), ['getRevisions no_content=0', 'getRevisions no_content=1', ...Array<string>(expected.size).fill('getRevision')]);
    await assertAllStored(s);

    // The list on disk and two contents: no list request, two fewer per-revision requests.
    const partial = store();
    const ids = [...expected.keys()];
    await partial.put({ kind: 'revisions', siteId: SITE, path: file }, ids.map((id) => ({ id, date: '', author: '' })));
    await partial.putContent(SITE, ids[0]!, expected.get(ids[0]!)!);
    await partial.putContent(SITE, ids[1]!, expected.get(ids[1]!)!);
    service.resetStats();
    const p = await fetchAllContents(c, partial, SITE, file, { maxReplyBytes: 300 });
    assert.deepEqual(p.requests, { withContent: 1, list: 0, single: expected.size - 2 });
    assert.equal(p.fromDisk, 2);
    assert.equal(service.count('getRevision'), expected.size - 2);
    await assertAllStored(partial);
  });

  it('abandons a streamed reply (no length announced) once it passes the cap, and falls back', async () => {
    const raw = await startRawServer((req) => {
      const q = new URL(req.url, 'http://x').searchParams;
      if (q.get('no_content') === '0') return { streamBytes: 50 * 1024 * 1024 };
      if (q.get('no_content') === '1') return { body: JSON.stringify({ success: true, revisions: [{ id: '7', date: '2024-01-01 00:00:00', author: 'a' }] }) };
      return { body: JSON.stringify({ success: true, id: q.get('revision'), content: 'seven' }) };
    });
    const c = new SiteRevisionClient({ baseUrl: raw.url, credentials: () => DEMO.user, scheduler });
    clients.push(c);
    try {
      const s = store();
      const r = await fetchAllContents(c, s, SITE, file, { maxReplyBytes: 64 * 1024 });
      assert.equal(r.fallback, 'over-cap');
      assert.deepEqual(r.requests, { withContent: 1, list: 1, single: 1 });
      assert.equal(Buffer.from((await s.getContent(SITE, '7'))!).toString('utf8'), 'seven');
      // Without the cap for this call the 50 MB (under the client's 64 MiB) would be read whole and fail as not JSON.
      assert.equal(raw.requests.length, 3);
    } finally {
      await raw.close();
    }
  });

  it('does nothing when the disk store is off', async () => {
    const r = await fetchAllContents(client(), store(0), SITE, file);
    assert.equal(service.count(), 0);
    assert.equal(r.revisions, 0);
  });
});

// History Search as the extension will run it: the client with the request scheduler, and the
// disk store behind it (storeSource). A repeated search sends no content request; the scan's
// requests are background work that a user's request overtakes; with engine concurrency above
// the scheduler's, nothing deadlocks and the scheduler's bound holds at the service.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SiteRevisionClient } from '../../src/core/api';
import { RequestScheduler } from '../../src/core/scheduler';
import { directSchedule, searchHistory, storeSource } from '../../src/core/search';
import { DiskStore } from '../../src/core/store';
import { DEMO, startService, type RunningService } from '../server';
import { SEARCH_DEMO } from '../server/seed-search';

describe('search: with the disk store and the request scheduler (local service)', function () {
  let service: RunningService;
  let root: string;
  let siteId: string;
  const cleanups: (() => Promise<void> | void)[] = [];

  function setUp(concurrency: number, maxBytes = 64 * 1024 * 1024) {
    const scheduler = new RequestScheduler({ concurrency });
    const client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, scheduler, timeoutMs: 10_000 });
    const store = new DiskStore(fs.mkdtempSync(path.join(root, 's-')), { maxBytes });
    cleanups.push(() => client.dispose(), () => store.dispose(), () => scheduler.dispose());
    return { scheduler, client, store, source: storeSource(client, store) };
  }

  before(async () => {
    service = await startService({ quiet: true });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-search-store-'));
    const c = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user });
    siteId = (await c.getSites()).find((s) => s.name === SEARCH_DEMO.siteName)!.id;
    await c.dispose();
  });
  afterEach(async () => {
    for (const f of cleanups.splice(0)) await f();
    service.configure({ latencyMs: 0 });
  });
  after(async () => {
    await service.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => service.resetStats());

  const contentRequests = () => service.requests().filter((r) => r.operation === 'getRevision' || (r.operation === 'getRevisions' && r.url.endsWith('no_content=0'))).length;

  it('a second search of the same scope sends no content request; the results come from disk', async () => {
    const { source } = setUp(6);
    const first = await searchHistory({ scope: { siteId }, source, schedule: directSchedule, query: { pattern: SEARCH_DEMO.marker, matchCase: true } });
    assert.equal(contentRequests(), SEARCH_DEMO.files.length, 'one Get Revisions with content per file');
    service.resetStats();
    const paths: string[] = [];
    const second = await searchHistory({ scope: { siteId }, source, schedule: directSchedule, query: { pattern: SEARCH_DEMO.folderNeedle }, onResult: (r) => void paths.push(r.path) });
    assert.equal(contentRequests(), 0, 'no content request the second time');
    assert.equal(service.count(), 1, 'only the file list');
    assert.deepEqual([first.found, first.hits, second.found], [4, 7, 2]);
    assert.deepEqual(paths.sort(), ['campaigns/autumn/notes.txt', 'campaigns/autumn/teaser.html']);
  });

  it('the scan is background work: a user request queued behind it starts next; the scheduler’s bound holds', async () => {
    const { source, scheduler, client } = setUp(1);
    // Each request takes 250 ms, so the moment looked for below (one file read, five waiting) lasts
    // that long: at 30 ms a loaded machine's timers could miss it, and the wait never ended.
    service.configure({ latencyMs: 250 });
    const origin = new URL(service.url).origin;
    const scan = searchHistory({ scope: { siteId }, source, concurrency: 6, query: { pattern: SEARCH_DEMO.marker } });
    // The file list is in, one file is being read, the other five wait at the scheduler.
    await new Promise<void>((resolve) => {
      const check = () => (scheduler.stats(origin).queued >= 5 && scheduler.stats(origin).active === 1 ? resolve() : setTimeout(check, 1));
      check();
    });
    await client.getSites(); // a user action (the client's default priority)
    const s = await scan;
    assert.equal(s.done, SEARCH_DEMO.files.length);
    const ops = service.requests().sort((a, b) => a.arrivedAt - b.arrivedAt).map((r) => r.operation);
    assert.deepEqual(ops.slice(0, 3), ['getRevisionFiles', 'getRevisions', 'getSites'], 'the user request went before the four files still waiting');
    assert.equal(service.maxInFlight(), 1, 'one request at a time, as the scheduler allows: no deadlock with engine concurrency 6');
  });

  it('with the disk store turned off (size 0), the client is asked directly', async () => {
    const { source } = setUp(6, 0);
    const s = await searchHistory({ scope: { siteId, folder: SEARCH_DEMO.folder }, source, query: { pattern: SEARCH_DEMO.folderNeedle } });
    assert.equal(s.found, 2);
    assert.equal(contentRequests(), 2);
  });
});

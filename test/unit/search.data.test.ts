// The local service's data and counters that History Search's tests and benchmarks rely on:
// the demo history of Marketing Drive (seed-search.ts), the search-scale data set
// (searchScale.ts), and the request log's arrival times and in-flight counts.
import * as assert from 'node:assert/strict';
import { SiteRevisionClient } from '../../src/core/api';
import { oldestFirst } from '../../src/core/search';
import { DEMO, startService, type RunningService } from '../server';
import { SEARCH_DEMO } from '../server/seed-search';
import { SEARCH_SCALE_BYTES, SEARCH_SCALE_FILES, SEARCH_SCALE_MARKED, SEARCH_SCALE_REVISIONS, SEARCH_SCALE_SITE_ID } from '../server/searchScale';

const SEED_TIME = Date.UTC(2026, 2, 10, 12, 0, 0);
const DAY = 24 * 3600_000;

describe('search: the local service’s data for History Search', function () {
  let service: RunningService;
  let client: SiteRevisionClient;
  before(async () => {
    service = await startService({ quiet: true, seedTime: SEED_TIME, searchScale: true });
    client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 10_000 });
  });
  after(async () => {
    await client.dispose();
    await service.close();
  });

  it('Marketing Drive holds the demo history: texts, authors, and whole days before the seed time', async () => {
    const site = (await client.getSites()).find((s) => s.name === SEARCH_DEMO.siteName)!;
    assert.deepEqual([...(await client.getRevisionFiles(site.id))].sort(), SEARCH_DEMO.files.map((f) => f.path).sort());
    const authors = new Set<string>();
    for (const f of SEARCH_DEMO.files) {
      const revs = oldestFirst(await client.getRevisions(site.id, f.path, { withContent: true })).items;
      assert.deepEqual(revs.map((r) => r.item.content), f.revisions.map((r) => r.content), f.path);
      assert.deepEqual(revs.map((r) => r.item.author), f.revisions.map((r) => r.author), f.path);
      // Dated `daysAgo` whole days before the seed time, minus a minute and a few seconds.
      revs.forEach((r, i) => {
        const behind = SEED_TIME - f.revisions[i]!.daysAgo * DAY - r.time!;
        assert.ok(behind >= 60_000 && behind < 120_000, `${f.path} r${i + 1}: ${behind} ms`);
      });
      for (const r of revs) authors.add(r.item.author);
    }
    assert.deepEqual([...authors].sort(), [...SEARCH_DEMO.authors].sort());
    // The marker is in four files; the folder needle only in the folder.
    const withText = (text: string) => SEARCH_DEMO.files.filter((f) => f.revisions.some((r) => r.content.includes(text))).map((f) => f.path);
    assert.equal(withText(SEARCH_DEMO.marker).length, 4);
    assert.ok(withText(SEARCH_DEMO.folderNeedle).every((p) => p.startsWith(`${SEARCH_DEMO.folder}/`)));
    assert.ok(SEARCH_DEMO.files.find((f) => f.path === 'campaigns/autumn/notes.txt')!.revisions[0]!.content.includes('\r\n'));
  });

  it('the search-scale site: 2,000 files × 20 revisions of about 10 KB, generated the same every time', async () => {
    const siteId = String(SEARCH_SCALE_SITE_ID);
    assert.ok((await client.getSites()).some((s) => s.id === siteId));
    const files = await client.getRevisionFiles(siteId);
    assert.equal(files.length, SEARCH_SCALE_FILES);
    const marked = await client.getRevisions(siteId, files[0]!, { withContent: true });
    assert.equal(marked.length, SEARCH_SCALE_REVISIONS);
    for (const r of marked) assert.ok(r.content!.length > SEARCH_SCALE_BYTES - 300 && r.content!.length < SEARCH_SCALE_BYTES + 200, `${r.content!.length} characters`);
    const withMarker = oldestFirst(marked).items.map((x, i) => (x.item.content!.includes(`${SEARCH_SCALE_MARKED.text} 0`) ? i + 1 : 0)).filter(Boolean);
    assert.deepEqual(withMarker, [6, 7, 8, 9, 10, 11, 12]);
    assert.ok(!(await client.getRevisions(siteId, files[1]!, { withContent: true })).some((r) => r.content!.includes(SEARCH_SCALE_MARKED.text)));
    const one = await client.getRevision(siteId, marked[3]!.id);
    assert.equal(one.content, marked[3]!.content, 'Get Revision gives the same content');
    assert.equal((await client.getRevisions(siteId, files[0]!, { withContent: true }))[5]!.content, marked[5]!.content, 'deterministic');
  });

  it('the request log: arrival times, requests in flight and the most at once', async () => {
    service.configure({ latencyMs: 300 });
    service.resetStats();
    const t0 = performance.timeOrigin + performance.now();
    const calls = [client.getSites(), client.getSites(), client.getSites()];
    await new Promise<void>((resolve) => {
      const check = () => (service.inFlight() === 3 ? resolve() : setTimeout(check, 2));
      check();
    });
    await Promise.all(calls);
    service.configure({ latencyMs: 0 });
    assert.equal(service.inFlight(), 0);
    assert.equal(service.maxInFlight(), 3);
    const t1 = performance.timeOrigin + performance.now();
    for (const r of service.requests()) assert.ok(r.arrivedAt >= t0 && r.arrivedAt <= t1);
    service.resetStats();
    assert.equal(service.maxInFlight(), 0);
  });
});

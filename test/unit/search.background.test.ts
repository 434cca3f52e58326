// Scans stay in the background, and a cancel cancels (src/core/search/source.ts over the extension's
// RevisionStore, src/core/model/revisionStore.ts): History Search and Site Changes against the local
// service over real HTTP, with the request scheduler at concurrency 2 as the extension has it
// (what the scheduler hands out is what reaches the service):
// - every store read of a scan carries the scan's signal and background priority;
// - after Cancel, no step that waits for a slot starts;
// - a scan over lists cached on disk leaves no refresh behind waiting once it has ended, and
//   none starts after a cancel; at most MAX_BEHIND are outstanding at once.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SiteRevisionClient } from '../../src/core/api';
import { MAX_BEHIND, RevisionStore } from '../../src/core/model/revisionStore';
import { RequestScheduler } from '../../src/core/scheduler';
import { directSchedule, revisionStoreSource, scanSiteChanges, searchHistory, type SourceCallOptions, type StoreReads } from '../../src/core/search';
import { isOffline } from '../../src/features/sites/viewState';
import { DiskStore } from '../../src/core/store';
import { DEMO, startService, type RunningService } from '../server';
import { SEARCH_SCALE_FILES, SEARCH_SCALE_SITE_ID } from '../server/searchScale';
import { SEARCH_DEMO } from '../server/seed-search';
import { until } from './helpers/wait';

describe('search: scans stay in the background, and a cancel cancels (the revision store, local service)', function () {
  this.timeout(60_000);
  let service: RunningService;
  let origin: string;
  let marketing: string;
  const scale = String(SEARCH_SCALE_SITE_ID);
  const filter = () => ({ period: { kind: 'days' as const, days: 30 }, authors: [], now: Date.now() });
  const cleanup: (() => unknown)[] = [];

  before(async () => {
    service = await startService({ quiet: true, searchScale: true });
    origin = new URL(service.url).origin;
    const c = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user });
    marketing = (await c.getSites()).find((s) => s.name === SEARCH_DEMO.siteName)!.id;
    await c.dispose();
  });
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
    service.configure({ latencyMs: 0 });
  });
  after(() => service.close());

  /** A client whose requests take their slots in a scheduler of `concurrency`, and a store over it (with a disk store when given). */
  const open = (concurrency: number, disk?: DiskStore) => {
    const scheduler = new RequestScheduler({ concurrency });
    const client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 20_000, retries: 0, scheduler });
    cleanup.push(() => client.dispose(), () => scheduler.dispose());
    const store = new RevisionStore((fn) => fn(client), 16 * 1024 * 1024, undefined, { disk: () => Promise.resolve(disk), isOffline });
    const stats = () => scheduler.stats(origin);
    /** Once nothing is in flight nor waiting. */
    const idle = () => until(() => stats().active === 0 && stats().queued === 0, 'the scheduler idle');
    return { store, stats, idle };
  };
  /** A disk store in a fresh folder holding the search-scale site's file list and a revision list of the files `cached` picks. */
  const diskWithLists = async (cached: (index: number) => boolean = () => true): Promise<DiskStore> => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-scan-'));
    const disk = new DiskStore(root, { maxBytes: 256 * 1024 * 1024 });
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }), () => disk.dispose());
    const c = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user });
    const paths = await c.getRevisionFiles(scale);
    await c.dispose();
    assert.equal(paths.length, SEARCH_SCALE_FILES);
    await disk.put({ kind: 'files', siteId: scale }, paths, 1000);
    const day = new Date().toISOString().slice(0, 10);
    const lists = paths.map((p, i) => ({ p, i })).filter(({ i }) => cached(i));
    for (let k = 0; k < lists.length; k += 50) {
      await Promise.all(lists.slice(k, k + 50).map(({ p, i }) => disk.put({ kind: 'revisions', siteId: scale, path: p }, [{ id: String(i + 1), date: `${day} 08:00:00`, author: 'cached@example.com' }], 1000)));
    }
    return disk;
  };

  it('every store read of a scan carries its signal and background priority (History Search, Site Changes)', async () => {
    const { store } = open(6);
    const seen: [string, SourceCallOptions | undefined][] = [];
    const reads: StoreReads = {
      siteFiles: (siteId, o) => (seen.push(['siteFiles', o]), store.siteFiles(siteId, o)),
      revisions: (siteId, p, o) => (seen.push(['revisions', o]), store.revisions(siteId, p, o)),
      allContents: (siteId, p, o) => (seen.push(['allContents', o]), store.allContents(siteId, p, o)),
    };
    const signal = new AbortController().signal;
    await searchHistory({ scope: { siteId: marketing }, source: revisionStoreSource(reads), schedule: directSchedule, signal, query: { pattern: SEARCH_DEMO.marker } });
    await scanSiteChanges({ scope: { siteId: marketing }, source: revisionStoreSource(reads), schedule: directSchedule, signal, filter: filter() });
    assert.deepEqual([...new Set(seen.map(([op]) => op))].sort(), ['allContents', 'revisions', 'siteFiles']);
    for (const [op, o] of seen) {
      assert.equal(o?.priority, 'background', `${op}: background priority`);
      assert.ok(o?.signal instanceof AbortSignal, `${op}: the scan's signal`);
    }
  });

  it('Site Changes with the scheduler at concurrency 2: after Cancel, none of the steps waiting for a slot starts', async () => {
    const { store, stats, idle } = open(2);
    service.configure({ latencyMs: 300 });
    const ac = new AbortController();
    const scan = scanSiteChanges({ scope: { siteId: marketing }, source: revisionStoreSource(store), schedule: directSchedule, signal: ac.signal, filter: filter() });
    // The six files' lists asked for: two in flight, four waiting for a slot.
    await until(() => stats().active === 2 && stats().queued === 4, 'two reads in flight, four waiting');
    const started = stats().started;
    ac.abort();
    assert.equal((await scan).cancelled, true);
    await idle();
    assert.equal(stats().started - started, 0, 'steps started after the cancel');
  });

  it('a scan over 2,000 lists cached on disk: at most MAX_BEHIND refreshes behind at once, none waiting once it has ended, none started after', async () => {
    const disk = await diskWithLists();
    const { store, stats, idle } = open(2, disk);
    service.configure({ latencyMs: 50 });
    let most = 0;
    const summary = await scanSiteChanges({
      scope: { siteId: scale },
      source: revisionStoreSource(store),
      schedule: directSchedule,
      signal: new AbortController().signal,
      filter: filter(),
      onProgress: () => (most = Math.max(most, stats().active + stats().queued)),
    });
    assert.equal(summary.done, SEARCH_SCALE_FILES, 'every list read (from disk)');
    assert.equal(summary.builder.revisionCount, SEARCH_SCALE_FILES, 'the cached lists were used');
    const after = stats();
    console.log(`      (requests handed a slot during the scan: ${after.started}; most outstanding at once: ${most}; waiting at its end: ${after.queued})`);
    assert.equal(after.queued, 0, 'refreshes behind waiting after the scan');
    assert.ok(most <= MAX_BEHIND, `at most ${MAX_BEHIND} refreshes outstanding at once (${most})`);
    await idle();
    assert.equal(stats().started, after.started, 'requests started after the scan');
    await until(() => store.refreshingBehind === 0, 'the dropped refreshes settled');
  });

  it('a scan over lists cached on disk, cancelled while it fetches the others: no request starts after the cancel', async () => {
    // Every other file's list is not on disk: the scan asks for those (and refreshes the others behind).
    const disk = await diskWithLists((i) => i % 2 === 1);
    const { store, stats, idle } = open(2, disk);
    service.configure({ latencyMs: 20 });
    const ac = new AbortController();
    let done = 0;
    const scan = scanSiteChanges({ scope: { siteId: scale }, source: revisionStoreSource(store), schedule: directSchedule, signal: ac.signal, filter: filter(), onProgress: (p) => (done = p.done) });
    await until(() => done >= 60, 'sixty files scanned');
    const started = stats().started;
    ac.abort();
    assert.equal((await scan).cancelled, true);
    await idle();
    assert.equal(stats().started - started, 0, 'requests started after the cancel');
    await until(() => store.refreshingBehind === 0, 'the dropped refreshes settled');
  });
});

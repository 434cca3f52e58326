// The scan engine (src/core/search/scan.ts) over real HTTP against the local service: the demo facts
// of Marketing Drive (test/server/seed-search.ts), requests per scope, streaming, progress,
// bounded concurrency and cancellation counted at the service, failures, the async iterator,
// and Site Changes from the revision lists.
import * as assert from 'node:assert/strict';
import { SiteRevisionClient } from '../../src/core/api';
import {
  clientSource,
  oldestFirst,
  scanSiteChanges,
  searchHistory,
  searchHistoryIterable,
  type ChangesDay,
  type FileSearchResult,
  type HistorySource,
  type RevisionText,
  type Schedule,
  type ScanProgress,
} from '../../src/core/search';
import { DEMO, startService, type RunningService } from '../server';
import { SEARCH_DEMO } from '../server/seed-search';

/** The demo data is dated from this instant (noon UTC), so periods and days are exact. */
const SEED_TIME = Date.UTC(2026, 2, 10, 12, 0, 0);
const MARKER = SEARCH_DEMO.marker;

/** A source that counts the calls it starts and how many run at once. */
function counting(inner: HistorySource) {
  const c = { started: 0, running: 0, maxRunning: 0, calls: [] as string[], source: undefined as unknown as HistorySource };
  const wrap =
    <A extends unknown[], T>(name: string, fn: (...a: A) => Promise<T>) =>
    async (...a: A): Promise<T> => {
      c.started++;
      c.calls.push(`${name} ${String(typeof a[1] === 'string' ? a[1] : a[0])}`);
      c.running++;
      c.maxRunning = Math.max(c.maxRunning, c.running);
      try {
        return await fn(...a);
      } finally {
        c.running--;
      }
    };
  c.source = {
    listFiles: wrap('files', inner.listFiles.bind(inner)),
    listRevisions: wrap('revisions', inner.listRevisions.bind(inner)),
    revisionContents: wrap('contents', inner.revisionContents.bind(inner)),
  };
  return c;
}

/** A FIFO scheduler with `slots` slots, like the extension's at background priority: a queued step leaves the queue when aborted. */
function queueSchedule(slots: number) {
  const state = { started: 0, queued: 0 };
  const waiting: { go: () => void; signal: AbortSignal }[] = [];
  let free = slots;
  const release = () => {
    free++;
    const next = waiting.shift();
    if (next) {
      free--;
      next.go();
    }
  };
  const schedule: Schedule = (fn, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new Error('aborted'));
      const run = () => {
        state.started++;
        fn(signal).then(resolve, reject).finally(release);
      };
      if (free > 0) {
        free--;
        return run();
      }
      const entry = { go: run, signal };
      waiting.push(entry);
      state.queued++;
      signal.addEventListener('abort', () => {
        const i = waiting.indexOf(entry);
        if (i >= 0) waiting.splice(i, 1);
        reject(new Error('aborted'));
      });
    });
  return { schedule, state };
}

/** Waits until `cond()` holds (state, not time; mocha's time-out ends a wait that never succeeds). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 2));
}

const now = () => performance.timeOrigin + performance.now();

describe('search: the scan engine (local service)', function () {
  let service: RunningService;
  let client: SiteRevisionClient;
  let siteId: string;
  /** Revision ids of a demo file, oldest first. */
  const ids = new Map<string, string[]>();

  before(async () => {
    service = await startService({ quiet: true, seedTime: SEED_TIME });
    client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 10_000, retries: 0 });
    siteId = (await client.getSites()).find((s) => s.name === SEARCH_DEMO.siteName)!.id;
    for (const f of SEARCH_DEMO.files) ids.set(f.path, oldestFirst(await client.getRevisions(siteId, f.path)).items.map((x) => x.item.id));
  });
  after(async () => {
    await client.dispose();
    await service.close();
  });
  beforeEach(() => {
    service.configure({ latencyMs: 0, failNext: [] });
    service.resetStats();
  });

  /** `path: rK count+added-removed …` with K the revision's number (1 = oldest). */
  const describeResult = (r: FileSearchResult) => `${r.path}: ${r.hits.map((h) => `r${ids.get(r.path)!.indexOf(h.id) + 1} ${h.count}+${h.added}-${h.removed}`).join(', ')}`;
  const urls = () => service.requests().map((r) => r.url.replace(/^\/api\/revisions\?/, '').replace(`site=${siteId}`, 'S'));

  describe('History Search', () => {
    it('a file costs one request — Get Revisions with content — and gives the demo file’s exact changes', async () => {
      const results: FileSearchResult[] = [];
      const s = await searchHistory({ scope: { siteId, file: 'campaigns/spring/index.html' }, source: clientSource(client), query: { pattern: MARKER, matchCase: true }, onResult: (r) => void results.push(r) });
      assert.deepEqual(urls(), ['S&file=campaigns%2Fspring%2Findex.html&no_content=0']);
      assert.deepEqual(results.map(describeResult), ['campaigns/spring/index.html: r5 0+0-2, r4 2+1-0, r2 1+1-0']);
      assert.deepEqual([s.total, s.done, s.found, s.hits, s.revisions, s.cancelled], [1, 1, 1, 3, 6, false]);
      const [removed, second] = results[0]!.hits;
      assert.equal(removed!.previewIn, 'previous');
      assert.equal(removed!.preview!.text, `<!-- ${MARKER}: replace the hero image -->`);
      assert.equal(second!.author, 'lena@marketing.example');
      assert.equal(second!.date, '2026-03-05 11:58:57');
    });

    it('a whole site: one file list, one request per file; the marker in four files; Match Case and Whole Word', async () => {
      const run = async (query: { matchCase?: boolean; wholeWord?: boolean }, mode?: 'contains') => {
        const out: string[] = [];
        await searchHistory({ scope: { siteId }, source: clientSource(client), query: { pattern: MARKER, ...query }, mode, onResult: (r) => void out.push(describeResult(r)) });
        return out.sort();
      };
      assert.deepEqual(await run({ matchCase: true }), [
        'campaigns/autumn/notes.txt: r2 1+1-0',
        'campaigns/spring/index.html: r5 0+0-2, r4 2+1-0, r2 1+1-0',
        'campaigns/spring/styles.css: r3 2+1-0, r1 1+1-0',
        'index.html: r2 1+1-0',
      ]);
      assert.equal(service.count('getRevisionFiles'), 1);
      assert.equal(service.count('getRevisions'), SEARCH_DEMO.files.length);
      assert.equal(service.count(), 1 + SEARCH_DEMO.files.length);
      assert.ok(service.requests().every((r) => r.operation !== 'getRevisions' || r.url.endsWith('no_content=0')));
      // Without Match Case the lower-case one counts too; as a whole word, MARKERS does not.
      assert.ok((await run({})).includes('campaigns/spring/styles.css: r3 3+1-0, r2 2+1-0, r1 1+1-0'));
      assert.ok((await run({ matchCase: true, wholeWord: true })).includes('campaigns/spring/styles.css: r1 1+1-0'));
      assert.ok((await run({ matchCase: true }, 'contains')).includes('campaigns/spring/index.html: r4 2+1-0, r3 1+0-0, r2 1+1-0'));
    });

    it('a folder: only its files are read; a string only in that folder is found only there', async () => {
      const site: string[] = [];
      await searchHistory({ scope: { siteId }, source: clientSource(client), query: { pattern: SEARCH_DEMO.folderNeedle }, onResult: (r) => void site.push(describeResult(r)) });
      assert.deepEqual(site.sort(), ['campaigns/autumn/notes.txt: r1 1+1-0', 'campaigns/autumn/teaser.html: r1 1+1-0']);
      service.resetStats();
      const folder: FileSearchResult[] = [];
      const s = await searchHistory({ scope: { siteId, folder: SEARCH_DEMO.folder }, source: clientSource(client), query: { pattern: MARKER }, onResult: (r) => void folder.push(r) });
      assert.deepEqual(urls(), ['S', 'S&file=campaigns%2Fautumn%2Fnotes.txt&no_content=0', 'S&file=campaigns%2Fautumn%2Fteaser.html&no_content=0']);
      assert.equal(s.total, 2);
      // The CRLF file with umlauts and an emoji: the preview's position is in UTF-16 units.
      const p = folder[0]!.hits[0]!.preview!;
      assert.deepEqual([folder[0]!.path, p.line, p.character, p.text], ['campaigns/autumn/notes.txt', 2, 10, `😀 Zeile: ${MARKER} für Søren`]);
    });

    it('streams: each result is handed over as soon as its file is searched (concurrency 1), in path order, with progress', async () => {
      const seen: { path: string; started: number }[] = [];
      const progress: ScanProgress[] = [];
      const c = counting(clientSource(client));
      const s = await searchHistory({
        scope: { siteId },
        source: c.source,
        concurrency: 1,
        query: { pattern: MARKER },
        onResult: (r) => void seen.push({ path: r.path, started: c.started }),
        onProgress: (p) => progress.push(p),
      });
      assert.deepEqual(seen.map((x) => x.path), ['campaigns/autumn/notes.txt', 'campaigns/spring/index.html', 'campaigns/spring/styles.css', 'index.html']);
      // Natural path order: autumn/notes, autumn/teaser, spring/index, spring/styles,
      // summer/launch, index.html. When a file's result is handed over, the file list, the files
      // up to it and the next one (already on its way while this one was searched) were asked for.
      assert.deepEqual(seen.map((x) => x.started), [3, 5, 6, 7]);
      assert.deepEqual(c.calls, [`files ${siteId}`, ...['campaigns/autumn/notes.txt', 'campaigns/autumn/teaser.html', 'campaigns/spring/index.html', 'campaigns/spring/styles.css', 'campaigns/summer/launch.md', 'index.html'].map((p) => `contents ${p}`)]);
      assert.equal(c.maxRunning, 1, 'one request at a time');
      assert.deepEqual(progress[0], { phase: 'listing', done: 0, total: undefined, found: 0, failed: 0 });
      assert.deepEqual(progress[1], { phase: 'scanning', done: 0, total: 6, found: 0, failed: 0 });
      assert.deepEqual(progress.slice(2, -1).map((p) => `${p.done}/${p.total} ${p.found}`), ['1/6 1', '2/6 1', '3/6 2', '4/6 3', '5/6 3', '6/6 4']);
      assert.deepEqual(progress.at(-1), { phase: 'done', done: 6, total: 6, found: 4, failed: 0 });
      assert.equal(s.phase, 'done');
    });

    it('the engine asks a caching source only for what it lacks: a second search sends no request', async () => {
      const inner = clientSource(client);
      const lists = new Map<string, readonly string[]>();
      const contents = new Map<string, readonly RevisionText[]>();
      const cached: HistorySource = {
        listFiles: async (site, o) => lists.get(site) ?? (lists.set(site, await inner.listFiles(site, o)), lists.get(site)!),
        listRevisions: () => Promise.reject(new Error('History Search must not list revisions separately')),
        revisionContents: async (site, path, o) => contents.get(path) ?? (contents.set(path, await inner.revisionContents(site, path, o)), contents.get(path)!),
      };
      const first = await searchHistory({ scope: { siteId }, source: cached, query: { pattern: MARKER } });
      assert.equal(service.count(), 7);
      service.resetStats();
      const second = await searchHistory({ scope: { siteId }, source: cached, query: { pattern: 'FOLDER-ONLY-NEEDLE' } });
      assert.equal(service.count(), 0, 'no request the second time');
      assert.deepEqual([first.found, second.found], [4, 2]);
    });

    it('an odd concurrency or buffer falls back to the default instead of scanning nothing', async () => {
      const c = counting(clientSource(client));
      const s = await searchHistory({ scope: { siteId }, source: c.source, concurrency: Number.NaN, query: { pattern: MARKER } });
      assert.deepEqual([s.done, s.found, c.maxRunning], [6, 4, 6]);
      const got: string[] = [];
      for await (const r of searchHistoryIterable({ scope: { siteId }, source: clientSource(client), concurrency: 0, buffer: Number.NaN, query: { pattern: MARKER } })) got.push(r.path);
      assert.equal(got.length, 4);
    });

    it('an invalid query fails before any request', async () => {
      await assert.rejects(searchHistory({ scope: { siteId }, source: clientSource(client), query: { pattern: '([', isRegExp: true } }), { name: 'QueryError' });
      assert.equal(service.count(), 0);
    });
  });

  describe('failures', () => {
    it('a file the service fails on is reported and the scan goes on', async () => {
      const s = await searchHistory({
        scope: { siteId },
        source: clientSource(client),
        concurrency: 1,
        query: { pattern: MARKER },
        // Once the file list is read, the next request (the first file's) gets an HTTP 500.
        onProgress: (p) => p.phase === 'scanning' && p.done === 0 && service.configure({ failNext: ['http500'] }),
      });
      assert.deepEqual([s.done, s.failed, s.found, s.total], [6, 1, 3, 6]);
      assert.equal(s.failures[0]!.path, 'campaigns/autumn/notes.txt');
      assert.match(String(s.failures[0]!.error), /HTTP 500/);
    });

    it('signed out (HTTP 401) stops the scan: it rejects, and no other file is asked for', async () => {
      await assert.rejects(
        searchHistory({
          scope: { siteId },
          source: clientSource(client),
          concurrency: 1,
          query: { pattern: MARKER },
          onProgress: (p) => p.phase === 'scanning' && p.done === 0 && service.configure({ failNext: ['http401'] }),
        }),
        { name: 'AuthError' },
      );
      assert.equal(service.count(), 2);
    });
  });

  describe('concurrency and cancellation (the large data set)', () => {
    let large: RunningService;
    let lc: SiteRevisionClient;
    // 200 files of one revision each: src/pkg-000/module-00/… (test/server/large.ts).
    const FOLDER = 'src/pkg-000/module-00';
    before(async () => {
      large = await startService({ quiet: true, large: true });
      lc = new SiteRevisionClient({ baseUrl: large.url, credentials: () => DEMO.user, timeoutMs: 20_000, retries: 0 });
    });
    after(async () => {
      await lc.dispose();
      await large.close();
    });
    beforeEach(() => {
      large.configure({ latencyMs: 0 });
      large.resetStats();
    });

    it('never more than `concurrency` requests at once, counted at the service', async () => {
      large.configure({ latencyMs: 5 });
      const c = counting(clientSource(lc));
      const s = await searchHistory({ scope: { siteId: '900000', folder: FOLDER }, source: c.source, concurrency: 4, query: { pattern: 'export const' } });
      assert.deepEqual([s.total, s.done, s.found], [200, 200, 200]);
      assert.equal(large.count('getRevisions'), 200);
      assert.ok(large.maxInFlight() <= 4, `${large.maxInFlight()} at once at the service`);
      assert.equal(c.maxRunning, 4, 'and the engine does use its four');
    });

    it('cancel: no request starts after the abort, and the scan settles without waiting for the requests in flight', async () => {
      large.configure({ latencyMs: 1000 });
      const c = counting(clientSource(lc));
      const ac = new AbortController();
      const results: FileSearchResult[] = [];
      const scan = searchHistory({ scope: { siteId: '900000', folder: FOLDER }, source: c.source, concurrency: 4, signal: ac.signal, query: { pattern: 'value' }, onResult: (r) => void results.push(r) });
      // The file list (held 1 s), then the first four files, all four at the service.
      await until(() => c.started === 5 && large.inFlight() === 4);
      const abortedAt = now();
      ac.abort();
      const s = await scan;
      assert.equal(s.cancelled, true);
      assert.equal(s.phase, 'cancelled');
      assert.equal(large.inFlight(), 4, 'settled while the four requests are still held at the service');
      assert.deepEqual(results, [], 'nothing reported after the abort');
      // Every call of the scan has ended (the engine's and the service's side).
      await until(() => large.inFlight() === 0 && c.running === 0);
      const after = large.requests().filter((r) => r.arrivedAt > abortedAt);
      assert.deepEqual(after, [], 'requests that arrived after the abort');
      assert.equal(large.count(), 5);
      assert.equal(c.started, 5);
    });

    it('cancel with a scheduler: steps still queued there never run', async () => {
      large.configure({ latencyMs: 200 });
      const { schedule, state } = queueSchedule(2);
      const ac = new AbortController();
      const scan = searchHistory({ scope: { siteId: '900000', folder: FOLDER }, source: clientSource(lc), schedule, concurrency: 6, signal: ac.signal, query: { pattern: 'value' } });
      // The list, then 2 files running (both at the service) and 4 queued.
      await until(() => state.started === 3 && state.queued === 4 && large.inFlight() === 2);
      ac.abort();
      assert.equal((await scan).cancelled, true);
      await until(() => large.inFlight() === 0);
      assert.equal(state.started, 3);
      assert.equal(large.count(), 3);
    });

    it('the async iterator yields results as found; leaving the loop cancels the scan', async () => {
      const c = counting(clientSource(lc));
      const it = searchHistoryIterable({ scope: { siteId: '900000', folder: FOLDER }, source: c.source, concurrency: 2, buffer: 1, query: { pattern: 'value' } });
      const got: string[] = [];
      let startedAtBreak = 0;
      for await (const r of it) {
        got.push(r.path);
        if (got.length === 3) {
          startedAtBreak = c.started;
          break;
        }
      }
      const s = await it.summary;
      assert.equal(s.cancelled, true);
      assert.equal(new Set(got).size, 3);
      assert.ok(got.every((p) => p.startsWith(`${FOLDER}/`)));
      assert.equal(c.started, startedAtBreak, 'no source call after the loop was left');
      // Back-pressure: with a buffer of 1 and two workers (each one reply ahead), only a few files beyond the three taken were read.
      assert.ok(c.started <= 1 + 3 + 1 + 2 * 2, `${c.started} source calls`);
    });
  });

  describe('Site Changes', () => {
    const shape = (days: ChangesDay[]) => days.map((x) => `${x.day}: ${x.files.map((f) => `${f.path}[${f.revisions.map((r) => `r${ids.get(f.path)!.indexOf(r.id) + 1}`).join(',')}]`).join(' ')}`);

    it('last 7 days of the demo site: one revision list (no content) per file, grouped by UTC day', async () => {
      const files: string[] = [];
      const s = await scanSiteChanges({ scope: { siteId }, source: clientSource(client), filter: { period: { kind: 'days', days: 7 }, now: SEED_TIME, timeZone: 'UTC' }, onFile: (f) => void files.push(f.path) });
      assert.equal(service.count('getRevisions'), 6);
      assert.ok(service.requests().every((r) => r.operation !== 'getRevisions' || r.url.endsWith('no_content=1')));
      assert.deepEqual(shape(s.builder.days()), [
        '2026-03-10: campaigns/spring/index.html[r6] campaigns/summer/launch.md[r2]',
        '2026-03-09: campaigns/spring/styles.css[r3] index.html[r3]',
        '2026-03-08: campaigns/spring/index.html[r5]',
        '2026-03-07: campaigns/autumn/teaser.html[r2] campaigns/summer/launch.md[r1]',
        '2026-03-06: campaigns/autumn/notes.txt[r2]',
        '2026-03-05: campaigns/spring/index.html[r4]',
        '2026-03-04: campaigns/spring/styles.css[r2]',
      ]);
      const pairs = s.builder.files().map((f) => `${f.path}: ${f.before ? `r${ids.get(f.path)!.indexOf(f.before.id) + 1}` : 'new'} → r${ids.get(f.path)!.indexOf(f.newest.id) + 1}`);
      assert.deepEqual(pairs.sort(), [
        'campaigns/autumn/notes.txt: r1 → r2',
        'campaigns/autumn/teaser.html: r1 → r2',
        'campaigns/spring/index.html: r3 → r6',
        'campaigns/spring/styles.css: r1 → r3',
        'campaigns/summer/launch.md: new → r2',
        'index.html: r2 → r3',
      ]);
      assert.equal(files.length, 6, 'each file handed over as it was read');
      assert.deepEqual(s.builder.authors(), SEARCH_DEMO.authors);
    });

    it('today in another time zone, by one author', async () => {
      // In Tokyo (UTC+9) "today" began at 2026-03-09 15:00 UTC; nothing of Lena's since then but r6.
      const s = await scanSiteChanges({ scope: { siteId }, source: clientSource(client), filter: { period: { kind: 'today' }, now: SEED_TIME, timeZone: 'Asia/Tokyo', authors: ['lena@marketing.example'] } });
      assert.deepEqual(shape(s.builder.days()), ['2026-03-10: campaigns/spring/index.html[r6]']);
      const lastWeek = await scanSiteChanges({ scope: { siteId, folder: 'campaigns' }, source: clientSource(client), filter: { period: { kind: 'since', date: '2026-03-05' }, now: SEED_TIME, timeZone: 'UTC', authors: ['LENA@marketing.example'] } });
      assert.deepEqual(shape(lastWeek.builder.days()), [
        '2026-03-10: campaigns/spring/index.html[r6]',
        '2026-03-09: campaigns/spring/styles.css[r3]',
        '2026-03-07: campaigns/autumn/teaser.html[r2] campaigns/summer/launch.md[r1]',
        '2026-03-05: campaigns/spring/index.html[r4]',
      ]);
    });
  });
});

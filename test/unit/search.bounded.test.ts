// History Search's matching on its own thread, bounded in time and cancellable
// (src/core/search/offThread.ts, src/core/search/searchWorker.ts): the three hostile expressions of the
// "Trust" issue are cut at their budget with a message that says where and what to change;
// Cancel ends a search in the middle of one catastrophic match and the thread with it; the host's
// event loop keeps running meanwhile; ordinary queries give what the in-process search gives.
// The fuzz suite (`npm run test:fuzz`) runs generated expressions, hostile ones among them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  compileQuery,
  DEFAULT_BUDGET,
  budgetMs,
  endIdleSearchThread,
  OffThreadSearch,
  QueryError,
  searchHistory,
  searchRevisions,
  searchThreads,
  SearchTimeoutError,
  type HistorySource,
  type RevisionText,
  type SearchMode,
  type SearchQuery,
} from '../../src/core/search';
import { HOSTILE, revisionsWith } from './helpers/hostile';

/** A HistorySource over files held in memory (the engine's interface; the scan tests use the service). */
function memorySource(files: Record<string, RevisionText[]>): HistorySource {
  return {
    listFiles: () => Promise.resolve(Object.keys(files)),
    listRevisions: (_s, path) => Promise.resolve(files[path]!.map(({ id, date, author }) => ({ id, date, author }))),
    revisionContents: (_s, path) => Promise.resolve(files[path]!),
  };
}

const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), what);
};

describe('search: bounded matching on its own thread', function () {
  this.timeout(20_000);
  afterEach(() => endIdleSearchThread());

  for (const h of HOSTILE) {
    it(`a hostile expression is cut at its budget with a message that says where and what to change: ${h.name}`, async () => {
      const files = { 'css/site.css': revisionsWith(h.line) };
      const err = await searchHistory({ scope: { siteId: '4', file: 'css/site.css' }, source: memorySource(files), query: { pattern: h.pattern, isRegExp: true }, budget: { baseMs: 300, msPerMB: 0 } }).then(
        () => assert.fail('the search ended with results'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof SearchTimeoutError, String(err));
      assert.ok(err instanceof QueryError, 'shown where an unusable query is shown');
      assert.equal(err.path, 'css/site.css');
      assert.equal(err.revisionId, '702', 'the revision whose content holds the line');
      assert.equal(err.limitMs, 300);
      assert.match(err.message, /^The regular expression took more than 0\.3 s on revision 702 of css\/site\.css, so the search was stopped\. Nested quantifiers such as \(a\+\)\+/);
      assert.match(err.message, /for example a\+ instead of \(a\+\)\+/);
      await until('the thread that ran it has ended', () => searchThreads() === 0);
    });
  }

  it('Cancel ends a search in the middle of a catastrophic match, and the thread with it', async () => {
    endIdleSearchThread();
    await until('no thread before', () => searchThreads() === 0);
    const ac = new AbortController();
    const files = { 'a.txt': revisionsWith(`${'a'.repeat(40)}!`) };
    let matching = false;
    const source = memorySource(files);
    const search = searchHistory({
      scope: { siteId: '4', file: 'a.txt' },
      source: { ...source, revisionContents: async (...a) => ((matching = true), source.revisionContents(...a)) },
      signal: ac.signal,
      query: { pattern: '(a+)+$', isRegExp: true },
      budget: { baseMs: 600_000, msPerMB: 0 }, // never reached: only Cancel can end it
    });
    await until('the contents were handed over', () => matching);
    await until('a search thread runs', () => searchThreads() === 1);
    await new Promise((r) => setTimeout(r, 100)); // well into the match (2^40 steps)
    ac.abort();
    const summary = await search;
    assert.equal(summary.cancelled, true);
    assert.equal(summary.hits, 0);
    await until('the thread was ended, not left to finish', () => searchThreads() === 0);
  });

  it('the host’s event loop runs while the search thread is stuck in a match', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      await assert.rejects(
        searchHistory({ scope: { siteId: '4', file: 'a.txt' }, source: memorySource({ 'a.txt': revisionsWith(HOSTILE[0]!.line) }), query: { pattern: HOSTILE[0]!.pattern, isRegExp: true }, budget: { baseMs: 400, msPerMB: 0 } }),
        SearchTimeoutError,
      );
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks >= 5, `timers ran during the search (${ticks} ticks)`);
  });

  it('ordinary queries find on the search thread exactly what the in-process search finds', async () => {
    const texts = ['Grüße\r\nTODO-X here\n', 'Grüße TODO-XS\rtodo-x 😀 done\n', 'x\n', 'function fooHandler(a) {\n  // TODO-X\n}\n', '', 'a\u0301 TODO-X\r\n'];
    const list: RevisionText[] = texts.map((content, i) => ({ id: String(200 + i), date: `2026-01-0${i + 1} 10:00:00`, author: 'a', content: i === 3 ? new TextEncoder().encode(content) : content }));
    const queries: SearchQuery[] = [
      { pattern: 'TODO-X', matchCase: true },
      { pattern: 'todo-x' },
      { pattern: 'TODO-X', wholeWord: true },
      { pattern: 'grüße', wholeWord: true },
      { pattern: '^\\w+$', isRegExp: true },
      { pattern: 'function\\s+\\w+Handler\\(|TODO-\\w', isRegExp: true },
      { pattern: '\\p{L}+e$', isRegExp: true },
      { pattern: 'x*', isRegExp: true },
      { pattern: '\\r?\\n\\S', isRegExp: true },
    ];
    for (const mode of ['changes', 'contains'] as SearchMode[]) {
      for (const q of queries) {
        const off = new OffThreadSearch(q, mode);
        try {
          const got = await off.search('4', 'f.txt', list);
          assert.deepEqual(got, searchRevisions('4', 'f.txt', list, compileQuery(q), mode), `${mode} ${JSON.stringify(q)}`);
        } finally {
          off.close();
        }
      }
    }
  });

  it('a thread that ended well serves the next search; one that was cut is replaced', async () => {
    endIdleSearchThread();
    await until('no thread before', () => searchThreads() === 0);
    const list = revisionsWith('TODO');
    const a = new OffThreadSearch({ pattern: 'TODO' }, 'contains');
    assert.equal((await a.search('4', 'f', list)).hits.length, 1);
    a.close();
    const b = new OffThreadSearch({ pattern: 'margin' }, 'contains');
    assert.equal((await b.search('4', 'f', list)).hits.length, 3);
    assert.equal(searchThreads(), 1, 'the same thread');
    b.close();
    const c = new OffThreadSearch({ pattern: HOSTILE[2]!.pattern, isRegExp: true }, 'contains', { budget: { baseMs: 200, msPerMB: 0 } });
    await assert.rejects(c.search('4', 'f', revisionsWith(HOSTILE[2]!.line)), SearchTimeoutError);
    c.close();
    await until('the cut thread ended', () => searchThreads() === 0);
    const d = new OffThreadSearch({ pattern: 'TODO' }, 'contains');
    assert.equal((await d.search('4', 'f', list)).hits.length, 1, 'a fresh thread');
    d.close();
  });

  it('40 searches at once take turns on at most two threads, and each finds what it finds alone', async () => {
    endIdleSearchThread();
    await until('no thread before', () => searchThreads() === 0);
    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, searchThreads())), 1);
    try {
      const lists = Array.from({ length: 40 }, (_, i) => revisionsWith(`TODO-${i}`, 2 + (i % 4)));
      const sessions = lists.map((_, i) => new OffThreadSearch({ pattern: `TODO-${i}` }, 'contains'));
      peak = Math.max(peak, searchThreads());
      // Each session searches three files, one after another, all sessions at once.
      const got = await Promise.all(sessions.map(async (off, i) => {
        const out = [];
        for (const f of ['a.css', 'b.css', 'c.css']) out.push(await off.search('4', f, lists[i]!));
        off.close();
        return out;
      }));
      peak = Math.max(peak, searchThreads());
      for (const [i, results] of got.entries()) {
        for (const [k, r] of results.entries()) assert.deepEqual(r, searchRevisions('4', ['a.css', 'b.css', 'c.css'][k]!, lists[i]!, compileQuery({ pattern: `TODO-${i}` }), 'contains'), `search ${i}, file ${k}`);
      }
    } finally {
      clearInterval(sample);
    }
    assert.ok(peak >= 1 && peak <= 2, `at most two threads at any time (${peak})`);
  });

  it('Cancel drops a file waiting for a thread (none is started for it) and terminates the threads that match; a file that waited gets its whole budget', async () => {
    endIdleSearchThread();
    await until('no thread before', () => searchThreads() === 0);
    // Two catastrophic matches take both threads, for as long as nobody cancels them.
    const busy = [new AbortController(), new AbortController()];
    const hostile = busy.map((ac) => {
      const off = new OffThreadSearch({ pattern: '(a+)+$', isRegExp: true }, 'contains', { budget: { baseMs: 600_000, msPerMB: 0 } });
      return off.search('4', 'stuck.txt', revisionsWith(`${'a'.repeat(40)}!`), ac.signal).finally(() => off.close());
    });
    hostile.forEach((h) => h.catch(() => undefined));
    try {
      await until('both threads search', () => searchThreads() === 2);
      // A third search waits in line; Cancel drops it at once, and no thread was started for it.
      const ac = new AbortController();
      const third = new OffThreadSearch({ pattern: 'TODO' }, 'contains');
      const waiting = third.search('4', 'f.css', revisionsWith('TODO'), ac.signal);
      await new Promise((r) => setImmediate(r));
      assert.equal(searchThreads(), 2, 'no third thread');
      ac.abort();
      await assert.rejects(waiting, (e: Error) => e.name === 'AbortError');
      third.close();
      // A fourth waits with a short budget: its budget starts when it gets a thread, not in line.
      const fourth = new OffThreadSearch({ pattern: 'TODO' }, 'contains', { budget: { baseMs: 1000, msPerMB: 0 } });
      const later = fourth.search('4', 'g.css', revisionsWith('TODO'));
      await new Promise((r) => setTimeout(r, 1200)); // longer than its budget, in line (time passing is what is tested)
      assert.equal(searchThreads(), 2, 'still two threads');
      busy[0]!.abort();
      await assert.rejects(hostile[0]!, (e: Error) => e.name === 'AbortError');
      assert.equal((await later).hits.length, 1, 'it searched once it had a thread');
      fourth.close();
      busy[1]!.abort();
      await assert.rejects(hostile[1]!, (e: Error) => e.name === 'AbortError');
      endIdleSearchThread();
      await until('the matching threads were terminated, not left to finish', () => searchThreads() === 0);
    } finally {
      for (const b of busy) b.abort();
    }
  });

  it('a missing search thread script (the extension updated under the window) fails with UpdatedWhileOpenError, which the window shows as “reload the window”', async () => {
    // A copy of the compiled core without searchWorker.js, as when VS Code replaced the
    // extension's files under a running window.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-no-worker-'));
    try {
      const core = path.resolve(__dirname, '..', '..', 'src', 'core');
      fs.cpSync(core, path.join(dir, 'core'), { recursive: true, filter: (f) => !/searchWorker\.js$/.test(f) });
      assert.ok(!fs.existsSync(path.join(dir, 'core', 'search', 'searchWorker.js')));
      const copy = (await import(path.join(dir, 'core', 'search', 'index.js'))) as typeof import('../../src/core/search');
      for (let i = 0; i < 2; i++) {
        const off = new copy.OffThreadSearch({ pattern: 'TODO' }, 'contains');
        const e = (await off.search('4', 'f.css', revisionsWith('TODO')).then(
          () => assert.fail('the search ended'),
          (x: unknown) => x,
        )) as Error & { missing?: string };
        off.close();
        assert.equal(e.name, 'UpdatedWhileOpenError', String(e));
        assert.match(e.message, /it was updated while this window was open\. Reload the window/);
        assert.match(e.missing ?? '', /searchWorker\.js$/);
      }
      await until('no thread left of the copy', () => copy.searchThreads() === 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the budget grows with the contents: 500 ms and 50 ms per MB by default', () => {
    assert.deepEqual(DEFAULT_BUDGET, { baseMs: 500, msPerMB: 50 });
    assert.equal(budgetMs(0), 500);
    assert.equal(budgetMs(200 * 1024), 510);
    assert.equal(budgetMs(50 * 200 * 1024), 988);
    assert.equal(budgetMs(20 * 1024 * 1024, { baseMs: 100, msPerMB: 10 }), 300);
  });
});

describe('fuzz: generated regular expressions, hostile ones among them, end or are cut', function () {
  // FUZZ_RUNS is 10,000 in `npm run test:fuzz` (1,000 otherwise); each run here may start a thread.
  const RUNS = Math.max(20, Math.ceil(Number(process.env.FUZZ_RUNS ?? 1000) / 25));
  this.timeout(600_000);
  afterEach(() => endIdleSearchThread());

  const atom = fc.constantFrom('a', '\\w', '\\s', '-', '.', '[a-]', '\\d', 'x');
  const quant = fc.constantFrom('', '+', '*', '?', '{1,3}', '+?');
  const piece = fc.tuple(atom, quant).map(([a, q]) => a + q);
  const group: fc.Arbitrary<string> = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 3 }), fc.constantFrom('+', '*', '', '{2,}')).map(([ps, q]) => `(${ps.join('')})${q}`);
  const pattern = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE.map((h) => h.pattern)) },
    { weight: 4, arbitrary: fc.tuple(fc.array(fc.oneof(piece, group), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '$', ';$', '!')).map(([ps, end]) => ps.join('') + end) },
  );
  const line = fc.oneof(fc.constantFrom(...HOSTILE.map((h) => h.line)), fc.stringMatching(/^[a -;x!]{0,40}$/), fc.constantFrom('a'.repeat(28), '-'.repeat(28)).map((s) => `${s}!`));

  it('each search gives the in-process result, or a SearchTimeoutError naming the file and revision', async () => {
    let cut = 0;
    let ended = 0;
    await fc.assert(
      fc.asyncProperty(pattern, fc.array(line, { minLength: 1, maxLength: 4 }), fc.constantFrom<SearchMode>('changes', 'contains'), fc.boolean(), async (p, lines, mode, matchCase) => {
        const q: SearchQuery = { pattern: p, isRegExp: true, matchCase };
        try {
          compileQuery(q);
        } catch (e) {
          assert.ok(e instanceof QueryError);
          return;
        }
        const list = lines.map((l, i) => ({ id: String(900 + i), date: `2026-02-0${i + 1} 08:00:00`, author: 'f', content: `head\n${l}\ntail\n` }));
        const off = new OffThreadSearch(q, mode, { budget: { baseMs: 150, msPerMB: 0 } });
        try {
          const got = await off.search('4', 'fuzz.txt', list);
          ended++;
          assert.deepEqual(got, searchRevisions('4', 'fuzz.txt', list, compileQuery(q), mode));
        } catch (e) {
          if (!(e instanceof SearchTimeoutError)) throw e;
          cut++;
          assert.equal(e.path, 'fuzz.txt');
          // Named when the thread had begun a content (a loaded machine may stop it before that).
          if (e.revisionId !== undefined) assert.ok(list.some((r) => r.id === e.revisionId), `a revision of the file: ${e.revisionId}`);
          assert.match(e.message, e.revisionId !== undefined ? /took more than 0\.\d s on revision 9\d\d of fuzz\.txt/ : /took more than 0\.\d s on fuzz\.txt/);
        } finally {
          off.close();
        }
      }),
      { numRuns: RUNS },
    );
    assert.ok(cut > 0 && ended > 0, `both outcomes were reached (${ended} ended, ${cut} cut)`);
  });
});

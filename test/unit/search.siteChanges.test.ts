// Site Changes (src/core/search/siteChanges.ts): local calendar days in a given time zone, periods,
// the day → file → revision grouping, the author filter and the "Open Changes" pair.
import * as assert from 'node:assert/strict';
import { parseDay, periodStart, PeriodError, SiteChangesBuilder, Zone, ZoneError, type ChangesDay } from '../../src/core/search';

const iso = (t: number) => new Date(t).toISOString();
/** `YYYY-MM-DD HH:MM:SS` (UTC) of an ISO time, as the service writes dates. */
const d = (isoTime: string) => isoTime.replace('T', ' ').replace(/(\.\d+)?Z$/, '');
const rev = (id: string, isoTime: string, author = 'demo@example.com') => ({ id, date: d(isoTime), author });
/** days → files → revision ids, to compare groupings at a glance. */
const shape = (days: ChangesDay[]) => days.map((x) => `${x.day}: ${x.files.map((f) => `${f.path}[${f.revisions.map((r) => r.id).join(',')}]`).join(' ')}`);

describe('search: Site Changes', () => {
  describe('time zones', () => {
    it('offsets with and without daylight saving time, half and three-quarter hours', () => {
      const berlin = new Zone('Europe/Berlin');
      assert.equal(berlin.offsetMinutes(Date.UTC(2026, 6, 1)), 120);
      assert.equal(berlin.offsetMinutes(Date.UTC(2026, 0, 15)), 60);
      assert.equal(new Zone('America/New_York').offsetMinutes(Date.UTC(2026, 6, 1)), -240);
      assert.equal(new Zone('Asia/Kolkata').offsetMinutes(Date.UTC(2026, 0, 1)), 330);
      assert.equal(new Zone('Pacific/Chatham').offsetMinutes(Date.UTC(2026, 6, 1)), 765);
      assert.equal(new Zone('UTC').offsetMinutes(Date.UTC(2026, 6, 1)), 0);
      assert.equal(new Zone().name, Intl.DateTimeFormat().resolvedOptions().timeZone, 'default: the process’s zone');
      assert.throws(() => new Zone('Mars/Olympus_Mons'), (e: unknown) => e instanceof ZoneError && e.message === 'Unknown time zone: Mars/Olympus_Mons');
    });

    it('the local day of an instant, on either side of midnight', () => {
      const t = Date.UTC(2026, 2, 9, 23, 30); // 2026-03-09 23:30 UTC
      assert.equal(new Zone('UTC').dayOf(t), '2026-03-09');
      assert.equal(new Zone('Europe/Berlin').dayOf(t), '2026-03-10'); // 00:30 CET
      assert.equal(new Zone('America/Los_Angeles').dayOf(t), '2026-03-09'); // 16:30 PDT
      assert.equal(new Zone('Asia/Tokyo').dayOf(t), '2026-03-10');
      assert.equal(new Zone('Pacific/Kiritimati').dayOf(Date.UTC(2026, 2, 9, 10)), '2026-03-10', 'UTC+14');
      assert.equal(new Zone('Pacific/Pago_Pago').dayOf(Date.UTC(2026, 2, 10, 10)), '2026-03-09', 'UTC−11');
    });

    it('the start of a local day, also on daylight-saving days and where midnight does not exist', () => {
      const berlin = new Zone('Europe/Berlin');
      assert.equal(iso(berlin.startOf({ y: 2026, m: 3, d: 29 })), '2026-03-28T23:00:00.000Z', 'the day clocks go forward (at 02:00)');
      assert.equal(iso(berlin.startOf({ y: 2026, m: 3, d: 30 })), '2026-03-29T22:00:00.000Z');
      assert.equal(iso(berlin.startOf({ y: 2026, m: 10, d: 25 })), '2026-10-24T22:00:00.000Z', 'the day clocks go back');
      assert.equal(iso(berlin.startOf({ y: 2026, m: 10, d: 26 })), '2026-10-25T23:00:00.000Z');
      // Clocks went from 00:00 to 01:00: the day starts at 01:00 local.
      assert.equal(iso(new Zone('America/Sao_Paulo').startOf({ y: 2018, m: 11, d: 4 })), '2018-11-04T03:00:00.000Z');
      assert.equal(iso(new Zone('America/Havana').startOf({ y: 2026, m: 3, d: 8 })), '2026-03-08T05:00:00.000Z');
    });

    it('parseDay accepts real YYYY-MM-DD days only', () => {
      assert.deepEqual(parseDay(' 2024-02-29 '), { y: 2024, m: 2, d: 29 });
      for (const bad of ['2026-02-29', '2026-13-01', '2026-1-1', '26-01-01', '2026-01-01T00:00', '']) assert.equal(parseDay(bad), undefined, bad);
    });
  });

  describe('periods', () => {
    const now = Date.UTC(2026, 2, 10, 10, 0); // 11:00 in Berlin
    const berlin = new Zone('Europe/Berlin');

    it('today, the last N days (today and the N−1 before) and since a date start at local midnight', () => {
      assert.equal(iso(periodStart({ kind: 'today' }, now, berlin)), '2026-03-09T23:00:00.000Z');
      assert.equal(iso(periodStart({ kind: 'days', days: 1 }, now, berlin)), '2026-03-09T23:00:00.000Z');
      assert.equal(iso(periodStart({ kind: 'days', days: 7 }, now, berlin)), '2026-03-03T23:00:00.000Z');
      assert.equal(iso(periodStart({ kind: 'days', days: 30 }, now, berlin)), '2026-02-08T23:00:00.000Z');
      assert.equal(iso(periodStart({ kind: 'since', date: '2026-03-01' }, now, berlin)), '2026-02-28T23:00:00.000Z');
      // Across the start of summer time: 7 days back from a summer day start at a winter midnight.
      assert.equal(iso(periodStart({ kind: 'days', days: 7 }, Date.UTC(2026, 3, 1, 10), berlin)), '2026-03-25T23:00:00.000Z');
      assert.equal(iso(periodStart({ kind: 'today' }, now, new Zone('America/Los_Angeles'))), '2026-03-10T07:00:00.000Z');
    });

    it('nonsense is a PeriodError with a message for the user', () => {
      assert.throws(() => periodStart({ kind: 'since', date: '2026-02-30' }, now, berlin), (e: unknown) => e instanceof PeriodError && e.message === 'Enter a date as YYYY-MM-DD, e.g. 2026-03-10.');
      assert.throws(() => periodStart({ kind: 'days', days: 0 }, now, berlin), PeriodError);
      assert.throws(() => periodStart({ kind: 'days', days: 2.5 }, now, berlin), PeriodError);
      assert.throws(() => periodStart({ kind: 'week' } as never, now, berlin), PeriodError);
    });
  });

  describe('grouping', () => {
    const now = Date.UTC(2026, 2, 10, 12, 0);
    // One file's history around local midnights; the same data grouped in three zones.
    const index = [
      rev('1', '2026-02-01T10:00:00Z'), // long before
      rev('2', '2026-03-02T08:00:00Z', 'lena@example.com'), // before a 7-day period in every zone below
      rev('3', '2026-03-08T22:30:00Z'), // Berlin: 03-08 23:30; LA: 03-08 15:30; Tokyo: 03-09 07:30
      rev('4', '2026-03-09T23:30:00Z', 'Lena@Example.com'), // Berlin: 03-10 00:30; LA: 03-09 16:30; Tokyo: 03-10 08:30
      rev('5', '2026-03-10T11:00:00Z'), // 03-10 everywhere but Tokyo (20:00, also 03-10)
    ];
    const css = [rev('10', '2026-03-09T23:40:00Z', 'lena@example.com')]; // new in the period
    const undatedAndDup = [rev('20', '2026-03-09T09:00:00Z'), { id: '21', date: 'yesterday', author: 'x' }, rev('20', '2026-03-09T09:00:00Z')];

    function build(timeZone: string, authors?: string[]) {
      const b = new SiteChangesBuilder({ period: { kind: 'days', days: 7 }, now, timeZone, authors });
      b.add('index.html', index);
      b.add('site.css', css);
      b.add('about.html', undatedAndDup);
      return b;
    }

    it('days newest first, files by their newest revision that day, revisions newest first — per time zone', () => {
      assert.deepEqual(shape(build('Europe/Berlin').days()), ['2026-03-10: index.html[5,4] site.css[10]', '2026-03-09: about.html[20]', '2026-03-08: index.html[3]']);
      assert.deepEqual(shape(build('America/Los_Angeles').days()), ['2026-03-10: index.html[5]', '2026-03-09: site.css[10] index.html[4] about.html[20]', '2026-03-08: index.html[3]']);
      assert.deepEqual(shape(build('Asia/Tokyo').days()), ['2026-03-10: index.html[5,4] site.css[10]', '2026-03-09: about.html[20] index.html[3]']);
      const day = build('Europe/Berlin').days()[0]!;
      assert.equal(iso(day.start), '2026-03-09T23:00:00.000Z');
      assert.deepEqual(day.files[0]!.revisions[0], { id: '5', date: '2026-03-10 11:00:00', author: 'demo@example.com', time: Date.UTC(2026, 2, 10, 11) });
    });

    it('the "Open Changes" pair: last revision before the period vs newest in it; none before = new', () => {
      const files = build('Europe/Berlin').files();
      assert.deepEqual(files.map((f) => [f.path, f.before?.id, f.newest.id]), [
        ['index.html', '2', '5'],
        ['site.css', undefined, '10'],
        ['about.html', undefined, '20'],
      ]);
    });

    it('author filter: without case or spaces; the pair still spans every author; authors() lists everyone', () => {
      const b = build('Europe/Berlin', [' LENA@example.com ']);
      assert.deepEqual(shape(b.days()), ['2026-03-10: site.css[10] index.html[4]']);
      assert.deepEqual(b.files().map((f) => [f.path, f.before?.id, f.newest.id, f.revisions.map((r) => r.id).join()]), [
        ['site.css', undefined, '10', '10'],
        ['index.html', '2', '5', '4'],
      ]);
      assert.deepEqual(b.authors(), ['demo@example.com', 'Lena@Example.com'], 'one entry per author whatever the case (as first seen); only those in the period');
      assert.equal(b.revisionCount, 2);
      assert.deepEqual(shape(build('Europe/Berlin', ['nobody@example.com']).days()), []);
      assert.equal(build('Europe/Berlin', ['', ' ']).revisionCount, 5, 'blank authors = no filter');
    });

    it('an unreadable date is counted and left out; a revision listed twice counts once; adding a file again replaces it', () => {
      const b = build('UTC');
      assert.equal(b.undated, 1);
      assert.deepEqual(b.files().find((f) => f.path === 'about.html')?.revisions.map((r) => r.id), ['20']);
      assert.equal(b.add('about.html', [rev('1', '2020-01-01T00:00:00Z')]), undefined, 'nothing in the period');
      assert.equal(b.files().some((f) => f.path === 'about.html'), false);
      const today = new SiteChangesBuilder({ period: { kind: 'today' }, now, timeZone: 'UTC' });
      today.add('index.html', index);
      assert.deepEqual(shape(today.days()), ['2026-03-10: index.html[5]']);
      const future = new SiteChangesBuilder({ period: { kind: 'today' }, now, timeZone: 'UTC' });
      future.add('a', [rev('9', '2026-03-11T08:00:00Z')]);
      assert.deepEqual(shape(future.days()), ['2026-03-11: a[9]'], 'a date after now is in the period');
    });

    it('a filter that cannot be used fails when the builder is made', () => {
      assert.throws(() => new SiteChangesBuilder({ period: { kind: 'since', date: 'last week' }, now }), PeriodError);
      assert.throws(() => new SiteChangesBuilder({ period: { kind: 'today' }, now, timeZone: 'Nowhere/City' }), ZoneError);
    });
  });
});

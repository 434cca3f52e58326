// The words of the History Search and Site Changes views (src/core/search/labels.ts).
import * as assert from 'node:assert/strict';
import { dayLabel, hitLabel, periodLabel, progressLabel, Zone } from '../../src/core/search';

describe('search: labels', () => {
  it('a hit says what changed (changes) or how many matches (contains), with grouped numbers', () => {
    assert.equal(hitLabel({ count: 2, added: 2, removed: 0 }, 'changes'), 'added 2');
    assert.equal(hitLabel({ count: 0, added: 0, removed: 1 }, 'changes'), 'removed 1');
    assert.equal(hitLabel({ count: 1, added: 1, removed: 0 }, 'contains'), '1 match');
    assert.equal(hitLabel({ count: 12345, added: 0, removed: 0 }, 'contains'), '12,345 matches');
    assert.equal(hitLabel({ count: 12345, added: 12345, removed: 0 }, 'changes', undefined, 'de'), 'added 12.345');
    const t = (m: string, ...a: (string | number)[]) => `[${m}|${a.join(',')}]`;
    assert.equal(hitLabel({ count: 3, added: 0, removed: 3 }, 'changes', t), '[removed {0}|3]', 'translated');
  });

  it('progress: listing, done / total files, failures, cancelled', () => {
    assert.equal(progressLabel({ phase: 'listing', done: 0, total: undefined, found: 0, failed: 0 }), 'Listing files…');
    assert.equal(progressLabel({ phase: 'scanning', done: 132, total: 1840, found: 3, failed: 0 }), '132 / 1,840 files');
    assert.equal(progressLabel({ phase: 'done', done: 1840, total: 1840, found: 3, failed: 2 }), '1,840 / 1,840 files (2 could not be read)');
    assert.equal(progressLabel({ phase: 'cancelled', done: 7, total: 9, found: 0, failed: 0 }), 'Cancelled after 7 / 9 files');
  });

  it('periods and day titles: today, yesterday (in the given zone), else the date in the display language', () => {
    assert.deepEqual([periodLabel({ kind: 'today' }), periodLabel({ kind: 'days', days: 7 }), periodLabel({ kind: 'days', days: 1 }), periodLabel({ kind: 'since', date: '2026-03-01' })], ['Today', 'Last 7 days', 'Today', 'Since 2026-03-01']);
    const now = Date.UTC(2026, 2, 10, 23, 30); // 00:30 on 03-11 in Berlin
    const berlin = new Zone('Europe/Berlin');
    assert.equal(dayLabel('2026-03-11', now, berlin), 'Today');
    assert.equal(dayLabel('2026-03-10', now, berlin), 'Yesterday');
    assert.equal(dayLabel('2026-03-10', now, new Zone('UTC')), 'Today');
    assert.equal(dayLabel('2026-03-09', now, berlin), 'Monday, March 9, 2026');
    assert.equal(dayLabel('2026-03-09', now, berlin, undefined, 'de'), 'Montag, 9. März 2026');
  });
});

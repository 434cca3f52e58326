// Unit tests of how revision dates are shown (src/core/model/time.ts).
import * as assert from 'node:assert/strict';
import { formatLocal, formatUtc, relativeTime } from '../../src/core/model/time';

const now = Date.UTC(2024, 5, 15, 12, 0, 0);
const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe('revisions: relative time', () => {
  it('reads like a person would say it', () => {
    const cases: [number, string][] = [
      [0, 'just now'],
      [30 * s, 'just now'],
      [50 * s, '1 minute ago'],
      [2 * m, '2 minutes ago'],
      [59 * m, '59 minutes ago'],
      [60 * m, '1 hour ago'],
      [3 * h, '3 hours ago'],
      [23 * h, '23 hours ago'],
      [d, '1 day ago'],
      [3 * d, '3 days ago'],
      [7 * d, '1 week ago'],
      [20 * d, '2 weeks ago'],
      [29 * d, '4 weeks ago'],
      [364 * d, '12 months ago'],
      [30 * d, '1 month ago'],
      [100 * d, '3 months ago'],
      [365 * d, '1 year ago'],
      [3 * 365 * d, '3 years ago'],
    ];
    for (const [ago, text] of cases) assert.equal(relativeTime(now - ago, now), text, `${ago} ms`);
  });

  it('future dates (clock skew) and unknown dates', () => {
    assert.equal(relativeTime(now + 20 * s, now), 'just now');
    assert.equal(relativeTime(now + 2 * h, now), 'in 2 hours');
    assert.equal(relativeTime(undefined, now), 'unknown date');
    assert.equal(relativeTime(NaN, now), 'unknown date');
  });

  it('exact dates: UTC, and local with the offset spelled out', () => {
    const t = Date.UTC(2024, 4, 1, 13, 45, 7);
    assert.equal(formatUtc(t), '2024-05-01 13:45:07 UTC');
    assert.equal(formatLocal(t, 120), '2024-05-01 15:45:07 (UTC+02:00)');
    assert.equal(formatLocal(t, -330), '2024-05-01 08:15:07 (UTC-05:30)');
    assert.equal(formatLocal(t, 0), '2024-05-01 13:45:07 (UTC+00:00)');
    assert.match(formatLocal(t), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(UTC[+-]\d{2}:\d{2}\)$/);
  });
});

// Unit tests of revision ordering and dates (src/core/model/ordering.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareIdsDescending, parseRevisionDate, sortNewestFirst } from '../../src/core/model/ordering';

describe('revisions: ordering', () => {
  it('parses YYYY-MM-DD HH:MM:SS as UTC; tolerates T, a fraction and an explicit UTC zone', () => {
    assert.equal(parseRevisionDate('2024-05-01 13:45:07'), Date.UTC(2024, 4, 1, 13, 45, 7));
    assert.equal(parseRevisionDate('2024-05-01T13:45:07'), Date.UTC(2024, 4, 1, 13, 45, 7));
    assert.equal(parseRevisionDate('2024-05-01 13:45:07.250Z'), Date.UTC(2024, 4, 1, 13, 45, 7));
    assert.equal(parseRevisionDate(' 2024-05-01 13:45:07 '), Date.UTC(2024, 4, 1, 13, 45, 7));
    assert.equal(parseRevisionDate('2024-02-29 00:00:00'), Date.UTC(2024, 1, 29));
  });

  it('refuses what is not such a date (undefined, never NaN)', () => {
    for (const bad of ['', 'yesterday', '2024-05-01', '2024-13-01 00:00:00', '2023-02-29 00:00:00', '2024-04-31 10:00:00', '2024-05-01 24:00:00', '2024-05-01 12:60:00', '2024-05-01 12:00:00+02:00', '0000-00-00 00:00:00', null, 5, undefined]) {
      assert.equal(parseRevisionDate(bad), undefined, String(bad));
    }
  });

  it('compares ids by numeric value, largest first, any length; non-numeric ids after', () => {
    const ids = ['9', '10', '1001', '0099', '18446744073709551617', '18446744073709551616', 'abc', 'abd', '2'];
    assert.deepEqual([...ids].sort(compareIdsDescending), ['18446744073709551617', '18446744073709551616', '1001', '0099', '10', '9', '2', 'abd', 'abc']);
  });

  it('sorts newest first by date, then by id; unparsable dates last; whatever the input order', () => {
    const revs = [
      { id: '1001', date: '2024-01-01 10:00:00', author: 'a' },
      { id: '1003', date: '2024-03-01 10:00:00', author: 'b' },
      { id: '1002', date: 'garbage', author: 'c' },
      { id: '1005', date: '2024-03-01 10:00:00', author: 'd' },
      { id: '1004', date: '2024-02-01 10:00:00', author: 'e' },
      { id: '1006', date: '', author: 'f' },
    ];
    const expected = ['1005', '1003', '1004', '1001', '1006', '1002'];
    assert.deepEqual(sortNewestFirst(revs).map((d) => d.item.id), expected);
    assert.deepEqual(sortNewestFirst([...revs].reverse()).map((d) => d.item.id), expected);
    assert.equal(revs[0]!.id, '1001', 'the input is not modified');
    const sorted = sortNewestFirst(revs);
    assert.equal(sorted[0]!.time, Date.UTC(2024, 2, 1, 10));
    assert.equal(sorted[5]!.time, undefined);
  });

  it('the order does not depend on the input order (property)', () => {
    const rev = fc.record({
      id: fc.oneof(fc.nat({ max: 5000 }).map(String), fc.string({ maxLength: 3 })),
      date: fc.oneof(fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 19).replace('T', ' ')), fc.constant('not a date')),
      author: fc.string(),
    });
    fc.assert(
      fc.property(fc.uniqueArray(rev, { selector: (r) => r.id, maxLength: 30 }), (revs) => {
        const a = sortNewestFirst(revs).map((d) => d.item.id);
        const b = sortNewestFirst([...revs].reverse()).map((d) => d.item.id);
        assert.deepEqual(a, b);
        const times = sortNewestFirst(revs).map((d) => d.time);
        const firstUndefined = times.indexOf(undefined);
        if (firstUndefined >= 0) assert.ok(times.slice(firstUndefined).every((t) => t === undefined), 'unparsable dates last');
        const known = times.filter((t): t is number => t !== undefined);
        assert.deepEqual(known, [...known].sort((x, y) => y - x));
      }),
      { numRuns: 300 },
    );
  });
});

// History Search over one file's revisions (src/core/search/history.ts): "changes" (count differs from
// the revision before) and "contains", in date order whatever the input order.
import * as assert from 'node:assert/strict';
import { compileQuery, searchRevisions, type RevisionText } from '../../src/core/search';

const M = 'TODO-SEARCH-MARKER';

/** Revisions r1…rn, one day apart, given in a scrambled order (the service promises no order). */
function history(contents: (string | Uint8Array | undefined)[]): RevisionText[] {
  const list = contents.map((content, i) => ({ id: String(101 + i), date: `2026-03-${String(10 + i).padStart(2, '0')} 12:00:00`, author: i % 2 ? 'lena@example.com' : 'demo@example.com', content }));
  return [...list.filter((_r, i) => i % 2), ...list.filter((_r, i) => !(i % 2)).reverse()];
}

const summary = (hits: ReturnType<typeof searchRevisions>['hits']) => hits.map((h) => `${h.id}:${h.count}+${h.added}-${h.removed}`);

describe('search: one file’s history', () => {
  const contents = [
    'base\n', // r1 (101): 0
    `base\n<!-- ${M}: hero -->\n`, // r2: 1 → added 1
    `base v2\n<!-- ${M}: hero -->\n`, // r3: 1 → same count
    `base v2\n<!-- ${M}: hero -->\n${M} again\n`, // r4: 2 → added 1
    'base v3\n', // r5: 0 → removed 2
    'base v4\n', // r6: 0
  ];

  it('changes: the revisions where the count changed, newest first, with +added / −removed', () => {
    const r = searchRevisions('4', 'a.html', history(contents), compileQuery({ pattern: M, matchCase: true }), 'changes');
    assert.deepEqual(summary(r.hits), ['105:0+0-2', '104:2+1-0', '102:1+1-0']);
    assert.equal(r.revisions, 6);
    assert.equal(r.matches, 2, 'matches added over the history');
    assert.deepEqual(r.hits.map((h) => h.previousId), ['104', '103', '101']);
    assert.equal(r.hits[0]!.date, '2026-03-14 12:00:00');
    assert.equal(r.hits[0]!.time, Date.UTC(2026, 2, 14, 12));
    assert.equal(r.hits[0]!.author, 'demo@example.com');
  });

  it('changes: a revision that removed everything previews what was removed (from the one before)', () => {
    const r = searchRevisions('4', 'a.html', history(contents), compileQuery({ pattern: M }), 'changes');
    const removed = r.hits[0]!;
    assert.equal(removed.previewIn, 'previous');
    assert.equal(removed.preview?.line, 1);
    assert.equal(removed.preview?.text, `<!-- ${M}: hero -->`);
    assert.equal(r.hits[1]!.previewIn, 'revision');
  });

  it('changes: the oldest revision compares against nothing (its matches count as added)', () => {
    const r = searchRevisions('4', 'b.css', history([`/* ${M} */`, `/* ${M} */ x`, `/* ${M} */ /* ${M} */`]), compileQuery({ pattern: M }));
    assert.deepEqual(summary(r.hits), ['103:2+1-0', '101:1+1-0']);
  });

  it('contains: every revision with a match', () => {
    const r = searchRevisions('4', 'a.html', history(contents), compileQuery({ pattern: M }), 'contains');
    assert.deepEqual(summary(r.hits), ['104:2+1-0', '103:1+0-0', '102:1+1-0']);
    assert.equal(r.matches, 4, 'matches over the reported revisions');
    assert.ok(r.hits.every((h) => h.previewIn === 'revision' && h.preview));
  });

  it('no match: no hits; query options apply (case, whole word)', () => {
    assert.deepEqual(searchRevisions('4', 'a', history(contents), compileQuery({ pattern: 'nowhere' })).hits, []);
    const css = history([`/* ${M} */`, `/* ${M} */\n/* ${M.toLowerCase()} */`, `/* ${M} */\n/* ${M.toLowerCase()} */\n${M}S`]);
    assert.deepEqual(summary(searchRevisions('4', 'c', css, compileQuery({ pattern: M })).hits), ['103:3+1-0', '102:2+1-0', '101:1+1-0']);
    assert.deepEqual(summary(searchRevisions('4', 'c', css, compileQuery({ pattern: M, matchCase: true })).hits), ['103:2+1-0', '101:1+1-0']);
    assert.deepEqual(summary(searchRevisions('4', 'c', css, compileQuery({ pattern: M, matchCase: true, wholeWord: true })).hits), ['101:1+1-0']);
  });

  it('ordering by date then id; a revision listed twice counts once; one without content is skipped', () => {
    const list: RevisionText[] = [
      { id: '9', date: '2026-01-02 00:00:00', author: 'a', content: 'x x' },
      { id: '10', date: '2026-01-02 00:00:00', author: 'a', content: 'x' }, // same time, larger id: newer
      { id: '8', date: '2026-01-01 00:00:00', author: 'a', content: undefined }, // no content: skipped
      { id: '9', date: '2026-01-02 00:00:00', author: 'a', content: 'x x' }, // listed twice
      { id: '7', date: '2025-12-31 00:00:00', author: 'a', content: '' },
    ];
    const r = searchRevisions('1', 'f', list, compileQuery({ pattern: 'x' }));
    assert.deepEqual(summary(r.hits), ['10:1+0-1', '9:2+2-0']);
    assert.equal(r.revisions, 3);
    assert.equal(r.skipped, 2);
    assert.equal(r.hits[1]!.previousId, '7', 'the skipped revision is not a "previous"');
  });

  it('content as UTF-8 bytes (from a disk store) is decoded; non-ASCII and CRLF', () => {
    const enc = new TextEncoder();
    const r = searchRevisions('4', 'notes.txt', history([enc.encode('Grüße aus München\r\n'), enc.encode(`Grüße aus München\r\n😀 Zeile: ${M} für Søren\r\n`)]), compileQuery({ pattern: M }));
    assert.equal(r.hits.length, 1);
    assert.deepEqual([r.hits[0]!.preview?.line, r.hits[0]!.preview?.character], [1, 10]);
    assert.equal(r.hits[0]!.preview?.text, `😀 Zeile: ${M} für Søren`);
  });
});

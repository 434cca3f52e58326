// Unit tests of the paging of long revision lists (src/core/model/paging.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { loadMore, pageOf } from '../../src/core/model/paging';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('revisions: paging', () => {
  it('shows the first page, then one more page per "Load more…"', () => {
    const all = range(120);
    let shown = 50;
    let p = pageOf(all, shown, 50);
    assert.deepEqual(p.items, range(50));
    assert.equal(p.remaining, 70);
    assert.equal(p.next, 50);
    shown = loadMore(shown, 50, all.length);
    p = pageOf(all, shown, 50);
    assert.equal(p.items.length, 100);
    assert.equal(p.remaining, 20);
    assert.equal(p.next, 20);
    shown = loadMore(shown, 50, all.length);
    p = pageOf(all, shown, 50);
    assert.equal(p.items.length, 120);
    assert.equal(p.remaining, 0);
    assert.equal(p.next, 0);
    assert.equal(loadMore(shown, 50, all.length), 120, 'never past the end');
  });

  it('short lists, empty lists, odd inputs', () => {
    assert.deepEqual(pageOf(range(3), 50, 50), { items: [0, 1, 2], remaining: 0, next: 0 });
    assert.deepEqual(pageOf([], 50, 50), { items: [], remaining: 0, next: 0 });
    assert.deepEqual(pageOf(range(10), 0, 4).items, range(4), 'at least one page');
    assert.deepEqual(pageOf(range(10), NaN, 4).items, range(4));
    assert.deepEqual(pageOf(range(10), 3, 0).items, range(3), 'a page size of 0 counts as 1');
  });

  it('a smaller page size after "Load more…" keeps what is shown', () => {
    assert.equal(pageOf(range(200), 100, 20).items.length, 100);
  });

  it('pages cover the list exactly, in order (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 500 }), fc.integer({ min: 1, max: 60 }), (n, size) => {
        const all = range(n);
        let shown = size;
        let last = -1;
        for (let guard = 0; guard < 1000; guard++) {
          const p = pageOf(all, shown, size);
          assert.deepEqual(p.items, all.slice(0, p.items.length));
          assert.equal(p.items.length + p.remaining, n);
          assert.ok(p.items.length > last || p.remaining === 0);
          last = p.items.length;
          if (!p.remaining) return;
          assert.equal(p.next, Math.min(size, p.remaining));
          shown = loadMore(shown, size, n);
        }
        assert.fail('paging did not finish');
      }),
    );
  });
});

// Unit tests of the byte-bounded LRU of revision contents (src/core/model/lru.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ByteLru } from '../../src/core/model/lru';

const bytes = (n: number) => new Uint8Array(n);

describe('revisions: byte-bounded LRU', () => {
  it('keeps the total under the bound by evicting the least recently used', () => {
    const c = new ByteLru<string, Uint8Array>(100, (b) => b.byteLength);
    c.set('a', bytes(40));
    c.set('b', bytes(40));
    assert.equal(c.bytes, 80);
    c.get('a'); // a is now more recent than b
    c.set('c', bytes(40));
    assert.deepEqual(c.keys(), ['a', 'c']);
    assert.equal(c.bytes, 80);
    assert.equal(c.get('b'), undefined);
  });

  it('does not store a value larger than the bound, and replacing a key adjusts the total', () => {
    const c = new ByteLru<string, Uint8Array>(100, (b) => b.byteLength);
    c.set('a', bytes(60));
    assert.equal(c.set('huge', bytes(101)), false);
    assert.equal(c.has('huge'), false);
    assert.equal(c.bytes, 60);
    c.set('a', bytes(10));
    assert.equal(c.bytes, 10);
    assert.equal(c.size, 1);
  });

  it('peek does not refresh; delete and clear free the bytes; a smaller bound evicts at once', () => {
    const c = new ByteLru<string, Uint8Array>(100, (b) => b.byteLength);
    c.set('a', bytes(30));
    c.set('b', bytes(30));
    c.set('c', bytes(30));
    c.peek('a');
    c.setMaxBytes(60);
    assert.deepEqual(c.keys(), ['b', 'c']);
    assert.equal(c.delete('b'), true);
    assert.equal(c.delete('b'), false);
    assert.equal(c.bytes, 30);
    c.clear();
    assert.equal(c.bytes, 0);
    assert.equal(c.size, 0);
  });

  it('never exceeds its bound and agrees with a reference model (property)', () => {
    type Op = { kind: 'set'; key: number; size: number } | { kind: 'get'; key: number } | { kind: 'delete'; key: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.nat({ max: 9 }), size: fc.nat({ max: 70 }) }),
      fc.record({ kind: fc.constant('get' as const), key: fc.nat({ max: 9 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.nat({ max: 9 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.array(op, { maxLength: 80 }), (max, ops) => {
        const c = new ByteLru<number, Uint8Array>(max, (b) => b.byteLength);
        let model: [number, number][] = []; // least recent first
        for (const o of ops) {
          if (o.kind === 'set') {
            model = model.filter(([k]) => k !== o.key);
            if (o.size <= max) {
              model.push([o.key, o.size]);
              while (model.reduce((s, [, n]) => s + n, 0) > max) model.shift();
            }
            c.set(o.key, bytes(o.size));
          } else if (o.kind === 'get') {
            const i = model.findIndex(([k]) => k === o.key);
            if (i >= 0) model.push(...model.splice(i, 1));
            assert.equal(c.get(o.key)?.byteLength, i >= 0 ? model[model.length - 1]![1] : undefined);
          } else {
            model = model.filter(([k]) => k !== o.key);
            c.delete(o.key);
          }
          assert.ok(c.bytes <= max);
          assert.deepEqual(c.keys(), model.map(([k]) => k));
          assert.equal(c.bytes, model.reduce((s, [, n]) => s + n, 0));
        }
      }),
      { numRuns: 300 },
    );
  });
});

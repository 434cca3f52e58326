// A large revision encoded and hashed in slices (src/core/store/slices.ts), as the revision store and
// the disk store do it for the content of one revision (a 20 MB one in the diff guard's bench row):
// the same bytes and digest as in one go, and the event loop turns between the slices.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { encodeSliced, sha256Sliced, SLICE } from '../../src/core/store/slices';
import { turnsDuring } from './helpers/turns';

describe('store: large contents encoded and hashed in slices', function () {
  this.timeout(30_000);
  const encoder = new TextEncoder();

  it('encodes as TextEncoder does: surrogate pairs across a slice boundary, lone surrogates, non-ASCII', async () => {
    const body = 'line of text, Grüße, 😀 — \n'.repeat(Math.ceil((3.5 * SLICE) / 26));
    const cases = [
      body,
      `${'a'.repeat(SLICE - 1)}😀${'b'.repeat(SLICE)}`, // a pair whose high half ends the first slice
      `${'a'.repeat(SLICE - 1)}\ud83d${'b'.repeat(10)}`, // a lone high surrogate there
      `\udc00${'é'.repeat(2 * SLICE)}\ud800`,
      'short 😀',
      '',
    ];
    for (const text of cases) assert.deepEqual(Buffer.from(await encodeSliced(text)), Buffer.from(encoder.encode(text)), `${text.length} characters`);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), fc.integer({ min: 0, max: 5 }), async (tail, pairs) => {
        const text = 'x'.repeat(SLICE - pairs) + '😀'.repeat(pairs) + tail;
        assert.deepEqual(Buffer.from(await encodeSliced(text)), Buffer.from(encoder.encode(text)));
      }),
      { numRuns: 30 },
    );
  });

  it('hashes as createHash does', async () => {
    for (const n of [0, 1, SLICE - 1, SLICE, SLICE + 1, 5 * SLICE + 17]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 31 + 7) & 0xff);
      assert.equal(await sha256Sliced(bytes), createHash('sha256').update(bytes).digest('hex'), `${n} bytes`);
    }
  });

  it('the event loop turns between the slices of a 20 MB content', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. 0123456789\n'.repeat((20 * SLICE) / 56);
    const encoded = await turnsDuring(() => encodeSliced(text));
    assert.ok(encoded.turns >= 15, `${encoded.turns} turns while encoding ${text.length} characters`);
    const hashed = await turnsDuring(() => sha256Sliced(encoded.value));
    assert.ok(hashed.turns >= 15, `${hashed.turns} turns while hashing ${encoded.value.byteLength} bytes`);
  });
});

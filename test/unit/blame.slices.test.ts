// Revision blame built in slices (BlameHistory.build, src/core/blame/blame.ts): the same history as
// `of`, the thread given back between revisions (other callbacks run while a long history is
// blamed), and Cancel stops it between two revisions.
import * as assert from 'node:assert/strict';
import { BlameHistory } from '../../src/core/blame';
import { generateHistory } from './helpers/blameHistory';
import { turnsDuring } from './helpers/turns';

describe('blame: built in slices that give the thread back', function () {
  this.timeout(30_000);
  const { revisions } = generateHistory({ lines: 400, revisions: 30, changeFraction: 0.05, seed: 7 });

  it('gives the same attribution as building it in one go, for every slice length', async () => {
    const whole = BlameHistory.of(revisions);
    for (const sliceMs of [0, 1, 8, 1_000]) {
      const sliced = await BlameHistory.build(revisions, { sliceMs });
      assert.equal(sliced.revisionCount, whole.revisionCount);
      assert.deepEqual(Array.from(sliced.newest().revisions), Array.from(whole.newest().revisions), `sliceMs ${sliceMs}`);
      const edited = `${revisions.at(-1)!}local line\n`;
      assert.deepEqual(Array.from(sliced.attribute(edited).revisions), Array.from(whole.attribute(edited).revisions));
      assert.deepEqual(Array.from(sliced.extend(revisions[3]!).newest().revisions), Array.from(whole.extend(revisions[3]!).newest().revisions));
    }
  });

  it('the event loop runs between revisions: callbacks queued meanwhile run before it ends', async () => {
    const { turns } = await turnsDuring(() => BlameHistory.build(revisions, { sliceMs: 0 }));
    assert.ok(turns >= revisions.length - 1, `${turns} turns of the event loop for ${revisions.length} revisions`);
  });

  it('an abort stops it between two revisions with an AbortError', async () => {
    const ac = new AbortController();
    let taken = 0;
    const texts = (function* () {
      for (const t of revisions) {
        taken++;
        if (taken === 5) ac.abort();
        yield t;
      }
    })();
    await assert.rejects(BlameHistory.build(texts, { signal: ac.signal, sliceMs: 0 }), (e: Error) => e.name === 'AbortError');
    assert.equal(taken, 5, 'no revision after the abort was taken in');
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(BlameHistory.build(revisions, { signal: aborted.signal }), (e: Error) => e.name === 'AbortError');
  });
});

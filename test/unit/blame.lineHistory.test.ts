// Unit tests of line history (src/core/blame/lineHistory.ts) on hand-made histories where the lines
// move, are edited, deleted and added again, and moved as a block; and, on generated histories,
// its agreement with blame: the newest entry of one line is the revision blame attributes it to.
// Histories are oldest first; ranges are 0-based, end exclusive.
import * as assert from 'node:assert/strict';
import { BlameHistory, LOCAL, lineHistory, type LineHistoryEntry } from '../../src/core/blame';
import { generateHistory, replaceLine } from './helpers/blameHistory';

const lines = (...ls: string[]) => ls.join('\n');
/** `revision:change` of each entry, newest first. */
const summary = (entries: LineHistoryEntry[]) => entries.map((e) => `${e.revision === LOCAL ? 'L' : e.revision}:${e.change}`);
const history = (texts: string[], start: number, end: number, working?: string) => lineHistory(texts, { start, end }, working === undefined ? {} : { working });

describe('blame: line history', () => {
  it('follows the lines when lines are inserted and deleted above them: only the revisions that touched them are listed', async () => {
    const h = [
      lines('a', 'target 1', 'target 2', 'z'),
      lines('new top', 'a', 'target 1', 'target 2', 'z'), // moved down, not changed
      lines('new top', 'target 1', 'target 2 edited', 'z'), // 'a' deleted above; line 2 edited
      lines('x', 'y', 'new top', 'target 1', 'target 2 edited', 'z', 'tail'), // moved down again
    ];
    const entries = await history(h, 3, 5);
    assert.deepEqual(summary(entries), ['2:changed', '0:oldest']);
    assert.deepEqual(entries[0]!.range, { start: 1, end: 3 });
    assert.deepEqual(entries[0]!.lines, ['target 1', 'target 2 edited']);
    assert.deepEqual(entries[0]!.previous, { start: 2, end: 4 }, 'the lines in revision 1, where they were');
    assert.deepEqual(entries[1]!.range, { start: 1, end: 3 });
    assert.deepEqual(entries[1]!.lines, ['target 1', 'target 2']);
  });

  it('follows lines edited in place through several edits, with their text in each revision', async () => {
    const h = [lines('head', 'v = 1', 'tail'), lines('head', 'v = 2', 'tail'), lines('head', 'more', 'v = 2', 'tail'), lines('head', 'more', 'v = 3', 'tail')];
    const entries = await history(h, 2, 3);
    assert.deepEqual(summary(entries), ['3:changed', '1:changed', '0:oldest']);
    assert.deepEqual(
      entries.map((e) => e.lines[0]),
      ['v = 3', 'v = 2', 'v = 1'],
    );
    assert.deepEqual(
      entries.map((e) => e.range.start),
      [2, 1, 1],
    );
  });

  it('lines deleted inside the range are a change of the range; the older range holds them', async () => {
    const h = [lines('a', 'b', 'gone', 'c', 'd'), lines('a', 'b', 'c', 'd')];
    const entries = await history(h, 1, 3);
    assert.deepEqual(summary(entries), ['1:changed', '0:oldest']);
    assert.deepEqual(entries[0]!.previous, { start: 1, end: 4 });
    assert.deepEqual(entries[1]!.lines, ['b', 'gone', 'c']);
  });

  it('a line deleted and added again: the history ends at the revision that added it again (as blame says)', async () => {
    const h = [lines('a', 'b', 'c'), lines('a', 'c'), lines('a', 'c', 'd'), lines('a', 'b', 'c', 'd')];
    assert.deepEqual(summary(await history(h, 1, 2)), ['3:added']);
    // The line next to it is older: its history goes back to the start.
    assert.deepEqual(summary(await history(h, 2, 3)), ['0:oldest']);
    assert.deepEqual(Array.from(BlameHistory.of(h).newest().revisions), [0, 3, 0, 2]);
  });

  it('lines added by a revision: its entry is the last; lines partly added: the older range holds the rest', async () => {
    const h = [lines('a', 'b'), lines('a', 'new 1', 'new 2', 'b')];
    const added = await history(h, 1, 3);
    assert.deepEqual(summary(added), ['1:added']);
    assert.equal(added[0]!.previous, undefined);
    const partly = await history(h, 0, 2);
    assert.deepEqual(summary(partly), ['1:changed', '0:oldest']);
    assert.deepEqual(partly[0]!.previous, { start: 0, end: 1 });
  });

  it('a block moved elsewhere is followed to where it was; a short block ("}") is not taken for another', async () => {
    const block = ['function total(items) {', '  return items.reduce((a, b) => a + b, 0);', '}'];
    const h = [
      lines(...block, 'one', 'two', 'three', 'four', 'five'),
      lines('one', 'two', 'three', 'four', 'five', ...block), // the block moved past a larger one
      lines('one', 'two', 'three', 'four', 'five', ...block, 'six'),
    ];
    const entries = await history(h, 5, 8);
    assert.deepEqual(summary(entries), ['1:moved', '0:oldest']);
    assert.deepEqual(entries[0]!.previous, { start: 0, end: 3 });
    assert.deepEqual(entries[1]!.lines, block);
    // Blame says the moving revision introduced them; their history goes on before it.
    assert.deepEqual(Array.from(BlameHistory.of(h).newest().revisions.slice(5, 8)), [1, 1, 1]);

    const g = [lines('}', 'one', 'two', 'three', 'four'), lines('one', 'two', 'three', 'four', '}')];
    assert.deepEqual(summary(await history(g, 4, 5)), ['1:added']);
  });

  it('a replaced hunk of another size: the older range takes the whole of what it replaced', async () => {
    const h = [lines('top', 'old 1', 'old 2', 'old 3', 'bottom'), lines('top', 'new 1', 'new 2', 'bottom')];
    const entries = await history(h, 2, 3);
    assert.deepEqual(summary(entries), ['1:changed', '0:oldest']);
    assert.deepEqual(entries[0]!.previous, { start: 1, end: 4 });
    assert.deepEqual(entries[1]!.lines, ['old 1', 'old 2', 'old 3']);
  });

  it('a working text: a local change is the newest entry (revision LOCAL); an unchanged one adds nothing', async () => {
    const h = [lines('a', 'b', 'c'), lines('a', 'b2', 'c')];
    const local = await history(h, 2, 3, lines('x', 'a', 'b3', 'c'));
    assert.deepEqual(summary(local), ['L:changed', '1:changed', '0:oldest']);
    assert.deepEqual(local[0]!.range, { start: 2, end: 3 });
    assert.deepEqual(local[0]!.previous, { start: 1, end: 2 });
    assert.deepEqual(summary(await history(h, 2, 3, lines('x', 'a', 'b2', 'c'))), ['1:changed', '0:oldest']);
    assert.deepEqual(summary(await history(h, 0, 1, lines('x', 'a', 'b2', 'c'))), ['L:added']);
    assert.deepEqual(summary(await history([], 0, 1, 'only local')), ['L:added']);
  });

  it('a range outside the text is clipped; an empty one has no history; no revision, no history', async () => {
    const h = [lines('a', 'b')];
    assert.deepEqual(summary(await history(h, 1, 99)), ['0:oldest']);
    assert.deepEqual(await history(h, 5, 9), []);
    assert.deepEqual(await history([], 0, 1), []);
  });

  it('is cancelled between revisions by its signal', async () => {
    const g = generateHistory({ lines: 200, revisions: 20, seed: 3 });
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(lineHistory(g.revisions, { start: 10, end: 20 }, { signal: ac.signal }), (e: Error) => e.name === 'AbortError');
  });

  it('agrees with blame on generated histories (edits, insertions, deletions, moves, lines coming back): the newest entry of one line is its blamed revision', async () => {
    for (const seed of [1, 2, 3]) {
      const g = generateHistory({ lines: 300, revisions: 15, changeFraction: 0.05, seed });
      const newest = g.revisions.at(-1)!;
      const working = replaceLine(newest, 7, 'edited in the editor');
      const attribution = BlameHistory.of(g.revisions).attribute(working);
      for (let line = 0; line < attribution.lineCount; line += 7) {
        const entries = await lineHistory(g.revisions, { start: line, end: line + 1 }, { working });
        const b = attribution.blameOf(line);
        const first = entries[0]!;
        if (b.origin === 'before') assert.deepEqual([first.revision, first.change], [0, 'oldest'], `seed ${seed}, line ${line}`);
        else assert.equal(first.revision, b.revision, `seed ${seed}, line ${line}: ${JSON.stringify(first)}`);
        // Newest first, each revision once, the oldest entry last.
        const revs = entries.map((e) => (e.revision === LOCAL ? Infinity : e.revision));
        assert.deepEqual(revs, [...revs].sort((a, c) => c - a));
        assert.equal(new Set(revs).size, revs.length);
        // Each entry's lines are its revision's lines in its range.
        for (const e of entries.filter((x) => x.revision !== LOCAL)) assert.deepEqual(e.lines, g.lines[e.revision]!.concat('').slice(e.range.start, e.range.end));
      }
    }
  });
});

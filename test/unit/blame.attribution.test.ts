// Unit tests of revision blame on hand-made histories (src/core/blame/): which revision each line of
// a working text is attributed to. Each case has a single right answer (its longest common
// subsequences all keep the same lines), except the one about ties, which says what any right
// answer must satisfy. Histories are oldest first; `L` is a local change.
import * as assert from 'node:assert/strict';
import { Attribution, BlameHistory, LOCAL } from '../../src/core/blame';
import { generateHistory, replaceLine } from './helpers/blameHistory';

const L = LOCAL;
const lines = (...ls: string[]) => ls.join('\n');
/** The revision of each line of `current`, blamed over `history` (texts oldest first). */
const blame = (history: string[], current: string): number[] => Array.from(BlameHistory.of(history).attribute(current).revisions);

describe('blame: attribution', () => {
  it('no revision: every line is a local change; one revision: every line kept is "before"', () => {
    assert.deepEqual(blame([], lines('a', 'b')), [L, L]);
    const a = BlameHistory.of([lines('a', 'b', 'c')]).attribute(lines('a', 'x', 'c'));
    assert.deepEqual(Array.from(a.revisions), [0, L, 0]);
    assert.deepEqual(a.blameOf(0), { origin: 'before', revision: 0, previous: undefined });
    assert.deepEqual(a.blameOf(1), { origin: 'local', revision: L, previous: 0 });
    assert.deepEqual(BlameHistory.empty().attribute('a').blameOf(0), { origin: 'local', revision: L, previous: undefined });
  });

  it('insertions: the inserted lines belong to the revision that inserted them, the others keep theirs', () => {
    const h = [lines('a', 'b', 'c'), lines('a', 'x', 'y', 'b', 'c'), lines('z', 'a', 'x', 'y', 'b', 'c', 'w')];
    assert.deepEqual(blame(h, h[2]!), [2, 0, 1, 1, 0, 0, 2]);
    const a = BlameHistory.of(h).attribute(h[2]!);
    assert.deepEqual(a.blameOf(2), { origin: 'revision', revision: 1, previous: 0 });
    assert.deepEqual(a.blameOf(0), { origin: 'revision', revision: 2, previous: 1 });
  });

  it('deletions attribute nothing to the deleting revision; edits in place are the editor\'s', () => {
    const h = [lines('a', 'b', 'c', 'd'), lines('a', 'c', 'd'), lines('a', 'c2', 'd')];
    assert.deepEqual(blame(h, h[2]!), [0, 2, 0]);
    assert.deepEqual(blame(h, lines('a', 'c2', 'd', 'e')), [0, 2, 0, L]);
    assert.deepEqual(blame(h, lines('a', 'd')), [0, 0]);
  });

  it('moves: the side that moved past the larger one is attributed to the revision that moved it', () => {
    // One line moved from the top to the bottom of a block of four: the block stays.
    const h = [lines('m', 'a', 'b', 'c', 'd'), lines('a', 'b', 'c', 'd', 'm')];
    assert.deepEqual(blame(h, h[1]!), [0, 0, 0, 0, 1]);
    // A block of three moved above one line: the block is kept, the single line was "moved".
    const g = [lines('x', 'p', 'q', 'r'), lines('p', 'q', 'r', 'x')];
    assert.deepEqual(blame(g, g[1]!), [0, 0, 0, 1]);
    // Moved in the working text: a local change.
    assert.deepEqual(blame(h, lines('a', 'm', 'b', 'c', 'd')), [0, L, 0, 0, 0]);
  });

  it('a line deleted and added again later belongs to the revision that added it again', () => {
    const h = [lines('a', 'b', 'c'), lines('a', 'c'), lines('a', 'c', 'd'), lines('a', 'b', 'c', 'd')];
    assert.deepEqual(blame(h, h[3]!), [0, 3, 0, 2]);
    // …and in the working text, a line the newest revision lacks is local even if an older one had it.
    assert.deepEqual(blame(h.slice(0, 3), lines('a', 'b', 'c', 'd')), [0, L, 0, 2]);
  });

  it('CRLF and LF are the same lines; a lone \\r ends a line as in the editor', () => {
    const h = ['a\r\nb\r\n', 'a\nb\nc\n'];
    assert.deepEqual(blame(h, 'a\r\nb\r\nc\r\n'), [0, 0, 1, 0]);
    assert.deepEqual(blame(['a\rb\r'], 'a\nb\n'), [0, 0, 0]);
  });

  it('adding or removing the final newline re-attributes only the empty last line', () => {
    const h = [lines('a', 'b'), lines('a', 'b') + '\n', lines('a', 'b')];
    assert.deepEqual(blame(h.slice(0, 2), h[1]!), [0, 0, 1], 'the newline added by revision 1 is its empty last line');
    assert.deepEqual(blame(h, h[2]!), [0, 0], 'removed again: "b" is still from the oldest revision');
    assert.deepEqual(blame([lines('a', 'b') + '\n'], lines('a', 'b')), [0, 0]);
    assert.deepEqual(blame([lines('a', 'b')], lines('a', 'b') + '\n'), [0, 0, L]);
  });

  it('empty files: one empty line, like the editor', () => {
    assert.deepEqual(blame([''], ''), [0]);
    assert.deepEqual(blame(['', 'a'], 'a'), [1]);
    assert.deepEqual(blame(['a', ''], ''), [1]);
    assert.deepEqual(blame(['a'], ''), [L]);
    assert.deepEqual(blame(['', ''], 'x\n'), [L, 0], 'the empty line of the empty revisions is the last line now');
    assert.equal(BlameHistory.of(['']).newest().lineCount, 1);
  });

  it('a byte order mark in a revision is not part of its first line', () => {
    assert.deepEqual(blame(['\ufeffa\nb'], 'a\nb'), [0, 0]);
    assert.deepEqual(blame(['a\nb', '\ufeffa\nb\nc'], '\ufeffa\nb\nc'), [0, 0, 1]);
  });

  it('duplicate lines: every copy a longest common subsequence can keep is kept', () => {
    // Two closing braces kept around an edited line; a third one added.
    const h = [lines('f {', '}', 'g {', '}'), lines('f {', '}', 'g2 {', '}', '}')];
    const r = blame(h, h[1]!);
    assert.deepEqual(r.slice(0, 2), [0, 0]);
    assert.equal(r[2], 1);
    // Of the three braces, two are kept from revision 0 and one is new — which one is the diff's
    // choice: each is a right answer.
    assert.deepEqual([...r.slice(3)].sort(), [0, 1]);
    // Three of the four lines are kept; which of the last two is new is again the diff's choice.
    const e = blame([lines('', '', 'a', '')], lines('', 'a', '', ''));
    assert.deepEqual(e.slice(0, 2), [0, 0]);
    assert.deepEqual([...e.slice(2)].sort(), [L, 0]);
  });

  it('ties: of two lines that swapped places, exactly one is kept', () => {
    const r = blame([lines('x', 'y')], lines('y', 'x'));
    assert.deepEqual([...r].sort(), [L, 0]);
  });

  it('runs() groups consecutive lines of one revision; revisionOf checks the line', () => {
    const a = BlameHistory.of([lines('a', 'b', 'c'), lines('a', 'b', 'x', 'y', 'c')]).attribute(lines('a', 'b', 'x', 'y', 'c', 'z'));
    assert.deepEqual(a.runs(), [
      { start: 0, end: 2, revision: 0 },
      { start: 2, end: 4, revision: 1 },
      { start: 4, end: 5, revision: 0 },
      { start: 5, end: 6, revision: L },
    ]);
    assert.equal(a.revisionOf(3), 1);
    assert.equal(a.lineCount, 6);
    assert.throws(() => a.revisionOf(6), RangeError);
    assert.throws(() => a.revisionOf(-1), RangeError);
    assert.deepEqual(new Attribution(new Int32Array(0), 0).runs(), []);
  });

  it('extend: one newer revision gives what blaming the whole history again gives; the old history is unchanged', () => {
    const g = generateHistory({ lines: 400, revisions: 12, changeFraction: 0.05, seed: 3 });
    const all = BlameHistory.of(g.revisions);
    let stepwise = BlameHistory.empty();
    for (const t of g.revisions) stepwise = stepwise.extend(t);
    assert.equal(stepwise.revisionCount, 12);
    assert.deepEqual(stepwise.newest().revisions, all.newest().revisions);

    const older = BlameHistory.of(g.revisions.slice(0, 11));
    const before = older.attribute(g.revisions[10]!).revisions.slice();
    const extended = older.extend(g.revisions[11]!);
    assert.deepEqual(extended.newest().revisions, all.newest().revisions);
    assert.deepEqual(older.attribute(g.revisions[10]!).revisions, before, 'extend left the older history as it was');
    assert.equal(older.revisionCount, 11);

    // The working text after a one-line edit: the same from either history.
    const current = replaceLine(g.revisions[11]!, 200, 'edited in the editor');
    const a = extended.attribute(current);
    assert.deepEqual(a.revisions, all.attribute(current).revisions);
    assert.equal(a.revisionOf(200), L);
    assert.deepEqual(Array.from(a.revisions).filter((r) => r === L), [L]);
  });

  it('attribute after edits: only the edited lines change their attribution', () => {
    const g = generateHistory({ lines: 1000, revisions: 8, seed: 11 });
    const h = BlameHistory.of(g.revisions);
    const newest = Array.from(h.newest().revisions);
    assert.deepEqual(Array.from(h.attribute(g.revisions[7]!).revisions), newest, 'the newest revision itself: nothing local');
    // Lines whose neighbours are unique in the file, so the answer is unique (no copy of a
    // neighbour elsewhere could be kept instead).
    const ls = g.lines[7]!;
    const count = new Map<string, number>();
    for (const l of ls) count.set(l, (count.get(l) ?? 0) + 1);
    const unique = (i: number) => count.get(ls[i]!) === 1;
    const edited = [10, 500, 990].map((from) => {
      let i = from;
      while (!(unique(i - 1) && unique(i) && unique(i + 1))) i++;
      return i;
    });
    let text = g.revisions[7]!;
    for (const at of edited) text = replaceLine(text, at, `local edit ${at}`);
    const got = Array.from(h.attribute(text).revisions);
    assert.deepEqual(got, newest.map((r, i) => (edited.includes(i) ? L : r)));
  });
});

// Property test of revision blame (src/core/blame/) against a naive attribution: the longest common
// subsequence of each step by dynamic programming (O(n·m)), on small random histories.
//
// How the two are compared. Different longest common subsequences can tie (["x","y"] → ["y","x"]
// keeps either line), and then blame may rightly keep another copy than the naive one. So each
// step prev → next (revision k−1 → k, and the newest → the working text) is checked with what
// holds for every right answer, and exactly where the answer is unique:
//   1. the lines of `next` not attributed to the step are kept: their number is the LCS length;
//   2. the kept lines, in order, with their attribution, are a subsequence of `prev`'s lines with
//      theirs: the kept lines form a common subsequence — each kept line is matched to a line of
//      the same content in `prev` that carries the same attribution, in order. So a line
//      attributed to revision r < k is in r and in every revision from r to k, and a line
//      attributed to k is not matched from k−1;
//   3. when the step has exactly one maximum matching (counted by the same dynamic programming),
//      the attribution equals the naive one, line for line.
// Together 1 and 2 say the attribution is one that some longest common subsequence gives; 3 pins
// it down where there is only one.
//
// Texts are written with random terminators ("\n", "\r\n", a lone "\r"), sometimes a final
// newline and a byte order mark: the naive side works on the lines the generator chose, so the
// splitting is checked too.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { BlameHistory, LOCAL } from '../../src/core/blame';
import { generateHistory } from './helpers/blameHistory';

/** L[i][j]: LCS length of a[i:] and b[j:]; C[i][j]: how many maximum matchings they have. */
function lcsTables(a: readonly string[], b: readonly string[]): { L: number[][]; C: number[][] } {
  const n = a.length;
  const m = b.length;
  const L = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  const C = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const take = a[i] === b[j] ? L[i + 1]![j + 1]! + 1 : 0;
      const best = Math.max(take, L[i + 1]![j]!, L[i]![j + 1]!);
      L[i]![j] = best;
      // Matchings with the pair (i, j), plus those without row i or without column j (a matching
      // cannot use both without the pair: it would cross), counted once.
      let c = take === best ? C[i + 1]![j + 1]! : 0;
      if (L[i + 1]![j] === best) c += C[i + 1]![j]!;
      if (L[i]![j + 1] === best) c += C[i]![j + 1]!;
      if (L[i + 1]![j + 1] === best) c -= C[i + 1]![j + 1]!;
      C[i]![j] = c;
    }
  }
  return { L, C };
}

/** The naive attribution of `next`: one LCS by backtracking the table. */
function naiveStep(prev: readonly string[], prevAttr: readonly number[], next: readonly string[], introducedBy: number, L: number[][]): number[] {
  const out = new Array<number>(next.length).fill(introducedBy);
  let i = 0;
  let j = 0;
  while (i < prev.length && j < next.length) {
    if (prev[i] === next[j] && L[i]![j] === L[i + 1]![j + 1]! + 1) out[j++] = prevAttr[i++]!;
    else if (L[i + 1]![j]! >= L[i]![j + 1]!) i++;
    else j++;
  }
  return out;
}

/** Checks one step as the header says; returns whether its maximum matching was unique. */
function checkStep(prev: readonly string[], prevAttr: readonly number[], next: readonly string[], got: readonly number[], introducedBy: number, what: string): boolean {
  assert.equal(got.length, next.length, `${what}: one attribution per line`);
  const { L, C } = lcsTables(prev, next);
  const kept = got.flatMap((r, j) => (r === introducedBy ? [] : [j]));
  assert.equal(kept.length, L[0]![0], `${what}: lines kept = LCS length`);
  let i = 0;
  for (const j of kept) {
    while (i < prev.length && !(prev[i] === next[j] && prevAttr[i] === got[j])) i++;
    assert.ok(i < prev.length, `${what}: kept line ${j} (${JSON.stringify(next[j])}, revision ${got[j]}) is not matched, in order, from the previous text`);
    i++;
  }
  const unique = C[0]![0] === 1;
  if (unique) assert.deepEqual(got, naiveStep(prev, prevAttr, next, introducedBy, L), `${what}: the only LCS`);
  return unique;
}

/** Checks every step of a history (texts and their lines, oldest first) and a working text. */
function checkHistory(texts: string[], lines: string[][], current: string, currentLines: string[]): { steps: number; unique: number } {
  let prevAttr: number[] = [];
  let unique = 0;
  for (let k = 0; k < texts.length; k++) {
    const got = Array.from(BlameHistory.of(texts.slice(0, k + 1)).newest().revisions);
    if (k === 0) assert.deepEqual(got, lines[0]!.map(() => 0), 'the oldest revision: every line "before"');
    else if (checkStep(lines[k - 1]!, prevAttr, lines[k]!, got, k, `revision ${k - 1} → ${k}`)) unique++;
    prevAttr = got;
  }
  const got = Array.from(BlameHistory.of(texts).attribute(current).revisions);
  const newest = lines[texts.length - 1] ?? [];
  if (checkStep(newest, texts.length ? prevAttr : [], currentLines, got, LOCAL, 'newest → working text')) unique++;
  return { steps: texts.length, unique };
}

/** A text whose lines are exactly `lines`, with the given terminators (a "\r" never followed by "\n"). */
function write(lines: readonly string[], eols: readonly string[], bom: boolean): string {
  let out = bom ? '\ufeff' : '';
  for (let i = 0; i < lines.length; i++) {
    out += lines[i]!;
    if (i === lines.length - 1) break;
    let eol = eols[i % eols.length]!;
    // "\r" then an empty line then "\n…" would read as one "\r\n": end that line with "\r\n" instead.
    if (eol === '\r' && lines[i + 1] === '' && i + 1 < lines.length - 1) eol = '\r\n';
    out += eol;
  }
  return out;
}

const line = fc.constantFrom('a', 'b', 'c', '}', '', '  x = 1;');
const revision = fc.record({ lines: fc.array(line, { minLength: 1, maxLength: 8 }), eols: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 3 }), bom: fc.boolean() });

describe('blame: property test against a naive LCS attribution', () => {
  it('small random histories: every step keeps an LCS, and the naive one where it is unique', () => {
    let unique = 0;
    let steps = 0;
    fc.assert(
      fc.property(fc.array(revision, { maxLength: 5 }), revision, (revs, cur) => {
        const r = checkHistory(
          revs.map((x) => write(x.lines, x.eols, x.bom)),
          revs.map((x) => x.lines),
          write(cur.lines, cur.eols, cur.bom),
          cur.lines,
        );
        steps += r.steps;
        unique += r.unique;
      }),
      { numRuns: 400 },
    );
    // The check must not be vacuous: many steps have a single answer, compared line for line.
    assert.ok(unique > 200, `only ${unique} of ${steps} steps had a unique LCS`);
  });

  it('a generated history (300 lines, 10 revisions, moves and repeated lines) keeps an LCS at every step', () => {
    const g = generateHistory({ lines: 300, revisions: 10, changeFraction: 0.06, seed: 5, eol: '\r\n' });
    const currentLines = [...g.lines[9]!.slice(0, 100), 'typed here', ...g.lines[9]!.slice(120)];
    checkHistory(g.revisions, g.lines.map((ls) => [...ls, '']), currentLines.join('\n'), currentLines);
  });
});

// The line diff under blame: a longest common subsequence of two sequences of line ids.
//
// Lines are compared as integers (blame.ts gives equal lines equal ids), so the diff never
// compares strings. The search itself is done by `fast-myers-diff` (Myers' O(ND) algorithm,
// linear space, from both ends); the README's design decisions give the candidates measured and
// why this one. Two reductions come first, both exact — they never change which lines a longest
// common subsequence can keep, so the result is as minimal as Myers' on the whole input:
//  1. the common prefix and suffix are kept as they are (some longest common subsequence keeps
//     them; an edit usually touches a small part of a file);
//  2. in between, a line that the other side does not have at all is taken out before the
//     search: no common subsequence can keep it. Edited, inserted and deleted lines are such
//     lines, so what Myers sees is mostly the moved and repeated lines, and its O(ND) cost falls
//     with D.
import { lcs } from 'fast-myers-diff';

/**
 * Calls `common(aStart, bStart, length)` for each run of lines kept from `a` to `b`, in order:
 * together the runs are a longest common subsequence of `a` and `b` (a minimal line diff).
 */
export type LineDiff = (a: Int32Array, b: Int32Array, common: (aStart: number, bStart: number, length: number) => void) => void;

/** Myers' diff from `fast-myers-diff`, as a LineDiff. */
export const myersLineDiff: LineDiff = (a, b, common) => {
  for (const [x, y, n] of lcs(a, b)) if (n > 0) common(x, y, n);
};

type Runs = (aStart: number, bStart: number, length: number) => void;

/**
 * A longest common subsequence of line ids `a` and `b` (ids in 0 ≤ id < idCount; negative ids
 * never match anything), as runs reported to `common` in order, computed by `diff` after the
 * reductions described at the top of this file.
 */
export function commonRuns(a: Int32Array, b: Int32Array, idCount: number, diff: LineDiff, common: Runs): void {
  withEnds(a, b, common, (ma, mb, offset) => {
    // Which ids each side has (1 = a, 2 = b); the lines both have, and where they are.
    const has = new Uint8Array(idCount);
    for (let i = 0; i < ma.length; i++) if (ma[i]! >= 0) has[ma[i]!]! |= 1;
    for (let i = 0; i < mb.length; i++) if (mb[i]! >= 0) has[mb[i]!]! |= 2;
    const [ra, aAt] = shared(ma, has);
    const [rb, bAt] = shared(mb, has);
    // A run of the reduced sequences is a run of the originals only where no line was taken out
    // in between: it is split there.
    const report: Runs = (x, y, n) => {
      let start = 0;
      for (let k = 1; k <= n; k++) {
        if (k === n || aAt[x + k] !== aAt[x + k - 1]! + 1 || bAt[y + k] !== bAt[y + k - 1]! + 1) {
          common(offset + aAt[x + start]!, offset + bAt[y + start]!, k - start);
          start = k;
        }
      }
    };
    // Without the lines that only one side has, more is common at both ends.
    withEnds(ra, rb, report, (ia, ib, at) => diff(ia, ib, (x, y, n) => report(at + x, at + y, n)));
  });
}

/**
 * Reports the common prefix of `a` and `b` to `common`, then passes what lies between it and the
 * common suffix to `middle` (with the prefix's length, where the middle starts on both sides),
 * then reports the suffix. Some longest common subsequence keeps both ends as they are.
 */
function withEnds(a: Int32Array, b: Int32Array, common: Runs, middle: (a: Int32Array, b: Int32Array, offset: number) => void): void {
  const max = Math.min(a.length, b.length);
  let pre = 0;
  while (pre < max && a[pre] === b[pre] && a[pre]! >= 0) pre++;
  let suf = 0;
  while (suf < max - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf] && a[a.length - 1 - suf]! >= 0) suf++;
  if (pre) common(0, 0, pre);
  const aEnd = a.length - suf;
  const bEnd = b.length - suf;
  if (aEnd > pre && bEnd > pre) middle(a.subarray(pre, aEnd), b.subarray(pre, bEnd), pre);
  if (suf) common(aEnd, bEnd, suf);
}

/** The ids of `s` that both sides have (has[id] === 3), and their positions in `s`. */
function shared(s: Int32Array, has: Uint8Array): [Int32Array, Int32Array] {
  const ids = new Int32Array(s.length);
  const at = new Int32Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const id = s[i]!;
    if (id >= 0 && has[id] === 3) {
      ids[n] = id;
      at[n++] = i;
    }
  }
  return [ids.subarray(0, n), at.subarray(0, n)];
}

// The line-diff packages compared for revision blame (bench/blameChild.ts; docs/benchmarks.md,
// the Blame rows), each as a LineDiff: given two sequences of line ids, report the runs of a longest
// common subsequence. Each is used as its documentation shows, with what it offers for arrays:
//   fast-myers-diff          lcs(xs, ys) over the Int32Arrays (what src/core/blame/diff.ts uses)
//   @jest/diff-sequences     diffSequences(aLength, bLength, isCommon, foundSubsequence)
//   diff (jsdiff)            diffArrays(old, new) → change objects
//   diff-match-patch         line mode: each line id as one character, diff_main without a time-out
//   @sanity/diff-match-patch the same with makeDiff(…, { timeout: 0, checkLines: false })
//   vscode-diff              LcsDiff (VS Code's Myers) over the Int32Arrays, ComputeDiff(false)
//   @algorithm.ts/lcs        lcs_myers_linear_space(n, m, equals) → matched pairs
// The packages are devDependencies, required here only (never by the extension). Tried and left
// out of the bench because they took over 30 s on this workload: myers-diff (diffs texts, not
// arrays) and fast-array-diff (README).
import { createRequire } from 'node:module';
import type { LineDiff } from '../src/core/blame/diff';

const load = createRequire(__filename);

type Common = (aStart: number, bStart: number, length: number) => void;

/** Ids of both sequences as characters (one per line), as diff-match-patch's line mode does; surrogates skipped. */
function asChars(a: Int32Array, b: Int32Array): [string, string] {
  const code = new Map<number, number>();
  const text = (s: Int32Array) => {
    const out: string[] = [];
    for (const id of s) {
      let c = code.get(id);
      if (c === undefined) {
        c = code.size + 1;
        if (c >= 0xd800) c += 0x800;
        code.set(id, c);
      }
      out.push(String.fromCharCode(c));
    }
    return out.join('');
  };
  return [text(a), text(b)];
}

/** Runs from a list of [op, text] with op -1 (delete), 0 (equal), 1 (insert), text one character per line. */
function fromOps(ops: readonly [number, string][], common: Common): void {
  let x = 0;
  let y = 0;
  for (const [op, t] of ops) {
    if (op === 0) {
      common(x, y, t.length);
      x += t.length;
      y += t.length;
    } else if (op < 0) x += t.length;
    else y += t.length;
  }
}

/** Runs from a list of changes (start and length on both sides), in order. */
function fromChanges(changes: readonly { originalStart: number; originalLength: number; modifiedStart: number; modifiedLength: number }[], aLength: number, common: Common): void {
  let x = 0;
  let y = 0;
  for (const c of changes) {
    if (c.originalStart > x) common(x, y, c.originalStart - x);
    x = c.originalStart + c.originalLength;
    y = c.modifiedStart + c.modifiedLength;
  }
  if (x < aLength) common(x, y, aLength - x);
}

/** Each candidate's LineDiff, made on first use (so a sample loads only its own package). */
export const CANDIDATES: Record<string, () => LineDiff> = {
  'fast-myers-diff': () => {
    const { lcs } = load('fast-myers-diff') as { lcs: (a: Int32Array, b: Int32Array) => Iterable<[number, number, number]> };
    return (a, b, common) => {
      for (const [x, y, n] of lcs(a, b)) if (n > 0) common(x, y, n);
    };
  },
  '@jest/diff-sequences': () => {
    const m = load('@jest/diff-sequences') as { default: (n: number, m: number, isCommon: (i: number, j: number) => boolean, found: (n: number, i: number, j: number) => void) => void };
    return (a, b, common) => m.default(a.length, b.length, (i, j) => a[i] === b[j], (n, i, j) => common(i, j, n));
  },
  'diff (jsdiff)': () => {
    const { diffArrays } = load('diff') as { diffArrays: (a: number[], b: number[]) => { added: boolean; removed: boolean; count: number }[] };
    return (a, b, common) => {
      let x = 0;
      let y = 0;
      for (const c of diffArrays(Array.from(a), Array.from(b))) {
        if (c.added) y += c.count;
        else if (c.removed) x += c.count;
        else {
          common(x, y, c.count);
          x += c.count;
          y += c.count;
        }
      }
    };
  },
  'diff-match-patch': () => {
    const Dmp = load('diff-match-patch') as new () => { Diff_Timeout: number; diff_main: (a: string, b: string, checkLines: boolean) => [number, string][] };
    const dmp = new Dmp();
    dmp.Diff_Timeout = 0; // no time-out: an exact (minimal) diff
    return (a, b, common) => {
      const [s, t] = asChars(a, b);
      fromOps(dmp.diff_main(s, t, false), common);
    };
  },
  '@sanity/diff-match-patch': () => {
    const { makeDiff } = load('@sanity/diff-match-patch') as { makeDiff: (a: string, b: string, o: { timeout: number; checkLines: boolean }) => [number, string][] };
    return (a, b, common) => {
      const [s, t] = asChars(a, b);
      fromOps(makeDiff(s, t, { timeout: 0, checkLines: false }), common);
    };
  },
  'vscode-diff': () => {
    type Change = { originalStart: number; originalLength: number; modifiedStart: number; modifiedLength: number };
    const { LcsDiff } = load('vscode-diff') as { LcsDiff: new (a: { getElements(): Int32Array }, b: { getElements(): Int32Array }) => { ComputeDiff(pretty: boolean): { changes: Change[] } } };
    return (a, b, common) => fromChanges(new LcsDiff({ getElements: () => a }, { getElements: () => b }).ComputeDiff(false).changes, a.length, common);
  },
  '@algorithm.ts/lcs': () => {
    const { lcs_myers_linear_space } = load('@algorithm.ts/lcs') as { lcs_myers_linear_space: (n: number, m: number, eq: (i: number, j: number) => boolean) => [number, number][] };
    return (a, b, common) => {
      for (const [x, y] of lcs_myers_linear_space(a.length, b.length, (i, j) => a[i] === b[j])) common(x, y, 1);
    };
  },
};

/** The package src/core/blame/diff.ts uses. */
export const CHOSEN = 'fast-myers-diff';

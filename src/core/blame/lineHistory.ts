// Line history: which revisions changed a range of lines, newest first (plain Node; no `vscode`).
// The revisions are given as blame takes them (texts, oldest first; index 0 = the oldest), and
// the range is in the newest text — or in a working text, which is then one step newer than it.
//
// HOW THE LINES ARE FOLLOWED
// From the newest text back to the oldest, one step at a time: the range in text k is carried
// into text k − 1 by the blame engine's line diff (a longest common subsequence of the two
// texts' lines, commonRuns in diff.ts), never by line numbers — lines inserted or deleted above
// the range move it, and the range goes with its lines. At each step:
//   - an edge line that the diff keeps maps to its partner line;
//   - an edge line that the diff does not keep lies in a hunk (lines replaced, inserted or
//     deleted between two kept lines). When the hunk replaced as many lines as it has, the lines
//     were edited in place and map one to one; otherwise the range takes the hunk's whole old side
//     (as `git log -L` does): the lines they replaced, never fewer.
//   - When no line of the range is kept and the range is, line for line, a block of the older
//     text that the diff deleted there, the block was moved: the range follows it (a block of at
//     least MOVE_MIN_ALNUM letters and digits, as `git blame -M` asks by default, so that a "}"
//     moved is not taken for another "}").
// Revision k changed the lines when a line of its range is not kept, or the older range is not
// the same number of lines (lines deleted inside it). Such a revision is an entry: `changed`,
// `moved`, or `added` when its range maps to nothing older (every line of it new: the walk ends
// there). A range that reaches the oldest text is an `oldest` entry: the lines are in the oldest
// revision kept, which may or may not have introduced them (as blame's "before").
//
// Consistent with blame (blame.ts): a line deleted and added again later has the revision that
// added it again as its last entry; the first entry of one edited line is the revision blame
// attributes it to.
//
// Cost: one line diff per revision walked (the reductions of diff.ts make it cheap when little
// changed), each text split once. `lineHistory` gives the thread back between revisions every
// `sliceMs`, so the extension host never waits on it for long (bench/scmChild.ts).
import { commonRuns, myersLineDiff, type LineDiff } from './diff';
import { LOCAL } from './blame';
import { lineContents } from './lines';

/** The letters and digits a block needs to be followed as moved (git blame -M's default score). */
const MOVE_MIN_ALNUM = 20;

/** How long the walk works before it gives the thread back. */
const SLICE_MS = 5;

export type LineChange = 'changed' | 'moved' | 'added' | 'oldest';

/** A range of lines: 0-based, `end` exclusive. */
export interface LineRange {
  start: number;
  end: number;
}

export interface LineHistoryEntry {
  /** Index of the revision (oldest = 0), or LOCAL for the working text. */
  revision: number;
  change: LineChange;
  /** The lines in that revision. */
  range: LineRange;
  /** Their text in that revision. */
  lines: string[];
  /** The lines in the revision before it (`changed` and `moved`): what its diff compares with. */
  previous?: LineRange;
}

export interface LineHistoryOptions {
  /** A working text one step newer than the newest revision; the range is in it. */
  working?: string;
  diff?: LineDiff;
  /** Rejects with an AbortError, between two revisions, once it aborts. */
  signal?: AbortSignal;
  /** How long to work before giving the thread back (default 5 ms). */
  sliceMs?: number;
}

interface Text {
  lines: string[];
  ids: Int32Array;
}

/**
 * The revisions that changed lines `range` of the newest text (or of `o.working`), newest first;
 * `texts` oldest first. The range is clipped to the text; an empty one has no history.
 */
export async function lineHistory(texts: readonly string[], range: LineRange, o: LineHistoryOptions = {}): Promise<LineHistoryEntry[]> {
  const diff = o.diff ?? myersLineDiff;
  const sliceMs = o.sliceMs ?? SLICE_MS;
  const idOf = new Map<string, number>();
  /**
   * A text's lines with their ids (equal lines, equal ids). Consecutive revisions share most lines:
   * a line equal to the one `next` (the text read before, one step newer) has where the walk
   * expects it takes that line's id without a look-up, as blame's `identify` does; only the others
   * are looked up, and the walk goes on from where `next` has that line.
   */
  const read = (text: string, next?: Text): Text => {
    const lines = lineContents(text);
    const ids = new Int32Array(lines.length);
    const nl = next?.lines ?? [];
    const lastAt = next && lastPositions(next.ids, idOf.size);
    let p = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (p < nl.length && nl[p] === line) {
        ids[i] = next!.ids[p++]!;
        continue;
      }
      let id = idOf.get(line);
      if (id === undefined) idOf.set(line, (id = idOf.size));
      else if (lastAt && id < lastAt.length && lastAt[id]! >= 0) p = lastAt[id]! + 1;
      ids[i] = id;
    }
    return { lines, ids };
  };
  const working = o.working !== undefined;
  if (!working && !texts.length) return [];
  let k = working ? texts.length - 1 : texts.length - 2;
  let cur = read(working ? o.working! : texts[texts.length - 1]!);
  let curRevision = working ? LOCAL : texts.length - 1;
  let r: LineRange = { start: Math.max(0, range.start), end: Math.min(cur.lines.length, range.end) };
  if (r.end <= r.start) return [];
  const out: LineHistoryEntry[] = [];
  const entry = (change: LineChange, previous?: LineRange) =>
    out.push({ revision: curRevision, change, range: r, lines: cur.lines.slice(r.start, r.end), ...(previous ? { previous } : {}) });
  let since = performance.now();
  for (;;) {
    if (o.signal?.aborted) throw abortError();
    if (k < 0) {
      entry(curRevision === LOCAL ? 'added' : 'oldest');
      return out;
    }
    const prev = read(texts[k]!, cur);
    const step = carryRange(diff, prev, cur, r, idOf.size);
    if (!step.range) {
      entry('added');
      return out;
    }
    if (step.changed) entry(step.moved ? 'moved' : 'changed', step.range);
    cur = prev;
    curRevision = k--;
    r = step.range;
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/** For each id below `count`, the last position of a line with that id in `ids`, or -1. */
function lastPositions(ids: Int32Array, count: number): Int32Array {
  const at = new Int32Array(count).fill(-1);
  for (let i = 0; i < ids.length; i++) at[ids[i]!] = i;
  return at;
}

/** The error `lineHistory` rejects with when cancelled (name `AbortError`, like the platform's). */
function abortError(): Error {
  const e = new Error('The line history was cancelled.');
  e.name = 'AbortError';
  return e;
}

/**
 * Range `r` of `cur` carried into `prev`, the text before it (see the header): the older range
 * (undefined when every line of `r` is new), whether `cur` changed the lines, and whether they
 * were moved.
 */
function carryRange(diff: LineDiff, prev: Text, cur: Text, r: LineRange, idCount: number): { range?: LineRange; changed: boolean; moved: boolean } {
  const toPrev = new Int32Array(cur.ids.length).fill(-1);
  const prevKept = new Uint8Array(prev.ids.length);
  commonRuns(prev.ids, cur.ids, idCount, diff, (x, y, n) => {
    for (let i = 0; i < n; i++) {
      toPrev[y + i] = x + i;
      prevKept[x + i] = 1;
    }
  });
  let kept = 0;
  for (let i = r.start; i < r.end; i++) if (toPrev[i]! >= 0) kept++;
  if (kept === 0) {
    const at = movedFrom(prev, prevKept, cur, r);
    if (at >= 0) return { range: { start: at, end: at + r.end - r.start }, changed: true, moved: true };
  }
  /** The hunk (lines not kept between two kept ones) around line `x` of `cur`: its new and old sides. */
  const hunk = (x: number) => {
    let ns = x;
    while (ns > 0 && toPrev[ns - 1]! < 0) ns--;
    let ne = x + 1;
    while (ne < toPrev.length && toPrev[ne]! < 0) ne++;
    const os = ns > 0 ? toPrev[ns - 1]! + 1 : 0;
    const oe = ne < toPrev.length ? toPrev[ne]! : prev.ids.length;
    return { ns, ne, os, oe, inPlace: ne - ns === oe - os };
  };
  let start: number;
  if (toPrev[r.start]! >= 0) start = toPrev[r.start]!;
  else {
    const h = hunk(r.start);
    start = h.inPlace ? h.os + (r.start - h.ns) : h.os;
  }
  let end: number;
  const last = r.end - 1;
  if (toPrev[last]! >= 0) end = toPrev[last]! + 1;
  else {
    const h = hunk(last);
    end = h.inPlace ? h.os + (last - h.ns) + 1 : h.oe;
  }
  if (end <= start) return { changed: true, moved: false };
  return { range: { start, end }, changed: kept !== r.end - r.start || end - start !== r.end - r.start, moved: false };
}

/**
 * Where the lines of `r` (none of them kept by the diff) are, line for line, a block of `prev`
 * that the diff deleted: the block's first line, or -1 (not found, or too little text to tell).
 */
function movedFrom(prev: Text, prevKept: Uint8Array, cur: Text, r: LineRange): number {
  let alnum = 0;
  for (let i = r.start; i < r.end && alnum < MOVE_MIN_ALNUM; i++) alnum += (cur.lines[i]!.match(/[\p{L}\p{N}]/gu) ?? []).length;
  if (alnum < MOVE_MIN_ALNUM) return -1;
  const n = r.end - r.start;
  const first = cur.ids[r.start]!;
  for (let q = 0; q + n <= prev.ids.length; q++) {
    if (prev.ids[q] !== first || prevKept[q]) continue;
    let i = 1;
    while (i < n && prev.ids[q + i] === cur.ids[r.start + i] && !prevKept[q + i]) i++;
    if (i === n) return q;
  }
  return -1;
}

// Revision blame: which revision introduced each line (plain Node; no `vscode`). See index.ts
// for the API as a whole and the meaning of each attribution.
import { commonRuns, myersLineDiff, type LineDiff } from './diff';
import { lineContents } from './lines';

/** The revision index of a line that is in no revision: a local change. */
export const LOCAL = -1;

/**
 * - `before`: the line is in the oldest revision given (index 0) and unchanged since: the history
 *   does not say whether that revision or an earlier one introduced it.
 * - `revision`: revision `revision` (≥ 1) introduced it: it is not kept from the revision before.
 * - `local`: the working text introduced it: it is not kept from the newest revision.
 */
export type LineOrigin = 'before' | 'revision' | 'local';

export interface LineBlame {
  origin: LineOrigin;
  /** Index of the revision the line is attributed to, oldest = 0; LOCAL (-1) for a local change. */
  revision: number;
  /**
   * The revision the line's change was made on, to compare with: for `revision` r, r − 1; for
   * `local`, the newest revision (undefined when there is none); for `before`, undefined.
   */
  previous: number | undefined;
}

/** A run of consecutive lines attributed to the same revision (end exclusive). */
export interface BlameRun {
  start: number;
  end: number;
  revision: number;
}

export interface BlameOptions {
  /** The line diff (tests and benchmarks pass others; default: Myers from `fast-myers-diff`). */
  diff?: LineDiff;
}

/**
 * The attribution of the newest revision's lines, computed over a history oldest → newest, ready
 * to attribute a working text (`attribute`) or to take one newer revision (`extend`). Immutable:
 * `extend` returns a new history and leaves this one as it was.
 *
 * It keeps only what the next step needs — the newest revision's lines, their ids and
 * attribution, and a map from its distinct lines to their ids — not the older revisions.
 */
export class BlameHistory {
  private constructor(
    /** How many revisions were taken in. */
    readonly revisionCount: number,
    /** The newest revision's lines. */
    private readonly newestLines: IdLines,
    /** Revision index of each line of the newest revision. */
    private readonly origins: Int32Array,
    /** Id of each distinct line of the newest revision. */
    private readonly idOf: ReadonlyMap<string, number>,
    /** The next unused id. */
    private readonly nextId: number,
    private readonly diff: LineDiff,
  ) {}

  /** For the builder below (the constructor stays private to this file's code). */
  static fromParts(revisionCount: number, newestLines: IdLines, origins: Int32Array, idOf: ReadonlyMap<string, number>, nextId: number, diff: LineDiff): BlameHistory {
    return new BlameHistory(revisionCount, newestLines, origins, idOf, nextId, diff);
  }

  /** A history of no revision: every line of a working text is a local change. */
  static empty(options: BlameOptions = {}): BlameHistory {
    return new BlameHistory(0, NO_LINES, new Int32Array(0), new Map(), 0, options.diff ?? myersLineDiff);
  }

  /** The history of `texts`, oldest first, in one go (synchronous: about 50–130 ms for 5,000 lines × 50 revisions). */
  static of(texts: Iterable<string>, options: BlameOptions = {}): BlameHistory {
    const b = new Builder(options.diff ?? myersLineDiff);
    for (const text of texts) b.take(text);
    return b.history();
  }

  /**
   * The same history as `of`, built in slices: after each revision, once `sliceMs` (default 5)
   * have passed since the thread was last given back, it is given back (a turn of the event loop),
   * so the extension host never waits on blame for longer than one revision's diff. Rejects with
   * an AbortError, between two revisions, once `signal` aborts.
   */
  static async build(texts: Iterable<string>, options: BlameOptions & { signal?: AbortSignal; sliceMs?: number } = {}): Promise<BlameHistory> {
    const b = new Builder(options.diff ?? myersLineDiff);
    const sliceMs = options.sliceMs ?? SLICE_MS;
    let since = performance.now();
    for (const text of texts) {
      if (options.signal?.aborted) throw abortError();
      b.take(text);
      if (performance.now() - since >= sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        since = performance.now();
      }
    }
    if (options.signal?.aborted) throw abortError();
    return b.history();
  }

  /** This history and one newer revision, with one diff (the newest revision's → `text`'s). */
  extend(text: string): BlameHistory {
    const added = new Map<string, number>();
    let nextId = this.nextId;
    const idOf = (line: string): number => {
      let id = this.idOf.get(line) ?? added.get(line);
      if (id === undefined) added.set(line, (id = nextId++));
      return id;
    };
    const next = identify(lineContents(text), this.newestLines, idOf, true);
    const origins = carry(this.diff, this.newestLines, this.origins, next, this.revisionCount, nextId);
    const newest = new Map<string, number>();
    for (let i = 0; i < next.lines.length; i++) newest.set(next.lines[i]!, next.ids[i]!);
    return new BlameHistory(this.revisionCount + 1, next, origins, newest, nextId, this.diff);
  }

  /**
   * The attribution of a working text: one diff from the newest revision, cheap enough for every
   * edit (nothing is requested, nothing kept). Its lines are the editor's (see lines.ts).
   */
  attribute(text: string): Attribution {
    // A line the newest revision does not have cannot be kept from it: one id (LOCAL) for all
    // of them, so typing never grows the map.
    const next = identify(lineContents(text), this.newestLines, (line) => this.idOf.get(line) ?? LOCAL, false);
    return new Attribution(carry(this.diff, this.newestLines, this.origins, next, LOCAL, this.nextId), this.revisionCount);
  }

  /** The attribution of the newest revision's own lines (empty when there is no revision). */
  newest(): Attribution {
    return new Attribution(this.origins.slice(), this.revisionCount);
  }
}

/** How long `build` works before it gives the thread back. */
const SLICE_MS = 5;

/** The error `build` rejects with when cancelled (name `AbortError`, like the platform's). */
function abortError(): Error {
  const e = new Error('Revision blame was cancelled.');
  e.name = 'AbortError';
  return e;
}

/**
 * What `of` and `build` share: the revisions taken in one at a time, with one map of ids for the
 * whole run; the history made at the end keeps only the newest revision's part of it.
 */
class Builder {
  private readonly all = new Map<string, number>();
  private readonly idOf = (line: string): number => {
    let id = this.all.get(line);
    if (id === undefined) this.all.set(line, (id = this.all.size));
    return id;
  };
  private count = 0;
  private prev = NO_LINES;
  private origins: Int32Array = new Int32Array(0);

  constructor(private readonly diff: LineDiff) {}

  take(text: string): void {
    const next = identify(lineContents(text), this.prev, this.idOf, true);
    this.origins = carry(this.diff, this.prev, this.origins, next, this.count, this.all.size);
    this.prev = next;
    this.count++;
  }

  history(): BlameHistory {
    const prev = this.prev;
    const newest = new Map<string, number>();
    for (let i = 0; i < prev.lines.length; i++) newest.set(prev.lines[i]!, prev.ids[i]!);
    return BlameHistory.fromParts(this.count, prev, this.origins, newest, this.all.size, this.diff);
  }
}

/** A revision's lines with their ids (equal lines, equal ids). */
interface IdLines {
  readonly lines: readonly string[];
  readonly ids: Int32Array;
  /** For each id below its length, the last line with that id, or -1. */
  readonly lastAt: Int32Array | undefined;
}

const NO_LINES: IdLines = { lines: [], ids: new Int32Array(0), lastAt: undefined };

/**
 * The ids of `lines`, a revision that follows `prev`. A line equal to the one `prev` has at the
 * place the walk expects takes that line's id without a map look-up; only the others are looked
 * up with `idOf` (an edited line, an inserted one, or the first line after a deleted or moved
 * block), and the walk then goes on from where `prev` has that line. So most lines cost one
 * string comparison instead of a hash: consecutive revisions share most lines. Whichever way an
 * id is found, equal lines get equal ids.
 */
function identify(lines: string[], prev: IdLines, idOf: (line: string) => number, withLastAt: boolean): IdLines {
  const ids = new Int32Array(lines.length);
  const pl = prev.lines;
  const pIds = prev.ids;
  const pLast = prev.lastAt;
  let p = 0;
  let maxId = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let id: number;
    if (p < pl.length && pl[p] === line) id = pIds[p++]!;
    else {
      id = idOf(line);
      if (pLast && id >= 0 && id < pLast.length && pLast[id]! >= 0) p = pLast[id]! + 1;
    }
    ids[i] = id;
    if (id > maxId) maxId = id;
  }
  let lastAt: Int32Array | undefined;
  if (withLastAt) {
    lastAt = new Int32Array(maxId + 1).fill(-1);
    for (let i = 0; i < ids.length; i++) lastAt[ids[i]!] = i;
  }
  return { lines, ids, lastAt };
}

/**
 * The origins of `next`'s lines: those kept from `prev` (a longest common subsequence) keep their
 * origin, the others get `introducedBy`. Ids are below `idCount`.
 */
function carry(diff: LineDiff, prev: IdLines, prevOrigins: Int32Array, next: IdLines, introducedBy: number, idCount: number): Int32Array {
  const out = new Int32Array(next.ids.length).fill(introducedBy);
  if (prev.ids.length && next.ids.length) commonRuns(prev.ids, next.ids, idCount, diff, (a, b, n) => out.set(prevOrigins.subarray(a, a + n), b));
  return out;
}

/** The revision that introduced each line of one text. */
export class Attribution {
  constructor(
    /** Per line: the index of the revision that introduced it (oldest = 0), or LOCAL. Read only. */
    readonly revisions: Int32Array,
    /** How many revisions the history had. */
    readonly revisionCount: number,
  ) {}

  get lineCount(): number {
    return this.revisions.length;
  }

  /** The revision index of `line` (0-based, as in the editor), or LOCAL. */
  revisionOf(line: number): number {
    this.check(line);
    return this.revisions[line]!;
  }

  /** What a hover says about `line`. */
  blameOf(line: number): LineBlame {
    const revision = this.revisionOf(line);
    if (revision === LOCAL) return { origin: 'local', revision, previous: this.revisionCount ? this.revisionCount - 1 : undefined };
    if (revision === 0) return { origin: 'before', revision, previous: undefined };
    return { origin: 'revision', revision, previous: revision - 1 };
  }

  /** Consecutive lines with the same revision, top to bottom (what decorations are made of). */
  runs(): BlameRun[] {
    const out: BlameRun[] = [];
    const r = this.revisions;
    for (let start = 0; start < r.length; ) {
      let end = start + 1;
      while (end < r.length && r[end] === r[start]) end++;
      out.push({ start, end, revision: r[start]! });
      start = end;
    }
    return out;
  }

  private check(line: number): void {
    if (!Number.isInteger(line) || line < 0 || line >= this.revisions.length) throw new RangeError(`line ${line} is outside 0..${this.revisions.length - 1}`);
  }
}

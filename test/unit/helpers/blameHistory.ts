// Deterministic file histories for the blame tests and benchmarks (test/unit/blame*.test.ts,
// bench/blameChild.ts): a code-like file of N lines and M revisions, oldest first, each made from
// the previous one by a few percent of realistic edits — lines edited in place, blocks inserted,
// deleted and moved, and now and then a line deleted earlier that comes back. Some lines repeat
// ("", "}", "return;" …), as in real code, which is what makes line diffs tie and slow down.
//
// Everything comes from the local service's seeded generator (mulberry32, test/server/seed.ts):
// the same options give the same history.
import { prng } from '../../server/seed';

export interface HistoryOptions {
  /** Lines of the oldest revision (the others stay close to it). */
  lines: number;
  revisions: number;
  /** Share of the lines each revision touches (0.03 = 3 %). */
  changeFraction?: number;
  seed?: number;
  /** Line terminator of every revision ('\n' by default). */
  eol?: '\n' | '\r\n';
  /** Whether each revision ends with a terminator (default true). */
  finalNewline?: boolean;
}

export interface GeneratedHistory {
  /** Revision texts, oldest first. */
  revisions: string[];
  /** The same as lines (without terminators), oldest first. */
  lines: string[][];
}

const WORDS = ['total', 'count', 'item', 'user', 'site', 'path', 'value', 'result', 'cache', 'index', 'name', 'size', 'offset', 'limit', 'entry', 'node', 'list', 'map', 'key', 'data'];
const CALLS = ['load', 'save', 'parse', 'render', 'check', 'update', 'format', 'resolve', 'compute', 'merge'];
/** Lines that repeat in real code. */
const COMMON = ['', '', '', '}', '  }', '    }', '  return;', '    break;', '  } else {', '/**', ' */', '  // TODO'];

/** A generator of code-like lines; `unique` lines carry a counter, so they never repeat. */
export class LineMaker {
  private n = 0;
  constructor(private readonly rand: () => number) {}

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }

  line(): string {
    if (this.rand() < 0.15) return this.pick(COMMON);
    return this.unique();
  }

  unique(): string {
    const id = ++this.n;
    const indent = '  '.repeat(1 + Math.floor(this.rand() * 3));
    const w = this.pick(WORDS);
    switch (Math.floor(this.rand() * 4)) {
      case 0:
        return `${indent}const ${w}${id} = ${this.pick(CALLS)}(${this.pick(WORDS)}, ${Math.floor(this.rand() * 1000)});`;
      case 1:
        return `${indent}if (${w}${id} > ${this.pick(WORDS)}.length) {`;
      case 2:
        return `${indent}${this.pick(CALLS)}(${w}, '${this.pick(WORDS)}-${id}');`;
      default:
        return `${indent}${w}.${this.pick(CALLS)}(${id}, ${this.pick(WORDS)}); // ${this.pick(WORDS)}`;
    }
  }

  /** The line with one token changed (a new, unique line). */
  edit(line: string): string {
    return line.trim() === '' || line.length < 4 ? this.unique() : `${line.replace(/\d+/, String(Math.floor(this.rand() * 100000)))} /* ${++this.n} */`;
  }
}

/** Makes a history as described at the top of this file. */
export function generateHistory(o: HistoryOptions): GeneratedHistory {
  const rand = prng(o.seed ?? 1);
  const maker = new LineMaker(rand);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const fraction = o.changeFraction ?? 0.03;

  let cur: string[] = [];
  for (let i = 0; i < o.lines; i++) cur.push(maker.line());
  const all: string[][] = [cur];
  const deleted: string[] = [];
  for (let r = 1; r < o.revisions; r++) {
    const next = cur.slice();
    let budget = Math.max(1, Math.round(o.lines * fraction));
    while (budget > 0) {
      const op = rand();
      const at = int(0, Math.max(0, next.length - 1));
      if (op < 0.45 || next.length < 20) {
        // edit 1-3 lines in place
        const k = Math.min(int(1, 3), next.length - at);
        for (let i = 0; i < k; i++) next[at + i] = maker.edit(next[at + i]!);
        budget -= Math.max(1, k);
        if (!next.length) next.push(maker.line());
      } else if (op < 0.65) {
        // insert 1-6 new lines
        const k = int(1, 6);
        next.splice(at, 0, ...Array.from({ length: k }, () => maker.line()));
        budget -= k;
      } else if (op < 0.82) {
        // delete 1-6 lines (remembered: one may come back later)
        const k = Math.min(int(1, 6), next.length - at);
        deleted.push(...next.splice(at, k));
        budget -= k;
      } else if (op < 0.94) {
        // move a block of 3-15 lines elsewhere
        const k = Math.min(int(3, 15), next.length - at);
        const block = next.splice(at, k);
        next.splice(int(0, next.length), 0, ...block);
        budget -= k;
      } else if (deleted.length) {
        // a line deleted in an earlier revision comes back
        next.splice(at, 0, deleted.splice(int(0, deleted.length - 1), 1)[0]!);
        budget -= 1;
      }
    }
    cur = next;
    all.push(cur);
  }
  const eol = o.eol ?? '\n';
  const end = o.finalNewline === false ? '' : eol;
  return { revisions: all.map((ls) => ls.join(eol) + end), lines: all };
}

/** `text` with line `index` (0-based; terminators kept) replaced by `line`. */
export function replaceLine(text: string, index: number, line: string): string {
  let start = 0;
  for (let i = 0; i < index; i++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) throw new Error(`no line ${index}`);
    start = nl + 1;
  }
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  if (end > start && text[end - 1] === '\r') end--;
  return text.slice(0, start) + line + text.slice(end);
}

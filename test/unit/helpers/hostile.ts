// The regular expressions of the "Trust" issue that backtrack for minutes (or longer) in
// JavaScript's engine on an ordinary line, each with such a line: the unit and fuzz tests
// (test/unit/search.bounded.test.ts) and the bench's rows (bench/searchChild.ts) use them.
export interface Hostile {
  name: string;
  pattern: string;
  /** An ordinary line the expression does not end on (in one process, alone on the thread). */
  line: string;
}

export const HOSTILE: readonly Hostile[] = [
  // 78 s on main before the search thread (the figure).
  { name: '(a+)+$ over a line of 30 a’s and a !', pattern: '(a+)+$', line: `${'a'.repeat(30)}!` },
  // Words and single spaces before a missing semicolon: did not end in 20 s.
  { name: '(\\w+\\s?)+;$ over a line of code', pattern: '(\\w+\\s?)+;$', line: '  return cachedValueForTheGivenRequestKey' },
  // The language-model tool's case: a CSS comment of 28 dashes (12.8 s on main).
  { name: '(-+)+\\*/$ over a CSS comment of 28 dashes', pattern: '(-+)+\\*/$', line: `/* ${'-'.repeat(28)} */ ` },
];

/** A CSS file's revisions (ids 700…), a day apart, with `line` in the newest. */
export function revisionsWith(line: string, count = 3): { id: string; date: string; author: string; content: string }[] {
  const out: { id: string; date: string; author: string; content: string }[] = [];
  for (let i = 0; i < count; i++) {
    const body = ['body { color: black; }', '/* the header */', `.item-${i} { margin: 0 }`];
    if (i === count - 1) body.push(line);
    out.push({ id: String(700 + i), date: `2026-03-${String(10 + i).padStart(2, '0')} 12:00:00`, author: 'demo@example.com', content: `${body.join('\n')}\n` });
  }
  return out;
}

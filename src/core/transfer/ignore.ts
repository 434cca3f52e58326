// Exclusions of folder transfers and syncs (issue 34 §4): gitignore-like patterns, plain Node.
// Our own ~120 lines rather than a library (docs/design.md has the measurements): the rules are
// git's (gitignore(5)), checked against git itself in test/unit/transfer.ignore.test.ts:
// - blank lines and lines starting with `#` are skipped; `\#` and `\!` start a pattern with
//   those characters; trailing spaces are dropped unless escaped (`\ `);
// - `!` re-includes what an earlier pattern excluded — but nothing inside an excluded folder
//   (git does not look into it either);
// - a pattern ending with `/` matches folders only;
// - a pattern with a `/` at its start or in its middle is anchored at the root (the mapped
//   folder); otherwise it matches a name at any depth;
// - `*` matches anything but `/`, `?` one character but `/`, `[a-z]` / `[!a-z]` a class;
//   `**/` leading, `/**` trailing and `/**/` inside match any number of folders; `\x` is x.
// The last pattern that matches wins. Paths are root-relative (`a/b.txt`), as everywhere here.
// Always excluded, whatever the patterns: `.git` and `.vscode` in any spelling a file system may
// read as them (src/core/model/safePath.ts protectedFolder — what the restore refuses to write).
import { protectedFolder } from '../model/safePath';

/** Whether a path (and whether it is a folder) is excluded. */
export type Exclude = (path: string, isDir: boolean) => boolean;

interface Rule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
  /** Matched against the name only (no `/` in the pattern but a trailing one). */
  basename: boolean;
}

/** The patterns every folder transfer and sync excludes, besides the protected folders. */
export const DEFAULT_EXCLUDES: readonly string[] = ['.git/', '.vscode/'];

/** A class `[...]` at `i` (just after `[`) as a RegExp class, and where it ends; undefined when unclosed (then `[` is literal). */
function bracket(p: string, i: number): { re: string; end: number } | undefined {
  let j = i;
  let neg = false;
  if (p[j] === '!' || p[j] === '^') {
    neg = true;
    j++;
  }
  let body = '';
  let first = true;
  for (; j < p.length; j++) {
    const c = p[j]!;
    if (c === ']' && !first) return { re: `[${neg ? '^' : ''}${body}]`, end: j };
    first = false;
    if (c === '\\' && j + 1 < p.length) {
      body += `\\${p[++j]}`;
    } else if (c === '-' && body && p[j + 1] !== ']' && j + 1 < p.length) {
      body += '-';
    } else body += /[\\\]^-]/.test(c) ? `\\${c}` : c;
  }
  return undefined;
}

/** One glob segment sequence (no `**` handling) → RegExp source. */
function globToRe(p: string): string {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') {
      while (p[i + 1] === '*') i++;
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const b = bracket(p, i + 1);
      if (b) {
        re += b.re;
        i = b.end;
      } else re += '\\[';
    } else if (c === '\\' && i + 1 < p.length) re += escape(p[++i]!);
    else re += escape(c);
  }
  return re;
}

function escape(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** Parses one line of patterns; undefined for a blank line or a comment. */
export function parsePattern(line: string): Rule | undefined {
  let p = line.replace(/\r$/, '');
  // Trailing spaces go, unless escaped.
  p = p.replace(/(?<!\\) +$/, '');
  if (!p || p.startsWith('#')) return undefined;
  let negate = false;
  if (p.startsWith('!')) {
    negate = true;
    p = p.slice(1);
  } else if (p.startsWith('\\!') || p.startsWith('\\#')) p = p.slice(1);
  let dirOnly = false;
  if (p.endsWith('/') && !p.endsWith('\\/')) {
    dirOnly = true;
    p = p.replace(/\/+$/, '');
  }
  if (!p) return undefined;
  const basename = !p.includes('/');
  if (p.startsWith('/')) p = p.slice(1);
  // `**` next to slashes (or alone) spans folders; elsewhere it is a `*`.
  const parts = p.split('/');
  let re = '';
  for (let i = 0; i < parts.length; i++) {
    const seg = parts[i]!;
    const last = i === parts.length - 1;
    if (seg === '**') {
      // Leading or inner `**/`: any number of folders; a trailing `/**`: whatever is inside (not the folder itself).
      re += last ? (i === 0 ? '.*' : '.+') : '(?:.*/)?';
      continue;
    }
    re += globToRe(seg);
    if (!last) re += '/';
  }
  try {
    return { re: new RegExp(`^${re}$`, 'u'), negate, dirOnly, basename };
  } catch {
    return undefined;
  }
}

/** Whether the rules exclude this path by themselves (not looking at its folders). */
function own(rules: readonly Rule[], path: string, isDir: boolean): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  let out = false;
  for (const r of rules) {
    if (r.dirOnly && !isDir) continue;
    if (r.negate !== out) continue; // cannot change the answer
    if (r.re.test(r.basename ? name : path)) out = !r.negate;
  }
  return out;
}

/**
 * The exclusion of a list of patterns (lines of a gitignore-like setting), with `.git` and
 * `.vscode` always excluded. A path inside an excluded folder is excluded. Folder answers are
 * remembered (a walk asks about each folder's files).
 */
export function compileExcludes(patterns: readonly string[] = DEFAULT_EXCLUDES): Exclude {
  const rules = patterns.flatMap((l) => l.split('\n')).map(parsePattern).filter((r): r is Rule => !!r);
  const dirs = new Map<string, boolean>();
  const dirExcluded = (d: string): boolean => {
    let v = dirs.get(d);
    if (v === undefined) {
      const parent = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '';
      v = (parent !== '' && dirExcluded(parent)) || protectedFolder(d.slice(d.lastIndexOf('/') + 1)) !== undefined || own(rules, d, true);
      dirs.set(d, v);
    }
    return v;
  };
  return (path, isDir) => {
    if (!path) return false;
    if (isDir) return dirExcluded(path);
    const i = path.lastIndexOf('/');
    if (i > 0 && dirExcluded(path.slice(0, i))) return true;
    if (protectedFolder(path.slice(i + 1))) return true;
    return own(rules, path, false);
  };
}

// Pure (no `vscode`): the matcher of History Search — what the user typed (text or regular
// expression, match case, whole word, like VS Code's search) compiled once, then run over
// revision contents: how many matches a content has and where the first one is, with a preview
// line the UI can show and highlight.
//
// Decisions (see README "History search"):
// - Text is searched as written (no escapes); a regular expression uses JavaScript syntax with
//   the `u` flag when it is valid with it (so `.` and classes see whole characters, `\p{L}`
//   works), else without it. `^` and `$` match at every line start / end (`m` flag), and `$`
//   also before the `\r` of a CRLF line end.
// - Whole word: a match may not start or end between two word characters (letters, digits,
//   combining marks and `_` of any script), as VS Code's editor decides it: `Grüße` is a word,
//   `TODO-X` matches in `a TODO-X b` but not in `TODO-XS`.
// - Empty matches (`x*` where there is no x, `^`, a lookahead alone) are not counted: a search
//   finds text. The scan over them steps one character ahead, so such a pattern never loops.
// - Lines end at `\n`, `\r\n` or a lone `\r`; line and character numbers are 0-based UTF-16
//   offsets, as VS Code's `Position`. A preview is one line, cut around the match when long (a
//   5 MB one-line file gives a short preview), with `…` where text was left out.
import { english, type Translate } from '../util/l10n';

/** What the user asks for. */
export interface SearchQuery {
  /** The text or the regular expression; not empty. */
  pattern: string;
  isRegExp?: boolean;
  matchCase?: boolean;
  wholeWord?: boolean;
}

/** Where a match is, and a line to show it in. */
export interface MatchPreview {
  /** Line of the match's first character (0-based). */
  line: number;
  /** UTF-16 offset of the match in that line (0-based): select `line:character` … `endLine:endCharacter`. */
  character: number;
  /** Line of the match's end (a regular expression can match across lines). */
  endLine: number;
  /** UTF-16 offset just after the match, in `endLine`. */
  endCharacter: number;
  /** The line, cut around the match when long, leading white space removed; `…` marks a cut. */
  text: string;
  /** The match within `text`: [start, end) in UTF-16 units (to the end of the line when the match goes on). */
  highlight: [start: number, end: number];
}

/** The query cannot be used; `message` is for the user (translated). */
export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

export interface Matcher {
  readonly query: Readonly<SearchQuery>;
  /** The number of (non-empty) matches in `text`. */
  count(text: string): number;
  /** The first match and its preview line, or undefined. */
  first(text: string): MatchPreview | undefined;
  /** Both in one pass: the count, and the preview of the first match when `preview` is true. */
  scan(text: string, preview: boolean): { count: number; first: MatchPreview | undefined };
}

/** Longest preview line (UTF-16 units, without the `…` marks). */
export const PREVIEW_MAX = 250;
/** Text kept before the match when a long line is cut. */
export const PREVIEW_BEFORE = 40;

const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\/]/g;
/** A word character for "whole word": letters, digits and marks of any script, and `_`. */
const WORD_U = '[\\p{L}\\p{N}\\p{M}_]';
/** The same without the `u` flag (no property escapes there): ASCII word characters, Latin-1 and later letters. */
const WORD_NO_U = '[\\w\\u00aa\\u00b5\\u00ba\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u02ff\\u0370-\\u1fff\\u2070-\\u218f\\u2c00-\\ud7ff\\uf900-\\ufdcf\\ufdf0-\\ufffd]';

/**
 * Compiles a query. Throws QueryError (with a message for the user) when the pattern is empty or
 * is not a valid regular expression.
 */
export function compileQuery(query: SearchQuery, t: Translate = english): Matcher {
  const pattern = typeof query?.pattern === 'string' ? query.pattern : '';
  if (pattern === '') throw new QueryError(t('Type the text to search for.'));
  const q: SearchQuery = { pattern, isRegExp: !!query.isRegExp, matchCase: !!query.matchCase, wholeWord: !!query.wholeWord };
  // Plain text with case: indexOf is faster than any regular expression, and exact.
  if (!q.isRegExp && q.matchCase && !q.wholeWord) return new TextMatcher(q);
  return new RegExpMatcher(q, buildRegExp(q, t));
}

function buildRegExp(q: SearchQuery, t: Translate): RegExp {
  const flags = `gm${q.matchCase ? '' : 'i'}`;
  const attempt = (unicode: boolean): RegExp => {
    const body = q.isRegExp ? crlfAwareEnd(q.pattern) : q.pattern.replace(REGEXP_SPECIAL, '\\$&');
    const word = unicode ? WORD_U : WORD_NO_U;
    // "Not between two word characters", at both ends of the match.
    const edge = `(?:(?<!${word})|(?!${word}))`;
    return new RegExp(q.wholeWord ? `${edge}(?:${body})${edge}` : body, unicode ? `${flags}u` : flags);
  };
  try {
    return attempt(true);
  } catch (withU) {
    if (!q.isRegExp) throw withU; // escaped text is always valid
    try {
      return attempt(false);
    } catch {
      throw new QueryError(t('The regular expression is not valid: {0}', regExpProblem(withU)));
    }
  }
}

/** The engine's reason without the pattern it repeats ("Invalid regular expression: /(/gmu: Unterminated group" → "Unterminated group"). */
function regExpProblem(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const m = /^Invalid regular expression: \/.*\/[a-z]*: (.+)$/s.exec(message);
  return m ? m[1]! : message;
}

/**
 * `$` outside a character class becomes `(?=\r?$)`, so that with the `m` flag it matches at the
 * end of a CRLF line too (JavaScript's `$` matches before `\n`, which is after the `\r`).
 */
export function crlfAwareEnd(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '$') {
      out += '(?=\\r?$)';
    } else {
      out += c;
    }
  }
  return out;
}

class TextMatcher implements Matcher {
  constructor(readonly query: Readonly<SearchQuery>) {}

  count(text: string): number {
    return this.scan(text, false).count;
  }

  first(text: string): MatchPreview | undefined {
    const at = text.indexOf(this.query.pattern);
    return at < 0 ? undefined : preview(text, at, at + this.query.pattern.length);
  }

  scan(text: string, wantPreview: boolean): { count: number; first: MatchPreview | undefined } {
    const p = this.query.pattern;
    let at = text.indexOf(p);
    if (at < 0) return { count: 0, first: undefined };
    const first = wantPreview ? preview(text, at, at + p.length) : undefined;
    let count = 0;
    while (at >= 0) {
      count++;
      at = text.indexOf(p, at + p.length);
    }
    return { count, first };
  }
}

class RegExpMatcher implements Matcher {
  constructor(
    readonly query: Readonly<SearchQuery>,
    private readonly re: RegExp,
  ) {}

  count(text: string): number {
    return this.scan(text, false).count;
  }

  first(text: string): MatchPreview | undefined {
    return this.scan(text, true, 1).first;
  }

  scan(text: string, wantPreview: boolean, limit = Infinity): { count: number; first: MatchPreview | undefined } {
    const re = this.re;
    re.lastIndex = 0;
    let count = 0;
    let first: MatchPreview | undefined;
    let m: RegExpExecArray | null;
    while (count < limit && (m = re.exec(text)) !== null) {
      const start = m.index;
      const end = start + m[0].length;
      if (end === start) {
        // An empty match is not counted; step over one character (a whole one with `u`).
        re.lastIndex = start + (re.unicode && isHighSurrogate(text.charCodeAt(start)) && isLowSurrogate(text.charCodeAt(start + 1)) ? 2 : 1);
        if (re.lastIndex > text.length) break;
        continue;
      }
      if (count === 0 && wantPreview) first = preview(text, start, end);
      count++;
    }
    re.lastIndex = 0;
    return { count, first };
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Index of the first line break (`\n` or `\r`) at or after `from`, or text.length. */
function lineEnd(text: string, from: number): number {
  const n = text.indexOf('\n', from);
  const r = text.indexOf('\r', from);
  if (n < 0) return r < 0 ? text.length : r;
  return r < 0 || n < r ? n : r;
}

/**
 * Line number and line start of offset `at`, counting from `line` / `start` (a line start before
 * `at`). `\n`, `\r\n` and a lone `\r` each end a line.
 */
function lineOf(text: string, at: number, line = 0, start = 0): { line: number; start: number } {
  const cr = text.indexOf('\r', start);
  if (cr < 0 || cr >= at) {
    // Only \n in between: count them natively.
    for (let n = text.indexOf('\n', start); n >= 0 && n < at; n = text.indexOf('\n', n + 1)) {
      line++;
      start = n + 1;
    }
    return { line, start };
  }
  for (let i = start; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      start = i + 1;
    }
  }
  return { line, start };
}

/** Moves a cut so that it does not split a surrogate pair (forward when `forward`, else back). */
function safeCut(text: string, at: number, forward: boolean): number {
  if (at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1))) return forward ? at + 1 : at - 1;
  return at;
}

/** The preview of the match [start, end) of `text`. */
export function preview(text: string, start: number, end: number): MatchPreview {
  const { line, start: lineStart } = lineOf(text, start);
  const lineStop = lineEnd(text, start);
  // The end position (a match can run over line breaks).
  let endLine = line;
  let endCharacter = end - lineStart;
  if (end > lineStop) {
    const e = lineOf(text, end, line, lineStart);
    endLine = e.line;
    endCharacter = end - e.start;
  }
  const character = start - lineStart;
  const hlEnd = Math.min(end, lineStop);

  // Leading white space is not shown (as in VS Code's search results), unless the match is in it.
  let from = lineStart;
  while (from < start && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++;
  let to = lineStop;
  let prefix = '';
  let suffix = '';
  if (to - from > PREVIEW_MAX) {
    if (start - from > PREVIEW_BEFORE) {
      from = safeCut(text, start - PREVIEW_BEFORE, true);
      prefix = '…';
    }
    if (to - from > PREVIEW_MAX) {
      to = safeCut(text, from + PREVIEW_MAX, false);
      suffix = '…';
    }
  }
  const shown = text.slice(from, to);
  const hlStart = prefix.length + (start - from);
  const hlStop = prefix.length + (Math.min(hlEnd, to) - from);
  return { line, character, endLine, endCharacter, text: prefix + shown + suffix, highlight: [hlStart, Math.max(hlStart, hlStop)] };
}

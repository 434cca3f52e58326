// Lines as VS Code numbers them, for blame (plain Node; no `vscode`).
//
// - A line ends at "\r\n", "\n" or a lone "\r" — the three terminators VS Code's text model
//   recognizes — so line i here is line i of the editor (TextDocument.lineAt(i)). A text has one
//   line more than it has terminators: "" is one empty line, "a\n" is "a" and an empty last line.
// - Lines are compared without their terminators: a revision that only turned CRLF into LF, or
//   added or removed the newline at the end of the file, changes no line's content. Adding a final
//   newline adds the empty last line (that new line is what it introduced); the line before it
//   keeps its attribution.
// - A UTF-8 byte order mark (U+FEFF at the very start) is not part of the first line: VS Code
//   strips it from a document's text, while a revision's content may still carry it.
// - `splitLines` keeps what was taken away (terminators and BOM), so `joinLines` gives the text
//   back exactly; `lineContents` is the same split without that bookkeeping, for blame's hot path.

/** The byte order mark as it appears in a decoded string. */
const BOM = 0xfeff;

export interface SplitText {
  /** Line contents, without terminators; the first without a byte order mark. */
  readonly lines: string[];
  /** The terminator after each line: "\n", "\r\n" or "\r"; "" after the last line. */
  readonly eols: string[];
  /** Whether the text started with a byte order mark. */
  readonly bom: boolean;
}

/** The lines of `text` without terminators (and without a leading byte order mark). */
export function lineContents(text: string): string[] {
  const body = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  // The common cases with the engine's own split: "\n" only, or "\r\n" only.
  const cr = body.indexOf('\r');
  if (cr < 0) return body.split('\n');
  const lf = body.indexOf('\n');
  if (lf === cr + 1 && onlyCrlf(body)) return body.split('\r\n');
  const out: string[] = [];
  splitEach(body, 0, (from, to) => out.push(body.slice(from, to)));
  return out;
}

/** Whether every "\r" of `text` is followed by "\n" and every "\n" preceded by "\r". */
function onlyCrlf(text: string): boolean {
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) if (text.charCodeAt(i - 1) !== 13) return false;
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) return false;
  return true;
}

/** The lines of `text` and everything needed to rebuild it exactly (see joinLines). */
export function splitLines(text: string): SplitText {
  const bom = text.charCodeAt(0) === BOM;
  const lines: string[] = [];
  const eols: string[] = [];
  splitEach(text, bom ? 1 : 0, (from, to, eol) => {
    lines.push(text.slice(from, to));
    eols.push(eol);
  });
  return { lines, eols, bom };
}

/** The text that `splitLines` took apart. */
export function joinLines(s: SplitText): string {
  let out = s.bom ? '\ufeff' : '';
  for (let i = 0; i < s.lines.length; i++) out += s.lines[i]! + (s.eols[i] ?? '');
  return out;
}

/** Calls `each(from, to, eol)` for every line of `text` from `start`, the last one with eol "". */
function splitEach(text: string, start: number, each: (from: number, to: number, eol: string) => void): void {
  let from = start;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      each(from, i, '\n');
      from = i + 1;
    } else if (c === 13) {
      const crlf = text.charCodeAt(i + 1) === 10;
      each(from, i, crlf ? '\r\n' : '\r');
      if (crlf) i++;
      from = i + 1;
    }
  }
  each(from, text.length, '');
}

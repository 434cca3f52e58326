// Pure (no `vscode`): turning a revision path from the service into a location inside the local
// folder mapped to the site. The path is data from a remote party: nothing in it may reach
// outside the mapped folder, so anything that could (or that means something different on
// another platform) is refused with an error naming the path, never "cleaned up".
import { english, type Translate } from '../util/l10n';

export type SafeSegments = { ok: true; segments: string[] } | { ok: false; reason: string };

// Names Windows reserves in every folder (with or without an extension).
const WIN_RESERVED = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$)(\..*)?$/i;

/** Shows a hostile path in a message without letting it break the message. */
export function quotePath(raw: string): string {
  return JSON.stringify(raw.length > 200 ? raw.slice(0, 200) + '…' : raw).replace(/[\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The relative segments of a revision path, or why it is refused. Refused: empty paths, NUL and
 * other control characters, lone surrogates (no file name can hold them), backslashes (a separator on Windows), absolute paths (`/x`, `//host`),
 * drive letters and any `:` (drive-relative paths, NTFS streams), `..` segments (even when they
 * would stay inside) and names Windows would silently change (trailing dot or space, reserved
 * device names like `CON`). `.` segments and repeated `/` are harmless and dropped.
 * `t` translates the reason (see src/core/util/l10n.ts).
 */
export function safeSegments(raw: string, t: Translate = english): SafeSegments {
  const refuse = (reason: string): SafeSegments => ({ ok: false, reason });
  if (typeof raw !== 'string' || raw === '') return refuse(t('The revision has an empty path, so it cannot be mapped to a file in the local folder.'));
  // Quoted only for a refusal: the check runs on every path of a site.
  const q = (): string => quotePath(raw);
  if (/[\u0000-\u001f\u007f]/.test(raw)) return refuse(t('The revision path {0} contains a control character (such as NUL), so it cannot be mapped to a file in the local folder.', q()));
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(raw)) {
    return refuse(t('The revision path {0} contains an invalid character (a lone surrogate), so it cannot be mapped to a file in the local folder.', q()));
  }
  if (raw.includes('\\')) return refuse(t('The revision path {0} contains a backslash, so it cannot be mapped to a file in the local folder.', q()));
  if (raw.startsWith('/')) return refuse(t('The revision path {0} is absolute, so it cannot be mapped to a file in the local folder.', q()));
  if (/^[a-zA-Z]:/.test(raw)) return refuse(t('The revision path {0} starts with a drive letter, so it cannot be mapped to a file in the local folder.', q()));
  if (raw.includes(':')) return refuse(t('The revision path {0} contains a colon, so it cannot be mapped to a file in the local folder.', q()));
  const segments: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return refuse(t('The revision path {0} goes up a folder (..), so it cannot be mapped to a file in the local folder.', q()));
    if (/^[. ]+$/.test(seg)) return refuse(t('The revision path {0} has a segment made only of dots or spaces ({1}), so it cannot be mapped to a file in the local folder.', q(), quotePath(seg)));
    if (/[. ]$/.test(seg)) return refuse(t('The revision path {0} has a name ending with a dot or a space ({1}), so it cannot be mapped to a file in the local folder.', q(), quotePath(seg)));
    if (WIN_RESERVED.test(seg)) return refuse(t('The revision path {0} uses a reserved device name ({1}), so it cannot be mapped to a file in the local folder.', q(), quotePath(seg)));
    if (/[<>"|?*]/.test(seg)) return refuse(t('The revision path {0} contains a character not allowed in file names ({1}), so it cannot be mapped to a file in the local folder.', q(), quotePath(seg)));
    segments.push(seg);
  }
  if (!segments.length) return refuse(t('The revision path {0} names no file, so it cannot be mapped to a file in the local folder.', q()));
  return { ok: true, segments };
}

/**
 * Code points that HFS+ leaves out of a name when it compares names (`.g\u200cit` is `.git`
 * there), and the byte order mark.
 */
const IGNORABLE = /[\u200b-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * The folder a segment names when it is `.git` or `.vscode` as a file system may read it: any
 * case (also `ı` and `ſ`, which upper-case to I and S), code points HFS+ ignores left out, and
 * the 8.3 short names Windows gives them (`GIT~1`, `VSCODE~1`, `VSCOD~12`…). Trailing dots and
 * spaces (`.git.`) are refused by safeSegments already.
 */
export function protectedFolder(segment: string): '.git' | '.vscode' | undefined {
  const name = segment.replace(IGNORABLE, '').toUpperCase();
  if (/^(\.GIT|GIT~\d+)$/.test(name)) return '.git';
  if (/^(\.VSCODE|VSCODE~\d+|VSCOD~\d+|VSCO~\d+)$/.test(name)) return '.vscode';
  return undefined;
}

/**
 * Why a restore must not write a revision path (checked segments, relative to the mapped
 * folder), or undefined: nothing is written inside `.git` (its hooks run, `core.fsmonitor` in
 * its config runs a program) or `.vscode` (its tasks and settings run programs when the folder
 * is opened), whatever the service lists. `raw` is the path as sent, for the message.
 */
export function restoreRefusal(raw: string, segments: readonly string[], t: Translate = english): string | undefined {
  // Every segment but the file's own name is a folder; the file may be one too (`a/.git`).
  for (const seg of segments) {
    const folder = protectedFolder(seg);
    if (folder) {
      return t(
        'The revision path {0} leads into {1} ({2}), whose files can run programs (Git hooks and settings, VS Code tasks and settings), so it is not restored. Open the revision to read it, and copy what you need by hand.',
        quotePath(raw),
        folder,
        quotePath(seg),
      );
    }
  }
  return undefined;
}

/**
 * Joins checked segments to a folder path (`/`-separated, as in a URI path) and checks the
 * result is strictly inside the folder — a second line of defence after `safeSegments`.
 */
export function joinInside(folderPath: string, segments: readonly string[]): string | undefined {
  const base = folderPath.endsWith('/') ? folderPath.slice(0, -1) : folderPath;
  const joined = `${base}/${segments.join('/')}`;
  return isInside(base, joined) ? joined : undefined;
}

/**
 * Whether `candidate` is strictly below `folder` (both `/`-separated, absolute). Compares path
 * segments after resolving `.` and `..` lexically, so `/a/b/../../c` is not inside `/a`.
 * With `caseInsensitive` (Windows, macOS default), letters compare without case.
 */
export function isInside(folder: string, candidate: string, caseInsensitive = false): boolean {
  const norm = (p: string) => {
    const out: string[] = [];
    for (const s of p.split('/')) {
      if (s === '' || s === '.') continue;
      if (s === '..') {
        if (!out.length) return undefined;
        out.pop();
      } else out.push(caseInsensitive ? s.toLowerCase() : s);
    }
    return out;
  };
  const f = norm(folder);
  const c = norm(candidate);
  if (!f || !c || c.length <= f.length) return false;
  return f.every((s, i) => s === c[i]);
}

/**
 * The revision path of a local file: its segments relative to the mapped folder, or undefined
 * when the file is not below it. Used to find a working file's revisions.
 */
export function relativeSegments(folder: string, file: string, caseInsensitive = false): string[] | undefined {
  const split = (p: string) => p.split('/').filter((s) => s !== '' && s !== '.');
  const f = split(folder);
  const c = split(file);
  if (c.length <= f.length || f.some((s) => s === '..') || c.some((s) => s === '..')) return undefined;
  const eq = (a: string, b: string) => (caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b);
  if (!f.every((s, i) => eq(s, c[i]!))) return undefined;
  return c.slice(f.length);
}

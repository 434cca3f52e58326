// Pure (no `vscode`): the address of a revision document.
//
//   site-revision:/<siteId>/<revisionId>/<display path>?p=<raw path>
//
// The path ends with the file's own name, so VS Code picks the language mode, the icon and the
// tab title from it; its folders are the display segments (empty segments dropped, control
// characters shown as U+FFFD, `.`/`..` shown as one/two dot leaders so no URI normaliser can
// resolve them). The exact raw path travels in the query, percent-encoded by us (VS Code encodes
// it once more in `toString()`), so any path — `?`, `#`, `%`, spaces, backslashes, non-ASCII,
// NUL, even lone surrogates (sent as a JSON string) — round-trips. Site and revision ids are percent-encoded path segments.
import { displaySegments } from './folders';

export const REVISION_SCHEME = 'site-revision';

export interface RevisionAddress {
  siteId: string;
  revisionId: string;
  /** The exact path the service sent. */
  path: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function uriSegment(seg: string): string {
  if (seg === '.') return '\u2024';
  if (seg === '..') return '\u2025';
  return seg;
}

/** The `path` and `query` components of a revision URI. */
export function revisionUriComponents(a: RevisionAddress): { path: string; query: string } {
  const shown = displaySegments(a.path).map(uriSegment).join('/');
  return {
    path: `/${encodeURIComponent(a.siteId)}/${encodeURIComponent(a.revisionId)}/${shown}`,
    // A path with a lone surrogate (valid JSON, invalid UTF-16) cannot be percent-encoded: it
    // travels as a JSON string instead.
    query: LONE_SURROGATE.test(a.path) ? `j=${encodeURIComponent(JSON.stringify(a.path))}` : `p=${encodeURIComponent(a.path)}`,
  };
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * Reads the components back. Returns undefined when they do not name a revision (fewer than
 * three path segments, or no raw path in the query and none in the path).
 */
export function parseRevisionUriComponents(path: string, query: string): RevisionAddress | undefined {
  const m = /^\/([^/]+)\/([^/]+)\/(.*)$/.exec(path);
  if (!m) return undefined;
  const siteId = decode(m[1]!);
  const revisionId = decode(m[2]!);
  if (!siteId || !revisionId) return undefined;
  let raw: string | undefined;
  for (const part of query.split('&')) {
    if (part.startsWith('p=')) raw = decode(part.slice(2));
    else if (part.startsWith('j=')) {
      try {
        const v: unknown = JSON.parse(decode(part.slice(2)) ?? '');
        if (typeof v === 'string') raw = v;
      } catch {
        // not a revision address
      }
    }
  }
  if (raw === undefined) {
    // No query (a hand-made URI): the display path is the best we have.
    if (!m[3]) return undefined;
    raw = m[3];
  }
  return { siteId, revisionId, path: raw };
}

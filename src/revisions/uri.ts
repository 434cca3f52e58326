// Pure (no `vscode`): the address of a revision document.
//
//   site-revision:/<display path>?s=<siteId>&r=<revisionId>&p=<raw path>
//
// The path is the file's own path, so VS Code picks the language mode, the icon, the tab title
// and the breadcrumbs from it (the ids live in the query, which is part of the URI's identity);
// its folders are the display segments (empty segments dropped, control
// characters shown as U+FFFD, `.`/`..` shown as one/two dot leaders so no URI normaliser can
// resolve them). The exact raw path travels in the query, percent-encoded by us (VS Code encodes
// it once more in `toString()`), so any path — `?`, `#`, `%`, spaces, backslashes, non-ASCII,
// NUL, even lone surrogates (sent as a JSON string) — round-trips. Site and revision ids are
// percent-encoded query values.
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
  // A path with a lone surrogate (valid JSON, invalid UTF-16) cannot be percent-encoded: it
  // travels as a JSON string instead.
  const raw = LONE_SURROGATE.test(a.path) ? `j=${encodeURIComponent(JSON.stringify(a.path))}` : `p=${encodeURIComponent(a.path)}`;
  return {
    path: `/${shown}`,
    query: `s=${encodeURIComponent(a.siteId)}&r=${encodeURIComponent(a.revisionId)}&${raw}`,
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
 * Reads the components back. Returns undefined when they do not name a revision (no site or
 * revision id in the query, or no raw path in the query and none in the path).
 */
export function parseRevisionUriComponents(path: string, query: string): RevisionAddress | undefined {
  let siteId: string | undefined;
  let revisionId: string | undefined;
  let raw: string | undefined;
  for (const part of query.split('&')) {
    if (part.startsWith('s=')) siteId = decode(part.slice(2));
    else if (part.startsWith('r=')) revisionId = decode(part.slice(2));
    else if (part.startsWith('p=')) raw = decode(part.slice(2));
    else if (part.startsWith('j=')) {
      try {
        const v: unknown = JSON.parse(decode(part.slice(2)) ?? '');
        if (typeof v === 'string') raw = v;
      } catch {
        // not a revision address
      }
    }
  }
  if (!siteId || !revisionId) return undefined;
  if (raw === undefined) {
    // No raw path (a hand-made URI): the display path is the best we have.
    const shown = path.replace(/^\/+/, '');
    if (!shown) return undefined;
    raw = shown;
  }
  return { siteId, revisionId, path: raw };
}

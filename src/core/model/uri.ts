// Pure (no `vscode`): the address of a revision document.
//
//   site-revision://revision/<display path>?{"s":<siteId>,"r":<revisionId>,"p":<raw path>,"a":<account tag>,"of":…,"when":…}
//
// The path is the file's own path, so VS Code picks the language mode, the file icon and the
// breadcrumbs from it; its folders are the display segments (empty segments dropped, control
// characters shown as U+FFFD, `.`/`..` shown as one/two dot leaders so no URI normalizer can
// resolve them). The query is a JSON object (part of the URI's identity): the site and revision
// ids, the exact raw path (any path — `?`, `#`, `%`, spaces, backslashes, non-ASCII, NUL, even
// lone surrogates, which JSON escapes — round-trips), and the two texts of the label.
//
// The label: package.json's `resourceLabelFormatters` formats `revision`-authority URIs of this
// scheme as `${query.of}${path} (${query.when})`. The workbench takes a tab's title, the name in
// Open Editors and Quick Open, and each breadcrumb from the last segment of that label, and the
// tooltip and description from the rest, so a revision's tab reads `index.php (2024-05-01 15:45,
// alice)` wherever it was opened from (the tree, the Command Palette, a link, a restored window)
// and its tooltip `Acme Corporate, revision 1003: /index.php (2024-05-01 15:45, alice)`. `when` is
// an absolute date, in local time to the minute: a relative time ("6 days ago") frozen into the
// URI would be wrong after the next reload.
//
// The account: site ids are only unique within an account, and VS Code keeps a document by its
// URI (an open tab, a document it has read, a restored window, recent files), so the query names
// the account the revision belongs to by its tag (`a`: core/model/account.ts, the same tag as the
// live files' URIs). The revision file system does not read a URI of another account than the
// one signed in (it reads as a message saying so: features/revisions/fileSystem.ts). URIs made
// before the tag (no `a`) open for the account signed in.
//
// The previous form `site-revision:/<display path>?s=…&r=…&p=…` (no authority, so no formatter:
// titled with the file name alone) still opens, for the account signed in.
//
// A side of two sites compared (Compare with Another Site's multi-file diff) is the same document
// under a path of its own, `/<site name>/<path relative to the compared folder>` (its query's `d`),
// and the authority `side`, formatted `${path} (${query.when})` without the leading `/`: the
// diff's headers name each side by its site and folder — `Marketing Drive/campaigns/spring
// (date, author)`, `Marketing Drive (…)` for a file at the root — where the file's own folder
// alone said `/` for one at the root and the site of neither side.
import { displaySegments } from './folders';
import { displayText } from '../util/text';

export const REVISION_SCHEME = 'site-revision';
/** The authority of revision URIs since titles name the revision (the label formatter applies to it only). */
export const REVISION_AUTHORITY = 'revision';
/** The authority of a side of two sites compared (see the header). */
export const REVISION_SIDE_AUTHORITY = 'side';

export interface RevisionAddress {
  siteId: string;
  revisionId: string;
  /** The exact path the service sent. */
  path: string;
  /** The URI's path when it is not the file's own (a side of two sites compared; see the header). */
  shown?: string;
  /** The tag of the account the revision belongs to (core/model/account.ts); none in URIs made before it. */
  account?: string;
}

/** The texts a revision's label is made of (see the header). */
export interface RevisionLabel {
  /** After the file name, in brackets: `2024-05-01 15:45, alice`. */
  when: string;
  /** Before the path in tooltips and descriptions: `Acme Corporate, revision 1003: `. */
  of: string;
}

function uriSegment(seg: string): string {
  if (seg === '.') return '\u2024';
  if (seg === '..') return '\u2025';
  return seg;
}

/** The path component of the revision document of a raw path. */
export function revisionUriPath(rawPath: string): string {
  return `/${displaySegments(rawPath).map(uriSegment).join('/')}`;
}

/**
 * A label text made safe for the formatter: the workbench cuts the formatted label at `/` (and `\`
 * on Windows) to find the title, so these are shown as look-alikes; control and bidirectional
 * characters as U+FFFD.
 */
export function labelText(s: string): string {
  return displayText(s).replace(/\//g, '\u2215').replace(/\\/g, '\u29f5');
}

/** The components of a revision URI (the current form). */
export function revisionUriComponents(a: RevisionAddress, label: RevisionLabel = { when: '', of: '' }): { authority: string; path: string; query: string } {
  return {
    authority: a.shown !== undefined ? REVISION_SIDE_AUTHORITY : REVISION_AUTHORITY,
    path: a.shown ?? revisionUriPath(a.path),
    query: JSON.stringify({ s: a.siteId, r: a.revisionId, p: a.path, ...(a.account !== undefined ? { a: a.account } : {}), of: labelText(label.of), when: labelText(label.when), ...(a.shown !== undefined ? { d: a.shown } : {}) }),
  };
}

/** The path of a side of two sites compared: the site's name, then the display path relative to the compared folder. */
export function sidePath(siteName: string, rel: string): string {
  return `/${labelText(siteName).replace(/^\.{1,2}$/, (d) => uriSegment(d)) || '\u2014'}${revisionUriPath(rel)}`;
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** The previous form's query: `s=…&r=…&p=…` (or `j=` a JSON string for a path with a lone surrogate), percent-encoded values. */
function parseLegacyQuery(query: string): { siteId?: string; revisionId?: string; raw?: string } {
  const out: { siteId?: string; revisionId?: string; raw?: string } = {};
  for (const part of query.split('&')) {
    if (part.startsWith('s=')) out.siteId = decode(part.slice(2));
    else if (part.startsWith('r=')) out.revisionId = decode(part.slice(2));
    else if (part.startsWith('p=')) out.raw = decode(part.slice(2));
    else if (part.startsWith('j=')) {
      try {
        const v: unknown = JSON.parse(decode(part.slice(2)) ?? '');
        if (typeof v === 'string') out.raw = v;
      } catch {
        // not a revision address
      }
    }
  }
  return out;
}

function parseJsonQuery(query: string): { siteId?: string; revisionId?: string; raw?: string; shown?: string; account?: string } {
  let v: unknown;
  try {
    v = JSON.parse(query);
  } catch {
    return {};
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  const o = v as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
  // An account that is not a string is kept as '', which no account's tag is (12 hex digits):
  // such a URI opens for none. (Not its JSON text: the number 123456789012 would read as a tag.)
  const account = o.a === undefined ? undefined : typeof o.a === 'string' ? o.a : '';
  return { siteId: str(o.s), revisionId: str(o.r), raw: str(o.p), shown: str(o.d), account };
}

/**
 * Reads the components back (either form). Returns undefined when they do not name a revision (no
 * site or revision id, or no raw path in the query and none in the path).
 */
export function parseRevisionUriComponents(path: string, query: string): RevisionAddress | undefined {
  const q: { siteId?: string; revisionId?: string; raw?: string; shown?: string; account?: string } = query.startsWith('{') ? parseJsonQuery(query) : parseLegacyQuery(query);
  const { siteId, revisionId, raw } = q;
  if (!siteId || !revisionId) return undefined;
  const account = q.account !== undefined ? { account: q.account } : {};
  if (raw !== undefined) return { siteId, revisionId, path: raw, ...(q.shown !== undefined ? { shown: q.shown } : {}), ...account };
  // No raw path (a hand-made URI): the display path is the best we have.
  const shown = path.replace(/^\/+/, '');
  return shown ? { siteId, revisionId, path: shown, ...account } : undefined;
}

/**
 * Whether a revision address may be opened while `signedIn` (an account tag, or undefined when
 * no one is) is signed in: one without an account (made before the tag) opens for whoever is;
 * one with an account, only for that account.
 */
export function isForAccount(a: RevisionAddress, signedIn: string | undefined): boolean {
  return a.account === undefined || (!!a.account && a.account === signedIn);
}

/**
 * Whether a URI with these components is the revision document itself, rather than one of its
 * folders (the workbench asks the file system about the breadcrumbs' folders with the document's
 * query kept): its path is the display path of the raw path it names.
 */
export function isRevisionDocument(path: string, a: RevisionAddress): boolean {
  return path === (a.shown ?? revisionUriPath(a.path));
}

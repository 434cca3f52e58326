// Pure (no `vscode`): the address of a file or folder on a site's live server.
//
//   site-live://live/<root-relative path>?{"s":<siteId>,"a":<account tag>,"n":<site name>}
//
// - The path is the entry's path under the site's `dir` (the live file system's root), its
//   segments exactly as the server names them: VS Code's URI encodes spaces, `#`, `%` and
//   non-ASCII characters in the path, and decodes them back (test/unit/live.address.test.ts,
//   and the host suite round-trips the special names of the real servers).
// - The query is part of the URI's identity, and the workbench keeps it on every child it makes
//   with joinPath (the Explorer of a live workspace folder, the breadcrumbs): the site id, a tag
//   of the account (the first 12 hex digits of SHA-256 of `serviceUrl|email`, so that a URI kept
//   from one account never opens another account's site of the same id, and the URI names no
//   user), and the site's name for the label.
// - No credential is ever in it: not the user, not the host, not a password.
//
// The label: package.json's `resourceLabelFormatters` formats `live`-authority URIs of this
// scheme as `${path} (live · ${query.n})`: a live file's tab reads `index.php (live · Acme
// Corporate)`, its tooltip `/index.php (live · Acme Corporate)`.
import { labelText } from '../../core/model/uri';

export const LIVE_SCHEME = 'site-live';
export const LIVE_AUTHORITY = 'live';

export interface LiveAddress {
  siteId: string;
  /** The account tag (core/model/account.ts accountTag). */
  account: string;
  /** Root-relative path: '' is the root; segments joined by '/', as the server names them. */
  path: string;
}

/** The components of the URI of an address; `siteName` goes into the label only. */
export function liveUriComponents(a: LiveAddress, siteName: string): { scheme: string; authority: string; path: string; query: string } {
  return {
    scheme: LIVE_SCHEME,
    authority: LIVE_AUTHORITY,
    path: `/${a.path}`,
    query: JSON.stringify({ s: a.siteId, a: a.account, n: labelText(siteName) }),
  };
}

/** Reads the components back; undefined when they do not name a live entry. */
export function parseLiveUriComponents(authority: string, path: string, query: string): (LiveAddress & { siteName: string }) | undefined {
  if (authority !== LIVE_AUTHORITY) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(query);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.s !== 'string' || !o.s || typeof o.a !== 'string' || !o.a) return undefined;
  const rel = path.replace(/^\/+/, '').replace(/\/+$/, '');
  // Empty, `.` and `..` segments never name a live entry (the core refuses them too).
  if (rel && rel.split('/').some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return { siteId: o.s, account: o.a, path: rel, siteName: typeof o.n === 'string' ? o.n : '' };
}

/** The parent folder of a root-relative path ('' for a top-level entry). */
export function parentPath(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** The last segment of a root-relative path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** `a/b` + `c` → `a/b/c`. */
export function joinPath(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

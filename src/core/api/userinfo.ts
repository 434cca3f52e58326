// Pure (no `vscode`): the one place that takes `user:password@` out of a site's URLs and hosts.
// Every place that keeps, shows or hands out a site goes through here: the disk cache
// (src/core/store/lists.ts), the Sites view's description and tooltip, Copy Site Details, the quick
// picks, and the language-model tools. A token in a git URL is a password too, and a service
// user may put `user:password@` in a host field as well as in a URL.
import type { Site } from './types';

/** The fields of a site that hold URLs or hosts. */
export const SITE_URL_FIELDS = ['domain', 'web_url', 'git_url', 'db_phpmyadmin'] as const;
export type SiteUrlField = (typeof SITE_URL_FIELDS)[number];

const SCHEME = /[a-z][a-z0-9+.-]*:\/\//gi;
const STARTS_WITH_SCHEME = /^\s*[a-z][a-z0-9+.-]*:\/\//i;

/**
 * `rest` starting where a URL's authority starts, without its userinfo. The authority ends at the
 * first `/`, `?`, `#`, `\` or white space, as URL parsers read it; its userinfo ends at its last
 * `@` (a raw `@` in a password is read as part of it). A password with a raw `/`, `?` or `#`
 * makes the part before it look like `host:port` with a port that is not a number: then the
 * userinfo ends at the next `@` of the same word (`https://u:pa/ss@host` → `https://host`).
 */
function afterUserinfo(rest: string): string {
  // Each round removes at least one character; a few rounds cover `@`s behind `/` in a password.
  for (let round = 0; round < 8; round++) {
    const end = rest.search(/[\s/?#\\]|$/);
    const authority = rest.slice(0, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      rest = rest.slice(at + 1);
      continue;
    }
    // `name:` followed by something other than a port number (an IPv6 host is in brackets).
    if (!authority.startsWith('[') && /:(?!\d*$)/.test(authority)) {
      const wordEnd = rest.search(/\s|$/);
      const next = rest.indexOf('@');
      if (next >= 0 && next < wordEnd) {
        rest = rest.slice(next + 1);
        continue;
      }
    }
    break;
  }
  return rest;
}

/**
 * `text` without any `user:password@` (or `user@`, or a bare token before `@`): in every
 * `scheme://` URL it holds, and at its start when it has no scheme (`user:pass@ftp.example.com`,
 * `//user@host`). Percent-encoded characters stay as they are; nothing else changes.
 */
export function withoutUserinfo(text: string): string {
  let s = text;
  if (!STARTS_WITH_SCHEME.test(s)) {
    const lead = /^\s*(?:\/\/)?/.exec(s)![0].length;
    s = s.slice(0, lead) + afterUserinfo(s.slice(lead));
  }
  SCHEME.lastIndex = 0;
  for (let m = SCHEME.exec(s); m; m = SCHEME.exec(s)) {
    const at = m.index + m[0].length;
    s = s.slice(0, at) + afterUserinfo(s.slice(at));
    SCHEME.lastIndex = at;
  }
  return s;
}

/** A site (or a cached copy) with the userinfo taken out of its URL and host fields; the rest as it is. */
export function withoutSiteUserinfo<T extends Partial<Pick<Site, SiteUrlField>>>(site: T): T {
  const out = { ...site };
  for (const f of SITE_URL_FIELDS) {
    const v = site[f];
    if (typeof v === 'string' && v) out[f] = withoutUserinfo(v) as T[typeof f];
  }
  return out;
}

// Pure (no `vscode`): the one place that takes `user:password@` out of a site's URLs and hosts.
// Every place that keeps, shows or hands out a site goes through here: the disk cache
// (src/core/store/lists.ts), the Sites view's description and tooltip, Copy Site Details, the quick
// picks, and the language-model tools. A token in a git URL is a password too, and a service
// user may put `user:password@` in a host field as well as in a URL.
//
// What counts as userinfo is what a WHATWG URL parser (Node's `URL`, a browser, VS Code's links)
// reads as userinfo, and a little more: the parser drops every tab and line break before it reads
// (`ht<TAB>tps://u:p<LF>w@host`), and after a special scheme (http, https, ws, wss, ftp, file) it
// skips any run of `/` and `\`, none at all included (`https:/u:p@host`, `https:\\u:p@host`,
// `https:u:p@host`). After any other scheme the parser reads an authority only after `//`; we read
// one after any two of `/` and `\` (`sftp:\\u:p@host`), and a field without a scheme from its start
// (`user:pass@ftp.example.com`, `\\u:p@host`).
import type { Site } from './types';

/** The fields of a site that hold URLs or hosts. */
export const SITE_URL_FIELDS = ['domain', 'web_url', 'git_url', 'db_phpmyadmin'] as const;
export type SiteUrlField = (typeof SITE_URL_FIELDS)[number];

/** The schemes after which a WHATWG parser reads an authority whatever slashes follow (or none). */
const SPECIAL = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);
/** A scheme where one may start (not inside a longer scheme-like word). */
const SCHEME = /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:/gi;
/** What the parser drops anywhere in its input before reading it. */
const DROPPED = /[\t\n\r]/;
/** What the parser strips from both ends: C0 controls and space. */
const C0_OR_SPACE = /[\x00-\x20]/;

/**
 * Where the userinfo of the authority starting at `start` of `v` ends (the index after its `@`),
 * or -1 when it has none. The authority ends at the first `/`, `?` or `#` (and `\` after a special
 * scheme), as URL parsers read it, spaces included (the parser percent-encodes them in a
 * userinfo); its userinfo ends at its last `@` (a raw `@` in a password is read as part of it). A
 * password with a raw `/`, `?` or `#` makes the part before it look like `host:port` with a port
 * that is not a number: then the userinfo ends at the next `@` of the same word
 * (`https://u:pa/ss@host` → `https://host`).
 */
function userinfoEnd(v: string, start: number, special: boolean): number {
  const stop = special ? /[/?#\\]/g : /[/?#]/g;
  let from = start;
  let found = -1;
  // Each round moves past at least one `@`; a few rounds cover `@`s behind `/` in a password.
  for (let round = 0; round < 8; round++) {
    stop.lastIndex = from;
    const m = stop.exec(v);
    const end = m ? m.index : v.length;
    const authority = v.slice(from, end);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      found = from = from + at + 1;
      continue;
    }
    // `name:` followed by something other than a port number (an IPv6 host is in brackets).
    if (!authority.startsWith('[') && /:(?!\d*$)/.test(authority)) {
      const wordEnd = v.slice(from).search(/\s|$/) + from;
      const next = v.indexOf('@', from);
      if (next >= 0 && next < wordEnd) {
        found = from = next + 1;
        continue;
      }
    }
    break;
  }
  return found;
}

/**
 * `text` without any `user:password@` (or `user@`, or a bare token before `@`): in every URL it
 * holds, however its slashes are spelled, and at its start when it has no scheme
 * (`user:pass@ftp.example.com`, `//user@host`). The tabs and line breaks inside a removed userinfo
 * go with it; percent-encoded characters stay as they are; nothing else changes.
 */
export function withoutUserinfo(text: string): string {
  // Read what the parser reads: `v` is `text` without tabs and line breaks, `at[i]` where v[i] is in `text`.
  let v = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (DROPPED.test(text[i]!)) continue;
    v += text[i];
    at.push(i);
  }
  const cuts: [number, number][] = [];
  const cut = (start: number, special: boolean): void => {
    const end = userinfoEnd(v, start, special);
    if (end > start) cuts.push([start, end]);
  };
  let lead = 0;
  while (lead < v.length && C0_OR_SPACE.test(v[lead]!)) lead++;
  let startsWithScheme = false;
  SCHEME.lastIndex = 0;
  for (let m = SCHEME.exec(v); m; m = SCHEME.exec(v)) {
    const afterColon = m.index + m[0].length;
    const special = SPECIAL.has(m[0].slice(0, -1).toLowerCase());
    let start = afterColon;
    while (v[start] === '/' || v[start] === '\\') start++;
    // Any other scheme takes two: `sftp://`, and its slips `sftp:\\`, `sftp:/\` (not `mailto:x@y`, `host:port`, `user:pass@host`).
    if (!special && start < afterColon + 2) continue;
    if (m.index === lead) startsWithScheme = true;
    cut(start, special);
    // After `//` the parser reads a `\` as part of the authority (`s3://\\:pw@host`): cut from there too.
    if (!special && start > afterColon + 2 && v.startsWith('//', afterColon)) cut(afterColon + 2, false);
  }
  if (!startsWithScheme) {
    let start = lead;
    while (v[start] === '/' || v[start] === '\\') start++;
    cut(start, false);
  }
  if (!cuts.length) return text;
  // Remove each cut from `text`, with the tabs and line breaks between its first and last character.
  const drop = new Uint8Array(text.length);
  for (const [s, e] of cuts) drop.fill(1, at[s]!, at[e - 1]! + 1);
  let out = '';
  for (let i = 0; i < text.length; i++) if (!drop[i]) out += text[i];
  return out;
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

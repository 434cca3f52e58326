// The service URL: the one parser both the client and the sign-in use, the loopback rule for
// plain http, and the request target of each call. No I/O, no vscode.

/** What parseServiceUrl found wrong with an input it cannot use at all. */
export type ServiceUrlError = 'not-a-url' | 'not-http';

/** A usable service URL and what was dropped from the input to get it. */
export interface ServiceUrl {
  /** http(s)://host[:port] */
  origin: string;
  /** The path without trailing slashes ('' for none). */
  prefix: string;
  /** origin + prefix: the normalized base URL. */
  base: string;
  /** The base as a URL (no userinfo, query or fragment). */
  url: URL;
  /** Plain http to a host other than this machine: credentials must never go there. */
  insecure: boolean;
  /** The input carried user:password (dropped). */
  hadCredentials: boolean;
  /** The input carried a query or a fragment (dropped). */
  hadQuery: boolean;
}

/**
 * Parses a service URL: http(s) only; userinfo, query and fragment are dropped (and reported),
 * a path prefix is kept without its trailing slashes. The client accepts whatever this accepts;
 * the sign-in refuses what it reports as dropped, and plain http to another machine.
 */
export function parseServiceUrl(raw: string): ServiceUrl | { error: ServiceUrlError; scheme?: string } {
  let u: URL;
  try {
    u = new URL(String(raw).trim());
  } catch {
    return { error: 'not-a-url' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: 'not-http', scheme: u.protocol };
  const hadCredentials = u.username !== '' || u.password !== '';
  const hadQuery = u.search !== '' || u.hash !== '';
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  const prefix = u.pathname.replace(/\/+$/, '');
  return {
    origin: u.origin,
    prefix,
    base: `${u.origin}${prefix}`,
    url: u,
    insecure: u.protocol === 'http:' && !isLoopbackHost(u.hostname),
    hadCredentials,
    hadQuery,
  };
}

/**
 * The client's form of parseServiceUrl: the parsed URL, or a TypeError in English (the message
 * never repeats the URL, which might carry a password in its userinfo).
 */
export function requireServiceUrl(raw: string): ServiceUrl {
  const p = parseServiceUrl(raw);
  if ('error' in p) {
    throw new TypeError(
      p.error === 'not-a-url'
        ? 'The service URL is not a valid URL (expected e.g. https://example.com).'
        : `The service URL must start with https:// (or http:// for this machine), not ${p.scheme}//.`,
    );
  }
  return p;
}

/** True for localhost, 127.0.0.0/8 and ::1 (the hosts to which plain http may carry credentials). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // IPv4-mapped loopback as normalized by URL: ::ffff:7f00:1 … ::ffff:7fff:ffff
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
}

/**
 * Path prefix + path + query: the request target, every query value percent-encoded. Besides
 * what encodeURIComponent encodes, `'` is encoded too, as the URL parser does in the query of an
 * http(s) URL: the target is exactly what goes on the wire.
 */
export function serviceTarget(prefix: string, path: string, query: readonly (readonly [string, string])[]): string {
  let qs = '';
  for (const [k, v] of query) qs += `${qs ? '&' : '?'}${encodeQuery(k)}=${encodeQuery(v)}`;
  return `${prefix}${path}${qs}`;
}

function encodeQuery(v: string): string {
  const e = encodeURIComponent(v);
  return e.includes("'") ? e.replace(/'/g, '%27') : e;
}

// Which proxy a request to the service goes through.
//
// VS Code patches Node's http/https modules so that extensions follow its proxy settings, but
// the bundled undici never sees that patching. So the extension makes the decision itself, from
// the same inputs VS Code uses:
//
//   http.proxy               the proxy URL; when empty, the environment's https_proxy / http_proxy
//   http.noProxy             hosts that go direct (merged with the environment's no_proxy)
//   http.proxyStrictSSL      false: certificates are not verified (proxy and service, via a proxy)
//   http.proxyAuthorization  the Proxy-Authorization header value (otherwise the proxy URL's user:password)
//   http.proxySupport        "off": no proxy at all
//
// Everything here is a pure function of (target URL, settings, environment): no `vscode`, no
// undici. src/core/api/agents.ts builds the undici ProxyAgent from the route, on the first request.
import { BlockList, isIP } from 'node:net';
import type { ProxyResolver, ProxyRoute } from '../api/agents';
import { isLoopbackHost } from '../api/url';

export interface ProxySettings {
  /** `http.proxy`; empty = from the environment. */
  proxy: string;
  /** `http.noProxy`. */
  noProxy: readonly string[];
  /** `http.proxyStrictSSL` (VS Code's default: true). */
  strictSSL: boolean;
  /** `http.proxyAuthorization`: the Proxy-Authorization header value. */
  authorization?: string;
  /** `http.proxySupport`: "off" turns proxying off entirely. */
  support?: string;
}

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** Why a request goes direct. */
export type DirectReason = 'no proxy configured' | 'http.proxySupport is off' | 'loopback' | 'noProxy';

export type ProxyDecision =
  | { kind: 'direct'; reason: DirectReason; /** the noProxy entry that matched */ entry?: string }
  | {
      kind: 'proxy';
      /** The proxy URL as given, scheme added when missing (may carry user:password: never log it). */
      url: string;
      /** scheme://host:port of the proxy, without credentials: safe to log. */
      display: string;
      /** Where the URL came from: `http.proxy` or the environment variable's name. */
      source: string;
      strictSSL: boolean;
      authorization?: string;
    }
  | { kind: 'invalid'; /** says what is wrong, without the proxy's credentials */ reason: string; source: string };

/** The token that removes the implicit loopback bypass (as in Chromium's bypass rules). */
export const NO_LOOPBACK_BYPASS = '<-loopback>';

/**
 * Decides how a request to `target` travels. Order: http.proxySupport "off" → direct; loopback
 * targets → direct (unless noProxy holds `<-loopback>`); a matching noProxy entry (setting or
 * no_proxy) → direct; otherwise http.proxy, or the environment (https targets: https_proxy,
 * HTTPS_PROXY, then http_proxy, HTTP_PROXY; http targets: http_proxy, HTTP_PROXY).
 */
export function decideProxy(target: string | URL, settings: ProxySettings, env: ProxyEnv = {}): ProxyDecision {
  const url = typeof target === 'string' ? new URL(target) : target;
  if (String(settings.support ?? '').toLowerCase() === 'off') return { kind: 'direct', reason: 'http.proxySupport is off' };

  const noProxy = [...settings.noProxy.flatMap((e) => splitList(String(e))), ...splitList(envValue(env, 'no_proxy') ?? '')];
  const host = bareHost(url.hostname);
  if (isLoopbackHost(host) && !noProxy.some((e) => e.toLowerCase() === NO_LOOPBACK_BYPASS)) return { kind: 'direct', reason: 'loopback' };
  const entry = noProxy.find((e) => matchesNoProxy(url, e));
  if (entry !== undefined) return { kind: 'direct', reason: 'noProxy', entry };

  let raw = settings.proxy.trim();
  let source = 'http.proxy';
  if (!raw) {
    const names = url.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
    for (const name of names) {
      const v = env[name]?.trim();
      if (v) {
        raw = v;
        source = name;
        break;
      }
    }
  }
  if (!raw) return { kind: 'direct', reason: 'no proxy configured' };

  const parsed = parseProxyUrl(raw);
  if ('error' in parsed) return { kind: 'invalid', reason: `${source}: ${parsed.error}`, source };
  const authorization = settings.authorization?.trim() || undefined;
  return { kind: 'proxy', url: parsed.url.href, display: displayProxy(parsed.url), source, strictSSL: settings.strictSSL, ...(authorization ? { authorization } : {}) };
}

/** The route src/core/api/http.ts needs; throws a TypeError (message free of credentials) for an unusable proxy. */
export function routeOf(decision: ProxyDecision): ProxyRoute | undefined {
  if (decision.kind === 'direct') return undefined;
  if (decision.kind === 'invalid') throw new TypeError(`The proxy setting is not usable (${decision.reason}); fix it or clear it to connect directly.`);
  return { url: decision.url, display: decision.display, strictSSL: decision.strictSSL, ...(decision.authorization ? { authorization: decision.authorization } : {}) };
}

/**
 * A resolver for ClientOptions.proxy that reads the settings on every request (so changes to
 * http.proxy apply without rebuilding the client). `onChange` hears each new decision, described
 * without credentials, for the log.
 */
export function proxyResolver(read: () => ProxySettings, env: ProxyEnv = process.env, onChange?: (description: string) => void): ProxyResolver {
  let last: string | undefined;
  return (target: URL) => {
    const decision = decideProxy(target, read(), env);
    const text = describeDecision(target, decision);
    if (text !== last) {
      last = text;
      onChange?.(text);
    }
    return routeOf(decision);
  };
}

/** One line for the log: never the proxy's credentials or the Proxy-Authorization value. */
export function describeDecision(target: URL, d: ProxyDecision): string {
  const origin = target.origin;
  if (d.kind === 'proxy') return `Requests to ${origin} go through the proxy ${d.display} (from ${d.source}${d.strictSSL ? '' : '; certificates not verified: http.proxyStrictSSL is false'}).`;
  if (d.kind === 'invalid') return `The proxy for ${origin} is not usable: ${d.reason}.`;
  if (d.reason === 'noProxy') return `Requests to ${origin} go direct (no proxy: matches "${d.entry ?? ''}").`;
  if (d.reason === 'loopback') return `Requests to ${origin} go direct (this machine).`;
  return `Requests to ${origin} go direct (${d.reason}).`;
}

/**
 * Parses a proxy URL; a bare `host:port` means http. Only http and https proxies are supported.
 * Errors never repeat the URL (it may carry a password).
 */
export function parseProxyUrl(raw: string): { url: URL } | { error: string } {
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    return { error: 'not a valid URL (expected e.g. http://proxy.example.com:3128)' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `${u.protocol.replace(/:$/, '')} proxies are not supported (use an http:// or https:// proxy)` };
  if (!u.hostname) return { error: 'the proxy URL has no host' };
  u.pathname = '/';
  u.search = '';
  u.hash = '';
  return { url: u };
}

/** scheme://host:port of a proxy URL, without user:password. */
export function displayProxy(u: URL): string {
  return `${u.protocol}//${u.host}`;
}

/** Splits a no_proxy-style list (commas and/or white space). */
export function splitList(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function envValue(env: ProxyEnv, lower: string): string | undefined {
  const v = env[lower] ?? env[lower.toUpperCase()];
  return v?.trim() ? v : undefined;
}

function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/**
 * Whether one noProxy / no_proxy entry matches the target:
 *   `*`                   every host
 *   `example.com`         example.com and its subdomains
 *   `.example.com`, `*.example.com`   subdomains of example.com only
 *   `host:port`, `[::1]:8080`         that host on that port only
 *   `10.0.0.0/8`, `fd00::/8`          addresses in the range (for IP-address targets)
 *   `192.168.1.*`         a `*` elsewhere is a wildcard over the host name
 *   `<local>`             host names without a dot
 * Case and a trailing dot are ignored; an entry without a port matches every port.
 */
export function matchesNoProxy(target: URL, rawEntry: string): boolean {
  let entry = rawEntry.trim().toLowerCase();
  if (!entry || entry === NO_LOOPBACK_BYPASS) return false;
  if (entry === '*') return true;
  const host = bareHost(target.hostname);
  const port = Number(target.port || defaultPort(target.protocol));
  if (entry === '<local>') return !host.includes('.') && isIP(host) === 0;
  // A scheme in front is tolerated (and ignored).
  entry = entry.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/\/+$/, '');

  // CIDR ranges.
  const cidr = /^\[?([0-9a-f:.]+)\]?\/(\d{1,3})$/.exec(entry);
  if (cidr) {
    const family = isIP(cidr[1]);
    const hostFamily = isIP(host);
    if (!family || !hostFamily) return false;
    const prefix = Number(cidr[2]);
    if (prefix > (family === 4 ? 32 : 128)) return false;
    const list = new BlockList();
    list.addSubnet(cidr[1], prefix, family === 4 ? 'ipv4' : 'ipv6');
    return list.check(host, hostFamily === 4 ? 'ipv4' : 'ipv6');
  }

  // Split off a port: [v6]:port, host:port (exactly one colon); bare IPv6 has no port.
  let entryHost = entry;
  let entryPort: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    entryHost = bracketed[1];
    entryPort = bracketed[2] ? Number(bracketed[2]) : undefined;
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    const [h, p] = entry.split(':');
    if (!/^\d+$/.test(p)) return false;
    entryHost = h;
    entryPort = Number(p);
  }
  if (entryPort !== undefined && entryPort !== port) return false;
  entryHost = entryHost.replace(/\.$/, '');
  if (!entryHost) return false;

  // IP addresses: equal as addresses (so ::1 and 0:0:0:0:0:0:0:1 match).
  const entryFamily = isIP(entryHost);
  if (entryFamily) {
    const hostFamily = isIP(host);
    if (hostFamily !== entryFamily) return false;
    const list = new BlockList();
    list.addAddress(entryHost, entryFamily === 4 ? 'ipv4' : 'ipv6');
    return list.check(host, hostFamily === 4 ? 'ipv4' : 'ipv6');
  }

  if (entryHost.startsWith('*.')) entryHost = entryHost.slice(1);
  if (entryHost.startsWith('.')) return host.endsWith(entryHost) && host.length > entryHost.length;
  if (entryHost.includes('*')) {
    const re = new RegExp(`^${entryHost.split('*').map(escapeRegExp).join('.*')}$`);
    return re.test(host);
  }
  return host === entryHost || host.endsWith(`.${entryHost}`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

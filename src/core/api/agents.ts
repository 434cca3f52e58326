// Agent lifecycle of the service client: which undici dispatcher carries a request, built on
// first use and closed with the client.
//
// - undici is loaded lazily (`await import('undici')`) on the first request, never when this
//   module is imported, so activating the extension does not pay for it.
// - One undici Agent per client (keep-alive, one pool per origin). When the client has a proxy
//   resolver (src/core/net/proxy.ts), each request asks it for a route and goes through an undici
//   ProxyAgent for that proxy instead (one at a time: a changed route replaces it, and the old
//   one is closed behind the requests still on it).
// - Plain http goes through a proxy only when the proxy is on this machine too: the proxy would
//   see the form body, and the password in it.
// - TLS connections, direct or through a proxy, trust the same set of CAs (./trust.ts), worked
//   out on the first https request.

import type { Dispatcher } from 'undici';
import { InsecureTransportError, NetworkError } from './errors';
import { trustFor, type Trust } from './trust';
import { isLoopbackHost } from './url';
import type { Redactor } from '../util/redact';
import { loadOnce } from '../util/loadOnce';

/** What the client takes from undici (./undiciParts.ts: its Agent and ProxyAgent, not all of undici). */
export type Undici = typeof import('./undiciParts');

/** Loads undici's parts once, on first use (in the extension's build, a chunk of its own: esbuild.mjs). */
export const loadUndici: () => Promise<Undici> = loadOnce(() =>
  import('./undiciParts.js').then((m) => {
    // Compiled to CommonJS (the unit tests), the module comes back as its `default`.
    const mod = m as Undici & { default?: Undici };
    return typeof mod.Agent === 'function' ? mod : (mod.default as Undici);
  }),
);

/** A request's way through an HTTP(S) proxy. */
export interface ProxyRoute {
  /** http(s)://[user:password@]host:port of the proxy (userinfo becomes Proxy-Authorization: Basic). */
  url: string;
  /** The proxy without credentials, for messages and the log; default: derived from `url`. */
  display?: string;
  /** false: certificates are not verified, neither the proxy's nor (through it) the service's. */
  strictSSL: boolean;
  /** Proxy-Authorization header value (takes precedence over the URL's user:password). */
  authorization?: string;
}

/**
 * Chooses the route of each request: a ProxyRoute, or undefined to go direct. May throw a
 * TypeError (a message free of credentials) when the proxy configuration is unusable.
 */
export type ProxyResolver = (target: URL) => ProxyRoute | undefined;

export interface AgentOptions {
  /** Extra PEM CA certificate(s) trusted besides the default ones. */
  ca?: string;
  /** Trust the operating system's certificate store too (see ./trust.ts). */
  systemCertificates?: boolean;
  /** Told once per client, on its first https connection, which CAs it trusts (for the log). */
  onTrust?: (stores: readonly string[]) => void;
  rejectUnauthorized: boolean;
  /** A dispatcher of the caller's, used for every request instead of the own agents (never closed here). */
  dispatcher?: unknown;
  proxy?: ProxyResolver;
}

/** The dispatcher of one request, and the proxy it goes through (without credentials). */
export interface Route {
  dispatcher: Dispatcher;
  via?: string;
}

const KEEP_ALIVE = { keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 };

export class Agents {
  private agent: Dispatcher | undefined;
  private proxy: { key: string; agent: Dispatcher } | undefined;
  private trust: Trust | undefined;

  constructor(private readonly opts: AgentOptions) {}

  /**
   * The dispatcher for a request to `url`: the caller's, a ProxyAgent for the route the resolver
   * picks, or the own Agent. Throws a NetworkError (unusable proxy configuration) or an
   * InsecureTransportError (plain http through a proxy on another machine).
   */
  route(undici: Undici, operation: string, url: string, redact: Redactor): Route {
    if (this.opts.dispatcher) return { dispatcher: this.opts.dispatcher as Dispatcher };
    let route: ProxyRoute | undefined;
    if (this.opts.proxy) {
      try {
        route = this.opts.proxy(new URL(url));
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        throw new NetworkError(operation, 'EPROXYCONFIG', redact(msg.replace(/\.$/, '')), e);
      }
    }
    const https = url.startsWith('https:');
    if (!route) return { dispatcher: this.directAgent(undici, https) };

    const proxyUrl = new URL(route.url);
    const display = route.display ?? `${proxyUrl.protocol}//${proxyUrl.host}`;
    const target = new URL(url);
    if (target.protocol === 'http:' && !isLoopbackHost(proxyUrl.hostname)) {
      throw new InsecureTransportError(operation, `${target.origin} through the proxy ${display}`);
    }
    return { dispatcher: this.proxyAgent(undici, route, https), via: display };
  }

  /** The client's own Agent; `https`: the service's origin is https (then its CAs are worked out). */
  private directAgent(undici: Undici, https: boolean): Dispatcher {
    this.agent ??= new undici.Agent({ connect: this.tlsOptions(this.opts.rejectUnauthorized, https), ...KEEP_ALIVE });
    return this.agent;
  }

  private proxyAgent(undici: Undici, route: ProxyRoute, https: boolean): Dispatcher {
    const key = JSON.stringify([route.url, route.strictSSL, route.authorization ?? '']);
    if (this.proxy?.key !== key) {
      const previous = this.proxy?.agent;
      const agent = new undici.ProxyAgent({
        uri: route.url,
        ...(route.authorization ? { token: route.authorization } : {}),
        // Plain http (to this machine only) is forwarded in absolute form, as curl does; https is tunnelled with CONNECT.
        proxyTunnel: false,
        proxyTls: this.tlsOptions(route.strictSSL, route.url.startsWith('https:')),
        requestTls: this.tlsOptions(route.strictSSL && this.opts.rejectUnauthorized, https),
        ...KEEP_ALIVE,
      });
      this.proxy = { key, agent };
      // Requests in flight on the previous proxy finish; it is closed behind them.
      // closeDispatcher never rejects (it destroys what does not close).
      if (previous) closeDispatcher(previous).catch(() => undefined);
    }
    return this.proxy.agent;
  }

  /** TLS options of a connection; `tls`: whether it will be TLS at all (otherwise no CAs are read). */
  private tlsOptions(verify: boolean, tls: boolean): Record<string, unknown> {
    if (!tls) return { rejectUnauthorized: verify };
    if (!this.trust) {
      this.trust = trustFor(this.opts);
      try {
        this.opts.onTrust?.(this.trust.stores);
      } catch {
        // a failing logger must not break requests
      }
    }
    const { secureContext } = this.trust;
    return { rejectUnauthorized: verify, ...(secureContext ? { secureContext } : {}) };
  }

  /** Closes the Agent and the ProxyAgent (waits up to 2 s for requests in flight, then destroys them). A later request makes new ones. */
  async close(): Promise<void> {
    const agents = [this.agent, this.proxy?.agent].filter((a): a is Dispatcher => !!a);
    this.agent = undefined;
    this.proxy = undefined;
    await Promise.all(agents.map(closeDispatcher));
  }
}

/** Closes a dispatcher gracefully (up to 2 s for requests in flight), then destroys it. */
async function closeDispatcher(agent: Dispatcher): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = agent.close().then(() => true, () => false);
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 2000)));
  const closed = await Promise.race([graceful, late]);
  clearTimeout(timer);
  if (!closed) await agent.destroy().catch(() => undefined);
}

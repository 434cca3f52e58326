// A CONNECT tunnel through an HTTP(S) proxy, for WebDAV and S3 (./http.ts): the same proxy
// decision as the service client's (LiveOptions.proxy is src/core/net/proxy.ts's resolver: http.proxy,
// the environment, noProxy, loopback direct), and the site's own trust rules on top (the TLS
// to the site starts inside the tunnel, so its certificate is checked, or pinned, as when direct).
// A tunnel for plain http as well: the proxy then sees host:port and bytes, not the request line.
// Node's http module sends the CONNECT; nothing of undici's proxy machinery is needed.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { SecureContext } from 'node:tls';
import { LiveError } from './types';
import { cancelled, netError, timedOut } from './util';

/** A proxy route as LiveOptions.proxy gives it (src/core/api/agents.ts ProxyRoute). */
export interface TunnelRoute {
  /** http(s)://[user:password@]host:port (userinfo becomes Proxy-Authorization: Basic). */
  url: string;
  /** false: the proxy's own certificate (an https proxy) is not verified. */
  strictSSL: boolean;
  /** Proxy-Authorization value (before the URL's userinfo). */
  authorization?: string;
}

/** The proxy as a person may see it: scheme://host:port, never its credentials. */
export function proxyDisplay(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the proxy';
  }
}

/** The Proxy-Authorization header of a route, if any. */
function authorizationOf(route: TunnelRoute, u: URL): string | undefined {
  if (route.authorization) return route.authorization;
  if (!u.username) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
}

/**
 * Opens a tunnel to host:port through the route's proxy; resolves with the socket whose bytes
 * reach the target (TLS, for an https site, is the caller's to start on it).
 */
export function openTunnel(route: TunnelRoute, host: string, port: number, o: { signal: AbortSignal; timeoutMs: number; secureContext?: SecureContext }): Promise<Socket> {
  let u: URL;
  try {
    u = new URL(route.url);
  } catch {
    return Promise.reject(new LiveError('config', 'connect', 'The proxy setting is not a URL.', { next: 'Fix http.proxy, or clear it to connect directly.' }));
  }
  const display = proxyDisplay(route.url);
  const https = u.protocol === 'https:';
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const auth = authorizationOf(route, u);
  return new Promise<Socket>((resolve, reject) => {
    let settled = false;
    const settle = (e: LiveError | undefined, s?: Socket) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      if (e) reject(e);
      else resolve(s!);
    };
    const req = (https ? httpsRequest : httpRequest)({
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: Number(u.port) || (https ? 443 : 80),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...(auth ? { 'proxy-authorization': auth } : {}) },
      agent: false,
      ...(https ? { rejectUnauthorized: route.strictSSL, servername: u.hostname, ...(o.secureContext ? { secureContext: o.secureContext } : {}) } : {}),
    });
    const onAbort = () => {
      req.destroy();
      settle(cancelled('connect'));
    };
    o.signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      req.destroy();
      settle(timedOut('connect', o.timeoutMs, `The proxy ${display}`));
    }, o.timeoutMs);
    req.once('connect', (res, socket, head) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        socket.destroy();
        const e =
          status === 407
            ? new LiveError('auth', 'connect', `The proxy ${display} asks for authentication (HTTP 407).`, { next: 'Set http.proxyAuthorization, or the user and password in http.proxy.', detail: 'HTTP 407' })
            : new LiveError('refused', 'connect', `The proxy ${display} refused the tunnel to ${authority} (HTTP ${status}).`, {
                next: `Ask the proxy's administrator to allow ${authority}, or add the host to http.noProxy to connect directly.`,
                detail: `HTTP ${status}`,
              });
        return settle(e);
      }
      if (head.length) socket.unshift(head);
      settle(undefined, socket);
    });
    req.once('response', (res) => {
      // A proxy that answers without opening a tunnel (not a CONNECT proxy).
      res.resume();
      settle(new LiveError('refused', 'connect', `The proxy ${display} answered HTTP ${res.statusCode ?? '?'} instead of opening a tunnel to ${authority}.`, { next: 'Check http.proxy: it must be an HTTP proxy that allows CONNECT.' }));
    });
    req.once('error', (e) => settle(netError(e, 'connect', `the proxy ${display}`)));
    req.end();
  });
}

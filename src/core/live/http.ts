// HTTP(S) for WebDAV and S3 over the undici the service client ships (src/core/api/undiciParts.ts:
// its Agent only, loaded on first use). Trust is decided once per site by a probe that goes
// step by step (name, TCP, TLS) and asks the decider about a certificate no CA vouches for;
// every later connection of the agent is checked in its connector against that decision (a CA
// vouches, or the fingerprint is pinned or was accepted), so nothing secret is sent to a server
// that is not the one trusted. Credentials go in headers only: no URL carries userinfo.
// Proxies: LiveOptions.proxy decides per origin as it does for the service client (http.proxy,
// the environment, noProxy, loopback direct); a proxied connection is a CONNECT tunnel
// (./tunnel.ts), inside which the TLS to the site is checked exactly as when direct.
import { lookup } from 'node:dns/promises';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { Dispatcher } from 'undici';
import { loadUndici } from '../api/agents';
import type { DriverContext } from './driver';
import { secureContextOf, tlsStillTrusted, verifyTls } from './trust';
import { openTunnel, proxyDisplay, type TunnelRoute } from './tunnel';
import { LiveError, type LiveStage } from './types';
import { abortable, cancelled, netError, PersonTime, timedOut, withTimeout } from './util';

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer> & { destroy(e?: Error): void; text(): Promise<string>; dump(): Promise<void> };
}

export class HttpSession {
  private agent: Dispatcher | undefined;
  private probed: Promise<void> | undefined;
  /** host:port/fingerprint256 trusted for this site (pinned or accepted), for the connector. */
  private readonly trusted = new Set<string>();

  constructor(
    private readonly ctx: DriverContext,
    private readonly origin: URL,
  ) {}

  /** Resolves, connects and (https) checks the certificate once; reports the steps. */
  probe(signal: AbortSignal): Promise<void> {
    this.probed ??= this.doProbe(signal);
    this.probed.catch(() => (this.probed = undefined));
    return this.probed;
  }

  /**
   * The proxy route to host:port (LiveOptions.proxy: the service client's decision, noProxy and
   * loopback direct included), or undefined to go direct. An unusable proxy setting is a 'config' error.
   */
  private routeTo(protocol: string, host: string, port: number): TunnelRoute | undefined {
    const resolver = this.ctx.options.proxy;
    if (!resolver) return undefined;
    try {
      return resolver(new URL(`${protocol}//${host.includes(':') ? `[${host}]` : host}:${port}/`));
    } catch (e) {
      throw new LiveError('config', 'connect', e instanceof Error ? e.message : 'The proxy setting is not usable.', { next: 'Fix http.proxy, or clear it to connect directly.' });
    }
  }

  /** A TCP socket to host:port: direct, or through the proxy's tunnel. */
  private socketTo(route: TunnelRoute | undefined, host: string, port: number, signal: AbortSignal): Promise<Socket> {
    const ep = this.ctx.endpoint;
    if (route) return openTunnel(route, host, port, { signal, timeoutMs: ep.timeoutMs, ...ctxOpt(this.ctx) });
    let s: Socket | undefined;
    return abortable(
      signal,
      'connect',
      () =>
        withTimeout(
          ep.timeoutMs,
          'connect',
          () =>
            new Promise<Socket>((resolve, reject) => {
              const sock = (s = netConnect({ host, port }));
              sock.once('connect', () => {
                sock.removeListener('error', reject);
                resolve(sock);
              });
              sock.once('error', reject);
            }),
          () => s?.destroy(),
        ),
      () => s?.destroy(),
    ).catch((e: unknown) => Promise.reject(netError(e, 'connect', `${host}:${port}`)));
  }

  private async doProbe(signal: AbortSignal): Promise<void> {
    const ep = this.ctx.endpoint;
    const host = this.origin.hostname.replace(/^\[|\]$/g, '');
    const port = Number(this.origin.port) || (this.origin.protocol === 'https:' ? 443 : 80);
    const fail = (e: LiveError) => {
      this.ctx.stage({ stage: e.stage, ok: false, detail: e.message, ms: 0 });
      return e;
    };
    let route: TunnelRoute | undefined;
    try {
      route = this.routeTo(this.origin.protocol, host, port);
    } catch (e) {
      throw fail(e as LiveError);
    }
    let t = Date.now();
    let address = host;
    if (route) this.ctx.stage({ stage: 'resolve', ok: true, detail: `${host} is resolved by the proxy ${proxyDisplay(route.url)}`, ms: 0 });
    else {
      try {
        if (!isIP(host)) {
          const addrs = await abortable(signal, 'resolve', () => lookup(host, { all: true }));
          address = addrs[0]!.address;
          this.ctx.stage({ stage: 'resolve', ok: true, detail: `${host} resolved to ${addrs.map((a) => a.address).join(', ')}`, ms: Date.now() - t });
        } else this.ctx.stage({ stage: 'resolve', ok: true, detail: `${host} is an address`, ms: 0 });
      } catch (e) {
        throw fail(netError(e, 'resolve', host));
      }
    }
    t = Date.now();
    let sock: Socket;
    try {
      sock = await this.socketTo(route, route ? host : address, port, signal);
    } catch (e) {
      throw fail(netError(e, 'connect', `${host}:${port}`));
    }
    this.ctx.stage({ stage: 'connect', ok: true, detail: route ? `a tunnel to ${host}:${port} through the proxy ${proxyDisplay(route.url)}` : `connected to ${address}:${port}`, ms: Date.now() - t });
    if (this.origin.protocol !== 'https:') {
      sock.destroy();
      return;
    }
    t = Date.now();
    // The probe's socket is closed once the certificate is decided: a server that closes it while
    // a person decides changes nothing, and the person's time is not the step's.
    const person = new PersonTime();
    try {
      const tls = await abortable(signal, 'tls', () =>
        withTimeout(ep.timeoutMs, 'tls', () =>
          new Promise<TLSSocket>((resolve, reject) => {
            const s = tlsConnect({ socket: sock, ...(isIP(host) ? {} : { servername: host }), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...ctxOpt(this.ctx) });
            s.once('secureConnect', () => resolve(s));
            s.once('error', (e) => reject(new LiveError('tls', 'tls', `The TLS handshake with ${host}:${port} failed: ${e.message}.`, { next: 'Check that this port speaks https (or turn encryption off for the site).', detail: e.message })));
          }),
        ),
      );
      const v = await abortable(signal, 'tls', () => verifyTls(tls, this.ctx.options.trust, host, port, ep.label, this.ctx.once, person), () => tls.destroy());
      tls.destroy();
      if (v.how !== 'ca') this.trusted.add(`${host}:${port}/${v.cert.fingerprint256}`);
      this.ctx.stage({ stage: 'tls', ok: true, detail: `${v.protocol}, ${v.cert.subject}, SHA-256 ${v.cert.fingerprint256} (${v.how === 'ca' ? 'trusted authority' : v.how === 'pinned' ? 'pinned' : 'accepted'})`, ...person.step(t, 0) });
    } catch (e) {
      sock.destroy();
      throw fail(e instanceof LiveError ? e : netError(e, 'tls', `${host}:${port}`));
    }
  }

  private async dispatcher(): Promise<Dispatcher> {
    if (this.agent) return this.agent;
    const undici = await loadUndici();
    const ep = this.ctx.endpoint;
    const trusted = this.trusted;
    const secure = ctxOpt(this.ctx);
    this.agent = new undici.Agent({
      keepAliveTimeout: Math.min(ep.idleMs, 60_000),
      connections: ep.poolSize,
      connect: ((opts: { hostname: string; host?: string; protocol: string; port: string; servername?: string }, cb: (err: Error | null, socket: Socket | null) => void) => {
        const host = opts.hostname.replace(/^\[|\]$/g, '');
        const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
        const https = opts.protocol === 'https:';
        const stop = new AbortController();
        let done = false;
        let socket: Socket | undefined;
        const finish = (err: Error | null, s: Socket | null) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          cb(err, s);
        };
        const timer = setTimeout(() => {
          stop.abort();
          socket?.destroy();
          finish(timedOut('connect', ep.timeoutMs), null);
        }, ep.timeoutMs);
        let route: TunnelRoute | undefined;
        try {
          route = this.routeTo(opts.protocol, host, port);
        } catch (e) {
          return finish(e as Error, null);
        }
        this.socketTo(route, host, port, stop.signal).then(
          (raw) => {
            if (done) return raw.destroy();
            raw.setNoDelay(true);
            if (!https) {
              socket = raw;
              return finish(null, raw);
            }
            const s = tlsConnect({ socket: raw, ...(isIP(host) ? {} : { servername: host }), rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...secure });
            socket = s;
            s.once('secureConnect', () => {
              const fp = s.getPeerCertificate()?.fingerprint256;
              const expired = /CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/.test(String(s.authorizationError ?? ''));
              if (expired || !tlsStillTrusted(s, host, port, trusted)) {
                s.destroy();
                return finish(new LiveError('certificate-untrusted', 'tls', `${host}:${port} presented a certificate that was not trusted for this site (SHA-256 ${fp ?? '?'}); nothing was sent.`, { next: 'Run Test Connection to see the certificate and decide.', data: { fingerprint256: fp ?? '' } }), null);
              }
              finish(null, s);
            });
            s.once('error', (e) => finish(e, null));
          },
          (e: unknown) => finish(e instanceof Error ? e : new Error(String(e)), null),
        );
      }) as never,
    });
    return this.agent;
  }

  /** One request; the body is the caller's to read or dump. Network failures become LiveError of `stage`. */
  async request(method: string, url: string, headers: Record<string, string>, body: Buffer | AsyncIterable<Uint8Array> | undefined, signal: AbortSignal, stage: LiveStage): Promise<HttpReply> {
    await this.probe(signal);
    const d = await this.dispatcher();
    const u = new URL(url);
    const ep = this.ctx.endpoint;
    try {
      const r = await d.request({
        origin: u.origin,
        path: u.pathname + u.search,
        method: method as Dispatcher.HttpMethod,
        headers,
        ...(body !== undefined ? { body: body as never } : {}),
        signal,
        headersTimeout: ep.timeoutMs,
        bodyTimeout: ep.timeoutMs,
      });
      return { status: r.statusCode, headers: r.headers, body: r.body as unknown as HttpReply['body'] };
    } catch (e) {
      if (signal.aborted) throw cancelled(stage);
      const code = (e as { code?: string }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') throw timedOut(stage, ep.timeoutMs);
      if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') throw new LiveError('connection-lost', stage, `${u.host} closed the connection.`, { next: 'Try again.', detail: code });
      throw netError(e, stage, u.host);
    }
  }

  async close(): Promise<void> {
    const a = this.agent;
    this.agent = undefined;
    await a?.close().catch(() => undefined);
  }
}

function ctxOpt(ctx: DriverContext): { secureContext?: import('node:tls').SecureContext } {
  const sc = secureContextOf(ctx.options.trust);
  return sc ? { secureContext: sc } : {};
}

/** Reads a reply's body as text, at most `max` bytes. */
export async function readText(r: HttpReply, max = 64 * 1024 * 1024): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of r.body) {
    n += c.length;
    if (n > max) {
      r.body.destroy();
      throw new LiveError('too-large', 'list', `The server's answer is larger than ${max} bytes.`, { next: 'Check the server.' });
    }
    parts.push(c);
  }
  return Buffer.concat(parts).toString('utf8');
}

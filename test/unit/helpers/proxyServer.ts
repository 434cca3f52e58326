// A small real HTTP proxy on loopback, for the proxy tests: forwards absolute-form requests
// (`POST http://host:port/path`) for http targets and opens CONNECT tunnels for https targets,
// and records what passes through (what a proxy operator could log).
import * as http from 'node:http';
import * as net from 'node:net';
import { listenLoopback } from './rawServer';

export interface ProxyRecord {
  kind: 'forward' | 'connect';
  method: string;
  /** The absolute URL of a forwarded request, or `host:port` of a CONNECT. */
  target: string;
  /** The Proxy-Authorization header as received (undefined when absent). */
  proxyAuthorization?: string;
  /** Request headers as received (lower-case names). */
  headers: http.IncomingHttpHeaders;
  /** The body of a forwarded request (a tunnel's bytes are opaque and not kept). */
  body?: string;
  /** What the proxy answered: the target's status for a forward, 200/407/403/502 for a CONNECT. */
  status: number;
  /** Bytes relayed through a tunnel, client → target. */
  tunnelledBytes?: number;
}

export interface ProxyServerOptions {
  /** When set, every request must carry exactly this Proxy-Authorization value (else 407). */
  requireAuthorization?: string;
  /** Answer every CONNECT with this status instead of opening the tunnel (e.g. 403). */
  refuseConnect?: number;
}

export interface ProxyServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  records: ProxyRecord[];
  /** Records of requests that reached a target (not refused by the proxy). */
  passed(): ProxyRecord[];
  reset(): void;
  configure(o: ProxyServerOptions): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function splitHostPort(authority: string): { host: string; port: number } | undefined {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(authority) ?? /^([^:]+):(\d+)$/.exec(authority);
  if (!m) return undefined;
  return { host: m[1], port: Number(m[2]) };
}

export async function startProxyServer(initial: ProxyServerOptions = {}): Promise<ProxyServer> {
  let opts: ProxyServerOptions = { ...initial };
  const records: ProxyRecord[] = [];
  const sockets = new Set<net.Socket>();

  const authorized = (headers: http.IncomingHttpHeaders): boolean => !opts.requireAuthorization || headers['proxy-authorization'] === opts.requireAuthorization;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const record: ProxyRecord = {
        kind: 'forward',
        method: req.method ?? '',
        target: req.url ?? '',
        proxyAuthorization: req.headers['proxy-authorization'],
        headers: { ...req.headers },
        body: body.toString('utf8'),
        status: 0,
      };
      records.push(record);
      const answer = (status: number, text: string, headers: Record<string, string> = {}): void => {
        record.status = status;
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(text);
      };
      let target: URL;
      try {
        target = new URL(req.url ?? '');
      } catch {
        return answer(400, 'a proxy needs an absolute-form request URL');
      }
      if (target.protocol !== 'http:') return answer(400, 'only http targets are forwarded; use CONNECT for https');
      if (!authorized(req.headers)) return answer(407, 'proxy authentication required', { 'proxy-authenticate': 'Basic realm="test proxy"' });
      const headers: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
      headers['content-length'] = String(body.length);
      const upstream = http.request(
        { host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || 80, method: req.method, path: `${target.pathname}${target.search}`, headers, agent: false },
        (up) => {
          record.status = up.statusCode ?? 0;
          const out: http.OutgoingHttpHeaders = {};
          for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
          res.writeHead(up.statusCode ?? 502, out);
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) answer(502, 'the target cannot be reached');
        else res.destroy();
      });
      upstream.end(body);
    });
  });

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const record: ProxyRecord = {
      kind: 'connect',
      method: 'CONNECT',
      target: req.url ?? '',
      proxyAuthorization: req.headers['proxy-authorization'],
      headers: { ...req.headers },
      status: 0,
      tunnelledBytes: 0,
    };
    records.push(record);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const refuse = (status: number, reason: string, extra = ''): void => {
      record.status = status;
      client.end(`HTTP/1.1 ${status} ${reason}\r\n${extra}content-length: 0\r\nconnection: close\r\n\r\n`);
    };
    const hp = splitHostPort(req.url ?? '');
    if (!hp) return refuse(400, 'Bad Request');
    if (!authorized(req.headers)) return refuse(407, 'Proxy Authentication Required', 'proxy-authenticate: Basic realm="test proxy"\r\n');
    if (opts.refuseConnect) return refuse(opts.refuseConnect, 'Refused');
    const upstream = net.connect({ host: hp.host, port: hp.port });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => {
      if (!record.status) refuse(502, 'Bad Gateway');
      else client.destroy();
    });
    upstream.on('connect', () => {
      record.status = 200;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) {
        record.tunnelledBytes! += head.length;
        upstream.write(head);
      }
      client.on('data', (c: Buffer) => (record.tunnelledBytes! += c.length));
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  });

  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_e, s: net.Socket) => s.destroy());

  const port = await listenLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    records,
    passed: () => records.filter((r) => r.status !== 407 && r.status !== 400 && !(r.kind === 'connect' && r.status !== 200)),
    reset: () => {
      records.length = 0;
    },
    configure: (o) => {
      opts = { ...o };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

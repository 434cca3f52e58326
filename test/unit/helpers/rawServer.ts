// A tiny real loopback HTTP(S) server answering canned responses, for the replies the local
// service cannot produce (wrong shapes, redirects, odd statuses, slow headers, TLS problems).
// Test-only: the certificates below are throw-away self-signed test certificates for
// localhost / 127.0.0.1 / ::1, generated for this suite; they protect nothing.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as https from 'node:https';
import type * as net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

/** Self-signed certificate for localhost, 127.0.0.1 and ::1, valid 2000–2100 (usable as its own CA). */
export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBiDCCAS2gAwIBAgICEAAwCgYIKoZIzj0EAwIwFDESMBAGA1UEAwwJbG9jYWxo
b3N0MCAXDTAwMDEwMTAwMDAwMFoYDzIxMDAwMTAxMDAwMDAwWjAUMRIwEAYDVQQD
DAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR61eQhMbeYjypt
3iFo1K29B915NegHsNwuPsgJILVwrAInHn8kjm4T0QzMCxx45A12CWXfqdh3/Jqa
IDKM0tJeo20wazAsBgNVHREEJTAjgglsb2NhbGhvc3SHBH8AAAGHEAAAAAAAAAAA
AAAAAAAAAAEwDwYDVR0TAQH/BAUwAwEB/zALBgNVHQ8EBAMCAoQwHQYDVR0OBBYE
FP+KKIQZUeNUUxPmCLpw9iKQEzvdMAoGCCqGSM49BAMCA0kAMEYCIQCDB1TaWYwe
GgFvInI1tnPg5aevrqPZXWoBkzPpJq6wUwIhAPU13BvVc/TilRSAUGFTJ3LA9e46
0syXyFUOi5+vI9LN
-----END CERTIFICATE-----
`;
export const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVCD33SAWLnleojgF
slNWDeJqugAsbd0VnRhymZamIZ+hRANCAAR61eQhMbeYjypt3iFo1K29B915NegH
sNwuPsgJILVwrAInHn8kjm4T0QzMCxx45A12CWXfqdh3/JqaIDKM0tJe
-----END PRIVATE KEY-----
`;
/** Self-signed certificate for the same names that expired on 2001-01-01. */
export const EXPIRED_CERT = `-----BEGIN CERTIFICATE-----
MIIBhTCCASugAwIBAgICEAEwCgYIKoZIzj0EAwIwFDESMBAGA1UEAwwJbG9jYWxo
b3N0MB4XDTAwMDEwMTAwMDAwMFoXDTAxMDEwMTAwMDAwMFowFDESMBAGA1UEAwwJ
bG9jYWxob3N0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2gg/mgTWN8BsClPU
pFIEVAEAvIGyJb/9WFVwEqCe9+kSZ5YojbLw6V+BLp/2vn5geIS9N5htYjGf8cO5
qsgm66NtMGswLAYDVR0RBCUwI4IJbG9jYWxob3N0hwR/AAABhxAAAAAAAAAAAAAA
AAAAAAABMA8GA1UdEwEB/wQFMAMBAf8wCwYDVR0PBAQDAgKEMB0GA1UdDgQWBBQ1
qvFfno7RaC0D4Hnz5QcRilximDAKBggqhkjOPQQDAgNIADBFAiEAr7wiVPYU6jY9
FZ2Xmiw63y9HVBvixSQ6FNgpBX8OxHcCIHpNWczDSTCeGh03e7EVKazjmqFd5P3q
AO+FAI4bvVQX
-----END CERTIFICATE-----
`;
export const EXPIRED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQglRncnJbSu37jAoOf
5cVMk40NLQXekQmZK2HCF7VKMtihRANCAATaCD+aBNY3wGwKU9SkUgRUAQC8gbIl
v/1YVXASoJ736RJnliiNsvDpX4Eun/a+fmB4hL03mG1iMZ/xw7mqyCbr
-----END PRIVATE KEY-----
`;

export interface RawRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body parsed as a form. */
  form: URLSearchParams;
}

export interface RawResponse {
  /** Default 200. */
  status?: number;
  /** Default `content-type: application/json` unless given. */
  headers?: Record<string, string | number | string[]>;
  /** A string, a Buffer, or a value sent as JSON. */
  body?: unknown;
  /** Wait this long before sending the headers. */
  delayMs?: number;
  /** Send the headers, then wait this long before the body. */
  bodyDelayMs?: number;
  /** Close the connection without answering. */
  destroy?: boolean;
  /** Send this many bytes (chunked, no content-length) of filler instead of `body`. */
  streamBytes?: number;
}

export type RawHandler = (req: RawRequest, index: number) => RawResponse | Promise<RawResponse>;

export interface RawServer {
  url: string;
  port: number;
  /** Requests received, in order. */
  requests: RawRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  setHandler(h: RawHandler | RawResponse | RawResponse[]): void;
  close(): Promise<void>;
}

function toHandler(h: RawHandler | RawResponse | RawResponse[]): RawHandler {
  if (typeof h === 'function') return h;
  if (Array.isArray(h)) return (_req, i) => h[Math.min(i, h.length - 1)] ?? {};
  return () => h;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Listens on a free port of `host` (loopback by default) and returns the port. */
export async function listenLoopback(server: net.Server, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

export async function startRawServer(
  handler: RawHandler | RawResponse | RawResponse[],
  opts: { host?: string; tls?: { cert: string; key: string } } = {},
): Promise<RawServer> {
  let h = toHandler(handler);
  const requests: RawRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const raw: RawRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, form: new URLSearchParams(body) };
        const index = requests.length;
        requests.push(raw);
        let r: RawResponse;
        try {
          r = await h(raw, index);
        } catch (e) {
          r = { status: 500, body: String(e) };
        }
        if (r.delayMs) await sleep(r.delayMs);
        if (r.destroy) {
          req.socket.destroy();
          return;
        }
        const headers: Record<string, string | number | string[]> = { 'content-type': 'application/json', ...(r.headers ?? {}) };
        if (r.streamBytes !== undefined) {
          res.writeHead(r.status ?? 200, headers);
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          let left = r.streamBytes;
          const pump = () => {
            while (left > 0) {
              const n = Math.min(left, chunk.length);
              left -= n;
              if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
            }
            res.end();
          };
          res.on('error', () => undefined);
          pump();
          return;
        }
        const payload = r.body === undefined ? '' : typeof r.body === 'string' || Buffer.isBuffer(r.body) ? r.body : JSON.stringify(r.body);
        const buf = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
        if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-length' || k.toLowerCase() === 'transfer-encoding')) {
          headers['content-length'] = buf.length;
        }
        res.writeHead(r.status ?? 200, headers);
        if (r.bodyDelayMs) {
          res.flushHeaders();
          await sleep(r.bodyDelayMs);
        }
        if (!res.destroyed) res.end(buf);
      })().catch(() => req.socket.destroy());
    });
  };

  const server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, onRequest) : http.createServer(onRequest);
  const connectionEvent = opts.tls ? 'secureConnection' : 'connection';
  server.on(connectionEvent, (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  if (opts.tls) {
    // Count TLS attempts that fail in the handshake too.
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    server.on('tlsClientError', () => undefined);
  }
  const host = opts.host ?? '127.0.0.1';
  const port = await listenLoopback(server, host);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${urlHost}:${port}`,
    port,
    requests,
    connections: () => connections,
    setHandler: (nh) => {
      h = toHandler(nh);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- assertion helpers shared by the client suites ----

/** Awaits `p`, asserts it rejects with an instance of `cls`, and returns the error. */
export async function rejectsWith<T extends Error>(p: Promise<unknown>, cls: abstract new (...args: never[]) => T): Promise<T> {
  let value: unknown;
  try {
    value = await p;
  } catch (e) {
    if (!(e instanceof cls)) {
      assert.fail(`expected ${cls.name}, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    }
    return e;
  }
  assert.fail(`expected ${cls.name}, but it resolved with ${JSON.stringify(value)?.slice(0, 200)}`);
}

/** Asserts that none of `secrets` occurs anywhere in `things` (errors are inspected field by field). */
export function assertNoSecrets(things: unknown[], secrets: string[]): void {
  for (const t of things) {
    const texts: string[] = [];
    if (t instanceof Error) {
      texts.push(t.message, String(t.stack ?? ''), String(t));
      for (const [k, v] of Object.entries(t)) if (k !== 'cause') texts.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    } else {
      texts.push(typeof t === 'string' ? t : JSON.stringify(t));
    }
    for (const text of texts) {
      for (const s of secrets) {
        assert.ok(!text.includes(s), `secret ${JSON.stringify(s.slice(0, 3))}… found in: ${text.slice(0, 300)}`);
        const enc = encodeURIComponent(s);
        assert.ok(!text.includes(enc), `encoded secret found in: ${text.slice(0, 300)}`);
      }
    }
  }
}

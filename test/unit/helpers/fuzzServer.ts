// A byte-exact loopback HTTP/1.1 server for the reply fuzzer: it parses the client's requests
// (keep-alive, one at a time) and answers each with the reply the current property run set,
// written to the socket as raw bytes. rawServer.ts (node:http) covers the well-formed canned
// replies; this sibling exists because node:http cannot write an interim 1xx response followed by
// a final one, a 101 without an upgrade, a cut-off or overlong body, or malformed framing.
// Test-only.
import * as net from 'node:net';
import { listenLoopback } from './rawServer';

/**
 * How the final response is framed on the wire.
 * - length: Content-Length, keep-alive
 * - chunked: Transfer-Encoding: chunked (split at `splits`), keep-alive
 * - close: no length, `Connection: close`, the body ends when the socket closes
 * - dribble: Content-Length, head and body written in several writes a tick apart
 * - truncate: Content-Length announces more than is sent, then the socket is closed
 * - chunkedCut: chunked without the last chunk, then the socket is closed
 * - overlong: Content-Length announces less than is sent, `Connection: close`
 * - destroy: the socket is closed without any reply
 * - garbage: `garbage` bytes instead of a response, then the socket is closed
 */
export type Framing = 'length' | 'chunked' | 'close' | 'dribble' | 'truncate' | 'chunkedCut' | 'overlong' | 'destroy' | 'garbage';

/** Framings after which the response is complete and legal (a client must parse it). */
export const WELL_FORMED_FRAMINGS: ReadonlySet<Framing> = new Set(['length', 'chunked', 'close', 'dribble']);

export interface WireReply {
  /** Interim 1xx responses (never 101) sent before the final response, as RFC 9110 §15.2 allows. */
  interim?: { status: number; headers?: [string, string][] }[];
  /** Final status. 101 is written as a (never requested) protocol switch and the socket closed; 204/304 carry no body. */
  status: number;
  /** Reason phrase (default: a generic one). */
  reason?: string;
  /** Headers other than the framing ones (Content-Length, Transfer-Encoding, Connection are added per framing). */
  headers: [string, string][];
  body: Buffer;
  framing: Framing;
  /** Split points (fractions 0..1 of the body) for chunked, chunkedCut and dribble. */
  splits?: number[];
  /** Bytes written instead of a response for `garbage`. */
  garbage?: Buffer;
}

export interface FuzzServer {
  url: string;
  port: number;
  /** Requests fully received since the last `reset()`. */
  requests(): number;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Sets the reply of every following request and zeroes the request count. */
  reset(reply: WireReply): void;
  close(): Promise<void>;
}

const CRLF = '\r\n';

function head(status: number, reason: string, headers: [string, string][]): Buffer {
  let text = `HTTP/1.1 ${status} ${reason}${CRLF}`;
  for (const [k, v] of headers) text += `${k}: ${v}${CRLF}`;
  return Buffer.from(text + CRLF, 'latin1');
}

function pieces(body: Buffer, splits: number[] | undefined): Buffer[] {
  const cuts = [...new Set((splits ?? []).map((f) => Math.floor(Math.min(1, Math.max(0, f)) * body.length)))]
    .filter((n) => n > 0 && n < body.length)
    .sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const c of cuts) {
    out.push(body.subarray(at, c));
    at = c;
  }
  out.push(body.subarray(at));
  return out.filter((b) => b.length > 0);
}

function chunk(b: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${b.length.toString(16)}${CRLF}`, 'latin1'), b, Buffer.from(CRLF, 'latin1')]);
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/** Writes `reply` for one request. Resolves true when the connection may serve another request. */
async function answer(socket: net.Socket, reply: WireReply): Promise<boolean> {
  const write = (b: Buffer | string) => {
    if (!socket.destroyed) socket.write(b);
  };
  if (reply.framing === 'destroy') {
    socket.destroy();
    return false;
  }
  if (reply.framing === 'garbage') {
    socket.end(reply.garbage ?? Buffer.from('garbage\r\n\r\n'));
    return false;
  }
  for (const i of reply.interim ?? []) write(head(i.status, 'Informational', i.headers ?? []));

  const reason = reply.reason ?? 'Fuzzed';
  const { status, body } = reply;
  if (status === 101) {
    write(head(101, 'Switching Protocols', [...reply.headers, ['Connection', 'upgrade'], ['Upgrade', 'fuzz/1']]));
    socket.end(body);
    return false;
  }
  if (status === 204 || status === 304) {
    // No content by definition: no body and no Content-Length (RFC 9110 §8.6, §15.3.5, §15.4.5).
    write(head(status, reason, reply.headers));
    return true;
  }
  switch (reply.framing) {
    case 'length':
      write(Buffer.concat([head(status, reason, [...reply.headers, ['Content-Length', String(body.length)]]), body]));
      return true;
    case 'dribble': {
      const h = head(status, reason, [...reply.headers, ['Content-Length', String(body.length)]]);
      const cut = Math.max(1, Math.floor(h.length / 2));
      write(h.subarray(0, cut));
      await tick();
      write(h.subarray(cut));
      for (const p of pieces(body, reply.splits)) {
        await tick();
        write(p);
      }
      return true;
    }
    case 'chunked':
    case 'chunkedCut': {
      const parts = pieces(body, reply.splits).map(chunk);
      const cut = reply.framing === 'chunkedCut';
      write(Buffer.concat([head(status, reason, [...reply.headers, ['Transfer-Encoding', 'chunked']]), ...parts, ...(cut ? [] : [Buffer.from(`0${CRLF}${CRLF}`)])]));
      if (cut) socket.end();
      return !cut;
    }
    case 'close':
      write(head(status, reason, [...reply.headers, ['Connection', 'close']]));
      socket.end(body);
      return false;
    case 'truncate':
      write(head(status, reason, [...reply.headers, ['Content-Length', String(body.length + 1 + (body.length >> 1))]]));
      socket.end(body.subarray(0, body.length >> 1));
      return false;
    case 'overlong':
      write(head(status, reason, [...reply.headers, ['Content-Length', String(body.length >> 1)], ['Connection', 'close']]));
      socket.end(body);
      return false;
  }
}

interface Pending {
  buf: Buffer;
  busy: boolean;
}

/** Starts the server on 127.0.0.1 with `initial` as the reply. */
export async function startFuzzServer(initial: WireReply): Promise<FuzzServer> {
  let reply = initial;
  let requests = 0;
  let connections = 0;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.setNoDelay(true);
    const st: Pending = { buf: Buffer.alloc(0), busy: false };
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));

    const pump = async (): Promise<void> => {
      if (st.busy) return;
      st.busy = true;
      try {
        for (;;) {
          const end = st.buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const headText = st.buf.subarray(0, end).toString('latin1');
          const m = /\r\ncontent-length:\s*(\d+)/i.exec(headText);
          const length = m ? Number(m[1]) : 0;
          if (st.buf.length < end + 4 + length) return;
          st.buf = st.buf.subarray(end + 4 + length);
          requests++;
          const keep = await answer(socket, reply);
          if (!keep) {
            st.buf = Buffer.alloc(0);
            return;
          }
        }
      } finally {
        st.busy = false;
      }
    };
    socket.on('data', (d: Buffer) => {
      st.buf = st.buf.length ? Buffer.concat([st.buf, d]) : d;
      pump()
        .then(() => (st.buf.length && !socket.destroyed ? pump() : undefined))
        // A reply that cannot be written: the connection is of no further use.
        .catch(() => socket.destroy());
    });
  });
  const port = await listenLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: () => requests,
    connections: () => connections,
    reset(r) {
      reply = r;
      requests = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

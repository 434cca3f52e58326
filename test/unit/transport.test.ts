// The transport (src/core/api/http.ts) where the connection itself hangs: a loopback server that
// accepts TCP and never answers the TLS handshake. undici's own abort waits for a pending
// connection (up to its 10 s connect time-out); the attempt must end on its own time-out or
// cancellation instead, with nothing sent.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { CancelledError, SiteRevisionClient, TimeoutError } from '../../src/core/api';
import { listenLoopback, rejectsWith } from './helpers/rawServer';

describe('transport: a connection that never completes', function () {
  // Well under undici's 10 s connect time-out: waiting for it would fail this suite.
  this.timeout(5000);

  let server: net.Server;
  let port = 0;
  const sockets = new Set<net.Socket>();
  let received = 0;
  let connected: () => void = () => undefined;

  beforeEach(async () => {
    received = 0;
    server = net.createServer((s) => {
      sockets.add(s);
      s.on('data', (d: Buffer) => (received += d.length)); // the ClientHello; never answered
      s.on('error', () => undefined);
      connected();
    });
    port = await listenLoopback(server);
  });
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = (timeoutMs: number) => new SiteRevisionClient({ baseUrl: `https://127.0.0.1:${port}`, credentials: () => ({ email: 'a@b.c', password: 'pw-123' }), timeoutMs, retries: 0 });

  it('the attempt’s time-out ends it during the TLS handshake', async () => {
    const c = client(200);
    try {
      const e = await rejectsWith(c.getSites(), TimeoutError);
      assert.equal(e.timeoutMs, 200);
      assert.equal(sockets.size, 1, 'the connection was being set up');
    } finally {
      await c.dispose();
    }
  });

  it('cancelling ends it during the TLS handshake, and nothing is sent after', async () => {
    const c = client(60_000);
    const ac = new AbortController();
    connected = () => setImmediate(() => ac.abort());
    try {
      await rejectsWith(c.getSites({ signal: ac.signal }), CancelledError);
      assert.equal(sockets.size, 1);
      // No request: the handshake never finished, so at most a ClientHello went out.
      assert.ok(received < 4096, `a ClientHello at most (${received} bytes)`);
    } finally {
      connected = () => undefined;
      await c.dispose();
    }
  });
});

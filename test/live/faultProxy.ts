// A TCP proxy on loopback in front of a live server, for faults and latency: it delays, stalls,
// cuts after a number of bytes, or cuts everything. It only moves bytes (TLS and SSH pass
// through end to end, so certificates and host keys are the server's own).
//
// Latency: `latencyMs` is added to every round trip (half on the way to the server, half on the
// way back), as a ping would show it; bytes stay in order and the throughput is not capped (a
// delay line, not a stop-and-wait), with backpressure from the receiving side.
//
// FTP: data connections go to other ports than the control connection. Give a target from
// `live.ftp.proxyTargets` (its `dataPorts`): the server's proxied virtual host listens on
// 127.0.0.2 and advertises 127.0.0.1 in PASV (EPSV names only the port), and this proxy
// listens on 127.0.0.1 on those same port numbers, so plain and TLS data connections, passive
// and extended passive, all pass through it and get the same latency and faults.
import * as net from 'node:net';

export interface FaultProxyOptions {
  /** Added round-trip time in ms (default 0). */
  latencyMs?: number;
  /** Keep what clients send on their main connections (FTP: the commands), for `sent()`; the first 1 MB. */
  recordSent?: boolean;
}

export interface CutRule {
  /** Cut the connections opened from now on (default) or the open ones too, counting from now. */
  existing?: boolean;
  /** How many connections to cut (default: every one until cleared). */
  count?: number;
  /** FTP: only the control connections (`main`) or only the data connections (`data`). Default both. */
  which?: 'main' | 'data' | 'all';
}

export interface FaultProxy {
  /** Where clients connect. */
  host: '127.0.0.1';
  port: number;
  /** Changes the added round-trip time for the bytes that arrive from now on. */
  setLatency(ms: number): void;
  /** Resets every open connection (both sides see a reset). New connections are still accepted. */
  cutAll(): void;
  /** While on, no byte moves either way (connections stay open, as with a server that hangs); off releases what waited. */
  stall(on: boolean): void;
  /**
   * Resets connections once `n` bytes went server → client (a server that drops mid-listing):
   * by default each connection opened from now on, until `cutAfterBytes(null)`. The client gets
   * exactly `n` bytes, then a reset.
   */
  cutAfterBytes(n: number | null, rule?: CutRule): void;
  /** With `recordSent`: each main connection's bytes from the client, as the chunks that arrived (in order of connection). */
  sent(): Buffer[][];
  /** Client connections open now. */
  connections(): number;
  /** Client connections accepted since the start (control and data). */
  accepted(): number;
  /** Bytes moved: up = client → server, down = server → client. */
  bytes(): { up: number; down: number };
  /** Stops listening and resets every connection. */
  close(): Promise<void>;
}

/** Above this many bytes queued in one direction, the sending side is paused until it drains. */
const HIGH_WATER = 4 * 1024 * 1024;

interface Conn {
  client: net.Socket;
  server: net.Socket;
  kind: 'main' | 'data';
  /** Server → client bytes left before a cut (undefined: no cut pending). */
  cutLeft?: number;
  pumps: Pump[];
}

/** One direction of a connection: a delay line with backpressure. */
class Pump {
  private readonly queue: { at: number; chunk: Buffer }[] = [];
  private queued = 0;
  private timer: NodeJS.Timeout | undefined;
  private waitingDrain = false;
  private ended = false;
  /** When set, the destination is reset after the queue drains (a cut). */
  cutWhenDrained = false;

  constructor(
    private readonly src: net.Socket,
    private readonly dst: net.Socket,
    private readonly proxy: ProxyState,
    private readonly onCut: () => void,
  ) {}

  push(chunk: Buffer): void {
    this.queue.push({ at: Date.now() + this.proxy.latencyMs / 2, chunk });
    this.queued += chunk.length;
    if (this.queued > HIGH_WATER) this.src.pause();
    this.flush();
  }

  end(): void {
    this.ended = true;
    this.flush();
  }

  flush(): void {
    if (this.timer || this.waitingDrain || this.proxy.stalled || this.dst.destroyed) return;
    const now = Date.now();
    while (this.queue.length) {
      const head = this.queue[0]!;
      if (head.at > now) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.flush();
        }, head.at - now);
        return;
      }
      this.queue.shift();
      this.queued -= head.chunk.length;
      if (this.queued <= HIGH_WATER && this.src.isPaused()) this.src.resume();
      if (!this.dst.write(head.chunk)) {
        this.waitingDrain = true;
        this.dst.once('drain', () => {
          this.waitingDrain = false;
          this.flush();
        });
        return;
      }
    }
    if (this.cutWhenDrained) return this.onCut();
    if (this.ended && !this.dst.writableEnded) this.dst.end();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
  }
}

interface ProxyState {
  latencyMs: number;
  stalled: boolean;
}

function reset(s: net.Socket): void {
  if (s.destroyed) return;
  if (typeof s.resetAndDestroy === 'function' && s.readyState !== 'opening') s.resetAndDestroy();
  else s.destroy();
}

/**
 * Starts a fault proxy on 127.0.0.1 (an ephemeral port) in front of `target`; with
 * `target.dataPorts` (FTP, see the file's head) also on those port numbers.
 */
export async function startFaultProxy(target: { host: string; port: number; dataPorts?: { host: string; from: number; to: number } }, opts: FaultProxyOptions = {}): Promise<FaultProxy> {
  const state: ProxyState = { latencyMs: Math.max(0, opts.latencyMs ?? 0), stalled: false };
  const conns = new Set<Conn>();
  let accepted = 0;
  const moved = { up: 0, down: 0 };
  const sent: Buffer[][] = [];
  let recorded = 0;
  let rule: (CutRule & { n: number; left: number }) | undefined;

  const cut = (c: Conn): void => {
    for (const p of c.pumps) p.clear();
    reset(c.client);
    reset(c.server);
  };

  const armCut = (c: Conn): void => {
    if (!rule || rule.left <= 0) return;
    if (rule.which && rule.which !== 'all' && rule.which !== c.kind) return;
    rule.left--;
    c.cutLeft = rule.n;
  };

  const handle = (kind: 'main' | 'data', host: string, port: number) => (client: net.Socket) => {
    accepted++;
    const server = net.connect({ host, port });
    const c: Conn = { client, server, kind, pumps: [] };
    conns.add(c);
    client.setNoDelay(true);
    server.setNoDelay(true);
    const up = new Pump(client, server, state, () => cut(c));
    const down = new Pump(server, client, state, () => cut(c));
    c.pumps.push(up, down);
    armCut(c);
    const record: Buffer[] | undefined = opts.recordSent && kind === 'main' ? [] : undefined;
    if (record) sent.push(record);
    client.on('data', (d: Buffer) => {
      moved.up += d.length;
      if (record && recorded < 1 << 20) {
        record.push(Buffer.from(d));
        recorded += d.length;
      }
      up.push(d);
    });
    server.on('data', (d: Buffer) => {
      if (c.cutLeft !== undefined) {
        if (d.length >= c.cutLeft) {
          const part = d.subarray(0, c.cutLeft);
          c.cutLeft = 0;
          moved.down += part.length;
          if (part.length) down.push(part);
          down.cutWhenDrained = true;
          server.pause();
          down.flush();
          return;
        }
        c.cutLeft -= d.length;
      }
      moved.down += d.length;
      down.push(d);
    });
    client.on('end', () => up.end());
    server.on('end', () => down.end());
    // An error on one side (a reset, a refused connection to the server) resets the other, as
    // the network would; a side that closed lets the other finish what is queued for it.
    const failed = (): void => {
      for (const p of c.pumps) p.clear();
      reset(client);
      reset(server);
    };
    client.on('error', failed);
    server.on('error', failed);
    const closed = (): void => {
      if (client.destroyed && server.destroyed) conns.delete(c);
      else if (client.destroyed) up.end();
      else if (server.destroyed) down.end();
    };
    client.on('close', closed);
    server.on('close', closed);
  };

  const listeners: net.Server[] = [];
  const listen = (port: number, onConn: (s: net.Socket) => void): Promise<number> =>
    new Promise((resolve, reject) => {
      const srv = net.createServer({ noDelay: true }, onConn);
      srv.once('error', reject);
      srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
        srv.off('error', reject);
        listeners.push(srv);
        resolve((srv.address() as net.AddressInfo).port);
      });
    });

  const closeAll = async (): Promise<void> => {
    for (const c of [...conns]) cut(c);
    await Promise.all(listeners.map((l) => new Promise<void>((r) => l.close(() => r()))));
  };

  let port: number;
  try {
    port = await listen(0, handle('main', target.host, target.port));
    if (target.dataPorts) {
      const { host, from, to } = target.dataPorts;
      for (let p = from; p <= to; p++) await listen(p, handle('data', host, p));
    }
  } catch (err) {
    await closeAll();
    // The data ports are the run's own (servers.ts reservePortRange): taken, they are most likely
    // held by another fault proxy of the same target still open.
    const also = target.dataPorts && /EADDRINUSE/.test(String(err)) ? ` (the passive ports ${target.dataPorts.from}–${target.dataPorts.to} are this run's: is another fault proxy in front of the same FTP target still open?)` : '';
    throw new Error(`fault proxy: could not listen: ${err instanceof Error ? err.message : String(err)}${also}`, { cause: err });
  }

  return {
    host: '127.0.0.1',
    port,
    setLatency(ms) {
      state.latencyMs = Math.max(0, ms);
    },
    cutAll() {
      for (const c of [...conns]) cut(c);
    },
    stall(on) {
      state.stalled = on;
      if (!on) for (const c of conns) for (const p of c.pumps) p.flush();
    },
    cutAfterBytes(n, r = {}) {
      if (n === null) {
        rule = undefined;
        for (const c of conns) delete c.cutLeft;
        return;
      }
      rule = { ...r, n: Math.max(0, n), left: r.count ?? Infinity };
      if (r.existing) for (const c of conns) armCut(c);
    },
    sent: () => sent.map((c) => [...c]),
    connections: () => [...conns].filter((c) => !c.client.destroyed).length,
    accepted: () => accepted,
    bytes: () => ({ ...moved }),
    close: closeAll,
  };
}

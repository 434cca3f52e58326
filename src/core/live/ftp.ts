// FTP and FTPS (explicit AUTH TLS and implicit) with basic-ftp: a chunk of its own, loaded on
// the first connection to an FTP site. What we add around the library:
// - the steps of a connection one by one (name, TCP, TLS, login) so that the certificate is
//   checked (trust.ts) BEFORE the password is sent, and Test Connection can say which step failed;
// - passive mode of our own: EPSV first; PASV's address is used only when it is the control
//   connection's — a private address from a server reached on a public one is replaced by the
//   control connection's address (the server is behind NAT) and said as a stage warning; another
//   public address is refused (FTP bounce);
// - MLSD parsed as it arrives (batches for big folders), exact UTC times from MLSD/MDTM, and one
//   LIST of a folder that has links, for their targets (MLSD gives none, and proftpd leaves
//   dangling links and links out of its chroot out of MLSD);
// - fewer round trips (docs/decisions.md "FTP round trips"): a folder listed with EPSV and MLSD in
//   one write, a command sent while its data connection opens, a login without what a pooled
//   connection does not need;
// - a pool: FTP carries one transfer per connection; a transfer cancelled mid-way closes its
//   connection (its control channel is in an unknown state) and the next user gets a new one.
import { lookup } from 'node:dns/promises';
import { isIP, Socket } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { Client, FTPError, parseList, type FileInfo } from 'basic-ftp';
import { connectForPassiveTransfer, downloadTo, uploadFrom } from 'basic-ftp/dist/transfer';
import type { FTPContext, FTPResponse } from 'basic-ftp/dist/FtpContext';
import { isLoopbackHost } from '../api/url';
import type { CreateDriver, Driver, DriverContext, DriverRead } from './driver';
import { Pool } from './pool';
import { secureContextOf, verifyTls } from './trust';
import { LiveError, type LiveEntry, type LiveStage } from './types';
import { abortable, baseName, cancelled, joinAbs, joinRel, LoginDriver, netError, RECONNECTED, reports, timedOut, type PersonTime, type ReportMode } from './util';

interface Conn {
  client: Client;
  /** The last passive-mode warning not yet reported. */
  warning?: string;
}

const PRIVATE_V4 = /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|127\.|169\.254\.)/;

export const createDriver: CreateDriver = (ctx) => new FtpDriver(ctx);

class FtpDriver extends LoginDriver implements Driver {
  private readonly pool: Pool<Conn>;
  private mlsd = true;
  /** Connections a walk asked for (warm()). */
  private warmTo = 0;
  /** EPSV and MLSD sent in one write (mlsdTo); off for a server that showed it cannot take it. */
  private pipelining = true;
  private pipelineProven = false;
  /** The server's FEAT answer, from the first connection. */
  private feats?: Map<string, string>;
  private mfmt = false;
  private chmodOk = true;

  constructor(ctx: DriverContext) {
    super(ctx);
    const ep = ctx.endpoint;
    this.pool = new Pool<Conn>(ep.poolSize, (s) => this.open(s), (c) => c.client.close(), ep.idleMs);
  }

  /**
   * One connection, step by step; reports each step the first time. A server that closed the
   * connection while a person answered (a certificate, the password) is connected to once more.
   */
  private async open(signal: AbortSignal): Promise<Conn> {
    const where = `${this.ctx.endpoint.host}:${this.ctx.endpoint.port}`;
    const c = await this.connectNew(signal, (e) => this.ftpError(e, 'connect', where), (mode, person) => this.openOnce(signal, mode, person));
    this.warmNow();
    return c;
  }

  private async openOnce(signal: AbortSignal, mode: ReportMode, person: PersonTime): Promise<Conn> {
    const ep = this.ctx.endpoint;
    const ftp = ep.ftp!;
    const stage = (s: LiveStage, t0: number, p0: number, detail: string, warning?: string) => {
      if (reports(mode, s)) this.ctx.stage({ stage: s, ok: true, detail, ...person.step(t0, p0), ...(warning ? { warning } : {}) });
    };
    // basic-ftp times the control connection only while a command waits for its reply, so no timer
    // runs while a person answers; the server may still end a login that waits (ProFTPD's
    // TimeoutLogin, 300 s by default): then open() connects once more.
    const client = new Client(ep.timeoutMs);
    client.ftp.encoding = ftp.encoding;
    const conn: Conn = { client };
    client.prepareTransfer = (ctx: FTPContext) => this.passive(ctx, conn);
    const close = () => client.close();
    const where = `${ep.host}:${ep.port}`;
    /** After a question: the connection must still be open (a FIN while nobody was waiting for a reply goes unnoticed by basic-ftp). */
    const stillOpen = (s: LiveStage) => {
      const sock = client.ftp.socket;
      if (client.closed || sock.destroyed || sock.readableEnded || !sock.writable) {
        throw new LiveError('connection-lost', s, `${where} closed the connection while a question was open.`, { next: 'Try again, and answer sooner: the server ends a login that waits too long.' });
      }
    };
    try {
      let t = Date.now();
      let p0 = person.total();
      if (!isIP(ep.host)) {
        const addrs = await abortable(signal, 'resolve', () => lookup(ep.host, { all: true }).catch((e) => Promise.reject(netError(e, 'resolve', ep.host))));
        stage('resolve', t, p0, `${ep.host} resolved to ${addrs.map((a) => a.address).join(', ')}`);
      } else stage('resolve', t, p0, `${ep.host} is an address`);
      const tlsOptions = {
        host: ep.host,
        ...(isIP(ep.host) ? {} : { servername: ep.host }),
        rejectUnauthorized: false,
        ...(secureContextOf(this.ctx.options.trust) ? { secureContext: secureContextOf(this.ctx.options.trust)! } : {}),
      };
      t = Date.now();
      p0 = person.total();
      try {
        if (ftp.tls === 'implicit') await abortable(signal, 'connect', () => client.connectImplicitTLS(ep.host, ep.port, tlsOptions), close);
        else await abortable(signal, 'connect', () => client.connect(ep.host, ep.port), close);
      } catch (e) {
        throw this.ftpError(e, ftp.tls === 'implicit' ? 'tls' : 'connect', where);
      }
      stage('connect', t, p0, `connected to ${client.ftp.socket.remoteAddress}:${client.ftp.socket.remotePort}${ftp.tls === 'implicit' ? ' (TLS from the first byte)' : ''}`, mode === 'again' ? RECONNECTED : undefined);
      if (ftp.tls !== 'none') {
        t = Date.now();
        p0 = person.total();
        if (ftp.tls === 'explicit') {
          try {
            await abortable(signal, 'tls', () => client.useTLS(tlsOptions), close);
          } catch (e) {
            if (e instanceof FTPError) {
              throw new LiveError('tls', 'tls', `The server refused FTPS (AUTH TLS: ${reply(e)}).`, {
                next: 'The server may not offer FTP over TLS: ask its administrator, or use SFTP. The password was not sent.',
                detail: reply(e),
              });
            }
            throw this.ftpError(e, 'tls', where);
          }
        }
        const v = await abortable(signal, 'tls', () => verifyTls(client.ftp.socket as TLSSocket, this.ctx.options.trust, ep.host, ep.port, ep.label, this.ctx.once, person), close);
        if (person.asked) stillOpen('tls');
        stage('tls', t, p0, `${v.protocol}, ${v.cert.subject}, SHA-256 ${v.cert.fingerprint256} (${v.how === 'ca' ? 'trusted authority' : v.how === 'pinned' ? 'pinned' : 'accepted'})`);
      }
      t = Date.now();
      p0 = person.total();
      // Before USER: some servers take a non-ASCII user name only in UTF-8 mode.
      const utf8Before = ftp.encoding === 'utf8' ? (await client.sendIgnoringError('OPTS UTF8 ON')).code < 400 : false;
      let refused = false;
      let why: string | undefined;
      for (let attempt = 0; ; attempt++) {
        const asked = person.total();
        const password = await abortable(signal, 'login', () => this.ctx.password(refused, why, person), close);
        if (person.total() !== asked) stillOpen('login');
        try {
          await abortable(signal, 'login', () => client.login(ep.user, password), close);
          break;
        } catch (e) {
          if (e instanceof FTPError && (e.code === 530 || e.code === 430) && attempt < 2) {
            refused = true;
            why = reply(e);
            continue;
          }
          if (e instanceof FTPError && (e.code === 530 || e.code === 430)) {
            throw new LiveError('auth', 'login', `The server refused the login of ${ep.user}: ${reply(e)}.`, { next: 'Check the user name and the password.', detail: reply(e), data: { code: e.code } });
          }
          throw this.ftpError(e, 'login', where);
        }
      }
      await this.settings(client, utf8Before);
      if (this.root === undefined) {
        const pwd = await client.pwd();
        this.root = ep.root.startsWith('/') ? ep.root : ep.root ? joinAbs(pwd, ep.root) : pwd;
        const cd = await client.sendIgnoringError(`CWD ${this.root}`);
        if (cd.code >= 400) {
          throw new LiveError('not-found', 'login', `The site's folder "${this.root}" cannot be opened: ${cd.code} ${oneLine(cd.message)}.`, { next: 'Check the site\'s home directory (dir).', detail: `${cd.code} ${oneLine(cd.message)}` });
        }
      }
      stage('login', t, p0, `logged in as ${ep.user}; folder ${this.root}`);
      return conn;
    } catch (e) {
      client.close();
      throw e instanceof LiveError ? e : this.ftpError(e, 'connect', where);
    }
  }

  /**
   * What basic-ftp's useDefaultSettings() does, without the round trips a pooled connection does
   * not need (each is one round trip before the connection's first listing; rclone sends about
   * five commands to log in, basic-ftp nine): FEAT once per site (the first connection's answer
   * serves the others), no STRU F (file structure is FTP's default), OPTS UTF8 ON after login
   * only when the one before USER was refused, OPTS MLST only when a fact we read is offered but
   * not on by default.
   */
  private async settings(client: Client, utf8Before: boolean): Promise<void> {
    let feats = this.feats;
    if (!feats) {
      feats = await client.features();
      this.feats = feats;
      this.mlsd = feats.has('MLST');
      this.mfmt = feats.has('MFMT');
    }
    await client.send('TYPE I');
    if (this.ctx.endpoint.ftp!.encoding === 'utf8' && !utf8Before) await client.sendIgnoringError('OPTS UTF8 ON');
    if (this.mlsd) {
      const opts = mlstOptions(feats.get('MLST') ?? '');
      if (opts) await client.sendIgnoringError(opts);
    }
    if (client.ftp.hasTLS) {
      await client.sendIgnoringError('PBSZ 0');
      await client.sendIgnoringError('PROT P');
    }
  }

  /** Passive mode: EPSV, else PASV with its address checked (see the file's comment). */
  private async passive(ftp: FTPContext, conn: Conn): Promise<FTPResponse> {
    const control = (ftp.socket.remoteAddress ?? '').replace(/^::ffff:/i, '');
    const epsv = await ftp.request('EPSV').catch((e: unknown) => e);
    if (!(epsv instanceof Error)) {
      const m = /[|!]{3}(\d+)[|!]/.exec((epsv as { message: string }).message);
      if (m) {
        openDataNow(ftp, control, Number(m[1]));
        return epsv as FTPResponse;
      }
    } else if (!(epsv instanceof FTPError)) throw epsv;
    const res = await ftp.request('PASV');
    const m = /(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)/.exec(res.message);
    if (!m) throw new LiveError('protocol', 'list', `The server's PASV answer cannot be read: ${oneLine(res.message)}.`, { next: 'Check the server\'s passive-mode settings.' });
    let host = `${m[1]}.${m[2]}.${m[3]}.${m[4]}`;
    const port = Number(m[5]) * 256 + Number(m[6]);
    if (host !== control) {
      if (PRIVATE_V4.test(host) && !PRIVATE_V4.test(control) && !isLoopbackHost(control)) {
        conn.warning = `passive mode: the server answered with a private address (${host}); the control connection's address ${control} was used`;
        host = control;
      } else if (!(isLoopbackHost(host) && isLoopbackHost(control))) {
        throw new LiveError('passive-private', 'list', `Passive mode: the server asked for a data connection to another host (${host}) than the one connected to (${control}); refused.`, {
          next: 'Set the server\'s passive address (masquerade address) to its public address.',
          data: { pasv: host, control },
        });
      }
    }
    try {
      await connectData(ftp, host, port);
    } catch (e) {
      if (conn.warning) {
        throw new LiveError('passive-private', 'list', 'Passive mode: the server answered with a private address, and the data connection to its public address failed.', {
          next: 'Set the server\'s passive address (masquerade address) to its public address, and open its passive ports in the firewall.',
          detail: e instanceof Error ? e.message : String(e),
        });
      }
      throw e;
    }
    return res;
  }

  private ftpError(e: unknown, stage: LiveStage, where: string): LiveError {
    if (e instanceof LiveError) return e;
    if (e instanceof FTPError) {
      const msg = reply(e);
      if (e.code === 550 && /permission|denied/i.test(e.message)) return new LiveError('permission', stage, `The server refused: ${msg}.`, { next: 'Check the user\'s permissions on the server.', detail: msg });
      if (e.code === 550 || e.code === 450) return new LiveError('not-found', stage, `The server says: ${msg}.`, { next: 'Refresh the folder: the file may have been moved or deleted.', detail: msg });
      if (e.code === 421) return new LiveError('connection-lost', stage, `The server closed the session: ${msg}.`, { next: 'Try again; the server may limit the connections per user (lower the pool size).', detail: msg });
      return new LiveError('server', stage, `The server says: ${msg}.`, { next: 'Check the server\'s logs or its administrator.', detail: msg });
    }
    const m = e instanceof Error ? e.message : String(e);
    if (/Timeout/i.test(m)) return timedOut(stage, this.ctx.endpoint.timeoutMs, `${where}`);
    return netError(e, stage, where);
  }

  private reportWarning(c: Conn, stage: LiveStage): void {
    if (!c.warning) return;
    this.ctx.stage({ stage, ok: true, detail: 'passive mode', ms: 0, warning: c.warning });
    this.ctx.options.log?.('warn', c.warning);
    c.warning = undefined;
  }

  private use<T>(signal: AbortSignal, stage: LiveStage, fn: (c: Conn) => Promise<T>): Promise<T> {
    return this.pool.use(
      signal,
      (c) =>
        abortable(signal, stage, () => fn(c), () => c.client.close()).catch((e) => {
          throw this.ftpError(e, stage, `${this.ctx.endpoint.host}:${this.ctx.endpoint.port}`);
        }),
      (e) => c_broken(e),
    );
  }

  /**
   * A walk's connections: opened once one has logged in (its password and certificate are
   * settled by then, so the others ask nothing), while that one lists the walk's first folder.
   */
  warm(n: number): void {
    this.warmTo = Math.max(this.warmTo, n);
    if (this.pool.open > 0 && this.root !== undefined) this.warmNow();
  }

  private warmNow(): void {
    const n = this.warmTo;
    this.warmTo = 0;
    if (n > 1) this.pool.warm(n);
  }

  async connect(signal: AbortSignal): Promise<void> {
    await this.use(signal, 'login', async () => undefined);
  }

  async list(path: string, emit: (entries: LiveEntry[]) => void, signal: AbortSignal): Promise<void> {
    try {
      await this.listOnce(path, emit, signal, this.pipelining);
    } catch (e) {
      // A pipelined MLSD that did not start (nothing was emitted): once more, one command at a time.
      if (!(e instanceof LiveError && e.data?.pipelined)) throw e;
      await this.listOnce(path, emit, signal, false);
    }
  }

  private async listOnce(path: string, emit: (entries: LiveEntry[]) => void, signal: AbortSignal, pipelined: boolean): Promise<void> {
    await this.use(signal, 'list', async (c) => {
      const dir = this.abs(path);
      const links: LiveEntry[] = [];
      const seen = new Set<string>();
      let hasLinks = false;
      if (this.mlsd) {
        let rest = '';
        const decoder = new TextDecoder(this.ctx.endpoint.ftp!.encoding === 'latin1' ? 'latin1' : 'utf-8');
        const sink = new Writable({
          write: (chunk: Buffer, _enc, cb) => {
            const text = rest + decoder.decode(chunk, { stream: true });
            const lines = text.split(/\r?\n/);
            rest = lines.pop() ?? '';
            const batch: LiveEntry[] = [];
            for (const l of lines) {
              const e = parseMlsx(l, path);
              if (!e) continue;
              if (e.type === 'symlink') {
                hasLinks = true;
                links.push(e);
              } else batch.push(e);
              seen.add(e.name);
            }
            if (batch.length) emit(batch);
            cb();
          },
        });
        await this.mlsdTo(c, dir, sink, pipelined);
        // RFC 3659: every MLSD line ends with CRLF. A last line without one is a listing cut off
        // (the data connection closed early while the server still said 226).
        if ((rest + decoder.decode()).trim()) {
          throw new LiveError('connection-lost', 'list', `The listing of "${path || '/'}" was cut off: the data connection closed in the middle of a line.`, { next: 'Try again; if it repeats, a firewall or the server drops the data connection.' });
        }
      }
      if (!this.mlsd || hasLinks) {
        // LIST: the whole listing without MLSD; with MLSD, only the links' targets (MLSD gives none)
        // and the links MLSD leaves out (proftpd: dangling ones, and those out of its chroot).
        const infos = parseList(await listText(c, `LIST -a ${dir}`));
        const batch: LiveEntry[] = [];
        for (const f of infos) {
          if (f.name === '.' || f.name === '..') continue;
          const e = fromFileInfo(f, path);
          if (!this.mlsd) batch.push(e);
          else if (e.type === 'symlink') {
            const m = links.find((l) => l.name === e.name);
            if (m) m.link = e.link!;
            else if (!seen.has(e.name)) batch.push(e);
          }
        }
        batch.push(...links);
        if (batch.length) emit(batch);
      } else if (links.length) emit(links);
    });
  }

  /**
   * MLSD of `dir` into `sink`. Pipelined: EPSV and MLSD leave in one write, so the server answers
   * MLSD as soon as the data connection it announced arrives (one round trip less per folder: a
   * walk of 1,000 folders took 11 s instead of 15 through 20 ms of latency). When EPSV fails (a
   * 425, or a server without it) the MLSD behind it is still to be answered, in ways that differ
   * (ProFTPD tries an active connection): the connection is closed and the listing done again one
   * command at a time; a server that does not know EPSV, or that never answers a first pipelined
   * MLSD, is not sent one again.
   */
  private async mlsdTo(c: Conn, dir: string, sink: Writable, pipelined: boolean): Promise<void> {
    const ftp = c.client.ftp;
    const transfer = { ftp, tracker: progressTrackerOf(c.client), remotePath: dir, type: 'list' as const };
    if (!pipelined || /[\r\n\0]/.test(dir)) {
      await c.client.prepareTransfer(ftp);
      this.reportWarning(c, 'list');
      await downloadTo(sink, { ...transfer, command: `MLSD ${dir}` });
      return;
    }
    const control = (ftp.socket.remoteAddress ?? '').replace(/^::ffff:/i, '');
    const again = (why: string, cause: unknown): LiveError =>
      new LiveError('connection-lost', 'list', `The pipelined listing of "${dir}" did not start (${why}).`, { next: 'Try again.', data: { pipelined: 1 }, cause });
    const answer = ftp.handle(undefined, (res, task) => (res instanceof Error ? task.reject(res) : task.resolve(res)));
    ftp.socket.write(`EPSV\r\nMLSD ${dir}\r\n`, ftp.encoding);
    const res: unknown = await answer.catch((e: unknown) => e);
    const m = res instanceof Error ? null : /[|!]{3}(\d+)[|!]/.exec((res as FTPResponse).message);
    if (!m) {
      if (res instanceof FTPError && res.code >= 500) this.pipelining = false;
      if (res instanceof Error && !(res instanceof FTPError)) throw res;
      throw again(res instanceof FTPError ? reply(res) : 'no port in the EPSV answer', res);
    }
    openDataNow(ftp, control, Number(m[1]));
    const listed = downloadTo(sink, { ...transfer, command: '' });
    if (this.pipelineProven) {
      await listed;
      return;
    }
    // Until a pipelined MLSD has been answered once, a server that drops a command sent before
    // the last one was answered must not cost the whole timeout: no byte and no end within half
    // of it, and the listing is done again one command at a time.
    let guard: NodeJS.Timeout | undefined;
    const dropped = new Promise<'dropped'>((resolve) => {
      guard = setTimeout(() => resolve('dropped'), Math.max(1000, this.ctx.endpoint.timeoutMs / 2));
      ftp.dataSocket?.once('data', () => clearTimeout(guard));
    });
    try {
      if ((await Promise.race([listed, dropped])) === 'dropped') {
        this.pipelining = false;
        listed.catch(() => undefined);
        c.client.close();
        throw again('no answer to MLSD', undefined);
      }
      this.pipelineProven = true;
    } finally {
      clearTimeout(guard);
    }
  }

  async stat(path: string, signal: AbortSignal): Promise<LiveEntry | undefined> {
    return this.use(signal, 'list', async (c) => {
      if (!path) return { name: '', path: '', type: 'dir' } as LiveEntry;
      const abs = this.abs(path);
      if (this.mlsd) {
        const r = await c.client.sendIgnoringError(`MLST ${abs}`);
        if (r.code >= 400) return undefined;
        const line = r.message.split(/\r?\n/).find((l) => /^\s*\S+=/.test(l) && l.includes(';'));
        const e = line ? parseMlsx(line.trim(), '') : undefined;
        if (!e) return undefined;
        e.name = baseName(path);
        e.path = path;
        return e;
      }
      const size = await c.client.sendIgnoringError(`SIZE ${abs}`);
      const mdtm = await c.client.sendIgnoringError(`MDTM ${abs}`);
      if (size.code >= 400 && mdtm.code >= 400) {
        const cd = await c.client.sendIgnoringError(`CWD ${abs}`);
        return cd.code < 400 ? { name: baseName(path), path, type: 'dir' } : undefined;
      }
      const raw = mdtm.code < 400 ? mdtm.message.replace(/^\d+\s+/, '').trim() : undefined;
      const e: LiveEntry = { name: baseName(path), path, type: 'file' };
      if (size.code < 400) e.size = Number(size.message.replace(/^\d+\s+/, ''));
      if (raw) {
        e.mtimeRaw = raw;
        const t = mlsxTime(raw);
        if (t !== undefined) e.mtime = t;
      }
      return e;
    });
  }

  async read(path: string, start: number, signal: AbortSignal, knownSize?: number): Promise<DriverRead> {
    const c = await this.pool.acquire(signal);
    const out = new PassThrough({ highWaterMark: 256 * 1024 });
    // Its error reaches whoever iterates it; one before it is handed out (a cancel during SIZE) must not crash.
    out.on('error', () => undefined);
    let size: number | undefined;
    let done = false;
    const finish = (broken: boolean) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      this.pool.release(c, broken);
    };
    const onAbort = () => {
      c.client.close();
      out.destroy(cancelled('read'));
      finish(true);
    };
    // Listening from the first command on: a cancel during SIZE (a stalled server) ends at once.
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) throw cancelled('read');
      // A size the caller has from a listing spares the SIZE round trip (a folder download: one in
      // four of a small file's round trips); RETR of a folder then fails as any failed RETR does.
      const sz = knownSize !== undefined ? undefined : await abortable(signal, 'read', () => c.client.sendIgnoringError(`SIZE ${this.abs(path)}`));
      if (!sz) size = Math.max(0, knownSize! - start);
      else if (sz.code < 400) size = Math.max(0, Number(sz.message.replace(/^\d+\s+/, '')) - start);
      else if (sz.code === 550) {
        const cd = await abortable(signal, 'read', () => c.client.sendIgnoringError(`CWD ${this.abs(path)}`));
        if (cd.code < 400) throw new LiveError('not-a-file', 'read', `"${path}" is a folder.`, { next: 'Open a file.' });
      }
      c.client
        .downloadTo(out, this.abs(path), start)
        .then(() => finish(false))
        .catch((e: unknown) => {
          out.destroy(this.ftpError(e, 'read', path));
          finish(true);
        });
      this.reportWarning(c, 'read');
    } catch (e) {
      finish(signal.aborted || !(e instanceof LiveError));
      throw signal.aborted ? cancelled('read') : this.ftpError(e, 'read', path);
    }
    return {
      stream: out,
      size,
      destroy: () => {
        // Read to its end: the transfer's own end (the server's 226) gives the connection back
        // whole; closing it here would cost the next read a new connection and login.
        if (!done && !out.readableEnded) {
          c.client.close();
          out.destroy();
          finish(true);
        }
      },
    };
  }

  async write(path: string, source: AsyncIterable<Uint8Array>, _size: number | undefined, signal: AbortSignal, onBytes: (n: number) => void): Promise<void> {
    await this.use(signal, 'write', async (c) => {
      const { Readable } = await import('node:stream');
      const counted = Readable.from(
        (async function* () {
          for await (const b of source) {
            onBytes(b.length);
            yield b;
          }
        })(),
      );
      await c.client.prepareTransfer(c.client.ftp);
      await uploadFrom(counted, { ftp: c.client.ftp, tracker: progressTrackerOf(c.client), command: 'STOR', remotePath: this.abs(path), type: 'upload' });
    });
  }

  async mkdir(path: string, signal: AbortSignal): Promise<void> {
    await this.use(signal, 'write', (c) => c.client.send(`MKD ${this.abs(path)}`));
  }

  async remove(path: string, dir: boolean, signal: AbortSignal): Promise<void> {
    await this.use(signal, 'write', async (c) => {
      const r = await c.client.sendIgnoringError(`${dir ? 'RMD' : 'DELE'} ${this.abs(path)}`);
      if (r.code >= 400 && !/no such|not found|does not exist/i.test(r.message)) throw new FTPError(r);
    });
  }

  async rename(from: string, to: string, signal: AbortSignal): Promise<void> {
    await this.use(signal, 'write', (c) => c.client.rename(this.abs(from), this.abs(to)));
  }

  async setTime(path: string, mtime: number, signal: AbortSignal): Promise<void> {
    if (!this.mfmt) throw new LiveError('server', 'write', 'The server cannot set modification times (no MFMT).', { next: 'The server keeps the time of the upload.' });
    const d = new Date(mtime);
    const stamp = d.toISOString().replace(/[-:T]/g, '').replace(/\..*$/, '');
    await this.use(signal, 'write', (c) => c.client.send(`MFMT ${stamp} ${this.abs(path)}`));
  }

  async chmod(path: string, mode: number, signal: AbortSignal): Promise<void> {
    if (!this.chmodOk) throw new LiveError('server', 'write', 'The server does not allow SITE CHMOD.', { next: 'Set permissions on the server.' });
    await this.use(signal, 'write', async (c) => {
      const r = await c.client.sendIgnoringError(`SITE CHMOD ${(mode & 0o7777).toString(8)} ${this.abs(path)}`);
      if (r.code >= 500) {
        this.chmodOk = !/not understood|unknown|not implemented|not allowed/i.test(r.message);
        throw new FTPError(r);
      }
    });
  }

  async close(): Promise<void> {
    this.pool.close();
  }
}

function c_broken(e: unknown): boolean {
  // An FTP error reply leaves the connection usable; anything else (timeouts, lost connections, a
  // transfer cut) leaves it in an unknown state.
  if (e instanceof LiveError) return !['not-found', 'permission', 'server', 'exists', 'not-a-file', 'not-a-folder'].includes(e.kind);
  return !(e instanceof FTPError);
}

/** An FTP error reply as one line, with its code once. */
function reply(e: FTPError): string {
  const m = oneLine(e.message);
  return /^\d{3}\b/.test(m) ? m : `${e.code} ${m}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim().slice(0, 200);
}

function progressTrackerOf(c: Client): never {
  return (c as unknown as { _progressTracker: never })._progressTracker;
}

async function listText(c: Conn, command: string): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  await c.client.prepareTransfer(c.client.ftp);
  await downloadTo(sink, { ftp: c.client.ftp, tracker: progressTrackerOf(c.client), command, remotePath: '', type: 'list' });
  return Buffer.concat(chunks).toString(c.client.ftp.encoding);
}

/** A data connection to host:port: basic-ftp's own (TLS with the control connection's session, timeouts). */
/**
 * EPSV's data connection, handed to basic-ftp as soon as it is asked for, not once TCP's (and
 * TLS's) handshake is done: the command that uses it (MLSD, RETR, STOR) leaves in the same round
 * trip as the connection's SYN. basic-ftp and rclone wait for the handshake first, which costs
 * one round trip per listing and per file on a real network. The server answers the command
 * when the connection has arrived (RFC 959 lets the client connect before or after it); a
 * download pipes the socket, which delivers once connected, and an upload waits for 150 (and
 * secureConnect) as before. A connection that fails or never comes is the transfer's error: the
 * socket's errors go to the transfer (basic-ftp's data-socket handlers), and the control
 * connection's timeout covers a server left waiting.
 */
function openDataNow(ftp: FTPContext, host: string, port: number): void {
  const raw = new Socket();
  raw.connect({ port, host, ...(ftp.ipFamily ? { family: ftp.ipFamily } : {}) });
  let socket: Socket = raw;
  if (ftp.socket instanceof TLSSocket) {
    // The control connection's TLS session, reused on the data connection (ProFTPD's and
    // vsftpd's default requirement); a newer ticket the server sends replaces it for the next.
    const t = tlsConnect({ ...ftp.tlsOptions, socket: raw, session: ftp.tlsSessionStore ?? ftp.socket.getSession() });
    t.on('session', (session: Buffer) => {
      ftp.tlsSessionStore = session;
    });
    socket = t;
  }
  ftp.dataSocket = socket;
}

function connectData(ftp: FTPContext, host: string, port: number): Promise<void> {
  return connectForPassiveTransfer(host, port, ftp);
}

/** An MLSx time (YYYYMMDDHHMMSS[.sss], UTC) as epoch ms. */
export function mlsxTime(raw: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,3}))?$/.exec(raw.trim());
  if (!m) return undefined;
  const t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7] ? Number(m[7].padEnd(3, '0')) : 0);
  return Number.isFinite(t) ? t : undefined;
}

/** The facts parseMlsx reads. */
const MLST_FACTS = ['type', 'size', 'modify', 'unique', 'unix.mode'];

/**
 * The OPTS MLST command that turns on the facts we read, from FEAT's MLST line (RFC 3659 §7.9:
 * `modify*;size*;…`, a star for a fact on by default); undefined when every one the server
 * offers is on already. An MLST line that names no fact gets the command (nothing to judge by).
 */
export function mlstOptions(featLine: string): string | undefined {
  const offered = new Map<string, boolean>();
  for (const f of featLine.split(';')) {
    const t = f.trim();
    if (t) offered.set(t.replace(/\*$/, '').toLowerCase(), t.endsWith('*'));
  }
  const want = offered.size ? MLST_FACTS.filter((f) => offered.has(f)) : MLST_FACTS;
  if (offered.size && want.every((f) => offered.get(f))) return undefined;
  return `OPTS MLST ${want.join(';')};`;
}

/** One MLSD/MLST line (`facts; name`) as an entry under `dir`; undefined for `.`/`..` and lines it cannot read. */
export function parseMlsx(line: string, dir: string): LiveEntry | undefined {
  const sp = line.indexOf(' ');
  if (sp <= 0) return undefined;
  const facts = new Map<string, string>();
  for (const f of line.slice(0, sp).split(';')) {
    const eq = f.indexOf('=');
    if (eq > 0) facts.set(f.slice(0, eq).toLowerCase(), f.slice(eq + 1));
  }
  let name = line.slice(sp + 1);
  if (name.includes('/')) name = name.slice(name.lastIndexOf('/') + 1);
  const type = (facts.get('type') ?? '').toLowerCase();
  if (!type || type === 'cdir' || type === 'pdir' || name === '.' || name === '..') return undefined;
  const e: LiveEntry = {
    name,
    path: joinRel(dir, name),
    type: type === 'file' ? 'file' : type === 'dir' ? 'dir' : /symlink|slink/.test(type) ? 'symlink' : 'other',
  };
  if (e.type === 'symlink') {
    const t = /slink:(.*)$/i.exec(facts.get('type') ?? '');
    e.link = { target: t?.[1] ?? '' };
  }
  const size = facts.get('size') ?? facts.get('sizd');
  if (size && /^\d+$/.test(size) && e.type !== 'dir') e.size = Number(size);
  const modify = facts.get('modify');
  if (modify) {
    e.mtimeRaw = modify;
    const t = mlsxTime(modify);
    if (t !== undefined) e.mtime = t;
  }
  const unique = facts.get('unique');
  if (unique) e.etag = unique;
  const mode = facts.get('unix.mode');
  if (mode && /^[0-7]+$/.test(mode)) e.mode = parseInt(mode, 8);
  return e;
}

/** A LIST line parsed by basic-ftp, as an entry (its time is the server's local time: raw only). */
function fromFileInfo(f: FileInfo, dir: string): LiveEntry {
  const e: LiveEntry = { name: f.name, path: joinRel(dir, f.name), type: f.isSymbolicLink ? 'symlink' : f.isDirectory ? 'dir' : f.isFile ? 'file' : 'other' };
  if (f.isSymbolicLink) e.link = { target: f.link ?? '' };
  if (e.type === 'file') e.size = f.size;
  if (f.rawModifiedAt) e.mtimeRaw = f.rawModifiedAt;
  const p = f.permissions;
  if (p) e.mode = (p.user << 6) | (p.group << 3) | p.world;
  return e;
}

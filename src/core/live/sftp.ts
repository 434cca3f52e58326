// SFTP with ssh2: a chunk of its own, loaded on the first connection to an SFTP site (ssh2's
// optional native parts, cpu-features and sshcrypto.node, stay out of the bundle: esbuild.mjs;
// ssh2 falls back to Node's crypto without them). What we add around the library:
// - the steps one by one: the name resolved, TCP (our own socket, handed to ssh2), the host key
//   verified by trust.ts BEFORE any credential is sent (ssh2 waits for hostVerifier's answer),
//   the login (password asked again when refused; a key file's passphrase asked when needed);
// - the host key types we already know for the host asked for first, so that a server with
//   several keys presents the one on record;
// - ONE SSH connection per site with one SFTP channel, shared by every operation (SFTP carries
//   many requests at once), closed when idle;
// - folders read handle by handle (READDIR batches appear as they come), links' targets read;
// - reads pipelined: up to READ_AHEAD requests of CHUNK bytes in flight (one request at a time is
//   one round trip per chunk: 3 MB/s at 20 ms); writes likewise;
// - a larger receive window than ssh2's: ssh2 gives the server 2 MiB and tops it up only once it
//   has fallen to 1 MiB, so at most 1–2 MiB come per round trip (about 37 MB/s at 20 ms, where
//   OpenSSH's sftp and rclone, which top the window up as they read, reached 50–56 MB/s: the
//   bench's `live` step). The window of the SFTP channel is kept at RECEIVE_WINDOW, topped up as
//   replies arrive; what is in flight stays bounded by the requests (READ_AHEAD × CHUNK).
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { Client, utils, type ConnectConfig, type SFTPWrapper, type Stats } from 'ssh2';
import type { CreateDriver, Driver, DriverRead } from './driver';
import { knownKeyTypes, verifyHostKey } from './trust';
import { LiveError, type LiveEntry, type LiveStage } from './types';
import { abortable, baseName, cancelled, joinAbs, joinRel, LoginDriver, netError, RECONNECTED, reports, SilenceTimer, timedOut, withTimeout, type PersonTime, type ReportMode } from './util';

const CHUNK = 128 * 1024;
const READ_AHEAD = 32;
/** The SFTP channel's receive window kept open (more than READ_AHEAD × CHUNK, so the window never limits a read). */
const RECEIVE_WINDOW = 8 * 1024 * 1024;
/** Top the window up once it has fallen this far below RECEIVE_WINDOW. */
const WINDOW_STEP = 512 * 1024;
const WRITE_AHEAD = 16;

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

interface Conn {
  client: Client;
  sftp: SFTPWrapper;
  posixRename: boolean;
  closed: boolean;
}

export const createDriver: CreateDriver = (ctx) => new SftpDriver(ctx);

/** Gives ssh2 the host key's verdict; after the server closed meanwhile there is nobody to tell (ssh2 may throw). */
function answer(verify: (ok: boolean) => void, ok: boolean): void {
  try {
    verify(ok);
  } catch {
    // the connection is gone: its close is being handled
  }
}

/** SFTP status codes (draft-ietf-secsh-filexfer-02) as LiveError kinds. */
function sftpError(e: unknown, stage: LiveStage, path: string): LiveError {
  if (e instanceof LiveError) return e;
  const code = (e as { code?: unknown }).code;
  const msg = e instanceof Error ? e.message : String(e);
  if (code === 2) return new LiveError('not-found', stage, `"${path}" is not on the server.`, { next: 'Refresh the folder: it may have been moved or deleted.', detail: msg });
  if (code === 3) return new LiveError('permission', stage, `The server refused access to "${path}" (permission denied).`, { next: 'Check the user\'s permissions on the server.', detail: msg });
  if (typeof code === 'number') return new LiveError('server', stage, `The server says: ${msg} ("${path}").`, { next: 'Check the server\'s logs or its administrator.', detail: msg });
  return netError(e, stage, path || 'the server');
}

function typeOf(mode: number): LiveEntry['type'] {
  const t = mode & S_IFMT;
  return t === S_IFDIR ? 'dir' : t === S_IFREG ? 'file' : t === S_IFLNK ? 'symlink' : 'other';
}

function entryOf(name: string, path: string, a: Stats | { mode: number; size: number; mtime: number }): LiveEntry {
  const e: LiveEntry = { name, path, type: typeOf(a.mode), mode: a.mode & 0o7777 };
  if (e.type !== 'dir') e.size = a.size;
  if (typeof a.mtime === 'number') {
    e.mtime = a.mtime * 1000;
    e.mtimeRaw = String(a.mtime);
  }
  return e;
}

/** ssh2's channel internals the window keeper uses (guarded: without them, ssh2's own window applies). */
interface ChannelWindow {
  incoming?: { window: number; state?: string };
  outgoing?: { id: number; state?: string };
  _protocol?: { channelWindowAdjust?(id: number, amount: number): void };
}

/** Keeps the SFTP channel's receive window at RECEIVE_WINDOW (see the file's comment). */
function keepWindow(sftp: SFTPWrapper): void {
  const c = sftp as unknown as ChannelWindow;
  const inc = c.incoming;
  const out = c.outgoing;
  if (!inc || !out || out.state !== 'open' || typeof c._protocol?.channelWindowAdjust !== 'function') return;
  const amount = RECEIVE_WINDOW - inc.window;
  if (amount < WINDOW_STEP) return;
  inc.window += amount;
  c._protocol.channelWindowAdjust(out.id, amount);
}

class SftpDriver extends LoginDriver implements Driver {
  private conn: Promise<Conn> | undefined;
  private busy = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  private open(signal: AbortSignal): Promise<Conn> {
    const where = `${this.ctx.endpoint.host}:${this.ctx.endpoint.port}`;
    return this.connectNew(signal, (e) => (e instanceof LiveError ? e : netError(e, 'connect', where)), (mode, person, refused) => this.openOnce(signal, mode, refused, person));
  }

  /** The password, or the key and its passphrase: asked BEFORE connecting (a prompt waits for a person, and no server should wait for it). */
  private async credentials(person: PersonTime, refused: string | undefined): Promise<Pick<ConnectConfig, 'password' | 'agent' | 'privateKey' | 'passphrase'>> {
    const sftpOpts = this.ctx.endpoint.sftp!;
    if (sftpOpts.auth === 'password') return { password: await this.ctx.password(refused !== undefined, refused, person) };
    if (sftpOpts.auth === 'agent') return { agent: sftpOpts.agentSocket! };
    const keyText = await readFile(sftpOpts.keyFile!).catch((e: unknown) => {
      throw new LiveError('config', 'login', `The key file ${sftpOpts.keyFile} cannot be read (${(e as { code?: string }).code ?? 'error'}).`, { next: 'Check the key file chosen for this site.' });
    });
    let parsed = utils.parseKey(keyText);
    if (parsed instanceof Error && /passphrase/i.test(parsed.message)) {
      let again = false;
      for (let i = 0; i < 3; i++) {
        const pp = await this.ctx.passphrase({ keyFile: sftpOpts.keyFile!, reason: again ? 'refused' : 'login' }, person);
        if (pp === undefined) break;
        parsed = utils.parseKey(keyText, pp);
        if (!(parsed instanceof Error)) return { privateKey: keyText, passphrase: pp };
        again = true;
      }
      throw new LiveError('password-needed', 'login', `The key file ${sftpOpts.keyFile} is encrypted, and no passphrase that opens it was given.`, { next: 'Enter the key\'s passphrase.' });
    }
    if (parsed instanceof Error) {
      throw new LiveError('config', 'login', `The key file ${sftpOpts.keyFile} is not a private key ssh2 can read (${parsed.message}).`, { next: 'Choose an OpenSSH, PEM or PuTTY private key file.' });
    }
    return { privateKey: keyText };
  }

  private async openOnce(signal: AbortSignal, mode: ReportMode, refused: string | undefined, person: PersonTime): Promise<Conn> {
    const ep = this.ctx.endpoint;
    const sftpOpts = ep.sftp!;
    const where = `${ep.host}:${ep.port}`;
    const stage = (s: LiveStage, t0: number, p0: number, detail: string, warning?: string) => {
      if (reports(mode, s)) this.ctx.stage({ stage: s, ok: true, detail, ...person.step(t0, p0), ...(warning ? { warning } : {}) });
    };
    const credentials = await this.credentials(person, refused);
    let t = Date.now();
    let p0 = person.total();
    let address = ep.host;
    if (!isIP(ep.host)) {
      const addrs = await abortable(signal, 'resolve', () => lookup(ep.host, { all: true }).catch((e) => Promise.reject(netError(e, 'resolve', ep.host))));
      address = addrs[0]!.address;
      stage('resolve', t, p0, `${ep.host} resolved to ${addrs.map((a) => a.address).join(', ')}`);
    } else stage('resolve', t, p0, `${ep.host} is an address`);

    t = Date.now();
    p0 = person.total();
    const sock = await this.tcp(address, ep.port, signal);
    stage('connect', t, p0, `connected to ${address}:${ep.port}`, mode === 'again' ? RECONNECTED : undefined);

    // The credentials go only after the host key (ssh2 waits for hostVerifier's answer). ssh2's
    // own readyTimeout (one deadline for the handshake and the login) would count a person's answer
    // against the server: ours is the server's silence, held while a question is open.
    const cfg: ConnectConfig = {
      sock,
      host: ep.host,
      port: ep.port,
      username: ep.user,
      readyTimeout: 0,
      keepaliveInterval: 15_000,
      keepaliveCountMax: 3,
      tryKeyboard: false,
      ...credentials,
    };
    const known = await knownKeyTypes(this.ctx.options.trust, ep.host, ep.port).catch(() => [] as string[]);
    if (known.length) {
      const defaults = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
      const want = known.flatMap((k) => (k === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [k]));
      cfg.algorithms = { serverHostKey: [...new Set([...want, ...defaults])] as never };
    }

    const client = new Client();
    // ssh2 may emit more than one error (a timeout, then "Connection lost before handshake" as the
    // socket closes): the first is handled below, the later ones must not crash the process.
    client.on('error', () => undefined);
    let hostError: LiveError | undefined;
    /** The host key's check under way (its answer sets hostError). */
    let verifying: Promise<void> = Promise.resolve();
    cfg.hostVerifier = ((key: Buffer, verify: (ok: boolean) => void) => {
      const hostAt = Date.now();
      const hostP0 = person.total();
      verifying = verifyHostKey(this.ctx.options.trust, ep.host, ep.port, key, ep.label, { once: this.ctx.once, person }).then(
        (v) => {
          stage('host-key', hostAt, hostP0, `${v.key.type} ${v.key.fingerprint} (${v.how === 'known_hosts' ? 'known_hosts' : v.how === 'store' ? 'trusted before' : 'accepted'})`);
          answer(verify, true);
        },
        (e: unknown) => {
          hostError = e instanceof LiveError ? e : netError(e, 'host-key', where);
          answer(verify, false);
        },
      );
    }) as unknown as ConnectConfig['hostVerifier'];
    t = Date.now();
    p0 = person.total();
    await abortable(
      signal,
      'login',
      () =>
        new Promise<void>((resolve, reject) => {
          const silence = new SilenceTimer(
            ep.timeoutMs,
            () => {
              fail(() => timedOut('login', ep.timeoutMs));
              client.end();
              sock.destroy();
            },
            () => sock.bytesRead,
          );
          const letGo = person.hold(silence);
          const done = () => {
            silence.stop();
            letGo();
          };
          // Judged once the host key's check has its answer: the server may close while a person
          // decides (the answer then says whether that was a refusal or a connection to make again).
          let failed = false;
          const fail = (why: () => LiveError) => {
            if (failed) return;
            failed = true;
            person
              .idle()
              .then(() => verifying)
              .catch(() => undefined)
              .then(() => {
                done();
                reject(hostError ?? why());
              }, reject);
          };
          client.once('ready', () => {
            done();
            resolve();
          });
          client.once('error', (err: Error & { level?: string }) =>
            fail(() => {
              if (err.level === 'client-authentication') {
                return new LiveError('auth', 'login', `The server refused the login of ${ep.user} (${sftpOpts.auth === 'password' ? 'password' : sftpOpts.auth === 'key' ? 'key file' : 'SSH agent'}).`, {
                  next: sftpOpts.auth === 'password' ? 'Check the user name and the password.' : 'Check that the public key is in the user\'s authorized_keys on the server.',
                  detail: err.message,
                  data: { retry: sftpOpts.auth === 'password' ? 1 : 0 },
                });
              }
              if (err.level === 'client-timeout') return timedOut('login', ep.timeoutMs);
              if (/before handshake|handshake failed|Protocol/i.test(err.message)) {
                // After a question, the server ended a login that waited too long.
                if (person.asked) return new LiveError('connection-lost', 'login', `${where} closed the connection during the login (${err.message}).`, { next: 'Try again.', detail: err.message });
                return new LiveError('connection-lost', 'login', `${where} accepted the connection but no SSH server answered (${err.message}).`, { next: 'Is the port right? It must be the SSH port of the server (usually 22).', detail: err.message });
              }
              return netError(err, 'login', where);
            }),
          );
          client.once('close', () => fail(() => new LiveError('connection-lost', 'login', `${where} closed the connection during the login.`, { next: 'Check the server\'s logs (MaxStartups, AllowUsers, LoginGraceTime…).' })));
          client.connect(cfg);
        }),
      () => client.end(),
    ).catch((e) => {
      client.end();
      sock.destroy();
      throw e;
    });
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) =>
      client.sftp((err, s) => (err ? reject(new LiveError('server', 'login', `The server has no SFTP subsystem for ${ep.user}: ${err.message}.`, { next: 'Ask the administrator to enable SFTP for this user.', detail: err.message })) : resolve(s))),
    ).catch((e) => {
      client.end();
      throw e;
    });
    const conn: Conn = { client, sftp, posixRename: false, closed: false };
    keepWindow(sftp);
    const extensions = (sftp as unknown as { _extensions?: Record<string, string> })._extensions ?? {};
    conn.posixRename = extensions['posix-rename@openssh.com'] === '1';
    client.on('close', () => {
      conn.closed = true;
      if (this.conn && this.conn === current) this.conn = undefined;
    });
    if (this.root === undefined) {
      const home = await this.call<string>(conn, 'login', '.', (cb) => sftp.realpath('.', cb));
      const wanted = ep.root.startsWith('/') ? ep.root : ep.root ? joinAbs(home, ep.root) : home;
      const real = await this.call<string>(conn, 'login', wanted, (cb) => sftp.realpath(wanted, cb)).catch((e: unknown) => {
        client.end();
        throw e instanceof LiveError && e.kind === 'not-found' ? new LiveError('not-found', 'login', `The site's folder "${wanted}" is not on the server.`, { next: 'Check the site\'s home directory (dir).' }) : e;
      });
      this.root = real;
    }
    stage('login', t, p0, `logged in as ${ep.user} (${sftpOpts.auth}); folder ${this.root}`);
    const current = this.conn;
    return conn;
  }

  private tcp(host: string, port: number, signal: AbortSignal): Promise<Socket> {
    const ep = this.ctx.endpoint;
    return abortable(
      signal,
      'connect',
      () =>
        withTimeout(ep.timeoutMs, 'connect', () =>
          new Promise<Socket>((resolve, reject) => {
            const s = netConnect({ host, port });
            s.setNoDelay(true);
            // Only while connecting: this socket outlives the operation whose signal opened it.
            const onAbort = () => s.destroy();
            s.once('connect', () => {
              signal.removeEventListener('abort', onAbort);
              s.removeAllListeners('error');
              // ssh2 reports the connection's errors while it holds the socket, and lets go of it
              // when the connection ends: a reset after that (the server restarted) must not be an
              // uncaught error in the extension host (it was, in the live suite's changed key test).
              s.on('error', () => undefined);
              resolve(s);
            });
            s.once('error', (e) => reject(netError(e, 'connect', `${ep.host}:${port}`)));
            signal.addEventListener('abort', onAbort, { once: true });
            setTimeout(() => s.connecting && s.destroy(), ep.timeoutMs).unref();
          }),
        ),
    );
  }

  /** One callback-style SFTP request as a promise, with the timeout and the path in its error. */
  private call<T>(c: Conn, stage: LiveStage, path: string, fn: (cb: (err: Error | null | undefined, v: T) => void) => void): Promise<T> {
    return withTimeout(this.ctx.endpoint.timeoutMs, stage, () => new Promise<T>((resolve, reject) => fn((err, v) => (err ? reject(sftpError(err, stage, path)) : resolve(v)))), () => c.client.end());
  }

  /** The connection, opened once and shared; idle close once no operation is under way. */
  private async with<T>(signal: AbortSignal, stage: LiveStage, fn: (c: Conn) => Promise<T>): Promise<T> {
    this.busy++;
    clearTimeout(this.idleTimer);
    try {
      if (!this.conn) {
        const p = this.open(signal);
        this.conn = p;
        p.catch(() => {
          if (this.conn === p) this.conn = undefined;
        });
      }
      const c = await abortable(signal, stage, () => this.conn!);
      if (c.closed) {
        this.conn = undefined;
        throw new LiveError('connection-lost', stage, 'The SSH connection was closed.', { next: 'Try again.' });
      }
      return await abortable(signal, stage, () => fn(c));
    } finally {
      if (--this.busy === 0) {
        this.idleTimer = setTimeout(() => this.close().catch(() => undefined), this.ctx.endpoint.idleMs);
        this.idleTimer.unref?.();
      }
    }
  }

  async connect(signal: AbortSignal): Promise<void> {
    await this.with(signal, 'login', async () => undefined);
  }

  async list(path: string, emit: (entries: LiveEntry[]) => void, signal: AbortSignal): Promise<void> {
    await this.with(signal, 'list', async (c) => {
      const abs = this.abs(path);
      const handle = await this.call<Buffer>(c, 'list', path, (cb) => c.sftp.opendir(abs, cb));
      try {
        for (;;) {
          if (signal.aborted) throw cancelled('list');
          const items = await this.call<{ filename: string; attrs: Stats }[] | false>(c, 'list', path, (cb) =>
            c.sftp.readdir(handle, (err, list) => (err && (err as { code?: number }).code === 1 ? cb(undefined, false) : cb(err, list as never))),
          );
          if (!items) break;
          const batch = items.filter((i) => i.filename !== '.' && i.filename !== '..').map((i) => entryOf(i.filename, joinRel(path, i.filename), i.attrs));
          for (const e of batch) {
            if (e.type === 'symlink') {
              const target = await this.call<string>(c, 'list', e.path, (cb) => c.sftp.readlink(joinAbs(abs, e.name), cb)).catch(() => '');
              e.link = { target };
            }
          }
          if (batch.length) emit(batch);
        }
      } finally {
        c.sftp.close(handle, () => undefined);
      }
    });
  }

  async stat(path: string, signal: AbortSignal): Promise<LiveEntry | undefined> {
    return this.with(signal, 'list', async (c) => {
      const abs = this.abs(path);
      let st: Stats;
      try {
        st = await this.call<Stats>(c, 'list', path, (cb) => c.sftp.lstat(abs, cb));
      } catch (e) {
        if (e instanceof LiveError && e.kind === 'not-found') return undefined;
        throw e;
      }
      const e = entryOf(baseName(path), path, st);
      if (e.type === 'symlink') e.link = { target: await this.call<string>(c, 'list', path, (cb) => c.sftp.readlink(abs, cb)).catch(() => '') };
      return e;
    });
  }

  async read(path: string, start: number, signal: AbortSignal): Promise<DriverRead> {
    const c = await this.with(signal, 'read', async (x) => x);
    this.busy++;
    clearTimeout(this.idleTimer);
    const abs = this.abs(path);
    const call = this.call.bind(this);
    /** One read request of `len` bytes at `pos`; the buffer trimmed to what came (nothing at the end of the file). */
    const readAt = (h: Buffer, pos: number, len: number) => {
      const buf = Buffer.allocUnsafe(len);
      return call<Buffer>(c, 'read', path, (cb) =>
        c.sftp.read(h, buf, 0, len, pos, (err, n) => {
          keepWindow(c.sftp);
          cb(err, n === len ? buf : buf.subarray(0, n));
        }),
      );
    };
    let handle: Buffer | undefined;
    let size: number;
    // The first chunk is asked for with the fstat (a small file in two round trips: open, then both).
    let first: Promise<Buffer>;
    try {
      // A cancel ends the wait at once (a handle opened after it is closed when it comes).
      const opening = this.call<Buffer>(c, 'read', path, (cb) => c.sftp.open(abs, 'r', cb));
      opening.then((late) => signal.aborted && handle === undefined && c.sftp.close(late, () => undefined), () => undefined);
      handle = await abortable(signal, 'read', () => opening);
      const h = handle;
      first = readAt(h, start, CHUNK);
      first.catch(() => undefined);
      const st = await abortable(signal, 'read', () => this.call<Stats>(c, 'read', path, (cb) => c.sftp.fstat(h, cb)));
      if (typeOf(st.mode) === 'dir') throw new LiveError('not-a-file', 'read', `"${path}" is a folder.`, { next: 'Open a file.' });
      size = st.size;
    } catch (e) {
      if (handle) c.sftp.close(handle, () => undefined);
      this.done();
      throw e;
    }
    const h = handle;
    let closed = false;
    const release = () => {
      if (closed) return;
      closed = true;
      c.sftp.close(h, () => undefined);
      this.done();
    };
    async function* chunks(): AsyncIterable<Uint8Array> {
      let next = start + CHUNK;
      const inflight: Promise<Buffer>[] = [first];
      const issue = () => {
        const pos = next;
        const len = Math.min(CHUNK, size - pos);
        next += len;
        inflight.push(readAt(h, pos, len));
      };
      try {
        while (next < size && inflight.length < READ_AHEAD) issue();
        while (inflight.length) {
          if (signal.aborted) throw cancelled('read');
          const b = await inflight.shift()!;
          if (next < size) issue();
          if (b.length) yield b;
        }
      } finally {
        for (const p of inflight) p.catch(() => undefined);
        release();
      }
    }
    return { stream: chunks(), size: Math.max(0, size - start), destroy: release };
  }

  private done(): void {
    if (--this.busy === 0) {
      this.idleTimer = setTimeout(() => this.close().catch(() => undefined), this.ctx.endpoint.idleMs);
      this.idleTimer.unref?.();
    }
  }

  async write(path: string, source: AsyncIterable<Uint8Array>, _size: number | undefined, signal: AbortSignal, onBytes: (n: number) => void): Promise<void> {
    await this.with(signal, 'write', async (c) => {
      const abs = this.abs(path);
      const handle = await this.call<Buffer>(c, 'write', path, (cb) => c.sftp.open(abs, 'w', cb));
      try {
        let pos = 0;
        const inflight: Promise<void>[] = [];
        for await (const b of source) {
          if (signal.aborted) throw cancelled('write');
          for (let off = 0; off < b.length; off += CHUNK) {
            const part = Buffer.from(b.buffer, b.byteOffset + off, Math.min(CHUNK, b.length - off));
            const at = pos;
            pos += part.length;
            inflight.push(this.call<void>(c, 'write', path, (cb) => c.sftp.write(handle, part, 0, part.length, at, (err) => cb(err, undefined))).then(() => onBytes(part.length)));
            if (inflight.length >= WRITE_AHEAD) await inflight.shift();
          }
        }
        await Promise.all(inflight);
      } finally {
        await this.call<void>(c, 'write', path, (cb) => c.sftp.close(handle, (err) => cb(err, undefined))).catch(() => undefined);
      }
    });
  }

  async mkdir(path: string, signal: AbortSignal): Promise<void> {
    await this.with(signal, 'write', (c) => this.call<void>(c, 'write', path, (cb) => c.sftp.mkdir(this.abs(path), (err) => cb(err, undefined))));
  }

  async remove(path: string, dir: boolean, signal: AbortSignal): Promise<void> {
    await this.with(signal, 'write', (c) =>
      this.call<void>(c, 'write', path, (cb) => (dir ? c.sftp.rmdir(this.abs(path), (err) => cb(err, undefined)) : c.sftp.unlink(this.abs(path), (err) => cb(err, undefined)))).catch((e: unknown) => {
        if (!(e instanceof LiveError && e.kind === 'not-found')) throw e;
      }),
    );
  }

  async rename(from: string, to: string, signal: AbortSignal): Promise<boolean> {
    return this.with(signal, 'write', async (c) => {
      const a = this.abs(from);
      const b = this.abs(to);
      if (c.posixRename) {
        await this.call<void>(c, 'write', to, (cb) => c.sftp.ext_openssh_rename(a, b, (err) => cb(err, undefined)));
        return true;
      }
      // SFTP v3's rename refuses an existing target: remove it first (not atomic: a reader may see no file for a moment).
      try {
        await this.call<void>(c, 'write', to, (cb) => c.sftp.rename(a, b, (err) => cb(err, undefined)));
        return true;
      } catch {
        await this.call<void>(c, 'write', to, (cb) => c.sftp.unlink(b, (err) => cb(err, undefined))).catch(() => undefined);
        await this.call<void>(c, 'write', to, (cb) => c.sftp.rename(a, b, (err) => cb(err, undefined)));
        return false;
      }
    });
  }

  async setTime(path: string, mtime: number, signal: AbortSignal): Promise<void> {
    const s = Math.floor(mtime / 1000);
    await this.with(signal, 'write', (c) => this.call<void>(c, 'write', path, (cb) => c.sftp.utimes(this.abs(path), s, s, (err) => cb(err, undefined))));
  }

  async chmod(path: string, mode: number, signal: AbortSignal): Promise<void> {
    await this.with(signal, 'write', (c) => this.call<void>(c, 'write', path, (cb) => c.sftp.chmod(this.abs(path), mode & 0o7777, (err) => cb(err, undefined))));
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const p = this.conn;
    this.conn = undefined;
    const c = await p?.catch(() => undefined);
    if (c && !c.closed) c.client.end();
  }
}


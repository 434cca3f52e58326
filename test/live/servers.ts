// Real file servers on loopback for the tests and benches (issue 33 §7): ProFTPD (FTP, explicit
// and implicit FTPS, TLS session reuse required on data connections), OpenSSH's sshd (SFTP,
// password and key), Apache mod_dav (http Basic, https self-signed) and an S3 server that checks
// signatures (@20minutes/s3rver, test/live/s3main.ts). Each runs with its own configuration in a
// run folder, on free ephemeral loopback ports, as a direct child of this process; stop() ends
// every process it started and removes the folder. See test/live/README.md.
//
//   const live = await startLiveServers({ only: ['ftp', 'sftp'] });   // in a mocha `before`
//   … live.ftp.port, live.sftp.keyFile, live.ftp.dataDir (what to expect) …
//   await live.stop();                                                 // in `after`
//
// As a program (debugging, trying a client by hand): `node out/test/live/servers.js [--only
// ftp,sftp] [--seed large] [--data DIR] [--keep]` starts them, prints every address and
// credential as JSON, and stops them on Ctrl+C.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, killTree, listProcesses } from '../host/common';
import { ensureNode24 } from '../host/install';
import { makeExpired, makeSelfSigned, type CertFiles } from './certs';
import { OUTSIDE_FILE, writeSeed, type SeedKind } from './seed';
import { ALL_KINDS, ensureLiveTools, ensureSftpUser, s3rverModule, SFTP_USER, type LiveKind } from './system';

export type { LiveKind } from './system';

export interface StartOptions {
  /** Default: all four. */
  only?: LiveKind[];
  /** small (default): the special names, links, times, SAME_SIZE. large: adds test/live/seed.ts LARGE. */
  seed?: SeedKind;
  /** A folder to serve instead of the seed: copied to each server (S3 loads its regular files). Left untouched. */
  dataDir?: string;
  /**
   * FTP only: the server writes LIST times in a time zone this many hours east of UTC
   * (`TimesGMT off` with TZ set), as a server whose local clock is off. MLSD, MLST and MDTM stay in
   * UTC (RFC 3659; proftpd does so whatever TimesGMT says). Default: LIST in UTC.
   */
  ftpListTimeZoneHours?: number;
  /** Keep the run folder (configs, logs, data) after stop(); env SITE_REVISIONS_LIVE_KEEP=1 does the same. */
  keep?: boolean;
  /**
   * How long a client may take to log in, seconds, from its TCP connection on: sshd's
   * LoginGraceTime (default 120) and ProFTPD's TimeoutLogin (default 300). A short one makes the
   * server drop a login that waits for a person (a trust question, a password prompt).
   */
  loginGraceSeconds?: number;
}

/** A server port that a fault proxy can front (test/live/faultProxy.ts), with FTP's passive data ports. */
export interface ProxyTarget {
  host: string;
  port: number;
  /**
   * FTP: the server's passive data ports, bound on `host`, advertised as 127.0.0.1 (PASV) or as
   * the control connection's host (EPSV). A proxy listens on 127.0.0.1 on the same ports and
   * forwards them, so data connections (plain or TLS) pass through it too.
   */
  dataPorts?: { host: string; from: number; to: number };
}

/** What a server's TLS ports present: the run's self-signed certificate, and an expired one. */
export interface LiveCertificates {
  /** The self-signed certificate (PEM), and its SHA-256 fingerprint (X509Certificate.fingerprint256). */
  caFile: string;
  fingerprint256: string;
  /** The expired certificate (FTP's expiredPort, WebDAV's expiredHttpsUrl), and its fingerprint. */
  expiredCaFile: string;
  expiredFingerprint256: string;
}

export interface LiveFtp extends LiveCertificates {
  host: '127.0.0.1';
  /** Plain FTP, and explicit FTPS (AUTH TLS) on the same port. */
  port: number;
  /** Implicit FTPS. */
  implicitPort: number;
  /** Explicit FTPS (TLS required) presenting the expired certificate. */
  expiredPort: number;
  /** Plain FTP that refuses EPSV (`<Limit EPSV> DenyAll`): a server with PASV only. */
  noEpsvPort: number;
  user: string;
  password: string;
  /** The server's own folder on disk (the user's root: `pwd` is `/`). */
  dataDir: string;
  /**
   * The same server for a fault proxy: control on 127.0.0.2 and passive ports that the proxy
   * forwards (`startFaultProxy(live.ftp.proxyTargets.explicit)`; clients then connect to
   * 127.0.0.1:proxy.port, and the certificate still matches 127.0.0.1).
   */
  proxyTargets: { explicit: ProxyTarget; implicit: ProxyTarget };
  /** The TZ offset of LIST times (0 unless ftpListTimeZoneHours). */
  listTimeZoneHours: number;
}

export interface LiveSftp {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  /** An unencrypted ed25519 client key (OpenSSH format), authorized for `user`. */
  keyFile: string;
  /** An ed25519 client key encrypted with keyPassphrase, authorized too. */
  encryptedKeyFile: string;
  keyPassphrase: string;
  /** A file holding keyPassphrase (mode 0600), for clients that read it from a file. */
  keyPassphraseFile: string;
  /** Absolute path on the server (sshd does not chroot): the site's `dir`. Owned by `user`. */
  dataDir: string;
  /** ssh-keyscan's output for the server (rotateHostKey rescans it; the one before is kept as `${knownHostsFile}.previous`). */
  knownHostsFile: string;
  /** The current host key's fingerprint as `ssh-keygen -lf` prints it: "SHA256:…" (no padding). */
  hostKeyFingerprint: string;
  /**
   * Stops sshd, makes a new host key, starts it on the same port, rescans knownHostsFile (the
   * old one moves to `${knownHostsFile}.previous`); returns the new fingerprint.
   */
  rotateHostKey(): Promise<string>;
}

export interface LiveDav extends LiveCertificates {
  httpUrl: string;
  httpsUrl: string;
  /** https with the expired certificate (same data, same user). */
  expiredHttpsUrl: string;
  user: string;
  password: string;
  dataDir: string;
}

export interface LiveS3 {
  /** http://127.0.0.1:PORT, path-style: `${endpoint}/${bucket}/${key}`. */
  endpoint: string;
  /** The same server over https with the self-signed certificate (caFile). */
  httpsEndpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  caFile: string;
  fingerprint256: string;
  /**
   * What the bucket held at start: its regular files (no links, no empty folders). The server's
   * own layout is private: read the bucket's current state through an independent client
   * (test/live/peers.ts: rclone, curl --aws-sigv4).
   */
  seedDir: string;
}

export interface LiveServers {
  /** The run's folder (configs, logs `*.log`, data); removed by stop() unless kept. */
  root: string;
  ftp?: LiveFtp;
  sftp?: LiveSftp;
  dav?: LiveDav;
  s3?: LiveS3;
  /** How long the seed and the start took (ms), for the report. */
  timings: { seedMs: number; startMs: number; totalMs: number; perKind: Partial<Record<LiveKind, number>> };
  /** The processes of the run (the daemons and their children) and the addresses they listen on. */
  inspect(): { daemons: { name: string; pid: number }[]; pids: number[]; ports: { host: string; port: number }[] };
  /** Stops every process it started (sshd's per-connection children too) and removes `root`. Idempotent. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const PROXY_SIDE_HOST = '127.0.0.2';
const RUN_PREFIX = 'srlive-';
const STALE_MS = 24 * 3600 * 1000;
const READY_TIMEOUT_MS = 30_000;
const FTP_UID = 2001;

function log(msg: string): void {
  process.stderr.write(`[live] ${msg}\n`);
}

/**
 * A password of the run. Never one that looks encrypted with a ShiftEdit master password (base64
 * that decodes to such a block: core/live/endpoint.ts looksEncrypted, about 1 in 1,000 random
 * base64 strings), which the live layer rightly does not send: the '-' makes it no base64.
 */
function secret(bytes = 12): string {
  return `pw-${randomBytes(bytes).toString('base64url')}`;
}

function sh(cmd: string, args: string[], opts: { input?: string; cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: opts.cwd, input: opts.input, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || String(r.error ?? '')).trim()}`);
  return r.stdout;
}

function shAsync(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code}): ${err.trim()}`))));
  });
}

/** Whether something accepts a TCP connection on host:port. */
export function canConnect(port: number, host = HOST): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

// ---------------------------------------------------------------------------------------------
// Processes of all runs of this process, for the exit handler

/** The daemons of every run this process has running (so that an exit stops them). */
const liveRuns = new Set<Run>();
let handlersInstalled = false;

/** Kills the daemons of every active run synchronously (SIGKILL, descendants included). */
function killAllNow(): void {
  const procs = listProcesses();
  for (const run of liveRuns) {
    for (const pid of descendantsOf(run.rootPids(), procs)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (!run.keep) fs.rmSync(run.root, { recursive: true, force: true });
  }
  liveRuns.clear();
}

function onSignal(sig: NodeJS.Signals): void {
  killAllNow();
  uninstallHandlers();
  // Nobody else handles it: end as the signal would have.
  if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAllNow);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
}

function uninstallHandlers(): void {
  if (!handlersInstalled) return;
  handlersInstalled = false;
  process.off('exit', killAllNow);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(sig, onSignal);
}

/** `roots` and every live (non-zombie) process below them. */
function descendantsOf(roots: number[], procs = listProcesses()): number[] {
  const found = new Set(roots.filter((pid) => procs.some((p) => p.pid === pid && p.state !== 'Z')));
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of procs) {
      if (!found.has(p.pid) && found.has(p.ppid) && p.state !== 'Z') {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/**
 * Where run folders go: env SITE_REVISIONS_LIVE_TMP, else /dev/shm when it is a tmpfs with room
 * (the large seed writes ~1 GB and 100,000 small files: on this kind of machine's disk, under
 * load, a file costs milliseconds to create and as much to remove; in memory, microseconds),
 * else the system's temp folder.
 */
export function runsBase(): string {
  if (process.env.SITE_REVISIONS_LIVE_TMP) return path.resolve(process.env.SITE_REVISIONS_LIVE_TMP);
  try {
    const st = fs.statfsSync('/dev/shm');
    if (st.bavail * st.bsize > 4 * 1024 ** 3) return '/dev/shm';
  } catch {
    /* no /dev/shm here */
  }
  return os.tmpdir();
}

/** This process's identity for the run folder's owner file: pid and start time (pids are reused). */
function processIdentity(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return `${pid} ${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
  } catch {
    return undefined;
  }
}

/**
 * Removes run folders of earlier runs whose process is gone (killed before it could clean up)
 * or that are older than a day (kept ones: a day after they were kept), stopping what still
 * runs from them (every process whose command line names the folder, and its children).
 */
export function removeStaleRuns(now = Date.now()): string[] {
  const removed: string[] = [];
  const dirs: string[] = [];
  for (const base of new Set([runsBase(), os.tmpdir(), '/dev/shm'])) {
    try {
      dirs.push(...fs.readdirSync(base).filter((n) => n.startsWith(RUN_PREFIX)).map((n) => path.join(base, n)));
    } catch {
      /* no such folder */
    }
  }
  for (const dir of dirs) {
    let stale: boolean;
    try {
      const st = fs.statSync(dir);
      const kept = fs.existsSync(path.join(dir, 'kept'));
      const owner = fs.existsSync(path.join(dir, 'owner')) ? fs.readFileSync(path.join(dir, 'owner'), 'utf8').trim() : '';
      const ownerAlive = owner !== '' && processIdentity(Number(owner.split(' ')[0])) === owner;
      stale = now - st.mtimeMs > STALE_MS || (!kept && !ownerAlive && now - st.mtimeMs > 60_000);
    } catch {
      continue;
    }
    if (!stale) continue;
    const procs = listProcesses();
    const roots = procs.filter((p) => p.cmd.includes(dir)).map((p) => p.pid);
    for (const pid of descendantsOf(roots, procs)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

// ---------------------------------------------------------------------------------------------
// One daemon

class Daemon {
  child: ChildProcess | undefined;
  private exited: { code: number | null; signal: string | null } | undefined;

  constructor(
    readonly name: string,
    private readonly cmd: string,
    private readonly args: string[],
    private readonly logFile: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get pid(): number | undefined {
    return this.exited ? undefined : this.child?.pid;
  }

  /** Starts it and resolves once every port accepts a connection; rejects with its log's tail if it exits first. */
  async start(ports: (number | { host: string; port: number })[], ready?: (child: ChildProcess) => Promise<void>): Promise<void> {
    const fd = fs.openSync(this.logFile, 'a');
    this.exited = undefined;
    const child = spawn(this.cmd, this.args, { stdio: [ready ? 'pipe' : 'ignore', ready ? 'pipe' : fd, fd], detached: true, env: this.env });
    fs.closeSync(fd);
    this.child = child;
    const exited = new Promise<never>((_, reject) => {
      child.once('error', (err) => reject(new Error(`${this.name}: ${err.message}`)));
      child.once('exit', (code, signal) => {
        this.exited = { code, signal };
        reject(new Error(`${this.name} exited (${signal ?? `code ${code}`}) before it was ready:\n${this.tail()}`));
      });
    });
    exited.catch(() => undefined);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const listening = (async () => {
      if (ready) await ready(child);
      for (const p of ports) {
        const { host, port } = typeof p === 'number' ? { host: HOST, port: p } : p;
        while (!(await canConnect(port, host))) {
          if (this.exited) return;
          if (Date.now() > deadline) throw new Error(`${this.name} did not listen on ${host}:${port} within ${READY_TIMEOUT_MS / 1000} s:\n${this.tail()}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    })();
    await Promise.race([listening, exited]);
  }

  tail(lines = 15): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Stops it and every process below it (sshd's per-connection children first by being found while it lives). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid || this.exited) return;
    const gone = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
    const left = await killTree(child.pid, 5000);
    if (left.length) throw new Error(`${this.name}: still running after SIGKILL: ${left.join('; ')}`);
    await gone;
  }
}

// ---------------------------------------------------------------------------------------------
// A run

class Run {
  readonly daemons: Daemon[] = [];
  readonly ports: { host: string; port: number }[] = [];
  /** Port ranges reserved for the run (FTP's passive ports behind a fault proxy). */
  readonly held: PortRange[] = [];
  private stopped: Promise<void> | undefined;

  constructor(
    readonly root: string,
    readonly keep: boolean,
  ) {}

  rootPids(): number[] {
    return this.daemons.map((d) => d.pid).filter((p): p is number => p !== undefined);
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      const errors: string[] = [];
      for (const d of [...this.daemons].reverse()) {
        try {
          await d.stop();
        } catch (err) {
          errors.push(err instanceof Error ? err.message : String(err));
        }
      }
      for (const r of this.held.splice(0)) r.release();
      liveRuns.delete(this);
      if (!liveRuns.size) uninstallHandlers();
      if (this.keep) {
        fs.writeFileSync(path.join(this.root, 'kept'), `${new Date().toISOString()}\n`);
        log(`run folder kept: ${this.root}`);
      } else fs.rmSync(this.root, { recursive: true, force: true });
      if (errors.length) throw new Error(errors.join('\n'));
    })();
    return this.stopped;
  }
}

/** Free ports on 127.0.0.1 (distinct). */
async function freePorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}

/**
 * FTP's passive ports for the fault proxy come in slots of this many ports: 128 per virtual host.
 * With 32, a walk of 1,000 folders on 8 connections got "425 PASV: Address already in use" from
 * ProFTPD now and then (thousands of closed data connections wait out TIME_WAIT on so few ports).
 */
const PORT_SLOT = 256;
/** The slots: below the kernel's ephemeral range (32768–60999 here), so no outgoing connection takes one. */
const SLOT_FIRST = 20000;
const SLOT_END = 32000;

/** A range of ports held for one run (see reservePortRange). */
export interface PortRange {
  from: number;
  /** Inclusive. */
  to: number;
  /** Lets the range go (stop() does it; a process that dies lets it go by itself). */
  release(): void;
}

/**
 * Reserves `count` consecutive ports (at most one slot of PORT_SLOT) free on every one of `hosts`,
 * for as long as the run lasts. Runs at once never get the same range, in this process or in
 * another (two engineers' test runs, a bench): each slot has a lock, a Unix socket in Linux's
 * abstract namespace (`\0site-revisions-live-ports/<first port>`), which only one process can
 * bind and which the kernel lets go when its process ends, however it ends (no stale lock file).
 * A slot is taken only when its lock is ours and its ports bind on every host at that moment.
 * `candidates` (tests) gives the slots' first ports to try first.
 */
export async function reservePortRange(count: number, hosts: readonly string[], candidates: readonly number[] = []): Promise<PortRange> {
  if (count < 1 || count > PORT_SLOT) throw new Error(`a port range is 1 to ${PORT_SLOT} ports, not ${count}`);
  const bindable = (port: number, host: string): Promise<boolean> =>
    new Promise((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
    });
  const slots = Math.floor((SLOT_END - SLOT_FIRST) / PORT_SLOT);
  const tried = new Set<number>();
  const order = [...candidates, ...Array.from({ length: 200 }, () => SLOT_FIRST + Math.floor(Math.random() * slots) * PORT_SLOT)];
  for (const base of order) {
    if (tried.has(base)) continue;
    tried.add(base);
    const lock = await lockSlot(base);
    if (!lock) continue;
    let ok = true;
    for (let p = base; p < base + count && ok; p++) for (const h of hosts) if (ok) ok = await bindable(p, h);
    if (ok) {
      let held = true;
      return {
        from: base,
        to: base + count - 1,
        release: () => {
          if (held) lock.close();
          held = false;
        },
      };
    }
    lock.close();
  }
  throw new Error(`no ${count} consecutive free ports on ${hosts.join(' and ')} (slots of ${PORT_SLOT} from ${SLOT_FIRST} to ${SLOT_END})`);
}

/** The lock of the slot starting at `base`, or undefined when another run holds it. */
function lockSlot(base: number): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer((c) => c.destroy());
    srv.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(new Error(`the port slot's lock ${base}: ${err.message}`, { cause: err }))));
    srv.listen(`\0site-revisions-live-ports/${base}`, () => {
      srv.unref(); // a lock keeps no process alive
      resolve(srv);
    });
  });
}

/** A ProFTPD virtual host on host:port: TLS optional (plain and AUTH TLS), required, or implicit. */
function vhost(host: string, port: number, tls: 'optional' | 'required' | 'implicit', more: string[] = []): string[] {
  return [`<VirtualHost ${host}>`, `  Port ${port}`, ...more, '  TLSEngine on', `  TLSRequired ${tls === 'optional' ? 'off' : 'on'}`, ...(tls === 'implicit' ? ['  TLSOptions UseImplicitSSL'] : []), '</VirtualHost>'];
}

function certificates(cert: CertFiles, expired: CertFiles): LiveCertificates {
  return { caFile: cert.certFile, fingerprint256: cert.fingerprint256, expiredCaFile: expired.certFile, expiredFingerprint256: expired.fingerprint256 };
}

async function copyTree(from: string, to: string, owner?: { uid: number; gid: number }): Promise<void> {
  await shAsync('cp', ['-a', '--no-target-directory', from, to]);
  fs.chmodSync(to, 0o755);
  if (owner) await shAsync('chown', ['-R', `${owner.uid}:${owner.gid}`, to]);
}

function userIds(name: string): { uid: number; gid: number } {
  const f = sh('getent', ['passwd', name]).trim().split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

// ---------------------------------------------------------------------------------------------
// FTP: proftpd

async function startFtp(run: Run, dir: string, master: string, cert: CertFiles, expired: CertFiles, opts: StartOptions): Promise<LiveFtp> {
  fs.mkdirSync(dir, { mode: 0o711 });
  const dataDir = path.join(dir, 'data');
  await copyTree(master, dataDir, { uid: FTP_UID, gid: FTP_UID });
  fs.writeFileSync(path.join(dir, OUTSIDE_FILE.name), OUTSIDE_FILE.content, { mode: 0o644 });
  const user = 'ftpuser';
  const password = secret();
  const hash = sh('openssl', ['passwd', '-6', '-stdin'], { input: password }).trim();
  fs.writeFileSync(path.join(dir, 'passwd'), `${user}:${hash}:${FTP_UID}:${FTP_UID}::${dataDir}:/bin/false\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'group'), `ftpgroup:x:${FTP_UID}:\n`, { mode: 0o600 });
  const tz = opts.ftpListTimeZoneHours ?? 0;
  const daemon = new Daemon('proftpd', '/usr/sbin/proftpd', ['-n', '-q', '-c', path.join(dir, 'proftpd.conf')], path.join(dir, 'proftpd.log'), {
    ...process.env,
    // POSIX TZ: the sign is reversed ("<+03>-3" is 3 hours east of UTC); no zone files needed in the chroot.
    TZ: tz ? `<${tz > 0 ? '+' : '-'}${String(Math.abs(tz)).padStart(2, '0')}>${tz > 0 ? '-' : ''}${Math.abs(tz)}` : 'UTC',
  });
  run.daemons.push(daemon);
  for (let attempt = 1; ; attempt++) {
    const [port, implicitPort, expiredPort, proxyPort, proxyImplicitPort, noEpsvPort] = (await freePorts(6)) as [number, number, number, number, number, number];
    // Held until stop(): no other run (of this process or another) gets these ports meanwhile.
    const range = await reservePortRange(PORT_SLOT, [HOST, PROXY_SIDE_HOST]);
    run.held.push(range);
    const half = PORT_SLOT / 2;
    const pasv = { explicit: { from: range.from, to: range.from + half - 1 }, implicit: { from: range.from + half, to: range.from + PORT_SLOT - 1 } };
    const conf = [
      'ServerType standalone',
      'ServerName "Site Revisions live test"',
      `DefaultAddress ${HOST}`,
      'SocketBindTight on',
      `Port ${port}`,
      'UseIPv6 off',
      'UseReverseDNS off',
      'User nobody',
      'Group nogroup',
      `PidFile ${dir}/proftpd.pid`,
      `ScoreboardFile ${dir}/proftpd.scoreboard`,
      `DelayTable ${dir}/proftpd.delay`,
      `TransferLog ${dir}/xfer.log`,
      'WtmpLog off',
      'ControlsEngine off',
      'MaxInstances 200',
      'ModulePath /usr/lib/proftpd',
      'LoadModule mod_tls.c',
      '<Global>',
      '  AuthPAM off',
      '  AuthOrder mod_auth_file.c',
      `  AuthUserFile ${dir}/passwd`,
      `  AuthGroupFile ${dir}/group`,
      '  RequireValidShell off',
      '  DefaultRoot ~',
      '  AllowOverwrite on',
      '  ShowSymlinks on',
      `  TimesGMT ${tz ? 'off' : 'on'}`,
      `  TLSLog ${dir}/tls.log`,
      '  TLSProtocol TLSv1.2 TLSv1.3',
      `  TLSRSACertificateFile ${cert.certFile}`,
      `  TLSRSACertificateKeyFile ${cert.keyFile}`,
      '  TLSVerifyClient off',
      ...(opts.loginGraceSeconds ? [`  TimeoutLogin ${opts.loginGraceSeconds}`] : []),
      '</Global>',
      'TLSEngine on',
      'TLSRequired off',
      // Implicit FTPS.
      ...vhost(HOST, implicitPort, 'implicit'),
      // Explicit FTPS presenting the expired certificate.
      ...vhost(HOST, expiredPort, 'required', [`  TLSRSACertificateFile ${expired.certFile}`, `  TLSRSACertificateKeyFile ${expired.keyFile}`]),
      // Plain FTP that refuses EPSV (a server without it): PASV only.
      ...vhost(HOST, noEpsvPort, 'optional', ['  <Limit EPSV>', '    DenyAll', '  </Limit>']),
      // The plain/explicit port and the implicit one behind a fault proxy: bound on 127.0.0.2,
      // passive ports advertised as 127.0.0.1 where the proxy listens on the same numbers.
      ...vhost(PROXY_SIDE_HOST, proxyPort, 'optional', [`  MasqueradeAddress ${HOST}`, `  PassivePorts ${pasv.explicit.from} ${pasv.explicit.to}`]),
      ...vhost(PROXY_SIDE_HOST, proxyImplicitPort, 'implicit', [`  MasqueradeAddress ${HOST}`, `  PassivePorts ${pasv.implicit.from} ${pasv.implicit.to}`]),
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'proftpd.conf'), conf);
    try {
      await daemon.start([port, implicitPort, expiredPort, noEpsvPort, { host: PROXY_SIDE_HOST, port: proxyPort }, { host: PROXY_SIDE_HOST, port: proxyImplicitPort }]);
    } catch (err) {
      range.release();
      run.held.splice(run.held.indexOf(range), 1);
      // A port taken between choosing and binding: choose again.
      if (attempt < 3 && /in use|bind/i.test(String(err))) continue;
      throw err;
    }
    run.ports.push(...[port, implicitPort, expiredPort, noEpsvPort].map((p) => ({ host: HOST, port: p })), ...[proxyPort, proxyImplicitPort].map((p) => ({ host: PROXY_SIDE_HOST, port: p })));
    return {
      host: HOST,
      port,
      implicitPort,
      expiredPort,
      noEpsvPort,
      user,
      password,
      dataDir,
      ...certificates(cert, expired),
      proxyTargets: {
        explicit: { host: PROXY_SIDE_HOST, port: proxyPort, dataPorts: { host: PROXY_SIDE_HOST, ...pasv.explicit } },
        implicit: { host: PROXY_SIDE_HOST, port: proxyImplicitPort, dataPorts: { host: PROXY_SIDE_HOST, ...pasv.implicit } },
      },
      listTimeZoneHours: tz,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// SFTP: OpenSSH sshd

function keyFingerprint(pubFile: string): string {
  const m = /(SHA256:[A-Za-z0-9+/]+)/.exec(sh('ssh-keygen', ['-lf', pubFile]));
  if (!m) throw new Error(`ssh-keygen -lf ${pubFile}: no fingerprint`);
  return m[1]!;
}

async function startSftp(run: Run, dir: string, master: string, opts: StartOptions): Promise<LiveSftp> {
  const account = ensureSftpUser();
  fs.mkdirSync(dir, { mode: 0o711 });
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // privilege separation directory
  const dataDir = path.join(dir, 'data');
  await copyTree(master, dataDir, account);
  fs.writeFileSync(path.join(dir, OUTSIDE_FILE.name), OUTSIDE_FILE.content, { mode: 0o644 });
  const hostKey = path.join(dir, 'host_key');
  const newHostKey = (): string => {
    fs.rmSync(hostKey, { force: true });
    fs.rmSync(`${hostKey}.pub`, { force: true });
    sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'live-sshd', '-f', hostKey]);
    return keyFingerprint(`${hostKey}.pub`);
  };
  const keyFile = path.join(dir, 'client_key');
  const encryptedKeyFile = path.join(dir, 'client_key_encrypted');
  const keyPassphrase = secret();
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'live-client', '-f', keyFile]);
  sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', keyPassphrase, '-C', 'live-client-encrypted', '-f', encryptedKeyFile]);
  const keyPassphraseFile = path.join(dir, 'client_key_passphrase');
  fs.writeFileSync(keyPassphraseFile, keyPassphrase, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'authorized_keys'), fs.readFileSync(`${keyFile}.pub`, 'utf8') + fs.readFileSync(`${encryptedKeyFile}.pub`, 'utf8'), { mode: 0o644 });
  let fingerprint = newHostKey();
  const [port] = (await freePorts(1)) as [number];
  fs.writeFileSync(
    path.join(dir, 'sshd_config'),
    [
      `ListenAddress ${HOST}:${port}`,
      `HostKey ${hostKey}`,
      `PidFile ${dir}/sshd.pid`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication yes',
      'PubkeyAuthentication yes',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin no',
      `AllowUsers ${SFTP_USER}`,
      'Subsystem sftp internal-sftp',
      `ForceCommand internal-sftp -d ${dataDir}`,
      'AllowTcpForwarding no',
      'AllowAgentForwarding no',
      'AllowStreamLocalForwarding no',
      'X11Forwarding no',
      'PermitTunnel no',
      'PermitUserRC no',
      'UseDNS no',
      'MaxStartups 200',
      'MaxSessions 20',
      'LogLevel VERBOSE',
      ...(opts.loginGraceSeconds ? [`LoginGraceTime ${opts.loginGraceSeconds}`] : []),
      '',
    ].join('\n'),
  );
  const log = path.join(dir, 'sshd.log');
  let daemon = new Daemon('sshd', '/usr/sbin/sshd', ['-D', '-e', '-f', path.join(dir, 'sshd_config')], log);
  run.daemons.push(daemon);
  await daemon.start([port]);
  run.ports.push({ host: HOST, port });
  const knownHostsFile = path.join(dir, 'known_hosts');
  const scan = (): void => fs.writeFileSync(knownHostsFile, sh('ssh-keyscan', ['-p', String(port), '-t', 'ed25519', HOST]));
  scan();
  const sftp: LiveSftp = {
    host: HOST,
    port,
    user: SFTP_USER,
    password: account.password,
    keyFile,
    encryptedKeyFile,
    keyPassphrase,
    keyPassphraseFile,
    dataDir,
    knownHostsFile,
    hostKeyFingerprint: fingerprint,
    rotateHostKey: async () => {
      await daemon.stop();
      fingerprint = newHostKey();
      const next = new Daemon('sshd', '/usr/sbin/sshd', ['-D', '-e', '-f', path.join(dir, 'sshd_config')], log);
      run.daemons[run.daemons.indexOf(daemon)] = next;
      daemon = next;
      // The port was ours a moment ago; another process could take it meanwhile (then this fails, saying so).
      await daemon.start([port]);
      fs.renameSync(knownHostsFile, `${knownHostsFile}.previous`);
      scan();
      sftp.hostKeyFingerprint = fingerprint;
      return fingerprint;
    },
  };
  return sftp;
}

// ---------------------------------------------------------------------------------------------
// WebDAV: Apache mod_dav

async function startDav(run: Run, dir: string, master: string, cert: CertFiles, expired: CertFiles): Promise<LiveDav> {
  fs.mkdirSync(dir, { mode: 0o711 });
  const www = userIds('www-data');
  const dataDir = path.join(dir, 'data');
  await copyTree(master, dataDir, www);
  fs.writeFileSync(path.join(dir, OUTSIDE_FILE.name), OUTSIDE_FILE.content, { mode: 0o644 });
  for (const d of ['logs', 'lock']) fs.mkdirSync(path.join(dir, d), { mode: 0o755 });
  fs.chownSync(path.join(dir, 'lock'), www.uid, www.gid);
  const user = 'davuser';
  const password = secret();
  // MD5 (apr1): Apache checks Basic credentials on every request; bcrypt would cost ms each.
  sh('htpasswd', ['-b', '-c', '-m', path.join(dir, 'htpasswd'), user, password]);
  fs.chmodSync(path.join(dir, 'htpasswd'), 0o644);
  const mods = ['authn_core', 'authn_file', 'authz_core', 'authz_user', 'auth_basic', 'dav', 'dav_fs', 'mime', 'dir', 'autoindex', 'socache_shmcb', 'ssl'];
  const daemon = new Daemon('apache2', '/usr/sbin/apache2', ['-f', path.join(dir, 'httpd.conf'), '-DFOREGROUND'], path.join(dir, 'logs', 'stderr.log'));
  run.daemons.push(daemon);
  for (let attempt = 1; ; attempt++) {
    const [httpPort, httpsPort, expiredPort] = (await freePorts(3)) as [number, number, number];
    fs.writeFileSync(
      path.join(dir, 'httpd.conf'),
      [
        `ServerRoot ${dir}`,
        `ServerName ${HOST}`,
        `PidFile ${dir}/httpd.pid`,
        `ErrorLog ${dir}/logs/error.log`,
        'LogLevel warn',
        'User www-data',
        'Group www-data',
        `Mutex file:${dir}/lock`,
        `DefaultRuntimeDir ${dir}`,
        'LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so',
        ...mods.map((m) => `LoadModule ${m}_module /usr/lib/apache2/modules/mod_${m}.so`),
        'StartServers 1',
        'ServerLimit 4',
        'ThreadsPerChild 25',
        'MaxRequestWorkers 100',
        'MinSpareThreads 25',
        'MaxSpareThreads 75',
        'KeepAlive On',
        'MaxKeepAliveRequests 0',
        'Timeout 60',
        'TypesConfig /etc/mime.types',
        `CustomLog ${dir}/logs/access.log "%h %u \\"%r\\" %>s %b"`,
        `Listen ${HOST}:${httpPort}`,
        `Listen ${HOST}:${httpsPort} https`,
        `Listen ${HOST}:${expiredPort} https`,
        `DavLockDB ${dir}/lock/DavLock`,
        `DocumentRoot ${dataDir}`,
        `<Directory ${dataDir}>`,
        '  Dav On',
        // Links are followed when the link and its target have the same owner, as on many
        // hosts: the seed's link to outside the root (owned by root) is refused. mod_dav_fs
        // leaves links out of PROPFIND either way.
        '  Options +Indexes -FollowSymLinks +SymLinksIfOwnerMatch',
        // The seed's .htaccess is data to serve, not configuration; PROPFIND / lists the folder
        // (with index.html as DirectoryIndex it answered 405).
        '  AllowOverride None',
        '  DirectoryIndex disabled',
        '  AuthType Basic',
        '  AuthName "live test"',
        `  AuthUserFile ${dir}/htpasswd`,
        '  Require valid-user',
        '</Directory>',
        `SSLSessionCache shmcb:${dir}/ssl_scache(512000)`,
        `<VirtualHost ${HOST}:${httpsPort}>`,
        '  SSLEngine on',
        `  SSLCertificateFile ${cert.certFile}`,
        `  SSLCertificateKeyFile ${cert.keyFile}`,
        '</VirtualHost>',
        `<VirtualHost ${HOST}:${expiredPort}>`,
        '  SSLEngine on',
        `  SSLCertificateFile ${expired.certFile}`,
        `  SSLCertificateKeyFile ${expired.keyFile}`,
        '</VirtualHost>',
        '',
      ].join('\n'),
    );
    try {
      await daemon.start([httpPort, httpsPort, expiredPort]);
    } catch (err) {
      if (attempt < 3 && /in use|could not bind/i.test(String(err))) continue;
      throw err;
    }
    run.ports.push(...[httpPort, httpsPort, expiredPort].map((p) => ({ host: HOST, port: p })));
    return {
      httpUrl: `http://${HOST}:${httpPort}/`,
      httpsUrl: `https://${HOST}:${httpsPort}/`,
      expiredHttpsUrl: `https://${HOST}:${expiredPort}/`,
      user,
      password,
      dataDir,
      ...certificates(cert, expired),
    };
  }
}

// ---------------------------------------------------------------------------------------------
// S3: @20minutes/s3rver in a Node 24 child

async function startS3(run: Run, dir: string, master: string, cert: CertFiles): Promise<LiveS3> {
  s3rverModule();
  const node = ensureNode24();
  fs.mkdirSync(dir, { mode: 0o700 });
  const bucket = 'live-bucket';
  const accessKeyId = `AKLIVE${randomBytes(7).toString('hex').toUpperCase()}`;
  const secretAccessKey = secret(24);
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ directory: path.join(dir, 'store'), bucket, accessKeyId, secretAccessKey, seedDir: master, certFile: cert.certFile, keyFile: cert.keyFile }), { mode: 0o600 });
  const daemon = new Daemon('s3rver', node, ['--openssl-legacy-provider', path.join(__dirname, 's3main.js'), config], path.join(dir, 's3.log'));
  run.daemons.push(daemon);
  let ports: [number, number] = [0, 0];
  await daemon.start([], async (child) => {
    // It picks its own ports and says which.
    ports = await new Promise<[number, number]>((resolve, reject) => {
      let buf = '';
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (d: string) => {
        buf += d;
        const m = /S3_READY (\d+) (\d+)/.exec(buf);
        if (m) resolve([Number(m[1]), Number(m[2])]);
      });
      child.once('exit', () => reject(new Error(`s3rver exited before it was ready:\n${daemon.tail()}`)));
    });
  });
  run.ports.push(...ports.map((p) => ({ host: HOST, port: p })));
  return {
    endpoint: `http://${HOST}:${ports[0]}`,
    httpsEndpoint: `https://${HOST}:${ports[1]}`,
    region: 'us-east-1',
    bucket,
    accessKeyId,
    secretAccessKey,
    caFile: cert.certFile,
    fingerprint256: cert.fingerprint256,
    seedDir: master,
  };
}

// ---------------------------------------------------------------------------------------------

/** Starts the live servers (see the file's head). Install what they need first: ensureLiveTools / requireLiveServers. */
export async function startLiveServers(opts: StartOptions = {}): Promise<LiveServers> {
  const t0 = Date.now();
  const kinds = opts.only?.length ? [...new Set(opts.only)] : [...ALL_KINDS];
  ensureLiveTools(kinds, false);
  removeStaleRuns();
  const root = fs.mkdtempSync(path.join(runsBase(), RUN_PREFIX));
  // Traversable by the servers' users (proftpd's login fails with mktemp's 0700).
  fs.chmodSync(root, 0o711);
  fs.writeFileSync(path.join(root, 'owner'), `${processIdentity(process.pid) ?? process.pid}\n`);
  const keep = opts.keep ?? process.env.SITE_REVISIONS_LIVE_KEEP === '1';
  const run = new Run(root, keep);
  liveRuns.add(run);
  installHandlers();
  try {
    let master: string;
    let seedMs = 0;
    if (opts.dataDir) master = path.resolve(opts.dataDir);
    else {
      const ts = Date.now();
      master = path.join(root, 'seed', 'data');
      fs.mkdirSync(path.dirname(master), { mode: 0o711 });
      writeSeed(master, opts.seed ?? 'small');
      seedMs = Date.now() - ts;
    }
    const certDir = path.join(root, 'certs');
    fs.mkdirSync(certDir, { mode: 0o755 });
    const needsCert = kinds.some((k) => k !== 'sftp');
    const cert = needsCert ? makeSelfSigned(certDir) : undefined;
    const expired = kinds.includes('ftp') || kinds.includes('dav') ? makeExpired(certDir) : undefined;
    for (const f of fs.readdirSync(certDir)) fs.chmodSync(path.join(certDir, f), f.includes('key') ? 0o600 : 0o644);
    const ts = Date.now();
    const perKind: Partial<Record<LiveKind, number>> = {};
    const timed = async <T>(kind: LiveKind, start: () => Promise<T>): Promise<T | undefined> => {
      if (!kinds.includes(kind)) return undefined;
      const t = Date.now();
      const r = await start();
      perKind[kind] = Date.now() - t;
      return r;
    };
    const [ftp, sftp, dav, s3] = await Promise.all([
      timed('ftp', () => startFtp(run, path.join(root, 'ftp'), master, cert!, expired!, opts)),
      timed('sftp', () => startSftp(run, path.join(root, 'sftp'), master, opts)),
      timed('dav', () => startDav(run, path.join(root, 'dav'), master, cert!, expired!)),
      timed('s3', () => startS3(run, path.join(root, 's3'), master, cert!)),
    ]);
    const startMs = Date.now() - ts;
    const live: LiveServers = {
      root,
      ...(ftp ? { ftp } : {}),
      ...(sftp ? { sftp } : {}),
      ...(dav ? { dav } : {}),
      ...(s3 ? { s3 } : {}),
      timings: { seedMs, startMs, totalMs: Date.now() - t0, perKind },
      inspect: () => ({
        daemons: run.daemons.filter((d) => d.pid !== undefined).map((d) => ({ name: d.name, pid: d.pid! })),
        pids: descendantsOf(run.rootPids()),
        ports: run.ports.map((p) => ({ ...p })),
      }),
      stop: () => run.stop(),
    };
    return live;
  } catch (err) {
    await run.stop().catch(() => undefined);
    throw err;
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const value = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const only = value('--only')?.split(',') as LiveKind[] | undefined;
  ensureLiveTools(only ?? ALL_KINDS);
  startLiveServers({ ...(only ? { only } : {}), seed: value('--seed') === 'large' ? 'large' : 'small', ...(value('--data') ? { dataDir: value('--data')! } : {}), keep: args.includes('--keep') }).then(
    (live) => {
      const { stop: _stop, inspect: _inspect, ...shown } = live;
      process.stdout.write(`${JSON.stringify(shown, (k, v: unknown) => (k === 'rotateHostKey' ? undefined : v), 2)}\n`);
      log(`running; Ctrl+C stops them${live.ftp || live.sftp ? '' : ''}`);
      const stop = (): void => {
        live.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            log(String(err));
            process.exit(1);
          },
        );
      };
      process.removeAllListeners('SIGINT');
      process.removeAllListeners('SIGTERM');
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err: unknown) => {
      log(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}

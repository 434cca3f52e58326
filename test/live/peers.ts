// Independent clients of the live servers (Debian's rclone, lftp, curl and OpenSSH's sftp): what a
// test compares the extension's results with, and the baselines of the benches (their wall time).
// Command lines follow /work/shared/notes/live-servers.md §7, where each was verified.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LiveKind, LiveServers } from './servers';

export type PeerCommand = 'rclone' | 'lftp' | 'curl' | 'sftp' | 'ssh-keyscan';

export interface PeerOptions {
  /** Written to the command's standard input (then closed). */
  input?: string | Buffer;
  /** Default 120 s; the command is killed after it (and the promise rejects). */
  timeoutMs?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Resolve even when the command exits non-zero (then `code` says how). */
  allowFailure?: boolean;
  /** 'discard': count standard output's bytes (`bytes`) without keeping them (a 200 MB read). Default 'keep'. */
  stdout?: 'keep' | 'discard';
}

export interface PeerResult {
  /** Empty with stdout: 'discard'. */
  stdout: Buffer;
  /** Bytes the command wrote to standard output. */
  bytes: number;
  stderr: string;
  code: number;
  /** Wall time from spawn to exit. */
  ms: number;
}

/**
 * Runs an independent client and returns its output and wall time. For rclone it adds
 * `--config /dev/null` (no user configuration) unless `--config` is given, and drops
 * AWS_CA_BUNDLE from the environment (set here, it breaks rclone's S3 backend: "unsupported
 * transport"). Rejects with the command's stderr when it exits non-zero (unless allowFailure).
 */
export function peer(cmd: PeerCommand, args: string[], opts: PeerOptions = {}): Promise<PeerResult> {
  const env = { ...process.env, ...opts.env };
  let argv = args;
  if (cmd === 'rclone') {
    delete env.AWS_CA_BUNDLE;
    if (!args.includes('--config')) argv = ['--config', '/dev/null', ...args];
  }
  const timeoutMs = opts.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let bytes = 0;
    let err = '';
    const keep = opts.stdout !== 'discard';
    child.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      if (keep) out.push(d);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`${cmd}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      const status = code ?? 128;
      if (status !== 0 && !opts.allowFailure) {
        const why = signal === 'SIGKILL' ? `killed after ${timeoutMs} ms` : `exit ${status}`;
        reject(new Error(`${cmd} ${redactArgs(argv).join(' ')} failed (${why}):\n${err.trim().slice(-2000)}`));
        return;
      }
      resolve({ stdout: Buffer.concat(out), bytes, stderr: err, code: status, ms });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** Arguments for a log line: passwords in connection strings and -u user,pass replaced. */
function redactArgs(args: string[]): string[] {
  return args.map((a) => a.replace(/(pass|secret_access_key)=[^,:]+/g, '$1=…').replace(/(-u \S+?,)\S+/g, '$1…'));
}

const obscured = new Map<string, string>();
/** `rclone obscure` of a password (cached): rclone's connection strings take passwords in that form. */
export function rcloneObscure(password: string): string {
  let o = obscured.get(password);
  if (!o) {
    const r = spawnSync('rclone', ['obscure', '-'], { input: password, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`rclone obscure failed: ${r.stderr}`);
    o = r.stdout.trim();
    obscured.set(password, o);
  }
  return o;
}

export interface RcloneRemoteOptions {
  /** FTP: 'none' (plain), 'explicit' (default) or 'implicit' TLS. */
  tls?: 'none' | 'explicit' | 'implicit';
  /** SFTP: 'password' (default), 'key', or 'encryptedKey'. DAV/S3: https (default http). */
  auth?: 'password' | 'key' | 'encryptedKey';
  https?: boolean;
  /** Connect here instead (a fault proxy in front of the server): host and port. */
  via?: { host: string; port: number };
  /** A wrong password / secret, for a test of refusal. */
  wrongSecret?: boolean;
}

/** A value inside an rclone connection string (quoted: values may hold ':' or ','). */
const q = (v: string): string => `'${v.replace(/'/g, "''")}'`;

/**
 * rclone's on-the-fly remote for one of the live servers (`:ftp,host=…:`), to append a path to.
 * SFTP's ends with the data folder (`…:/dev/shm/srlive-…/sftp/data`) and S3's with the bucket:
 * append `/sub` for a subfolder; FTP's and WebDAV's end with ':' (append `sub`). FTPS adds
 * concurrency=1 (ProFTPD requires TLS session reuse, which rclone's parallel data connections
 * lack: note §6) and no_check_certificate (rclone's FTP backend takes no CA file).
 */
export function rcloneRemote(s: LiveServers, kind: LiveKind, opts: RcloneRemoteOptions = {}): string {
  switch (kind) {
    case 'ftp': {
      const f = must(s.ftp, kind);
      const tls = opts.tls ?? 'explicit';
      const port = opts.via?.port ?? (tls === 'implicit' ? f.implicitPort : f.port);
      const pass = rcloneObscure(opts.wrongSecret ? `${f.password}-wrong` : f.password);
      // With TLS, concurrency=1: ProFTPD requires the TLS session to be reused on data
      // connections, which rclone's parallel connections do not do (note §6). Plain FTP keeps
      // rclone's default.
      const tlsPart = tls === 'explicit' ? ',explicit_tls=true,concurrency=1,no_check_certificate=true' : tls === 'implicit' ? ',tls=true,concurrency=1,no_check_certificate=true' : '';
      return `:ftp,host=${opts.via?.host ?? f.host},port=${port},user=${f.user},pass=${pass}${tlsPart}:`;
    }
    case 'sftp': {
      const f = must(s.sftp, kind);
      const auth = opts.auth ?? 'password';
      const cred =
        auth === 'key' ? `key_file=${q(f.keyFile)}` : auth === 'encryptedKey' ? `key_file=${q(f.encryptedKeyFile)},key_file_pass=${rcloneObscure(f.keyPassphrase)}` : `pass=${rcloneObscure(opts.wrongSecret ? `${f.password}-wrong` : f.password)}`;
      // shell_type=none: rclone would otherwise run md5sum over the session, which internal-sftp refuses.
      return `:sftp,host=${opts.via?.host ?? f.host},port=${opts.via?.port ?? f.port},user=${f.user},${cred},known_hosts_file=${q(knownHostsVia(s, opts.via))},shell_type=none:${f.dataDir}`;
    }
    case 'dav': {
      const f = must(s.dav, kind);
      let url = opts.https ? f.httpsUrl : f.httpUrl;
      if (opts.via) url = `${opts.https ? 'https' : 'http'}://${opts.via.host}:${opts.via.port}/`;
      return `:webdav,url=${q(url)},vendor=other,user=${f.user},pass=${rcloneObscure(opts.wrongSecret ? `${f.password}-wrong` : f.password)}:`;
    }
    case 's3': {
      const f = must(s.s3, kind);
      let endpoint = opts.https ? f.httpsEndpoint : f.endpoint;
      if (opts.via) endpoint = `${opts.https ? 'https' : 'http'}://${opts.via.host}:${opts.via.port}`;
      const secret = opts.wrongSecret ? `${f.secretAccessKey}x` : f.secretAccessKey;
      return `:s3,provider=Other,endpoint=${q(endpoint)},region=${f.region},access_key_id=${f.accessKeyId},secret_access_key=${secret},force_path_style=true:${f.bucket}`;
    }
  }
}

/** rclone flags a remote needs besides the connection string (the CA file for https). */
export function rcloneFlags(s: LiveServers, kind: LiveKind, opts: RcloneRemoteOptions = {}): string[] {
  if (kind === 'dav' && opts.https) return ['--ca-cert', must(s.dav, kind).caFile];
  if (kind === 's3' && opts.https) return ['--ca-cert', must(s.s3, kind).caFile];
  return [];
}

/**
 * The start of an lftp script (`lftp -e "<this>; find /; bye"`) that opens one of the live
 * servers with its CA trusted. For FTP, tls 'explicit' (default) forces TLS on control and data.
 * SFTP goes through OpenSSH (key auth, the run's known_hosts) and starts in the data folder.
 */
export function lftpOpen(s: LiveServers, kind: 'ftp' | 'sftp' | 'dav', opts: { tls?: 'none' | 'explicit' | 'implicit'; https?: boolean; via?: { host: string; port: number } } = {}): string {
  const timeouts = 'set net:timeout 20; set net:max-retries 1; set net:reconnect-interval-base 1';
  switch (kind) {
    case 'ftp': {
      const f = must(s.ftp, kind);
      const tls = opts.tls ?? 'explicit';
      const host = opts.via?.host ?? f.host;
      const port = opts.via?.port ?? (tls === 'implicit' ? f.implicitPort : f.port);
      const force = tls === 'explicit' ? 'set ftp:ssl-force yes; set ftp:ssl-protect-data yes' : tls === 'none' ? 'set ftp:ssl-allow no' : 'set ftp:ssl-protect-data yes';
      return `${timeouts}; set ssl:ca-file "${f.caFile}"; ${force}; open -u "${f.user},${f.password}" ${tls === 'implicit' ? 'ftps' : 'ftp'}://${host}:${port}`;
    }
    case 'sftp': {
      const f = must(s.sftp, kind);
      const ssh = `ssh -a -x -i ${f.keyFile} -o IdentitiesOnly=yes -o UserKnownHostsFile=${f.knownHostsFile} -o BatchMode=yes -o ConnectTimeout=20`;
      return `${timeouts}; set sftp:connect-program "${ssh}"; open -u "${f.user}," sftp://${opts.via?.host ?? f.host}:${opts.via?.port ?? f.port}; cd "${f.dataDir}"`;
    }
    case 'dav': {
      const f = must(s.dav, kind);
      const url = opts.via ? `${opts.https ? 'https' : 'http'}://${opts.via.host}:${opts.via.port}/` : opts.https ? f.httpsUrl : f.httpUrl;
      return `${timeouts}; set ssl:ca-file "${f.caFile}"; set http:use-propfind true; open -u "${f.user},${f.password}" ${url}`;
    }
  }
}

/** curl arguments that authenticate to the DAV server (Basic, CA trusted) or the S3 server (SigV4). */
export function curlAuth(s: LiveServers, kind: 'dav' | 's3', opts: { wrongSecret?: boolean } = {}): string[] {
  if (kind === 'dav') {
    const f = must(s.dav, kind);
    return ['-u', `${f.user}:${opts.wrongSecret ? `${f.password}-wrong` : f.password}`, '--cacert', f.caFile];
  }
  const f = must(s.s3, kind);
  // curl 7.88 does not send x-amz-content-sha256, which S3 requires; UNSIGNED-PAYLOAD is then signed as given.
  return ['--aws-sigv4', `aws:amz:${f.region}:s3`, '--user', `${f.accessKeyId}:${opts.wrongSecret ? `${f.secretAccessKey}x` : f.secretAccessKey}`, '-H', 'x-amz-content-sha256: UNSIGNED-PAYLOAD', '--cacert', f.caFile];
}

/** OpenSSH `sftp` in batch mode with the run's client key and known_hosts: `sftpBatch(live, 'ls -la\nget x /tmp/x')`. */
export function sftpBatch(s: LiveServers, commands: string, opts: { via?: { host: string; port: number }; knownHostsFile?: string } & PeerOptions = {}): Promise<PeerResult> {
  const f = must(s.sftp, 'sftp');
  const args = ['-b', '-', '-i', f.keyFile, '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${opts.knownHostsFile ?? knownHostsVia(s, opts.via)}`, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=20', '-P', String(opts.via?.port ?? f.port), `${f.user}@${opts.via?.host ?? f.host}`];
  return peer('sftp', args, { ...opts, input: `cd "${f.dataDir}"\n${commands}\n` });
}

/**
 * For bench rows: runs a peer command `runs` times and returns every wall time and the median
 * (the first run is not dropped: give `warmup` to run it that many times before measuring).
 */
export async function timePeer(cmd: PeerCommand, args: string[], opts: PeerOptions & { runs?: number; warmup?: number } = {}): Promise<{ ms: number[]; median: number }> {
  for (let i = 0; i < (opts.warmup ?? 0); i++) await peer(cmd, args, opts);
  const ms: number[] = [];
  for (let i = 0; i < (opts.runs ?? 3); i++) ms.push((await peer(cmd, args, opts)).ms);
  const sorted = [...ms].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return { ms, median: sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2 };
}

/**
 * The run's known_hosts file, or (with `via`, a fault proxy) a copy of it written for the
 * proxy's address: the same host key, so the client still verifies it.
 */
export function knownHostsVia(s: LiveServers, via?: { host: string; port: number }): string {
  const f = must(s.sftp, 'sftp');
  if (!via) return f.knownHostsFile;
  const file = `${f.knownHostsFile}.via-${via.port}`;
  const lines = fs.readFileSync(f.knownHostsFile, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  fs.writeFileSync(file, lines.map((l) => `[${via.host}]:${via.port} ${l.slice(l.indexOf(' ') + 1)}`).join('\n') + '\n');
  return file;
}

/**
 * Bench baselines (a peer's wall time on the same server in the same run, for the ratio rows of
 * issue 33): `rclone lsf -R` of a folder, and a file read whole by `rclone cat` or OpenSSH `sftp`
 * (throughput in MB/s, 1 MB = 10^6 bytes). `via` puts a fault proxy (with its latency) in between.
 */
export async function baselineListTree(s: LiveServers, kind: LiveKind, dir: string, opts: { via?: { host: string; port: number }; runs?: number; warmup?: number; tls?: 'none' | 'explicit' | 'implicit' } = {}): Promise<{ ms: number[]; median: number; entries: number }> {
  const remote = `${rcloneRemote(s, kind, { ...(opts.via ? { via: opts.via } : {}), ...(opts.tls ? { tls: opts.tls } : {}) })}${kind === 's3' || kind === 'sftp' ? '/' : ''}${dir}`;
  const args = ['lsf', '-R', ...rcloneFlags(s, kind), remote];
  const entries = (await peer('rclone', args)).stdout.toString('utf8').split('\n').filter(Boolean).length;
  const t = await timePeer('rclone', args, { runs: opts.runs ?? 3, warmup: opts.warmup ?? 0 });
  return { ...t, entries };
}

export async function baselineReadFile(s: LiveServers, kind: LiveKind, file: string, opts: { via?: { host: string; port: number }; runs?: number; client?: 'rclone' | 'sftp' } = {}): Promise<{ ms: number[]; median: number; bytes: number; mbPerSecond: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < (opts.runs ?? 3); i++) {
    let r: PeerResult;
    if (opts.client === 'sftp') {
      if (kind !== 'sftp') throw new Error('OpenSSH sftp reads from the sftp server only');
      // Into a file of the run folder (memory when it is on /dev/shm): sftp cannot write to
      // Node's stdout pipe (a socket: "/dev/stdout: No such device or address").
      const dest = path.join(s.root, `baseline-${process.pid}-${i}.tmp`);
      try {
        r = await sftpBatch(s, `get "${file}" "${dest}"`, { ...(opts.via ? { via: opts.via } : {}), stdout: 'discard' });
        r = { ...r, bytes: fs.statSync(dest).size };
      } finally {
        fs.rmSync(dest, { force: true });
      }
    } else {
      r = await peer('rclone', ['cat', ...rcloneFlags(s, kind), `${rcloneRemote(s, kind, opts.via ? { via: opts.via } : {})}${kind === 's3' || kind === 'sftp' ? '/' : ''}${file}`], { stdout: 'discard' });
    }
    bytes = r.bytes;
    ms.push(r.ms);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { ms, median, bytes, mbPerSecond: bytes / 1e6 / (median / 1000) };
}

function must<T>(v: T | undefined, kind: LiveKind): T {
  if (!v) throw new Error(`the ${kind} server was not started (startLiveServers({ only }) left it out)`);
  return v;
}

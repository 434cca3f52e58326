// What the live servers need from the machine: Debian packages (installed when running as root
// on Debian, as the harness installs Chromium), Node 24 for the S3 server, and the system user
// `srtest` that sshd logs in (created idempotently, never deleted: other runs may use it).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../host/common';
import { ensureDebianPackages, ensureNode24, missingDebianPackages } from '../host/install';

export type LiveKind = 'ftp' | 'sftp' | 'dav' | 's3';
export const ALL_KINDS: readonly LiveKind[] = ['ftp', 'sftp', 'dav', 's3'];

/**
 * The Debian packages per server, and `peers` for the independent clients the tests compare with.
 * Keep .ci/run's list in step (test/unit/live.servers.test.ts checks that it names each).
 */
export const LIVE_PACKAGES: Readonly<Record<LiveKind | 'peers', readonly string[]>> = {
  ftp: ['proftpd-core', 'proftpd-mod-crypto', 'openssl'],
  sftp: ['openssh-server', 'openssh-client'],
  dav: ['apache2', 'apache2-utils', 'openssl'],
  s3: ['openssl'],
  peers: ['lftp', 'rclone', 'curl', 'openssh-client'],
};

/** A file (binary, module) each kind needs, with the package that brings it: checked where dpkg is absent too. */
const NEEDED_FILES: Readonly<Record<LiveKind | 'peers', readonly [string, string][]>> = {
  ftp: [['/usr/sbin/proftpd', 'proftpd-core'], ['/usr/lib/proftpd/mod_tls.so', 'proftpd-mod-crypto']],
  sftp: [['/usr/sbin/sshd', 'openssh-server'], ['/usr/bin/ssh-keygen', 'openssh-client'], ['/usr/bin/ssh-keyscan', 'openssh-client']],
  dav: [['/usr/sbin/apache2', 'apache2'], ['/usr/lib/apache2/modules/mod_dav_fs.so', 'apache2'], ['/usr/bin/htpasswd', 'apache2-utils']],
  s3: [],
  peers: [['/usr/bin/lftp', 'lftp'], ['/usr/bin/rclone', 'rclone'], ['/usr/bin/curl', 'curl'], ['/usr/bin/sftp', 'openssh-client']],
};

/** The system user sshd logs in as (created once per machine; home /tmp; no login shell). */
export const SFTP_USER = 'srtest';
/**
 * Its password: random, made once per machine, readable by root only. Every run on the machine
 * uses the same one (runs at once must not change it under each other); sshd listens on loopback only.
 */
export const SFTP_PASSWORD_FILE = '/var/lib/site-revisions-tests/srtest.password';

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function run(cmd: string, args: string[], input?: string): { status: number; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (r.error) return { status: 127, out: String(r.error) };
  return { status: r.status ?? 1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The packages `kinds` (and the peers) need that are missing, from dpkg and from the files themselves. */
export function missingLivePackages(kinds: readonly LiveKind[], peers = true): string[] {
  const groups = [...kinds, ...(peers ? (['peers'] as const) : [])];
  const names = [...new Set(groups.flatMap((g) => LIVE_PACKAGES[g]))];
  const missing = new Set(missingDebianPackages(names));
  for (const g of groups) for (const [file, pkg] of NEEDED_FILES[g]) if (!fs.existsSync(file)) missing.add(pkg);
  return [...missing];
}

/** Installs what `kinds` need when it can (root on Debian); throws naming the packages when it cannot. */
export function ensureLiveTools(kinds: readonly LiveKind[], peers = true): void {
  const missing = missingLivePackages(kinds, peers);
  if (missing.length) {
    if (process.platform !== 'linux') throw new Error(`the live servers run on Linux (Debian's daemons); missing: ${missing.join(' ')}`);
    ensureDebianPackages(missing, `The live servers (${kinds.join(', ')})`);
    const still = missingLivePackages(kinds, peers);
    if (still.length) throw new Error(`still missing after installing: ${still.join(' ')}`);
  }
  if (kinds.includes('s3')) {
    s3rverModule();
    ensureNode24();
  }
  const needRoot = kinds.filter((k) => k !== 's3');
  if (needRoot.length && !isRoot()) throw new Error(`the ${needRoot.join(', ')} server${needRoot.length > 1 ? 's' : ''} start as root here (ProFTPD, sshd and Apache switch to their own users, and each one's data folder is given to that user): run the tests as root`);
}

/** The S3 server package's folder (a dev dependency: npm ci brings it). */
export function s3rverModule(): string {
  const dir = path.join(repoRoot, 'node_modules', '@20minutes', 's3rver');
  if (!fs.existsSync(path.join(dir, 'package.json'))) throw new Error('the S3 server needs the npm dev dependency @20minutes/s3rver: run npm ci');
  return dir;
}

/**
 * Why the live servers `kinds` cannot run here (after installing what can be installed), or
 * undefined when they can.
 */
export function liveServersProblem(kinds: readonly LiveKind[] = ALL_KINDS, peers = true): string | undefined {
  try {
    ensureLiveTools(kinds, peers);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** CI=true or SITE_REVISIONS_LIVE=require: a missing server fails the tests instead of skipping them. */
export function liveServersRequired(): boolean {
  return process.env.SITE_REVISIONS_LIVE === 'require' || /^(1|true)$/i.test(process.env.CI ?? '');
}

/**
 * For a mocha `before` hook: installs what `kinds` need (this can take minutes the first time:
 * give the hook a long timeout) and skips the suite with the reason when the servers cannot run
 * here, or throws on CI (liveServersRequired).
 */
export function requireLiveServers(ctx: Mocha.Context, kinds: readonly LiveKind[] = ALL_KINDS, peers = true): void {
  if (process.env.SITE_REVISIONS_LIVE === 'skip') {
    if (/^(1|true)$/i.test(process.env.CI ?? '')) throw new Error('SITE_REVISIONS_LIVE=skip is refused with CI=true: on CI every live test runs');
    process.stderr.write('[live] SITE_REVISIONS_LIVE=skip: skipping the tests against live servers\n');
    ctx.skip();
  }
  const why = liveServersProblem(kinds, peers);
  if (!why) return;
  if (liveServersRequired()) throw new Error(`the live servers cannot run here (CI=true makes this a failure): ${why}`);
  process.stderr.write(`[live] skipping: ${why}\n`);
  ctx.skip();
}

// ---------------------------------------------------------------------------------------------
// The SFTP user

function shadowHash(user: string): string | undefined {
  try {
    const line = fs.readFileSync('/etc/shadow', 'utf8').split('\n').find((l) => l.startsWith(`${user}:`));
    return line?.split(':')[1];
  } catch {
    return undefined;
  }
}

/** Whether `hash` (crypt(3) `$id$salt$…`) is `password`'s, through openssl passwd. */
function hashMatches(hash: string, password: string): boolean {
  const m = /^\$(1|5|6)\$([^$]+)\$/.exec(hash);
  if (!m) return false;
  const r = run('openssl', ['passwd', `-${m[1]}`, '-salt', m[2]!, '-stdin'], password);
  return r.status === 0 && r.out.trim() === hash;
}

function readOrMakePassword(): string {
  try {
    const pw = fs.readFileSync(SFTP_PASSWORD_FILE, 'utf8').trim();
    if (pw) return pw;
  } catch {
    /* first run on this machine */
  }
  fs.mkdirSync(path.dirname(SFTP_PASSWORD_FILE), { recursive: true, mode: 0o700 });
  const tmp = `${SFTP_PASSWORD_FILE}.${process.pid}`;
  fs.writeFileSync(tmp, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, SFTP_PASSWORD_FILE); // atomic: a run at the same moment keeps the first one's
  } catch {
    /* another run made it first */
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return fs.readFileSync(SFTP_PASSWORD_FILE, 'utf8').trim();
}

/**
 * Creates the system user `srtest` if needed (no home of its own: /tmp; shell nologin, since
 * sshd runs internal-sftp for it and nothing else) and sets its password when it is not already
 * the machine's one. Idempotent and safe when several runs do it at once. Returns uid, gid and password.
 */
export function ensureSftpUser(): { uid: number; gid: number; password: string } {
  const get = (): { uid: number; gid: number } | undefined => {
    const r = run('getent', ['passwd', SFTP_USER]);
    if (r.status !== 0) return undefined;
    const f = r.out.trim().split(':');
    return { uid: Number(f[2]), gid: Number(f[3]) };
  };
  if (!get()) {
    const nologin = fs.existsSync('/usr/sbin/nologin') ? '/usr/sbin/nologin' : '/bin/false';
    const r = run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/tmp', '--shell', nologin, '--comment', 'Site Revisions live-server tests (sshd on loopback)', SFTP_USER]);
    if (!get()) throw new Error(`could not create the user ${SFTP_USER} for sshd: ${r.out.trim()}`);
  }
  const ids = get()!;
  const password = readOrMakePassword();
  for (let attempt = 0; ; attempt++) {
    const hash = shadowHash(SFTP_USER);
    if (hash && hashMatches(hash, password)) break;
    // SHA-512 crypt (not Debian's default yescrypt), so that the check above can verify it.
    const r = run('chpasswd', ['--crypt-method', 'SHA512'], `${SFTP_USER}:${password}\n`);
    if (r.status === 0) break;
    if (attempt >= 20) throw new Error(`chpasswd for ${SFTP_USER} failed: ${r.out.trim()}`);
    // /etc/shadow is locked by a run doing the same at this moment: try again shortly.
    spawnSync('sleep', ['0.1']);
  }
  return { ...ids, password };
}

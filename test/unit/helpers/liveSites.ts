// The live test servers (test/live) as the extension would reach them: a site of each kind mapped
// by the connection layer's own endpoint mapping, opened with a trust context that trusts exactly
// this run's certificate (pinned) and host key (its known_hosts file), and the run's password.
// For the transfer tests and benches; nothing here decides what a test expects.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openLive, siteEndpoint, type LiveEndpoint, type LiveFs, type LiveTrust, type SiteLike } from '../../../src/core/live';
import { memoryStore } from './liveOptions';
import { peer, rcloneRemote } from '../../live/peers';
import type { LiveKind, LiveServers } from '../../live/servers';

export interface SiteOptions {
  /** Connect through this loopback port instead (a fault proxy in front of the server). */
  port?: number;
  /** A folder inside the server's data folder to use as the site's root. */
  dir?: string;
  /** FTP connections at once. */
  poolSize?: number;
  siteId?: string;
}

/** The site definition (as the service stores it) of a test server. */
export function siteOf(live: LiveServers, kind: LiveKind, o: SiteOptions = {}): SiteLike {
  const sub = o.dir ? `/${o.dir}` : '';
  const id = o.siteId ?? `test-${kind}`;
  switch (kind) {
    case 'ftp': {
      const f = live.ftp!;
      return { id, name: `FTP ${id}`, server_type: 'FTP', domain: f.host, port: String(o.port ?? f.port), ftp_user: f.user, ftp_pass: f.password, dir: sub || '/', encryption: '1', pasv: '1' };
    }
    case 'sftp': {
      const s = live.sftp!;
      return { id, name: `SFTP ${id}`, server_type: 'SFTP', domain: s.host, port: String(o.port ?? s.port), ftp_user: s.user, ftp_pass: s.password, dir: `${s.dataDir}${sub}` };
    }
    case 'dav': {
      const d = live.dav!;
      const u = new URL(d.httpsUrl);
      return { id, name: `WebDAV ${id}`, server_type: 'WebDAV', domain: `https://${u.hostname}:${o.port ?? u.port}`, ftp_user: d.user, ftp_pass: d.password, dir: sub || '/' };
    }
    case 's3': {
      const s = live.s3!;
      return { id, name: `S3 ${id}`, server_type: 'AmazonS3', domain: `${s.httpsEndpoint.replace(/\/$/, '')}/${s.bucket}`, ftp_user: s.accessKeyId, ftp_pass: s.secretAccessKey, dir: o.dir ?? '' };
    }
  }
}

/** The trust context that accepts exactly this run's certificate and host key. */
export async function trustOf(live: LiveServers, kind: LiveKind, ep: LiveEndpoint): Promise<LiveTrust> {
  const store = memoryStore();
  const fp = kind === 'ftp' ? live.ftp?.fingerprint256 : kind === 'dav' ? live.dav?.fingerprint256 : kind === 's3' ? live.s3?.fingerprint256 : undefined;
  if (fp) await store.addPin(ep.host, ep.port, fp);
  return { store, knownHostsFiles: kind === 'sftp' ? [live.sftp!.knownHostsFile] : [] };
}

export function endpointOf(live: LiveServers, kind: LiveKind, o: SiteOptions = {}): { endpoint: LiveEndpoint; password: string } {
  const m = siteEndpoint(siteOf(live, kind, o), { ...(o.poolSize ? { poolSize: o.poolSize } : {}), ...(kind === 's3' ? { s3Region: live.s3!.region } : {}) });
  if (!m.ok) throw new Error(`the ${kind} test site does not map: ${m.reason}`);
  return { endpoint: m.endpoint, password: m.storedPassword ?? '' };
}

/** Opens a test server as the site's live file system. */
export async function openSite(live: LiveServers, kind: LiveKind, o: SiteOptions = {}): Promise<LiveFs> {
  const { endpoint, password } = endpointOf(live, kind, o);
  const trust = await trustOf(live, kind, endpoint);
  return openLive(endpoint, { trust, secrets: { password: async () => password }, ...(process.env.SR_TEST_LIVE_LOG ? { log: (level, m) => process.stderr.write(`[live ${level}] ${m}\n`) } : {}) });
}

/** The server's own folder on disk for a kind (S3 has none readable: undefined). */
export function dataDirOf(live: LiveServers, kind: LiveKind): string | undefined {
  return kind === 'ftp' ? live.ftp!.dataDir : kind === 'sftp' ? live.sftp!.dataDir : kind === 'dav' ? live.dav!.dataDir : undefined;
}

/** Every name in a server folder (recursively), for "no temporary file left" checks. */
export function namesOnDisk(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(r);
      if (e.isDirectory()) walk(`${d}/${e.name}`, r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/**
 * The server's side as another client or an editor on the server sees it — the server's own
 * folder on disk (FTP, SFTP, WebDAV: files owned by the server's user), or for S3 (whose layout
 * is private) rclone: what tests change behind the extension's back and read expected results from.
 */
export interface ServerSide {
  kind: LiveKind;
  read(rel: string): Promise<Buffer | undefined>;
  /** Writes a file as the server's user would (parents made); `mtimeMs` sets its time (not S3). */
  write(rel: string, bytes: Buffer | string, mtimeMs?: number): Promise<void>;
  remove(rel: string): Promise<void>;
  /** Every name under `dir` (recursively, folders too), for "no temporary file left" checks. */
  names(dir: string): Promise<string[]>;
  /** Permission bits on the server's disk (not S3). */
  mode?(rel: string): number;
  chmod?(rel: string, mode: number): void;
  /** Sets a file's time on the server's disk (not S3). */
  setMtime?(rel: string, ms: number): void;
  mtime?(rel: string): number;
}

export function serverSide(live: LiveServers, kind: LiveKind): ServerSide {
  const dir = dataDirOf(live, kind);
  if (dir) {
    const owner = fs.statSync(dir);
    const abs = (rel: string) => path.join(dir, ...rel.split('/'));
    const own = (p: string) => fs.chownSync(p, owner.uid, owner.gid);
    return {
      kind,
      read: async (rel) => (fs.existsSync(abs(rel)) ? fs.readFileSync(abs(rel)) : undefined),
      write: async (rel, bytes, mtimeMs) => {
        const segs = rel.split('/');
        let d = dir;
        for (const s of segs.slice(0, -1)) {
          d = path.join(d, s);
          if (!fs.existsSync(d)) {
            fs.mkdirSync(d);
            own(d);
          }
        }
        fs.writeFileSync(abs(rel), bytes);
        own(abs(rel));
        if (mtimeMs !== undefined) fs.utimesSync(abs(rel), new Date(mtimeMs), new Date(mtimeMs));
      },
      remove: async (rel) => fs.rmSync(abs(rel), { force: true, recursive: true }),
      names: async (d) => (fs.existsSync(abs(d)) ? namesOnDisk(abs(d)) : []),
      mode: (rel) => fs.statSync(abs(rel)).mode & 0o7777,
      chmod: (rel, mode) => fs.chmodSync(abs(rel), mode),
      setMtime: (rel, ms) => fs.utimesSync(abs(rel), new Date(ms), new Date(ms)),
      mtime: (rel) => fs.statSync(abs(rel)).mtimeMs,
    };
  }
  const remote = (rel: string) => `${rcloneRemote(live, 's3')}/${rel}`;
  return {
    kind,
    read: async (rel) => {
      const r = await peer('rclone', ['cat', remote(rel)], { allowFailure: true });
      return r.code === 0 ? r.stdout : undefined;
    },
    write: async (rel, bytes) => void (await peer('rclone', ['rcat', remote(rel)], { input: typeof bytes === 'string' ? Buffer.from(bytes) : bytes })),
    remove: async (rel) => void (await peer('rclone', ['deletefile', remote(rel)], { allowFailure: true })),
    names: async (d) =>
      (await peer('rclone', ['lsf', '-R', remote(d)], { allowFailure: true })).stdout
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/\/$/, ''))
        .sort(),
  };
}

// A site (src/core/api/types.ts) and this computer's settings for it → a connection definition
// (issue 33 §2). Every row of the decision is in docs/decisions.md ("Live servers: what each site
// field means") and tested in test/unit/live.endpoint.test.ts. Pure: no I/O, no secret kept
// beyond `storedPassword`, which the caller keeps in memory only.
import { withoutUserinfo } from '../api/userinfo';
import type { Site } from '../api/types';
import type { LiveEndpoint, LiveProtocol, LocalSiteSettings, MappedSite } from './types';

/** The site fields the mapping reads (a Site, or the form's unsaved values). */
export type SiteLike = Partial<Pick<Site, 'id' | 'name' | 'server_type' | 'domain' | 'logon_type' | 'ftp_user' | 'ftp_pass' | 'dir' | 'port' | 'pasv' | 'encryption' | 'encoding' | 'save_password' | 'timeout'>>;

export const DEFAULT_TIMEOUT_S = 30;
export const MIN_TIMEOUT_S = 1;
export const MAX_TIMEOUT_S = 300;
export const DEFAULT_POOL = 3;
export const MAX_POOL = 8;
export const DEFAULT_IDLE_S = 60;

const UNREACHABLE: Record<string, { kind: 'no-server' | 'oauth' | 'ajax'; reason: string }> = {
  None: { kind: 'no-server', reason: 'This site has no server (server type None): there is nothing to connect to.' },
  Dropbox: { kind: 'oauth', reason: 'Dropbox is reached through the service\'s own authorization (OAuth tokens the service keeps); the service\'s API does not give them to other clients, so the extension cannot connect to it.' },
  GDrive: { kind: 'oauth', reason: 'Google Drive is reached through the service\'s own authorization (OAuth tokens the service keeps); the service\'s API does not give them to other clients, so the extension cannot connect to it.' },
  GDriveLimited: { kind: 'oauth', reason: 'Google Drive (limited access) is reached through the service\'s own authorization (OAuth tokens the service keeps); the service\'s API does not give them to other clients, so the extension cannot connect to it.' },
  AJAX: { kind: 'ajax', reason: 'An AJAX site is a PHP proxy file on the web server that the service talks to in its own private protocol, not a file server; the extension does not speak that protocol.' },
};

const PROTOCOL: Record<string, LiveProtocol> = { FTP: 'ftp', SFTP: 'sftp', WebDAV: 'webdav', AmazonS3: 's3' };

/**
 * Whether a stored password looks encrypted with a ShiftEdit master password: base64 of an
 * AES-CTR counter block (8 bytes: milliseconds < 1000, a random half, the seconds since 1970
 * between 2009 and tomorrow, little-endian) and the ciphertext. A typed password almost never
 * decodes to such a block.
 */
export function looksEncrypted(pass: string): boolean {
  if (pass.length < 12 || !/^[A-Za-z0-9+/]+={0,2}$/.test(pass) || pass.length % 4 !== 0) return false;
  const b = Buffer.from(pass, 'base64');
  if (b.length < 9) return false;
  const ms = b.readUInt16LE(0);
  const sec = b.readUInt32LE(4);
  return ms < 1000 && sec >= 1230768000 && sec <= Date.now() / 1000 + 86400;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

/** `dir` cleaned: trimmed, backslashes as slashes, no repeated or trailing slash ('/' stays). */
export function cleanDir(dir: string): string {
  const d = dir.trim().replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  return d.length > 1 ? d.replace(/\/$/, '') : d;
}

interface HostParts {
  scheme: string;
  host: string;
  port: number | undefined;
  path: string;
}

/** Splits `[scheme://]host[:port][/path]` (userinfo dropped; it is never used). */
export function splitDomain(domain: string): HostParts | undefined {
  const d = withoutUserinfo(domain.trim());
  if (!d) return undefined;
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(?:[^@/]*@)?(\[[0-9a-f:.]+\]|[^:/?#\s]+)(?::(\d*))?([^?#]*)/i.exec(d);
  if (!m) return undefined;
  const port = m[3] ? Number(m[3]) : undefined;
  return { scheme: (m[1] ?? '').toLowerCase(), host: m[2]!.replace(/^\[|\]$/g, ''), port: port && port > 0 && port < 65536 ? port : undefined, path: m[4] ?? '' };
}

function parsePort(raw: string | undefined): number | undefined | 'bad' {
  const p = (raw ?? '').trim();
  if (p === '' || p === '0') return undefined;
  if (!/^\d+$/.test(p)) return 'bad';
  const n = Number(p);
  return n >= 1 && n <= 65535 ? n : 'bad';
}

function incomplete(reason: string): MappedSite {
  return { ok: false, kind: 'incomplete', reason };
}

/**
 * Maps a site and this computer's settings for it to an endpoint, or says why it cannot be
 * reached from here. Works on saved sites and on the form's unsaved values alike.
 */
export function siteEndpoint(site: SiteLike, local: LocalSiteSettings = {}): MappedSite {
  const type = (site.server_type ?? '').trim();
  const unreachable = UNREACHABLE[type];
  if (unreachable) return { ok: false, ...unreachable };
  let protocol = PROTOCOL[type];
  if (!protocol) return { ok: false, kind: 'unknown-type', reason: `The server type "${type || '(empty)'}" is not one the extension knows how to reach (FTP, SFTP, WebDAV, AmazonS3).` };
  const notes: string[] = [];

  // timeout: seconds (ShiftEdit's form asks for it in seconds, default 10), bounded.
  const rawTimeout = (site.timeout ?? '').trim();
  let timeoutS = local.defaultTimeoutSeconds ?? DEFAULT_TIMEOUT_S;
  if (rawTimeout !== '' && rawTimeout !== '0') {
    const n = Number(rawTimeout);
    if (!Number.isFinite(n) || n <= 0) notes.push(`timeout "${rawTimeout}" is not a number of seconds: ${timeoutS} s used.`);
    else {
      const c = clamp(Math.round(n), MIN_TIMEOUT_S, MAX_TIMEOUT_S);
      if (c !== n) notes.push(`timeout ${rawTimeout} s is outside ${MIN_TIMEOUT_S}–${MAX_TIMEOUT_S} s: ${c} s used.`);
      timeoutS = c;
    }
  }

  const port = parsePort(site.port);
  if (port === 'bad') return incomplete(`The port "${site.port}" is not a port number (1–65535).`);
  const dir = cleanDir(site.dir ?? '');
  const user = (site.ftp_user ?? '').trim();
  const encryption = (site.encryption ?? '').trim() === '1';

  // The stored password: empty (save_password off) or encrypted with a master password → ask.
  const pass = site.ftp_pass ?? '';
  let storedPassword: string | undefined = pass || undefined;
  let passwordIssue: 'missing' | 'encrypted' | undefined;
  if (!pass) passwordIssue = 'missing';
  else if (looksEncrypted(pass)) {
    passwordIssue = 'encrypted';
    storedPassword = undefined;
  }

  const poolSize = clamp(Math.round(local.poolSize ?? DEFAULT_POOL), 1, MAX_POOL);
  const base = {
    siteId: site.id ?? '',
    label: (site.name ?? '').trim() || withoutUserinfo((site.domain ?? '').trim()),
    user,
    timeoutMs: timeoutS * 1000,
    idleMs: clamp(local.idleSeconds ?? DEFAULT_IDLE_S, 1, 3600) * 1000,
  };

  if (protocol === 's3') return s3Endpoint(site, local, { ...base, dir, port, storedPassword, passwordIssue, notes });

  const parts = splitDomain(site.domain ?? '');
  if (!parts) return incomplete('The site has no host.');
  if (/^s?ftp$|^ftps$|^ftpes$|^https?$|^$/.test(parts.scheme) === false) {
    return incomplete(`The host "${parts.scheme}://…" has a scheme the extension does not know.`);
  }
  if (protocol === 'ftp' && parts.scheme === 'sftp') {
    protocol = 'sftp';
    notes.push('The host starts with sftp://: connected with SFTP, though the server type is FTP.');
  }

  if (protocol === 'webdav') {
    const https = parts.scheme === 'https' || (parts.scheme !== 'http' && encryption);
    if (parts.scheme === 'http' && encryption) notes.push('The host says http://, which wins over "encryption" = 1.');
    const p = port ?? parts.port ?? (https ? 443 : 80);
    const basePath = `/${[...decodeSegments(parts.path), ...(dir.startsWith('/') ? [] : decodeSegments(dir))].join('/')}`;
    const rootPath = dir.startsWith('/') ? dir : basePath;
    const root = rootPath.length > 1 ? rootPath.replace(/\/$/, '') : '/';
    const hostInUrl = parts.host.includes(':') ? `[${parts.host}]` : parts.host;
    const defaultPort = https ? 443 : 80;
    const url = `${https ? 'https' : 'http'}://${hostInUrl}${p === defaultPort ? '' : `:${p}`}${encodePath(root)}${root.endsWith('/') ? '' : '/'}`;
    const endpoint: LiveEndpoint = { ...base, protocol, host: parts.host, port: p, root, tls: https, poolSize: Math.max(poolSize, 4), webdav: { url } };
    return { ok: true, endpoint, storedPassword, ...(passwordIssue ? { passwordIssue } : {}), notes };
  }

  if (protocol === 'sftp') {
    if (!user) return incomplete('The site has no user name.');
    const key = (site.logon_type ?? '').trim() === 'key';
    let auth: 'password' | 'key' | 'agent' = 'password';
    if (key) {
      if (local.keyFile) auth = 'key';
      else if (local.agentSocket || process.env.SSH_AUTH_SOCK) auth = 'agent';
      else {
        return incomplete('This site signs in with a key (the service\'s own key, installed on the server, which this computer does not have). Choose your own private key file for it, or run an SSH agent.');
      }
      if (!pass) passwordIssue = undefined; // the password field then holds the key's passphrase, if any
    }
    const root = dir; // '' login directory, '/abs', or relative to the login directory
    const endpoint: LiveEndpoint = {
      ...base,
      protocol,
      host: parts.host,
      port: port ?? (parts.scheme === 'sftp' ? parts.port : undefined) ?? parts.port ?? 22,
      root,
      tls: false,
      poolSize: 1,
      sftp: { auth, ...(auth === 'key' ? { keyFile: local.keyFile! } : {}), ...(auth === 'agent' ? { agentSocket: local.agentSocket ?? process.env.SSH_AUTH_SOCK! } : {}) },
    };
    return { ok: true, endpoint, storedPassword: auth === 'password' || auth === 'key' ? storedPassword : undefined, ...(auth === 'password' && passwordIssue ? { passwordIssue } : {}), notes };
  }

  // FTP / FTPS
  const explicitPort = port ?? parts.port;
  let tls: 'none' | 'explicit' | 'implicit' = 'none';
  if (parts.scheme === 'ftps' || parts.scheme === 'ftpes' || encryption) tls = explicitPort === 990 ? 'implicit' : 'explicit';
  if ((site.pasv ?? '').trim() === '0') notes.push('Active mode (pasv = 0) is not supported from here: passive mode is used (it works through NAT and most firewalls).');
  const enc = (site.encoding ?? '').trim().toLowerCase().replace(/_/g, '-');
  let encoding: 'utf8' | 'latin1' = 'utf8';
  if (/^(iso-?8859-1|latin-?1|l1|windows-1252|cp1252|iso-?8859-15|latin-?9)$/.test(enc)) encoding = 'latin1';
  else if (enc && !/^utf-?8$/.test(enc)) notes.push(`File names are read as UTF-8: the encoding "${site.encoding}" is not one FTP file names can use here.`);
  const endpoint: LiveEndpoint = {
    ...base,
    protocol: 'ftp',
    user: user || 'anonymous',
    host: parts.host,
    port: explicitPort ?? (tls === 'implicit' ? 990 : 21),
    root: dir,
    tls: tls !== 'none',
    poolSize,
    ftp: { tls, passive: true, encoding },
  };
  if (!user) {
    notes.push('No user name: signs in as anonymous.');
    return { ok: true, endpoint, storedPassword: storedPassword ?? 'anonymous@', notes };
  }
  return { ok: true, endpoint, storedPassword, ...(passwordIssue ? { passwordIssue } : {}), notes };
}

function decodeSegments(path: string): string[] {
  return path
    .split('/')
    .filter((s) => s && s !== '.')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

/** Percent-encodes each segment of a decoded path (what a URL carries). */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

function s3Endpoint(
  site: SiteLike,
  local: LocalSiteSettings,
  b: { siteId: string; label: string; user: string; timeoutMs: number; idleMs: number; dir: string; port: number | undefined; storedPassword: string | undefined; passwordIssue: 'missing' | 'encrypted' | undefined; notes: string[] },
): MappedSite {
  if (!b.user) return incomplete('The site has no access key id (the user name of an Amazon S3 site).');
  const parts = splitDomain(site.domain ?? '');
  let bucket = '';
  let region = local.s3Region ?? '';
  let endpoint = local.s3Endpoint ?? '';
  let pathStyle = local.s3PathStyle;
  let prefixDir = b.dir.replace(/^\/+/, '');
  if (parts && !parts.scheme && !parts.path && !parts.port) {
    // 'bucket', 'bucket.s3.amazonaws.com', 'bucket.s3.eu-west-1.amazonaws.com', 's3.eu-west-1.amazonaws.com' (+ bucket in dir)
    const aws = /^(?:(.+)\.)?s3(?:[.-]([a-z0-9-]+))?\.amazonaws\.com$/i.exec(parts.host);
    if (aws) {
      bucket = aws[1] ?? '';
      if (aws[2] && aws[2] !== 'external-1') region ||= aws[2];
    } else bucket = parts.host;
  } else if (parts) {
    // A custom endpoint as a URL: 'https://minio.example.com:9000/bucket' (path style)
    const scheme = parts.scheme === 'http' ? 'http' : 'https';
    const host = parts.host.includes(':') ? `[${parts.host}]` : parts.host;
    endpoint ||= `${scheme}://${host}${parts.port ? `:${parts.port}` : ''}`;
    bucket = decodeSegments(parts.path)[0] ?? '';
    pathStyle ??= true;
  }
  if (!bucket) {
    // ShiftEdit's own form has no host field for S3: the folder's first segment is the bucket.
    const segs = prefixDir.split('/').filter(Boolean);
    bucket = segs.shift() ?? '';
    prefixDir = segs.join('/');
    if (bucket) b.notes.push('No bucket in the host field: the first folder of "dir" is the bucket.');
  }
  if (!bucket) return incomplete('The site names no bucket (the host field, or the first folder of "dir").');
  if (local.s3Endpoint) pathStyle ??= true;
  const regionGiven = !!region;
  region ||= 'us-east-1';
  if (!endpoint) {
    pathStyle ??= bucket.includes('.'); // a dotted bucket does not match AWS's wildcard certificate
    endpoint = region === 'us-east-1' ? 'https://s3.amazonaws.com' : `https://s3.${region}.amazonaws.com`;
  }
  const url = new URL(endpoint);
  const tls = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  const host = pathStyle ? url.hostname.replace(/^\[|\]$/g, '') : `${bucket}.${url.hostname}`;
  const prefix = prefixDir ? `${prefixDir}/` : '';
  if (!regionGiven) b.notes.push('Region: us-east-1 until the bucket says another (x-amz-bucket-region).');
  const ep: LiveEndpoint = {
    protocol: 's3',
    siteId: b.siteId,
    label: b.label || bucket,
    host,
    port,
    user: b.user,
    root: prefix,
    timeoutMs: b.timeoutMs,
    idleMs: b.idleMs,
    tls,
    poolSize: 6,
    s3: { bucket, region, endpoint: `${url.protocol}//${url.host}`, pathStyle: pathStyle ?? false },
  };
  return { ok: true, endpoint: ep, storedPassword: b.storedPassword, ...(b.passwordIssue ? { passwordIssue: b.passwordIssue } : {}), notes: b.notes };
}

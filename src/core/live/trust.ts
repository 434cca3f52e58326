// Nobody in the middle gets a password (issue 33 §3). Plain Node; the questions go to the
// injected TrustDecider (a modal dialog on the VS Code side), the answers to its TrustStore.
//
// - SSH host keys, checked BEFORE any credential is sent: OpenSSH's known_hosts files (read
//   only; hashed `|1|salt|hash` names, `[host]:port`, wildcards and negations, @revoked; a
//   @cert-authority line is not a host key and is skipped) and the extension's own store. A key
//   seen for the first time goes to the decider with its SHA256 fingerprint; a host known with
//   another key is refused with both fingerprints, and nothing asks "connect anyway".
// - TLS certificates (FTPS, https WebDAV, S3): Node's CAs, the system's store and the CA file
//   as the service client trusts them (src/core/api/trust.ts); a certificate no CA vouches for
//   goes to the decider with its SHA-256 fingerprint and is trusted only by pinning that
//   fingerprint for host:port; an expired (or not yet valid) certificate is refused, pinned or not.
// - Plain FTP or http to a host that is not loopback: the decider is asked whether the password
//   may cross the network in clear, once per site (the store remembers 'always').
import { createHash, createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate, SecureContext, TLSSocket } from 'node:tls';
import { trustFor } from '../api/trust';
import { isLoopbackHost } from '../api/url';
import { LiveError, type CertificateInfo, type HostKey, type LiveEndpoint, type LiveTrust } from './types';
import type { PersonTime } from './util';

// ---- SSH host keys

/** 'SHA256:…' (unpadded base64 of the key blob's SHA-256), as `ssh-keygen -lf` prints it. */
export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type written at the start of an SSH key blob ('ssh-ed25519'). */
export function sshKeyType(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const n = blob.readUInt32BE(0);
  return n > 0 && n < 64 && blob.length >= 4 + n ? blob.subarray(4, 4 + n).toString('latin1') : 'unknown';
}

export function hostKeyOf(blob: Buffer): HostKey {
  return { type: sshKeyType(blob), key: blob.toString('base64'), fingerprint: sshFingerprint(blob) };
}

/** One usable line of a known_hosts file. */
export interface KnownHostLine {
  marker: '' | 'revoked';
  patterns: string[];
  key: HostKey;
}

/** The name known_hosts uses for host:port ('host' on 22, '[host]:port' otherwise). */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** Parses known_hosts text; lines it cannot read (and @cert-authority lines) are skipped. */
export function parseKnownHosts(text: string): KnownHostLine[] {
  const out: KnownHostLine[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    let marker: KnownHostLine['marker'] = '';
    if (parts[0]!.startsWith('@')) {
      const m = parts.shift()!;
      if (m === '@revoked') marker = 'revoked';
      else continue; // @cert-authority: a CA key, not this host's key
    }
    if (parts.length < 3) continue;
    const [hosts, type, b64] = parts as [string, string, string];
    let blob: Buffer;
    try {
      blob = Buffer.from(b64, 'base64');
    } catch {
      continue;
    }
    if (!blob.length) continue;
    out.push({ marker, patterns: hosts.split(','), key: { type, key: blob.toString('base64'), fingerprint: sshFingerprint(blob) } });
  }
  return out;
}

function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
  return re.test(name);
}

/** Whether a line's host patterns name `name` (hashed names, wildcards, `!` negations). */
export function linePatternsMatch(patterns: readonly string[], name: string): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.startsWith('|1|')) {
      const [, , salt, hash] = p.split('|');
      if (!salt || !hash) continue;
      const h = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64');
      if (h === hash) matched = true;
      continue;
    }
    const negated = p.startsWith('!');
    const pat = negated ? p.slice(1) : p;
    if (globMatch(pat, name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** The known_hosts files read by default. */
export function defaultKnownHostsFiles(): string[] {
  return [join(homedir(), '.ssh', 'known_hosts'), '/etc/ssh/ssh_known_hosts'];
}

async function knownHostLines(files: readonly string[]): Promise<KnownHostLine[]> {
  const all: KnownHostLine[] = [];
  for (const f of files) {
    try {
      all.push(...parseKnownHosts(await readFile(f, 'utf8')));
    } catch {
      // absent or unreadable: nothing known from it
    }
  }
  return all;
}

/** The key types known for host:port (to ask the server for those first). */
export async function knownKeyTypes(trust: LiveTrust, host: string, port: number): Promise<string[]> {
  const name = knownHostsName(host, port);
  const lines = (await knownHostLines(trust.knownHostsFiles ?? defaultKnownHostsFiles())).filter((l) => l.marker === '' && linePatternsMatch(l.patterns, name));
  const stored = await trust.store.hostKeys(host, port).catch(() => []);
  return [...new Set([...lines.map((l) => l.key.type), ...stored.map((k) => k.type)])];
}

export interface HostKeyVerdict {
  key: HostKey;
  /** How it was trusted. */
  how: 'known_hosts' | 'store' | 'accepted' | 'accepted-once';
}

/** Runs a question to a person: timed apart from the server when a PersonTime is given. */
function ask<T>(person: PersonTime | undefined, fn: () => Promise<T>): Promise<T> {
  return person ? person.during(fn) : fn();
}

/**
 * Decides whether the server's host key may be trusted. Throws LiveError 'host-key-revoked',
 * 'host-key-changed' (data: expected, presented) or 'host-key-unknown' (refused or not asked).
 * A key accepted is remembered in `once` for the rest of the LiveFs, as certificates are: a
 * reconnection that presents the same key (after the server dropped the connection while the
 * person decided, or after an idle close) is not asked again; another key is asked about as
 * unknown. `person` times the question apart from the server.
 */
export async function verifyHostKey(trust: LiveTrust, host: string, port: number, blob: Buffer, site: string, o: { once?: OnceSet; person?: PersonTime } = {}): Promise<HostKeyVerdict> {
  const key = hostKeyOf(blob);
  const name = knownHostsName(host, port);
  const lines = (await knownHostLines(trust.knownHostsFiles ?? defaultKnownHostsFiles())).filter((l) => linePatternsMatch(l.patterns, name));
  if (lines.some((l) => l.marker === 'revoked' && l.key.key === key.key)) {
    throw new LiveError('host-key-revoked', 'host-key', `The host key of ${name} (${key.fingerprint}) is marked @revoked in known_hosts.`, {
      next: 'Do not connect: ask the server\'s administrator for its current key.',
      data: { presented: key.fingerprint },
    });
  }
  const known = lines.filter((l) => l.marker === '').map((l) => l.key);
  if (known.some((k) => k.key === key.key)) return { key, how: 'known_hosts' };
  const stored = await trust.store.hostKeys(host, port);
  if (stored.some((k) => k.key === key.key)) return { key, how: 'store' };
  const onceKey = `ssh:${host}:${port}/${key.key}`;
  if (o.once?.has(onceKey)) return { key, how: 'accepted-once' };
  const previous = [...known, ...stored];
  if (previous.length) {
    const same = previous.find((k) => k.type === key.type) ?? previous[0]!;
    throw new LiveError('host-key-changed', 'host-key', `The host key of ${name} has changed: it was ${same.fingerprint} (${same.type}), the server now presents ${key.fingerprint} (${key.type}). Nothing was sent to it.`, {
      next: 'Someone may be intercepting the connection, or the server was reinstalled. Ask the server\'s administrator for its key\'s fingerprint before you trust the new one (remove the old one from known_hosts or from the trusted keys).',
      data: { expected: same.fingerprint, presented: key.fingerprint, keyType: key.type },
    });
  }
  const decide = trust.decider?.unknownHostKey?.bind(trust.decider);
  const answer = (decide ? await ask(o.person, () => decide({ host, port, key, site })) : undefined) ?? 'no';
  if (answer === 'always') {
    await trust.store.addHostKey(host, port, key);
    o.once?.add(onceKey);
    return { key, how: 'accepted' };
  }
  if (answer === 'once') {
    o.once?.add(onceKey);
    return { key, how: 'accepted-once' };
  }
  throw new LiveError('host-key-unknown', 'host-key', `The host key of ${name} (${key.fingerprint}) is not known, and it was not accepted. Nothing was sent to the server.`, {
    next: 'Compare the fingerprint with the one the server\'s administrator gives, then accept it.',
    data: { presented: key.fingerprint, keyType: key.type },
  });
}

// ---- TLS certificates

/** The secure context with the CAs the extension trusts (undefined: Node's defaults). */
export function secureContextOf(trust: LiveTrust): SecureContext | undefined {
  return trustFor({ ...(trust.ca ? { ca: trust.ca } : {}), systemCertificates: trust.systemCertificates !== false }).secureContext;
}

function dn(x: Record<string, unknown> | undefined): string {
  if (!x) return '';
  return Object.entries(x)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : String(v)}`)
    .join(', ');
}

export function certificateInfo(cert: PeerCertificate, host: string, port: number, reason: string): CertificateInfo {
  const iso = (s: string) => (Number.isFinite(Date.parse(s)) ? new Date(s).toISOString() : s);
  return {
    host,
    port,
    fingerprint256: cert.fingerprint256,
    subject: dn(cert.subject as unknown as Record<string, unknown>),
    issuer: dn(cert.issuer as unknown as Record<string, unknown>),
    validFrom: iso(cert.valid_from),
    validTo: iso(cert.valid_to),
    reason,
    selfSigned: dn(cert.subject as unknown as Record<string, unknown>) === dn(cert.issuer as unknown as Record<string, unknown>),
  };
}

/** Fingerprints trusted for this LiveFs only ('once' answers), per host:port. */
export type OnceSet = Set<string>;

export interface TlsVerdict {
  how: 'ca' | 'pinned' | 'accepted' | 'accepted-once';
  cert: CertificateInfo;
  protocol: string;
}

/**
 * Decides whether a connected TLS socket (made with rejectUnauthorized: false) may be trusted,
 * before anything secret is sent on it. Throws LiveError 'certificate-expired',
 * 'certificate-untrusted'. `person` times the question apart from the server.
 */
export async function verifyTls(socket: TLSSocket, trust: LiveTrust, host: string, port: number, site: string, once: OnceSet, person?: PersonTime): Promise<TlsVerdict> {
  const cert = socket.getPeerCertificate();
  const protocol = socket.getProtocol() ?? 'TLS';
  if (!cert || !cert.fingerprint256) {
    throw new LiveError('tls', 'tls', `${host}:${port} presented no certificate.`, { next: 'Check that this port speaks TLS.' });
  }
  const reason = socket.authorized ? '' : String(socket.authorizationError ?? 'UNTRUSTED');
  const info = certificateInfo(cert, host, port, reason);
  const now = Date.now();
  const from = Date.parse(cert.valid_from);
  const to = Date.parse(cert.valid_to);
  if (/CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/.test(reason) || (Number.isFinite(to) && now > to) || (Number.isFinite(from) && now < from)) {
    const notYet = Number.isFinite(from) && now < from;
    throw new LiveError('certificate-expired', 'tls', `The certificate of ${host}:${port} ${notYet ? `is not valid before ${info.validFrom}` : `expired on ${info.validTo}`} (SHA-256 ${info.fingerprint256}). Nothing was sent to the server.`, {
      next: 'The server\'s administrator must renew its certificate; an expired certificate is never trusted.',
      data: { fingerprint256: info.fingerprint256, validTo: info.validTo, validFrom: info.validFrom },
    });
  }
  if (socket.authorized) return { how: 'ca', cert: info, protocol };
  const key = `${host}:${port}/${info.fingerprint256}`;
  if (once.has(key)) return { how: 'accepted-once', cert: info, protocol };
  const pins = await trust.store.pins(host, port);
  if (pins.includes(info.fingerprint256)) return { how: 'pinned', cert: info, protocol };
  const decide = trust.decider?.untrustedCertificate?.bind(trust.decider);
  const answer = (decide ? await ask(person, () => decide({ cert: info, site })) : undefined) ?? 'no';
  if (answer === 'always') {
    await trust.store.addPin(host, port, info.fingerprint256);
    once.add(key);
    return { how: 'accepted', cert: info, protocol };
  }
  if (answer === 'once') {
    once.add(key);
    return { how: 'accepted-once', cert: info, protocol };
  }
  throw new LiveError('certificate-untrusted', 'tls', `No trusted authority vouches for the certificate of ${host}:${port} (${reason}; SHA-256 ${info.fingerprint256}), and it is not pinned. Nothing was sent to the server.`, {
    next: pins.length
      ? 'The server presents another certificate than the one pinned: check with its administrator before you trust it.'
      : 'Compare the fingerprint with the one the server\'s administrator gives, then trust it; or add its CA with the setting siteRevisions.caFile.',
    data: { fingerprint256: info.fingerprint256, reason, ...(pins[0] ? { pinned: pins[0] } : {}) },
  });
}

/** Whether an already-decided certificate is still trusted (synchronous: every later connection of a pool). */
export function tlsStillTrusted(socket: TLSSocket, host: string, port: number, pins: ReadonlySet<string>): boolean {
  if (socket.authorized) return true;
  const fp = socket.getPeerCertificate()?.fingerprint256;
  return !!fp && pins.has(`${host}:${port}/${fp}`);
}

// ---- Passwords in clear

/** The key of a site's clear-text consent. */
export function siteKey(ep: LiveEndpoint): string {
  return ep.siteId ? `site:${ep.siteId}` : `endpoint:${ep.protocol}://${ep.host}:${ep.port}`;
}

/**
 * Plain FTP or http to a host that is not loopback: asks once per site whether the password may
 * cross the network in clear. Throws LiveError 'cleartext-refused'.
 */
export async function checkCleartext(ep: LiveEndpoint, trust: LiveTrust, once: OnceSet): Promise<void> {
  if (ep.tls || isLoopbackHost(ep.host) || ep.protocol === 'sftp') return;
  const key = siteKey(ep);
  if (once.has(key) || (await trust.store.cleartextAllowed(key))) return;
  const answer = (await trust.decider?.cleartext?.({ host: ep.host, port: ep.port, protocol: ep.protocol, site: ep.label })) ?? 'no';
  if (answer === 'always') await trust.store.allowCleartext(key);
  if (answer === 'always' || answer === 'once') {
    once.add(key);
    return;
  }
  throw new LiveError('cleartext-refused', 'config', `${ep.protocol === 'ftp' ? 'Plain FTP' : 'Plain http'} to ${ep.host} would send the password across the network in clear, and that was not allowed.`, {
    next: ep.protocol === 'ftp' ? 'Use FTPS (FTP over TLS) if the server offers it, or SFTP.' : 'Use https.',
  });
}

// Certificates for the live servers, made with Debian's openssl per run: a self-signed one (what
// FTPS, https WebDAV present) and one that expired long ago. `openssl req -x509 -days` cannot
// date a certificate in the past, and OpenSSL 3.0's `x509` has no start/end date options; `openssl
// ca -selfsign -startdate -enddate` can, with a throw-away CA database in the run folder.
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface CertFiles {
  certFile: string;
  keyFile: string;
  /** As Node's X509Certificate.fingerprint256 prints it (AA:BB:…). */
  fingerprint256: string;
  notAfter: string;
}

/** The names every certificate here is valid for. */
const SAN = 'subjectAltName=IP:127.0.0.1,IP:127.0.0.2,DNS:localhost';

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) throw new Error(`openssl ${args[0]} failed (exit ${r.status}): ${(r.stderr || String(r.error)).trim()}`);
}

function describe(certFile: string, keyFile: string): CertFiles {
  const x = new X509Certificate(fs.readFileSync(certFile));
  return { certFile, keyFile, fingerprint256: x.fingerprint256, notAfter: x.validTo };
}

/** A self-signed RSA certificate for 127.0.0.1 / 127.0.0.2 / localhost, valid for 2 days from now. */
export function makeSelfSigned(dir: string, name = 'server'): CertFiles {
  fs.mkdirSync(dir, { recursive: true });
  const certFile = path.join(dir, `${name}.cert.pem`);
  const keyFile = path.join(dir, `${name}.key.pem`);
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', SAN, '-keyout', keyFile, '-out', certFile], dir);
  fs.chmodSync(keyFile, 0o600);
  return describe(certFile, keyFile);
}

/** A self-signed certificate for the same names that was valid on 1–2 January 2020 only. */
export function makeExpired(dir: string, name = 'expired'): CertFiles {
  const work = path.join(dir, `${name}-ca`);
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(
    path.join(work, 'ca.cnf'),
    [
      '[ ca ]',
      'default_ca = expired',
      '[ expired ]',
      'dir = .',
      'database = ./index.txt',
      'new_certs_dir = .',
      'serial = ./serial',
      'default_md = sha256',
      'policy = any',
      'copy_extensions = copy',
      'unique_subject = no',
      '[ any ]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(work, 'index.txt'), '');
  fs.writeFileSync(path.join(work, 'serial'), '01\n');
  const certFile = path.join(dir, `${name}.cert.pem`);
  const keyFile = path.join(dir, `${name}.key.pem`);
  openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', SAN, '-keyout', keyFile, '-out', path.join(work, 'req.csr')], work);
  openssl(['ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', keyFile, '-in', 'req.csr', '-out', certFile, '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-notext'], work);
  fs.chmodSync(keyFile, 0o600);
  fs.rmSync(work, { recursive: true, force: true });
  return describe(certFile, keyFile);
}

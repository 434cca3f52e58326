// System certificates (setting siteRevisions.systemCertificates): a loopback HTTPS service whose
// certificate is issued by a CA that only the operating system's store holds — a store the test
// provides. On Linux, Node's `tls.getCACertificates('system')` reads OpenSSL's default file and
// folder, and SSL_CERT_FILE / SSL_CERT_DIR replace them; so a child Node process is started with
// both pointing at a temporary CA (and without NODE_EXTRA_CA_CERTS, which would add the machine's
// bundle to Node's own CAs). The CA and the server certificate are made here with `openssl`.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { listenLoopback } from './helpers/rawServer';
import { startProxyServer, type ProxyServer } from './helpers/proxyServer';

interface Outcome {
  ok: boolean;
  code?: string;
  kind?: string;
  stores: string[];
}
interface ChildReport {
  systemStore: string[] | null;
  direct: { system: Outcome; withoutSystem: Outcome };
  proxy: { system: Outcome; withoutSystem: Outcome };
}

/** The server sends its certificate without the CA: an unknown issuer shows as one of these. */
const UNTRUSTED = /^UNABLE_TO_(VERIFY_LEAF_SIGNATURE|GET_ISSUER_CERT_LOCALLY)$/;

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** A CA and a certificate for localhost / 127.0.0.1 signed by it, in `dir`. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Site Revisions test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf'], dir);
  const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
  return { ca: read('ca.pem'), cert: read('server.pem'), key: read('server.key') };
}

describe('system certificates (a CA only the operating system’s store holds)', function () {
  let dir: string;
  let certs: { ca: string; cert: string; key: string };
  let server: https.Server;
  let url: string;
  let proxy: ProxyServer;
  let requests = 0;

  before(async function () {
    if (spawnSync('openssl', ['version']).status !== 0) return this.skip(); // no openssl to make the certificates
    if (typeof (tls as unknown as { getCACertificates?: unknown }).getCACertificates !== 'function') return this.skip(); // Node < 22.15
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-system-ca-'));
    certs = makeCertificates(dir);
    fs.mkdirSync(path.join(dir, 'certs'));
    server = https.createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.setHeader('content-type', 'application/json');
        res.end('{"success":true,"sites":[]}');
      });
    });
    server.on('tlsClientError', () => undefined);
    url = `https://127.0.0.1:${await listenLoopback(server)}`;
    proxy = await startProxyServer();
  });
  after(async () => {
    if (proxy) await proxy.close();
    if (server) await new Promise<void>((r) => server.close(() => r()));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the child (asynchronously: the service and the proxy answer from this process). */
  async function runChild(store: { file: string; dir: string }): Promise<ChildReport> {
    const env: NodeJS.ProcessEnv = { ...process.env, SSL_CERT_FILE: store.file, SSL_CERT_DIR: store.dir };
    delete env.NODE_EXTRA_CA_CERTS;
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, [path.join(__dirname, 'helpers', 'systemCertsChild.js'), JSON.stringify({ url, proxy: proxy.url })], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    return JSON.parse(stdout.trim().split('\n').pop()!) as ChildReport;
  }

  it('Node reads the system store from SSL_CERT_FILE / SSL_CERT_DIR; the client trusts it, directly and through a proxy, unless turned off', async () => {
    requests = 0;
    proxy.reset();
    const r = await runChild({ file: path.join(dir, 'ca.pem'), dir: path.join(dir, 'certs') });
    // What Node 24's getCACertificates('system') really reads here: exactly the provided store.
    assert.deepEqual(
      r.systemStore?.map((p) => p.replace(/\s+/g, '')),
      [certs.ca.replace(/\s+/g, '')],
    );

    assert.deepEqual(r.direct.system, { ok: true, stores: r.direct.system.stores });
    assert.ok(r.direct.system.stores.some((s) => s === 'the system store (1 certificate)'), JSON.stringify(r.direct.system.stores));
    assert.equal(r.direct.withoutSystem.ok, false);
    assert.equal(r.direct.withoutSystem.kind, 'network');
    assert.match(r.direct.withoutSystem.code ?? '', UNTRUSTED);
    assert.ok(!r.direct.withoutSystem.stores.some((s) => s.includes('system store')));

    assert.equal(r.proxy.system.ok, true, JSON.stringify(r.proxy.system));
    assert.equal(r.proxy.withoutSystem.ok, false);
    assert.match(r.proxy.withoutSystem.code ?? '', UNTRUSTED);
    const tunnels = proxy.records.filter((x) => x.kind === 'connect' && x.status === 200);
    assert.equal(tunnels.length, 2, 'both proxied attempts went through a CONNECT tunnel');
    assert.equal(requests, 2, 'only the trusted connections reached the service');
  });

  it('a system store without that CA trusts nothing more: the certificate is refused', async () => {
    requests = 0;
    const other = path.join(dir, 'other');
    fs.mkdirSync(other, { recursive: true });
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'other.key', '-out', 'other.pem', '-days', '2', '-subj', '/CN=Another CA'], other);
    const r = await runChild({ file: path.join(other, 'other.pem'), dir: path.join(dir, 'certs') });
    assert.equal(r.systemStore?.length, 1);
    assert.equal(r.direct.system.ok, false);
    assert.match(r.direct.system.code ?? '', UNTRUSTED);
    assert.equal(r.proxy.system.ok, false);
    assert.equal(requests, 0);
  });
});

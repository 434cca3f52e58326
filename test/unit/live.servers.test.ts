// The live-server harness itself (test/live): the real daemons serve the seed as the INDEPENDENT
// clients see it (lftp, rclone, OpenSSH sftp and ssh-keyscan, curl, openssl s_client), faults
// and latency pass through the fault proxy, and stop() leaves nothing running. What is expected
// comes from the servers' own folders on disk and from test/live/seed.ts.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { listProcesses } from '../host/common';
import { startFaultProxy, type FaultProxy } from '../live/faultProxy';
import { curlAuth, lftpOpen, peer, rcloneRemote, sftpBatch } from '../live/peers';
import { LARGE, listFilesOnDisk, MTIMES, OUTSIDE_FILE, SAME_SIZE, SMALL_SEED_FILES, seedManifest, writeSeed } from '../live/seed';
import { canConnect, removeStaleRuns, reservePortRange, runsBase, startLiveServers, type LiveServers } from '../live/servers';
import { LIVE_PACKAGES, requireLiveServers } from '../live/system';
import { until } from './helpers/wait';

const INSTALL_TIMEOUT = 20 * 60_000;

/** lftp's `find` output as '/'-less relative paths (folders end in '/'). */
function findPaths(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\n')
    .filter((l) => l && l !== '/' && l !== './')
    .map((l) => l.replace(/^\.?\//, ''))
    .sort();
}

/** The seed's regular files and folders as on a server's disk (folders end in '/'), links left out. */
function regularOnDisk(dir: string): string[] {
  return listFilesOnDisk(dir, { withDirs: true });
}

/** The Basic-auth-free hrefs of a PROPFIND reply, decoded, relative ('' is the folder itself). */
function hrefs(xml: string): string[] {
  return [...xml.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => decodeURIComponent(m[1]!).replace(/^\//, ''));
}

/** The SHA-256 fingerprint of the certificate a TLS port presents, through openssl s_client. */
function presentedFingerprint(port: number, starttls?: 'ftp'): string {
  const r = spawnSync('sh', ['-c', `openssl s_client -connect 127.0.0.1:${port} ${starttls ? `-starttls ${starttls}` : ''} </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256`], { encoding: 'utf8' });
  const m = /Fingerprint=([0-9A-F:]+)/i.exec(r.stdout);
  assert.ok(m, `no certificate from port ${port}: ${r.stdout}${r.stderr}`);
  return m[1]!;
}

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function refused({ host, port }: { host: string; port: number }): Promise<boolean> {
  return !(await canConnect(port, host));
}

describe('live servers: the seed', function () {
  it('writes every entry of its manifest with its size and time, links as links', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'srseed-'));
    try {
      const data = path.join(dir, 'data');
      writeSeed(data, 'small');
      for (const e of seedManifest('small')) {
        const st = fs.lstatSync(path.join(data, e.path));
        if (e.kind === 'symlink') {
          assert.ok(st.isSymbolicLink(), e.path);
          assert.equal(fs.readlinkSync(path.join(data, e.path)), e.target);
          const resolved = path.resolve(data, path.dirname(e.path), e.target!);
          assert.equal(fs.existsSync(resolved), e.link !== 'dangling', e.path);
          if (e.link !== 'dangling') assert.equal(resolved.startsWith(data + path.sep), e.link === 'inside', e.path);
          continue;
        }
        assert.equal(e.kind === 'dir' ? st.isDirectory() : st.isFile(), true, e.path);
        if (e.kind === 'file') assert.equal(st.size, e.size, e.path);
        assert.equal(st.mtimeMs, e.mtimeMs, e.path);
      }
      assert.equal(fs.readFileSync(path.join(dir, OUTSIDE_FILE.name), 'utf8'), OUTSIDE_FILE.content.toString());
      // The pair that size and time cannot tell apart.
      assert.equal(SAME_SIZE.revisionContent.length, SAME_SIZE.liveContent.length);
      assert.notDeepEqual(SAME_SIZE.revisionContent, SAME_SIZE.liveContent);
      assert.deepEqual(fs.readFileSync(path.join(data, SAME_SIZE.path)), Buffer.from(SAME_SIZE.liveContent));
      // Some times are far in the past.
      assert.ok(Object.values(MTIMES).some((t) => t < Date.parse('2002-01-01T00:00:00Z')));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the large seed: 10,000 files in 1,000 folders, a folder of 10,000 files, 200 MB of content with no block repeated', function () {
    this.timeout(120_000); // writes 200 MB and 20,000 files (in memory under /dev/shm: about 2 s)
    const dir = fs.mkdtempSync(path.join(runsBase(), 'srseed-'));
    try {
      const data = path.join(dir, 'data');
      writeSeed(data, 'large');
      const manifest = seedManifest('large');
      const files = manifest.filter((e) => e.kind === 'file');
      assert.deepEqual(listFilesOnDisk(data), files.map((e) => e.path).sort());
      assert.equal(files.filter((e) => e.path.startsWith(`${LARGE.treeDir}/`)).length, LARGE.treeFolders * LARGE.filesPerFolder);
      assert.equal(new Set(files.filter((e) => e.path.startsWith(`${LARGE.treeDir}/`)).map((e) => path.dirname(e.path))).size, LARGE.treeFolders);
      assert.equal(fs.readdirSync(path.join(data, LARGE.flatDir)).length, LARGE.flatFiles);
      for (const e of files.filter((_, i) => i % 997 === 0)) assert.equal(fs.statSync(path.join(data, e.path)).size, e.size, e.path);
      const big = path.join(data, LARGE.bigFile);
      assert.equal(fs.statSync(big).size, LARGE.bigSize);
      const fd = fs.openSync(big, 'r');
      try {
        const block = (n: number): Buffer => {
          const b = Buffer.alloc(1024 * 1024);
          fs.readSync(fd, b, 0, b.length, n * b.length);
          return b;
        };
        const hashes = [0, 1, 2, 199].map((n) => createHash('sha256').update(block(n)).digest('hex'));
        assert.equal(new Set(hashes).size, hashes.length, 'a 1 MiB block repeats');
        const first = block(0);
        assert.notDeepEqual(first.subarray(0, 4096), first.subarray(4096, 8192), 'a 4 KiB page repeats');
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('CI installs every Debian package the live servers need (.ci/run lists them)', function () {
    const ci = fs.readFileSync(path.join(__dirname, '..', '..', '..', '.ci', 'run'), 'utf8');
    for (const pkg of new Set(Object.values(LIVE_PACKAGES).flat())) assert.match(ci, new RegExp(`\\b${pkg}\\b`), `.ci/run does not install ${pkg}`);
  });
});

describe('live servers: FTP, SFTP, WebDAV and S3 on loopback, seen by independent clients', function () {
  let live: LiveServers;
  let stopped = false;

  before(async function () {
    this.timeout(INSTALL_TIMEOUT);
    requireLiveServers(this);
    this.timeout(120_000);
    live = await startLiveServers();
    process.stderr.write(`[live] seed ${live.timings.seedMs} ms, four servers started in ${live.timings.startMs} ms (total ${live.timings.totalMs} ms)\n`);
  });

  after(async function () {
    if (live && !stopped) await live.stop();
  });

  // -------------------------------------------------------------------------------------------
  // FTP

  for (const tls of ['none', 'explicit', 'implicit'] as const) {
    it(`lftp lists the FTP seed over ${tls === 'none' ? 'plain FTP' : `${tls} FTPS`}; every regular file and folder of the server's folder is there`, async function () {
      const { stdout } = await peer('lftp', ['-c', `${lftpOpen(live, 'ftp', { tls })}; find /`]);
      const seen = findPaths(stdout);
      for (const p of regularOnDisk(live.ftp!.dataDir)) assert.ok(seen.includes(p), `${p} missing from ${seen.join(', ')}`);
      // Links that resolve inside the chroot are listed; ProFTPD leaves out those it cannot resolve.
      assert.ok(seen.includes('link-inside.html') && seen.includes('link-dir'), seen.join(', '));
      assert.ok(!seen.includes('link-outside.txt') && !seen.includes('link-dangling.txt'), seen.join(', '));
    });
  }

  it('FTP names with spaces, non-ASCII, # and % round-trip: lftp reads each file back byte for byte', async function () {
    const names = ['ünï cödé.txt', 'with space/a b.txt', 'hash#name.txt', 'pct%20name.txt', 'percent%.txt', 'bin/blob.bin'];
    for (const name of names) {
      const { stdout } = await peer('lftp', ['-c', `${lftpOpen(live, 'ftp')}; cat "/${name}"`]);
      assert.deepEqual(stdout, fs.readFileSync(path.join(live.ftp!.dataDir, name)), name);
    }
  });

  it('FTP MLST and MDTM give the seed modification times in UTC', async function () {
    const { stdout } = await peer('lftp', ['-c', `${lftpOpen(live, 'ftp')}; quote MLST old.txt; quote MDTM "ünï cödé.txt"`]);
    const out = stdout.toString('utf8');
    const stamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
    assert.match(out, new RegExp(`modify=${stamp(MTIMES['old.txt']!)};`));
    assert.match(out, new RegExp(`213 ${stamp(MTIMES['ünï cödé.txt']!)}`));
  });

  it('FTPS data connections must reuse the TLS session: curl without session reuse is refused', async function () {
    const f = live.ftp!;
    const url = `ftp://127.0.0.1:${f.port}/`;
    const ok = await peer('curl', ['-sS', '--ssl-reqd', '--cacert', f.caFile, '-u', `${f.user}:${f.password}`, '--list-only', url]);
    assert.ok(ok.stdout.toString('utf8').split('\n').includes('index.html'));
    const refusedRun = await peer('curl', ['-sS', '--ssl-reqd', '--no-sessionid', '--cacert', f.caFile, '-u', `${f.user}:${f.password}`, '--list-only', url], { allowFailure: true });
    assert.notEqual(refusedRun.code, 0);
    assert.match(fs.readFileSync(path.join(path.dirname(f.dataDir), 'tls.log'), 'utf8'), /did not reuse TLS session/);
  });

  it('FTP refuses a wrong password (530)', async function () {
    const f = live.ftp!;
    const r = await peer('curl', ['-sS', '-u', `${f.user}:${f.password}-wrong`, `ftp://127.0.0.1:${f.port}/`], { allowFailure: true });
    assert.equal(r.code, 67, r.stderr); // CURLE_LOGIN_DENIED
    assert.match(r.stderr, /530|Access denied|Login/i);
  });

  it('the FTPS ports present the self-signed certificate, and expiredPort an expired one', async function () {
    const f = live.ftp!;
    assert.equal(presentedFingerprint(f.port, 'ftp'), f.fingerprint256);
    assert.equal(presentedFingerprint(f.implicitPort), f.fingerprint256);
    assert.equal(presentedFingerprint(f.expiredPort, 'ftp'), f.expiredFingerprint256);
    assert.ok(new Date(new X509Certificate(fs.readFileSync(f.expiredCaFile)).validTo) < new Date());
    const r = await peer('lftp', ['-c', `set net:max-retries 1; set ssl:ca-file "${f.expiredCaFile}"; set ftp:ssl-force yes; open -u "${f.user},${f.password}" ftp://127.0.0.1:${f.expiredPort}; ls /`], { allowFailure: true, timeoutMs: 60_000 });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /expired/i);
  });

  // -------------------------------------------------------------------------------------------
  // SFTP

  for (const auth of ['password', 'key', 'encryptedKey'] as const) {
    it(`rclone lists the SFTP seed with ${auth === 'encryptedKey' ? 'the passphrase-protected key' : auth === 'key' ? 'the key' : 'the password'}; names as on disk`, async function () {
      const { stdout } = await peer('rclone', ['lsf', '-R', rcloneRemote(live, 'sftp', { auth })]);
      const seen = stdout.toString('utf8').split('\n').filter(Boolean).sort();
      for (const p of regularOnDisk(live.sftp!.dataDir)) assert.ok(seen.includes(p), `${p} missing from ${seen.join(', ')}`);
    });
  }

  it('OpenSSH sftp shows the links as links, reads the special names back, and the server refuses a wrong password', async function () {
    const s = live.sftp!;
    const { stdout } = await sftpBatch(live, 'ls -la');
    const lines = stdout.toString('utf8').split('\n');
    for (const name of ['link-inside.html', 'link-dir', 'link-outside.txt', 'link-dangling.txt']) assert.ok(lines.some((l) => l.startsWith('l') && l.endsWith(` ${name}`)), `${name} not a link in:\n${lines.join('\n')}`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'srsftp-'));
    try {
      await sftpBatch(live, `get "ünï cödé.txt" "${tmp}/u"\nget "with space/a b.txt" "${tmp}/s"\nget "hash#name.txt" "${tmp}/h"\nget "pct%20name.txt" "${tmp}/p"`);
      assert.deepEqual(fs.readFileSync(`${tmp}/u`), fs.readFileSync(path.join(s.dataDir, 'ünï cödé.txt')));
      assert.deepEqual(fs.readFileSync(`${tmp}/s`), fs.readFileSync(path.join(s.dataDir, 'with space/a b.txt')));
      assert.deepEqual(fs.readFileSync(`${tmp}/h`), fs.readFileSync(path.join(s.dataDir, 'hash#name.txt')));
      assert.deepEqual(fs.readFileSync(`${tmp}/p`), fs.readFileSync(path.join(s.dataDir, 'pct%20name.txt')));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    const wrong = await peer('rclone', ['lsf', '--low-level-retries', '1', '--retries', '1', rcloneRemote(live, 'sftp', { wrongSecret: true })], { allowFailure: true });
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /unable to authenticate|permission denied/i);
  });

  it('ssh-keyscan sees the host key of hostKeyFingerprint; rotateHostKey changes it, and OpenSSH with the old known_hosts refuses', async function () {
    const s = live.sftp!;
    const fingerprintOf = (scan: string): string => {
      const file = path.join(os.tmpdir(), `srkh-${process.pid}`);
      fs.writeFileSync(file, scan);
      try {
        return /(SHA256:\S+)/.exec(spawnSync('ssh-keygen', ['-lf', file], { encoding: 'utf8' }).stdout)![1]!;
      } finally {
        fs.rmSync(file, { force: true });
      }
    };
    const before = (await peer('ssh-keyscan', ['-p', String(s.port), '-t', 'ed25519', '127.0.0.1'])).stdout.toString('utf8');
    assert.equal(fingerprintOf(before), s.hostKeyFingerprint);
    assert.equal(before.trim(), fs.readFileSync(s.knownHostsFile, 'utf8').trim());
    const old = s.hostKeyFingerprint;
    const next = await s.rotateHostKey();
    assert.notEqual(next, old);
    assert.equal(s.hostKeyFingerprint, next);
    const after = (await peer('ssh-keyscan', ['-p', String(s.port), '-t', 'ed25519', '127.0.0.1'])).stdout.toString('utf8');
    assert.equal(fingerprintOf(after), next);
    assert.equal(after.trim(), fs.readFileSync(s.knownHostsFile, 'utf8').trim());
    assert.equal(fs.readFileSync(`${s.knownHostsFile}.previous`, 'utf8').trim(), before.trim());
    const r = await sftpBatch(live, 'ls', { allowFailure: true, knownHostsFile: `${s.knownHostsFile}.previous` });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/);
  });

  // -------------------------------------------------------------------------------------------
  // WebDAV

  for (const scheme of ['http', 'https'] as const) {
    it(`curl PROPFIND over ${scheme} lists the folder as on disk (links left out by mod_dav_fs), with the seed times`, async function () {
      const d = live.dav!;
      const url = scheme === 'https' ? d.httpsUrl : d.httpUrl;
      const { stdout } = await peer('curl', ['-sS', '-f', ...curlAuth(live, 'dav'), '-X', 'PROPFIND', '-H', 'Depth: 1', url]);
      const xml = stdout.toString('utf8');
      const names = hrefs(xml).filter(Boolean).sort();
      const onDisk = fs
        .readdirSync(d.dataDir, { withFileTypes: true })
        .filter((e) => !e.isSymbolicLink())
        .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
        .sort();
      assert.deepEqual(names, onDisk);
      const old = /<D:href>\/old\.txt<\/D:href>[\s\S]*?<lp1:getlastmodified>([^<]+)</.exec(xml);
      assert.equal(Date.parse(old![1]!), MTIMES['old.txt']);
    });
  }

  it('WebDAV asks for credentials (401), refuses a wrong password, reads the special names, refuses the link outside the root', async function () {
    const d = live.dav!;
    const none = await peer('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', d.httpUrl]);
    assert.equal(none.stdout.toString(), '401');
    const wrong = await peer('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', ...curlAuth(live, 'dav', { wrongSecret: true }), d.httpUrl]);
    assert.equal(wrong.stdout.toString(), '401');
    for (const name of ['ünï cödé.txt', 'with space/a b.txt', 'hash#name.txt', 'pct%20name.txt']) {
      const url = d.httpsUrl + name.split('/').map(encodeURIComponent).join('/');
      const { stdout } = await peer('curl', ['-sS', '-f', ...curlAuth(live, 'dav'), url]);
      assert.deepEqual(stdout, fs.readFileSync(path.join(d.dataDir, name)), name);
    }
    const outside = await peer('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', ...curlAuth(live, 'dav'), `${d.httpUrl}link-outside.txt`]);
    assert.equal(outside.stdout.toString(), '403');
  });

  it('WebDAV https presents the self-signed certificate; expiredHttpsUrl an expired one that curl refuses', async function () {
    const d = live.dav!;
    assert.equal(presentedFingerprint(Number(new URL(d.httpsUrl).port)), d.fingerprint256);
    assert.equal(presentedFingerprint(Number(new URL(d.expiredHttpsUrl).port)), d.expiredFingerprint256);
    const r = await peer('curl', ['-sS', '-u', `${d.user}:${d.password}`, '--cacert', d.expiredCaFile, d.expiredHttpsUrl], { allowFailure: true });
    assert.equal(r.code, 60, r.stderr); // CURLE_PEER_FAILED_VERIFICATION
    assert.match(r.stderr, /expired/i);
  });

  it('lftp lists the SFTP seed (through OpenSSH, with the key) and the WebDAV seed over https (PROPFIND)', async function () {
    const sftp = findPaths((await peer('lftp', ['-c', `${lftpOpen(live, 'sftp')}; find .`])).stdout);
    for (const p of regularOnDisk(live.sftp!.dataDir)) assert.ok(sftp.includes(p), `sftp: ${p} missing from ${sftp.join(', ')}`);
    const dav = findPaths((await peer('lftp', ['-c', `${lftpOpen(live, 'dav', { https: true })}; find /`])).stdout);
    for (const p of regularOnDisk(live.dav!.dataDir)) assert.ok(dav.includes(p), `dav: ${p} missing from ${dav.join(', ')}`);
  });

  // -------------------------------------------------------------------------------------------
  // S3

  it('curl --aws-sigv4 lists the bucket: the seed\'s regular files with their times; a wrong secret and an unsigned request get 403', async function () {
    const s3 = live.s3!;
    const list = async (opts: { wrongSecret?: boolean; unsigned?: boolean } = {}): Promise<{ code: string; xml: string }> => {
      const auth = opts.unsigned ? ['--cacert', s3.caFile] : curlAuth(live, 's3', opts);
      const r = await peer('curl', ['-sS', '-w', '\n%{http_code}', ...auth, `${s3.httpsEndpoint}/${s3.bucket}?list-type=2`]);
      const text = r.stdout.toString('utf8');
      return { code: text.slice(text.lastIndexOf('\n') + 1), xml: text.slice(0, text.lastIndexOf('\n')) };
    };
    const ok = await list();
    assert.equal(ok.code, '200', ok.xml);
    const keys = [...ok.xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!.replace(/&amp;/g, '&')).sort();
    assert.deepEqual(keys, listFilesOnDisk(s3.seedDir));
    const old = /<Key>old\.txt<\/Key><LastModified>([^<]+)</.exec(ok.xml);
    assert.equal(Date.parse(old![1]!), MTIMES['old.txt']);
    // An object's headers: ETag = MD5 of the bytes, Last-Modified = the seed's time.
    const head = (await peer('curl', ['-sS', '-I', ...curlAuth(live, 's3'), `${s3.httpsEndpoint}/${s3.bucket}/old.txt`])).stdout.toString('utf8');
    assert.match(head, new RegExp(`ETag: "${createHash('md5').update(fs.readFileSync(path.join(s3.seedDir, 'old.txt'))).digest('hex')}"`, 'i'));
    assert.equal(Date.parse(/Last-Modified: (.+)\r?\n/i.exec(head)![1]!), MTIMES['old.txt']);
    const wrong = await list({ wrongSecret: true });
    assert.equal(wrong.code, '403');
    assert.match(wrong.xml, /SignatureDoesNotMatch/);
    const unsigned = await list({ unsigned: true });
    assert.equal(unsigned.code, '403');
    assert.match(unsigned.xml, /AccessDenied/);
  });

  it('rclone reads the special names from S3 byte for byte', async function () {
    for (const f of SMALL_SEED_FILES.filter((x) => /[ #%ü]/.test(x.path))) {
      const { stdout } = await peer('rclone', ['cat', `${rcloneRemote(live, 's3')}/${f.path}`]);
      assert.deepEqual(stdout, f.content, f.path);
    }
  });

  // -------------------------------------------------------------------------------------------
  // The fault proxy in front of the real servers

  describe('the fault proxy', function () {
    let proxy: FaultProxy | undefined;
    afterEach(async function () {
      await proxy?.close();
      proxy = undefined;
    });

    it('passes SFTP through with latency: rclone lists through it, and the SSH banner waits at least half the round trip', async function () {
      const s = live.sftp!;
      proxy = await startFaultProxy({ host: s.host, port: s.port }, { latencyMs: 200 });
      const { stdout } = await peer('rclone', ['lsf', rcloneRemote(live, 'sftp', { auth: 'key', via: { host: '127.0.0.1', port: proxy.port } })]);
      assert.ok(stdout.toString('utf8').split('\n').includes('index.html'));
      // A lower bound only (the proxy holds bytes back by design; load can only add to it).
      const t0 = Date.now();
      const banner = await new Promise<string>((resolve, reject) => {
        const sock = net.connect({ host: '127.0.0.1', port: proxy!.port });
        sock.once('data', (d) => {
          sock.destroy();
          resolve(d.toString('latin1'));
        });
        sock.once('error', reject);
      });
      assert.match(banner, /^SSH-2\.0-OpenSSH/);
      assert.ok(Date.now() - t0 >= 100, `banner after ${Date.now() - t0} ms`);
    });

    it('FTP and FTPS, control and passive data connections, pass through it (proxyTargets)', async function () {
      for (const tls of ['none', 'explicit', 'implicit'] as const) {
        const target = tls === 'implicit' ? live.ftp!.proxyTargets.implicit : live.ftp!.proxyTargets.explicit;
        proxy = await startFaultProxy(target, { latencyMs: 10 });
        for (const epsv of [false, true]) {
          const { stdout } = await peer('lftp', ['-c', `set ftp:prefer-epsv ${epsv ? 'yes' : 'no'}; ${lftpOpen(live, 'ftp', { tls, via: { host: '127.0.0.1', port: proxy.port } })}; find /sub`]);
          assert.deepEqual(findPaths(stdout), ['sub/', 'sub/deeper/', 'sub/deeper/style.css', 'sub/readme.md']);
        }
        // The control connection and at least one data connection per listing went through it.
        assert.ok(proxy.accepted() >= 4, `${tls}: ${proxy.accepted()} connections`);
        await proxy.close();
        proxy = undefined;
      }
    });

    it('cutAfterBytes drops a WebDAV download after exactly that many bytes (the client sees a reset)', async function () {
      const d = live.dav!;
      proxy = await startFaultProxy({ host: '127.0.0.1', port: Number(new URL(d.httpUrl).port) });
      proxy.cutAfterBytes(1000);
      const r = await peer('curl', ['-sS', '-u', `${d.user}:${d.password}`, `http://127.0.0.1:${proxy.port}/bin/blob.bin`], { allowFailure: true });
      assert.notEqual(r.code, 0, 'the download was not cut');
      assert.equal(proxy.bytes().down, 1000);
      assert.ok(r.stdout.length < 1000);
      proxy.cutAfterBytes(null);
      const whole = await peer('curl', ['-sS', '-f', '-u', `${d.user}:${d.password}`, `http://127.0.0.1:${proxy.port}/bin/blob.bin`]);
      assert.deepEqual(whole.stdout, fs.readFileSync(path.join(d.dataDir, 'bin/blob.bin')));
    });

    it('an FTP listing whose data connection is cut mid-way fails in lftp (a server that drops mid-listing)', async function () {
      proxy = await startFaultProxy(live.ftp!.proxyTargets.explicit);
      proxy.cutAfterBytes(40, { which: 'data' });
      const r = await peer('lftp', ['-c', `set net:max-retries 1; set cmd:fail-exit yes; ${lftpOpen(live, 'ftp', { tls: 'none', via: { host: '127.0.0.1', port: proxy.port } })}; cls -1 /`], { allowFailure: true, timeoutMs: 60_000 });
      const listed = r.stdout.toString('utf8').split('\n').filter(Boolean);
      assert.ok(r.code !== 0 || listed.length < fs.readdirSync(live.ftp!.dataDir).length, `lftp listed all of it: ${listed.join(', ')}`);
    });

    it('stall holds every byte until released; cutAll resets the open connections', async function () {
      const s = live.sftp!;
      proxy = await startFaultProxy({ host: s.host, port: s.port });
      proxy.stall(true);
      const sock = net.connect({ host: '127.0.0.1', port: proxy.port });
      let got = '';
      sock.on('data', (d) => (got += d.toString('latin1')));
      const closed = new Promise<string>((resolve) => {
        sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        sock.once('close', () => resolve('close'));
      });
      await until(() => proxy!.bytes().down > 0, 'the server banner reached the proxy');
      assert.equal(got, '', 'bytes passed while stalled');
      proxy.stall(false);
      await until(() => got.startsWith('SSH-2.0-'), 'the banner after the stall');
      assert.equal(proxy.connections(), 1);
      proxy.cutAll();
      assert.match(await closed, /ECONNRESET|close/);
      await until(() => proxy!.connections() === 0, 'no connection left');
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('stop()', function () {
    it('stop() ends every process of the run (an open SSH connection\'s sshd child too), frees every port and removes the folder', async function () {
      // An SSH connection that stays open: sshd forks a child for it that outlives its listener unless stopped first.
      const sock = net.connect({ host: '127.0.0.1', port: live.sftp!.port });
      await new Promise<void>((resolve, reject) => {
        sock.once('data', () => resolve());
        sock.once('error', reject);
      });
      sock.on('error', () => undefined);
      const sshdChild = (): boolean => listProcesses().some((p) => live.inspect().pids.includes(p.pid) && p.cmd.startsWith('sshd:') && !p.cmd.includes('listener'));
      await until(sshdChild, 'the per-connection sshd child');
      const { pids, ports } = live.inspect();
      assert.deepEqual(live.inspect().daemons.map((d) => d.name).sort(), ['apache2', 'proftpd', 's3rver', 'sshd']);
      assert.ok(ports.length >= 11, `only ${ports.length} ports`);
      for (const p of ports) assert.equal(await refused(p), false, `nothing listens on ${p.host}:${p.port} before stop`);
      stopped = true;
      await live.stop();
      sock.destroy();
      for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} still alive`);
      for (const p of ports) assert.equal(await refused(p), true, `${p.host}:${p.port} still listens`);
      assert.equal(fs.existsSync(live.root), false);
      assert.deepEqual(
        listProcesses().filter((p) => p.cmd.includes(live.root) && p.state !== 'Z'),
        [],
      );
    });
  });
});

describe('live servers: FTP LIST times in another time zone, and stale runs', function () {
  it('with ftpListTimeZoneHours: 3, LIST shows times 3 hours ahead while MLST and MDTM stay in UTC', async function () {
    this.timeout(INSTALL_TIMEOUT);
    requireLiveServers(this, ['ftp']);
    this.timeout(60_000);
    const live = await startLiveServers({ only: ['ftp'], ftpListTimeZoneHours: 3 });
    try {
      const f = live.ftp!;
      assert.equal(f.listTimeZoneHours, 3);
      // LIST shows hours only for files of the last six months: give one such a time, on the server's disk.
      const t = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 24 * 3600_000);
      fs.utimesSync(path.join(f.dataDir, 'index.html'), t, t);
      const list = (await peer('curl', ['-sS', '-u', `${f.user}:${f.password}`, `ftp://127.0.0.1:${f.port}/`])).stdout.toString('utf8');
      const line = list.split('\n').find((l) => / index\.html\s*$/.test(l));
      const shifted = new Date(t.getTime() + 3 * 3600_000);
      const hhmm = `${String(shifted.getUTCHours()).padStart(2, '0')}:${String(shifted.getUTCMinutes()).padStart(2, '0')}`;
      assert.ok(line?.includes(` ${hhmm} `), `LIST line ${line} lacks ${hhmm} (UTC ${t.toISOString()})`);
      const { stdout } = await peer('lftp', ['-c', `${lftpOpen(live, 'ftp', { tls: 'none' })}; quote MLST index.html; quote MDTM index.html`]);
      const stamp = t.toISOString().replace(/[-:T]/g, '').slice(0, 14);
      assert.match(stdout.toString('utf8'), new RegExp(`modify=${stamp};`));
      assert.match(stdout.toString('utf8'), new RegExp(`213 ${stamp}`));
    } finally {
      await live.stop();
    }
  });

  for (const ending of ['process.exit()', 'SIGTERM'] as const) {
    it(`a test process that ends by ${ending} without stop() leaves no server running and no run folder`, async function () {
      this.timeout(INSTALL_TIMEOUT);
      requireLiveServers(this, ['ftp', 'sftp']);
      this.timeout(60_000);
      const servers = path.join(__dirname, '..', 'live', 'servers.js');
      const script = `require(${JSON.stringify(servers)}).startLiveServers({ only: ['ftp', 'sftp'] }).then((live) => {
        console.log(JSON.stringify({ root: live.root, daemons: live.inspect().daemons.map((d) => d.pid), pids: live.inspect().pids }));
        ${ending === 'SIGTERM' ? 'setInterval(() => {}, 1000);' : "process.stdin.once('data', () => process.exit(0)).once('end', () => process.exit(0));"}
      }, (err) => { console.error(err); process.exit(1); });`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        let out = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (d: string) => (out += d));
        await until(() => out.includes('\n') || child.exitCode !== null, 'the child started its servers');
        const { root, daemons, pids } = JSON.parse(out.split('\n')[0]!) as { root: string; daemons: number[]; pids: number[] };
        // The daemons (their children may come and go: ssh-keyscan's connection had one).
        assert.ok(daemons.length === 2 && daemons.every(alive), `servers not running: ${daemons.join(', ')}`);
        if (ending === 'SIGTERM') child.kill('SIGTERM');
        else child.stdin.write('exit now\n');
        await exited;
        await until(() => !pids.some(alive), `the servers of the ended process (${pids.join(', ')}) are gone`);
        assert.equal(fs.existsSync(root), false, `${root} left behind`);
      } finally {
        // Whatever failed above, the child (and through its handler, its servers) ends here.
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
      }
    });
  }

  it('removes the folder of a run whose process died, and what still runs from it', async function () {
    const dir = fs.mkdtempSync(path.join(runsBase(), 'srlive-'));
    fs.writeFileSync(path.join(dir, 'owner'), '999999999 1\n');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', dir], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await until(() => listProcesses().some((p) => p.pid === child.pid && p.cmd.includes(dir)), 'the stale run\'s process');
      // Folders younger than a minute are left alone (a run may be writing its owner file).
      const past = (Date.now() - 120_000) / 1000;
      fs.utimesSync(dir, past, past);
      const removed = removeStaleRuns();
      assert.ok(removed.includes(dir), removed.join(', '));
      assert.equal(fs.existsSync(dir), false);
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('live servers: FTP runs at once never share passive ports (the fault proxy\'s data ports)', function () {
  it('a reserved range is held until released, against this process and another one', async function () {
    this.timeout(30_000);
    const hosts = ['127.0.0.1', '127.0.0.2'];
    /** What another process gets when it asks for `slot` first. */
    const other = (slot: number): number => {
      const script = `require(${JSON.stringify(path.join(__dirname, '..', 'live', 'servers.js'))}).reservePortRange(64, ${JSON.stringify(hosts)}, [${slot}]).then((r) => { console.log(r.from); r.release(); })`;
      const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return Number(r.stdout.trim());
    };
    const held = await reservePortRange(64, hosts);
    const slot = held.from;
    const taken: { release(): void }[] = [held];
    try {
      assert.equal(held.to, slot + 63);
      assert.notEqual(other(slot), slot, 'another process got a held slot');
      // Two more reservations of this process at once, both asking for the held slot first.
      const [a, b] = await Promise.all([reservePortRange(64, hosts, [slot]), reservePortRange(64, hosts, [slot])]);
      taken.push(a, b);
      for (const [x, y] of [[a, b], [a, held], [b, held]] as const) assert.ok(x.to < y.from || y.to < x.from, `overlap: ${x.from}–${x.to} and ${y.from}–${y.to}`);
      held.release();
      assert.equal(other(slot), slot, 'a released slot is free again');
      // Two at once asking for the same free slot: one gets it, the other another one.
      const [c, d] = await Promise.all([reservePortRange(64, hosts, [slot]), reservePortRange(64, hosts, [slot])]);
      taken.push(c, d);
      assert.deepEqual([c.from === slot, d.from === slot].sort(), [false, true], `${c.from} and ${d.from} for ${slot}`);
    } finally {
      for (const r of taken) r.release();
    }
  });

  it('two FTP runs started at once, each with a fault proxy in front, both list through their proxy (PASV and EPSV)', async function () {
    this.timeout(INSTALL_TIMEOUT);
    requireLiveServers(this, ['ftp']);
    this.timeout(120_000);
    const runs = await Promise.all([startLiveServers({ only: ['ftp'] }), startLiveServers({ only: ['ftp'] })]);
    const proxies: FaultProxy[] = [];
    try {
      const ranges = runs.flatMap((r) => [r.ftp!.proxyTargets.explicit.dataPorts!, r.ftp!.proxyTargets.implicit.dataPorts!]);
      for (const [i, x] of ranges.entries()) for (const y of ranges.slice(i + 1)) assert.ok(x.to < y.from || y.to < x.from, `passive ranges overlap: ${JSON.stringify(ranges)}`);
      proxies.push(...(await Promise.all(runs.map((r) => startFaultProxy(r.ftp!.proxyTargets.explicit)))));
      await Promise.all(
        runs.map(async (live, i) => {
          for (const epsv of [false, true]) {
            const { stdout } = await peer('lftp', ['-c', `set ftp:prefer-epsv ${epsv ? 'yes' : 'no'}; ${lftpOpen(live, 'ftp', { tls: 'explicit', via: { host: '127.0.0.1', port: proxies[i]!.port } })}; find /sub`]);
            assert.deepEqual(findPaths(stdout), ['sub/', 'sub/deeper/', 'sub/deeper/style.css', 'sub/readme.md'], `run ${i + 1}, ${epsv ? 'EPSV' : 'PASV'}`);
          }
          assert.ok(proxies[i]!.accepted() >= 3, `run ${i + 1}: the data connections went through its proxy (${proxies[i]!.accepted()} connections)`);
        }),
      );
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
      await Promise.all(runs.map((r) => r.stop()));
    }
  });
});

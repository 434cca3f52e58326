// The connection layer (src/core/live) against the REAL servers of test/live (ProFTPD, OpenSSH,
// Apache mod_dav, an S3 server that checks signatures): every protocol lists, stats and reads the
// seed, compared with the server's own folder on disk; trust (host keys, certificates), refused
// logins, faults through the loopback proxy, cancel, Test Connection's steps, and the compare and
// drift groups. Expected results come from the servers' folders, never from our code.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compareLive, LastSeen, openLive, testConnection, walkLive, type HistorySource, type LiveEndpoint } from '../../src/core/live';
import { nodeWorkingFs } from '../../src/core/status/working';
import { startFaultProxy } from '../live/faultProxy';
import { MTIMES, SAME_SIZE, listFilesOnDisk } from '../live/seed';
import { startLiveServers, type LiveServers } from '../live/servers';
import { requireLiveServers } from '../live/system';
import { ep, memoryStore, options } from './helpers/liveOptions';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('live servers: the connection layer against real servers', function () {
  let live: LiveServers;
  before(async function () {
    this.timeout(20 * 60_000);
    requireLiveServers(this, ['ftp', 'sftp', 'dav', 's3'], false);
    this.timeout(120_000);
    live = await startLiveServers();
  });
  after(async function () {
    this.timeout(60_000);
    await live?.stop();
  });

  const sites = (): Record<string, { endpoint: LiveEndpoint; password: string; dataDir: string; links: boolean }> => {
    const f = live.ftp!;
    const s = live.sftp!;
    const d = live.dav!;
    const s3 = live.s3!;
    return {
      'FTP (plain, loopback)': { endpoint: ep({ server_type: 'FTP', domain: f.host, port: String(f.port), ftp_user: f.user }), password: f.password, dataDir: f.dataDir, links: true },
      'FTPS explicit (ftps://)': { endpoint: ep({ server_type: 'FTP', domain: `ftps://${f.host}`, port: String(f.port), ftp_user: f.user }), password: f.password, dataDir: f.dataDir, links: true },
      'FTPS implicit': { endpoint: { ...ep({ server_type: 'FTP', domain: f.host, port: '990', encryption: '1', ftp_user: f.user }), port: f.implicitPort }, password: f.password, dataDir: f.dataDir, links: true },
      SFTP: { endpoint: ep({ server_type: 'SFTP', domain: s.host, port: String(s.port), ftp_user: s.user, dir: s.dataDir }), password: s.password, dataDir: s.dataDir, links: true },
      'WebDAV http': { endpoint: ep({ server_type: 'WebDAV', domain: d.httpUrl, ftp_user: d.user }), password: d.password, dataDir: d.dataDir, links: false },
      'WebDAV https': { endpoint: ep({ server_type: 'WebDAV', domain: d.httpsUrl, ftp_user: d.user }), password: d.password, dataDir: d.dataDir, links: false },
      S3: { endpoint: ep({ server_type: 'AmazonS3', domain: `${s3.endpoint}/${s3.bucket}`, ftp_user: s3.accessKeyId }, { s3Region: s3.region }), password: s3.secretAccessKey, dataDir: s3.seedDir, links: false },
    };
  };

  for (const name of ['FTP (plain, loopback)', 'FTPS explicit (ftps://)', 'FTPS implicit', 'SFTP', 'WebDAV http', 'WebDAV https', 'S3']) {
    it(`${name}: lists, stats and reads the seed as the server's folder has it (names with spaces, non-ASCII, # and % round-trip)`, async function () {
      this.timeout(60_000);
      const site = sites()[name]!;
      const fsys = openLive(site.endpoint, options(site.password));
      try {
        const files = await walkLive(fsys, '', { signal: new AbortController().signal, concurrency: 3 });
        const regular = [...files.values()].filter((e) => e.type === 'file').map((e) => e.path).sort();
        assert.deepEqual(regular, listFilesOnDisk(site.dataDir));
        for (const p of regular) {
          const bytes = await fsys.readAll(p);
          assert.equal(sha(bytes), sha(fs.readFileSync(path.join(site.dataDir, ...p.split('/')))), p);
          assert.equal(files.get(p)!.size, bytes.length, `${p} size`);
        }
        const st = await fsys.stat('ünï cödé.txt');
        assert.equal(st?.type, 'file');
        assert.equal(st?.size, fs.statSync(path.join(site.dataDir, 'ünï cödé.txt')).size);
        if (name !== 'S3') {
          // MLSD/MDTM, SFTP attributes, PROPFIND getlastmodified: the exact time the server's folder has (S3: the upload's).
          assert.equal(st?.mtime, MTIMES['ünï cödé.txt'], 'exact UTC time');
          assert.ok(st?.mtimeRaw);
        }
        assert.equal(await fsys.stat('no such file.txt'), undefined);
      } finally {
        await fsys.close();
      }
    });
  }

  it('links: shown as links, followed only within the root (FTP and SFTP)', async function () {
    this.timeout(30_000);
    for (const name of ['FTP (plain, loopback)', 'SFTP']) {
      const site = sites()[name]!;
      const fsys = openLive(site.endpoint, options(site.password));
      try {
        const root = await fsys.listAll('');
        const inside = root.find((e) => e.name === 'link-inside.html');
        assert.equal(inside?.type, 'symlink', name);
        assert.equal(inside?.link?.targetType, 'file');
        assert.deepEqual(Buffer.from(await fsys.readAll('link-inside.html')), fs.readFileSync(path.join(site.dataDir, 'index.html')));
        const dir = root.find((e) => e.name === 'link-dir');
        assert.equal(dir?.link?.targetType, 'dir');
        assert.deepEqual((await fsys.listAll('link-dir')).map((e) => e.name).sort(), fs.readdirSync(path.join(site.dataDir, 'sub')).sort());
        const outside = root.find((e) => e.name === 'link-outside.txt');
        if (outside) assert.equal(outside.link?.targetType, 'outside', name);
        await assert.rejects(fsys.readAll('link-outside.txt'), (e: { kind?: string }) => e.kind === 'outside-root' || e.kind === 'not-found');
      } finally {
        await fsys.close();
      }
    }
  });

  it('a wrong password is named: FTP 530, SFTP auth failure, WebDAV 401, S3 SignatureDoesNotMatch', async function () {
    this.timeout(60_000);
    const expect: Record<string, RegExp> = { 'FTP (plain, loopback)': /530/, SFTP: /./, 'WebDAV http': /401/, S3: /SignatureDoesNotMatch/ };
    for (const [name, re] of Object.entries(expect)) {
      const site = sites()[name]!;
      const r = await testConnection(site.endpoint, options('wrong-password-1', { asked: { hostKeys: [], certs: [] } }));
      assert.equal(r.ok, false, name);
      assert.equal(r.error?.kind, 'auth', `${name}: ${r.error?.message}`);
      assert.equal(r.error?.stage, 'login');
      assert.match(`${r.error?.message} ${r.error?.detail ?? ''}`, re, name);
      assert.doesNotMatch(JSON.stringify({ m: r.error?.message, d: r.error?.detail, s: r.stages }), /wrong-password-1/, 'no secret in the result');
      assert.equal(r.fromThisComputer, true);
    }
  });

  it('SFTP: an unknown host key goes to the decider with its SHA256 fingerprint, and a refusal sends nothing (the server saw no login attempt)', async function () {
    this.timeout(30_000);
    const s = live.sftp!;
    const seen: string[] = [];
    const logBefore = fs.readFileSync(path.join(live.root, 'sftp', 'sshd.log'), 'utf8').length;
    const r = await testConnection(sites().SFTP!.endpoint, options(s.password, { decider: { unknownHostKey: async (q) => (seen.push(q.key.fingerprint), 'no') } }));
    assert.equal(r.ok, false);
    assert.equal(r.error?.kind, 'host-key-unknown');
    assert.deepEqual(seen, [s.hostKeyFingerprint]);
    assert.equal(r.error?.data?.presented, s.hostKeyFingerprint);
    const logAfter = fs.readFileSync(path.join(live.root, 'sftp', 'sshd.log'), 'utf8').slice(logBefore);
    assert.doesNotMatch(logAfter, /Accepted|Failed (password|publickey)|Postponed/, 'no authentication reached sshd');
    // The known_hosts file (ssh-keyscan's) is enough: nobody is asked.
    const ok = await testConnection(sites().SFTP!.endpoint, options(s.password, { knownHostsFiles: [s.knownHostsFile], decider: {} }));
    assert.equal(ok.ok, true, ok.error?.message);
    assert.deepEqual(ok.stages.map((x) => x.stage), ['resolve', 'connect', 'host-key', 'login', 'list']);
  });

  it('SFTP: key file auth, and an encrypted key with its passphrase', async function () {
    this.timeout(30_000);
    const s = live.sftp!;
    for (const [keyFile, pass] of [[s.keyFile, undefined], [s.encryptedKeyFile, s.keyPassphrase]] as const) {
      const e = ep({ server_type: 'SFTP', domain: s.host, port: String(s.port), ftp_user: s.user, dir: s.dataDir, logon_type: 'key' }, { keyFile });
      const r = await testConnection(e, options(undefined, { knownHostsFiles: [s.knownHostsFile], ...(pass ? { passphrase: pass } : {}) }));
      assert.equal(r.ok, true, r.error?.message);
    }
  });

  it('FTPS and https: a self-signed certificate asks once with its fingerprint, works pinned, and an expired one is refused even when pinned', async function () {
    this.timeout(60_000);
    const f = live.ftp!;
    const d = live.dav!;
    for (const site of [sites()['FTPS explicit (ftps://)']!, sites()['WebDAV https']!]) {
      const store = memoryStore();
      const asked: string[] = [];
      const refuse = await testConnection(site.endpoint, options(site.password, { store, decider: { untrustedCertificate: async (q) => (asked.push(q.cert.fingerprint256), 'no') } }));
      assert.equal(refuse.error?.kind, 'certificate-untrusted');
      assert.deepEqual(asked, [f.fingerprint256]);
      assert.ok(!refuse.stages.some((x) => x.stage === 'login'), 'no login after an untrusted certificate');
      const pin = await testConnection(site.endpoint, options(site.password, { store, decider: { untrustedCertificate: async () => 'always' } }));
      assert.equal(pin.ok, true, pin.error?.message);
      const again = await testConnection(site.endpoint, options(site.password, { store, decider: {} }));
      assert.equal(again.ok, true, 'pinned: nobody asked');
    }
    assert.equal(d.fingerprint256, f.fingerprint256);
    const expired = [
      { ...ep({ server_type: 'FTP', domain: `ftps://${f.host}`, port: String(f.expiredPort), ftp_user: f.user }) },
      ep({ server_type: 'WebDAV', domain: d.expiredHttpsUrl, ftp_user: d.user }),
    ];
    for (const e of expired) {
      const store = memoryStore();
      await store.addPin(e.host, e.port, f.expiredFingerprint256);
      const r = await testConnection(e, options(f.password, { store }));
      assert.equal(r.error?.kind, 'certificate-expired', r.error?.message);
      assert.equal(r.error?.stage, 'tls');
    }
  });

  it('FTP: a server that drops mid-listing gives a clean error, a stalled one a timeout, and a cancelled read ends at once (fault proxy)', async function () {
    this.timeout(60_000);
    const f = live.ftp!;
    const proxy = await startFaultProxy(f.proxyTargets.explicit);
    try {
      const e = ep({ server_type: 'FTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: f.user, timeout: '3' });
      const fsys = openLive(e, options(f.password));
      assert.ok((await fsys.listAll('')).length > 3);
      proxy.cutAfterBytes(100, { which: 'data' });
      await assert.rejects(fsys.listAll(''), (err: { kind?: string }) => ['connection-lost', 'protocol', 'server'].includes(err.kind ?? ''));
      proxy.cutAfterBytes(null);
      assert.ok((await fsys.listAll('')).length > 3, 'the pool recovers with a new connection');
      proxy.stall(true);
      await assert.rejects(fsys.listAll('sub'), (err: { kind?: string }) => err.kind === 'timeout' || err.kind === 'connection-lost');
      const c = new AbortController();
      const reading = fsys.readAll('index.html', { signal: c.signal });
      setImmediate(() => c.abort());
      await assert.rejects(reading, (err: { kind?: string }) => err.kind === 'cancelled');
      proxy.stall(false);
      await fsys.close();
    } finally {
      await proxy.close();
    }
  });

  it('FTP: a read given the size a listing gave sends no SIZE (a round trip less per file of a folder download), and still reads to the end whatever the size now is', async function () {
    this.timeout(60_000);
    const f = live.ftp!;
    const proxy = await startFaultProxy(f.proxyTargets.explicit);
    try {
      const fsys = openLive(ep({ server_type: 'FTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: f.user }), options(f.password));
      try {
        const disk = fs.readFileSync(path.join(f.dataDir, 'index.html'));
        const up = async (o: { size?: number }): Promise<number> => {
          const before = proxy.bytes().up;
          const got = await fsys.readAll('index.html', o);
          assert.equal(sha(got), sha(disk), 'the whole file');
          return proxy.bytes().up - before;
        };
        // Alternated, three each; the least of each (a read that found no free connection also
        // logs one in, which adds its own commands).
        const asked: number[] = [];
        const given: number[] = [];
        for (let i = 0; i < 3; i++) {
          asked.push(await up({}));
          given.push(await up({ size: disk.length }));
        }
        // The only command less is SIZE of the file (commands go up the control connection).
        assert.equal(Math.min(...asked) - Math.min(...given), Buffer.byteLength('SIZE /index.html\r\n'), `sent with SIZE ${asked.join(', ')} bytes, without ${given.join(', ')}`);
        // A size that is no longer the file's (it changed since the listing) only misleads progress.
        const all = await fsys.readAll('index.html', { size: 1 });
        assert.equal(sha(all), sha(disk));
      } finally {
        await fsys.close();
      }
    } finally {
      await proxy.close();
    }
  });

  it('FTP: a pooled connection logs in with what it needs only (FEAT once per site, no STRU F, no OPTS MLST where FEAT stars our facts), and a folder is listed with EPSV and MLSD in one write (as the fault proxy received them)', async function () {
    this.timeout(60_000);
    const f = live.ftp!;
    const proxy = await startFaultProxy(f.proxyTargets.explicit, { latencyMs: 10, recordSent: true });
    try {
      const fsys = openLive(ep({ server_type: 'FTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: f.user }, { poolSize: 3 }), options(f.password));
      try {
        const files = await walkLive(fsys, '', { signal: new AbortController().signal, concurrency: 3 });
        assert.deepEqual([...files.values()].filter((e) => e.type === 'file').map((e) => e.path).sort(), listFilesOnDisk(f.dataDir));
        // Three folders at once: three connections (the walk's warm-up opened them).
        const [a, b, c] = await Promise.all(['sub', 'bin', 'with space'].map((d) => fsys.listAll(d)));
        assert.deepEqual([a!.length, b!.length, c!.length], [1, 1, 1].map((_, i) => fs.readdirSync(path.join(f.dataDir, ['sub', 'bin', 'with space'][i]!)).length));
      } finally {
        await fsys.close();
      }
      const conns = proxy.sent().map((chunks) => chunks.map((ch) => ch.toString('utf8')));
      assert.ok(conns.length >= 3, `${conns.length} connection(s)`);
      const lines = conns.map((chunks) => chunks.join('').split('\r\n').filter(Boolean).map((l) => (l.startsWith('PASS ') ? 'PASS' : l)));
      const logins = lines.map((l) => l.slice(0, l.indexOf('TYPE I') + 1));
      assert.equal(lines.flat().filter((l) => l === 'FEAT').length, 1, JSON.stringify(logins));
      for (const l of logins) assert.deepEqual(l.filter((x) => x !== 'FEAT'), ['OPTS UTF8 ON', `USER ${f.user}`, 'PASS', 'TYPE I']);
      assert.ok(!lines.flat().some((l) => l.startsWith('STRU') || l.startsWith('OPTS MLST')), JSON.stringify(lines));
      // Every MLSD arrived in the same chunk as its EPSV (one round trip per folder, not two).
      const mlsd = conns.flat().filter((ch) => ch.includes('MLSD '));
      assert.ok(mlsd.length >= 8 && mlsd.every((ch) => /^EPSV\r\nMLSD \/.*\r\n$/.test(ch)), JSON.stringify(mlsd));
    } finally {
      await proxy.close();
    }
  });

  it('FTP: a server that refuses EPSV: the pipelined listing is done again with PASV, and EPSV is not pipelined to it again', async function () {
    this.timeout(60_000);
    const f = live.ftp!;
    // In front of the control connection only (PASV names the server's own address).
    const proxy = await startFaultProxy({ host: f.host, port: f.noEpsvPort }, { recordSent: true });
    try {
      const fsys = openLive(ep({ server_type: 'FTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: f.user }, { poolSize: 2 }), options(f.password));
      try {
        const files = await walkLive(fsys, '', { signal: new AbortController().signal, concurrency: 2 });
        assert.deepEqual([...files.values()].filter((e) => e.type === 'file').map((e) => e.path).sort(), listFilesOnDisk(f.dataDir));
        const bytes = await fsys.readAll('index.html');
        assert.equal(sha(bytes), sha(fs.readFileSync(path.join(f.dataDir, 'index.html'))));
      } finally {
        await fsys.close();
      }
      const chunks = proxy.sent().flat().map((c) => c.toString('utf8'));
      assert.equal(chunks.filter((c) => c.startsWith('EPSV\r\nMLSD ')).length, 1, 'one pipelined listing, refused');
      const lines = chunks.join('').split('\r\n').map((l) => (l.startsWith('PASS ') ? 'PASS' : l));
      // Every folder listed by MLSD after PASV (the refused pipelined one listed again), and the read by PASV too.
      const mlsd = lines.map((l, i) => ({ l, before: lines[i - 1] })).filter((x) => x.l.startsWith('MLSD '));
      const folders = new Set(mlsd.map((x) => x.l));
      assert.ok(folders.size >= 6, [...folders].join(' | '));
      assert.equal(mlsd.length, folders.size + 1, lines.join(' | '));
      assert.deepEqual(mlsd.slice(1).map((x) => x.before), mlsd.slice(1).map(() => 'PASV'), lines.join(' | '));
      assert.ok(lines.includes('PASV') && lines[lines.indexOf('RETR /index.html') - 1] === 'PASV', lines.join(' | '));
    } finally {
      await proxy.close();
    }
  });

  it('SFTP: a changed host key is refused with both fingerprints (rotateHostKey); no "connect anyway"', async function () {
    this.timeout(60_000);
    const s = live.sftp!;
    const store = memoryStore();
    const first = await testConnection(sites().SFTP!.endpoint, options(s.password, { store, decider: { unknownHostKey: async () => 'always' } }));
    assert.equal(first.ok, true);
    const old = s.hostKeyFingerprint;
    const now = await s.rotateHostKey();
    let asked = 0;
    const r = await testConnection(sites().SFTP!.endpoint, options(s.password, { store, decider: { unknownHostKey: async () => (asked++, 'always') } }));
    assert.equal(r.error?.kind, 'host-key-changed');
    assert.equal(r.error?.data?.expected, old);
    assert.equal(r.error?.data?.presented, now);
    assert.equal(asked, 0, 'a changed key is never asked about');
  });

  it('compare and drift: groups against the servers\' folder, a same-size different file caught, an unchanged file not read twice (SFTP)', async function () {
    this.timeout(60_000);
    const s = live.sftp!;
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-live-local-'));
    try {
      fs.cpSync(s.dataDir, local, { recursive: true, verbatimSymlinks: true });
      fs.writeFileSync(path.join(local, 'index.html'), Buffer.from(fs.readFileSync(path.join(s.dataDir, 'index.html')).toString('latin1').replace(/./, 'X'), 'latin1')); // same size
      fs.writeFileSync(path.join(local, 'only-local.txt'), 'mine');
      fs.rmSync(path.join(local, 'old.txt'));
      for (const l of ['link-inside.html', 'link-dir', 'link-outside.txt', 'link-dangling.txt']) fs.rmSync(path.join(local, l), { force: true, recursive: false });
      const history: HistorySource = {
        paths: async () => [SAME_SIZE.path, 'index.html', 'gone.php'],
        newest: async (p) =>
          p === SAME_SIZE.path
            ? { revisionId: 'r1', sha256: sha(SAME_SIZE.revisionContent), size: SAME_SIZE.revisionContent.length }
            : p === 'index.html'
              ? { revisionId: 'r2', sha256: sha(fs.readFileSync(path.join(s.dataDir, 'index.html'))) }
              : { revisionId: 'r3' },
      };
      const state = await LastSeen.load(path.join(local, '..', `${path.basename(local)}.last-seen.json`));
      const fsys = openLive(sites().SFTP!.endpoint, options(s.password, { knownHostsFiles: [s.knownHostsFile] }));
      const r = await compareLive(fsys, { local: nodeWorkingFs(local), history, lastSeen: state });
      const group = (g: string) => r.rows.filter((x) => x.group === g).map((x) => x.path).sort();
      assert.deepEqual(group('differsFromLocal'), ['index.html']);
      assert.deepEqual(group('onlyLocal'), ['only-local.txt']);
      assert.ok(group('onlyLive').includes('old.txt'));
      assert.deepEqual(group('differsFromNewest'), [SAME_SIZE.path]);
      assert.equal(r.rows.find((x) => x.path === SAME_SIZE.path)?.basis, 'hash', 'same size: decided by content');
      assert.deepEqual(group('onlyInHistory'), ['gone.php']);
      const reads = r.progress.reads;
      assert.ok(reads > 0);
      const again = await compareLive(fsys, { local: nodeWorkingFs(local), history, lastSeen: await LastSeen.load(state.file) });
      assert.equal(again.progress.reads, 0, 'unchanged live files (same size and raw time) are not read again');
      assert.deepEqual(again.counts, r.counts);
      assert.equal(again.rows.find((x) => x.path === SAME_SIZE.path)?.basis, 'lastSeen');
      await fsys.close();
      fs.rmSync(state.file, { force: true });
    } finally {
      fs.rmSync(local, { recursive: true, force: true });
    }
  });

  it('writes: replacing a file is one step over SFTP (posix-rename) and FTP; WebDAV\'s MOVE over it is two, and the write says so (notDone atomic); S3 refuses a file above its bound before sending anything', async function () {
    this.timeout(60_000);
    for (const name of ['SFTP', 'FTP (plain, loopback)', 'WebDAV http']) {
      const site = sites()[name]!;
      const fsys = openLive(site.endpoint, options(site.password, { knownHostsFiles: [live.sftp!.knownHostsFile] }));
      try {
        const first = await fsys.write('replace me.txt', Buffer.from('one'));
        assert.deepEqual(first.notDone, [], `${name}: a new file`);
        const second = await fsys.write('replace me.txt', Buffer.from('two!'));
        assert.equal(fs.readFileSync(path.join(site.dataDir, 'replace me.txt'), 'utf8'), 'two!', name);
        assert.deepEqual(second.notDone, name === 'WebDAV http' ? ['atomic'] : [], `${name}: replacing`);
        assert.equal(fsys.capabilities.atomicReplace, name !== 'WebDAV http');
        await fsys.delete('replace me.txt');
      } finally {
        await fsys.close();
      }
    }
    const site = sites().S3!;
    const fsys = openLive(site.endpoint, options(site.password));
    try {
      let read = false;
      async function* never() {
        read = true;
        yield Buffer.alloc(1);
      }
      await assert.rejects(fsys.write('huge.bin', never(), { size: 65 * 1024 * 1024 }), (e: { kind?: string; next?: string }) => e.kind === 'too-large' && /multipart/.test(e.next ?? ''));
      assert.equal(read, false, 'a size above the bound is refused before reading');
      const mib = Buffer.alloc(1024 * 1024, 7);
      async function* big() {
        for (let i = 0; i < 65; i++) yield mib;
      }
      await assert.rejects(fsys.write('huge.bin', big()), (e: { kind?: string }) => e.kind === 'too-large');
      assert.equal(await fsys.stat('huge.bin'), undefined, 'nothing was sent');
    } finally {
      await fsys.close();
    }
  });

  it('writes: a file written through a temporary name and renamed, with its time and mode; a cancelled write leaves no temporary file (SFTP, FTP, WebDAV, S3)', async function () {
    this.timeout(60_000);
    for (const name of ['SFTP', 'FTP (plain, loopback)', 'WebDAV http', 'S3']) {
      const site = sites()[name]!;
      const fsys = openLive(site.endpoint, options(site.password, { knownHostsFiles: [live.sftp!.knownHostsFile] }));
      try {
        await fsys.mkdir('new dir/ü');
        const r = await fsys.write('new dir/ü/a #1%.txt', Buffer.from('hello live'), fsys.capabilities.setTime ? { mtime: Date.UTC(2022, 1, 3, 4, 5, 6) } : {});
        assert.equal(r.entry?.size, 10, name);
        if (name !== 'S3') assert.equal(fs.readFileSync(path.join(site.dataDir, 'new dir', 'ü', 'a #1%.txt'), 'utf8'), 'hello live');
        assert.deepEqual(Buffer.from(await fsys.readAll('new dir/ü/a #1%.txt')).toString(), 'hello live');
        if (fsys.capabilities.setTime) assert.equal(fs.statSync(path.join(site.dataDir, 'new dir', 'ü', 'a #1%.txt')).mtimeMs, Date.UTC(2022, 1, 3, 4, 5, 6), name);
        const c = new AbortController();
        async function* slow() {
          yield Buffer.alloc(1000, 1);
          c.abort();
          await new Promise((res) => setTimeout(res, 50));
          yield Buffer.alloc(1000, 2);
        }
        await assert.rejects(fsys.write('new dir/ü/cancelled.txt', slow(), { signal: c.signal }));
        const left = (await fsys.listAll('new dir/ü')).map((e) => e.name);
        assert.deepEqual(left.filter((n) => n !== 'a #1%.txt' && n !== 'cancelled.txt'), [], `${name}: no temporary file left (${left.join(', ')})`);
        await fsys.delete('new dir', { recursive: true });
        assert.equal(await fsys.stat('new dir'), undefined, name);
      } finally {
        await fsys.close();
      }
    }
  });
});

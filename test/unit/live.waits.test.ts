// A person's answer is not the server's silence (issue 33, found by the VS Code side): a trust
// question (unknown host key, untrusted certificate) or a password prompt may stay open longer than
// the site's timeout, and the connection must not fail for it; a step's `ms` leaves the person's
// time out (`personMs` says it). A server that ends a login waiting for the person (sshd's
// LoginGraceTime, ProFTPD's TimeoutLogin) is connected to once more, and its key or certificate
// checked again. Against the real servers of test/live.
import * as assert from 'node:assert/strict';
import { testConnection, type LiveEndpoint, type StageReport, type TestResult } from '../../src/core/live';
import { startFaultProxy, type FaultProxy } from '../live/faultProxy';
import { startLiveServers, type LiveServers } from '../live/servers';
import { requireLiveServers } from '../live/system';
import { ep, memoryStore, options } from './helpers/liveOptions';
import { until } from './helpers/wait';

/** The site's timeout in these tests, seconds; the person answers after twice as long. */
const TIMEOUT_S = 1;
const ANSWER_AFTER_MS = 2 * TIMEOUT_S * 1000;
const later = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs a Test Connection, and how long it took in all. */
async function timed(e: LiveEndpoint, o: Parameters<typeof testConnection>[1]): Promise<{ r: TestResult; wall: number }> {
  const t0 = Date.now();
  const r = await testConnection(e, o);
  return { r, wall: Date.now() - t0 };
}

/**
 * The step where the person was asked: its personMs holds at least the wait, and its ms leaves it
 * out (with the wait counted in both, the step alone would be longer than the whole test).
 */
function personStep(r: TestResult, wall: number, stage: StageReport['stage'], label: string): StageReport {
  const s = r.stages.find((x) => x.stage === stage && x.personMs !== undefined);
  assert.ok(s, `${label}: a ${stage} step with the person's time (${JSON.stringify(r.stages)})`);
  assert.ok(s.personMs! >= ANSWER_AFTER_MS - 5, `${label}: personMs ${s.personMs} holds the wait`);
  assert.ok(s.ms + s.personMs! <= wall, `${label}: ${stage} ms ${s.ms} + personMs ${s.personMs} within the test's ${wall} ms: the person's time is not in ms`);
  for (const x of r.stages) if (x !== s && x.stage !== 'list') assert.ok(x.ms + ANSWER_AFTER_MS <= wall + 5, `${label}: ${x.stage} ms ${x.ms} leaves the person's time out`);
  return s;
}

/** The step `stage` of the connection made again (after the TCP step that says why it was made again). */
function afterReconnection(r: TestResult, stage: StageReport['stage']): StageReport {
  const i = r.stages.findIndex((x) => x.stage === 'connect' && x.warning);
  assert.ok(i >= 0, `a reconnection is reported: ${JSON.stringify(r.stages)}`);
  assert.match(r.stages[i]!.warning!, /closed the connection while a question was open/);
  const s = r.stages.slice(i + 1).find((x) => x.stage === stage);
  assert.ok(s?.ok, `the ${stage} step on the new connection: ${JSON.stringify(r.stages)}`);
  return s;
}

describe('live servers: a person\'s answer is not the server\'s silence', function () {
  let live: LiveServers;
  before(async function () {
    this.timeout(20 * 60_000);
    requireLiveServers(this, ['ftp', 'sftp', 'dav'], false);
    this.timeout(120_000);
    live = await startLiveServers({ only: ['ftp', 'sftp', 'dav'] });
  });
  after(async function () {
    this.timeout(60_000);
    await live?.stop();
  });

  it(`a trust question answered after ${ANSWER_AFTER_MS / 1000} s, twice the timeout, connects: SFTP host key, FTPS explicit and implicit, WebDAV https certificates; the step's ms leaves the person's time out`, async function () {
    this.timeout(60_000);
    const f = live.ftp!;
    const s = live.sftp!;
    const d = live.dav!;
    const cases: { label: string; e: LiveEndpoint; password: string; stage: StageReport['stage'] }[] = [
      { label: 'SFTP', e: ep({ server_type: 'SFTP', domain: s.host, port: String(s.port), ftp_user: s.user, dir: s.dataDir, timeout: String(TIMEOUT_S) }), password: s.password, stage: 'host-key' },
      { label: 'FTPS explicit', e: ep({ server_type: 'FTP', domain: `ftps://${f.host}`, port: String(f.port), ftp_user: f.user, timeout: String(TIMEOUT_S) }), password: f.password, stage: 'tls' },
      { label: 'FTPS implicit', e: { ...ep({ server_type: 'FTP', domain: f.host, port: '990', encryption: '1', ftp_user: f.user, timeout: String(TIMEOUT_S) }), port: f.implicitPort }, password: f.password, stage: 'tls' },
      { label: 'WebDAV https', e: ep({ server_type: 'WebDAV', domain: d.httpsUrl, ftp_user: d.user, timeout: String(TIMEOUT_S) }), password: d.password, stage: 'tls' },
    ];
    assert.equal(cases[0]!.e.timeoutMs, TIMEOUT_S * 1000);
    await Promise.all(
      cases.map(async (c) => {
        const asked: string[] = [];
        const slow = async (what: string) => {
          asked.push(what);
          await later(ANSWER_AFTER_MS);
          return 'once' as const;
        };
        const { r, wall } = await timed(c.e, options(c.password, { decider: { unknownHostKey: (q) => slow(q.key.fingerprint), untrustedCertificate: (q) => slow(q.cert.fingerprint256) } }));
        assert.equal(r.ok, true, `${c.label}: ${r.error?.message}`);
        assert.deepEqual(asked, [c.stage === 'host-key' ? s.hostKeyFingerprint : f.fingerprint256], `${c.label}: asked once`);
        personStep(r, wall, c.stage, c.label);
        assert.ok(!r.stages.some((x) => x.warning), `${c.label}: no reconnection was needed`);
      }),
    );
  });

  it(`a password or passphrase prompt answered after ${ANSWER_AFTER_MS / 1000} s connects (SFTP password, SFTP key passphrase, FTPS, WebDAV), its time is the person's`, async function () {
    this.timeout(60_000);
    const f = live.ftp!;
    const s = live.sftp!;
    const d = live.dav!;
    const sftp = (local = {}) => ep({ server_type: 'SFTP', domain: s.host, port: String(s.port), ftp_user: s.user, dir: s.dataDir, timeout: String(TIMEOUT_S), ...(Object.keys(local).length ? { logon_type: 'key' } : {}) }, local);
    const cases: { label: string; e: LiveEndpoint; secret: string; passphrase?: boolean }[] = [
      { label: 'SFTP password', e: sftp(), secret: s.password },
      { label: 'SFTP passphrase', e: sftp({ keyFile: s.encryptedKeyFile }), secret: s.keyPassphrase, passphrase: true },
      { label: 'FTPS explicit', e: ep({ server_type: 'FTP', domain: `ftps://${f.host}`, port: String(f.port), ftp_user: f.user, timeout: String(TIMEOUT_S) }), secret: f.password },
      { label: 'WebDAV http', e: ep({ server_type: 'WebDAV', domain: d.httpUrl, ftp_user: d.user, timeout: String(TIMEOUT_S) }), secret: d.password },
    ];
    await Promise.all(
      cases.map(async (c) => {
        let prompts = 0;
        const prompt = async () => {
          prompts++;
          await later(ANSWER_AFTER_MS);
          return c.secret;
        };
        const o = options(undefined, { knownHostsFiles: [s.knownHostsFile], decider: { untrustedCertificate: async () => 'once' } });
        o.secrets = c.passphrase ? { password: async () => undefined, passphrase: prompt } : { password: prompt };
        const { r, wall } = await timed(c.e, o);
        assert.equal(r.ok, true, `${c.label}: ${r.error?.message}`);
        assert.equal(prompts, 1, `${c.label}: asked once`);
        // SFTP asks before it connects (no server waits for a prompt); FTP after TLS, inside the
        // login step; WebDAV before its first request, after the certificate.
        if (c.label === 'FTPS explicit') personStep(r, wall, 'login', c.label);
        else for (const x of r.stages) assert.ok(x.ms + ANSWER_AFTER_MS <= wall + 5, `${c.label}: ${x.stage} ms ${x.ms} leaves the prompt's time out`);
      }),
    );
  });

  describe('a server that ends a login waiting for the person', function () {
    /** sshd's LoginGraceTime and ProFTPD's TimeoutLogin, seconds: short, but long enough for the second login. */
    const GRACE_S = 3;
    let strict: LiveServers;
    let proxy: FaultProxy | undefined;
    before(async function () {
      this.timeout(120_000);
      strict = await startLiveServers({ only: ['ftp', 'sftp'], loginGraceSeconds: GRACE_S });
    });
    after(async function () {
      this.timeout(60_000);
      await strict?.stop();
    });
    afterEach(async () => {
      await proxy?.close();
      proxy = undefined;
    });

    /** The server dropped the connection the person is being asked about (the proxy saw it close). */
    const dropped = () => until(() => proxy!.connections() === 0, 'the server closed the waiting login', 30_000);

    it('SFTP: the host key accepted after sshd dropped the login (LoginGraceTime): connected again, the key checked again, the person asked once', async function () {
      this.timeout(60_000);
      const s = strict.sftp!;
      proxy = await startFaultProxy({ host: s.host, port: s.port });
      const e = ep({ server_type: 'SFTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: s.user, dir: s.dataDir, timeout: '30' });
      const asked: string[] = [];
      const store = memoryStore();
      const r = await testConnection(e, options(s.password, { store, decider: { unknownHostKey: async (q) => (asked.push(q.key.fingerprint), await dropped(), 'once') } }));
      assert.equal(r.ok, true, r.error?.message);
      assert.deepEqual(asked, [s.hostKeyFingerprint], 'asked once');
      assert.equal(proxy.accepted(), 2, 'one connection more');
      const key = afterReconnection(r, 'host-key');
      assert.ok(key.detail.includes(s.hostKeyFingerprint), key.detail);
      assert.equal(store.keys.size, 0, '"once" stores nothing');
    });

    it('SFTP: a person who refuses after sshd dropped the login gets the refusal, not a lost connection; nothing connects again', async function () {
      this.timeout(60_000);
      const s = strict.sftp!;
      proxy = await startFaultProxy({ host: s.host, port: s.port });
      const e = ep({ server_type: 'SFTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: s.user, dir: s.dataDir, timeout: '30' });
      const r = await testConnection(e, options(s.password, { decider: { unknownHostKey: async () => (await dropped(), 'no') } }));
      assert.equal(r.error?.kind, 'host-key-unknown', r.error?.message);
      assert.equal(proxy.accepted(), 1);
    });

    it('SFTP: the server\'s key changed while the person decided: the new connection\'s key is asked about (and refused), not trusted by the first answer', async function () {
      this.timeout(60_000);
      const s = strict.sftp!;
      const e = ep({ server_type: 'SFTP', domain: s.host, port: String(s.port), ftp_user: s.user, dir: s.dataDir, timeout: '30' });
      const before = s.hostKeyFingerprint;
      const asked: string[] = [];
      const r = await testConnection(
        e,
        options(s.password, {
          decider: {
            unknownHostKey: async (q) => {
              asked.push(q.key.fingerprint);
              if (asked.length > 1) return 'no';
              await s.rotateHostKey(); // sshd restarted with a new key: the waiting connection is gone
              return 'once';
            },
          },
        }),
      );
      assert.equal(r.error?.kind, 'host-key-unknown', r.error?.message);
      assert.deepEqual(asked, [before, s.hostKeyFingerprint]);
      assert.notEqual(before, s.hostKeyFingerprint);
    });

    it('FTPS: the certificate accepted after ProFTPD dropped the login (TimeoutLogin): connected again without a second question, logged in and listed', async function () {
      this.timeout(60_000);
      const f = strict.ftp!;
      proxy = await startFaultProxy(f.proxyTargets.explicit);
      const e = ep({ server_type: 'FTP', domain: 'ftps://127.0.0.1', port: String(proxy.port), ftp_user: f.user, timeout: '30' });
      const asked: string[] = [];
      const r = await testConnection(e, options(f.password, { decider: { untrustedCertificate: async (q) => (asked.push(q.cert.fingerprint256), await dropped(), 'once') } }));
      assert.equal(r.ok, true, r.error?.message);
      assert.deepEqual(asked, [f.fingerprint256]);
      assert.ok(afterReconnection(r, 'tls').detail.includes(f.fingerprint256));
    });

    it('FTP: a password typed after ProFTPD dropped the login is used on a new connection, asked once', async function () {
      this.timeout(60_000);
      const f = strict.ftp!;
      proxy = await startFaultProxy(f.proxyTargets.explicit);
      const e = ep({ server_type: 'FTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: f.user, timeout: '30' });
      let prompts = 0;
      const o = options(undefined);
      o.secrets = {
        password: async () => {
          prompts++;
          await dropped();
          return f.password;
        },
      };
      const r = await testConnection(e, o);
      assert.equal(r.ok, true, r.error?.message);
      assert.equal(prompts, 1);
      assert.ok(afterReconnection(r, 'login').ok);
    });
  });
});

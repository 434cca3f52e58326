// WebDAV and S3 through an HTTP proxy (LiveOptions.proxy: the service client's own decision,
// src/core/net/proxy.ts): a real proxy on loopback (helpers/proxyServer.ts) in front of the real
// Apache mod_dav and S3 servers of test/live. The proxy records what it sees: a CONNECT to
// host:port and nothing else (no path, no credential); the listing is the server's folder.
import * as assert from 'node:assert/strict';
import { openLive, testConnection, walkLive, type LiveEndpoint, type LiveOptions } from '../../src/core/live';
import { proxyResolver, type ProxySettings } from '../../src/core/net/proxy';
import { listFilesOnDisk } from '../live/seed';
import { startLiveServers, type LiveServers } from '../live/servers';
import { requireLiveServers } from '../live/system';
import { ep, options } from './helpers/liveOptions';
import { startProxyServer, type ProxyServer } from './helpers/proxyServer';

describe('live servers: WebDAV and S3 through an HTTP proxy (CONNECT), the proxy decision of the service client', function () {
  let live: LiveServers;
  let proxy: ProxyServer;
  before(async function () {
    this.timeout(20 * 60_000);
    requireLiveServers(this, ['dav', 's3'], false);
    this.timeout(120_000);
    live = await startLiveServers({ only: ['dav', 's3'] });
    proxy = await startProxyServer();
  });
  after(async function () {
    this.timeout(60_000);
    await proxy?.close();
    await live?.stop();
  });
  beforeEach(() => {
    proxy.reset();
    proxy.configure({});
  });

  /** Options whose proxy is the test proxy, decided as the service client decides (settings + environment). */
  const via = (password: string, settings: Partial<ProxySettings> = {}, env: Record<string, string> = {}): LiveOptions => ({
    ...options(password),
    proxy: proxyResolver(() => ({ proxy: proxy.url, noProxy: ['<-loopback>'], strictSSL: true, ...settings }), env),
  });
  const dav = (https: boolean): LiveEndpoint => ep({ server_type: 'WebDAV', domain: https ? live.dav!.httpsUrl : live.dav!.httpUrl, ftp_user: live.dav!.user });
  const files = async (e: LiveEndpoint, o: LiveOptions) => {
    const fsys = openLive(e, o);
    try {
      return [...(await walkLive(fsys, '', { signal: new AbortController().signal })).keys()].sort();
    } finally {
      await fsys.close();
    }
  };
  /** Nothing the proxy could log holds the password or a path of the site. */
  const proxySawNoSecret = (password: string) => {
    for (const r of proxy.records) {
      assert.equal(r.kind, 'connect', `a ${r.kind} ${r.target}: every request goes through a tunnel`);
      assert.ok(!JSON.stringify(r).includes(password), 'the password reached the proxy');
      assert.match(r.target, /^127\.0\.0\.1:\d+$/);
    }
  };

  it('WebDAV over https: a CONNECT tunnel to host:port, the certificate checked inside it, the folder listed as on disk', async function () {
    this.timeout(60_000);
    const d = live.dav!;
    const e = dav(true);
    assert.deepEqual(await files(e, via(d.password)), listFilesOnDisk(d.dataDir));
    assert.ok(proxy.passed().length >= 1);
    assert.ok(proxy.records.every((r) => r.target === `127.0.0.1:${e.port}` && r.status === 200 && (r.tunnelledBytes ?? 0) > 0));
    proxySawNoSecret(d.password);
    // Test Connection says which way it went.
    const r = await testConnection(e, via(d.password));
    assert.equal(r.ok, true, r.error?.message);
    assert.match(r.stages.find((s) => s.stage === 'connect')!.detail, new RegExp(`through the proxy ${proxy.url.replace(/[.]/g, '\\.')}`));
    assert.match(r.stages.find((s) => s.stage === 'tls')!.detail, /SHA-256/);
  });

  it('WebDAV over http and S3 go through the tunnel too (from the environment: https_proxy / http_proxy)', async function () {
    this.timeout(60_000);
    const d = live.dav!;
    assert.deepEqual(await files(dav(false), via(d.password, { proxy: '' }, { http_proxy: proxy.url })), listFilesOnDisk(d.dataDir));
    assert.ok(proxy.passed().length >= 1);
    proxySawNoSecret(d.password);
    proxy.reset();
    const s3 = live.s3!;
    const e = ep({ server_type: 'AmazonS3', domain: `${s3.endpoint}/${s3.bucket}`, ftp_user: s3.accessKeyId }, { s3Region: s3.region });
    assert.deepEqual(await files(e, via(s3.secretAccessKey)), listFilesOnDisk(s3.seedDir));
    assert.ok(proxy.passed().length >= 1);
    proxySawNoSecret(s3.secretAccessKey);
  });

  it('loopback goes direct unless noProxy holds <-loopback>, and a noProxy entry goes direct: the proxy sees nothing', async function () {
    this.timeout(60_000);
    const d = live.dav!;
    const want = listFilesOnDisk(d.dataDir);
    assert.deepEqual(await files(dav(true), via(d.password, { noProxy: [] })), want);
    assert.deepEqual(await files(dav(true), via(d.password, { noProxy: ['<-loopback>', '127.0.0.1'] })), want);
    assert.deepEqual(await files(dav(false), via(d.password, { noProxy: ['<-loopback>'], support: 'off' })), want);
    assert.equal(proxy.records.length, 0);
  });

  it('a proxy that wants authentication, refuses the tunnel, or is not usable is named, without its credentials', async function () {
    this.timeout(60_000);
    const d = live.dav!;
    const token = `Basic ${Buffer.from('proxyuser:proxy-secret-7').toString('base64')}`;
    proxy.configure({ requireAuthorization: token });
    let r = await testConnection(dav(true), via(d.password));
    assert.equal(r.error?.kind, 'auth');
    assert.equal(r.error?.stage, 'connect');
    assert.match(r.error!.message, /407/);
    assert.match(r.error!.next, /http\.proxyAuthorization/);
    // From the URL's user:password, and from http.proxyAuthorization.
    const withUser = proxy.url.replace('http://', 'http://proxyuser:proxy-secret-7@');
    assert.equal((await testConnection(dav(true), via(d.password, { proxy: withUser }))).ok, true);
    assert.equal((await testConnection(dav(true), via(d.password, { authorization: token }))).ok, true);
    assert.ok(proxy.records.some((x) => x.proxyAuthorization === token && x.status === 200));
    proxy.configure({ refuseConnect: 403 });
    r = await testConnection(dav(true), via(d.password, { proxy: withUser }));
    assert.equal(r.error?.kind, 'refused');
    assert.match(r.error!.message, /403/);
    assert.ok(r.error!.message.includes(proxy.url), r.error!.message);
    assert.doesNotMatch(JSON.stringify({ m: r.error?.message, n: r.error?.next, s: r.stages }), /proxy-secret-7/);
    r = await testConnection(dav(true), via(d.password, { proxy: 'socks5://127.0.0.1:1' }));
    assert.equal(r.error?.kind, 'config');
    assert.match(r.error!.message, /not usable/);
  });
});

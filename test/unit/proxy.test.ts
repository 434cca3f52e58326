// Proxy support: the pure decision (target URL × VS Code's http.* settings × environment → a
// proxy or direct), and the client going through a real proxy process on loopback to the local
// service — absolute-form forwarding for http, CONNECT tunnels for https — with noProxy bypass,
// proxy authentication, http.proxyStrictSSL, and the credentials only ever in the POST body.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import * as tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { InsecureTransportError, NetworkError } from '../../src/core/api/errors';
import { SiteRevisionClient, type ClientOptions, type RequestEvent } from '../../src/core/api/client';
import type { Credentials } from '../../src/core/api/types';
import { decideProxy, describeDecision, matchesNoProxy, parseProxyUrl, proxyResolver, routeOf, type ProxyDecision, type ProxyEnv, type ProxySettings } from '../../src/core/net/proxy';
import { DEMO, startService, type RunningService } from '../server';
import { rejectsWith, TEST_CERT, TEST_KEY } from './helpers/rawServer';
import { startProxyServer, type ProxyServer } from './helpers/proxyServer';

const S = (o: Partial<ProxySettings> = {}): ProxySettings => ({ proxy: '', noProxy: [], strictSSL: true, ...o });

function proxied(d: ProxyDecision): string {
  assert.equal(d.kind, 'proxy', `expected a proxy, got ${JSON.stringify(d)}`);
  return (d as { url: string }).url;
}
function direct(d: ProxyDecision): string {
  assert.equal(d.kind, 'direct', `expected direct, got ${JSON.stringify(d)}`);
  return (d as { reason: string }).reason;
}

describe('proxy decision (pure)', () => {
  const P = 'http://proxy.corp:3128/';

  it('no setting and no environment → direct', () => {
    assert.equal(direct(decideProxy('https://svc.example.com/api', S(), {})), 'no proxy configured');
  });

  it('http.proxy wins over the environment; a bare host:port means http', () => {
    assert.equal(proxied(decideProxy('https://svc.example.com', S({ proxy: 'proxy.corp:3128' }), { https_proxy: 'http://env:1' })), P);
    assert.equal(proxied(decideProxy('https://svc.example.com', S({ proxy: 'https://secure.corp:8443' }), {})), 'https://secure.corp:8443/');
  });

  it('environment: https targets use https_proxy, HTTPS_PROXY, then http_proxy, HTTP_PROXY; http targets only http_proxy / HTTP_PROXY', () => {
    const e = (env: ProxyEnv, target = 'https://svc.example.com'): ProxyDecision => decideProxy(target, S(), env);
    assert.equal(proxied(e({ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:1', http_proxy: 'http://c:1' })), 'http://a:1/');
    assert.equal(proxied(e({ HTTPS_PROXY: 'http://b:1', http_proxy: 'http://c:1' })), 'http://b:1/');
    assert.equal(proxied(e({ http_proxy: 'http://c:1', HTTP_PROXY: 'http://d:1' })), 'http://c:1/');
    assert.equal(proxied(e({ HTTP_PROXY: 'http://d:1' })), 'http://d:1/');
    assert.equal(proxied(e({ https_proxy: '  ', HTTP_PROXY: 'http://d:1' })), 'http://d:1/', 'blank values are ignored');
    assert.equal(direct(e({ https_proxy: 'http://a:1' }, 'http://svc.example.com')), 'no proxy configured');
    assert.equal(proxied(e({ http_proxy: 'http://c:1' }, 'http://svc.example.com')), 'http://c:1/');
    const d = e({ HTTPS_PROXY: 'http://b:1' });
    assert.equal(d.kind === 'proxy' && d.source, 'HTTPS_PROXY');
  });

  it('loopback targets go direct unless noProxy holds <-loopback>', () => {
    for (const t of ['http://127.0.0.1:8787', 'http://localhost:1', 'http://[::1]:2', 'https://app.localhost', 'http://127.5.6.7']) {
      assert.equal(direct(decideProxy(t, S({ proxy: P }), {})), 'loopback', t);
      assert.equal(proxied(decideProxy(t, S({ proxy: P, noProxy: ['<-loopback>'] }), {})), P, t);
    }
    assert.equal(proxied(decideProxy('http://127.0.0.1', S({ proxy: P }), { no_proxy: 'x.example, <-LOOPBACK>' })), P);
  });

  it('noProxy (setting) and no_proxy / NO_PROXY (environment) both apply', () => {
    assert.deepEqual(decideProxy('https://svc.example.com', S({ proxy: P, noProxy: ['svc.example.com'] }), {}), { kind: 'direct', reason: 'noProxy', entry: 'svc.example.com' });
    assert.equal(direct(decideProxy('https://svc.example.com', S({ proxy: P }), { no_proxy: 'other.org, svc.example.com' })), 'noProxy');
    assert.equal(direct(decideProxy('https://svc.example.com', S({ proxy: P }), { NO_PROXY: 'example.com' })), 'noProxy');
    assert.equal(direct(decideProxy('https://svc.example.com', S({ proxy: P, noProxy: ['a.org,example.com'] }), {})), 'noProxy', 'an entry holding a list');
    assert.equal(proxied(decideProxy('https://svc.example.com', S({ proxy: P, noProxy: ['other.org'] }), { no_proxy: 'x.org' })), P);
  });

  it('noProxy matching: host, subdomains, .suffix, *.suffix, host:port, IPv6, CIDR, *, <local>, wildcards, case and trailing dots', () => {
    const m = (target: string, entry: string): boolean => matchesNoProxy(new URL(target), entry);
    // a domain: itself and its subdomains, never a mere string suffix
    assert.equal(m('https://example.com', 'example.com'), true);
    assert.equal(m('https://a.b.example.com', 'example.com'), true);
    assert.equal(m('https://notexample.com', 'example.com'), false);
    assert.equal(m('https://example.com.evil.org', 'example.com'), false);
    // .suffix and *.suffix: subdomains only
    assert.equal(m('https://www.example.com', '.example.com'), true);
    assert.equal(m('https://example.com', '.example.com'), false);
    assert.equal(m('https://www.example.com', '*.example.com'), true);
    assert.equal(m('https://example.com', '*.example.com'), false);
    // host:port: that port only; the default port counts
    assert.equal(m('https://svc.example.com:8443/x', 'svc.example.com:8443'), true);
    assert.equal(m('https://svc.example.com/x', 'svc.example.com:8443'), false);
    assert.equal(m('https://svc.example.com/x', 'svc.example.com:443'), true);
    assert.equal(m('http://svc.example.com/x', 'svc.example.com:80'), true);
    assert.equal(m('https://svc.example.com:9/x', 'svc.example.com'), true, 'no port = every port');
    // IP addresses, IPv6 in brackets or not, compared as addresses
    assert.equal(m('http://10.1.2.3:80', '10.1.2.3'), true);
    assert.equal(m('http://10.1.2.3', '10.1.2.4'), false);
    assert.equal(m('http://[2001:db8::1]:8080', '2001:db8::1'), true);
    assert.equal(m('http://[2001:db8::1]:8080', '[2001:db8:0:0:0:0:0:1]:8080'), true);
    assert.equal(m('http://[2001:db8::1]:8081', '[2001:db8::1]:8080'), false);
    // CIDR
    assert.equal(m('http://10.200.3.4', '10.0.0.0/8'), true);
    assert.equal(m('http://11.0.0.1', '10.0.0.0/8'), false);
    assert.equal(m('http://[fd00::5]', 'fd00::/8'), true);
    assert.equal(m('http://ten.example', '10.0.0.0/8'), false);
    // everything, simple names, wildcards
    assert.equal(m('https://anything.example', '*'), true);
    assert.equal(m('https://intranet', '<local>'), true);
    assert.equal(m('https://intranet.corp', '<local>'), false);
    assert.equal(m('http://192.168.1.20', '192.168.1.*'), true);
    assert.equal(m('https://build-7.ci.example', 'build-*.ci.example'), true);
    // case, trailing dots, a tolerated scheme, blanks
    assert.equal(m('https://SVC.Example.COM.', 'svc.EXAMPLE.com'), true);
    assert.equal(m('https://svc.example.com', 'example.com.'), true);
    assert.equal(m('https://svc.example.com', 'https://svc.example.com'), true);
    assert.equal(m('https://svc.example.com', '   '), false);
    assert.equal(m('https://svc.example.com', 'svc.example.com:notaport'), false);
  });

  it('http.proxySupport "off" → direct, whatever else is set', () => {
    assert.equal(direct(decideProxy('https://svc.example.com', S({ proxy: P, support: 'off' }), { https_proxy: P })), 'http.proxySupport is off');
    assert.equal(proxied(decideProxy('https://svc.example.com', S({ proxy: P, support: 'override' }), {})), P);
  });

  it('strictSSL and Proxy-Authorization are carried to the route; the display form has no credentials', () => {
    const d = decideProxy('https://svc.example.com', S({ proxy: 'http://alice:s%40cret@proxy.corp:3128', strictSSL: false, authorization: ' Basic Zm9vOmJhcg== ' }), {});
    assert.equal(d.kind, 'proxy');
    if (d.kind !== 'proxy') return;
    assert.equal(d.display, 'http://proxy.corp:3128');
    assert.equal(d.strictSSL, false);
    assert.equal(d.authorization, 'Basic Zm9vOmJhcg==');
    assert.deepEqual(routeOf(d), { url: 'http://alice:s%40cret@proxy.corp:3128/', display: 'http://proxy.corp:3128', strictSSL: false, authorization: 'Basic Zm9vOmJhcg==' });
    const text = describeDecision(new URL('https://svc.example.com'), d);
    assert.match(text, /through the proxy http:\/\/proxy\.corp:3128 \(from http\.proxy; certificates not verified/);
    assert.doesNotMatch(text, /alice|s%40cret|s@cret|Zm9v/);
  });

  it('unusable proxy URLs → invalid (and routeOf throws) without repeating the URL', () => {
    for (const [raw, why] of [
      ['socks5://bob:hunter2@proxy.corp:1080', /socks5 proxies are not supported/],
      ['http://bob:hunter2@', /not a valid URL|no host/],
      ['http://[::1', /not a valid URL/],
    ] as const) {
      const d = decideProxy('https://svc.example.com', S({ proxy: raw }), {});
      assert.equal(d.kind, 'invalid', raw);
      if (d.kind !== 'invalid') continue;
      assert.match(d.reason, why);
      assert.doesNotMatch(d.reason, /hunter2/);
      assert.throws(() => routeOf(d), (e: Error) => e instanceof TypeError && !/hunter2/.test(e.message) && /http\.proxy/.test(e.message));
    }
    assert.ok('error' in parseProxyUrl('ftp://proxy.corp'));
  });

  it('the resolver reads the settings on every request and reports each new decision once', () => {
    let settings = S();
    const heard: string[] = [];
    const resolve = proxyResolver(() => settings, {}, (t) => heard.push(t));
    const target = new URL('https://svc.example.com/api/sites');
    assert.equal(resolve(target), undefined);
    assert.equal(resolve(target), undefined);
    settings = S({ proxy: 'http://u:pw@proxy.corp:3128' });
    assert.equal(resolve(target)?.display, 'http://proxy.corp:3128');
    settings = S({ proxy: 'http://u:pw@proxy.corp:3128', noProxy: ['svc.example.com'] });
    assert.equal(resolve(target), undefined);
    assert.equal(heard.length, 3);
    assert.match(heard[0], /go direct \(no proxy configured\)/);
    assert.match(heard[2], /no proxy: matches "svc\.example\.com"/);
    assert.ok(heard.every((h) => !h.includes('pw')));
  });

  it('neither the proxy module nor a client with a resolver loads undici before the first request', () => {
    const proxyModule = path.resolve(__dirname, '../../src/core/net/proxy.js');
    const clientModule = path.resolve(__dirname, '../../src/core/api/client.js');
    const script = `
      const { proxyResolver } = require(${JSON.stringify(proxyModule)});
      const { SiteRevisionClient } = require(${JSON.stringify(clientModule)});
      const loaded = () => Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]undici[\\\\/]/.test(k));
      const resolve = proxyResolver(() => ({ proxy: 'http://proxy.corp:3128', noProxy: [], strictSSL: true }), {});
      const route = resolve(new URL('https://svc.example.com/api/sites'));
      new SiteRevisionClient({ baseUrl: 'https://svc.example.com', credentials: () => undefined, proxy: resolve });
      console.log(JSON.stringify({ loaded: loaded(), display: route.display }));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 15_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.trim()), { loaded: false, display: 'http://proxy.corp:3128' });
  });
});

describe('proxy (real proxy process on loopback)', function () {
  let service: RunningService;
  let proxy: ProxyServer;
  /** A TLS front of the local service (test certificate for 127.0.0.1 / localhost). */
  let tlsFront: net.Server;
  let httpsUrl: string;
  const clients: SiteRevisionClient[] = [];
  const KEY_USER: Credentials = { ...DEMO.keyUser };
  const SECRETS = [DEMO.keyUser.password, DEMO.keyUser.apiKey, encodeURIComponent(DEMO.keyUser.password)];

  function client(baseUrl: string, settings: Partial<ProxySettings>, extra: Partial<ClientOptions> & { env?: ProxyEnv } = {}): { c: SiteRevisionClient; events: RequestEvent[] } {
    const events: RequestEvent[] = [];
    const { env = {}, ...opts } = extra;
    const c = new SiteRevisionClient({
      baseUrl,
      credentials: () => KEY_USER,
      timeoutMs: 5000,
      retries: 0,
      proxy: proxyResolver(() => S(settings), env),
      onEvent: (e) => events.push(e),
      ...opts,
    });
    clients.push(c);
    return { c, events };
  }

  /** Nothing the proxy could log outside a request body — URLs, CONNECT targets, proxy headers — holds a credential. */
  function assertNoCredentialOutsideBodies(): void {
    for (const r of proxy.records) {
      for (const s of SECRETS) {
        assert.ok(!r.target.includes(s), `credential in the ${r.kind} target ${r.target}`);
        assert.ok(!(r.proxyAuthorization ?? '').includes(s), 'credential in Proxy-Authorization');
      }
      assert.ok(!r.target.includes('password'), `a password parameter in ${r.target}`);
    }
  }

  before(async () => {
    service = await startService({ quiet: true });
    proxy = await startProxyServer();
    tlsFront = tls.createServer({ cert: TEST_CERT, key: TEST_KEY }, (s) => {
      const up = net.connect(service.port, '127.0.0.1');
      s.pipe(up).pipe(s);
      s.on('error', () => up.destroy());
      up.on('error', () => s.destroy());
    });
    tlsFront.on('tlsClientError', () => undefined);
    await new Promise<void>((r) => tlsFront.listen(0, '127.0.0.1', () => r()));
    httpsUrl = `https://127.0.0.1:${(tlsFront.address() as AddressInfo).port}`;
  });
  after(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await proxy.close();
    await new Promise<void>((r) => tlsFront.close(() => r()));
    await service.close();
  });
  beforeEach(() => {
    proxy.reset();
    proxy.configure({});
    service.resetStats();
  });
  afterEach(() => assertNoCredentialOutsideBodies());

  it('http: the request goes through the proxy in absolute form; the credentials are only in the POST body', async () => {
    const { c, events } = client(service.url, { proxy: proxy.url, noProxy: ['<-loopback>'] });
    const sites = await c.getSites();
    assert.ok(sites.length > 0);
    assert.equal(proxy.passed().length, 1);
    const [r] = proxy.records;
    assert.equal(r.kind, 'forward');
    assert.equal(r.method, 'POST');
    assert.equal(r.target, `${service.url}/api/sites`);
    const form = new URLSearchParams(r.body);
    assert.equal(form.get('login'), '1');
    assert.equal(form.get('email'), DEMO.keyUser.email);
    assert.equal(form.get('password'), DEMO.keyUser.password);
    assert.equal(r.headers.authorization, `Bearer ${DEMO.keyUser.apiKey}`);
    assert.equal(service.count('getSites'), 1);
    assert.equal(events[0].via, new URL(proxy.url).origin);
    // revisions: ids in the query, credentials still only in the body
    const site = sites.find((s) => s.id)!;
    await c.getRevisionFiles(site.id).catch(() => undefined);
    assert.equal(proxy.records.length, 2);
    assert.match(proxy.records[1].target, /\/api\/revisions\?site=/);
  });

  it('loopback goes direct by default, and a noProxy host goes direct even with <-loopback>', async () => {
    await client(service.url, { proxy: proxy.url }).c.getSites();
    assert.equal(proxy.records.length, 0);
    assert.equal(service.count('getSites'), 1);
    await client(service.url, { proxy: proxy.url, noProxy: ['<-loopback>', '127.0.0.1'] }).c.getSites();
    await client(service.url, { proxy: proxy.url, noProxy: ['<-loopback>', `127.0.0.1:${service.port}`] }).c.getSites();
    await client(service.url, { proxy: proxy.url, noProxy: ['<-loopback>'] }, { env: { no_proxy: '127.0.0.0/8' } }).c.getSites();
    assert.equal(proxy.records.length, 0);
    assert.equal(service.count('getSites'), 4);
    // a host:port entry for another port does not match
    await client(service.url, { proxy: proxy.url, noProxy: ['<-loopback>', `127.0.0.1:${service.port + 1}`] }).c.getSites();
    assert.equal(proxy.passed().length, 1);
  });

  it('the environment (http_proxy) is used when http.proxy is empty', async () => {
    await client(service.url, { noProxy: ['<-loopback>'] }, { env: { http_proxy: proxy.url } }).c.getSites();
    assert.equal(proxy.passed().length, 1);
    assert.equal(proxy.records[0].kind, 'forward');
  });

  it('https: a CONNECT tunnel to host:port; the proxy sees neither the URL path nor any credential', async () => {
    const { c, events } = client(httpsUrl, { proxy: proxy.url, noProxy: ['<-loopback>'] }, { ca: TEST_CERT });
    assert.ok((await c.getSites()).length > 0);
    assert.equal(proxy.records.length, 1);
    const [r] = proxy.records;
    assert.equal(r.kind, 'connect');
    assert.equal(r.target, new URL(httpsUrl).host);
    assert.equal(r.body, undefined);
    assert.ok((r.tunnelledBytes ?? 0) > 0);
    assert.equal(service.count('getSites'), 1);
    assert.equal(events[0].via, new URL(proxy.url).origin);
  });

  it('https through the proxy: the service certificate is verified (caFile), unless http.proxyStrictSSL is false', async () => {
    const strict = await rejectsWith(client(httpsUrl, { proxy: proxy.url, noProxy: ['<-loopback>'] }).c.getSites(), NetworkError);
    assert.equal(strict.isCertificateError, true, strict.message);
    assert.match(strict.message, /certificate is not trusted .*through the proxy http:\/\/127\.0\.0\.1:\d+/);
    assert.equal(service.count('getSites'), 0, 'nothing reached the service over an unverified connection');
    const lax = client(httpsUrl, { proxy: proxy.url, noProxy: ['<-loopback>'], strictSSL: false });
    assert.ok((await lax.c.getSites()).length > 0);
    assert.equal(service.count('getSites'), 1);
  });

  it('proxy authentication: user:password in the proxy URL or http.proxyAuthorization; a 407 says what to set', async () => {
    const basic = `Basic ${Buffer.from('alice:pr0xy pass').toString('base64')}`;
    proxy.configure({ requireAuthorization: basic });
    const withUrl = `http://alice:${encodeURIComponent('pr0xy pass')}@127.0.0.1:${proxy.port}`;
    for (const base of [service.url, httpsUrl]) {
      await client(base, { proxy: withUrl, noProxy: ['<-loopback>'] }, { ca: TEST_CERT }).c.getSites();
      await client(base, { proxy: proxy.url, noProxy: ['<-loopback>'], authorization: basic }, { ca: TEST_CERT }).c.getSites();
      const e = await rejectsWith(client(base, { proxy: proxy.url, noProxy: ['<-loopback>'] }, { ca: TEST_CERT }).c.getSites(), NetworkError);
      assert.equal(e.code, 'EPROXYAUTH', `${base}: ${e.message}`);
      assert.match(e.message, /the proxy http:\/\/127\.0\.0\.1:\d+ asks for credentials \(HTTP 407\): set http\.proxyAuthorization/);
      assert.equal(e.retryable, false);
    }
    assert.equal(proxy.records.filter((r) => r.proxyAuthorization === basic).length, 4);
    assert.equal(service.count('getSites'), 4);
  });

  it('a proxy that refuses the tunnel, and a proxy that is down, are named in the error', async () => {
    proxy.configure({ refuseConnect: 403 });
    const refused = await rejectsWith(client(httpsUrl, { proxy: proxy.url, noProxy: ['<-loopback>'] }, { ca: TEST_CERT }).c.getSites(), NetworkError);
    assert.equal(refused.code, 'EPROXYREFUSED');
    assert.match(refused.message, /the proxy http:\/\/127\.0\.0\.1:\d+ did not open a connection to https:\/\/127\.0\.0\.1:\d+ \(HTTP 403\)/);

    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const down = await rejectsWith(client(service.url, { proxy: `http://127.0.0.1:${deadPort}`, noProxy: ['<-loopback>'] }).c.getSites(), NetworkError);
    assert.equal(down.code, 'ECONNREFUSED');
    assert.match(down.message, new RegExp(`could not connect to the proxy http://127\\.0\\.0\\.1:${deadPort} \\(ECONNREFUSED\\): check http\\.proxy`));
  });

  it('plain http is never sent through a proxy on another machine; an unusable proxy setting is a clear error', async () => {
    const far = await rejectsWith(client(service.url, { proxy: 'http://proxy.invalid:3128', noProxy: ['<-loopback>'] }).c.getSites(), InsecureTransportError);
    assert.match(far.message, /refusing to send credentials over plain http to http:\/\/127\.0\.0\.1:\d+ through the proxy http:\/\/proxy\.invalid:3128/);
    const socks = await rejectsWith(client(httpsUrl, { proxy: 'socks5://u:secretpw@127.0.0.1:1080', noProxy: ['<-loopback>'] }).c.getSites(), NetworkError);
    assert.equal(socks.code, 'EPROXYCONFIG');
    assert.match(socks.message, /socks5 proxies are not supported/);
    assert.doesNotMatch(socks.message, /secretpw/);
    assert.equal(service.count(), 0);
  });

  it('a settings change applies to the next request of the same client', async () => {
    let settings: Partial<ProxySettings> = { proxy: proxy.url, noProxy: ['<-loopback>'] };
    const c = new SiteRevisionClient({ baseUrl: service.url, credentials: () => KEY_USER, retries: 0, proxy: proxyResolver(() => S(settings), {}) });
    clients.push(c);
    await c.getSites();
    settings = {};
    await c.getSites();
    settings = { proxy: proxy.url, noProxy: ['<-loopback>'] };
    await c.getSites();
    assert.equal(proxy.passed().length, 2);
    assert.equal(service.count('getSites'), 3);
  });
});

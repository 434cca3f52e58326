// The service client against a tiny real loopback HTTP(S) server with canned replies: request
// shape, reply validation, every error kind, redirects, TLS, limits, timeouts, cancellation.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ApiError,
  AuthError,
  CancelledError,
  HttpStatusError,
  InsecureTransportError,
  InvalidReplyError,
  NetworkError,
  RedirectError,
  ServiceError,
  SiteRevisionClient,
  TimeoutError,
  SITE_STRING_FIELDS,
  type ClientOptions,
  type Credentials,
  type RequestEvent,
} from '../../src/core/api';
import { assertNoSecrets, EXPIRED_CERT, EXPIRED_KEY, rejectsWith, startRawServer, TEST_CERT, TEST_KEY, type RawResponse, type RawServer } from './helpers/rawServer';
import { loadUndici } from '../../src/core/api/agents';

const PASSWORD = 'Pw-s3cret&=+ü';
const API_KEY = 'sr_test_0123456789abcdef';
const CREDS: Credentials = { email: 'user@example.com', password: PASSWORD };
const KEY_CREDS: Credentials = { ...CREDS, apiKey: API_KEY };
const SECRETS = [PASSWORD, API_KEY];

const ok = (extra: Record<string, unknown> = {}): RawResponse => ({ body: { success: true, ...extra } });

describe('SiteRevisionClient (raw HTTP server)', function () {
  let server: RawServer;
  const clients: SiteRevisionClient[] = [];
  const events: RequestEvent[] = [];

  function client(opts: Partial<ClientOptions> = {}, creds: Credentials | undefined = CREDS): SiteRevisionClient {
    const c = new SiteRevisionClient({
      baseUrl: server.url,
      credentials: () => creds,
      timeoutMs: 2000,
      retries: 2,
      retryBaseDelayMs: 5,
      onEvent: (e) => events.push(e),
      ...opts,
    });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    events.length = 0;
    server = await startRawServer(ok({ sites: [] }));
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await server.close();
    assertNoSecrets(events, SECRETS);
  });

  describe('request shape', () => {
    it('Get Sites: POST /api/sites with a form body carrying login, email and password', async () => {
      await client().getSites();
      const [r] = server.requests;
      assert.equal(r!.method, 'POST');
      assert.equal(r!.url, '/api/sites');
      assert.equal(r!.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(r!.headers.authorization, undefined);
      assert.deepEqual([...r!.form.entries()], [['login', '1'], ['email', CREDS.email], ['password', PASSWORD]]);
    });

    it('sends Authorization: Bearer only when an API key is set', async () => {
      await client({}, KEY_CREDS).getSites();
      await client({}, { ...CREDS, apiKey: '' }).getSites();
      assert.equal(server.requests[0]!.headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(server.requests[1]!.headers.authorization, undefined);
    });

    it('puts each operation on its path and query, values percent-encoded, never credentials in the URL', async () => {
      server.setHandler((req) => {
        if (req.url.includes('revision=')) return ok({ id: '7', content: 'x' });
        if (req.url.includes('file=')) return ok({ revisions: [] });
        if (req.url.startsWith('/api/revisions')) return ok({ files: [] });
        return ok({ site: 5 });
      });
      const c = client({}, KEY_CREDS);
      const file = 'dir/a b&c=d?#%.txt';
      await c.createSite({ name: 'n' });
      await c.updateSite('5', { name: 'n' });
      await c.deleteSite('5');
      await c.getRevisionFiles('a&b');
      await c.getRevisions('5', file);
      await c.getRevisions('5', file, { withContent: true });
      await c.getRevision('5', 'r/1');
      const urls = server.requests.map((r) => r.url);
      assert.deepEqual(urls, [
        '/api/sites?cmd=save',
        '/api/sites?cmd=save',
        '/api/sites?cmd=delete',
        '/api/revisions?site=a%26b',
        `/api/revisions?site=5&file=${encodeURIComponent(file)}&no_content=1`,
        `/api/revisions?site=5&file=${encodeURIComponent(file)}&no_content=0`,
        '/api/revisions?site=5&revision=r%2F1',
      ]);
      assert.equal(new URL(urls[4]!, 'http://x').searchParams.get('file'), file);
      assert.equal(server.requests[0]!.form.get('new'), '1');
      assert.equal(server.requests[0]!.form.get('site'), null);
      assert.equal(server.requests[1]!.form.get('site'), '5');
      assert.equal(server.requests[1]!.form.get('new'), null);
      assert.equal(server.requests[2]!.form.get('site'), '5');
      assert.equal(server.requests[3]!.form.get('site'), 'a&b');
      for (const r of server.requests) {
        assert.equal(r.method, 'POST');
        assert.equal(r.form.get('login'), '1');
        assert.equal(r.form.get('password'), PASSWORD);
        assert.ok(!r.url.includes('password') && !r.url.includes('email') && !r.url.includes(API_KEY));
      }
    });

    it('keeps a path prefix of the base URL and drops userinfo, query and fragment', async () => {
      const base = server.url.replace('http://', 'http://someone:pw-in-url@');
      const c = client({ baseUrl: `${base}/app/?x=1#f` });
      assert.equal(c.baseUrl, `${server.url}/app`);
      await c.getSites();
      assert.equal(server.requests[0]!.url, '/app/api/sites');
      assert.equal(server.requests[0]!.headers.authorization, undefined);
    });

    it('rejects an unusable base URL at construction', () => {
      assert.throws(() => new SiteRevisionClient({ baseUrl: 'not a url', credentials: () => CREDS }), TypeError);
      assert.throws(() => new SiteRevisionClient({ baseUrl: 'ftp://host', credentials: () => CREDS }), TypeError);
    });

    it('Save Site sends only defined fields, integers as decimal strings', async () => {
      server.setHandler(ok({ site: 12 }));
      const c = client();
      const r = await c.createSite({ name: 'Mine', server_type: 'SFTP', port: 2222, pasv: 0, ftp_pass: undefined, dir: '' });
      assert.deepEqual(r, { siteId: '12' });
      assert.deepEqual([...server.requests[0]!.form.entries()].slice(3), [
        ['new', '1'],
        ['name', 'Mine'],
        ['server_type', 'SFTP'],
        ['dir', ''],
        ['port', '2222'],
        ['pasv', '0'],
      ]);
      await rejectsWith(c.createSite({ name: 'x', port: 21.5 }), TypeError);
      assert.equal(server.requests.length, 1);
    });

    it('reads the credentials on every call; no credentials → AuthError without a request', async () => {
      let creds: Credentials | undefined = CREDS;
      const c = client({ credentials: () => Promise.resolve(creds) });
      await c.getSites();
      creds = { email: 'other@example.com', password: 'other-pw' };
      await c.getSites();
      assert.equal(server.requests[1]!.form.get('email'), 'other@example.com');
      creds = undefined;
      const e = await rejectsWith(c.getSites(), AuthError);
      assert.match(e.message, /not signed in/);
      assert.equal(server.requests.length, 2);
    });

    it('reuses one keep-alive connection; dispose() closes it and a later call opens a new one', async () => {
      const c = client();
      for (let i = 0; i < 6; i++) await c.getSites();
      // undici may open a second connection while the first is being released; never one per call.
      const before = server.connections();
      assert.ok(before <= 2, `${before} connections for 6 calls`);
      await c.dispose();
      await c.getSites();
      assert.equal(server.connections(), before + 1);
    });

    it('reports one event per attempt, with origin, path and query only', async () => {
      server.setHandler([{ status: 503 }, ok({ files: [] })]);
      await client({}, KEY_CREDS).getRevisionFiles('9');
      assert.equal(events.length, 2);
      assert.deepEqual(
        events.map((e) => [e.operation, e.method, e.url, e.attempt, e.status, e.outcome, e.errorKind]),
        [
          ['Get Revision Files', 'POST', `${server.url}/api/revisions?site=9`, 1, 503, 'retry', 'http'],
          ['Get Revision Files', 'POST', `${server.url}/api/revisions?site=9`, 2, 200, 'ok', undefined],
        ],
      );
      assert.ok(events.every((e) => typeof e.ms === 'number' && e.ms >= 0));
      assert.equal(typeof events[0]!.retryInMs, 'number');
    });

    it('a throwing onEvent does not break the call', async () => {
      const c = client({ onEvent: () => { throw new Error('logger broke'); } });
      assert.deepEqual(await c.getSites(), []);
    });
  });

  describe('reply validation', () => {
    it('normalizes every Site field: numbers, null, missing, booleans, shared variants; drops extras', async () => {
      const full = Object.fromEntries(SITE_STRING_FIELDS.map((f) => [f, `v-${f}`]));
      server.setHandler(ok({
        sites: [
          { ...full, id: 3, shared: true, extra: { nested: 1 } },
          { id: '4', port: 21, pasv: 1, encryption: true, s3_public: false, user: null, shared: '1', timeout: 0 },
          { id: 5, shared: 0 },
          { id: 6, shared: 'false' },
          { id: 7, shared: 'TRUE' },
          { id: 8, shared: null },
        ],
      }));
      const sites = await client().getSites();
      assert.equal(sites.length, 6);
      assert.deepEqual(sites[0], { ...full, id: '3', shared: true });
      const s1 = sites[1]!;
      assert.equal(s1.id, '4');
      assert.equal(s1.port, '21');
      assert.equal(s1.pasv, '1');
      assert.equal(s1.encryption, '1');
      assert.equal(s1.s3_public, '0');
      assert.equal(s1.user, '');
      assert.equal(s1.timeout, '0');
      assert.equal(s1.name, '');
      assert.equal(s1.shared, true);
      assert.deepEqual(Object.keys(s1).sort(), [...SITE_STRING_FIELDS, 'shared'].sort());
      assert.deepEqual(sites.slice(2).map((s) => s.shared), [false, false, true, false]);
    });

    it('one unusable site is left out, named in issues without its password; the rest of the list loads', async () => {
      const c = client();
      server.setHandler(ok({
        sites: [
          { id: 1, name: 'kept' },
          { id: 2, port: { n: 1 } },
          { id: 3, ftp_pass: ['site-secret-1'] },
          {},
          { id: '' },
          { id: null },
          { id: true },
          { id: 8, shared: 'maybe' },
          'x',
          { id: 10, name: 'also kept', stack: { docker: 1 }, status: ['a'], git_url: 5, turbo: true },
        ],
      }));
      const sites = await c.getSites();
      assert.deepEqual(sites.map((s) => s.id), ['1', '10']);
      assert.equal(sites[1]!.stack, '', 'an object in a field the extension does not use is dropped');
      assert.equal(sites[1]!.status, '');
      assert.equal(sites[1]!.git_url, '5');
      assert.equal(sites[1]!.turbo, '1');
      const issues = sites.issues!;
      assert.equal(issues.skipped, 8);
      assert.deepEqual(issues.dropped, ['sites[9].stack', 'sites[9].status']);
      const problems = issues.problems.join('\n');
      for (const field of ['sites\\[1\\]\\.port', 'sites\\[2\\]\\.ftp_pass', 'sites\\[3\\]\\.id', 'sites\\[4\\]\\.id', 'sites\\[5\\]\\.id', 'sites\\[6\\]\\.id', 'sites\\[7\\]\\.shared', 'sites\\[8\\] is text']) {
        assert.match(problems, new RegExp(field));
      }
      assert.ok(!problems.includes('site-secret-1'), 'no site password in the problems');
      assert.deepEqual(Object.keys(sites), ['0', '1'], 'issues is not an enumerable property');
      // The log event of the read carries the same issues.
      assert.deepEqual(events.at(-1)!.issues, issues);
      // A clean list has no issues at all.
      server.setHandler(ok({ sites: [{ id: 1 }] }));
      assert.equal((await c.getSites()).issues, undefined);
      // The list itself must be there.
      server.setHandler(ok({ sites: { 1: {} } }));
      assert.match((await rejectsWith(c.getSites(), InvalidReplyError)).message, /"sites"/);
      server.setHandler(ok());
      assert.match((await rejectsWith(c.getSites(), InvalidReplyError)).message, /"sites"/);
    });

    it('validates files, revisions and a revision; an unusable entry is left out, not the list', async () => {
      const c = client();
      server.setHandler(ok({ files: ['b.txt', 'a/c.php'] }));
      assert.deepEqual(await c.getRevisionFiles('1'), ['b.txt', 'a/c.php']);
      server.setHandler(ok({ files: ['a', 3, { p: 1 }, 'b'] }));
      const files = await c.getRevisionFiles('1');
      assert.deepEqual(files, ['a', 'b']);
      assert.equal(files.issues?.skipped, 2);
      assert.match(files.issues!.problems[0]!, /files\[1\] is a number, expected a path/);

      server.setHandler(ok({
        revisions: [
          { id: 1, date: '2024-01-02 03:04:05', author: 'ann' },
          { id: '2', date: '2024-01-03 00:00:00', content: 'kept even with no_content=1', author: null },
          { id: '3', date: '2024-01-04 00:00:00', content: null, extra: 1 },
        ],
      }));
      assert.deepEqual(await c.getRevisions('1', 'a'), [
        { id: '1', date: '2024-01-02 03:04:05', author: 'ann' },
        { id: '2', date: '2024-01-03 00:00:00', author: '', content: 'kept even with no_content=1' },
        { id: '3', date: '2024-01-04 00:00:00', author: '' },
      ]);
      const good = { id: 7, date: '2024-01-05 00:00:00', author: 'bo' };
      for (const [bad, field] of [
        [{ date: 'd' }, 'revisions\\[0\\]\\.id'],
        [{ id: 1 }, 'revisions\\[0\\]\\.date'],
        [{ id: 1, date: 1704067200 }, 'revisions\\[0\\]\\.date is a number'],
        [{ id: 1, date: 'd', author: {} }, 'revisions\\[0\\]\\.author'],
        ['x', 'revisions\\[0\\] is text'],
      ] as const) {
        server.setHandler(ok({ revisions: [bad, good] }));
        const list = await c.getRevisions('1', 'a');
        assert.deepEqual(list, [{ id: '7', date: good.date, author: 'bo' }], 'the good revision is still listed');
        assert.equal(list.issues?.skipped, 1);
        assert.match(list.issues!.problems[0]!, new RegExp(field));
      }
      // Content that is not text is dropped; the revision stays (its content is fetched when opened).
      server.setHandler(ok({ revisions: [{ ...good, content: 5 }] }));
      const dropped = await c.getRevisions('1', 'a');
      assert.deepEqual(dropped, [{ id: '7', date: good.date, author: 'bo' }]);
      assert.deepEqual(dropped.issues, { skipped: 0, problems: [], dropped: ['revisions[0].content'] });

      server.setHandler(ok({ id: 9, content: '' }));
      assert.deepEqual(await c.getRevision('1', '9'), { id: '9', content: '' });
      server.setHandler(ok({ id: '9' }));
      assert.match((await rejectsWith(c.getRevision('1', '9'), InvalidReplyError)).message, /content/);
    });

    it('reads shaped as the spec shows them (no "success") are accepted; false-like success, or an error without the payload, is the service’s error', async () => {
      const c = client();
      // The four reads exactly as the spec shows them.
      server.setHandler({ body: { sites: [{ id: '1', name: 'spec' }] } });
      assert.deepEqual((await c.getSites()).map((s) => s.name), ['spec']);
      server.setHandler({ body: { files: ['a.php'] } });
      assert.deepEqual(await c.getRevisionFiles('1'), ['a.php']);
      server.setHandler({ body: { revisions: [{ id: '2', date: '2024-01-02 03:04:05', content: 'x', author: 'a' }] } });
      assert.deepEqual(await c.getRevisions('1', 'a.php'), [{ id: '2', date: '2024-01-02 03:04:05', content: 'x', author: 'a' }]);
      server.setHandler({ body: { id: '2', content: 'x' } });
      assert.deepEqual(await c.getRevision('1', '2'), { id: '2', content: 'x' });
      // True-like success values.
      for (const success of [true, 1, '1', 'true', 'TRUE']) {
        server.setHandler({ body: { success, files: ['t'] } });
        assert.deepEqual(await c.getRevisionFiles('1'), ['t'], `success ${JSON.stringify(success)}`);
      }
      // False-like success values: the service's error, for every read, payload or not.
      for (const success of [false, 0, '0', 'false', 'False']) {
        server.setHandler({ body: { success, error: 'Site not found', files: [] } });
        assert.equal((await rejectsWith(c.getRevisionFiles('1'), ServiceError)).serviceMessage, 'Site not found', `success ${JSON.stringify(success)}`);
        server.setHandler({ body: { success, error: 'Login required' } });
        await rejectsWith(c.getSites(), AuthError);
      }
      // No success, an error and no payload: the service's error.
      server.setHandler({ body: { error: 'Revision not found' } });
      assert.equal((await rejectsWith(c.getRevision('1', '2'), ServiceError)).serviceMessage, 'Revision not found');
      server.setHandler({ body: { error: 'Invalid API key' } });
      await rejectsWith(c.getRevisions('1', 'a'), AuthError);
      // No success and no payload: unexpected, naming what is missing.
      server.setHandler({ body: {} });
      assert.match((await rejectsWith(c.getSites(), InvalidReplyError)).message, /no "sites" list/);
      server.setHandler({ body: { id: '2' } });
      assert.match((await rejectsWith(c.getRevision('1', '2'), InvalidReplyError)).message, /no "content"/);
      // Neither true- nor false-like: unexpected.
      for (const success of ['yes', null, 2, {}]) {
        server.setHandler({ body: { success, sites: [] } });
        assert.match((await rejectsWith(c.getSites(), InvalidReplyError)).message, /"success" is/, `success ${JSON.stringify(success)}`);
      }
      assert.equal(server.requests.filter((r) => r.url.includes('cmd=')).length, 0);
    });

    it('writes (Save Site, Delete Site) need a true-like success: without one, or with a false-like one, they are refused', async () => {
      const c = client();
      for (const success of [true, 1, '1', 'true']) {
        server.setHandler({ body: { success, site: 5 } });
        assert.deepEqual(await c.createSite({ name: 'a' }), { siteId: '5' }, `success ${JSON.stringify(success)}`);
        assert.equal(await c.deleteSite('5'), undefined);
      }
      // Shaped like a read reply (no success): nothing says the change was made.
      for (const body of [{ site: 5 }, {}, { sites: [] }]) {
        server.setHandler({ body });
        assert.match((await rejectsWith(c.createSite({ name: 'a' }), InvalidReplyError)).message, /no "success"/);
        assert.match((await rejectsWith(c.updateSite('5', { name: 'a' }), InvalidReplyError)).message, /no "success"/);
        assert.match((await rejectsWith(c.deleteSite('5'), InvalidReplyError)).message, /no "success"/);
      }
      for (const success of [false, 0, '0', 'false']) {
        server.setHandler({ body: { success, error: 'Permission denied' } });
        assert.equal((await rejectsWith(c.updateSite('5', { name: 'a' }), ServiceError)).serviceMessage, 'Permission denied');
        assert.equal((await rejectsWith(c.deleteSite('5'), ServiceError)).serviceMessage, 'Permission denied');
      }
      server.setHandler({ body: { error: 'Permission denied' } });
      await rejectsWith(c.deleteSite('5'), InvalidReplyError);
    });

    it('Save Site: site as int or string; absent → the given id on update, empty on create', async () => {
      const c = client();
      server.setHandler(ok({ site: 41 }));
      assert.deepEqual(await c.createSite({ name: 'a' }), { siteId: '41' });
      server.setHandler(ok({ site: '42' }));
      assert.deepEqual(await c.updateSite('42', { name: 'a' }), { siteId: '42' });
      server.setHandler(ok());
      assert.deepEqual(await c.updateSite('43', { name: 'a' }), { siteId: '43' });
      assert.deepEqual(await c.createSite({ name: 'a' }), { siteId: '' });
      server.setHandler(ok({ site: { id: 1 } }));
      await rejectsWith(c.createSite({ name: 'a' }), InvalidReplyError);
      server.setHandler(ok({ site: 44 }));
      assert.equal(await c.deleteSite('44'), undefined);
    });

    it('not JSON, empty, cut off, wrong shape, no payload or odd success → InvalidReplyError with a short clean excerpt', async () => {
      const c = client();
      const html = `<html>\n<head><title>Bad\tGateway</title></head>\u0000<body>${'x'.repeat(500)}</body></html>`;
      const cases: [RawResponse, RegExp][] = [
        [{ body: html, headers: { 'content-type': 'text/html' } }, /not JSON but text\/html/],
        [{ body: '' }, /empty reply/],
        [{ body: '   \n' }, /empty reply/],
        [{ body: '{"success": true, "sites": [{"id": 1' }, /not valid JSON/],
        [{ body: '[1,2]' }, /expected a JSON object/],
        [{ body: '"ok"' }, /expected a JSON object/],
        [{ body: { files: [] } }, /no "sites" list/],
        [{ body: { success: 'yes', sites: [] } }, /"success" is text/],
        [{ body: { success: 2, sites: [] } }, /"success" is a number/],
      ];
      for (const [reply, re] of cases) {
        server.setHandler(reply);
        const e = await rejectsWith(c.getSites(), InvalidReplyError);
        assert.match(e.message, re);
        assert.ok(e.excerpt.length <= 121, `excerpt too long: ${e.excerpt.length}`);
        assert.ok(!/[\u0000-\u001f]/.test(e.message), 'control character in message');
      }
      server.setHandler({ body: html, headers: { 'content-type': 'text/html' } });
      const e = await rejectsWith(c.getSites(), InvalidReplyError);
      assert.ok(e.excerpt.startsWith('<html> <head><title>Bad Gateway</title></head> <body>'), e.excerpt);
    });
  });

  describe('errors', () => {
    it('success:false → ServiceError with the message; auth-like messages → AuthError', async () => {
      const c = client();
      server.setHandler({ body: { success: false, error: 'Site not found' } });
      const se = await rejectsWith(c.getRevisionFiles('1'), ServiceError);
      assert.equal(se.serviceMessage, 'Site not found');
      assert.match(se.message, /Get Revision Files: the service said: Site not found/);
      for (const msg of ['Invalid email or password', 'Not logged in', 'Login failed', 'login required', 'Unauthorized', 'API key required', 'invalid API key']) {
        server.setHandler({ body: { success: false, error: msg } });
        const e = await rejectsWith(c.getSites(), AuthError);
        assert.equal(e.serviceMessage, msg);
      }
      server.setHandler({ body: { success: false } });
      assert.match((await rejectsWith(c.getSites(), ServiceError)).message, /no reason given/);
      assert.equal(server.requests.length, 9, 'success:false is never retried');
    });

    it('a password field spelled with JSON escapes ("ftp\\u005fpass") stays out of the excerpt of a 2xx or non-2xx body; the rest shows', async () => {
      const c = client({ retries: 0 });
      // Raw JSON text: the escapes are what the service sent.
      const body = (extra: string) => `{${extra}"ftp\\u005fpass":"hunter2-secret","site":{"db\\u005Fpassword":"s3cr3t-db","n\\u0061me":"Acme"},"api\\u005fkey":"k-123456"}`;
      const write = () => rejectsWith(c.createSite({ name: 'a' }), InvalidReplyError);
      const read = () => rejectsWith(c.getSites(), HttpStatusError);
      const cases: [RawResponse, () => Promise<Error>][] = [
        [{ body: body('"success":"maybe",'), headers: { 'content-type': 'application/json' } }, write],
        [{ body: body(''), headers: { 'content-type': 'application/json' } }, write],
        [{ status: 500, body: body(''), headers: { 'content-type': 'application/json' } }, read],
        // Not JSON (cut off): the raw text, read with its escapes decoded.
        [{ status: 502, body: body('').slice(0, -12), headers: { 'content-type': 'application/json' } }, read],
      ];
      for (const [reply, call] of cases) {
        server.setHandler(reply);
        const e = await call();
        for (const secret of ['hunter2-secret', 's3cr3t-db', 'k-123456']) {
          assert.ok(!e.message.includes(secret), `${secret} in ${JSON.stringify(e.message)}`);
        }
        assert.match(e.message, /Acme/, "the other fields show");
      }
    });

    it('another site’s password in a PHP dump (print_r, var_dump, field/value) stays out of the error: HTML 500 page, the service’s own words, a 2xx that is not JSON', async () => {
      const c = client({ retries: 0 });
      const pw = 'Cl1ent-Pr0d-Pw';
      const cases: [RawResponse, () => Promise<Error>][] = [
        [{ status: 500, body: `<html><body><pre>Array\n(\n    [name] => Client Production\n    [ftp_pass] => ${pw}\n)\n</pre></body></html>`, headers: { 'content-type': 'text/html' } }, () => rejectsWith(c.getSites(), HttpStatusError)],
        [{ body: { success: false, error: `Could not save: array(1) {\n  ["db_password"]=>\n  string(14) "${pw}"\n} for Client Production` } }, () => rejectsWith(c.getSites(), ServiceError)],
        [{ body: { success: false, error: `Invalid value for Client Production: {"field":"ftp_pass","value":"${pw}"}` } }, () => rejectsWith(c.getSites(), ServiceError)],
        [{ status: 500, body: { success: false, error: `Array ( [name] => Client Production [db_password] => ${pw} )` } }, () => rejectsWith(c.getSites(), HttpStatusError)],
        [{ body: `Warning: Array ( [name] => Client Production [ftp_pass] => ${pw} ) {"sites":[]}`, headers: { 'content-type': 'text/html' } }, () => rejectsWith(c.getSites(), InvalidReplyError)],
      ];
      for (const [reply, call] of cases) {
        server.setHandler(reply);
        const e = await call();
        assert.ok(!e.message.includes(pw) && !e.message.includes(pw.slice(0, 6)), JSON.stringify(e.message));
        assert.match(e.message, /Client Production/, 'the rest shows');
      }
    });

    it('HTTP 401 (any body) → AuthError', async () => {
      const c = client();
      server.setHandler({ status: 401, body: 'nope', headers: { 'content-type': 'text/plain' } });
      await rejectsWith(c.getSites(), AuthError);
      server.setHandler({ status: 401, body: { success: false, error: 'Invalid API key' } });
      assert.equal((await rejectsWith(c.getSites(), AuthError)).serviceMessage, 'Invalid API key');
      assert.equal(server.requests.length, 2);
    });

    it('other non-2xx → HttpStatusError with status, excerpt and Retry-After (seconds or HTTP date)', async () => {
      const c = client({ retries: 0 });
      server.setHandler({ status: 500, body: 'Internal <b>error</b>\n', headers: { 'content-type': 'text/html' } });
      let e = await rejectsWith(c.getSites(), HttpStatusError);
      assert.equal(e.status, 500);
      assert.equal(e.retryable, false);
      assert.equal(e.excerpt, 'Internal <b>error</b>');
      server.setHandler({ status: 403, body: { success: false, error: 'Forbidden for this site' } });
      e = await rejectsWith(c.getSites(), HttpStatusError);
      assert.match(e.message, /HTTP 403: Forbidden for this site/);
      server.setHandler({ status: 429, headers: { 'retry-after': '7' } });
      e = await rejectsWith(c.getSites(), HttpStatusError);
      assert.equal(e.retryAfterMs, 7000);
      assert.equal(e.retryable, true);
      server.setHandler({ status: 503, headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } });
      e = await rejectsWith(c.getSites(), HttpStatusError);
      assert.ok(e.retryAfterMs! > 55_000 && e.retryAfterMs! <= 60_000, String(e.retryAfterMs));
      server.setHandler({ status: 204 });
      await rejectsWith(c.getSites(), InvalidReplyError);
    });

    it('any 3xx → RedirectError showing origin and path only; nothing is followed', async () => {
      const c = client();
      server.setHandler({ status: 302, headers: { location: `https://elsewhere.example/login/${encodeURIComponent(PASSWORD)}?token=abc123&next=1#frag` } });
      let e = await rejectsWith(c.getSites(), RedirectError);
      assert.equal(e.status, 302);
      assert.match(e.message, /HTTP 302\) to https:\/\/elsewhere\.example\/login\//);
      assert.ok(!e.message.includes('token') && !e.message.includes('abc123') && !e.message.includes('frag'));
      server.setHandler({ status: 307, headers: { location: '/api/sites?again=1' } });
      e = await rejectsWith(c.getSites(), RedirectError);
      assert.equal(e.location, `${server.url}/api/sites`);
      server.setHandler({ status: 301 });
      e = await rejectsWith(c.createSite({ name: 'x' }), RedirectError);
      assert.match(e.message, /no location/);
      assert.equal(server.requests.length, 3, 'no redirect was followed, none retried');
    });

    it('reply too large → InvalidReplyError "reply too large" (declared length and streamed)', async () => {
      const c = client({ maxResponseBytes: 100_000 });
      server.setHandler(ok({ sites: [], pad: 'x'.repeat(200_000) }));
      let e = await rejectsWith(c.getSites(), InvalidReplyError);
      assert.equal(e.problem, 'reply too large');
      server.setHandler({ streamBytes: 5_000_000 });
      e = await rejectsWith(c.getSites(), InvalidReplyError);
      assert.equal(e.problem, 'reply too large');
      assert.match(e.message, /more than 98 KiB/);
      server.setHandler(ok({ sites: [] }));
      assert.deepEqual(await c.getSites(), [], 'the client still works afterwards');
    });

    it('slow headers or a slow body → TimeoutError; a per-call timeout overrides the default', async () => {
      // The server answers, later: a TimeoutError means the client gave up first.
      const c = client({ timeoutMs: 150, retries: 0 });
      server.setHandler({ ...ok({ sites: [] }), delayMs: 600 });
      const e = await rejectsWith(c.getSites(), TimeoutError);
      assert.equal(e.timeoutMs, 150);
      assert.match(e.message, /within 150 ms/);
      server.setHandler({ ...ok({ sites: [] }), bodyDelayMs: 600 });
      await rejectsWith(c.getSites(), TimeoutError);
      server.setHandler({ ...ok({ sites: [] }), delayMs: 300 });
      assert.deepEqual(await c.getSites({ timeoutMs: 2000 }), []);
      await rejectsWith(c.getSites({ timeoutMs: 50 }), TimeoutError);
    });

    it('timeouts are not retried (the call has one time-out)', async () => {
      const c = client({ timeoutMs: 100, retries: 2 });
      server.setHandler({ ...ok({ sites: [] }), delayMs: 400 });
      await rejectsWith(c.getSites(), TimeoutError);
      assert.equal(server.requests.length, 1);
    });

    it('abort mid-request → CancelledError (not TimeoutError), at once', async () => {
      const c = client({ timeoutMs: 60_000 });
      const ac = new AbortController();
      // Aborted once the request has arrived; the answer would come long after (and succeed).
      server.setHandler(() => {
        ac.abort();
        return { ...ok({ sites: [] }), delayMs: 30_000 };
      });
      await rejectsWith(c.getSites({ signal: ac.signal }), CancelledError);
      await rejectsWith(c.getSites({ signal: ac.signal }), CancelledError);
      assert.equal(server.requests.length, 1, 'an already aborted signal sends nothing');
    });

    it('abort while reading the body or waiting to retry → CancelledError', async () => {
      let ac = new AbortController();
      const c = client({ retries: 3, retryBaseDelayMs: 20_000, timeoutMs: 120_000, onEvent: (e) => {
        events.push(e);
        if (e.outcome === 'retry') ac.abort(); // while waiting for the retry
      } });
      // The headers come at once, the body 30 s later: the abort lands while it is read.
      server.setHandler(() => {
        setTimeout(() => ac.abort(), 100);
        return { ...ok({ sites: [] }), bodyDelayMs: 30_000 };
      });
      await rejectsWith(c.getSites({ signal: ac.signal }), CancelledError);
      server.setHandler({ status: 503 });
      ac = new AbortController();
      await rejectsWith(c.getSites({ signal: ac.signal }), CancelledError);
      assert.equal(events.filter((e) => e.outcome === 'retry').length, 1, 'it was waiting to retry');
      assert.equal(server.requests.length, 2);
    });

    it('connection refused → NetworkError ECONNREFUSED with a next step', async () => {
      const dead = await startRawServer({});
      const url = dead.url;
      await dead.close();
      const e = await rejectsWith(client({ baseUrl: url, retries: 0 }).getSites(), NetworkError);
      assert.equal(e.code, 'ECONNREFUSED');
      assert.match(e.message, /could not connect to http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): check the service URL/);
    });

    it('connection dropped → NetworkError, retried for reads, not for writes', async () => {
      server.setHandler({ destroy: true });
      const c = client({ retries: 2 });
      const e = await rejectsWith(c.getSites(), NetworkError);
      assert.ok(e.retryable, `code ${e.code}`);
      assert.match(e.message, /closed unexpectedly/);
      assert.equal(server.requests.length, 3);
      await rejectsWith(c.deleteSite('1'), NetworkError);
      assert.equal(server.requests.length, 4);
    });

    it('reads retry on 429/502/503/504 then succeed; writes never retry', async () => {
      const c = client({ retries: 3 });
      server.setHandler([{ status: 429 }, { status: 502 }, { status: 504 }, ok({ sites: [] })]);
      assert.deepEqual(await c.getSites(), []);
      assert.equal(server.requests.length, 4);
      server.setHandler({ status: 503 });
      await rejectsWith(c.updateSite('1', { name: 'x' }), HttpStatusError);
      assert.equal(server.requests.length, 5);
      server.setHandler({ status: 500 });
      await rejectsWith(c.getSites(), HttpStatusError);
      assert.equal(server.requests.length, 6, '500 is not retried');
    });

    it('Retry-After is honored between attempts', async () => {
      const c = client({ retries: 1, retryBaseDelayMs: 1 });
      server.setHandler([{ status: 503, headers: { 'retry-after': '1' } }, ok({ sites: [] })]);
      await c.getSites();
      assert.deepEqual(events.map((e) => [e.outcome, e.retryInMs]), [['retry', 1000], ['ok', undefined]]);
      assert.equal(server.requests.length, 2);
    });

    it('after a wait, the next attempt has only what is left of the call’s time-out; the error names the whole time-out', async () => {
      // 3 s in all: the retry after 1 s has at most 2 s, and its answer takes 2.5 s.
      const c = client({ retries: 1, timeoutMs: 3000 });
      server.setHandler([{ status: 503, headers: { 'retry-after': '1' } }, { ...ok({ sites: [] }), delayMs: 2500 }]);
      const e = await rejectsWith(c.getSites(), TimeoutError);
      assert.equal(e.timeoutMs, 3000);
      assert.match(e.message, /within 3 s/);
      assert.equal(server.requests.length, 2);
    });

    it('a wait that would outlast the time-out is not made (Retry-After or backoff): the call ends with the last answer', async () => {
      const c = client({ retries: 3, timeoutMs: 2000, retryBaseDelayMs: 1 });
      server.setHandler({ status: 429, headers: { 'retry-after': '5' } });
      const e = await rejectsWith(c.getSites(), HttpStatusError);
      assert.equal(e.status, 429);
      assert.deepEqual(events.map((x) => x.outcome), ['error']);
      const slow = client({ retries: 3, timeoutMs: 2000, retryBaseDelayMs: 10_000 });
      server.setHandler({ status: 502 });
      await rejectsWith(slow.getSites(), HttpStatusError);
      assert.equal(server.requests.length, 2, 'one attempt each');
    });
  });

  describe('transport security', () => {
    it('refuses credentials over plain http to a non-loopback host before connecting', async () => {
      let dispatched = 0;
      let credentialsRead = 0;
      const spy = { dispatch: () => { dispatched++; return false; } };
      for (const baseUrl of ['http://example.com', 'http://10.1.2.3:8787/app', 'http://[2001:db8::1]', 'http://localhost.example.com']) {
        const c = client({ baseUrl, dispatcher: spy, credentials: () => { credentialsRead++; return CREDS; } });
        const e = await rejectsWith(c.getSites(), InsecureTransportError);
        assert.match(e.message, /refusing to send credentials over plain http/);
        await rejectsWith(c.createSite({ name: 'x' }), InsecureTransportError);
      }
      assert.equal(dispatched, 0);
      assert.equal(credentialsRead, 0);
      assert.deepEqual(events[0], {
        operation: 'Get Sites', method: 'POST', url: 'http://example.com/api/sites', attempt: 0, ms: 0, outcome: 'error',
        errorKind: 'insecure', error: events[0]!.error,
      });
      assert.match(events[0]!.error!, /refusing to send credentials/);
    });

    it('refuses plain http to this machine\'s non-loopback address with zero connections', async function () {
      const lan = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
      if (!lan) this.skip();
      const open = await startRawServer(ok({ sites: [] }), { host: '0.0.0.0' });
      try {
        await rejectsWith(client({ baseUrl: `http://${lan!.address}:${open.port}` }).getSites(), InsecureTransportError);
        assert.equal(open.connections(), 0);
      } finally {
        await open.close();
      }
    });

    it('allows plain http to localhost, 127.0.0.0/8 and ::1', async () => {
      await client({ baseUrl: `http://localhost:${server.port}` }).getSites();
      await client({ baseUrl: `http://127.0.0.1:${server.port}` }).getSites();
      assert.equal(server.requests.length, 2);
      const v6 = await startRawServer(ok({ sites: [] }), { host: '::1' }).catch(() => undefined);
      if (v6) {
        try {
          await client({ baseUrl: v6.url }).getSites();
          assert.equal(v6.requests.length, 1);
        } finally {
          await v6.close();
        }
      }
    });

    it('an untrusted certificate → NetworkError with the code and a next step; `ca` or rejectUnauthorized:false fixes it', async () => {
      const tlsServer = await startRawServer(ok({ sites: [] }), { tls: { cert: TEST_CERT, key: TEST_KEY } });
      try {
        const e = await rejectsWith(client({ baseUrl: tlsServer.url }).getSites(), NetworkError);
        assert.equal(e.code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
        assert.ok(e.isCertificateError);
        assert.equal(e.retryable, false);
        assert.match(e.message, /certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\): set siteRevisions\.caFile/);
        assert.deepEqual(await client({ baseUrl: tlsServer.url, ca: TEST_CERT }).getSites(), []);
        assert.deepEqual(await client({ baseUrl: tlsServer.url.replace('127.0.0.1', 'localhost'), ca: TEST_CERT }).getSites(), []);
        assert.deepEqual(await client({ baseUrl: tlsServer.url, rejectUnauthorized: false }).getSites(), []);
      } finally {
        await tlsServer.close();
      }
    });

    it('an expired certificate → NetworkError CERT_HAS_EXPIRED', async () => {
      const tlsServer = await startRawServer(ok({ sites: [] }), { tls: { cert: EXPIRED_CERT, key: EXPIRED_KEY } });
      try {
        const e = await rejectsWith(client({ baseUrl: tlsServer.url, ca: EXPIRED_CERT }).getSites(), NetworkError);
        assert.equal(e.code, 'CERT_HAS_EXPIRED');
        assert.match(e.message, /check this computer's date/);
      } finally {
        await tlsServer.close();
      }
    });

    it('an https URL to a plain http server → NetworkError about the TLS handshake', async () => {
      const e = await rejectsWith(client({ baseUrl: server.url.replace('http:', 'https:'), retries: 0 }).getSites(), NetworkError);
      assert.ok(e.code, 'has a code');
    });
  });

  describe('secrets', () => {
    it('a site password sent with Save Site is hidden wherever the service quotes it back: its error text, an error page, the events', async () => {
      const ftp = 'Typed-Ftp-Pa55-7c1e';
      const db = 'Db#Typed 9x!';
      const c = client({ retries: 0 });
      const quoted = `Login to ftp.example.com as deploy with ${ftp} failed; the database refused ${db} (${encodeURIComponent(ftp)})`;
      const replies: RawResponse[] = [
        { body: { success: false, error: quoted } },
        { status: 500, headers: { 'content-type': 'text/html' }, body: `<h1>Error</h1><p>${quoted}</p>` },
        { status: 400, body: { success: false, message: quoted } },
      ];
      const errors: unknown[] = [];
      for (const reply of replies) {
        server.setHandler(reply);
        errors.push(await c.updateSite('7', { name: 'Shop', ftp_pass: ftp, db_password: db }).catch((e: unknown) => e));
        errors.push(await c.createSite({ name: 'Shop', ftp_pass: ftp, db_password: db }).catch((e: unknown) => e));
      }
      assert.equal(errors.length, 6);
      for (const e of errors) assert.match(String((e as Error).message), /Login to ftp\.example\.com as deploy with \*\*\* failed/);
      assertNoSecrets(errors, [ftp, db]);
      assertNoSecrets(events, [ftp, db]);
      assert.equal(events.length, 6);
    });

    it('no error of any kind, and no event, contains the password or the API key', async () => {
      const errors: unknown[] = [];
      const c = client({ retries: 0, timeoutMs: 200, maxResponseBytes: 10_000 }, KEY_CREDS);
      // Replies that echo the request back, in every way an error could carry them.
      const echo = (req: { body: string; headers: Record<string, unknown> }) => `${req.body} ${String(req.headers.authorization)} ${decodeURIComponent(req.body)}`;
      const replies: ((req: { body: string; headers: Record<string, unknown> }) => RawResponse)[] = [
        (r) => ({ status: 401, body: { success: false, error: echo(r) } }),
        (r) => ({ body: { success: false, error: `Invalid password ${PASSWORD} for key ${API_KEY}` + echo(r) } }),
        (r) => ({ body: { success: false, error: `cannot do it: ${echo(r)}` } }),
        (r) => ({ status: 500, body: echo(r), headers: { 'content-type': 'text/plain' } }),
        (r) => ({ status: 503, body: { success: false, error: echo(r) } }),
        (r) => ({ body: `<html>${echo(r)}</html>`, headers: { 'content-type': 'text/html' } }),
        (r) => ({ body: { success: API_KEY + echo(r) } }),
        (r) => ({ status: 302, headers: { location: `https://x.example/${encodeURIComponent(PASSWORD)}/${API_KEY}?p=${encodeURIComponent(echo(r))}` } }),
        () => ({ body: { success: true, pad: 'x'.repeat(20_000) } }),
        () => ({ destroy: true }),
        () => ({ ...ok({ sites: [] }), delayMs: 400 }),
      ];
      for (const reply of replies) {
        server.setHandler((req) => reply(req));
        errors.push(await c.getSites().then(() => assert.fail('expected a failure'), (e: unknown) => e));
      }
      const ac = new AbortController();
      server.setHandler({ ...ok({ sites: [] }), delayMs: 300 });
      setTimeout(() => ac.abort(), 30);
      errors.push(await c.getSites({ signal: ac.signal }).catch((e: unknown) => e));
      errors.push(await client({ baseUrl: 'http://example.com' }, KEY_CREDS).getSites().catch((e: unknown) => e));
      const dead = await startRawServer({});
      await dead.close();
      errors.push(await client({ baseUrl: dead.url, retries: 0 }, KEY_CREDS).getSites().catch((e: unknown) => e));

      // Unusable sites that echo the secrets are left out: what is said about them is clean too.
      const lists: unknown[] = [];
      for (const reply of [
        (r: { body: string; headers: Record<string, unknown> }): RawResponse => ({ body: { success: true, sites: [{ id: { password: PASSWORD, key: API_KEY } }] }, headers: { 'x-echo': 'y' + r.body.length } }),
        (r: { body: string; headers: Record<string, unknown> }): RawResponse => ({ body: { success: true, sites: [{ id: 1, name: [echo(r)] }, { id: 2, stack: [echo(r)] }] } }),
      ]) {
        server.setHandler((req) => reply(req));
        const list = await c.getSites();
        assert.ok(list.issues && list.issues.skipped === 1, 'the unusable site is left out');
        lists.push(list.issues);
      }
      assertNoSecrets(lists, SECRETS);

      const kinds = new Set(errors.map((e) => (e as ApiError).kind));
      assert.deepEqual([...kinds].sort(), ['auth', 'cancelled', 'http', 'insecure', 'invalid-reply', 'network', 'redirect', 'service', 'timeout']);
      assert.ok(errors.every((e) => e instanceof ApiError));
      assertNoSecrets(errors, SECRETS);
      assertNoSecrets(events, SECRETS);
      assertNoSecrets([JSON.stringify(events)], SECRETS);
    });
  });

  describe('loading', () => {
    it('undici is not loaded by importing the client module or constructing a client, only by the first request: its Agent and request, not its index (which would set the global dispatcher of every extension in the host)', () => {
      const api = path.resolve(__dirname, '../../src/core/api/index.js');
      const script = `
        const http = require('node:http');
        const api = require(${JSON.stringify(api)});
        const loaded = () => Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]undici[\\\\/]/.test(k));
        const c = new api.SiteRevisionClient({ baseUrl: 'http://127.0.0.1:1', credentials: () => ({ email: 'a@b.c', password: 'p' }) });
        const before = loaded();
        const srv = http.createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"success":true,"sites":[]}'); });
        srv.listen(0, '127.0.0.1', async () => {
          const c2 = new api.SiteRevisionClient({ baseUrl: 'http://127.0.0.1:' + srv.address().port, credentials: () => ({ email: 'a@b.c', password: 'p' }) });
          const sites = await c2.getSites();
          const after = loaded();
          const index = Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]undici[\\\\/]index\\.js$/.test(k));
          const globalDispatcher = globalThis[Symbol.for('undici.globalDispatcher.1')] !== undefined || globalThis[Symbol.for('undici.globalDispatcher.2')] !== undefined;
          await c2.dispose(); await c.dispose(); srv.close();
          console.log(JSON.stringify({ before, after, index, globalDispatcher, sites }));
        });`;
      const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 15_000 });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim()), { before: false, after: true, index: false, globalDispatcher: false, sites: [] });
    });

    it('the parts of undici the client loads (src/core/api/undiciParts.ts, four of its files) are what its index exports: an update that moves them fails here', async () => {
      const parts = await loadUndici();
      const undici = ((m) => m.default ?? m)((await import('undici')) as typeof import('undici') & { default?: typeof import('undici') });
      assert.equal(parts.Agent, undici.Agent);
      assert.equal(parts.ProxyAgent, undici.ProxyAgent);
      const agent = new parts.Agent();
      try {
        assert.equal(typeof agent.request, 'function');
        assert.equal(agent.request, undici.Dispatcher.prototype.request);
      } finally {
        await agent.close();
      }
    });
  });
});

// The service client against the local service (test/server): every operation, authentication,
// each error kind the service can produce, retries of reads and no retries of writes.
import * as assert from 'node:assert/strict';
import {
  ApiError,
  AuthError,
  CancelledError,
  HttpStatusError,
  InvalidReplyError,
  NetworkError,
  SAVE_SITE_FIELDS,
  ServiceError,
  SiteRevisionClient,
  SITE_STRING_FIELDS,
  TimeoutError,
  type ClientOptions,
  type Credentials,
  type RequestEvent,
  type SiteFields,
} from '../../src/core/api';
import { DEMO, startService, type RunningService } from '../server';
import { assertNoSecrets, rejectsWith } from './helpers/rawServer';

const SECRETS = [DEMO.keyUser.password, DEMO.keyUser.apiKey, DEMO.team.password];

describe('SiteRevisionClient (local service)', function () {
  let service: RunningService;
  const clients: SiteRevisionClient[] = [];
  const events: RequestEvent[] = [];
  const errors: unknown[] = [];

  function client(creds: Credentials | undefined = DEMO.user, opts: Partial<ClientOptions> = {}): SiteRevisionClient {
    const c = new SiteRevisionClient({
      baseUrl: service.url,
      credentials: () => creds,
      timeoutMs: 3000,
      retries: 3,
      retryBaseDelayMs: 5,
      onEvent: (e) => events.push(e),
      ...opts,
    });
    clients.push(c);
    return c;
  }
  /** Expects a rejection of class `cls` and keeps the error for the secrets check. */
  async function fails<T extends Error>(p: Promise<unknown>, cls: abstract new (...args: never[]) => T): Promise<T> {
    const e = await rejectsWith(p, cls);
    errors.push(e);
    return e;
  }

  before(async () => {
    service = await startService({ quiet: true });
  });
  after(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await service.close();
  });
  beforeEach(() => {
    service.configure({ latencyMs: 0, faultRate: 0, failNext: [] });
    service.resetStats();
  });

  describe('operations', () => {
    it('Get Sites returns typed sites with every field; a site shared with the user is marked shared', async () => {
      const sites = await client().getSites();
      assert.ok(sites.length >= 2);
      for (const s of sites) {
        assert.deepEqual(Object.keys(s).sort(), [...SITE_STRING_FIELDS, 'shared'].sort());
        for (const f of SITE_STRING_FIELDS) assert.equal(typeof s[f], 'string', f);
        assert.equal(typeof s.shared, 'boolean');
        assert.ok(s.id !== '');
      }
      assert.ok(sites.some((s) => s.shared) && sites.some((s) => !s.shared));
      const [rec] = service.requests();
      assert.equal(rec!.method, 'POST');
      assert.equal(rec!.url, '/api/sites');
      assert.deepEqual([...rec!.bodyFields].sort(), ['email', 'login', 'password']);
      assert.equal(rec!.authorization, false);
    });

    it('create with every Save Site field, then read every field back', async () => {
      const c = client();
      const fields: Required<Omit<SiteFields, 'upload_on_save'>> = {
        name: 'Round trip ü & = + ?',
        server_type: 'SFTP',
        domain: 'sftp.example.org',
        logon_type: 'key',
        ftp_user: 'deploy',
        ftp_pass: 'p&ss=word+ü',
        dir: '/var/www/html',
        port: 2222,
        pasv: 0,
        encryption: 1,
        s3_public: 1,
        check_out: 1,
        encoding: 'ISO-8859-1',
        web_url: 'https://example.org/a?b=c&d=e',
        db_username: 'dbuser',
        db_password: 'db&pass=1',
        db_phpmyadmin: 'https://example.org/pma/',
      };
      assert.deepEqual(Object.keys(fields).sort(), [...SAVE_SITE_FIELDS].sort(), 'the test covers every field');
      const { siteId } = await c.createSite(fields);
      assert.match(siteId, /^\d+$/);
      const site = (await c.getSites()).find((s) => s.id === siteId);
      assert.ok(site, 'created site is listed');
      for (const f of SAVE_SITE_FIELDS) assert.equal(site[f], String(fields[f]), f);
      assert.equal(site.shared, false);
      const rec = service.requests().find((r) => r.operation === 'saveSite')!;
      assert.equal(rec.url, '/api/sites?cmd=save');
      assert.ok(rec.bodyFields.includes('new') && !rec.bodyFields.includes('site'));
    });

    it('update sends only the given fields and keeps the others (passwords stay unless edited)', async () => {
      const c = client();
      const { siteId } = await c.createSite({ name: 'Before', server_type: 'FTP', ftp_user: 'u', ftp_pass: 'keep-me', db_password: 'keep-db', port: 21 });
      const r = await c.updateSite(siteId, { name: 'After', port: 2121, pasv: 1 });
      assert.deepEqual(r, { siteId });
      const rec = service.requests().filter((x) => x.operation === 'saveSite').pop()!;
      assert.deepEqual([...rec.bodyFields].sort(), ['email', 'login', 'name', 'pasv', 'password', 'port', 'site'].sort());
      const site = (await c.getSites()).find((s) => s.id === siteId)!;
      assert.equal(site.name, 'After');
      assert.equal(site.port, '2121');
      assert.equal(site.pasv, '1');
      assert.equal(site.ftp_pass, 'keep-me');
      assert.equal(site.db_password, 'keep-db');
      assert.equal(site.ftp_user, 'u');
    });

    it('invalid fields and unknown sites → ServiceError with the service message', async () => {
      const c = client();
      let e = await fails(c.createSite({ name: '   ' }), ServiceError);
      assert.match(e.serviceMessage, /name/);
      e = await fails(c.updateSite('999999', { name: 'x' }), ServiceError);
      assert.equal(e.serviceMessage, 'Site not found');
      e = await fails(c.createSite({ name: 'x', server_type: 'Gopher' as never }), ServiceError);
      assert.match(e.serviceMessage, /server_type/);
    });

    it('delete removes the site; deleting again → ServiceError', async () => {
      const c = client();
      const { siteId } = await c.createSite({ name: 'Doomed' });
      await c.deleteSite(siteId);
      assert.ok(!(await c.getSites()).some((s) => s.id === siteId));
      const rec = service.requests().find((r) => r.operation === 'deleteSite')!;
      assert.equal(rec.url, '/api/sites?cmd=delete');
      assert.ok(rec.bodyFields.includes('site'));
      const e = await fails(c.deleteSite(siteId), ServiceError);
      assert.equal(e.serviceMessage, 'Site not found');
    });

    it('a shared site cannot be deleted by the user it is shared with', async () => {
      const c = client();
      const shared = (await c.getSites()).find((s) => s.shared)!;
      await fails(c.deleteSite(shared.id), ServiceError);
    });

    it('files, revisions with and without content, and one revision', async () => {
      const c = client();
      const site = (await c.getSites()).find((s) => !s.shared)!;
      const files = await c.getRevisionFiles(site.id);
      assert.ok(files.length > 0 && files.every((f) => typeof f === 'string' && f !== ''));
      const file = files[0]!;
      const summaries = await c.getRevisions(site.id, file);
      assert.ok(summaries.length > 0);
      for (const r of summaries) {
        assert.match(r.date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        assert.equal(typeof r.author, 'string');
        assert.equal(r.content, undefined);
      }
      const full = await c.getRevisions(site.id, file, { withContent: true });
      assert.deepEqual(full.map((r) => r.id), summaries.map((r) => r.id));
      assert.ok(full.every((r) => typeof r.content === 'string'));
      const last = full[full.length - 1]!;
      assert.deepEqual(await c.getRevision(site.id, last.id), { id: last.id, content: last.content });
      const urls = service.requests().map((r) => r.url);
      assert.ok(urls.includes(`/api/revisions?site=${site.id}`));
      assert.ok(urls.includes(`/api/revisions?site=${site.id}&file=${encodeURIComponent(file)}&no_content=1`));
      assert.ok(urls.includes(`/api/revisions?site=${site.id}&file=${encodeURIComponent(file)}&no_content=0`));
      assert.ok(urls.includes(`/api/revisions?site=${site.id}&revision=${last.id}`));
      // A revision asked through another site.
      const other = (await c.getSites()).find((s) => s.id !== site.id && !s.shared)!;
      const e = await fails(c.getRevision(other.id, last.id), ServiceError);
      assert.match(e.serviceMessage, /not found/i);
      await fails(c.getRevisionFiles('424242'), ServiceError);
    });

    it('an unknown file has no revisions or a service error, never a crash', async () => {
      const c = client();
      const site = (await c.getSites())[0]!;
      const r = await c.getRevisions(site.id, 'no/such/file.txt').catch((e: unknown) => e);
      assert.ok(Array.isArray(r) || r instanceof ServiceError, String(r));
    });
  });

  describe('authentication', () => {
    it('wrong password → AuthError (HTTP 401), no retry', async () => {
      const e = await fails(client({ email: DEMO.user.email, password: 'wrong' }).getSites(), AuthError);
      assert.equal(e.serviceMessage, 'Invalid email or password');
      assert.equal(service.count(), 1);
    });

    it('an account with an API key: fails without it, works with it, wrong key → AuthError', async () => {
      const { email, password, apiKey } = DEMO.keyUser;
      let e = await fails(client({ email, password }).getSites(), AuthError);
      assert.equal(e.serviceMessage, 'API key required');
      const sites = await client({ email, password, apiKey }).getSites();
      assert.ok(Array.isArray(sites));
      assert.equal(service.requests()[1]!.authorization, true);
      e = await fails(client({ email, password, apiKey: 'sr_wrong_key_000000' }).getSites(), AuthError);
      assert.equal(e.serviceMessage, 'Invalid API key');
      await fails(client({ email, password: 'nope', apiKey }).getSites(), AuthError);
    });

    it('a key sent for an account without a key → AuthError', async () => {
      await fails(client({ ...DEMO.user, apiKey: 'sr_demo_0123456789abcdef' }).getSites(), AuthError);
    });

    it('signed out (no credentials) → AuthError with no request', async () => {
      const signedOut = new SiteRevisionClient({ baseUrl: service.url, credentials: () => undefined });
      clients.push(signedOut);
      assert.match((await fails(signedOut.getSites(), AuthError)).message, /not signed in/);
      assert.equal(service.count(), 0);
    });
  });

  describe('faults', () => {
    it('reads retry 503, 503 then succeed: three requests', async () => {
      service.configure({ failNext: ['http503', 'http503'] });
      const c = client();
      const sites = await c.getSites();
      assert.ok(sites.length > 0);
      assert.equal(service.count('getSites'), 3);
      const mine = events.filter((e) => e.operation === 'Get Sites').slice(-3);
      assert.deepEqual(mine.map((e) => [e.attempt, e.status, e.outcome]), [[1, 503, 'retry'], [2, 503, 'retry'], [3, 200, 'ok']]);
    });

    it('every read operation retries 429/502/504 and dropped or cut-off replies', async () => {
      const c = client();
      const site = (await c.getSites())[0]!;
      const file = (await c.getRevisionFiles(site.id))[0]!;
      const rev = (await c.getRevisions(site.id, file))[0]!;
      service.resetStats();
      service.configure({ failNext: ['http429', 'http502'] });
      await c.getRevisionFiles(site.id);
      service.configure({ failNext: ['http504', 'drop'] });
      await c.getRevisions(site.id, file);
      service.configure({ failNext: ['truncate', 'drop', 'http503'] });
      await c.getRevision(site.id, rev.id);
      assert.equal(service.count('getRevisionFiles'), 3);
      assert.equal(service.count('getRevisions'), 3);
      assert.equal(service.count('getRevision'), 4);
    });

    it('Retry-After from the service is honored within the time-out', async () => {
      service.configure({ failNext: [{ kind: 'http503', retryAfterSeconds: 1 }] });
      const seen: RequestEvent[] = [];
      await client(DEMO.user, { timeoutMs: 10_000, onEvent: (e) => seen.push(e) }).getSites();
      assert.deepEqual(seen.map((e) => [e.attempt, e.outcome, e.retryInMs]), [[1, 'retry', 1000], [2, 'ok', undefined]], 'waited as asked, then retried');
      assert.equal(service.count('getSites'), 2);
    });

    it('a Retry-After beyond the time-out ends the call at once with the service’s answer; no wait, no retry', async () => {
      service.configure({ failNext: [{ kind: 'http503', retryAfterSeconds: 30 }] });
      const seen: RequestEvent[] = [];
      const ac = new AbortController();
      const call = client(DEMO.user, { timeoutMs: 2000, onEvent: (e) => seen.push(e) }).getSites({ signal: ac.signal });
      call.catch(() => undefined);
      try {
        // The first attempt's outcome decides: a retry would mean a 30 s wait in a 2 s call.
        while (!seen.length) await new Promise((r) => setImmediate(r));
        assert.deepEqual(seen.map((e) => [e.attempt, e.status, e.outcome, e.retryInMs]), [[1, 503, 'error', undefined]]);
        const e = await fails(call, HttpStatusError);
        assert.equal(e.status, 503);
        assert.equal(e.retryAfterMs, 30_000);
      } finally {
        ac.abort(); // (the code before this rule waited 30 s here)
      }
      assert.equal(service.count('getSites'), 1);
    });

    it('gives up after `retries` retries with the last error', async () => {
      service.configure({ failNext: ['http503', 'http503', 'http503', 'http503', 'http503'] });
      const e = await fails(client(DEMO.user, { retries: 3 }).getSites(), HttpStatusError);
      assert.equal(e.status, 503);
      assert.equal(service.count('getSites'), 4);
    });

    it('writes never retry: 503 on save, drop on delete, truncate on save', async () => {
      const c = client();
      service.configure({ failNext: ['http503'] });
      await fails(c.createSite({ name: 'Never twice' }), HttpStatusError);
      assert.equal(service.count('saveSite'), 1);
      assert.ok(!(await c.getSites()).some((s) => s.name === 'Never twice'));
      const { siteId } = await c.createSite({ name: 'Delete me' });
      service.resetStats();
      service.configure({ failNext: ['drop'] });
      await fails(c.deleteSite(siteId), NetworkError);
      assert.equal(service.count('deleteSite'), 1);
      service.configure({ failNext: ['truncate'] });
      const e = await fails(c.updateSite(siteId, { name: 'x' }), InvalidReplyError);
      assert.equal(e.problem, 'reply cut off');
      assert.equal(service.count('saveSite'), 1);
    });

    it('invalid replies: html, empty, cut off (no retries left); http500 is not retried', async () => {
      const c = client(DEMO.user, { retries: 0 });
      service.configure({ failNext: ['html'] });
      let e: ApiError = await fails(c.getSites(), InvalidReplyError);
      assert.match(e.message, /not JSON but text\/html/);
      assert.match((e as InvalidReplyError).excerpt, /Fatal error/);
      service.configure({ failNext: ['empty'] });
      e = await fails(c.getSites(), InvalidReplyError);
      assert.match(e.message, /empty reply/);
      service.configure({ failNext: ['truncate'] });
      e = await fails(c.getSites(), InvalidReplyError);
      assert.match(e.message, /reply cut off/);
      assert.equal(e.retryable, true);
      service.configure({ failNext: ['http500'] });
      e = await fails(client().getSites(), HttpStatusError);
      assert.equal((e as HttpStatusError).status, 500);
      assert.match(e.message, /Internal server error/);
      assert.equal(service.count('getSites'), 4);
    });

    it('latency beyond the timeout → TimeoutError', async () => {
      // The service answers (successfully) after 30 s: a TimeoutError means the client gave up first.
      service.configure({ latencyMs: 30_000 });
      const e = await fails(client(DEMO.user, { timeoutMs: 150 }).getSites(), TimeoutError);
      assert.equal(e.timeoutMs, 150);
    });

    it('AbortController mid-request → CancelledError, promptly', async () => {
      // The service would answer, successfully, after 30 s; the abort comes once the call is under way.
      service.configure({ latencyMs: 30_000 });
      const ac = new AbortController();
      const call = client(DEMO.user, { timeoutMs: 60_000, onEvent: () => undefined }).getSites({ signal: ac.signal });
      setImmediate(() => ac.abort());
      await fails(call, CancelledError);
    });

    it('a reply over maxResponseBytes → InvalidReplyError "reply too large"', async () => {
      const e = await fails(client(DEMO.user, { maxResponseBytes: 2048 }).getSites(), InvalidReplyError);
      assert.equal(e.problem, 'reply too large');
    });

    it('service gone → NetworkError ECONNREFUSED', async () => {
      const gone = await startService({ quiet: true });
      const url = gone.url;
      await gone.close();
      const e = await fails(client(DEMO.user, { baseUrl: url, retries: 1 }).getSites(), NetworkError);
      assert.equal(e.code, 'ECONNREFUSED');
    });
  });

  describe('large data', () => {
    it('a 20 MB revision is read under the default limit and refused under a 1 MiB limit', async () => {
      const big = await startService({ quiet: true, large: true });
      try {
        const c = new SiteRevisionClient({ baseUrl: big.url, credentials: () => DEMO.user });
        clients.push(c);
        const site = (await c.getSites()).find((s) => s.name === 'Large site');
        assert.ok(site, 'the large data set has its site');
        // How long these take is a benchmark figure (npm run bench), not a test.
        const files = await c.getRevisionFiles(site.id);
        assert.ok(files.length >= 100_000);
        const [rev] = await c.getRevisions(site.id, 'big/huge.txt');
        const full = await c.getRevision(site.id, rev!.id);
        assert.ok(full.content.length >= 20 * 1024 * 1024);
        const small = new SiteRevisionClient({ baseUrl: big.url, credentials: () => DEMO.user, maxResponseBytes: 1024 * 1024 });
        clients.push(small);
        const e = await fails(small.getRevision(site.id, rev!.id), InvalidReplyError);
        assert.equal(e.problem, 'reply too large');
      } finally {
        await big.close();
      }
    });
  });

  describe('secrets', () => {
    it('no error or event of this suite contains a password or an API key', async () => {
      // Add a few errors made with the key user's secrets.
      const { email, password, apiKey } = DEMO.keyUser;
      const c = client({ email, password, apiKey }, { retries: 0, timeoutMs: 150 });
      for (const kind of ['http500', 'http503', 'html', 'empty', 'truncate', 'drop'] as const) {
        service.configure({ failNext: [kind] });
        errors.push(await c.getSites().catch((e: unknown) => e));
      }
      service.configure({ latencyMs: 400 });
      errors.push(await c.getSites().catch((e: unknown) => e));
      service.configure({ latencyMs: 0 });
      errors.push(await c.getRevision('1', '1').catch((e: unknown) => e));
      errors.push(await client({ email, password: `${password}x`, apiKey }).getSites().catch((e: unknown) => e));
      assert.ok(errors.length > 20 && errors.every((e) => e instanceof ApiError));
      assertNoSecrets(errors, SECRETS);
      assertNoSecrets(events, SECRETS);
    });
  });
});

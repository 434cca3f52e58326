// The local service (test/server) over real HTTP with Node's fetch.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { SERVER_TYPES, SITE_STRING_FIELDS } from '../../src/core/api/types';
import { DEMO, startService, type FaultKind, type RunningService } from '../server/index';

type Json = Record<string, unknown> & { success: boolean; error?: string };
type SiteJson = Record<string, string | boolean>;

const AUTH = { login: '1', email: DEMO.user.email, password: DEMO.user.password };

function post(svc: RunningService, pathAndQuery: string, fields: Record<string, string> = AUTH, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(svc.url + pathAndQuery, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

async function call(svc: RunningService, pathAndQuery: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Json> {
  const res = await post(svc, pathAndQuery, { ...AUTH, ...fields }, headers);
  assert.equal(res.status, 200, `${pathAndQuery}: HTTP ${res.status}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return (await res.json()) as Json;
}

async function sites(svc: RunningService): Promise<SiteJson[]> {
  const r = await call(svc, '/api/sites');
  assert.equal(r.success, true);
  return r.sites as SiteJson[];
}

describe('local service (test/server)', function () {
  let svc: RunningService;
  before(async () => {
    svc = await startService({ quiet: true });
  });
  after(async () => {
    await svc.close();
  });
  beforeEach(async () => {
    svc.configure({ latencyMs: 0, operationLatencyMs: {}, faultRate: 0, failNext: [], specShaped: false, saveReplaces: false, readsIgnoreSite: false });
    const r = await fetch(`${svc.url}/__control/reseed`, { method: 'POST' });
    assert.equal(r.status, 200);
    svc.resetStats();
  });

  describe('seed data', () => {
    it('has sites of all nine server types and a shared site, every field a string', async () => {
      const list = await sites(svc);
      const types = new Set(list.map((s) => s.server_type));
      for (const t of SERVER_TYPES) assert.ok(types.has(t), `no ${t} site`);
      for (const s of list) {
        for (const f of SITE_STRING_FIELDS) assert.equal(typeof s[f], 'string', `${String(s.name)}.${f}`);
        assert.equal(typeof s.shared, 'boolean');
      }
      const shared = list.filter((s) => s.shared === true);
      assert.equal(shared.length, 1);
      assert.equal(shared[0].name, 'Team Intranet');
      assert.equal(shared[0].user, DEMO.team.email, 'the owner of the shared site');
      assert.equal(list.find((s) => !s.shared)?.user, DEMO.user.email);
      const ids = list.map((s) => Number(s.id));
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'ordered by id');
      assert.ok(!list.some((s) => s.name === 'Key Account Shop'), 'another account’s unshared site is not visible');
    });

    it('has nested revision files with several revisions, oldest first, in UTC date format', async () => {
      const list = await sites(svc);
      let total = 0;
      let deepest = 0;
      let withFiles = 0;
      for (const s of list) {
        const r = await call(svc, `/api/revisions?site=${String(s.id)}`, { site: String(s.id) });
        assert.equal(r.success, true);
        const files = r.files as string[];
        total += files.length;
        if (files.length) withFiles++;
        for (const f of files) deepest = Math.max(deepest, f.split('/').length);
      }
      assert.ok(total >= 20, `${total} files`);
      assert.ok(withFiles >= 3);
      assert.ok(deepest >= 3);

      const acme = list.find((s) => s.name === 'Acme Corporate')!;
      const r = await call(svc, `/api/revisions?site=${String(acme.id)}&file=css%2Fsite.css&no_content=0`);
      const revs = r.revisions as { id: string; date: string; author: string; content: string }[];
      assert.ok(revs.length >= 3 && revs.length <= 8);
      for (const rev of revs) {
        assert.match(rev.date, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        assert.equal(typeof rev.content, 'string');
        assert.match(rev.author, /@/);
      }
      assert.deepEqual(revs.map((x) => x.date), revs.map((x) => x.date).sort());
      assert.notEqual(revs[0].content, revs[1].content);
      assert.ok(new Set(revs.map((x) => x.author)).size >= 2 || revs.length < 3);
    });
  });

  describe('revisions', () => {
    it('no_content=1 omits the content key; Get Revision returns it', async () => {
      const q = '/api/revisions?site=1&file=index.php';
      const bare = (await call(svc, `${q}&no_content=1`)).revisions as Record<string, unknown>[];
      assert.ok(bare.length > 0);
      for (const r of bare) assert.ok(!('content' in r), 'content key present');
      const full = (await call(svc, `${q}&no_content=0`)).revisions as Record<string, string>[];
      assert.equal(full.length, bare.length);
      const one = await call(svc, `/api/revisions?site=1&revision=${String(bare[1].id)}`);
      assert.deepEqual(one, { success: true, id: bare[1].id, content: full[1].content });
    });

    it('errors: unknown file → [], foreign revision, unknown site, missing site', async () => {
      assert.deepEqual(await call(svc, '/api/revisions?site=1&file=nope.txt&no_content=1'), { success: true, revisions: [] });
      const other = (await call(svc, '/api/revisions?site=2&file=api%2Fapp.py&no_content=1')).revisions as { id: string }[];
      assert.deepEqual(await call(svc, `/api/revisions?site=1&revision=${other[0].id}`), { success: false, error: 'Revision not found' });
      assert.deepEqual(await call(svc, '/api/revisions?site=4242'), { success: false, error: 'Site not found' });
      assert.deepEqual(await call(svc, '/api/revisions'), { success: false, error: 'Missing parameter: site' });
      // site 11 belongs to the key account and is not shared with the demo user
      assert.deepEqual(await call(svc, '/api/revisions?site=11'), { success: false, error: 'Permission denied' });
    });

    it('the shared site is readable but not writable', async () => {
      const team = (await sites(svc)).find((s) => s.shared)!;
      const files = await call(svc, `/api/revisions?site=${String(team.id)}`);
      assert.ok((files.files as string[]).length > 0);
      assert.deepEqual(await call(svc, '/api/sites?cmd=save', { site: String(team.id), name: 'Mine now' }), { success: false, error: 'Permission denied' });
      assert.deepEqual(await call(svc, '/api/sites?cmd=delete', { site: String(team.id) }), { success: false, error: 'Permission denied' });
    });
  });

  describe('save and delete', () => {
    it('creates, updates (unsent fields kept) and deletes a site', async () => {
      const created = await call(svc, '/api/sites?cmd=save', {
        new: '1', site: '3', name: 'New FTP', server_type: 'FTP', domain: 'ftp.new.example', ftp_user: 'u', ftp_pass: 'p4ss', dir: '/www', pasv: '1', port: '2121',
      });
      assert.equal(created.success, true);
      assert.equal(typeof created.site, 'number');
      const id = String(created.site);
      assert.notEqual(id, '3');
      let site = (await sites(svc)).find((s) => s.id === id)!;
      assert.equal(site.ftp_pass, 'p4ss');
      assert.equal(site.port, '2121');
      assert.equal(site.user, DEMO.user.email, 'the owner’s email');
      assert.equal(site.shared, false);
      assert.equal(site.timeout, '30');

      assert.deepEqual(await call(svc, '/api/sites?cmd=save', { site: id, name: 'Renamed' }), { success: true, site: Number(id) });
      site = (await sites(svc)).find((s) => s.id === id)!;
      assert.equal(site.name, 'Renamed');
      assert.equal(site.ftp_pass, 'p4ss');
      assert.equal(site.domain, 'ftp.new.example');

      assert.deepEqual(await call(svc, '/api/sites?cmd=delete', { site: id }), { success: true, site: Number(id) });
      assert.ok(!(await sites(svc)).some((s) => s.id === id));
      assert.deepEqual(await call(svc, '/api/sites?cmd=delete', { site: id }), { success: false, error: 'Site not found' });
    });

    it('validates with the field named', async () => {
      const cases: [Record<string, string>, RegExp][] = [
        [{ new: '1', name: '  ' }, /name/],
        [{ new: '1', name: 'x'.repeat(256) }, /name/],
        [{ new: '1', name: 'x', server_type: 'Gopher' }, /server_type/],
        [{ new: '1', name: 'x', port: '70000' }, /port/],
        [{ new: '1', name: 'x', port: '21x' }, /port/],
        [{ new: '1', name: 'x', pasv: '2' }, /pasv/],
        [{ new: '1', name: 'x', check_out: 'yes' }, /check_out/],
        [{ new: '1', name: 'x', logon_type: 'password' }, /logon_type/],
      ];
      for (const [fields, re] of cases) {
        const r = await call(svc, '/api/sites?cmd=save', fields);
        assert.equal(r.success, false, JSON.stringify(fields).slice(0, 80));
        assert.match(r.error!, re);
      }
      assert.deepEqual(await call(svc, '/api/sites?cmd=save', { name: 'x' }), { success: false, error: 'Missing site id' });
      assert.deepEqual(await call(svc, '/api/sites?cmd=frobnicate'), { success: false, error: 'Unknown cmd: frobnicate' });
    });

    it('delete removes the site’s revisions', async () => {
      const before = await call(svc, '/api/revisions?site=1&file=index.php&no_content=1');
      const rev = (before.revisions as { id: string }[])[0].id;
      assert.equal((await call(svc, '/api/sites?cmd=delete', { site: '1' })).success, true);
      assert.deepEqual(await call(svc, `/api/revisions?site=1&revision=${rev}`), { success: false, error: 'Site not found' });
    });

    it('persists across a restart on the same data file', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-test-'));
      const dataFile = path.join(dir, 'data.json');
      try {
        const a = await startService({ quiet: true, dataFile });
        const created = await call(a, '/api/sites?cmd=save', { new: '1', name: 'Survivor', server_type: 'SFTP' });
        await a.close();
        assert.deepEqual(fs.readdirSync(dir), ['data.json'], 'no temp files left');
        const b = await startService({ quiet: true, dataFile });
        try {
          const list = await sites(b);
          const site = list.find((s) => s.id === String(created.site));
          assert.equal(site?.name, 'Survivor');
          assert.equal(site?.port, '22');
          const text = fs.readFileSync(dataFile, 'utf8');
          assert.ok(!text.includes(DEMO.keyUser.apiKey), 'API key stored in clear');
          assert.ok(!text.includes(`"${DEMO.keyUser.password}"`), 'password stored in clear');
        } finally {
          await b.close();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('authentication', () => {
    const expect401 = async (res: Response, error: string) => {
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { success: false, error });
    };

    it('rejects wrong or missing credentials with 401', async () => {
      await expect401(await post(svc, '/api/sites', { ...AUTH, password: 'wrong' }), 'Invalid email or password');
      await expect401(await post(svc, '/api/sites', { email: AUTH.email, password: AUTH.password }), 'Invalid email or password');
      await expect401(await post(svc, '/api/sites', {}), 'Invalid email or password');
      await expect401(await post(svc, '/api/sites', { ...AUTH, email: 'nobody@example.com' }), 'Invalid email or password');
      // credentials in the query string are never read
      await expect401(await post(svc, `/api/sites?login=1&email=${AUTH.email}&password=${AUTH.password}`, {}), 'Invalid email or password');
    });

    it('applies the API key rules', async () => {
      const key = { login: '1', email: DEMO.keyUser.email, password: DEMO.keyUser.password };
      await expect401(await post(svc, '/api/sites', key), 'API key required');
      await expect401(await post(svc, '/api/sites', key, { authorization: 'Bearer sr_wrong' }), 'Invalid API key');
      await expect401(await post(svc, '/api/sites', key, { authorization: `Basic ${DEMO.keyUser.apiKey}` }), 'Invalid API key');
      const ok = await post(svc, '/api/sites', key, { authorization: `Bearer ${DEMO.keyUser.apiKey}` });
      assert.equal(ok.status, 200);
      const body = (await ok.json()) as Json;
      assert.deepEqual((body.sites as SiteJson[]).map((s) => s.name), ['Key Account Shop']);
      // an account without a key rejects any key
      await expect401(await post(svc, '/api/sites', AUTH, { authorization: `Bearer ${DEMO.keyUser.apiKey}` }), 'Invalid API key');
    });

    it('logs field names only, never secret values', async () => {
      await post(svc, '/api/sites?password=leaked&site=1', { ...AUTH, ftp_pass: 'zzz' }, { authorization: 'Bearer sekrit' });
      const [rec] = svc.requests();
      assert.deepEqual(rec.bodyFields, ['login', 'email', 'password', 'ftp_pass']);
      assert.equal(rec.authorization, true);
      assert.equal(rec.url, '/api/sites?password=***&site=1');
      const dump = JSON.stringify(svc.requests());
      for (const secret of ['leaked', 'zzz', 'sekrit', DEMO.user.email]) assert.ok(!dump.includes(secret), secret);
    });
  });

  describe('transport', () => {
    it('404 for an unknown path, 405 for other methods, GET and query parameters work', async () => {
      const r = await post(svc, '/api/nothing');
      assert.equal(r.status, 404);
      assert.equal(((await r.json()) as Json).success, false);
      const put = await fetch(`${svc.url}/api/sites`, { method: 'PUT', body: new URLSearchParams(AUTH) });
      assert.equal(put.status, 405);
      // GET with a form body (what curl -X GET -d sends); query parameters merge with the body
      const get = await new Promise<{ status: number; body: Json }>((resolve, reject) => {
        const form = new URLSearchParams(AUTH).toString();
        const req = http.request(`${svc.url}/api/revisions?site=1&file=index.php`, { method: 'GET', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Json }));
        });
        req.on('error', reject);
        req.end(form);
      });
      assert.equal(get.status, 200);
      assert.ok((get.body.revisions as unknown[]).length > 0);
      assert.equal(svc.requests().at(-1)?.operation, 'getRevisions');
      const mp = new FormData();
      for (const [k, v] of Object.entries(AUTH)) mp.append(k, v);
      const multipart = await fetch(`${svc.url}/api/revisions?site=1`, { method: 'POST', body: mp });
      assert.equal(((await multipart.json()) as Json).success, true);
    });

    it('rejects a body over 50 MB with 413', async () => {
      const big = 'a'.repeat(50 * 1024 * 1024 + 10);
      const r = await fetch(`${svc.url}/api/sites`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `x=${big}` });
      assert.equal(r.status, 413);
      assert.equal(((await r.json()) as Json).success, false);
    });
  });

  describe('faults and latency', () => {
    async function outcome(): Promise<{ status: number; type: string; text: string; retryAfter: string | null } | 'error'> {
      try {
        const res = await post(svc, '/api/sites');
        const text = await res.text();
        return { status: res.status, type: res.headers.get('content-type') ?? '', text, retryAfter: res.headers.get('retry-after') };
      } catch {
        return 'error';
      }
    }

    it('failNext gives each kind, in order, then normal replies', async () => {
      const kinds: FaultKind[] = ['http500', 'http502', 'http503', 'http504', 'http429', 'drop', 'truncate', 'html', 'empty'];
      svc.configure({ failNext: [...kinds, { kind: 'http429', retryAfterSeconds: 7 }] });
      const got: Record<string, Awaited<ReturnType<typeof outcome>>> = {};
      for (const k of kinds) got[k] = await outcome();
      const r500 = got.http500 as Exclude<typeof got.http500, 'error'>;
      assert.equal(r500.status, 500);
      assert.equal((JSON.parse(r500.text) as Json).success, false);
      for (const [k, status] of [['http502', 502], ['http503', 503], ['http504', 504], ['http429', 429]] as const) {
        const o = got[k];
        assert.notEqual(o, 'error', k);
        if (o !== 'error') assert.equal(o.status, status, k);
      }
      assert.equal((got.http503 as { retryAfter: string }).retryAfter, '0');
      assert.equal((got.http429 as { retryAfter: string }).retryAfter, '0');
      assert.equal(got.drop, 'error');
      assert.equal(got.truncate, 'error');
      const html = got.html as { status: number; type: string; text: string };
      assert.equal(html.status, 200);
      assert.match(html.type, /^text\/html/);
      assert.match(html.text, /<html/);
      const empty = got.empty as { status: number; text: string };
      assert.equal(empty.status, 200);
      assert.equal(empty.text, '');
      const custom = (await outcome()) as { status: number; retryAfter: string };
      assert.equal(custom.status, 429);
      assert.equal(custom.retryAfter, '7');
      const normal = (await outcome()) as { status: number; text: string };
      assert.equal(normal.status, 200);
      assert.equal((JSON.parse(normal.text) as Json).success, true);

      const recs = svc.requests();
      assert.deepEqual(recs.map((r) => r.fault), [...kinds, 'http429', undefined]);
      assert.equal(recs.find((r) => r.fault === 'drop')?.status, 0);
      assert.equal(svc.count('getSites'), kinds.length + 2);
    });

    it('a queued fault with an operation is met only by a request of that operation; the others go through', async () => {
      svc.configure({ failNext: [{ kind: 'http503', operation: 'getRevisions' }] });
      const sites = await fetch(`${svc.url}/api/sites`, { method: 'POST', body: new URLSearchParams(AUTH) });
      assert.equal(sites.status, 200, 'Get Sites goes through');
      await sites.arrayBuffer();
      const revs = await fetch(`${svc.url}/api/revisions?site_id=1&file=index.php&no_content=1`, { method: 'POST', body: new URLSearchParams(AUTH) });
      assert.equal(revs.status, 503, 'Get Revisions meets it');
      await revs.arrayBuffer();
      assert.deepEqual(svc.requests().map((r) => [r.operation, r.fault]), [['getSites', undefined], ['getRevisions', 'http503']]);
      assert.throws(() => svc.configure({ failNext: [{ kind: 'http503', operation: 'nope' as never }] }), /Unknown operation/);
    });

    it('redirect: a 302 to a sign-in page, as a service URL that points at a website gets', async () => {
      svc.configure({ failNext: ['redirect'] });
      const res = await fetch(`${svc.url}/api/sites`, { method: 'POST', body: new URLSearchParams(AUTH), redirect: 'manual' });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), '/login?next=%2Fapi');
      await res.arrayBuffer();
      assert.equal(svc.requests()[0]!.fault, 'redirect');
    });

    it('serviceError and a fault with an error text: the service refuses in its own words, with HTTP 200 or an error status', async () => {
      svc.configure({ failNext: [{ kind: 'serviceError', error: 'Your subscription has expired' }, 'serviceError', { kind: 'http500', error: 'Account locked' }, { kind: 'http502', error: 'ignored: an HTML page' }] });
      const got = [await outcome(), await outcome(), await outcome(), await outcome()] as { status: number; text: string }[];
      assert.deepEqual(
        got.slice(0, 3).map((o) => [o.status, JSON.parse(o.text)]),
        [
          [200, { success: false, error: 'Your subscription has expired' }],
          [200, { success: false, error: 'The service could not do that' }],
          [500, { success: false, error: 'Account locked' }],
        ],
      );
      assert.equal(got[3]!.status, 502);
      assert.match(got[3]!.text, /<html/);
      assert.throws(() => svc.configure({ failNext: [{ kind: 'serviceError', error: 7 as unknown as string }] }), /error must be a string/);
    });

    it('a faulted save changes nothing (even a truncated one)', async () => {
      const before = (await sites(svc)).length;
      for (const kind of ['truncate', 'http503', 'drop'] as const) {
        svc.configure({ failNext: [kind] });
        await post(svc, '/api/sites?cmd=save', { ...AUTH, new: '1', name: 'Ghost' }).then((r) => r.text()).catch(() => undefined);
      }
      assert.equal((await sites(svc)).length, before);
    });

    it('faultRate 1 faults every request; latency delays replies', async () => {
      svc.configure({ faultRate: 1, faultKinds: ['http502'] });
      for (let i = 0; i < 3; i++) assert.equal((await post(svc, '/api/sites')).status, 502);
      // A request made under 30 s of latency is still waiting when one made after it, without
      // latency, has been answered.
      svc.configure({ faultRate: 0, latencyMs: 30_000 });
      const ac = new AbortController();
      const slow = fetch(`${svc.url}/api/sites`, { method: 'POST', body: new URLSearchParams(AUTH), signal: ac.signal }).then(() => 'answered', () => 'aborted');
      // The slow request reaches the service before the latency is taken away.
      while (svc.delayed() === 0) await new Promise((r) => setTimeout(r, 5));
      svc.configure({ latencyMs: 0 });
      assert.equal((await post(svc, '/api/sites')).status, 200);
      const first = await Promise.race([slow, Promise.resolve('waiting')]);
      ac.abort();
      assert.equal(first, 'waiting');
      assert.equal(await slow, 'aborted');
      assert.throws(() => svc.configure({ faultRate: 2 }));
      assert.throws(() => svc.configure({ failNext: ['nope' as FaultKind] }));
    });
    it('random faults come from a seed: the same seed replays the same faults', async () => {
      const run = async (): Promise<number[]> => {
        svc.configure({ faultRate: 0.5, faultKinds: ['http502', 'http503'], seed: 4242 });
        const statuses: number[] = [];
        for (let i = 0; i < 24; i++) statuses.push((await post(svc, '/api/sites')).status);
        svc.configure({ faultRate: 0 });
        return statuses;
      };
      const first = await run();
      assert.ok(first.some((s) => s === 200) && first.some((s) => s !== 200), `a mix of faults and answers: ${first.join(',')}`);
      assert.deepEqual(await run(), first);
      svc.configure({ seed: 7, faultRate: 0.5 });
      const other: number[] = [];
      for (let i = 0; i < 24; i++) other.push((await post(svc, '/api/sites')).status);
      svc.configure({ faultRate: 0 });
      assert.notDeepEqual(other, first);
      assert.throws(() => svc.configure({ seed: -1 }));
    });
  });

  describe('control endpoints', () => {
    it('stats, reset-stats, config and reseed', async () => {
      await call(svc, '/api/sites');
      await call(svc, '/api/revisions?site=1');
      await call(svc, '/api/revisions?site=1&file=index.php&no_content=1');
      await call(svc, '/api/revisions?site=1&revision=1001');
      await call(svc, '/api/sites?cmd=delete', { site: '5' });
      await call(svc, '/api/sites?cmd=save', { new: '1', name: 'n' });
      const stats = (await (await fetch(`${svc.url}/__control/stats`)).json()) as { requests: unknown[]; counts: Record<string, number> };
      assert.equal(stats.requests.length, 6);
      assert.deepEqual(stats.counts, { getSites: 1, saveSite: 1, deleteSite: 1, getRevisionFiles: 1, getRevisions: 1, getRevision: 1 });

      assert.equal((await fetch(`${svc.url}/__control/reset-stats`, { method: 'POST' })).status, 200);
      assert.equal(svc.count(), 0);

      const cfg = await fetch(`${svc.url}/__control/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ failNext: ['http504'] }) });
      assert.equal(cfg.status, 200);
      assert.equal((await post(svc, '/api/sites')).status, 504);
      const bad = await fetch(`${svc.url}/__control/config`, { method: 'POST', body: JSON.stringify({ faultRate: -1 }) });
      assert.equal(bad.status, 400);

      assert.ok(!(await sites(svc)).some((s) => s.id === '5'));
      assert.equal((await fetch(`${svc.url}/__control/reseed`, { method: 'POST' })).status, 200);
      const list = await sites(svc);
      assert.ok(list.some((s) => s.id === '5'));
      assert.ok(!list.some((s) => s.name === 'n'));
      // control requests are not counted
      assert.equal(svc.requests().filter((r) => r.url.startsWith('/__control')).length, 0);
    });
  });

  describe('add-revision (a colleague’s save)', () => {
    it('stores a newer revision with the next id, listed and fetched like the others; a new path is added; bad input is refused', async () => {
      const control = (body: unknown) => fetch(`${svc.url}/__control/add-revision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const before = (await call(svc, '/api/revisions?site=1&file=index.php&no_content=1')).revisions as { id: string }[];
      const res = await control({ siteId: '1', path: 'index.php', content: 'new text\n', author: 'c@example.com', date: Date.UTC(2030, 0, 2, 3, 4, 5) });
      assert.equal(res.status, 200);
      const added = (await res.json()) as { id: string; date: string };
      assert.equal(added.date, '2030-01-02 03:04:05');
      assert.ok(before.every((r) => Number(r.id) < Number(added.id)), 'the next revision id');
      const after = (await call(svc, '/api/revisions?site=1&file=index.php&no_content=0')).revisions as { id: string; author: string; content: string }[];
      assert.equal(after.length, before.length + 1);
      assert.deepEqual(after.find((r) => r.id === added.id), { id: added.id, date: '2030-01-02 03:04:05', author: 'c@example.com', content: 'new text\n' });
      assert.equal((await call(svc, `/api/revisions?site=1&revision=${added.id}`)).content, 'new text\n');
      assert.equal((await control({ siteId: '1', path: 'brand/new.txt', content: 'x' })).status, 200);
      assert.ok(((await call(svc, '/api/revisions?site=1')).files as string[]).includes('brand/new.txt'));
      assert.equal((await control({ siteId: '999', path: 'a', content: 'x' })).status, 400);
      assert.equal((await control({ siteId: '1', path: 'a' })).status, 400);
    });
  });

  describe('modes', () => {
    it('spec-shaped: the four reads answer exactly as the spec shows them (no success); writes keep it', async () => {
      const cfg = await fetch(`${svc.url}/__control/config`, { method: 'POST', body: JSON.stringify({ specShaped: true }) });
      assert.equal(cfg.status, 200);
      assert.equal(((await cfg.json()) as { config: { specShaped: boolean } }).config.specShaped, true);
      const keys = async (q: string, f: Record<string, string> = {}) => Object.keys(await call(svc, q, f)).sort();
      assert.deepEqual(await keys('/api/sites'), ['sites']);
      assert.deepEqual(await keys('/api/revisions?site=1'), ['files']);
      assert.deepEqual(await keys('/api/revisions?site=1&file=index.php&no_content=0'), ['revisions']);
      assert.deepEqual(await keys('/api/revisions?site=1&revision=1001'), ['content', 'id']);
      // A failed read: the error alone.
      assert.deepEqual(await call(svc, '/api/revisions?site=1&revision=999999'), { error: 'Revision not found' });
      // Writes as the spec shows them: with success.
      const saved = await call(svc, '/api/sites?cmd=save', { new: '1', name: 'spec-shaped' });
      assert.equal(saved.success, true);
      assert.equal((await call(svc, '/api/sites?cmd=delete', { site: String(saved.site) })).success, true);
      assert.equal((await fetch(`${svc.url}/__control/config`, { method: 'POST', body: JSON.stringify({ specShaped: 'yes' }) })).status, 400);
      svc.configure({ specShaped: false });
      assert.equal((await call(svc, '/api/sites')).success, true);
    });

    it('reads-ignore-site: Get Revision finds a revision by its id and Get Revisions a file by its path, whatever readable site they name; by default only the named site’s', async () => {
      const files = async (site: string) => (await call(svc, `/api/revisions?site=${site}`)).files as string[];
      const [one, six] = [await files('1'), await files('6')];
      const path = six.find((f) => !one.includes(f))!;
      const rev = ((await call(svc, `/api/revisions?site=6&file=${encodeURIComponent(path)}&no_content=1`)).revisions as { id: string }[])[0]!;
      const content = (await call(svc, `/api/revisions?site=6&revision=${rev.id}`)).content;
      assert.deepEqual(await call(svc, `/api/revisions?site=1&revision=${rev.id}`), { success: false, error: 'Revision not found' });
      assert.deepEqual((await call(svc, `/api/revisions?site=1&file=${encodeURIComponent(path)}&no_content=1`)).revisions, []);
      svc.configure({ readsIgnoreSite: true });
      assert.equal((await call(svc, `/api/revisions?site=1&revision=${rev.id}`)).content, content, 'site 6’s revision under site 1');
      assert.ok(((await call(svc, `/api/revisions?site=1&file=${encodeURIComponent(path)}&no_content=1`)).revisions as unknown[]).length > 0, 'another site’s revisions of that path under site 1');
      assert.deepEqual(await files('1'), one, 'the files are still the named site’s');
      assert.equal((await call(svc, '/api/revisions?site=1&revision=1001')).id, '1001', 'the named site’s own first');
    });

    it('operationLatencyMs: one operation slow, the others as latencyMs says; {} clears it; a bad value is refused', async () => {
      svc.configure({ operationLatencyMs: { getRevisionFiles: 1500 } });
      const sites = fetch(`${svc.url}/api/sites`, { method: 'POST', body: new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password }) });
      const files = post(svc, '/api/revisions?site=1', AUTH);
      // The quick one is answered while the slow one still waits: the service records replies in order.
      await Promise.all([sites, files]);
      const ops = (await (await fetch(`${svc.url}/__control/stats`)).json() as { requests: { operation?: string }[] }).requests.map((r) => r.operation);
      assert.deepEqual(ops.slice(-2), ['getSites', 'getRevisionFiles']);
      assert.equal((await fetch(`${svc.url}/__control/config`, { method: 'POST', body: JSON.stringify({ operationLatencyMs: { getSites: -1 } }) })).status, 400);
      assert.equal((await fetch(`${svc.url}/__control/config`, { method: 'POST', body: JSON.stringify({ operationLatencyMs: { nope: 1 } }) })).status, 400);
      svc.configure({ operationLatencyMs: {} });
      assert.deepEqual(((await (await fetch(`${svc.url}/__control/config`)).json()) as { config: { operationLatencyMs: object } }).config.operationLatencyMs, {});
    });

    it('save-replaces: an update replaces the record with exactly the fields sent; by default unsent fields are kept', async () => {
      const before = (await sites(svc)).find((s) => s.id === '1')!;
      assert.ok(String(before.ftp_pass).length > 0 && String(before.domain).length > 0);
      await call(svc, '/api/sites?cmd=save', { site: '1', name: 'Renamed' });
      let after = (await sites(svc)).find((s) => s.id === '1')!;
      assert.equal(after.name, 'Renamed');
      assert.equal(after.ftp_pass, before.ftp_pass, 'kept by default');
      assert.equal(after.domain, before.domain);
      svc.configure({ saveReplaces: true });
      await call(svc, '/api/sites?cmd=save', { site: '1', name: 'Replaced', domain: 'only.example' });
      after = (await sites(svc)).find((s) => s.id === '1')!;
      assert.equal(after.name, 'Replaced');
      assert.equal(after.domain, 'only.example');
      assert.equal(after.ftp_pass, '', 'a field not sent is emptied');
      assert.equal(after.server_type, '');
      assert.equal(after.id, '1');
    });
  });

  describe('large data set', function () {
    this.timeout(60000);
    let big: RunningService;
    before(async () => {
      big = await startService({ quiet: true, large: true });
    });
    after(async () => {
      await big.close();
    });

    it('has 100,000 files, a 10,000-revision file and a 20 MB revision, not persisted', async () => {
      const site = (await sites(big)).find((s) => s.name === 'Large site')!;
      assert.ok(site);
      const files = (await call(big, `/api/revisions?site=${String(site.id)}`)).files as string[];
      assert.equal(files.length, 100_000);
      assert.equal(new Set(files).size, 100_000);
      const hist = (await call(big, `/api/revisions?site=${String(site.id)}&file=big%2Fhistory.txt&no_content=1`)).revisions as { id: string }[];
      assert.equal(hist.length, 10_000);
      const one = await call(big, `/api/revisions?site=${String(site.id)}&revision=${hist[9999].id}`);
      assert.match(one.content as string, /entry 10000/);
      const huge = (await call(big, `/api/revisions?site=${String(site.id)}&file=big%2Fhuge.txt&no_content=1`)).revisions as { id: string }[];
      const hugeRev = await call(big, `/api/revisions?site=${String(site.id)}&revision=${huge[0].id}`);
      assert.equal((hugeRev.content as string).length, 20 * 1024 * 1024);
      assert.ok(fs.statSync(big.dataFile).size < 1024 * 1024);
    });
  });
});

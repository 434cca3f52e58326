// The language-model tools, invoked as an agent does (`vscode.lm.invokeTool`) in the real
// extension host against the local service; results are checked against what the service holds.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/api/types';
import { TOOL_NAMES } from '../../src/lm/tools';
import { DEMO } from '../server/demo';
import { control, reseededAndSignedIn, signInDemo } from './support';

/** One read straight from the service (what the tools must report), as the demo user. */
async function serviceRead<T>(url: string, path: string, account: { email: string; password: string } = DEMO.user): Promise<T> {
  const body = new URLSearchParams({ login: '1', email: account.email, password: account.password });
  const res = await fetch(`${url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return (await res.json()) as T;
}

function textOf(r: vscode.LanguageModelToolResult): string {
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** The JSON part of a tool result (line 2 onwards). */
function dataOf<T>(r: vscode.LanguageModelToolResult): T {
  const t = textOf(r);
  return JSON.parse(t.slice(t.indexOf('\n') + 1)) as T;
}

async function invoke(name: string, input: object, token?: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
  return vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, token);
}

describe('Language-model tools', function () {
  this.timeout(60000);
  let api: ExtensionApi;
  let url: string;
  let sites: Site[];
  /** Every secret the demo data holds: account passwords, the API key, every site password (see before()). */
  let secrets: string[];
  const results: string[] = [];

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    sites = (await serviceRead<{ sites: Site[] }>(url, '/api/sites')).sites;
    const team = (await serviceRead<{ sites: Site[] }>(url, '/api/sites', DEMO.team)).sites;
    // Not the demo user's own password, "demo": it is a word of ordinary demo data (its email, host names).
    secrets = [DEMO.keyUser.password, DEMO.keyUser.apiKey, DEMO.team.password, ...[...sites, ...team].flatMap((s) => [s.ftp_pass, s.db_password])].filter((s) => s && s.length >= 4);
    assert.ok(secrets.length >= 5, 'the demo data has site passwords to look for');
  });

  const keep = (r: vscode.LanguageModelToolResult) => {
    results.push(textOf(r));
    return r;
  };

  it('are contributed (only while signed in) and registered', () => {
    const contributed = (vscode.extensions.getExtension('site-revisions.site-revisions')!.packageJSON as { contributes: { languageModelTools: { name: string; when?: string }[] } }).contributes.languageModelTools;
    assert.deepEqual(contributed.map((t) => t.name).sort(), Object.values(TOOL_NAMES).sort());
    for (const t of contributed) assert.equal(t.when, 'siteRevisions.signedIn', t.name);
    const registered = new Set(vscode.lm.tools.map((t) => t.name));
    for (const name of Object.values(TOOL_NAMES)) assert.ok(registered.has(name), `${name} is registered`);
  });

  it('list sites: every site of the account with its non-secret fields', async () => {
    const r = keep(await invoke(TOOL_NAMES.listSites, {}));
    const data = dataOf<{ sites: { id: string; name: string; serverType: string; host: string; shared: boolean }[] }>(r);
    assert.deepEqual(data.sites.map((s) => s.id).sort(), sites.map((s) => s.id).sort());
    for (const s of sites) {
      const got = data.sites.find((x) => x.id === s.id)!;
      assert.equal(got.name, s.name);
      assert.equal(got.serverType, s.server_type || 'None');
      assert.equal(got.host, s.domain);
      assert.equal(got.shared, s.shared);
      assert.deepEqual(Object.keys(got).sort(), ['directory', 'host', 'id', 'name', 'serverType', 'shared', 'webUrl']);
    }
    const filtered = dataOf<{ sites: { id: string }[] }>(keep(await invoke(TOOL_NAMES.listSites, { filter: 'sftp' })));
    assert.ok(filtered.sites.length >= 1 && filtered.sites.length < sites.length, 'the filter narrows the list');
  });

  it('list files: the paths the service holds, a prefix filter and a cap; a site by name', async () => {
    const site = sites.find((s) => !s.shared && s.server_type === 'FTP')!;
    const files = (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${site.id}`)).files;
    assert.ok(files.length >= 3, `demo files on ${site.name}`);
    const all = dataOf<{ total: number; files: string[] }>(keep(await invoke(TOOL_NAMES.listFiles, { site: site.id })));
    assert.equal(all.total, files.length);
    assert.deepEqual([...all.files].sort(), [...files].sort());
    const capped = dataOf<{ total: number; files: string[] }>(keep(await invoke(TOOL_NAMES.listFiles, { site: site.name, limit: 2 })));
    assert.equal(capped.total, files.length);
    assert.equal(capped.files.length, 2);
    const folder = files.find((f) => f.includes('/'))!.split('/')[0]!;
    const under = dataOf<{ files: string[] }>(keep(await invoke(TOOL_NAMES.listFiles, { site: site.id, pathPrefix: `${folder}/` })));
    assert.ok(under.files.length >= 1 && under.files.every((f) => f.replace(/^\/+/, '').startsWith(`${folder}/`)), JSON.stringify(under.files));
    const wrong = textOf(await invoke(TOOL_NAMES.listFiles, { site: 'no such site at all' }));
    assert.match(wrong, /No site matches/);
  });

  it('list revisions and read one: newest first, as the service holds them; content capped and says so', async () => {
    const site = sites.find((s) => !s.shared && s.server_type === 'FTP')!;
    const files = (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${site.id}`)).files;
    const path = files[0]!;
    const revs = (await serviceRead<{ revisions: { id: string; date: string; author: string }[] }>(url, `/api/revisions?site=${site.id}&file=${encodeURIComponent(path)}&no_content=1`)).revisions;
    const listed = dataOf<{ total: number; revisions: { id: string; date: string; author: string }[] }>(keep(await invoke(TOOL_NAMES.listRevisions, { site: site.id, path })));
    assert.equal(listed.total, revs.length);
    const newestFirst = [...revs].sort((a, b) => b.date.localeCompare(a.date) || Number(b.id) - Number(a.id));
    assert.deepEqual(listed.revisions.map((r) => r.id), newestFirst.map((r) => r.id));
    assert.deepEqual(listed.revisions.map((r) => r.author), newestFirst.map((r) => r.author));
    assert.equal(dataOf<{ revisions: unknown[] }>(await invoke(TOOL_NAMES.listRevisions, { site: site.id, path, limit: 1 })).revisions.length, 1);

    const rev = newestFirst[0]!;
    const content = (await serviceRead<{ content: string }>(url, `/api/revisions?site=${site.id}&revision=${rev.id}`)).content;
    const full = dataOf<{ truncated: boolean; totalChars: number; content: string }>(keep(await invoke(TOOL_NAMES.getRevision, { site: site.id, revisionId: rev.id, path })));
    assert.equal(full.truncated, false);
    assert.equal(full.content, content);
    assert.ok(content.length > 40, 'a revision long enough to cut');
    const cut = await invoke(TOOL_NAMES.getRevision, { site: site.id, revisionId: rev.id, maxChars: 20 });
    const cutData = dataOf<{ truncated: boolean; totalChars: number; content: string }>(cut);
    assert.equal(cutData.truncated, true);
    assert.equal(cutData.totalChars, content.length);
    assert.ok(cutData.content.length <= 20 && content.startsWith(cutData.content));
    assert.match(textOf(cut).split('\n')[0]!, /CUT after/);
  });

  it('a cancelled invocation makes no request and ends as cancelled', async () => {
    const site = sites.find((s) => !s.shared && s.server_type === 'FTP')!;
    const files = (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${site.id}`)).files;
    const revs = (await serviceRead<{ revisions: { id: string }[] }>(url, `/api/revisions?site=${site.id}&file=${encodeURIComponent(files[files.length - 1]!)}&no_content=1`)).revisions;
    await control(url, 'reset-stats');
    const cts = new vscode.CancellationTokenSource();
    cts.cancel();
    await assert.rejects(invoke(TOOL_NAMES.getRevision, { site: site.id, revisionId: revs[revs.length - 1]!.id }, cts.token), (e: Error) => e instanceof vscode.CancellationError || /cancel/i.test(e.message));
    const stats = await control(url, 'stats');
    assert.equal(stats.requests.filter((r) => r.operation === 'getRevision').length, 0, 'no content request after cancel');
  });

  it('cancelling while the service is answering ends the invocation as cancelled, without the content', async () => {
    const site = sites.find((s) => !s.shared && s.server_type === 'SFTP')!;
    const files = (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${site.id}`)).files;
    const revs = (await serviceRead<{ revisions: { id: string }[] }>(url, `/api/revisions?site=${site.id}&file=${encodeURIComponent(files[0]!)}&no_content=1`)).revisions;
    await control(url, 'config', { latencyMs: 3000 });
    try {
      const cts = new vscode.CancellationTokenSource();
      const pending = invoke(TOOL_NAMES.getRevision, { site: site.id, revisionId: revs[revs.length - 1]!.id });
      const call = invoke(TOOL_NAMES.getRevision, { site: site.id, revisionId: revs[0]!.id }, cts.token);
      setImmediate(() => cts.cancel());
      await assert.rejects(call, (e: Error) => e instanceof vscode.CancellationError || /cancel/i.test(e.message));
      await pending; // the other caller still gets its answer
    } finally {
      await control(url, 'config', { latencyMs: 0 });
    }
  });

  it('signed out: every tool answers that the user must sign in, and sends nothing', async () => {
    await api.session.signOut();
    try {
      await control(url, 'reset-stats');
      for (const [name, input] of [
        [TOOL_NAMES.listSites, {}],
        [TOOL_NAMES.listFiles, { site: '1' }],
        [TOOL_NAMES.listRevisions, { site: '1', path: 'index.php' }],
        [TOOL_NAMES.getRevision, { site: '1', revisionId: '1' }],
      ] as const) {
        const t = textOf(keep(await invoke(name, input)));
        assert.match(t, /not signed in to Site Revisions/, name);
      }
      assert.equal((await control(url, 'stats')).requests.length, 0, 'no request while signed out');
    } finally {
      await signInDemo(url);
    }
  });

  it('no tool result carries a password or the API key', () => {
    assert.ok(results.length >= 10, `${results.length} results collected`);
    for (const r of results) for (const s of secrets) assert.ok(!r.includes(s), `a tool result contains a secret (${s.slice(0, 2)}…)`);
  });
});

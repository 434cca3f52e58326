// The language-model tools, invoked as an agent does (`vscode.lm.invokeTool`) in the real
// extension host against the local service; results are checked against what the service holds.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import { TOOL_NAMES } from '../../src/features/tools/tools';
import { LIVE_TOOL } from '../../src/features/live/names';
import { DEMO } from '../server/demo';
import { SEARCH_DEMO } from '../server/seed-search';
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
    assert.deepEqual(contributed.map((t) => t.name).sort(), [...Object.values(TOOL_NAMES), LIVE_TOOL].sort());
    for (const t of contributed) assert.equal(t.when, 'siteRevisions.signedIn', t.name);
    const registered = new Set(vscode.lm.tools.map((t) => t.name));
    for (const name of [...Object.values(TOOL_NAMES), LIVE_TOOL]) assert.ok(registered.has(name), `${name} is registered`);
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

  describe('History Search and Site Changes', () => {
    let marketing: Site;
    /** Revision ids of a demo file, oldest first (revision n of seed-search.ts is ids[n - 1]). */
    const idsOf = async (path: string) => {
      const revs = (await serviceRead<{ revisions: { id: string; date: string }[] }>(url, `/api/revisions?site=${marketing.id}&file=${encodeURIComponent(path)}&no_content=1`)).revisions;
      return [...revs].sort((a, b) => a.date.localeCompare(b.date) || Number(a.id) - Number(b.id)).map((r) => r.id);
    };
    type Hit = { id: string; author: string; count: number; added: number; removed: number; firstMatch?: { line: number; text: string } };
    type Searched = { total: number; files: { path: string; revisions: Hit[] }[] };

    before(() => {
      marketing = sites.find((s) => s.name === SEARCH_DEMO.siteName)!;
      assert.ok(marketing, 'the search demo site');
    });

    it('search one file: the revisions that added and removed the text, with counts and the matching line', async () => {
      const path = 'campaigns/spring/index.html';
      const ids = await idsOf(path);
      await control(url, 'reset-stats');
      const r = keep(await invoke(TOOL_NAMES.searchHistory, { site: marketing.id, path, query: SEARCH_DEMO.marker, matchCase: true }));
      const data = dataOf<Searched>(r);
      assert.equal(data.files.length, 1);
      const hits = data.files[0]!.revisions;
      assert.deepEqual(hits.map((h) => [h.id, h.added, h.removed]), [[ids[4], 0, 2], [ids[3], 1, 0], [ids[1], 1, 0]]);
      assert.match(hits[2]!.firstMatch!.text, /TODO-SEARCH-MARKER: replace the hero image/);
      // One file, one request (every revision with its content); the same search again: none.
      const history = async () => (await control(url, 'stats')).requests.map((q) => q.operation).filter((op) => op !== 'getSites');
      assert.deepEqual(await history(), ['getRevisions']);
      await invoke(TOOL_NAMES.searchHistory, { site: marketing.id, path, query: SEARCH_DEMO.marker, matchCase: true, mode: 'contains' });
      assert.deepEqual(await history(), ['getRevisions'], 'the contents are cached');
    });

    it('search a site and a folder: exactly the files that hold the text; contains mode lists every matching revision', async () => {
      const site = dataOf<Searched>(keep(await invoke(TOOL_NAMES.searchHistory, { site: SEARCH_DEMO.siteName, query: SEARCH_DEMO.marker, matchCase: true })));
      assert.deepEqual(site.files.map((f) => f.path).sort(), ['campaigns/autumn/notes.txt', 'campaigns/spring/index.html', 'campaigns/spring/styles.css', 'index.html']);
      const folder = dataOf<Searched>(keep(await invoke(TOOL_NAMES.searchHistory, { site: marketing.id, folder: `${SEARCH_DEMO.folder}/`, query: SEARCH_DEMO.folderNeedle, mode: 'contains' })));
      assert.deepEqual(folder.files.map((f) => [f.path, f.revisions.length]).sort(), [['campaigns/autumn/notes.txt', 2], ['campaigns/autumn/teaser.html', 2]]);
      const bad = textOf(await invoke(TOOL_NAMES.searchHistory, { site: marketing.id, query: '(unclosed', isRegExp: true }));
      assert.match(bad, /The query cannot be used/);
    });

    it('a folder or site scan asks first, naming how many files it reads; one file does not', async () => {
      const token = new vscode.CancellationTokenSource().token;
      const files = (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${marketing.id}`)).files;
      const site = await (await api.history()).lmTools.prepare(TOOL_NAMES.searchHistory, { site: marketing.id, query: 'x' }, token);
      assert.equal(site?.confirmationMessages?.title, `Search the history of ${files.length} files?`);
      const message = site!.confirmationMessages!.message;
      // Text from the service is appended as text (appendText escapes markdown, spaces become &nbsp;).
      assert.ok(message instanceof vscode.MarkdownString);
      const shown = message.value.replace(/&nbsp;/g, ' ');
      assert.ok(shown.includes(`${files.length} files of the site "${SEARCH_DEMO.siteName}"`), shown);
      const inFolder = files.filter((f) => f.startsWith(`${SEARCH_DEMO.folder}/`)).length;
      const folder = await (await api.history()).lmTools.prepare(TOOL_NAMES.siteChanges, { site: marketing.id, folder: SEARCH_DEMO.folder }, token);
      assert.equal(folder?.confirmationMessages?.title, `List the changes of ${inFolder} files?`);
      const one = await (await api.history()).lmTools.prepare(TOOL_NAMES.searchHistory, { site: marketing.id, path: 'index.html', query: 'x' }, token);
      assert.equal(one?.confirmationMessages, undefined);
      assert.match(String(one?.invocationMessage), /Searching the history for "x"/);
    });

    it('a scan’s cost comes from the input the run reads: an empty path, or a path given to Site Changes, still asks; so does a preparation that fails', async () => {
      const token = new vscode.CancellationTokenSource().token;
      const files = (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${marketing.id}`)).files;
      const lm = (await api.history()).lmTools;
      const empty = await lm.prepare(TOOL_NAMES.searchHistory, { site: marketing.id, path: '', query: 'x' }, token);
      assert.equal(empty?.confirmationMessages?.title, `Search the history of ${files.length} files?`);
      const odd = await lm.prepare(TOOL_NAMES.searchHistory, { site: marketing.id, path: 42, query: 'x' }, token);
      assert.equal(odd?.confirmationMessages?.title, `Search the history of ${files.length} files?`);
      const changes = await lm.prepare(TOOL_NAMES.siteChanges, { site: marketing.id, path: 'index.html' }, token);
      assert.equal(changes?.confirmationMessages?.title, `List the changes of ${files.length} files?`);
      // What the preparation cannot work out, it asks about: an unknown site, a file list the service refuses.
      const unknown = await lm.prepare(TOOL_NAMES.siteChanges, { site: 'no such site at all' }, token);
      assert.equal(unknown?.confirmationMessages?.title, 'List the changes of every file in the scope?');
      await control(url, 'config', { appendSites: [{ id: '9100', name: 'Ghost site', server_type: 'FTP', shared: false }] });
      try {
        api.model.refresh();
        assert.ok((await api.model.all()).some((s) => s.id === '9100'), 'the site is listed');
        const refused = await lm.prepare(TOOL_NAMES.siteChanges, { site: '9100', folder: 'docs' }, token);
        assert.equal(refused?.confirmationMessages?.title, 'List the changes of every file in the scope?');
        const message = refused!.confirmationMessages!.message as vscode.MarkdownString;
        assert.match(message.value.replace(/&nbsp;/g, ' '), /the files in the folder "docs" of the site "Ghost site"; how many files that is could not be worked out/);
        const search = await lm.prepare(TOOL_NAMES.searchHistory, { site: '9100', query: 'x' }, token);
        assert.equal(search?.confirmationMessages?.title, 'Search the history of every file in the scope?');
      } finally {
        await control(url, 'config', { appendSites: [] });
        api.model.refresh();
      }
    });

    it('site changes: the files changed in the last 7 days, by author, with the revisions to compare', async () => {
      type Changes = { total: number; files: { path: string; revisions: { id: string; author: string }[]; newestInPeriod: string; lastBeforePeriod: string | null }[] };
      const all = dataOf<Changes>(keep(await invoke(TOOL_NAMES.siteChanges, { site: marketing.id, period: 'last7days' })));
      const expected = SEARCH_DEMO.files.filter((f) => f.revisions.some((r) => r.daysAgo <= 6)).map((f) => f.path);
      assert.deepEqual(all.files.map((f) => f.path).sort(), [...expected].sort());
      const spring = all.files.find((f) => f.path === 'campaigns/spring/index.html')!;
      const ids = await idsOf(spring.path);
      assert.deepEqual(spring.revisions.map((r) => r.id), [ids[5], ids[4], ids[3]], 'revisions 6, 5 and 4 (0, 2 and 5 days ago), newest first');
      assert.equal(spring.newestInPeriod, ids[5]);
      assert.equal(spring.lastBeforePeriod, ids[2], 'revision 3, 12 days ago');
      assert.equal(all.files.find((f) => f.path === 'campaigns/summer/launch.md')!.lastBeforePeriod, null, 'new in the period');
      const lena = SEARCH_DEMO.authors[1];
      const byLena = dataOf<Changes>(keep(await invoke(TOOL_NAMES.siteChanges, { site: marketing.id, authors: [lena] })));
      const lenas = SEARCH_DEMO.files.filter((f) => f.revisions.some((r) => r.daysAgo <= 6 && r.author === lena)).map((f) => f.path);
      assert.deepEqual(byLena.files.map((f) => f.path).sort(), [...lenas].sort());
      assert.ok(byLena.files.every((f) => f.revisions.every((r) => r.author === lena)));
      assert.match(textOf(await invoke(TOOL_NAMES.siteChanges, { site: marketing.id, period: 'since', since: 'last friday' })), /YYYY-MM-DD/);
    });
  });

  /**
   * Signs in again (no site allowed: the answers are kept in memory until sign-out) and records
   * what VS Code gets when it prepares each invocation (the tool registered at activation calls
   * `prepare`); `original` puts it back.
   */
  async function signedInAfresh() {
    await api.session.signOut();
    await signInDemo(url);
    const features = await api.history();
    const lm = features.lmTools;
    const prepared: (vscode.PreparedToolInvocation | undefined)[] = [];
    const original = lm.prepare;
    lm.prepare = async (...args) => {
      const p = await original.apply(lm, args);
      prepared.push(p);
      return p;
    };
    return { features, lm, prepared, original };
  }

  it('revision contents go out only after the user’s yes, asked once per site, also to an extension that invokes the tool without a chat', async () => {
    const token = new vscode.CancellationTokenSource().token;
    const own = sites.filter((s) => !s.shared);
    const [first, second, third] = [own.find((s) => s.server_type === 'FTP')!, own.find((s) => s.server_type === 'SFTP')!, own.find((s) => s.server_type === 'WebDAV')!];
    assert.ok(first && second && third, 'three sites of the demo user');
    const files = (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${first.id}`)).files;
    const revs = (await serviceRead<{ revisions: { id: string }[] }>(url, `/api/revisions?site=${first.id}&file=${encodeURIComponent(files[0]!)}&no_content=1`)).revisions;
    const content = (await serviceRead<{ content: string }>(url, `/api/revisions?site=${first.id}&revision=${revs[0]!.id}`)).content;
    // A fresh sign-in: no site is allowed yet (the answers are kept in memory, until sign-out).
    const { features, lm, prepared, original } = await signedInAfresh();
    try {
      // Invoked as any extension can: vscode.lm.invokeTool, no chat. VS Code asks the user with the
      // confirmation the preparation returns (in this test host its dialogs answer yes).
      const r = dataOf<{ content: string }>(keep(await invoke(TOOL_NAMES.getRevision, { site: first.id, revisionId: revs[0]!.id, path: files[0] })));
      assert.equal(prepared.length, 1, 'VS Code prepared the invocation');
      const asked = prepared[0]?.confirmationMessages;
      assert.equal(asked?.title, 'Hand out the content of revisions?');
      assert.ok(asked?.message instanceof vscode.MarkdownString);
      const said = asked.message.value.replace(/&nbsp;/g, ' ');
      assert.ok(said.includes(`of the site "${first.name}"`) && said.includes(`revision "${revs[0]!.id}"`), said);
      assert.match(said, /any installed extension/);
      assert.equal(r.content, content, 'after the yes, the content');
      // Once per site: the same site by its name asks nothing more; another site is asked.
      await invoke(TOOL_NAMES.getRevision, { site: first.name, revisionId: revs[revs.length - 1]!.id });
      assert.equal(prepared.length, 2);
      assert.equal(prepared[1]?.confirmationMessages, undefined, 'the site was allowed');
      const other = await lm.prepare(TOOL_NAMES.getRevision, { site: second.id, revisionId: '1' }, token);
      assert.equal(other?.confirmationMessages?.title, 'Hand out the content of revisions?');
      // A search of one file quotes the lines that match: the same question for a site not allowed.
      const search = await lm.prepare(TOOL_NAMES.searchHistory, { site: second.id, path: 'index.php', query: 'x' }, token);
      assert.equal(search?.confirmationMessages?.title, 'Hand out the content of revisions?');
      assert.match((search!.confirmationMessages!.message as vscode.MarkdownString).value.replace(/&nbsp;/g, ' '), /The result quotes the lines that match\./);
    } finally {
      lm.prepare = original;
    }
    // An invocation that no confirmation came before reads nothing, and says why.
    await control(url, 'reset-stats');
    const unprepared = async (name: string, input: object) => textOf((await features.tools.get(name)!.invoke({ input, toolInvocationToken: undefined }, token))!);
    const unasked = await unprepared(TOOL_NAMES.getRevision, { site: third.id, revisionId: '1' });
    assert.match(unasked, /has not allowed the tools to hand out the content of revisions of site/);
    const unaskedSearch = await unprepared(TOOL_NAMES.searchHistory, { site: third.id, path: 'index.php', query: 'x' });
    assert.match(unaskedSearch, /has not allowed/);
    assert.deepEqual((await control(url, 'stats')).requests.filter((q) => q.operation !== 'getSites').map((q) => q.operation), [], 'no revision was read');
    // Sign-out forgets every answer: signed in again, the first site is asked again.
    await api.session.signOut();
    await signInDemo(url);
    const again = await lm.prepare(TOOL_NAMES.getRevision, { site: first.id, revisionId: revs[0]!.id }, token);
    assert.equal(again?.confirmationMessages?.title, 'Hand out the content of revisions?');
  });

  it('consent follows the content: a yes for one site hands out no other site’s revision, and lists no other site’s revision ids, even from a service that answers by id or path alone', async () => {
    const token = new vscode.CancellationTokenSource().token;
    const own = sites.filter((s) => !s.shared);
    const filesOf = async (site: Site) => (await serviceRead<{ files: string[] }>(url, `/api/revisions?site=${site.id}`)).files;
    const revsOf = async (site: Site, path: string) => (await serviceRead<{ revisions: { id: string }[] }>(url, `/api/revisions?site=${site.id}&file=${encodeURIComponent(path)}&no_content=1`)).revisions;
    // "Public Blog", allowed; "Client Production", never allowed, with a file the first has not.
    const allowed = own.find((s) => s.server_type === 'FTP')!;
    const allowedFiles = await filesOf(allowed);
    let other: Site | undefined;
    let secretPath = '';
    for (const s of own.filter((x) => x.id !== allowed.id)) {
      const f = (await filesOf(s)).find((p) => !allowedFiles.includes(p));
      if (f) [other, secretPath] = [s, f];
      if (other) break;
    }
    assert.ok(other, 'another site of the demo user with a file the allowed site has not');
    const secretRev = (await revsOf(other, secretPath))[0]!;
    const secret = (await serviceRead<{ content: string }>(url, `/api/revisions?site=${other.id}&revision=${secretRev.id}`)).content;
    assert.ok(secret.length > 20, 'a content to look for');
    const ownPath = allowedFiles[0]!;
    const ownRev = (await revsOf(allowed, ownPath))[0]!;
    // A fresh sign-in, then the user's yes for the allowed site (a revision of its own).
    const { features, lm, prepared, original } = await signedInAfresh();
    const unprepared = async (input: object) => textOf((await features.tools.get(TOOL_NAMES.getRevision)!.invoke({ input, toolInvocationToken: undefined }, token))!);
    const contentReads = async () => (await control(url, 'stats')).requests.filter((q) => q.operation === 'getRevision').length;
    try {
      assert.ok(dataOf<{ content: string }>(await invoke(TOOL_NAMES.getRevision, { site: allowed.id, revisionId: ownRev.id, path: ownPath })).content.length > 0);
      assert.equal(prepared.at(-1)?.confirmationMessages?.title, 'Hand out the content of revisions?', 'the yes for the allowed site');
      // From here the service answers Get Revision by the id and Get Revisions by the path alone.
      await control(url, 'config', { readsIgnoreSite: true });
      await control(url, 'reset-stats');
      // The other site's revision id under the allowed site, no path: nothing of this session lists
      // it there, so it is asked about, for this call; without that yes, nothing is read.
      const refused = await unprepared({ site: allowed.id, revisionId: secretRev.id });
      assert.match(refused, /is not among the revisions listed for site .* and the user was not asked about it for this call/);
      assert.ok(!refused.includes(secret));
      const asked = await lm.prepare(TOOL_NAMES.getRevision, { site: allowed.id, revisionId: secretRev.id }, token);
      const question = (asked?.confirmationMessages?.message as vscode.MarkdownString | undefined)?.value.replace(/&nbsp;/g, ' ') ?? '';
      assert.match(question, new RegExp(`Revision "${secretRev.id}" is not among the revisions listed for the site "${allowed.name}" in this session`), 'asked, although the site is allowed');
      assert.doesNotMatch(question, /without asking again/, 'the site was allowed already: only this revision is asked about');
      // With the other site's path: no file of the allowed site; with one of its own: not one of its revisions.
      const byPath = textOf(await invoke(TOOL_NAMES.getRevision, { site: allowed.id, revisionId: secretRev.id, path: secretPath }));
      assert.match(byPath, /is not a file with revisions on site .*No content was read\./);
      const byOwnPath = textOf(await invoke(TOOL_NAMES.getRevision, { site: allowed.id, revisionId: secretRev.id, path: ownPath }));
      assert.match(byOwnPath, /is not one of the revisions of .* on site .*No content was read\./);
      for (const t of [byPath, byOwnPath]) assert.ok(!t.includes(secret), t.slice(0, 200));
      assert.equal(await contentReads(), 0, 'no content was asked of the service');
      // List Revisions under the allowed site with the other site's path gives out none of its ids.
      const listed = textOf(await invoke(TOOL_NAMES.listRevisions, { site: allowed.id, path: secretPath }));
      assert.match(listed, /is not a file with revisions on site/);
      assert.ok(!listed.includes(`"${secretRev.id}"`), listed.slice(0, 300));
      // Listed under the site it belongs to, the revision needs that site's own yes.
      assert.ok(dataOf<{ revisions: { id: string }[] }>(await invoke(TOOL_NAMES.listRevisions, { site: other.id, path: secretPath })).revisions.some((r) => r.id === secretRev.id));
      const ownSite = await lm.prepare(TOOL_NAMES.getRevision, { site: other.id, revisionId: secretRev.id }, token);
      assert.match((ownSite?.confirmationMessages?.message as vscode.MarkdownString).value.replace(/&nbsp;/g, ' '), new RegExp(`of the site "${other.name}"`));
      assert.doesNotMatch((ownSite?.confirmationMessages?.message as vscode.MarkdownString).value, /not among the revisions listed/);
    } finally {
      lm.prepare = original;
      await control(url, 'config', { readsIgnoreSite: false });
      // Leave no answer behind for the other tests.
      await api.session.signOut();
      await signInDemo(url);
    }
  });

  it('sites are handed out without user:password@ in their host and web URL; a filter does not find the password', async () => {
    const site = sites.find((s) => !s.shared && s.server_type === 'SFTP')!;
    const secretHost = `deploy:Host-S3cret-pw@${site.domain}`;
    const secretUrl = site.web_url.replace('https://', 'https://admin:Url-S3cret-pw@');
    await api.session.call((c) => c.updateSite(site.id, { name: site.name, domain: secretHost, web_url: secretUrl }));
    try {
      api.model.refresh();
      const listed = dataOf<{ sites: { id: string; host: string; webUrl: string }[] }>(await invoke(TOOL_NAMES.listSites, {}));
      const got = listed.sites.find((s) => s.id === site.id)!;
      assert.deepEqual([got.host, got.webUrl], [site.domain, site.web_url]);
      const all = JSON.stringify(listed);
      assert.ok(!all.includes('S3cret') && !all.includes('deploy:') && !all.includes('admin:'), all);
      assert.deepEqual(dataOf<{ sites: unknown[] }>(await invoke(TOOL_NAMES.listSites, { filter: 'S3cret' })).sites, [], 'the password is not there to find');
    } finally {
      await api.session.call((c) => c.updateSite(site.id, { name: site.name, domain: site.domain, web_url: site.web_url }));
      api.model.refresh();
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
        [TOOL_NAMES.searchHistory, { site: '1', query: 'x' }],
        [TOOL_NAMES.siteChanges, { site: '1' }],
        [LIVE_TOOL, { site: '1' }],
      ] as const) {
        const t = textOf(keep(await invoke(name, input)));
        assert.match(t, /not signed in to Site Revisions/, name);
      }
      assert.equal((await control(url, 'stats')).requests.length, 0, 'no request while signed out');
    } finally {
      await signInDemo(url);
    }
  });

  // Last (mocha runs nested suites after the tests beside them): every result collected above.
  describe('every result', () => {
    it('carries no password and no API key', () => {
      assert.ok(results.length >= 15, `${results.length} results collected`);
      for (const r of results) for (const s of secrets) assert.ok(!r.includes(s), `a tool result contains a secret (${s.slice(0, 2)}…)`);
    });
  });
});

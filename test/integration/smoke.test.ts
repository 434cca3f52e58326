// Smoke: the extension as shipped. `node out/test/host/vsix.js` runs this suite against the
// .vsix installed into code-server (env SITE_REVISIONS_TEST_INSTALLED_PATH names where it went);
// in the ordinary integration run the same checks apply to the development copy.
// Only types come from src/: everything checked here is the installed extension's own code.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Site } from '../../src/core/api/types';
import { DEMO } from '../server/demo';
import { SEARCH_DEMO } from '../server/seed-search';
import { disposeCopy, freshContext, importCopy, prepareCopy, runningBundle } from './freshCopy';
import { screen } from './screen';
import { EXTENSION_ID, testService } from './util';

/** The demo account's sites, straight from the service (what the view must show). */
async function serviceSites(url: string): Promise<string[]> {
  const body = new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password });
  const res = await fetch(`${url}/api/sites`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const json = (await res.json()) as { success: boolean; sites: Site[] };
  assert.equal(json.success, true);
  return json.sites.map((s) => s.name).sort();
}

describe('Smoke', function () {
  this.timeout(60000);
  const installed = process.env.SITE_REVISIONS_TEST_INSTALLED_PATH || undefined;

  it(installed ? 'the installed .vsix (not the repository) is the extension that activates' : 'the extension activates', async () => {
    const e = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(e, `${EXTENSION_ID} is not loaded`);
    if (installed) {
      assert.equal(path.resolve(e.extensionUri.fsPath), path.resolve(installed));
      const repo = path.resolve(__dirname, '..', '..', '..');
      assert.notEqual(path.resolve(e.extensionUri.fsPath), repo);
      // The installed copy holds the minified bundle and none of the sources.
      for (const absent of ['src', 'test', 'out', 'node_modules', 'tsconfig.json', 'dist/extension.mjs.map']) {
        assert.ok(!fs.existsSync(path.join(e.extensionUri.fsPath, absent)), `${absent} is in the installed extension`);
      }
      assert.doesNotMatch(fs.readFileSync(path.join(e.extensionUri.fsPath, 'dist', 'extension.mjs'), 'utf8'), /sourceMappingURL/);
    }
    if (!e.isActive) await e.activate();
    assert.equal(e.isActive, true);
    assert.equal((e.packageJSON as { name: string }).name, 'site-revisions');
  });

  it('every contributed command is registered', async () => {
    const e = vscode.extensions.getExtension(EXTENSION_ID)!;
    const contributed = (e.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);
    assert.ok(contributed.length >= 20, `${contributed.length} commands`);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
    assert.ok(registered.has('siteRevisions.sites.focus'), 'the Sites view is contributed');
  });

  it('after sign-in the Sites view draws the demo sites', async function () {
    const s = screen();
    if (!s) this.skip();
    const url = (await testService()).url;
    const expected = await serviceSites(url);
    assert.ok(expected.length >= 10, `demo sites on the service (${expected.length})`);
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: DEMO.user.email, password: DEMO.user.password });
    await vscode.commands.executeCommand('siteRevisions.clearFilter');
    await s!.openSitesView();
    // Every demo site's name is drawn as a row of the Sites view (the tree is virtualised: the
    // first rows suffice to show that the list came from the service, sorted by name).
    const sorted = [...expected].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true }));
    const rows = await s!.until(() => s!.rows(), (r) => r.length >= 5, 'the demo sites in the Sites view', 20000);
    for (const name of sorted.slice(0, 5)) assert.ok(rows.some((r) => r.startsWith(name)), `“${name}” is drawn (rows: ${JSON.stringify(rows.slice(0, 8))})`);
  });

  it('expanding a site draws its files: the revisions feature, a chunk of its own, loads on that first expansion', async function () {
    const s = screen();
    if (!s) this.skip();
    const url = (await testService()).url;
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: DEMO.user.email, password: DEMO.user.password });
    await s!.openSitesView();
    await s!.expandPath(['Acme Corporate']);
    const files = await s!.until(
      () => s!.texts({ selector: `${s!.pane('Sites')} .monaco-list-row[aria-level="2"]` }),
      (r) => r.some((x) => /^\s*index\.php/.test(x)),
      'the files of Acme Corporate drawn under it',
      20000,
    );
    assert.ok(!files.some((x) => /could not|failed|reload/i.test(x)), `no error row: ${JSON.stringify(files)}`);
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
  });

  it('History Search, a chunk of its own, loads on its first command and draws what it found', async function () {
    const s = screen();
    if (!s) this.skip();
    const url = (await testService()).url;
    const body = new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password });
    const sites = ((await (await fetch(`${url}/api/sites`, { method: 'POST', body })).json()) as { sites: Site[] }).sites;
    const site = sites.find((x) => x.name === SEARCH_DEMO.siteName);
    assert.ok(site, `the demo site ${SEARCH_DEMO.siteName}`);
    // The command registered at activation imports the chunk and runs its handler: what it finds
    // comes through the extension's own session, store and client (one instance of each).
    const run = (await vscode.commands.executeCommand('siteRevisions.searchHistory', { site }, { query: { pattern: SEARCH_DEMO.marker, matchCase: true }, mode: 'changes' })) as { state?: string } | undefined;
    assert.equal(run?.state, 'done');
    await vscode.commands.executeCommand('siteRevisions.historySearch.focus');
    for (const title of ['Sites', 'History Search', 'Site Changes']) await s!.setPaneExpanded(title, title === 'History Search');
    const rows = await s!.until(() => s!.rows('History Search'), (r) => r.some((x) => /Marketing Drive · changes · \d+ files?, \d+ revisions?/.test(x)), 'the search drawn in the History Search view', 20000);
    assert.match(rows[0]!, new RegExp(SEARCH_DEMO.marker));
    await vscode.commands.executeCommand('siteRevisions.clearSearches');
    for (const [title, expanded] of [['Sites', true], ['History Search', false], ['Site Changes', false]] as const) await s!.setPaneExpanded(title, expanded);
  });

  it('Toggle Revision Blame, a chunk of its own, loads on its first command and says why a file outside a mapped folder has no blame', async function () {
    const s = screen();
    if (!s) this.skip();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'a workspace folder');
    const file = vscode.Uri.joinPath(folder.uri, 'smoke-unmapped.txt');
    fs.writeFileSync(file.fsPath, 'not on any site\n');
    try {
      await vscode.window.showTextDocument(file);
      assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame', file), 'none');
      await vscode.commands.executeCommand('notifications.showList');
      await s!.until(() => s!.notifications(), (n) => n.some((m) => m.includes('smoke-unmapped.txt has no revisions on a site mapped to its folder')), 'the blame’s message drawn', 20000);
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(file.fsPath, { force: true });
    }
  });

  it('New Site, whose host side is a chunk of its own, opens the form in a tab of its own', async function () {
    const s = screen();
    if (!s) this.skip();
    await vscode.commands.executeCommand('siteRevisions.createSite');
    try {
      await s!.until(() => s!.tabTitles(), (t) => t.includes('New site'), 'the New site tab', 20000);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('a file loaded on first use that is missing (the extension updated under this window) ends in “reload the window” with a Reload Window button, not a stack trace', async function () {
    const s = screen();
    if (!s) this.skip();
    // A copy of the extension as shipped (../freshCopy.ts) without the chunk of History Search, as
    // when VS Code replaced the extension's folder while this window runs the old version.
    const dist = path.dirname(runningBundle());
    const marker = 'siteRevisions.historySearch.running'; // a context key only History Search's code sets
    const missing = fs.readdirSync(dist).filter((f) => f.endsWith('.mjs') && fs.readFileSync(path.join(dist, f), 'utf8').includes(marker));
    assert.equal(missing.length, 1, `History Search's chunk: ${missing.join(', ')}`);
    const tag = `missing${Date.now().toString(36)}`;
    const entry = prepareCopy(runningBundle(), tag, (f) => f === missing[0]);
    const ctx = freshContext((await testService()).url, DEMO.user.email, DEMO.user.password);
    try {
      (await importCopy(entry)).activate(ctx);
      await vscode.commands.executeCommand('notifications.clearAll');
      // The copy's Search History (its commands carry the tag): it settles, without an error.
      assert.equal(await vscode.commands.executeCommand(`siteRevisions.searchHistory.${tag}`), undefined);
      await vscode.commands.executeCommand('notifications.showList');
      const shown = await s!.until(() => s!.notifications(), (n) => n.some((m) => m.includes('Site Revisions was updated while this window was open: reload the window.')), 'the reload message drawn', 20000);
      assert.deepEqual(shown.filter((m) => /Cannot find|ERR_MODULE_NOT_FOUND|\.mjs|failed/i.test(m)), [], 'no error text or stack trace');
      assert.ok((await s!.notificationButtons()).includes('Reload Window'), 'a Reload Window button');
      // Once more: the same single message, not a second one.
      await vscode.commands.executeCommand(`siteRevisions.searchHistory.${tag}`);
      assert.equal((await s!.notifications()).filter((m) => m.includes('reload the window')).length, 1);
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      disposeCopy(ctx);
    }
  });

  it('a missing search thread script (dist/searchWorker.js, the extension updated under this window) ends a search in “reload the window” with a Reload Window button, not “Cannot find module”', async function () {
    const s = screen();
    if (!s) this.skip();
    const dist = path.dirname(runningBundle());
    assert.ok(fs.existsSync(path.join(dist, 'searchWorker.js')), 'the running extension has its search thread');
    // A copy of the extension as shipped, every chunk in it, without the search thread's script.
    const tag = `noworker${Date.now().toString(36)}`;
    const entry = prepareCopy(runningBundle(), tag);
    assert.ok(!fs.existsSync(path.join(path.dirname(entry), 'searchWorker.js')));
    const url = (await testService()).url;
    const body = new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password });
    const site = ((await (await fetch(`${url}/api/sites`, { method: 'POST', body })).json()) as { sites: Site[] }).sites.find((x) => x.name === SEARCH_DEMO.siteName);
    assert.ok(site, `the demo site ${SEARCH_DEMO.siteName}`);
    const ctx = freshContext(url, DEMO.user.email, DEMO.user.password);
    try {
      (await importCopy(entry)).activate(ctx);
      await vscode.commands.executeCommand('notifications.clearAll');
      const run = (await vscode.commands.executeCommand(`siteRevisions.searchHistory.${tag}`, { site }, { query: { pattern: SEARCH_DEMO.marker, matchCase: true }, mode: 'changes' })) as { state?: string; error?: string } | undefined;
      assert.equal(run?.state, 'failed');
      assert.equal(run?.error, 'Site Revisions was updated while this window was open: reload the window.');
      await vscode.commands.executeCommand('notifications.showList');
      const shown = await s!.until(() => s!.notifications(), (n) => n.some((m) => m.includes('Site Revisions was updated while this window was open: reload the window.')), 'the reload message drawn', 20000);
      assert.deepEqual(shown.filter((m) => /Cannot find|MODULE_NOT_FOUND|searchWorker|search thread/i.test(m)), [], 'no error text');
      assert.ok((await s!.notificationButtons()).includes('Reload Window'), 'a Reload Window button');
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      disposeCopy(ctx);
      // The search focused the History Search view: the side bar as the other suites expect it.
      for (const [title, expanded] of [['Sites', true], ['History Search', false], ['Site Changes', false]] as const) await s!.setPaneExpanded(title, expanded);
    }
  });

  it('the installed extension exports nothing that leads to secrets, the session or the client', async function () {
    if (!installed) this.skip(); // the development build returns test handles on purpose
    const e = vscode.extensions.getExtension(EXTENSION_ID)!;
    // After activation and a sign-in (previous test), another extension reads these exports.
    assert.equal(e.isActive, true);
    const exported = e.exports as unknown;
    assert.equal(exported, undefined, `exports: ${typeof exported} ${exported && typeof exported === 'object' ? Object.keys(exported).join(', ') : ''}`);
  });

  after(async () => {
    // Leave the host as the other suites expect to find it.
    await vscode.commands.executeCommand('siteRevisions.signOut').then(undefined, () => undefined);
  });
});

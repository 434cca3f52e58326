// Sign-in and the Sites view, in the real extension host against the local service.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { secretKey } from '../../src/features/auth/session';
import { SiteNode } from '../../src/features/sites/sitesTree';
import type { Site } from '../../src/core/api/types';
import { DEMO } from '../server/demo';
import { ext, testService, waitFor } from './util';
import { control, isDisposed, settled, signInDemo, stubWindow } from './support';
import { screen } from './screen';
import type { SiteRevisionClient } from '../../src/core/api';

describe('Sites', function () {
  this.timeout(60000);
  let api: ExtensionApi;
  let url: string;

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'reseed');
    await api.session.signOut();
  });

  afterEach(async () => {
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
  });

  const sites = async () => (await api.tree.getChildren()) as SiteNode[];

  it('starts signed out: no sites, the view asks to sign in', async () => {
    assert.equal(api.session.state, 'signedOut');
    assert.deepEqual(await sites(), []);
    assert.equal(api.model.state, 'signedOut');
  });

  it('refuses a wrong password and stores nothing', async () => {
    await assert.rejects(
      async () => vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: DEMO.user.email, password: 'wrong-password' }),
      (e: Error) => /not accepted/.test(e.message) && !e.message.includes('wrong-password'),
    );
    assert.equal(api.session.state, 'signedOut');
    assert.equal(await api.context.secrets.get(secretKey(url, DEMO.user.email, 'password')), undefined);
  });

  it('signs in after a real call; the password and API key are in SecretStorage and nowhere else', async () => {
    // The key account has distinctive secrets (the demo password is a substring of its email).
    const { email, password, apiKey } = DEMO.keyUser;
    const before = await control(url, 'stats');
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email, password, apiKey });
    assert.equal(api.session.state, 'signedIn');
    const after = await control(url, 'stats');
    assert.equal(after.counts.getSites - before.counts.getSites, 1, 'sign-in verified with one Get Sites');
    assert.equal(await api.context.secrets.get(secretKey(url, email, 'password')), password);
    assert.equal(await api.context.secrets.get(secretKey(url, email, 'apiKey')), apiKey);
    // Settings and global/workspace state hold no secret.
    const cfg = vscode.workspace.getConfiguration('siteRevisions');
    assert.equal(cfg.get('serviceUrl'), url);
    const settingsText = JSON.stringify(['serviceUrl', 'caFile', 'requestTimeoutSeconds'].map((k) => cfg.inspect(k)));
    for (const state of [api.context.globalState, api.context.workspaceState]) {
      const dump = JSON.stringify(state.keys().map((k) => [k, state.get(k)]));
      for (const secret of [password, apiKey]) {
        assert.ok(!dump.includes(secret), 'no secret in extension state');
        assert.ok(!settingsText.includes(secret), 'no secret in settings');
      }
    }
    // Every request URL the service received carries no credential.
    for (const r of after.requests) assert.ok(!r.url.includes(password) && !r.url.includes(apiKey) && !/email=|password=/.test(r.url), r.url);
    await api.session.signOut();
    assert.equal(await api.context.secrets.get(secretKey(url, email, 'apiKey')), undefined, 'sign out forgets the key');
    await signInDemo(url);
  });

  it('lists every site, sorted by name, with type · domain, icon and a tooltip without passwords', async () => {
    const nodes = await sites();
    assert.ok(nodes.length >= 10, `demo sites listed (${nodes.length})`);
    const names = nodes.map((n) => n.site.name);
    assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true })));
    const types = new Set(nodes.map((n) => n.site.server_type));
    for (const t of ['None', 'FTP', 'SFTP', 'Dropbox', 'GDrive', 'GDriveLimited', 'WebDAV', 'AmazonS3', 'AJAX']) assert.ok(types.has(t), `a ${t} site`);
    for (const n of nodes) {
      const item = n.getTreeItem();
      assert.ok(String(item.description).startsWith(n.site.server_type), String(item.description));
      assert.ok(item.iconPath instanceof vscode.ThemeIcon);
      const tip = (item.tooltip as vscode.MarkdownString).value;
      for (const secret of [n.site.ftp_pass, n.site.db_password].filter((s) => s.length > 2)) assert.ok(!tip.includes(secret), `no password in the tooltip of ${n.site.name}`);
      assert.equal((item.tooltip as vscode.MarkdownString).isTrusted, false);
    }
    const shared = nodes.filter((n) => n.site.shared);
    assert.ok(shared.length >= 1, 'a shared site');
    assert.match(String(shared[0].getTreeItem().description), /shared/);
    assert.match(String(shared[0].getTreeItem().contextValue), /^site\.shared/);
  });

  it('filters the list and clears the filter', async () => {
    await vscode.commands.executeCommand('siteRevisions.filterSites', 'sftp');
    const filtered = await sites();
    assert.ok(filtered.length >= 1);
    assert.ok(filtered.every((n) => [n.site.name, n.site.domain, n.site.server_type].some((v) => v.toLowerCase().includes('sftp'))));
    assert.equal(api.view.description, 'filter: sftp');
    await vscode.commands.executeCommand('siteRevisions.clearFilter');
    assert.ok((await sites()).length > filtered.length);
  });

  it('refresh really refetches', async () => {
    await sites();
    const before = (await control(url, 'stats')).counts.getSites;
    await sites(); // cached: no request
    assert.equal((await control(url, 'stats')).counts.getSites, before);
    await vscode.commands.executeCommand('siteRevisions.refresh');
    await sites();
    assert.equal((await control(url, 'stats')).counts.getSites, before + 1);
  });

  it('creates a site through the editor', async () => {
    await vscode.commands.executeCommand('siteRevisions.createSite');
    const ed = api.editors.last!;
    await ed.simulate({ type: 'ready' });
    const values = { ...ed.initialState.values, name: 'Integration FTP', server_type: 'FTP', domain: 'ftp.integration.test', port: '2121', ftp_user: 'deploy', ftp_pass: 'S3cret-typed', dir: '/www', pasv: '1' };
    await ed.simulate({ type: 'save', values, passwordEdited: { ftp_pass: true, db_password: false } });
    const saved = await ed.done;
    assert.ok(saved?.siteId);
    const site = await waitFor(async () => (await api.model.all()).find((s) => s.id === saved.siteId));
    assert.equal(site.name, 'Integration FTP');
    assert.equal(site.domain, 'ftp.integration.test');
    assert.equal(site.port, '2121');
    assert.equal(site.ftp_pass, 'S3cret-typed');
  });

  it('a failed save shows the service message, keeps the form open and the input, and can succeed after', async () => {
    const site = (await api.model.all()).find((s) => s.name === 'Integration FTP')!;
    await vscode.commands.executeCommand('siteRevisions.editSite', site.id);
    const ed = api.editors.last!;
    await ed.simulate({ type: 'ready' });
    const init = ed.lastPosted;
    assert.equal(init?.type, 'init');
    assert.ok(!JSON.stringify(ed.posted).includes('S3cret-typed'), 'the stored password is never sent to the webview');
    await control(url, 'config', { failNext: [{ kind: 'http500', operation: 'saveSite' }] });
    const values = { ...ed.initialState.values, name: 'Integration FTP renamed' };
    await ed.simulate({ type: 'save', values, passwordEdited: { ftp_pass: false, db_password: false } });
    assert.equal(ed.lastPosted?.type, 'saveFailed');
    assert.match((ed.lastPosted as { message: string }).message, /500/);
    assert.equal(ed.posted.filter((m) => m.type === 'init').length, 1, 'the form was not reset');
    assert.ok(ed.panel.visible !== undefined && !isDisposed(ed.panel), 'the panel stays open');
    // The same input saved again succeeds; the unedited password is unchanged on the service.
    await ed.simulate({ type: 'save', values, passwordEdited: { ftp_pass: false, db_password: false } });
    assert.ok(await ed.done);
    api.model.refresh();
    const after = (await api.model.all()).find((s) => s.id === site.id)!;
    assert.equal(after.name, 'Integration FTP renamed');
    assert.equal(after.ftp_pass, 'S3cret-typed');
  });

  it('duplicates a site as “Copy of …” with a new id and the original password', async () => {
    const orig = (await api.model.all()).find((s) => s.name === 'Integration FTP renamed')!;
    await vscode.commands.executeCommand('siteRevisions.duplicateSite', orig.id);
    const ed = api.editors.last!;
    await ed.simulate({ type: 'ready' });
    assert.equal(ed.initialState.values.name, 'Copy of Integration FTP renamed');
    assert.ok(!JSON.stringify(ed.posted).includes('S3cret-typed'));
    await ed.simulate({ type: 'save', values: ed.initialState.values, passwordEdited: { ftp_pass: false, db_password: false } });
    const saved = await ed.done;
    assert.ok(saved && saved.siteId !== orig.id);
    api.model.refresh();
    const copy = (await api.model.all()).find((s) => s.id === saved.siteId)!;
    assert.equal(copy.name, 'Copy of Integration FTP renamed');
    assert.equal(copy.domain, orig.domain);
    assert.equal(copy.ftp_pass, 'S3cret-typed');
  });

  it('delete asks first: cancel keeps the site, confirm deletes it', async () => {
    const target = (await api.model.all()).find((s) => s.name === 'Copy of Integration FTP renamed') as Site;
    const asked: string[] = [];
    let answer: string | undefined;
    const restore = stubWindow('showWarningMessage', (msg: string) => {
      asked.push(msg);
      return Promise.resolve(answer);
    });
    try {
      answer = undefined;
      assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', target.id), false);
      assert.ok(asked[0].includes(target.name), 'the confirmation names the site');
      api.model.refresh();
      assert.ok((await api.model.all()).some((s) => s.id === target.id), 'cancel keeps it');
      answer = 'Delete';
      assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', target.id), true);
      api.model.refresh();
      assert.ok(!(await api.model.all()).some((s) => s.id === target.id), 'confirm deletes it');
    } finally {
      restore();
    }
  });

  it('copies site details without passwords', async () => {
    const site = (await api.model.all()).find((s) => s.ftp_pass.length > 2)!;
    const text = (await vscode.commands.executeCommand('siteRevisions.copySiteDetails', site.id)) as string;
    assert.ok(text.includes(site.name));
    assert.ok(!text.includes(site.ftp_pass));
    assert.equal(await vscode.env.clipboard.readText(), text);
  });

  it('hosts and URLs with user:password@: Copy Site Details, the row and its tooltip show them without it', async () => {
    const site = (await api.model.all()).find((s) => !s.shared && s.domain && s.web_url)!;
    const fields = { domain: `deploy:Host-S3cret-pw@${site.domain}`, web_url: site.web_url.replace('://', '://admin:Url-S3cret-pw@'), db_phpmyadmin: 'https://pma:Db-S3cret-pw@db.example/' };
    await api.session.call((c) => c.updateSite(site.id, { name: site.name, ...fields }));
    try {
      api.model.refresh();
      const stored = (await api.model.all()).find((s) => s.id === site.id)!;
      assert.equal(stored.domain, fields.domain, 'the service holds the URLs with their passwords');
      const text = (await vscode.commands.executeCommand('siteRevisions.copySiteDetails', site.id)) as string;
      const clipboard = await vscode.env.clipboard.readText();
      assert.equal(clipboard, text);
      assert.ok(!/S3cret|deploy:|:\/\/admin:|pma:/.test(clipboard), clipboard);
      for (const line of [`Host: ${site.domain}`, `Web URL: ${site.web_url}`, 'Database admin: https://db.example/']) assert.ok(clipboard.includes(line), `${line} in ${clipboard}`);
      const node = (await sites()).find((n) => n.site.id === site.id)!;
      const item = node.getTreeItem();
      for (const shown of [String(item.description), (item.tooltip as vscode.MarkdownString).value, item.accessibilityInformation?.label ?? '']) {
        assert.ok(!shown.includes('S3cret'), shown);
      }
      assert.ok(String(item.description).endsWith(site.domain), String(item.description));
      // What the view draws: the row's description.
      const s = screen();
      if (s) {
        await s.openSitesView();
        const rows = await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith(site.name) && x.includes(site.domain)), `the row of ${site.name}`);
        assert.ok(!rows.join('\n').includes('S3cret'), JSON.stringify(rows));
      }
    } finally {
      await api.session.call((c) => c.updateSite(site.id, { name: site.name, domain: site.domain, web_url: site.web_url, db_phpmyadmin: site.db_phpmyadmin }));
      api.model.refresh();
    }
  });

  it('an unreachable service (connections dropped) shows the cached sites marked offline, and Retry recovers', async () => {
    await sites(); // listed once: the disk cache has them
    await settled(api.scheduler, url);
    // Down: every connection is closed at once, however many requests and retries come (a count
    // of queued drops could be used up by other reads first).
    await control(url, 'config', { down: true });
    try {
      api.model.refresh();
      assert.ok((await sites()).length > 0, 'the cached sites');
      // The cached list is shown at once; the refresh behind it meets the dropped connections (and
      // its retries) after that.
      await waitFor(() => api.model.state === 'offline', { timeoutMs: 20000, message: `the offline state (now ${api.model.state})` });
      assert.match(String(api.view.message), /^Offline: the service cannot be reached\. Showing what was cached/);
      assert.match(String(api.view.description), /^offline · cached /);
    } finally {
      await control(url, 'config', { down: false });
    }
    await vscode.commands.executeCommand('siteRevisions.refresh');
    assert.ok((await sites()).length > 0);
    assert.equal(api.model.state, 'ready');
    assert.equal(api.view.message, undefined);
    assert.equal(api.view.description, undefined);
  });

  it('a 401 marks the session expired and asks once to sign in again, not once per request', async () => {
    const prompts: string[] = [];
    const restore = stubWindow('showWarningMessage', (msg: string) => {
      prompts.push(msg);
      return new Promise(() => undefined); // the user has not answered yet
    });
    try {
      await settled(api.scheduler, url);
      await control(url, 'config', { failNext: ['http401', 'http401', 'http401'] });
      // Three different reads (identical ones would share one request): three 401 replies.
      const acme = (await sites()).find((x) => x.site.name === 'Acme Corporate')!.site.id;
      const reads: ((c: SiteRevisionClient) => Promise<unknown>)[] = [(c) => c.getSites(), (c) => c.getRevisionFiles(acme), (c) => c.getRevisions(acme, 'index.php')];
      const calls = reads.map((read) =>
        api.session.call(read).catch((e: Error) => e),
      );
      const results = await Promise.all(calls);
      assert.ok(results.every((r) => r instanceof Error && /not accepted|signed in/.test(r.message)));
      assert.equal(api.session.state, 'expired');
      assert.equal(prompts.length, 1, `prompts: ${JSON.stringify(prompts)}`);
    } finally {
      restore();
      await control(url, 'config', { failNext: [] });
    }
    await signInDemo(url);
    assert.equal(api.session.state, 'signedIn');
  });

  it('sign out forgets the secrets and empties the view', async () => {
    await vscode.commands.executeCommand('siteRevisions.signOut');
    assert.equal(api.session.state, 'signedOut');
    assert.equal(await api.context.secrets.get(secretKey(url, DEMO.user.email, 'password')), undefined);
    assert.deepEqual(await sites(), []);
    await signInDemo(url);
  });
});

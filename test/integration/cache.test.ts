// The disk cache, offline and cancellation in the real extension host against the local service:
// a re-activation (a fresh copy of the extension on the same storage, as after a window reload)
// reopens revisions with no request and shows the tree from disk; with the service down the
// cached tree and revisions still work, marked offline on screen with Retry, and uncached ones
// say so; Retry once it is back clears it without a reload; closing a tab that is still loading
// aborts its request (not another waiter's); sign-out and an account switch delete the account's
// cache folder; no password or key is ever in it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { FileNode, MessageNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import { DEMO } from '../server/demo';
import { accountFolderName, DiskStore } from '../../src/core/store';
import { disposeCopy, freshContext, loadFreshCopy, runningBundle } from './freshCopy';
import { screenOrSkip } from './screen';
import { control, settled, signInDemo, spyMessages } from './support';
import { ext, testService, waitFor } from './util';

const ACME = 'Acme Corporate';
/** What a click on a "Cancelled" or error row runs. */
const RETRY = 'siteRevisions.revisions.retry';

async function serviceSites(url: string, account: { email: string; password: string }): Promise<Site[]> {
  const body = new URLSearchParams({ login: '1', email: account.email, password: account.password });
  const res = await fetch(`${url}/api/sites`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...('apiKey' in account ? { authorization: `Bearer ${String(account.apiKey)}` } : {}) } });
  return ((await res.json()) as { sites: Site[] }).sites;
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('Disk cache, offline and cancellation', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;

  const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
  const isFile = (n: TreeNode): n is FileNode => kind(n) === 'revisionFile';
  const isRevision = (n: TreeNode): n is RevisionNode => /^revision(\.|$)/.test(kind(n));
  const stats = () => control(url, 'stats');
  const acmeOf = async (a: ExtensionApi = api) => ((await a.tree.getChildren()) as SiteNode[]).find((n) => n.site.name === ACME)!;
  const fileOf = async (site: SiteNode, p: string, a: ExtensionApi = api) => (await a.tree.getChildren(site)).find((n): n is FileNode => isFile(n) && n.path === p)!;
  const revisionsOf = async (file: FileNode, a: ExtensionApi = api) => (await a.tree.getChildren(file)).filter(isRevision);
  /** Forgets the memory and the disk, lists fetched again after a Refresh. */
  const fromScratch = async () => {
    await settled(api.scheduler, url);
    await api.cache.clear();
    await settled(api.scheduler, url);
    api.revisions.store.clear();
    api.model.refresh();
  };

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0, down: false });
    await control(url, 'reseed');
    await signInDemo(url);
    api.model.refresh();
  });

  afterEach(async () => {
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0, down: false });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await settled(api.scheduler, url);
  });

  after(async () => {
    await control(url, 'reseed');
    if (api.session.account?.email !== DEMO.user.email || api.session.state !== 'signedIn') await signInDemo(url);
    api.model.refresh();
  });

  it('after a re-activation (a window reload) revisions reopen with no request, and the expanded tree comes from disk, then one background request per list', async () => {
    await fromScratch();
    const acme = await acmeOf();
    const file = await fileOf(acme, 'index.php');
    const [rev] = await revisionsOf(file);
    const opened = (await vscode.commands.executeCommand('siteRevisions.openRevision', rev)) as Outcome;
    assert.ok(opened.done);
    const text = vscode.window.activeTextEditor!.document.getText();
    await settled(api.scheduler, url);
    await control(url, 'reset-stats');

    // A new copy of the extension on the same storage, signed in as the same account.
    const ctx = freshContext(url, DEMO.user.email, DEMO.user.password, {}, api.context.globalStorageUri);
    try {
      const copy = (await loadFreshCopy(runningBundle(), `cache${Date.now().toString(36)}`)).activate(ctx)!;
      await copy.ready;
      // Nothing has used the revisions feature yet (no row expanded, no document, no mapped folder): its code is not loaded.
      assert.throws(() => copy.revisions, /not loaded yet/);
      const bytes = await (await copy.loadRevisions()).store.content(acme.site.id, rev!.ref.item.id);
      assert.equal(new TextDecoder().decode(bytes), text);
      assert.equal((await stats()).requests.length, 0, 'the revision reopens with no request');
      // The same tree expanded: shown from disk …
      const cAcme = await acmeOf(copy);
      const cFile = await fileOf(cAcme, 'index.php', copy);
      const cRevs = await revisionsOf(cFile, copy);
      assert.deepEqual(cRevs.map((r) => r.ref.item.id), (await revisionsOf(file)).map((r) => r.ref.item.id));
      assert.ok(copy.model.fetchedAt! < Date.now(), 'the sites came from disk');
      // … then refreshed behind, once per list, at background priority; no content.
      await settled(copy.scheduler, url);
      const counts = (await stats()).counts;
      assert.deepEqual([counts.getSites, counts.getRevisionFiles, counts.getRevisions, counts.getRevision], [1, 1, 1, 0]);
      await copy.tree.getChildren(cFile);
      assert.equal((await stats()).requests.length, 3, 'expanding again asks nothing more');
    } finally {
      disposeCopy(ctx);
    }
  });

  it('offline: the cached tree shows, marked “offline · cached …” with Retry; cached revisions open and compare, uncached ones say so; back online, Retry clears it without a reload', async function () {
    const s = screenOrSkip(this);
    await fromScratch();
    const acme = await acmeOf();
    const file = await fileOf(acme, 'index.php');
    const revs = await revisionsOf(file);
    // Two revisions cached (open + compare with previous), the others not.
    assert.ok(((await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', revs[0])) as Outcome).done);
    await settled(api.scheduler, url);
    await s.openSitesView();

    await control(url, 'config', { down: true });
    const spy = spyMessages(async () => undefined);
    try {
      await vscode.commands.executeCommand('siteRevisions.refresh');
      // On screen: the sites, the mark and the message, and Retry in the title bar.
      await s.until(
        async () => ({ text: await s.sideBarText(), rows: await s.rows(), actions: await s.sideBarActions() }),
        (d) => /Offline: the service cannot be reached\. Showing what was cached (just now|\d+ minutes? ago)/.test(d.text) && d.rows.some((r) => r.startsWith(ACME)) && d.actions.includes('Retry'),
        'the cached sites marked offline, with Retry',
      );
      // The view's description says it too (drawn in the pane header once the container has several views).
      assert.match(String(api.view.description), /^offline · cached /);
      assert.equal(api.model.state, 'offline');

      // The cached tree and the cached revisions.
      const oAcme = await acmeOf();
      const oFile = await fileOf(oAcme, 'index.php');
      const oRevs = await revisionsOf(oFile);
      assert.deepEqual(oRevs.map((r) => r.ref.item.id), revs.map((r) => r.ref.item.id));
      assert.ok(((await vscode.commands.executeCommand('siteRevisions.openRevision', oRevs[0])) as Outcome).done, 'a cached revision opens');
      assert.ok(((await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', oRevs[0])) as Outcome).done, 'and compares');
      // An uncached revision, and the revisions of a file never expanded: not available offline.
      const uncached = api.revisions.revisionDocumentUri(oRevs[3]!.ref);
      await assert.rejects(Promise.resolve(vscode.workspace.fs.readFile(uncached)), /not available offline/);
      const readme = await fileOf(oAcme, 'README.md');
      const [none] = (await api.tree.getChildren(readme)) as MessageNode[];
      assert.match(String((none!.getTreeItem() as vscode.TreeItem).description), /not available offline/);
      // Writes are not attempted silently: editing needs the passwords only the service has.
      await vscode.commands.executeCommand('siteRevisions.editSite', oAcme);
      await waitFor(() => spy.shown.find((m) => /cannot be edited while the service cannot be reached/.test(m.message)));

      // Back: Retry (clicked on screen) fetches, and the mark goes.
      await control(url, 'config', { down: false });
      await s.clickViewAction('Sites', 'Retry');
      await s.until(() => s.sideBarText(), (t) => !/offline/i.test(t) && t.includes(ACME), 'the sites without the offline mark');
      await waitFor(() => api.model.state === 'ready', { message: `the view ready (${api.model.state})` });
      assert.equal(api.view.description, undefined);
      assert.ok(!(await s.sideBarActions()).includes('Retry'), 'Retry leaves the title bar');
      const back = await revisionsOf(await fileOf(await acmeOf(), 'index.php'));
      assert.ok(new TextDecoder().decode(await vscode.workspace.fs.readFile(api.revisions.revisionDocumentUri(back[3]!.ref))).length > 0);
    } finally {
      spy.restore();
    }
  });

  it('offline: Open Revision of a revision that is not cached says on screen that it is not available offline (not the transport’s error); Retry opens it once the service answers', async function () {
    const s = screenOrSkip(this);
    await fromScratch();
    const revs = await revisionsOf(await fileOf(await acmeOf(), 'index.php'));
    const rev = revs[1]!;
    await settled(api.scheduler, url);
    await control(url, 'config', { down: true });
    await s.clearNotifications();
    const out = (await vscode.commands.executeCommand('siteRevisions.openRevision', rev)) as Outcome;
    assert.equal(out.done, false);
    await vscode.commands.executeCommand('notifications.showList');
    const shown = await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('not available offline')), 'the message');
    const said = shown.find((x) => x.includes('not available offline'))!;
    assert.match(said, new RegExp(`^Open Revision: Revision ${rev.ref.item.id} of index\\.php is not available offline: the service cannot be reached, and this revision is not cached on this computer\\. It opens once the service can be reached again\\.`), said);
    assert.doesNotMatch(shown.join('\n'), /ECONNREFUSED|could not connect|Get Revision/);
    // Back: its Retry opens the revision.
    await control(url, 'config', { down: false });
    await s.click({ selector: '.notifications-center .notification-list-item .monaco-button', hasText: 'Retry' });
    const uri = api.revisions.revisionDocumentUri(rev.ref).toString();
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === uri, { message: 'the revision opened by Retry' });
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('index.php (')), 'its tab on screen');
  });

  it('closing a revision tab that is still loading aborts its request; a second waiter keeps it', async () => {
    await fromScratch();
    const revs = await revisionsOf(await fileOf(await acmeOf(), 'index.php'));
    await settled(api.scheduler, url);
    await control(url, 'reset-stats');
    await control(url, 'config', { latencyMs: 4000 });

    const openAndClose = async (ref: RevisionNode['ref'], alsoWaiting?: Promise<unknown>) => {
      const uri = api.revisions.revisionDocumentUri(ref);
      const shown = vscode.commands.executeCommand('vscode.open', uri).then(undefined, () => undefined);
      const tab = await waitFor(() => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()));
      await waitFor(async () => (await stats()).inFlight >= 1);
      await vscode.window.tabGroups.close(tab);
      await shown;
      await alsoWaiting;
      return waitFor(async () => (await stats()).requests.find((r) => r.operation === 'getRevision' && r.url.includes(ref.item.id)));
    };
    const alone = await openAndClose(revs[1]!.ref);
    assert.equal(alone.aborted, true, 'the service saw the connection closed');

    // The same revision asked for by someone else too (a language-model tool, say): the request goes on.
    const ref = revs[2]!.ref;
    const other = api.revisions.store.content(ref.site.id, ref.item.id);
    const kept = await openAndClose(ref, other);
    assert.equal(kept.aborted ?? false, false);
    assert.ok((await other).byteLength > 0);
  });

  it('a slow load in the Sites view shows a notification with Cancel, which aborts it; collapsing a loading site aborts its request, not another waiter’s', async function () {
    const s = screenOrSkip(this);
    // Every row collapsed first (an earlier test expanded Acme, and the view remembers expanded
    // rows): drawn expanded, Acme would load its files at once, before the slow service is set.
    await s.openSitesView();
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
    await fromScratch();
    const acme = await acmeOf();
    await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith(ACME)), 'the sites');
    await settled(api.scheduler, url);
    await control(url, 'reset-stats');
    await control(url, 'config', { latencyMs: 6000 });
    const filesRequests = async () => (await stats()).requests.filter((r) => r.operation === 'getRevisionFiles');
    /** Selects the site's row in the real tree (focused), for the keyboard: → expands it, ← collapses it. */
    const selectAcme = async () => {
      await api.view.reveal(acme, { select: true, focus: true, expand: false });
      await s.until(() => s.texts({ selector: `${s.pane('Sites')} .monaco-list-row.focused` }), (t) => t.some((x) => x.startsWith(ACME)), 'the site row focused');
    };

    // Expanded from the keyboard; still loading after a moment: the notification offers Cancel.
    await selectAcme();
    await s.press('ArrowRight');
    await vscode.commands.executeCommand('notifications.showList');
    await s.until(() => s.notifications(), (t) => t.some((x) => x.includes(`Loading the files of “${ACME}”…`)), 'the progress notification');
    await s.click({ selector: '.notifications-center .notification-list-item .monaco-button', hasText: 'Cancel' });
    const [cancelled] = await waitFor(async () => ((await filesRequests()).length ? filesRequests() : undefined));
    assert.equal(cancelled!.aborted, true, 'Cancel closed the connection');
    await vscode.commands.executeCommand('notifications.hideList');
    await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('Cancelled')), 'the Cancelled row');

    // Collapsed while loading: aborted.
    await selectAcme();
    await s.press('ArrowLeft'); // collapse (it shows the Cancelled row)
    await control(url, 'reset-stats');
    // As a click on the Cancelled row (with the node the view holds): loads again when expanded.
    await vscode.commands.executeCommand(RETRY, api.view.selection[0]);
    await selectAcme();
    await s.press('ArrowRight');
    await waitFor(async () => (await stats()).inFlight >= 1);
    await s.press('ArrowLeft'); // collapse while it loads
    const [collapsed] = await waitFor(async () => ((await filesRequests()).length ? filesRequests() : undefined));
    assert.equal(collapsed!.aborted, true, 'collapsing closed the connection');

    // Another waiter (a language-model tool reading the same list): collapsing leaves its request alone.
    await control(url, 'reset-stats');
    await s.press('ArrowRight');
    await waitFor(async () => (await stats()).inFlight >= 1);
    const other = api.revisions.store.siteFiles(acme.site.id);
    await s.press('ArrowLeft');
    assert.ok((await other).files.length > 0, 'the other waiter gets the files');
    const kept = await filesRequests();
    assert.deepEqual(kept.map((r) => r.aborted ?? false), [false]);
  });

  it('sign-out deletes the account’s cache folder, and so does signing in as another account; no password or key is ever in it', async () => {
    // A full session as the demo user: sites, files, revisions opened, every content of a file.
    await fromScratch();
    const acme = await acmeOf();
    const file = await fileOf(acme, 'index.php');
    const revs = await revisionsOf(file);
    assert.ok(((await vscode.commands.executeCommand('siteRevisions.openRevision', revs[0])) as Outcome).done);
    await api.revisions.store.allContents(acme.site.id, 'index.php');
    await settled(api.scheduler, url);
    const demoFolder = api.cache.folder!;
    assert.ok(filesUnder(demoFolder).length > 3, 'the cache holds the session');
    const sites = await serviceSites(url, DEMO.user);
    const needles = [DEMO.keyUser.password, DEMO.keyUser.apiKey, DEMO.team.password, ...sites.flatMap((x) => [x.ftp_pass, x.db_password])].filter((x) => x && x.length >= 4);
    assert.ok(needles.length >= 5);
    const scan = (dir: string) => filesUnder(dir).flatMap((f) => {
      const text = fs.readFileSync(f).toString('latin1');
      return needles.filter((n) => text.includes(n) || text.includes(encodeURIComponent(n))).map((n) => `${path.basename(f)}: ${n.slice(0, 4)}…`);
    });
    assert.deepEqual(scan(api.cache.root!), [], 'no password or key in the cache');
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(demoFolder).mode & 0o777, 0o700, 'the folder is readable by the user only');
      for (const f of filesUnder(demoFolder)) assert.equal(fs.statSync(f).mode & 0o077, 0, `${path.basename(f)} is readable by the user only`);
    }

    // Another account: the demo user's folder goes.
    const key = DEMO.keyUser;
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: key.email, password: key.password, apiKey: key.apiKey });
    await waitFor(() => !fs.existsSync(demoFolder), { message: 'the previous account’s cache folder is deleted' });
    api.model.refresh();
    const [shop] = (await api.tree.getChildren()) as SiteNode[];
    const keyFile = (await api.tree.getChildren(shop)).find((n): n is FileNode => isFile(n))!;
    const keyRevs = await revisionsOf(keyFile);
    assert.ok(((await vscode.commands.executeCommand('siteRevisions.openRevision', keyRevs[0])) as Outcome).done);
    await settled(api.scheduler, url);
    const keyFolder = api.cache.folder!;
    assert.notEqual(keyFolder, demoFolder);
    assert.ok(filesUnder(keyFolder).length > 0);
    assert.deepEqual(scan(api.cache.root!), []);

    // Sign-out: its folder goes too.
    await vscode.commands.executeCommand('siteRevisions.signOut');
    await waitFor(() => !fs.existsSync(keyFolder), { message: 'the cache folder is deleted at sign-out' });
    assert.equal(api.cache.folder, undefined);
  });
  it('signing in as another account deletes the previous account’s cache folder also when its last write of the index fails, as on a full disk (AccountCache.follow destroys the store, never dispose-then-delete)', async () => {
    const key = DEMO.keyUser;
    if (api.session.account?.email !== DEMO.user.email || api.session.state !== 'signedIn') await signInDemo(url);
    // The key account's cache as an earlier session left it: 61 revisions, written by the store's own code.
    const keyFolder = path.join(api.cache.root!, accountFolderName(url, key.email));
    fs.rmSync(keyFolder, { recursive: true, force: true });
    const earlier = new DiskStore(keyFolder, { maxBytes: 64 * 1024 * 1024 });
    for (let i = 0; i < 61; i++) await earlier.putContent('1', String(1000 + i), `revision ${i}`);
    await earlier.dispose();
    // The key account signs in and reads them: use records wait to be written to the index…
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: key.email, password: key.password, apiKey: key.apiKey });
    assert.equal(api.cache.folder, keyFolder);
    const store = (await api.cache.current())!;
    assert.equal(new TextDecoder().decode(await store.getContent('1', '1000')), 'revision 0');
    // …and the index can take no write any more (its folder has become a file: ENOTDIR, where a full disk gives ENOSPC).
    const index = path.join(keyFolder, 'v1', 'index');
    fs.rmSync(index, { recursive: true });
    fs.writeFileSync(index, '');
    // Another account signs in while a use record still waits (read again until the store is closed).
    let switched = false;
    const signIn = Promise.resolve(vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: DEMO.user.email, password: DEMO.user.password })).finally(() => (switched = true));
    for (let i = 0; !switched && store.enabled; i++) await store.getContent('1', String(1000 + (i % 61)));
    await signIn;
    await waitFor(() => !fs.existsSync(keyFolder), { message: 'the previous account’s cache folder deleted, its index unwritable', timeoutMs: 15000 });
    assert.equal(api.session.account?.email, DEMO.user.email);
  });
});


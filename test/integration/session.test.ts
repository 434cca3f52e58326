// The session's trust rules, in the real extension host against the local service: which secrets
// SecretStorage holds after each sign-in and sign-out, what happens after the service answers
// HTTP 401 (nothing more is sent with the refused credentials), that a sign-out in another
// window is followed here, and that cancelling sign-in is quiet.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { secretKey } from '../../src/features/auth/session';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { FileNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import { DEMO } from '../server/demo';
import { startRawServer } from '../unit/helpers/rawServer';
import { disposeCopy, freshContext, loadFreshCopy, runningBundle } from './freshCopy';
import { screenOrSkip, type Screen } from './screen';
import { control, signInDemo, spyMessages, stubWindow } from './support';
import { ext, testService, waitFor } from './util';

describe('Session', function () {
  this.timeout(60_000);
  let api: ExtensionApi;
  let url: string;
  /** The same service under another origin (another service URL for the extension). */
  let otherUrl: string;

  /** Every secret of the demo accounts under both service URLs: key → value (present ones only). */
  const storedSecrets = async (): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const base of [url, otherUrl]) {
      for (const who of [DEMO.user, DEMO.keyUser, DEMO.team]) {
        for (const what of ['password', 'apiKey'] as const) {
          const key = secretKey(base, who.email, what);
          const v = await api.context.secrets.get(key);
          if (v !== undefined) out[key] = v;
        }
      }
    }
    return out;
  };
  /** The keys SecretStorage lists for this extension, where this VS Code can list them. */
  const listedKeys = async (): Promise<string[] | undefined> => {
    const keys = (api.context.secrets as unknown as { keys?: () => Thenable<string[]> }).keys;
    return typeof keys === 'function' ? [...(await keys.call(api.context.secrets))].sort() : undefined;
  };

  before(async () => {
    url = (await testService()).url;
    otherUrl = url.replace('127.0.0.1', 'localhost');
    assert.notEqual(otherUrl, url, 'the service is reachable under a second origin');
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
  });

  afterEach(async () => {
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
  });

  after(async () => {
    if (api.session.state !== 'signedIn' || api.session.account?.serviceUrl !== url || api.session.account.email !== DEMO.user.email) {
      await api.session.signOut();
      await signInDemo(url);
    }
    api.model.refresh();
  });

  it('signing in as another account, or to another service URL, removes the previous account’s password and API key; sign-out removes every secret', async () => {
    const key = DEMO.keyUser;
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: key.email, password: key.password, apiKey: key.apiKey });
    assert.deepEqual(await storedSecrets(), { [secretKey(url, key.email, 'password')]: key.password, [secretKey(url, key.email, 'apiKey')]: key.apiKey });

    // Another account on the same service.
    await signInDemo(url);
    assert.deepEqual(await storedSecrets(), { [secretKey(url, DEMO.user.email, 'password')]: DEMO.user.password }, 'only the account signed in now');

    // The same account at another service URL.
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: otherUrl, email: DEMO.user.email, password: DEMO.user.password });
    assert.equal(api.session.account?.serviceUrl, otherUrl);
    assert.deepEqual(await storedSecrets(), { [secretKey(otherUrl, DEMO.user.email, 'password')]: DEMO.user.password }, 'only the URL signed in to now');
    const listed = await listedKeys();
    console.log(`[session] SecretStorage.keys() ${listed ? 'lists this extension’s keys: checked too' : 'is not available in this VS Code'}`);
    if (listed) assert.deepEqual(listed, [secretKey(otherUrl, DEMO.user.email, 'password')], 'SecretStorage lists nothing else of this extension');

    // A secret an earlier version left behind for an account signed out of long ago.
    const stray = secretKey(url, 'earlier@example.com', 'password');
    await api.context.secrets.store(stray, 'earlier-version-pw');
    await vscode.commands.executeCommand('siteRevisions.signOut');
    assert.deepEqual(await storedSecrets(), {}, 'no secret of any account');
    if (listed) {
      assert.deepEqual(await listedKeys(), [], 'SecretStorage lists nothing of this extension');
      assert.equal(await api.context.secrets.get(stray), undefined, 'what an earlier version stored goes too');
    } else {
      await api.context.secrets.delete(stray);
    }
    assert.equal(api.context.globalState.get('siteRevisions.account'), undefined);
    await signInDemo(url);
  });

  /** Signed in as the demo user, its sites drawn in the Sites view. */
  const demoSitesShown = async (s: Screen): Promise<void> => {
    await signInDemo(url);
    await s.openSitesView();
    api.model.refresh();
    await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('Acme Corporate')), 'the demo user’s sites');
  };

  it('another window signs out: this one follows — the Sites view draws the signed-out welcome, the credentials leave memory, the account’s disk cache is closed and deleted', async function () {
    const s = screenOrSkip(this);
    await demoSitesShown(s);
    const folder = api.cache.folder;
    assert.ok(folder && fs.existsSync(folder), 'the account’s disk cache is open');
    try {
      // What another window's Sign Out does to the storage every window shares.
      await api.context.secrets.delete(secretKey(url, DEMO.user.email, 'password'));
      await api.context.globalState.update('siteRevisions.account', undefined);
      const welcome = await s.until(() => s.welcome(), (w) => /Sign in to your sites-and-revisions service/.test(w.text), 'the signed-out welcome');
      assert.ok(welcome.buttons.includes('Sign In'), JSON.stringify(welcome.buttons));
      assert.deepEqual(await s.rows(), [], 'no site row');
      assert.equal(api.session.state, 'signedOut');
      assert.equal(api.session.account, undefined);
      await assert.rejects(api.session.getClient(), /signed out/, 'no client with the password');
      await waitFor(() => api.cache.folder === undefined && !fs.existsSync(folder), { message: 'the disk cache closed and its folder deleted' });
      assert.equal(await api.cache.current(), undefined);
    } finally {
      if (api.session.state !== 'signedIn') await signInDemo(url);
    }
  });

  it('another window signs in as another account: this one follows to it — its sites drawn, the previous account’s disk cache deleted', async function () {
    const s = screenOrSkip(this);
    await demoSitesShown(s);
    const folder = api.cache.folder!;
    const key = DEMO.keyUser;
    try {
      // What another window's sign-in as the API-key account does to the shared storage, in its order.
      await api.context.secrets.store(secretKey(url, key.email, 'password'), key.password);
      await api.context.secrets.store(secretKey(url, key.email, 'apiKey'), key.apiKey);
      await api.context.globalState.update('siteRevisions.account', { serviceUrl: url, email: key.email });
      await api.context.secrets.delete(secretKey(url, DEMO.user.email, 'password'));
      await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('Key Account Shop')) && !r.some((x) => x.startsWith('Acme Corporate')), 'the other account’s sites only');
      assert.equal(api.session.state, 'signedIn');
      assert.equal(api.session.account?.email, key.email);
      await waitFor(() => !fs.existsSync(folder) && api.cache.folder !== undefined && api.cache.folder !== folder, { message: 'the previous account’s disk cache deleted, the new one’s open' });
    } finally {
      await signInDemo(url);
    }
  });

  describe('after the service refuses the credentials (HTTP 401)', () => {
    const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
    let prompts: string[];
    let restorePrompt: () => void;

    beforeEach(async () => {
      await signInDemo(url);
      // The "sign in again" message stays on screen, unanswered.
      prompts = [];
      restorePrompt = stubWindow('showWarningMessage', ((m: string) => {
        prompts.push(m);
        return new Promise(() => undefined);
      }) as never);
    });

    afterEach(async () => {
      restorePrompt();
      if (api.session.state !== 'signedIn') await signInDemo(url);
    });

    it('nothing more is sent with the refused credentials — refresh, expand, open, background reads — until the user signs in; the prompt shows again on the next expiry', async () => {
      api.model.refresh();
      const acme = ((await api.tree.getChildren()) as SiteNode[]).find((n) => n.site.name === 'Acme Corporate')!;
      const file = (await api.tree.getChildren(acme)).find((n): n is FileNode => kind(n) === 'revisionFile' && (n as FileNode).path === 'index.php')!;
      // A revision no earlier test opened: VS Code keeps a document a while after its tab closed,
      // and opening it again would show that copy without asking the extension.
      const open = vscode.workspace.textDocuments.map((d) => api.revisions.parseRevisionUri(d.uri)?.revisionId).filter((id) => id !== undefined);
      const rev = (await api.tree.getChildren(file))
        .filter((n): n is RevisionNode => /^revision(\.|$)/.test(kind(n)))
        .find((n) => !open.includes(n.ref.item.id));
      assert.ok(rev, 'a revision of index.php that is not open');
      // Not cached anywhere: opening it would need a request (a cached one opens without any).
      api.revisions.cache.clear();
      await (await api.cache.current())?.forgetSite(acme.site.id);

      // The service signs the account out.
      await control(url, 'config', { failNext: [{ kind: 'http401', operation: 'getSites' }] });
      api.model.refresh();
      await api.tree.getChildren();
      assert.equal(api.session.state, 'expired');
      assert.equal(api.model.state, 'expired', 'the view can tell an expired session from other failures');
      assert.equal(prompts.length, 1);

      await control(url, 'reset-stats');
      await vscode.commands.executeCommand('siteRevisions.refresh');
      assert.deepEqual(await api.tree.getChildren(), []);
      const expanded = await api.tree.getChildren(acme);
      assert.ok(expanded.some((n) => kind(n) === 'revisionError'), 'expanding shows the failure in the tree');
      const opened = (await vscode.commands.executeCommand('siteRevisions.openRevision', rev)) as Outcome;
      assert.equal(opened.done, false);
      await assert.rejects(Promise.resolve(vscode.workspace.fs.readFile(api.revisions.revisionUri({ siteId: rev!.ref.site.id, revisionId: rev!.ref.item.id, path: rev!.ref.path }))));
      await assert.rejects(api.revisions.store.revisions(acme.site.id, 'README.md'));
      const { requests } = await control(url, 'stats');
      assert.deepEqual(requests.map((r) => r.url), [], 'no request after the 401');
      assert.equal(prompts.length, 1, 'asked once, not once per refused action');

      // Signing in (here without answering that message) sends requests again…
      await signInDemo(url);
      assert.equal(api.session.state, 'signedIn');
      await control(url, 'reset-stats');
      api.model.refresh();
      assert.ok((await api.tree.getChildren()).length > 0);
      assert.equal((await control(url, 'stats')).counts.getSites, 1);
      // …and the next expiry asks again, although the first message was never answered.
      await control(url, 'config', { failNext: [{ kind: 'http401', operation: 'getSites' }] });
      api.model.refresh();
      await api.tree.getChildren();
      assert.equal(api.session.state, 'expired');
      assert.equal(prompts.length, 2, `prompts: ${JSON.stringify(prompts)}`);
    });

    it('a restart does not send the refused credentials either: the session starts expired', async () => {
      await control(url, 'config', { failNext: [{ kind: 'http401', operation: 'getSites' }] });
      api.model.refresh();
      await api.tree.getChildren();
      assert.equal(api.session.state, 'expired');
      const remembered = api.context.globalState.get<string>('siteRevisions.expiredAccount');
      assert.ok(remembered, 'the refusal is remembered');
      // A new copy of the extension, as after a restart, with the same remembered state.
      const ctx = freshContext(url, DEMO.user.email, DEMO.user.password);
      await (ctx.globalState as vscode.Memento).update('siteRevisions.expiredAccount', remembered);
      try {
        await control(url, 'reset-stats');
        const copy = (await loadFreshCopy(runningBundle(), `session${Date.now().toString(36)}`)).activate(ctx)!;
        await copy.ready;
        assert.equal(copy.session.state, 'expired');
        // The view lists nothing and asks to sign in again (its welcome content), without a request.
        assert.deepEqual(await copy.model.all(), []);
        assert.equal(copy.model.state, 'expired');
        assert.deepEqual((await control(url, 'stats')).requests.map((r) => r.url), [], 'no request');
      } finally {
        disposeCopy(ctx);
      }
    });
  });

  describe('cancelling sign-in', () => {
    beforeEach(async () => {
      await signInDemo(url);
    });

    it('is quiet: cancelling a prompt, or the progress of the check, shows no error and changes nothing', async () => {
      const spy = spyMessages(async () => undefined); // every message is recorded and dismissed
      // The prompts: service URL, email, password, API key. The user presses Escape at the password.
      let answers: (string | undefined)[] = [url, DEMO.team.email, undefined];
      const restoreInput = stubWindow('showInputBox', (async () => answers.shift()) as never);
      // The check is slow (a service that does not answer); the user cancels its progress
      // notification once the request is under way.
      const slow = await startRawServer({ delayMs: 60_000, body: { success: true, sites: [] } });
      const slowKey = secretKey(slow.url, DEMO.team.email, 'password');
      let cancelled = 0;
      const withProgress = vscode.window.withProgress;
      const restoreProgress = stubWindow('withProgress', (async (o: vscode.ProgressOptions, task: (p: unknown, t: vscode.CancellationToken) => Promise<unknown>) => {
        // The Sites view's own progress bar (a refresh behind redraws it) is not the sign-in check.
        if (o.location !== vscode.ProgressLocation.Notification) return withProgress(o, task as never);
        const cts = new vscode.CancellationTokenSource();
        const running = task({ report: () => undefined }, cts.token);
        await waitFor(() => slow.requests.length === 1, { message: 'the check reached the service' });
        cts.cancel();
        cancelled++;
        return running;
      }) as never);
      try {
        assert.equal(await vscode.commands.executeCommand('siteRevisions.signIn'), false, 'Escape at a prompt');
        answers = [slow.url, DEMO.team.email, DEMO.team.password, ''];
        assert.equal(await vscode.commands.executeCommand('siteRevisions.signIn'), false, 'Cancel on the progress');
        assert.equal(cancelled, 1);
      } finally {
        restoreInput();
        restoreProgress();
        spy.restore();
        await slow.close();
      }
      assert.deepEqual(spy.shown.map((m) => `${m.severity}: ${m.message}`), [], 'no message');
      assert.equal(api.session.state, 'signedIn');
      assert.equal(api.session.account?.email, DEMO.user.email, 'still the account signed in before');
      assert.deepEqual(await storedSecrets(), { [secretKey(url, DEMO.user.email, 'password')]: DEMO.user.password }, 'nothing stored');
      assert.equal(await api.context.secrets.get(slowKey), undefined);
    });
  });
});

// What the Sites view draws in each failure state, read from the workbench through Chromium: the
// explanation and the buttons of the state's welcome content, and that the buttons work — Retry
// reloads once the service is back, Sign In Again signs in (typed into the real prompts), Show
// Log and Open Settings open what they say. Model states are checked too, as a complement, never
// as the proof.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { FaultKind, FaultSpec } from '../server';
import { DEMO } from '../server/demo';
import { screenOrSkip, type Screen } from './screen';
import { control, settled, signInDemo, type Stats } from './support';
import { ext, testService, waitFor } from './util';

export const ACME = 'Acme Corporate';

/** Signs the demo user in the way a person does: the four prompts, typed and confirmed with Enter. */
export async function signInByKeyboard(s: Screen): Promise<void> {
  const title = (step: number) => ({ selector: '.quick-input-widget .quick-input-title', hasText: `Sign in to Site Revisions (${step}/4)` });
  const input = { selector: '.quick-input-widget input.input' };
  // 1/4 and 2/4 are filled in with the remembered service URL and email.
  await s.waitFor(title(1));
  await s.press('Enter');
  await s.waitFor(title(2));
  await s.press('Enter');
  await s.waitFor(title(3));
  await s.focus(input);
  await s.type(DEMO.user.password);
  await s.press('Enter');
  await s.waitFor(title(4));
  await s.press('Enter');
  await s.waitFor({ ...input, state: 'hidden' });
}

describe('Screen: the Sites view in each failure state', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;
  let s: Screen;

  before(async function () {
    s = screenOrSkip(this);
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'reseed');
    await signInDemo(url);
    await vscode.commands.executeCommand('siteRevisions.clearFilter');
    await s.openSitesView();
    // The first load (and the refresh behind a cached list) under way: settled() then waits for it,
    // so that the faults a test queues meet the test's own load.
    await sitesDrawn('at the start');
  });

  afterEach(async () => {
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0, operationLatencyMs: {}, appendSites: [] });
    await s.clearNotifications();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.action.closePanel');
    if (api.session.state !== 'signedIn') await signInDemo(url);
    await vscode.commands.executeCommand('siteRevisions.refresh');
    await sitesDrawn('again after the test');
  });

  /** Makes the next loads of the sites fail with `faults`, refreshes, and waits for the state's welcome content. */
  async function fail(faults: (FaultKind | FaultSpec)[], expect: RegExp): Promise<{ text: string; paragraphs: string[]; buttons: string[] }> {
    await settled(api.scheduler, url);
    // Only Get Sites meets them: a background read in between (a list refreshed behind, the alert's
    // check) would otherwise take one, and the view's load, retried, would succeed.
    await control(url, 'config', { failNext: faults.map((f) => ({ ...(typeof f === 'string' ? { kind: f } : f), operation: 'getSites' as const })) });
    // The view's own load meets the faults (a failure is not kept: a later load asks again).
    await vscode.commands.executeCommand('siteRevisions.refresh');
    return s.until(() => s.welcome(), (w) => expect.test(w.text), `the welcome content matching ${expect}`);
  }

  /** Waits until the Sites view draws the demo sites, and no welcome content. */
  async function sitesDrawn(what: string): Promise<void> {
    const drawn = await s.until(
      async () => ({ rows: await s.rows(), welcome: await s.welcome() }),
      (d) => d.rows.some((x) => x.startsWith(ACME)) && d.welcome.buttons.length === 0,
      `the sites ${what}`,
    );
    assert.ok(drawn.rows.length >= 5, `rows: ${JSON.stringify(drawn.rows)}`);
  }

  /** Clicks Retry with the service back; the sites are drawn. */
  async function retryRecovers(): Promise<void> {
    await control(url, 'config', { failNext: [] });
    await s.clickWelcomeButton('Retry');
    await sitesDrawn('after Retry');
  }

  /** Clicks Show Log: the Output panel shows the extension's log with `expect` in it. */
  async function showLogShows(click: () => Promise<void>, expect: RegExp): Promise<void> {
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await click();
    // The Output panel wraps long lines: compare with the whitespace collapsed.
    const text = await s.until(() => s.texts({ selector: '.part.panel .view-lines' }), (t) => expect.test(t.join(' ').replace(/\s+/g, ' ')), `the log showing ${expect}`);
    assert.ok(text.length > 0);
    const channel = await s.texts({ selector: '.part.panel .monaco-select-box, .part.panel select' });
    assert.ok(channel.some((c) => c.includes('Site Revisions')), `the Site Revisions channel is shown (${JSON.stringify(channel)})`);
  }

  it('unreachable: the explanation, the cause, and Retry · Open Settings · Show Log; each works, Retry reloads once the service is back', async () => {
    const w = await fail(['http503', 'http503', 'http503', 'http503'], /cannot be reached/);
    assert.match(w.text, /The service cannot be reached, so your sites could not be loaded\./);
    assert.match(w.text, /The service is busy or down for maintenance \(HTTP 429, 502, 503 or 504\)\. Try again in a moment\./);
    assert.deepEqual(w.buttons, ['Retry', 'Open Settings', 'Show Log']);
    assert.equal(api.model.state, 'unreachable');
    assert.equal(api.view.message, undefined, 'no message hides the welcome content');
    await showLogShows(() => s.clickWelcomeButton('Show Log'), /HTTP 503/);
    await s.clickWelcomeButton('Open Settings');
    await s.until(() => s.tabTitles(), (t) => t.includes('Settings'), 'the Settings editor');
    await s.until(() => s.texts({ selector: '.settings-editor .setting-item-label, .settings-editor .setting-item-title' }), (t) => t.some((x) => x.startsWith('Site Revisions')), 'the extension’s settings');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await retryRecovers();
  });

  it('unreachable without a known cause (a dropped connection), nothing cached: the explanation and the buttons, no hint', async () => {
    // With the sites cached, a dropped connection shows them offline (cache.test); here the disk cache is off.
    const settings = vscode.workspace.getConfiguration('siteRevisions');
    await settings.update('cache.maxSizeMB', 0, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(async () => (await api.cache.current())?.enabled === false, { message: 'the disk cache off' });
      const w = await fail(['drop', 'drop', 'drop', 'drop'], /cannot be reached/);
      assert.deepEqual(w.paragraphs, ['The service cannot be reached, so your sites could not be loaded.']);
      assert.deepEqual(w.buttons, ['Retry', 'Open Settings', 'Show Log']);
      await retryRecovers();
    } finally {
      await settings.update('cache.maxSizeMB', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('the service answers an error: the explanation, and Retry · Sign In Again · Show Log; the log has the status', async () => {
    const w = await fail(['http500'], /answered with an error/);
    assert.match(w.text, /The service answered with an error, so your sites could not be loaded\./);
    assert.match(w.text, /It answered with an HTTP error status, shown in a notification\. The log has what came with it\./);
    assert.deepEqual(w.buttons, ['Retry', 'Sign In Again', 'Show Log']);
    assert.equal(api.model.state, 'error');
    await showLogShows(() => s.clickWelcomeButton('Show Log'), /HTTP 500/);
    await retryRecovers();
  });

  /** The messages of the notifications drawn (the center is opened: no toasts under the runner) that contain `part`. */
  async function notificationsWith(part: string, expect: (texts: string[]) => boolean, what: string): Promise<string[]> {
    await vscode.commands.executeCommand('notifications.showList');
    return (await s.until(() => s.notifications(), (t) => expect(t.filter((x) => x.includes(part))), what)).filter((x) => x.includes(part));
  }
  const notificationButtons = (part: string) => ({ selector: `.notifications-center .notification-list-item:has-text(${JSON.stringify(part)}) .monaco-button` });
  const notificationButton = (part: string, label: string) => ({ ...notificationButtons(part), hasText: label });

  it('the service refuses in its own words (HTTP 200): a notification says them, as text, beside the welcome content; its Retry reloads', async () => {
    const words = 'Your subscription has expired. Renew it: [Billing](command:siteRevisions.signOut)';
    try {
      const w = await fail([{ kind: 'serviceError', error: words }], /answered with an error/);
      assert.deepEqual(w.paragraphs, ['The service answered with an error, so your sites could not be loaded.', 'Its message is shown in a notification, and in the log.']);
      assert.deepEqual(w.buttons, ['Retry', 'Sign In Again', 'Show Log']);
      const shown = await notificationsWith('Your subscription has expired', (t) => t.length > 0, 'the service’s words in a notification');
      // Our sentence, then theirs, quoted and ended; its link is text, not a link or a command.
      assert.deepEqual(shown, ['Your sites could not be loaded. The service said: “Your subscription has expired. Renew it: [Billing] (command:siteRevisions.signOut).”']);
      assert.deepEqual(await s.notificationLinks(), [], 'no link is drawn inside a notification message');
      assert.deepEqual(
        (await s.texts(notificationButtons('Your subscription has expired'))).map((b) => b.trim()),
        ['Retry', 'Show Log'],
      );
      await control(url, 'config', { failNext: [] });
      await s.click(notificationButton('Your subscription has expired', 'Retry'));
      await sitesDrawn('after Retry in the notification');
      assert.equal(api.session.state, 'signedIn', 'no command link ran');
      await notificationsWith('Your subscription has expired', (t) => t.length === 0, 'the notification closed by its button');
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.hideList');
    }
  });

  it('the service answers HTTP 500 with its own words: a notification says them and the status, once while it is open; its Show Log shows them', async () => {
    const faulted = async (n: number) => waitFor(async () => (await control(url, 'stats')).requests.filter((r) => r.fault === 'http500').length >= n, { message: `${n} loads answered with HTTP 500` });
    await control(url, 'reset-stats');
    try {
      const w = await fail([{ kind: 'http500', error: 'Account locked' }], /answered with an error/);
      assert.match(w.text, /It answered with an HTTP error status, shown in a notification\./);
      const expected = 'Your sites could not be loaded. The service answered with HTTP status 500 and said: “Account locked.”';
      assert.deepEqual(await notificationsWith('Account locked', (t) => t.length > 0, 'the service’s words in a notification'), [expected]);
      // The same words again while their notification is open: not a second one. Other words after
      // them are drawn (so the same words, handled before, would be drawn by then too).
      await fail([{ kind: 'http500', error: 'Account locked' }], /answered with an error/);
      await faulted(2);
      await settled(api.scheduler, url);
      await fail([{ kind: 'serviceError', error: 'Maintenance until 14:00 UTC' }], /answered with an error/);
      await notificationsWith('Maintenance until 14:00 UTC', (t) => t.length === 1, 'the other words in a notification');
      assert.deepEqual(await notificationsWith('Account locked', (t) => t.length > 0, 'the first notification'), [expected], 'one notification for the same words');
      await showLogShows(() => s.click(notificationButton('Account locked', 'Show Log')), /Could not load the sites: .*HTTP 500: Account locked/);
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.hideList');
    }
  });

  it('the service answers HTTP 500 with an HTML error page: a notification says the status, and only it; its Show Log shows the page’s excerpt', async () => {
    try {
      const w = await fail(['http500page'], /answered with an error/);
      assert.match(w.text, /It answered with an HTTP error status, shown in a notification\./);
      assert.deepEqual(w.buttons, ['Retry', 'Sign In Again', 'Show Log']);
      const shown = await notificationsWith('could not be loaded', (t) => t.length > 0, 'the status in a notification');
      assert.deepEqual(shown, ['Your sites could not be loaded. The service answered with HTTP status 500.']);
      assert.deepEqual((await s.texts(notificationButtons('HTTP status 500'))).map((b) => b.trim()), ['Retry', 'Show Log']);
      await showLogShows(() => s.click(notificationButton('HTTP status 500', 'Show Log')), /HTTP 500: <!DOCTYPE html> <html> <head><title>500 Internal Server Error/);
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.hideList');
    }
  });

  it('the service sends an HTML page: the explanation, and Retry · Sign In Again · Show Log', async () => {
    const w = await fail(['html'], /not its data/);
    assert.match(w.text, /The service sent something that is not its data, so your sites could not be loaded\./);
    assert.match(w.text, /It sent a web page\./);
    assert.deepEqual(w.buttons, ['Retry', 'Sign In Again', 'Show Log']);
    assert.equal(api.model.state, 'notData');
    await retryRecovers();
  });

  it('the service URL redirects: the explanation, and Sign In Again · Show Log; Sign In Again signs in through the prompts', async () => {
    const w = await fail(['redirect'], /redirects/);
    assert.match(w.text, /The service URL redirects to another address/);
    assert.match(w.text, /Redirects are not followed, so that your password is never sent anywhere else\./);
    assert.deepEqual(w.buttons, ['Sign In Again', 'Show Log']);
    assert.equal(api.model.state, 'redirect');
    await s.clickWelcomeButton('Sign In Again');
    await signInByKeyboard(s);
    await sitesDrawn('after signing in again');
  });

  it('the session expired (HTTP 401): “Sign in again”, with Sign In Again · Show Log; nothing is asked of the service until then', async () => {
    const w = await fail(['http401'], /no longer accepts/);
    assert.match(w.text, /The service no longer accepts your stored password or API key/);
    assert.match(w.text, /Sign in again to continue\./);
    assert.deepEqual(w.buttons, ['Sign In Again', 'Show Log']);
    assert.equal(api.session.state, 'expired');
    // Retry (the title-bar Refresh) sends nothing with the refused credentials.
    await control(url, 'reset-stats');
    await vscode.commands.executeCommand('siteRevisions.refresh');
    await s.until(() => s.welcome(), (x) => /no longer accepts/.test(x.text), 'still the expired state');
    assert.equal((await control(url, 'stats')).requests.length, 0, 'no request with the refused credentials');
    await s.clickWelcomeButton('Sign In Again');
    await signInByKeyboard(s);
    await sitesDrawn('after signing in again');
    assert.equal(api.session.state, 'signedIn');
  });

  it('sites the service lists with unusable values are left out, with a row that says how many and opens the log', async () => {
    await control(url, 'config', { appendSites: [{ id: 9001, name: { en: 'Object name' } }, { id: [1], name: 'List id' }, { id: 9003, name: 'Odd but shown', stack: { a: 1 } }] });
    await vscode.commands.executeCommand('siteRevisions.refresh');
    const rows = await s.until(() => s.rows(), (r) => r.some((x) => x.includes('2 sites could not be shown')), 'the row of the sites left out');
    assert.ok(rows.some((r) => r.startsWith(ACME)), 'the other sites are drawn');
    assert.ok(rows.some((r) => r.startsWith('Odd but shown')), 'a site with an odd value in a field the extension does not use is shown');
    await showLogShows(() => s.click({ selector: `${s.pane('Sites')} .monaco-list-row`, hasText: '2 sites could not be shown' }), /sites\[\d+\]\.name is an object/);
  });

  it('a site whose files cannot be loaded shows an error row: Show Log beside it, a click retries', async () => {
    await sitesDrawn('to expand');
    await control(url, 'config', { failNext: [{ kind: 'http500', operation: 'getRevisionFiles' }] });
    const acme = { selector: `${s.pane('Sites')} .monaco-list-row`, hasText: ACME };
    await s.click(acme);
    if ((await s.attribute({ ...acme, name: 'aria-expanded' })) === 'false') await s.press('ArrowRight');
    const errorRow = { selector: `${s.pane('Sites')} .monaco-list-row`, hasText: 'Could not load the files with revisions' };
    await s.waitFor(errorRow);
    await s.hover(errorRow);
    await showLogShows(() => s.click({ selector: `${s.pane('Sites')} .monaco-list-row:has-text("Could not load the files with revisions") .action-label[aria-label^="Show Log"]` }), /Could not load the files with revisions: .*HTTP 500/);
    await s.click(errorRow);
    await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('index.php')) && !r.some((x) => x.includes('Could not load')), 'the files after the click');
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
  });

  /**
   * A Refresh whose redraw waits for the files of an expanded site (Bakery API's file list answered
   * after 5 s): `clicks` act on the collapsed row of Acme Corporate in that time. Resolves once every
   * file list is answered and the extension has handled the expansions, with what is drawn then.
   */
  async function whileTheRedrawWaits(clicks: (acme: { selector: string; hasText: string }, expanded: () => Promise<string | null>) => Promise<void>): Promise<{ expanded: () => Promise<string | null>; rows: () => Promise<string[]> }> {
    await sitesDrawn('to expand');
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
    await s.expandPath(['Bakery API']);
    await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('requirements.txt')), 'the files of Bakery API');
    await settled(api.scheduler, url);
    const bakery = api.tree.roots.find((n) => n.site.name === 'Bakery API')!.site.id;
    await control(url, 'config', { operationLatencyMs: { getRevisionFiles: 5000 } });
    await control(url, 'reset-stats');
    await vscode.commands.executeCommand('siteRevisions.refresh');
    // The new list of sites is in and Bakery API's files are being fetched: the redraw waits for them.
    const fileList = (st: Stats) => st.requests.find((r) => r.operation === 'getRevisionFiles' && new URL(r.url, url).searchParams.get('site') === bakery);
    await s.until(() => control(url, 'stats'), (st) => st.requests.some((r) => r.operation === 'getSites') && st.inFlight > 0, 'the sites listed, a file list on its way');
    const acme = { selector: `${s.pane('Sites')} .monaco-list-row[aria-level="1"]`, hasText: `/^\\s*${ACME}/` };
    const expanded = () => s.attribute({ ...acme, name: 'aria-expanded' });
    assert.equal(await expanded(), 'false');
    await clicks(acme, expanded);
    const clicked = Date.now();
    await s.until(() => control(url, 'stats'), (st) => !!fileList(st) && st.inFlight === 0, 'the file lists answered', 30000);
    await api.tree.expansions.idle();
    // The clicks landed while the redraw waited for Bakery API's files (else this proves nothing).
    const b = fileList(await control(url, 'stats'))!;
    assert.ok(b.arrivedAt + b.ms > clicked, `Bakery API's files answered ${Math.round(b.arrivedAt + b.ms - clicked)} ms after the clicks`);
    return { expanded, rows: () => s.rows() };
  }

  it('a site expanded while a Refresh waits for another site’s slow file list is drawn expanded, with its files, once they are in', async () => {
    // VS Code redraws the tree after a Refresh once the file lists of the expanded sites are in;
    // a site expanded by a click before that redraw was folded back by it and stayed folded (its
    // files were fetched, nothing drew them).
    const { expanded, rows } = await whileTheRedrawWaits((acme) => s.click(acme));
    const drawn = await s.until(async () => ({ expanded: await expanded(), rows: await rows() }), (d) => d.expanded === 'true' && d.rows.some((x) => x.startsWith('index.php')), 'Acme Corporate expanded with its files', 15000);
    assert.ok(drawn.rows.findIndex((x) => x.startsWith('index.php')) > drawn.rows.findIndex((x) => x.startsWith(ACME)), JSON.stringify(drawn.rows));
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
  });

  it('a site expanded and collapsed again while a Refresh waits for another site’s files stays collapsed', async () => {
    const { expanded, rows } = await whileTheRedrawWaits(async (acme, isExpanded) => {
      await s.click(acme);
      await s.until(isExpanded, (x) => x === 'true', 'Acme Corporate expanded');
      await s.click(acme);
      await s.until(isExpanded, (x) => x === 'false', 'Acme Corporate collapsed');
    });
    // Every expansion handled: the user's last move (a collapse) stands.
    assert.equal(await expanded(), 'false');
    assert.ok(!(await rows()).some((x) => x.startsWith('index.php')));
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
  });
});

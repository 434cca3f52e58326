// Site edits that lose nothing, read-only shared sites, and several sites selected at once, in
// the real extension host against the local service — what the user sees read from the
// workbench through Chromium where it is drawn (rows, context menus, buttons).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { SERVER_TYPES, SITE_STRING_FIELDS, type Site } from '../../src/core/api/types';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import { DEMO } from '../server/demo';
import { screenOrSkip, type Screen } from './screen';
import { control, reseededAndSignedIn, settled, stubWindow } from './support';
import { waitFor } from './util';

const TEAM = 'Team Intranet';

describe('Site edits, shared sites, several sites selected', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;

  const all = async (): Promise<Site[]> => {
    api.model.refresh();
    return api.model.all();
  };
  const nodes = async () => (await api.tree.getChildren()) as SiteNode[];
  const node = async (name: string) => {
    api.model.refresh();
    const n = (await nodes()).find((x) => x.site.name === name);
    assert.ok(n, `the site “${name}” is listed`);
    return n;
  };

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    await vscode.commands.executeCommand('siteRevisions.clearFilter');
  });

  afterEach(async () => {
    await control(url, 'config', { saveReplaces: false, failNext: [] });
  });

  after(async () => {
    await control(url, 'reseed');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('against a service that replaces the whole record, a rename of a site of every server type changes nothing else', async () => {
    await control(url, 'config', { saveReplaces: true });
    const before = (await all()).filter((s) => !s.shared);
    for (const type of SERVER_TYPES) assert.ok(before.some((s) => s.server_type === type), `a ${type} site to edit`);
    for (const site of before) {
      await vscode.commands.executeCommand('siteRevisions.editSite', site.id);
      const ed = api.editors.last!;
      await ed.simulate({ type: 'ready' });
      // What the form sends: all its values, the name changed, no password typed.
      const values = { ...ed.initialState.values, name: `${site.name} (renamed)` };
      const none = { ftp_pass: false, db_password: false };
      await ed.simulate({ type: 'save', values, passwordEdited: none });
      // A stored value the form's rules refuse (the demo AJAX endpoint has no scheme): the user
      // corrects what the form points at, and only that.
      const changed = new Set<string>(['name']);
      const flagged = ed.lastPosted;
      if (flagged?.type === 'errors') {
        for (const e of flagged.errors) {
          assert.equal(e.field, 'domain', `${site.name}: only a URL without its scheme is expected to be refused (${JSON.stringify(e)})`);
          values.domain = `https://${values.domain}`;
          changed.add(e.field);
        }
        await ed.simulate({ type: 'save', values, passwordEdited: none });
      }
      assert.notEqual(ed.lastPosted?.type, 'saveFailed', `${site.name}: ${JSON.stringify(ed.lastPosted)}`);
      assert.ok(await ed.done, `${site.name} saved`);
      const after = (await all()).find((s) => s.id === site.id)!;
      assert.equal(after.name, `${site.name} (renamed)`);
      for (const f of SITE_STRING_FIELDS) if (!changed.has(f)) assert.equal(after[f], site[f], `${site.server_type} site “${site.name}”: ${f} unchanged`);
    }
    await control(url, 'reseed');
  });

  it('a shared site says who shares it; Edit and Delete are not offered for it (menus read on screen), and refuse when run anyway', async function () {
    const team = await node(TEAM);
    assert.equal(team.site.shared, true);
    const item = team.getTreeItem();
    assert.equal(item.description, `SFTP · ${team.site.domain} · shared by ${DEMO.team.email}`);
    assert.match((item.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' '), /shared with you by team@example\.com/);
    assert.match(String(item.contextValue), /^site\.shared/);
    // Run anyway (a keybinding, another extension): told why, nothing opens or is deleted.
    const told: string[] = [];
    const restore = stubWindow('showInformationMessage', (async (m: string) => {
      told.push(m);
      return undefined;
    }) as never);
    try {
      assert.equal(await vscode.commands.executeCommand('siteRevisions.editSite', team), false);
      assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', team), false);
    } finally {
      restore();
    }
    assert.equal(told.length, 2);
    assert.match(told[0]!, /“Team Intranet” is shared with you by team@example\.com: you can view it and its revisions, not change or delete it\./);
    assert.ok((await all()).some((s) => s.name === TEAM), 'still there');

    const s = screenOrSkip(this);
    await s.openSitesView();
    const row = { selector: `${s.pane('Sites')} .monaco-list-row`, hasText: TEAM };
    await s.until(() => s.rows(), (r) => r.some((x) => x.includes(`shared by ${DEMO.team.email}`)), 'the shared site row saying who shares it');
    await s.hover(row);
    assert.equal(await s.count({ selector: `${s.pane('Sites')} .monaco-list-row:has-text("${TEAM}") .action-label[aria-label^="Edit Site"]` }), 0, 'no inline Edit button');
    const menu = await contextMenu(s, row);
    assert.ok(menu.includes('Duplicate Site…') && menu.includes('Copy Site Details'), JSON.stringify(menu));
    assert.ok(!menu.includes('Edit Site…') && !menu.includes('Delete Site…'), `no Edit or Delete: ${JSON.stringify(menu)}`);
    const own = await contextMenu(s, { ...row, hasText: 'Acme Corporate' });
    assert.ok(own.includes('Edit Site…') && own.includes('Delete Site…'), `an own site has both: ${JSON.stringify(own)}`);
  });

  it('Duplicate of a shared site copies its settings, never its owner’s passwords', async () => {
    const team = await node(TEAM);
    assert.ok(team.site.ftp_pass.length > 0, 'the owner’s password reaches this account');
    await vscode.commands.executeCommand('siteRevisions.duplicateSite', team);
    const ed = api.editors.last!;
    await ed.simulate({ type: 'ready' });
    assert.deepEqual(ed.initialState.storedPasswords, { ftp_pass: false, db_password: false }, 'the form says no password is copied');
    assert.ok(!JSON.stringify(ed.posted).includes(team.site.ftp_pass));
    await ed.simulate({ type: 'save', values: ed.initialState.values, passwordEdited: { ftp_pass: false, db_password: false } });
    const saved = await ed.done;
    const copy = (await all()).find((s) => s.id === saved!.siteId)!;
    assert.equal(copy.name, `Copy of ${TEAM}`);
    assert.equal(copy.shared, false, 'the copy is the user’s own');
    assert.equal(copy.domain, team.site.domain);
    assert.equal(copy.ftp_user, team.site.ftp_user);
    assert.equal(copy.ftp_pass, '', 'the owner’s password is not copied');
  });

  it('with several sites selected: the menu offers only what acts on all; Delete asks once, listing them, and leaves a shared one', async function () {
    const [a, b] = ['Scratchpad', 'Photo Portfolio'];
    const na = await node(a!);
    const nb = await node(b!);
    const team = await node(TEAM);
    // Commands that work on one site refuse a selection, saying so.
    const told: string[] = [];
    const restoreInfo = stubWindow('showInformationMessage', (async (m: string) => {
      told.push(m);
      return undefined;
    }) as never);
    try {
      for (const cmd of ['siteRevisions.editSite', 'siteRevisions.duplicateSite', 'siteRevisions.openWebUrl', 'siteRevisions.mapFolder']) {
        const opened = api.editors.last;
        assert.equal(await Promise.resolve(vscode.commands.executeCommand(cmd, na, [na, nb])).then((r) => (r && typeof r === 'object' && 'done' in r ? (r as { done: boolean }).done : r)), false, cmd);
        assert.equal(api.editors.last, opened, `${cmd} opened no editor`);
      }
    } finally {
      restoreInfo();
    }
    assert.equal(told.length, 4);
    assert.ok(told.every((m) => /works on one site at a time: select a single site\./.test(m)), JSON.stringify(told));
    // Copy Site Details copies all of them.
    const text = (await vscode.commands.executeCommand('siteRevisions.copySiteDetails', na, [na, nb])) as string;
    assert.ok(text.includes(`Name: ${a}`) && text.includes(`Name: ${b}`));
    // Delete: one confirmation listing the sites it deletes, and the shared one it does not.
    const asked: { message: string; detail: string }[] = [];
    let answer: string | undefined;
    const restoreWarn = stubWindow('showWarningMessage', (async (message: string, options: vscode.MessageOptions) => {
      asked.push({ message, detail: options.detail ?? '' });
      return answer;
    }) as never);
    try {
      answer = undefined;
      assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', na, [na, nb, team]), false);
      assert.equal(asked.length, 1, 'one confirmation');
      assert.equal(asked[0]!.message, 'Delete 2 sites?');
      assert.match(asked[0]!.detail, new RegExp(`• ${a}\\n• ${b}`));
      assert.match(asked[0]!.detail, /Not deleted, because shared with you: “Team Intranet”\./);
      assert.equal((await all()).filter((s) => [a, b].includes(s.name)).length, 2, 'cancel keeps both');
      answer = 'Delete';
      assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', na, [na, nb, team]), true);
      const left = await all();
      assert.equal(left.filter((s) => [a, b].includes(s.name)).length, 0, 'both deleted');
      assert.ok(left.some((s) => s.name === TEAM), 'the shared site is left');
    } finally {
      restoreWarn();
    }
    await control(url, 'reseed');
    await waitFor(async () => (await all()).some((s) => s.name === a));

    // On screen: select two sites (click, Ctrl+click); their context menu has no single-site command.
    const s = screenOrSkip(this);
    await s.openSitesView();
    const rowOf = (name: string) => ({ selector: `${s.pane('Sites')} .monaco-list-row`, hasText: name });
    await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith(a!)), 'the sites');
    // The reseed's list is fetched behind the cached one: let it arrive before selecting.
    await settled(api.scheduler, url);
    const selected = () => s.texts({ selector: `${s.pane('Sites')} .monaco-list-row.selected` });
    for (let attempt = 1; ; attempt++) {
      await s.click(rowOf(a!));
      await s.click({ ...rowOf(b!), modifiers: ['Control'] });
      try {
        await s.until(selected, (r) => r.length === 2 && r.some((x) => x.startsWith(a!)) && r.some((x) => x.startsWith(b!)), 'the two rows selected', 5000);
        break;
      } catch (e) {
        // A refresh that redraws the tree meanwhile drops the selection: select again.
        if (attempt >= 3) throw e;
      }
    }
    const menu = await contextMenu(s, rowOf(b!));
    assert.ok(menu.includes('Delete Site…') && menu.includes('Copy Site Details'), JSON.stringify(menu));
    for (const single of ['Edit Site…', 'Duplicate Site…', 'Map Site to Local Folder…', 'Open Web URL']) assert.ok(!menu.includes(single), `${single} is not offered: ${JSON.stringify(menu)}`);
    await s.click(rowOf(a!));
  });
});

/** Opens a row's context menu (right-click) and returns its items as drawn, then closes it. */
async function contextMenu(s: Screen, row: { selector: string; hasText: string }): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    await s.click({ ...row, button: 'right' });
    const items = await s.until(() => s.texts({ selector: '.context-view .monaco-menu .action-label', frames: [] }), (t) => t.length > 0, 'the context menu');
    // The menu is the focused row's: a row drawn again between finding it and the click (a
    // refresh) puts another row under the pointer. Then the menu is not the one asked for.
    const focused = await s.texts({ selector: `${row.selector}.focused` });
    await s.press('Escape');
    await s.waitFor({ selector: '.context-view .monaco-menu', state: 'hidden' });
    if (focused.some((t) => t.includes(row.hasText)) || attempt >= 3) {
      assert.ok(focused.some((t) => t.includes(row.hasText)), `the menu of the row “${row.hasText}”, not of ${JSON.stringify(focused)}`);
      return items.map((x) => x.trim()).filter(Boolean);
    }
  }
}

// What a revision's editor says it is, read from the workbench through Chromium: its tab title
// names the revision (date and author, like the diff tabs), its tooltip adds the site and the
// revision id, Open Editors and Quick Open show the same name, and the language mode and
// breadcrumbs are those of the file. A revision opened from a link of the previous URI form still
// opens.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import { formatShortLocal } from '../../src/core/model/time';
import { legacyRevisionUriComponents } from '../unit/helpers/legacyUri';
import { screenOrSkip, type Screen } from './screen';
import { control, signInDemo } from './support';
import { ext, testService } from './util';

const ACME = 'Acme Corporate';

describe('Screen: revision tabs', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;
  let s: Screen;
  let newest: RevisionNode;
  let title: string;

  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');

  before(async function () {
    s = screenOrSkip(this);
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'reseed');
    await signInDemo(url);
    await vscode.commands.executeCommand('siteRevisions.clearFilter');
    await closeAll();
    // The revision the tests open, as the tree lists it (for the expected texts).
    const acme = ((await api.tree.getChildren()) as SiteNode[]).find((n) => n.site.name === ACME)!;
    const file = (await acme.getChildren()).find((n) => (n.getTreeItem() as vscode.TreeItem).contextValue === 'revisionFile' && (n as unknown as { path: string }).path === 'index.php')!;
    newest = (await file.getChildren())[0] as RevisionNode;
    title = `index.php (${formatShortLocal(newest.ref.time!)}, ${newest.ref.item.author})`;
    await s.openSitesView();
    // Start from a folded tree: a suite before may have left another site's index.php expanded.
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
  });

  after(async () => {
    await closeAll();
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
  });

  it('a revision opened from the tree (its Open Revision button) is titled with its date and author; tooltip, language and breadcrumbs follow', async () => {
    // Clicks only: expand the site and the file, then the revision's Open Revision button.
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
    await s.expandPath([ACME, 'index.php']);
    const revisionRow = { selector: `${s.pane('Sites')} .monaco-list-row[aria-label^="Revision ${newest.ref.item.id},"]` };
    await s.scrollToRow(revisionRow);
    await s.clickRowAction(revisionRow, 'Open Revision');
    const tabs = await s.until(() => s.tabTitles(), (t) => t.includes(title), `the tab “${title}”`);
    assert.ok(!tabs.includes('index.php'), `no tab is titled with the file name alone: ${JSON.stringify(tabs)}`);
    // The language mode is the file's (status bar), and the breadcrumbs are its folders and name.
    await s.until(() => s.texts({ selector: '.statusbar-item[id="status.editor.mode"]' }), (t) => t.some((x) => x.trim() === 'PHP'), 'the PHP language mode');
    const crumbs = await s.until(() => s.texts({ selector: '.part.editor .breadcrumbs-control .monaco-breadcrumb-item' }), (t) => t.some((x) => x.includes('index.php')), 'the breadcrumbs');
    assert.equal(crumbs.at(-1)!.trim(), 'index.php', `breadcrumbs: ${JSON.stringify(crumbs)}`);
    // The tab's tooltip names the site and the revision.
    // The tree row's own hover (its button was the last thing under the mouse) may still be up on
    // a loaded machine: the mouse goes away and back until the tab's is the one shown.
    // (Hovers draw non-breaking spaces: compare with the whitespace collapsed.)
    const tipText = (t: string[]) => t.join(' ').replace(/\s+/g, ' ');
    const tip = await s.hoverUntil({ selector: '.part.editor .tabs-container .tab', hasText: title }, () => s.texts({ selector: '.monaco-hover, .workbench-hover' }), (t) => tipText(t).includes(`${ACME}, revision ${newest.ref.item.id}: /${title}`), 'the tab tooltip');
    assert.ok(tipText(tip).includes(`${ACME}, revision ${newest.ref.item.id}: /${title}`), tipText(tip));
    await s.moveMouseAway();
  });

  it('Open Editors and Quick Open show the same name', async () => {
    await vscode.workspace.getConfiguration('explorer').update('openEditors.visible', 5, vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('workbench.files.action.focusOpenEditorsView');
      const open = await s.until(() => s.texts({ selector: '.part.sidebar .open-editors .monaco-list-row' }), (t) => t.some((x) => x.includes(title)), 'the revision in Open Editors');
      assert.ok(open.some((x) => x.includes(title)));
    } finally {
      await vscode.workspace.getConfiguration('explorer').update('openEditors.visible', undefined, vscode.ConfigurationTarget.Global);
    }
    await vscode.commands.executeCommand('workbench.action.quickOpen');
    try {
      const picks = await s.until(() => s.texts({ selector: '.quick-input-widget .monaco-list-row' }), (t) => t.some((x) => x.includes(title)), 'the revision in Quick Open');
      assert.ok(picks.some((x) => x.includes(title)));
    } finally {
      await s.press('Escape');
    }
    await s.openSitesView();
  });

  it('a link of the previous URI form still opens the revision', async () => {
    await closeAll();
    const old = vscode.Uri.from({ scheme: 'site-revision', ...legacyRevisionUriComponents({ siteId: newest.ref.site.id, revisionId: newest.ref.item.id, path: 'index.php' }) });
    await vscode.commands.executeCommand('vscode.open', old);
    // Titled with the file name, as before (the label formatter applies to the current form only).
    await s.until(() => s.attribute({ selector: '.part.editor .tab', name: 'aria-label' }), (l) => !!l && l.startsWith('index.php') && !l.includes('('), 'the old-form tab');
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === old.toString());
    assert.ok(doc, 'the document is open');
    assert.equal(doc.getText(), new TextDecoder().decode(await api.revisions.store.content(newest.ref.site.id, newest.ref.item.id)));
    assert.equal(doc.languageId, 'php');
  });
});

describe('Screen: a service that answers the reads as the spec shows them (no success)', function () {
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
    await control(url, 'config', { specShaped: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Sign-in itself is a Get Sites answered without success.
    await signInDemo(url);
    await vscode.commands.executeCommand('siteRevisions.clearFilter');
    await s.openSitesView();
  });

  after(async () => {
    await control(url, 'config', { specShaped: false });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
  });

  it('lists sites, files and revisions, and opens a revision', async () => {
    const sites = await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith(ACME)) && r.length >= 5, 'the sites');
    assert.ok(sites.some((x) => x.startsWith('Team Intranet')), JSON.stringify(sites));
    await s.expandPath([ACME]);
    const files = await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('index.php')), 'the files of the site');
    assert.ok(files.some((x) => x.startsWith('includes')), 'its folders');
    await s.expandPath([ACME, 'index.php']);
    const revs = await s.until(() => s.rows(), (r) => r.filter((x) => /ago/.test(x)).length >= 3, 'the revisions of index.php');
    const first = revs.find((x) => /ago/.test(x))!;
    await s.clickRowAction({ selector: `${s.pane('Sites')} .monaco-list-row:has-text("${first.split('\n')[0]}")` }, 'Open Revision');
    await s.until(() => s.tabTitles(), (t) => t.some((x) => /^index\.php \(\d{4}-\d\d-\d\d \d\d:\d\d, .+\)$/.test(x)), 'the revision’s tab');
    await s.until(() => s.texts({ selector: '.part.editor .editor-container .view-lines' }), (t) => t.join('\n').includes('<?php'), 'its content');
    // All along, the service answered the reads without success.
    const { config } = (await control(url, 'config')) as { config: { specShaped: boolean } };
    assert.equal(config.specShaped, true);
    assert.ok((await control(url, 'stats')).requests.some((r) => r.operation === 'getRevision'), 'the content came from a Get Revision');
  });
});

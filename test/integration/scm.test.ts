// The working copy at a glance (issue 28) in the real workbench against the local service's demo
// data: a mapped folder in the Source Control view (its groups, a click's diff, Restore Newest
// Revision and its Undo, the Explorer's decoration, the badge, a save counted at the service,
// Refresh, offline) and Line History of chosen lines. What each group must hold, and which
// revisions changed the lines, is computed here from the service's own data.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { TOOL_NAMES } from '../../src/features/history/names';
import { parseRevisionUriComponents } from '../../src/core/model/uri';
import { DEMO } from '../server/demo';
import { control, leaveMappedFolder, reseededAndSignedIn, serviceRevisions as listedRevisions, type ServiceRevision, settled, spyMessages } from './support';
import { screen, screenOrSkip, type Screen } from './screen';
import { waitFor, workspaceFolder } from './util';

/** The revision a document URI names (the extension's own parseRevisionUri also checks its account, which this copy of the module does not know). */
const parseRevisionUri = (u: vscode.Uri) => (u.scheme === 'site-revision' ? parseRevisionUriComponents(u.path, u.query) : undefined);

type Group = 'Changed Locally' | 'Newer on the Service' | 'Only on the Service' | 'Not Compared';
const GROUPS: Group[] = ['Changed Locally', 'Newer on the Service', 'Only on the Service', 'Not Compared'];

describe('Source control of a mapped folder, and Line History', function () {
  this.timeout(180000);
  let api: ExtensionApi;
  let url: string;
  let dir: vscode.Uri;
  let acmeId: string;
  /** Every file of the site, its revisions oldest first, straight from the service. */
  let site: Map<string, ServiceRevision[]>;
  /** What the folder holds: each site path's text and modification time (undefined: no file; `size`: a sparse file of that size, over the limit). */
  const written = new Map<string, { text: string; mtime: number; size?: number } | undefined>();

  const cfg = (section: string) => vscode.workspace.getConfiguration(section);
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const requests = async () => (await control(url, 'stats')).requests.map((r) => r.operation ?? r.url);
  const post = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`, { method: 'POST', body: new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password }) });
    return (await res.json()) as T;
  };
  const serviceRevisions = (path: string): Promise<ServiceRevision[]> => listedRevisions(url, acmeId, path);
  const readSite = async () => {
    site = new Map();
    for (const p of (await post<{ files: string[] }>(`/api/revisions?site=${acmeId}`)).files) site.set(p, await serviceRevisions(p));
  };
  const newest = (p: string) => site.get(p)!.at(-1)!;
  const fileOf = (rel: string) => vscode.Uri.joinPath(dir, ...rel.split('/'));
  const write = (rel: string, text: string, mtime = Date.now()) => {
    const file = fileOf(rel);
    fs.mkdirSync(vscode.Uri.joinPath(file, '..').fsPath, { recursive: true });
    fs.writeFileSync(file.fsPath, text);
    fs.utimesSync(file.fsPath, new Date(mtime), new Date(mtime));
    written.set(rel, { text, mtime });
    return file;
  };
  const remove = (rel: string) => {
    fs.rmSync(fileOf(rel).fsPath, { force: true });
    written.set(rel, undefined);
  };
  /** The group each file must be in, from the service's newest revision and what the folder holds (the alert's rule for "newer"). */
  const expected = (): Record<Group, string[]> => {
    const out: Record<Group, string[]> = { 'Changed Locally': [], 'Newer on the Service': [], 'Only on the Service': [], 'Not Compared': [] };
    for (const [p, revs] of site) {
      const w = written.get(p);
      const n = revs.at(-1)!;
      if (!w) out['Only on the Service'].push(p);
      else if (w.size !== undefined && w.size > 64 * 1024 * 1024) out['Not Compared'].push(p);
      else if (w.text !== n.content) out[n.time > w.mtime ? 'Newer on the Service' : 'Changed Locally'].push(p);
    }
    for (const g of GROUPS) out[g].sort();
    return out;
  };
  const controlOf = async () => waitFor(async () => (await api.scm()).controls.all().find((c) => c.folder.toString() === dir.toString()), { message: 'the source control of the folder' });

  const SCM_ROWS = '.part.sidebar .scm-view .monaco-list-row';
  /**
   * The Source Control view as drawn: the repository row, then each group's drawn label (with its
   * count) and the files under it, as `folder/name` from the row's name and description.
   */
  const drawnGroups = async (s: Screen): Promise<{ repository: string; groups: Record<Group, string[]>; labels: string[] }> => {
    const rows = await s.texts({ selector: SCM_ROWS });
    const groups: Record<Group, string[]> = { 'Changed Locally': [], 'Newer on the Service': [], 'Only on the Service': [], 'Not Compared': [] };
    const labels: string[] = [];
    let current: Group | undefined;
    for (const row of rows.slice(1)) {
      const g = GROUPS.find((x) => row.startsWith(x));
      if (g) {
        current = g;
        labels.push(row.split('\n')[0]!);
        continue;
      }
      // "app.jsscm-acme/js": the name, then its folder in the workspace.
      const m = /^(.+?)(scm-acme(?:\/.*)?)$/.exec(row.replace(/\n/g, ''));
      if (current && m) groups[current].push(`${m[2]!.replace(/^scm-acme\/?/, '')}${m[2] === 'scm-acme' ? '' : '/'}${m[1]}`);
    }
    for (const g of GROUPS) groups[g].sort();
    return { repository: rows[0] ?? '', groups, labels };
  };
  const showScm = async (s: Screen) => {
    await vscode.commands.executeCommand('workbench.view.scm');
    await s.waitFor({ selector: SCM_ROWS, timeoutMs: 15000 });
  };
  const untilGroups = (s: Screen, want: Record<Group, string[]>, what: string) =>
    s.until(() => drawnGroups(s), (d) => JSON.stringify(d.groups) === JSON.stringify(want), what);
  /** The badge drawn on the Source Control icon of the activity bar (0 when none is drawn). */
  const badge = async (s: Screen) => {
    const sel = '.part.activitybar .action-item:has(.codicon-source-control-view-icon) .badge-content';
    return (await s.count({ selector: sel })) ? Number((await s.texts({ selector: sel }))[0]!.trim() || 0) : 0;
  };

  // The lines of index.php between two lines every revision has once and unchanged: which
  // revisions changed them is which revisions changed that block (and the oldest, which has it).
  const TOP = "require __DIR__ . '/includes/db.php';";
  const BOTTOM = "include __DIR__ . '/templates/header.php';";
  const block = (text: string) => {
    const lines = text.split('\n');
    assert.equal(lines.filter((l) => l === TOP).length, 1);
    assert.equal(lines.filter((l) => l === BOTTOM).length, 1);
    return { first: lines.indexOf(TOP) + 1, lines: lines.slice(lines.indexOf(TOP) + 1, lines.indexOf(BOTTOM)) };
  };
  /** The revisions of index.php that changed the block, newest first (the oldest included: it has the block). */
  const changedBlock = () => {
    const revs = site.get('index.php')!;
    return revs.filter((r, i) => i === 0 || block(r.content).lines.join('\n') !== block(revs[i - 1]!.content).lines.join('\n')).reverse();
  };

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    api.model.refresh();
    acmeId = (await api.model.all()).find((s) => s.name === 'Acme Corporate')!.id;
    await readSite();
    dir = vscode.Uri.joinPath(workspaceFolder().uri, 'scm-acme');
    fs.rmSync(dir.fsPath, { recursive: true, force: true });
    fs.mkdirSync(dir.fsPath, { recursive: true });
    // The folder: every file as its newest revision (saved before it), except one edited here,
    // one that is an older revision saved before the newest (so the service's is newer), one
    // missing; and two local files with no revision.
    for (const p of site.keys()) write(p, newest(p).content, newest(p).time - 1000);
    write('index.php', `${newest('index.php').content}// edited here\n`);
    write('js/app.js', site.get('js/app.js')![0]!.content, newest('js/app.js').time - 60_000);
    remove('css/site.css');
    fs.mkdirSync(fileOf('notes').fsPath, { recursive: true });
    fs.writeFileSync(fileOf('notes/local-only.txt').fsPath, 'mine\n');
    fs.writeFileSync(fileOf('draft.php').fsPath, '<?php\n');
    // The repository row shows even with one source control (the site's name is drawn there).
    await cfg('scm').update('alwaysShowRepositories', true, vscode.ConfigurationTarget.Global);
    // The test runner turns the status off for the other suites (test/host/codeServer.ts SUITE_SETTINGS).
    await cfg('siteRevisions').update('sourceControl.enabled', true, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('siteRevisions.mapFolder', acmeId, dir);
  });

  afterEach(async () => {
    await cfg('siteRevisions').update('sourceControl.countBadge', undefined, vscode.ConfigurationTarget.Global);
    await control(url, 'config', { down: false });
  });

  after(async () => {
    // The container as the other suites expect it: Line History cleared (hidden), the Sites view with the room.
    await vscode.commands.executeCommand('siteRevisions.clearLineHistory');
    const s = screen();
    if (s) for (const [title, expanded] of [['Sites', true], ['History Search', false], ['Site Changes', false]] as const) await s.setPaneExpanded(title, expanded);
    await cfg('scm').update('alwaysShowRepositories', undefined, vscode.ConfigurationTarget.Global);
    await leaveMappedFolder(api, url, acmeId, dir);
    await cfg('siteRevisions').update('sourceControl.enabled', false, vscode.ConfigurationTarget.Global);
  });

  it('the Source Control view draws the site’s source control with each file in its group, as the service’s data says; the badge counts the groups the setting names; the Explorer draws the letter and colour', async function () {
    const s = screenOrSkip(this);
    const want = expected();
    assert.deepEqual(want, { 'Changed Locally': ['index.php'], 'Newer on the Service': ['js/app.js'], 'Only on the Service': ['css/site.css'], 'Not Compared': [] });
    await (await controlOf()).settled();
    await showScm(s);
    const drawn = await untilGroups(s, want, 'the groups');
    // The repository: the folder's name, and the site's name (its status item) beside it.
    assert.match(drawn.repository, /^scm-acme\s*Acme Corporate/);
    // Its label, the site's, in the hover VS Code draws for it.
    await s.hover({ selector: `${SCM_ROWS} .monaco-icon-label`, nth: 0 });
    await s.until(() => s.texts({ selector: '.monaco-hover' }), (t) => t.some((x) => x.includes(`Acme Corporate: ${dir.fsPath}`)), 'the site’s name as the source control’s label');
    await s.moveMouseAway();
    // The badge: Changed Locally and Newer on the Service by default; the setting adds Only on the Service.
    await s.until(() => badge(s), (n) => n === 2, 'the badge');
    await cfg('siteRevisions').update('sourceControl.countBadge', ['changedLocally', 'newerOnService', 'onlyOnService'], vscode.ConfigurationTarget.Global);
    await s.until(() => badge(s), (n) => n === 3, 'the badge with Only on the Service');
    await cfg('siteRevisions').update('sourceControl.countBadge', ['newerOnService'], vscode.ConfigurationTarget.Global);
    await s.until(() => badge(s), (n) => n === 1, 'the badge with Newer on the Service only');

    // The Explorer: the letter after the name, in the theme colour contributed for the state.
    await vscode.commands.executeCommand('revealInExplorer', fileOf('index.php'));
    await vscode.commands.executeCommand('revealInExplorer', fileOf('js/app.js'));
    // (A selected row is drawn in the selection's colour: the selection moved to a file with no state.)
    await vscode.commands.executeCommand('revealInExplorer', fileOf('README.md'));
    const row = (name: string) => ({ selector: '.part.sidebar .explorer-folders-view .monaco-list-row .monaco-icon-label', hasText: new RegExp(`^${name.replace('.', '\\.')}`).toString() });
    await s.until(() => s.renderedTexts(row('index.php')), (t) => t.some((x) => x.replace(/[^\x21-\x7e]/g, '') === 'index.phpL'), 'the L of index.php in the Explorer');
    await s.until(() => s.renderedTexts(row('app.js')), (t) => t.some((x) => x.replace(/[^\x21-\x7e]/g, '') === 'app.jsN'), 'the N of app.js in the Explorer');
    const light = vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.Light || vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.HighContrastLight;
    assert.equal(await s.style({ ...row('index.php'), property: 'color', pseudo: '::after' }), light ? 'rgb(137, 85, 3)' : 'rgb(226, 192, 141)');
    assert.equal(await s.style({ ...row('app.js'), property: 'color', pseudo: '::after' }), light ? 'rgb(0, 95, 184)' : 'rgb(108, 182, 255)');
  });

  it('a click opens the diff newest revision ↔ working file; an “only on the service” file opens its newest revision', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    await s.click({ selector: SCM_ROWS, hasText: 'app.js' });
    const diff = await waitFor(() => (vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff ? vscode.window.tabGroups.activeTabGroup.activeTab.input : undefined), { message: 'a diff tab' });
    assert.equal(parseRevisionUri(diff.original)?.revisionId, newest('js/app.js').id);
    assert.equal(diff.modified.toString(), fileOf('js/app.js').toString());
    await s.until(() => s.tabTitles(), (t) => t.some((x) => /^app\.js \(.*\) ↔ working file$/.test(x)), 'the diff’s tab');

    const opened = () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputText && parseRevisionUri(input.uri)?.revisionId === newest('css/site.css').id;
    };
    // (A click while the list is drawn again is lost: clicked again then.)
    for (let attempt = 1; !opened(); attempt++) {
      await s.click({ selector: SCM_ROWS, hasText: 'site.css' });
      await waitFor(opened, { message: 'the newest revision of site.css', timeoutMs: 4000 }).catch((e: unknown) => {
        if (attempt >= 3) throw e;
      });
    }
    await closeAll();
  });

  it('Restore Newest Revision (inline): the working file gets the newest revision, the file leaves its group; one Undo brings the edit and the group back', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    const spy = spyMessages((m) => (m.modal && m.items.includes('Restore') ? 'Restore' : undefined));
    try {
      await s.clickRowAction({ selector: SCM_ROWS, hasText: 'index.php' }, 'Restore Newest Revision');
      const doc = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.toString() === fileOf('index.php').toString() && d.getText() === newest('index.php').content), { message: 'the newest revision restored' });
      assert.ok(spy.shown.some((m) => m.modal && m.message.startsWith('Restore index.php')), 'the restore asked first');
      await untilGroups(s, { ...expected(), 'Changed Locally': [] }, 'index.php no longer changed');
      // One Undo: the edit is back, and so is the file in its group.
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('undo');
      assert.equal(doc.getText(), written.get('index.php')!.text);
      await untilGroups(s, expected(), 'index.php changed again');
      await vscode.commands.executeCommand('workbench.action.files.revert');
    } finally {
      spy.restore();
    }
  });

  it('a save updates the file’s group from the cached newest revision, with no request to the service', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    await settled(api.scheduler, url);
    await control(url, 'reset-stats');
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(fileOf('includes/db.php')), { preview: false });
    assert.ok(await editor.edit((e) => e.insert(new vscode.Position(0, 0), '<?php // saved here ?>\n')));
    assert.ok(await editor.document.save());
    written.set('includes/db.php', { text: editor.document.getText(), mtime: Date.now() });
    await untilGroups(s, expected(), 'db.php changed locally');
    assert.ok(expected()['Changed Locally'].includes('includes/db.php'));
    // And back: saved as the newest revision again, it leaves the group.
    assert.ok(await editor.edit((e) => e.delete(new vscode.Range(0, 0, 1, 0))));
    assert.ok(await editor.document.save());
    written.set('includes/db.php', { text: editor.document.getText(), mtime: Date.now() });
    await untilGroups(s, expected(), 'db.php the newest revision again');
    assert.deepEqual(await requests(), [], 'no request');
  });

  /** The letter the Explorer draws after a file's name ('' when none). */
  const explorerLetter = async (s: Screen, rel: string): Promise<string | undefined> => {
    const name = rel.split('/').at(-1)!;
    const texts = await s.renderedTexts({ selector: '.part.sidebar .explorer-folders-view .monaco-list-row .monaco-icon-label', hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).toString() });
    const t = texts.map((x) => x.replace(/[^\x21-\x7e]/g, '')).find((x) => x.startsWith(name));
    return t === undefined ? undefined : t.slice(name.length);
  };
  /** The letter an editor tab draws after its title ('' when none). */
  const tabLetter = async (s: Screen, name: string): Promise<string | undefined> => {
    const texts = await s.renderedTexts({ selector: '.part.editor .tabs-container .tab .monaco-icon-label', hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).toString() });
    const t = texts.map((x) => x.replace(/[^\x21-\x7e]/g, '')).find((x) => x.startsWith(name));
    return t === undefined ? undefined : t.slice(name.length);
  };

  it('changes made outside VS Code are followed, each, also where VS Code’s file watcher reports nothing (files.watcherExclude): a file changed moves to Changed Locally, deleted with rm to Only on the Service (its open tab lettered S), created again as its newest revision it leaves every group and its tab and Explorer row lose their letter; also while a Refresh is under way', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    // Files of no group (the working file is the newest revision): one in a folder VS Code's
    // watcher is told to leave alone, one in another folder.
    const same = [...site.keys()].filter((p) => written.get(p)?.text === newest(p).content && p.includes('/') && !p.endsWith('.md')).sort();
    const unwatched = same[0];
    const watched = same.find((p) => p.split('/')[0] !== unwatched?.split('/')[0]);
    assert.ok(unwatched && watched, `files that are their newest revision: ${same.join(', ')}`);
    const excluded = `**/scm-acme/${unwatched.split('/')[0]}/**`;
    await cfg('files').update('watcherExclude', { [excluded]: true }, vscode.ConfigurationTarget.Global);
    try {
      for (const p of [unwatched, watched]) {
        const name = p.split('/').at(-1)!;
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(fileOf(p)), { preview: false });
        await s.until(() => tabLetter(s, name), (l) => l !== undefined, `the tab of ${p}`);
        // The watched file: each change while a Refresh (slow replies) is reading every file again.
        if (p === watched) await control(url, 'config', { latencyMs: 400 });
        const refreshing = p === watched ? (await api.scm()).controls.refresh() : undefined;
        try {
          // Changed outside VS Code (a newer time than the newest revision's): Changed Locally.
          write(p, `${newest(p).content}// changed outside\n`);
          await untilGroups(s, expected(), `${p} changed outside VS Code`);
          assert.ok(expected()['Changed Locally'].includes(p));
          // Deleted with rm: Only on the Service, its tab lettered S.
          remove(p);
          await untilGroups(s, expected(), `${p} deleted outside VS Code`);
          assert.ok(expected()['Only on the Service'].includes(p));
          await s.until(() => tabLetter(s, name), (l) => l === 'S', `the S of the tab of ${p}`);
          // Created again, equal to its newest revision: in no group, no letter on its tab or its Explorer row.
          write(p, newest(p).content, newest(p).time - 1000);
          await untilGroups(s, expected(), `${p} created again outside VS Code`);
          assert.ok(!Object.values(expected()).flat().includes(p));
          await s.until(() => tabLetter(s, name), (l) => l === '', `no letter on the tab of ${p}`);
          await vscode.commands.executeCommand('revealInExplorer', fileOf(p));
          await s.until(() => explorerLetter(s, p), (l) => l === '', `no letter on ${p} in the Explorer`);
          await showScm(s);
        } finally {
          await control(url, 'config', { latencyMs: 0 });
          await refreshing;
        }
        await untilGroups(s, expected(), `the groups after ${p}`);
      }
    } finally {
      await cfg('files').update('watcherExclude', undefined, vscode.ConfigurationTarget.Global);
      await closeAll();
    }
  });

  it('Refresh asks for the lists again: a newer revision a colleague saved moves its file to Newer on the Service; offline, the last known state is drawn, marked', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    const added = (await control(url, 'add-revision', { siteId: acmeId, path: 'README.md', content: '# Saved by a colleague\n' })) as { success: boolean };
    assert.ok(added.success);
    await readSite();
    await settled(api.scheduler, url);
    await control(url, 'reset-stats');
    await s.click({ selector: `${SCM_ROWS} .action-label[aria-label^="Refresh Status"]` });
    await untilGroups(s, expected(), 'README.md newer on the service');
    assert.ok(expected()['Newer on the Service'].includes('README.md'));
    // The lists again (no content), and at most the one new revision's content (unless it was cached already).
    const asked = (await control(url, 'stats')).requests;
    assert.deepEqual(asked.filter((r) => r.operation !== 'getRevision').map((r) => r.operation).sort(), ['getRevisionFiles', ...[...site.keys()].map(() => 'getRevisions')].sort());
    assert.ok(asked.filter((r) => r.operation === 'getRevisions').every((r) => r.url.includes('no_content=1')), 'lists without content');
    assert.deepEqual(asked.filter((r) => r.operation === 'getRevision').map((r) => new URL(r.url, url).searchParams.get('revision')).filter((id) => id !== newest('README.md').id), [], 'no other content');

    // Offline: Refresh keeps what is known, and says so.
    await control(url, 'config', { down: true });
    await s.click({ selector: `${SCM_ROWS} .action-label[aria-label^="Refresh Status"]` });
    const offline = await s.until(() => drawnGroups(s), (d) => d.labels.length > 0 && d.labels.every((l) => l.includes('offline, last known state')), 'the groups marked offline');
    assert.deepEqual(offline.groups, expected());
    await s.until(() => s.texts({ selector: SCM_ROWS, nth: 0 }), (t) => t.some((x) => x.includes('Offline')), 'the repository’s item says offline');
  });

  it('Show Line History lists exactly the revisions that changed the chosen lines, newest first, with author and date; a click opens the diff with the revision before, at the lines', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const path = 'index.php';
    const revs = site.get(path)!;
    const changed = changedBlock();
    assert.ok(changed.length >= 3 && changed.length < revs.length, `a block some revisions changed and some did not (${changed.map((r) => r.id)})`);
    // The working file as the newest revision (no local change), the block selected.
    write(path, newest(path).content, newest(path).time - 1000);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(fileOf(path)), { preview: false });
    await waitFor(() => editor.document.getText() === newest(path).content, { message: 'the document as written' });
    const { first, lines: blockLines } = block(newest(path).content);
    const last = first + blockLines.length - 1;
    // From the first line of the block to the start of the line after it (which is not taken).
    editor.selection = new vscode.Selection(first, 0, last + 1, 0);
    assert.equal(await vscode.commands.executeCommand('siteRevisions.showLineHistory'), 'shown');

    const pane = s.pane('Line History');
    // Room for its rows: the other panes of the container folded.
    for (const other of ['Sites', 'History Search', 'Site Changes']) {
      // (A click on a header while the container is laid out again is lost: tried again.)
      for (let attempt = 1; ; attempt++) {
        try {
          await s.setPaneExpanded(other, false);
          break;
        } catch (e) {
          if (attempt >= 3) throw e;
        }
      }
    }
    const rows = await s.until(() => s.texts({ selector: `${pane} .monaco-list-row[aria-level="1"]` }), (t) => t.length === changed.length, 'the Line History rows');
    for (const [i, r] of changed.entries()) {
      assert.ok(rows[i]!.includes(`revision ${r.id}`), `row ${i}: ${rows[i]} is revision ${r.id}`);
      assert.ok(rows[i]!.includes(r.author), rows[i]);
    }
    // The lines' text in a revision: its rows under it.
    const oldest = changed.at(-1)!;
    await s.click({ selector: `${pane} .monaco-list-row[aria-level="1"] .monaco-tl-twistie`, nth: changed.length - 1 });
    const shown = await s.until(() => s.texts({ selector: `${pane} .monaco-list-row[aria-level="2"]` }), (t) => t.length > 0, 'the lines of the oldest revision');
    assert.deepEqual(
      shown.map((t) => t.trim()),
      block(oldest.content).lines.map((l) => l.trim()),
    );

    // A click on the second: its diff with the revision before it, at the lines.
    const second = changed[1]!;
    const before = revs[revs.indexOf(second) - 1]!;
    await s.click({ selector: `${pane} .monaco-list-row[aria-level="1"]`, hasText: `revision ${second.id}` });
    const diff = await waitFor(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff && parseRevisionUri(input.modified)?.revisionId === second.id ? input : undefined;
    }, { message: 'the diff of the revision' });
    assert.equal(parseRevisionUri(diff.original)?.revisionId, before.id);
    const { first: start, lines: at } = block(second.content);
    const sel = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.toString() === diff.modified.toString() ? vscode.window.activeTextEditor.selection : undefined), { message: 'the selection in the revision' });
    assert.equal(sel.start.line, start);
    assert.equal(sel.end.line, start + at.length - 1);
    await closeAll();
    // Its Clear: the view goes (until the next Show Line History).
    await s.clickViewAction('Line History', 'Clear Line History');
    await s.until(() => s.count({ selector: pane }), (n) => n === 0, 'Line History hidden');
  });

  it('turned off, the source control draws no status and the badge goes (the quick diff stays); on again, the groups come back from the caches with no request', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    await settled(api.scheduler, url);
    await control(url, 'reset-stats');
    await cfg('siteRevisions').update('sourceControl.enabled', false, vscode.ConfigurationTarget.Global);
    await s.until(() => drawnGroups(s), (d) => d.labels.length === 0, 'no group drawn');
    await s.until(() => badge(s), (n) => n === 0, 'no badge');
    assert.ok((await controlOf()).sc.quickDiffProvider, 'the quick diff stays');
    await cfg('siteRevisions').update('sourceControl.enabled', true, vscode.ConfigurationTarget.Global);
    await untilGroups(s, expected(), 'the groups again');
    await (await controlOf()).settled();
    assert.deepEqual(await requests(), [], 'from the caches');
  });

  it('a site renamed while its folder is first checked: its source control is made again with the new name and finishes the check', async function () {
    const s = screenOrSkip(this);
    const other = vscode.Uri.joinPath(workspaceFolder().uri, 'scm-bakery');
    const bakery = (await api.model.all()).find((x) => x.name === 'Bakery API')!;
    const paths = (await post<{ files: string[] }>(`/api/revisions?site=${bakery.id}`)).files;
    for (const p of paths) {
      const n = (await listedRevisions(url, bakery.id, p)).at(-1)!;
      const file = vscode.Uri.joinPath(other, ...p.split('/'));
      fs.mkdirSync(vscode.Uri.joinPath(file, '..').fsPath, { recursive: true });
      fs.writeFileSync(file.fsPath, `${n.content}// edited here\n`);
    }
    // Slow replies: the rename comes while the first check is under way.
    await control(url, 'config', { latencyMs: 300 });
    try {
      await api.revisions.folders.set(bakery.id, other);
      const first = await waitFor(async () => (await api.scm()).controls.all().find((c) => c.folder.toString() === other.toString()), { message: 'its source control' });
      await api.session.call((c) => c.updateSite(bakery.id, { name: 'Bakery Renamed' }));
      api.model.refresh();
      // (The Sites view is not shown: the sites are read as a view would.)
      await api.model.all();
      const renamed = await waitFor(async () => (await api.scm()).controls.all().find((c) => c.folder.toString() === other.toString() && c.label === 'Bakery Renamed'), { message: 'made again with the new name', timeoutMs: 20000 });
      assert.notEqual(renamed, first);
      await control(url, 'config', { latencyMs: 0 });
      await renamed.settled();
      assert.equal(renamed.status.groups().changedLocally.length, paths.length, 'every file checked');
      await showScm(s);
      await s.until(() => s.texts({ selector: SCM_ROWS }), (t) => t.some((x) => x.startsWith('scm-bakery') && x.includes('Bakery Renamed')), 'the new name drawn');
    } finally {
      await control(url, 'config', { latencyMs: 0 });
      await api.session.call((c) => c.updateSite(bakery.id, { name: 'Bakery API' }));
      api.model.refresh();
      await api.revisions.folders.set(bakery.id, undefined);
      await settled(api.scheduler, url);
      fs.rmSync(other.fsPath, { recursive: true, force: true });
    }
  });

  it('a working file larger than the largest revision the extension can read (2.5 GB, sparse) is drawn under Not Compared with why, lettered ?, never Only on the Service; back to its newest revision, it leaves the group', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    // A file no earlier step opened: VS Code keeps a closed editor's document a while, and would read the file whole again when it changes.
    const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
    const p = [...site.keys()].find((x) => written.get(x)?.text === newest(x).content && x.includes('/') && !x.endsWith('.md') && !open.has(fileOf(x).toString()))!;
    assert.ok(p);
    const size = 2.5 * 1024 ** 3;
    fs.truncateSync(fileOf(p).fsPath, size);
    written.set(p, { text: '', mtime: Date.now(), size });
    const drawn = await untilGroups(s, expected(), `${p} not compared`);
    assert.deepEqual(drawn.groups['Not Compared'], [p]);
    const entry = (await controlOf()).status.get(p)!;
    assert.equal(entry.working?.notCompared, 'tooLarge');
    assert.equal(entry.working?.size, size);
    // Why, in the row's tooltip (its accessible label carries it too).
    const label = await s.attribute({ selector: SCM_ROWS, hasText: p.split('/').at(-1)!, name: 'aria-label' });
    assert.match(label ?? '', /Not compared: the working file is 2560\.0 MB, larger than the largest revision the extension can read \(64\.0 MB\)/);
    await vscode.commands.executeCommand('revealInExplorer', fileOf(p));
    await s.until(() => explorerLetter(s, p), (l) => l === '?', `the ? of ${p} in the Explorer`);
    write(p, newest(p).content, newest(p).time - 1000);
    await showScm(s);
    await untilGroups(s, expected(), `${p} its newest revision again`);
  });

  it('a folder also mapped to a second site: each file’s letter is that of the one source control drawn for it (no letter from the other’s groups); once the account no longer lists the second site, its source control goes — groups, badge, status-bar item, letters — and the mapping is offered to be forgotten', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showScm(s);
    await untilGroups(s, expected(), 'the groups');
    // A second site, mapped to the same folder: it lists a file of the folder that is Acme's newest
    // revision (its own newest differs and is newer: Newer on the Service for it), and a file the folder has not.
    const shared = [...site.keys()].find((p) => written.get(p)?.text === newest(p).content && p.includes('/') && !p.endsWith('.md'))!;
    assert.ok(shared);
    const { siteId: edgeId } = await api.session.call((c) => c.createSite({ name: 'Edge Cases', server_type: 'FTP', domain: 'edge.example', ftp_user: 'edge', dir: '/' }));
    await control(url, 'add-revision', { siteId: edgeId, path: shared, content: 'the edge site’s own text\n', author: 'edge@example.com' });
    await control(url, 'add-revision', { siteId: edgeId, path: 'edge-only.txt', content: 'only on the edge site\n', author: 'edge@example.com' });
    api.model.refresh();
    await api.model.all();
    const spy = spyMessages((m) => (m.items.includes('Forget Mapping') ? 'Forget Mapping' : undefined));
    try {
      await api.revisions.folders.set(edgeId, dir);
      const edge = await waitFor(async () => (await api.scm()).controls.all().find((c) => c.siteId === edgeId), { message: 'the second site’s source control' });
      await edge.settled();
      await waitFor(() => edge.status.groups().newerOnService.length === 1 && edge.status.groups().onlyOnService.length === 1, { message: 'the second site’s groups' });
      const acmeCount = expected()['Changed Locally'].length + expected()['Newer on the Service'].length;
      await s.until(() => badge(s), (n) => n === acmeCount + 1, 'the badge of both');
      // The Explorer: the shared file's letter is that of Acme's control (drawn first; it is in none of its groups), not the N of the other's.
      await vscode.commands.executeCommand('revealInExplorer', fileOf(shared));
      await s.until(() => explorerLetter(s, shared), (l) => l === '', `no letter on ${shared}`);
      // A file in one of Acme's groups keeps its letter.
      const lettered = expected()['Changed Locally'][0] ?? expected()['Newer on the Service'][0];
      assert.ok(lettered);
      await vscode.commands.executeCommand('revealInExplorer', fileOf(lettered));
      await s.until(() => explorerLetter(s, lettered), (l) => l === (expected()['Changed Locally'].includes(lettered) ? 'L' : 'N'), `the letter of ${lettered}`);

      // The account no longer lists the site (deleted elsewhere); the next check of its folder finds out.
      const res = await fetch(`${url}/api/sites?cmd=delete`, { method: 'POST', body: new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password, site: edgeId }) });
      assert.equal(((await res.json()) as { success: boolean }).success, true);
      await vscode.commands.executeCommand('siteRevisions.scm.refresh', edge.sc);
      await waitFor(async () => !(await api.scm()).controls.all().some((c) => c.siteId === edgeId), { message: 'the second site’s source control gone', timeoutMs: 15000 });
      await showScm(s);
      await untilGroups(s, expected(), 'Acme’s groups only');
      const rows = await s.texts({ selector: SCM_ROWS });
      assert.ok(!rows.some((r) => r.includes('Edge Cases') || r.includes('edge-only.txt')), rows.join(' | '));
      await s.until(() => badge(s), (n) => n === acmeCount, 'the badge of Acme alone');
      await s.until(() => s.texts({ selector: '.part.statusbar' }), (t) => !t.join(' ').includes('Edge Cases'), 'no status-bar item of the site');
      // Offered once, and taken: the mapping is forgotten.
      const offer = await waitFor(() => spy.shown.find((m) => m.items.includes('Forget Mapping')), { message: 'the offer to forget the mapping' });
      assert.match(offer.message, new RegExp(`no longer lists \\(site ${edgeId}`));
      await waitFor(() => api.revisions.folders.get(edgeId) === undefined, { message: 'the mapping forgotten' });
    } finally {
      spy.restore();
      if (api.revisions.folders.get(edgeId)) await api.revisions.folders.set(edgeId, undefined);
      await settled(api.scheduler, url);
    }
  });

  it('a look at a file that ends after its source control is gone (here: its folder unmapped) draws nothing: no letter of it comes back', async function () {
    const s = screenOrSkip(this);
    const other = vscode.Uri.joinPath(workspaceFolder().uri, 'scm-late');
    const bakery = (await api.model.all()).find((x) => x.name === 'Bakery API')!;
    const paths = (await post<{ files: string[] }>(`/api/revisions?site=${bakery.id}`)).files.slice(0, 2);
    assert.equal(paths.length, 2);
    const newestOf = new Map<string, string>();
    for (const p of paths) {
      const n = (await listedRevisions(url, bakery.id, p)).at(-1)!;
      newestOf.set(p, n.content);
      const file = vscode.Uri.joinPath(other, ...p.split('/'));
      fs.mkdirSync(vscode.Uri.joinPath(file, '..').fsPath, { recursive: true });
      fs.writeFileSync(file.fsPath, `${n.content}// edited here\n`);
    }
    const [a, b] = paths as [string, string];
    const uriOf = (p: string) => vscode.Uri.joinPath(other, ...p.split('/'));
    try {
      await api.revisions.folders.set(bakery.id, other);
      const c = await waitFor(async () => (await api.scm()).controls.all().find((x) => x.folder.toString() === other.toString()), { message: 'its source control' });
      await c.settled();
      const decorations = (await api.scm()).decorations;
      await waitFor(() => decorations.groupOf(uriOf(a)) === 'changedLocally' && decorations.groupOf(uriOf(b)) === 'changedLocally', { message: 'both files changed locally' });
      await vscode.commands.executeCommand('revealInExplorer', uriOf(b));
      await s.until(() => explorerLetter(s, b), (l) => l === 'L', `the L of ${b}`);
      // The folder unmapped: its control goes, and its letters with it.
      await api.revisions.folders.set(bakery.id, undefined);
      await waitFor(async () => !(await api.scm()).controls.all().includes(c), { message: 'the control disposed' });
      assert.equal(decorations.groupOf(uriOf(b)), undefined);
      await s.until(() => explorerLetter(s, b), (l) => l === '', `no letter on ${b}`);
      // A look at a file of it ends now (a watcher's event that came just before): it changed, so it would draw.
      fs.writeFileSync(uriOf(a).fsPath, newestOf.get(a)!);
      await c.fromDisk(a);
      assert.equal(decorations.groupOf(uriOf(b)), undefined, 'no letter from a control that is gone');
      assert.equal(decorations.groupOf(uriOf(a)), undefined);
    } finally {
      if (api.revisions.folders.get(bakery.id)) await api.revisions.folders.set(bakery.id, undefined);
      await settled(api.scheduler, url);
      fs.rmSync(other.fsPath, { recursive: true, force: true });
    }
  });

  it('the blame hover’s Line History link opens the history of that line, also for a file whose path would end a markdown link', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    // A path with a bracket and a parenthesis: in a command link's arguments, unescaped, it would end the link.
    const odd = 'pages/odd) [x].php';
    await control(url, 'add-revision', { siteId: acmeId, path: odd, content: '<?php\n$a = 1;\n', author: 'first@example.com' });
    await control(url, 'add-revision', { siteId: acmeId, path: odd, content: '<?php\n$a = 2;\n', author: 'second@example.com' });
    await vscode.commands.executeCommand('siteRevisions.refresh');
    const revs = await serviceRevisions(odd);
    const file = write(odd, revs.at(-1)!.content, revs.at(-1)!.time - 1000);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), { preview: false });
    assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame'), 'on');
    editor.selection = new vscode.Selection(1, 0, 1, 0);
    await s.moveMouseAway();
    await vscode.commands.executeCommand('editor.action.showHover');
    // The links are whole (the path in their arguments ends none of them early), and they work.
    await s.until(() => s.texts({ selector: '.monaco-hover a:visible' }), (t) => t.map((x) => x.trim()).join() === 'Compare with This Revision,Compare with Its Previous Revision,Open Revision,Line History', 'the hover’s links');
    const hover = (await s.texts({ selector: '.monaco-hover' })).join('\n');
    assert.ok(!/%22|command:/.test(hover), `nothing of a link's target drawn as text: ${hover}`);
    await s.click({ selector: '.monaco-hover a:visible', hasText: 'Compare with Its Previous Revision' });
    await waitFor(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff && parseRevisionUri(input.modified)?.revisionId === revs[1]!.id && parseRevisionUri(input.original)?.revisionId === revs[0]!.id;
    }, { message: 'the diff the link opens' });
    await vscode.window.showTextDocument(editor.document, { preview: false });
    vscode.window.activeTextEditor!.selection = new vscode.Selection(1, 0, 1, 0);
    await s.moveMouseAway();
    await vscode.commands.executeCommand('editor.action.showHover');
    await s.click({ selector: '.monaco-hover a:visible', hasText: 'Line History' });
    const pane = s.pane('Line History');
    const rows = await s.until(() => s.texts({ selector: `${pane} .monaco-list-row[aria-level="1"]` }), (t) => t.length === 2 && t.some((x) => x.includes(`revision ${revs[0]!.id}`)), 'the history of line 2');
    assert.ok(rows[0]!.includes(`revision ${revs[1]!.id}`) && rows[0]!.includes('$a = 2;'), rows[0]);
    assert.ok(await s.until(() => s.texts({ selector: `${pane} .pane-header` }), (t) => t.some((x) => x.includes('odd) [x].php · line 2')), 'the file and the line in the view’s title'));
    await vscode.commands.executeCommand('siteRevisions.toggleBlame');
    await closeAll();
  });

  describe('language-model tools', () => {
    const textOf = (r: vscode.LanguageModelToolResult) => r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const dataOf = <T>(r: vscode.LanguageModelToolResult): T => {
      const t = textOf(r);
      return JSON.parse(t.slice(t.indexOf('\n') + 1)) as T;
    };
    const invoke = (name: string, input: object) => vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
    const token = new vscode.CancellationTokenSource().token;
    type Status = { site: { id: string }; offline: boolean; changedLocally: { path: string; newest: { id: string } }[]; newerOnService: { path: string; newest: { id: string } }[]; onlyOnService: { path: string }[]; counts: { localFilesWithoutRevisions: number } };

    it('the status of a mapped folder: the groups as the service’s data says, by folder or by site; nothing cached to fetch asks nothing; a folder not mapped says which are', async () => {
      await closeAll();
      const lm = (await api.history()).lmTools;
      assert.equal((await lm.prepare(TOOL_NAMES.folderStatus, { folder: dir.fsPath }, token))?.confirmationMessages, undefined, 'everything cached: no question');
      await control(url, 'reset-stats');
      const result = await invoke(TOOL_NAMES.folderStatus, { folder: fileOf('js').fsPath });
      const byFolder = dataOf<Status>(result);
      const want = expected();
      assert.deepEqual(byFolder.changedLocally.map((f) => f.path).sort(), want['Changed Locally']);
      assert.deepEqual(byFolder.newerOnService.map((f) => f.path).sort(), want['Newer on the Service']);
      assert.deepEqual(byFolder.onlyOnService.map((f) => f.path).sort(), want['Only on the Service']);
      assert.equal(byFolder.counts.localFilesWithoutRevisions, 2);
      const newer = want['Newer on the Service'][0]!;
      assert.equal(byFolder.newerOnService.find((f) => f.path === newer)?.newest.id, newest(newer).id, 'with its newest revision');
      assert.deepEqual(await requests(), [], 'from the cache');
      const bySite = dataOf<Status>(await invoke(TOOL_NAMES.folderStatus, { site: 'Acme Corporate' }));
      assert.deepEqual(bySite, byFolder);
      assert.match(textOf(await invoke(TOOL_NAMES.folderStatus, { folder: '/nowhere/mapped' })), /is not inside a folder mapped to a site\. Mapped folders: .*Acme Corporate/);
    });

    it('the status of a folder whose files are not cached asks first', async () => {
      const other = vscode.Uri.joinPath(workspaceFolder().uri, 'scm-docs');
      fs.mkdirSync(other.fsPath, { recursive: true });
      const docs = (await api.model.all()).find((x) => x.name === 'Product Docs')!;
      // (A site no other test of the suite maps: nothing of it is cached.)
      // Slow replies: the source control's own first look has not cached the files yet.
      await control(url, 'config', { latencyMs: 400 });
      try {
        await api.revisions.folders.set(docs.id, other);
        const asked = await (await api.history()).lmTools.prepare(TOOL_NAMES.folderStatus, { folder: other.fsPath }, token);
        assert.match(String(asked?.confirmationMessages?.title), /^Check (every file of the folder|\d+ files) against the service\?$/);
      } finally {
        await control(url, 'config', { latencyMs: 0 });
        await api.revisions.folders.set(docs.id, undefined);
        await settled(api.scheduler, url);
        fs.rmSync(other.fsPath, { recursive: true, force: true });
      }
    });

    it('the history of lines: exactly the revisions that changed them, newest first, with their text; of a working file, or of a site path as of a revision; asked once per site', async () => {
      const path = 'index.php';
      write(path, newest(path).content, newest(path).time - 1000);
      const { first, lines } = block(newest(path).content);
      const changed = changedBlock();
      type History = { total: number; entries: { revisionId: string | null; author: string; change: string; lines: { start: number; end: number }; text: string }[] };
      const lm = (await api.history()).lmTools;
      const input = { path: fileOf(path).fsPath, startLine: first + 1, endLine: first + lines.length };
      // Any site's contents are asked for once: the first preparation asks, unless an earlier test's yes is remembered.
      const prepared = await lm.prepare(TOOL_NAMES.lineHistory, input, token);
      assert.ok(!prepared?.confirmationMessages || prepared.confirmationMessages.title === 'Hand out the content of revisions?');
      const h = dataOf<History>(await invoke(TOOL_NAMES.lineHistory, input));
      assert.deepEqual(
        h.entries.map((e) => e.revisionId),
        changed.map((r) => r.id),
      );
      assert.equal(h.entries[0]!.author, changed[0]!.author);
      assert.equal(h.entries.at(-1)!.change, 'oldest');
      assert.equal(h.entries.at(-1)!.text, block(changed.at(-1)!.content).lines.join('\n'));
      assert.equal((await lm.prepare(TOOL_NAMES.lineHistory, input, token))?.confirmationMessages, undefined, 'the site is allowed now');
      // As of the second revision that changed them: that one and the older ones.
      const second = changed[1]!;
      const at = block(second.content);
      const asOf = dataOf<History>(await invoke(TOOL_NAMES.lineHistory, { site: acmeId, path, revisionId: second.id, startLine: at.first + 1, endLine: at.first + at.lines.length }));
      assert.deepEqual(
        asOf.entries.map((e) => e.revisionId),
        changed.slice(1).map((r) => r.id),
      );
      assert.match(textOf(await invoke(TOOL_NAMES.lineHistory, { path: fileOf(path).fsPath })), /Give the first line as "startLine"/);
    });
  });
});

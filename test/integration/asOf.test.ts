// A whole site as it was (issue 27) in the real workbench against the local service's demo data
// (the site "Marketing Drive", test/server/seed-search.ts: revisions a whole number of days old):
// the moment typed, the as-of tree, the multi-file diffs, the restore in one undoable edit, the
// export (its files against the service's own data), the two-site tree, a cancel that writes
// nothing, hostile paths refused, and the two language-model tools. Expected values are computed
// here from what the service answers, never taken from the extension.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import type { AsOfRun, CompareRun } from '../../src/features/siteAsOf/views';
import type { DiffOutcome } from '../../src/features/siteAsOf/work';
import type { AsOfRestoreOutcome } from '../../src/features/siteAsOf/restore';
import type { AsOfExportOutcome } from '../../src/features/siteAsOf/export';
import type { ChangesRun } from '../../src/features/history/changesView';
import { momentText } from '../../src/core/asof';
import { parseRevisionDate } from '../../src/core/model/ordering';
import { formatShortLocal } from '../../src/core/model/time';
import { TOOL_NAMES } from '../../src/features/tools/tools';
import { DEMO } from '../server/demo';
import { SEARCH_DEMO } from '../server/seed-search';
import { zipEntries, zipRead } from '../host/zip';
import { screen, screenOrSkip, type Screen } from './screen';
import { control, reseededAndSignedIn, signInDemo, stubWindow } from './support';
import { waitFor, workspaceFolder } from './util';

const DAY = 86_400_000;

/** One read straight from the service, as the demo user. */
async function serviceRead<T>(url: string, query: string): Promise<T> {
  const body = new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password });
  const res = await fetch(`${url}/api/revisions?${query}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  return (await res.json()) as T;
}

interface Expected {
  /** path → the revision as of the moment. */
  at: Map<string, { id: string; date: string; author: string; time: number }>;
  /** Paths whose first revision is later. */
  notYet: string[];
  /** path → its newest revision id. */
  newest: Map<string, string>;
}

/** The site as of `moment`, from the service's own lists: each file's newest revision dated at or before it. */
async function expectedAsOf(url: string, siteId: string, moment: number, folder = ''): Promise<Expected> {
  const files = (await serviceRead<{ files: string[] }>(url, `site=${siteId}`)).files.filter((f) => !folder || f.startsWith(`${folder}/`));
  const out: Expected = { at: new Map(), notYet: [], newest: new Map() };
  for (const f of files) {
    const revs = (await serviceRead<{ revisions: { id: string; date: string; author: string }[] }>(url, `site=${siteId}&file=${encodeURIComponent(f)}&no_content=1`)).revisions;
    const dated = revs.map((r) => ({ ...r, time: parseRevisionDate(r.date)! })).sort((a, b) => b.time - a.time || Number(b.id) - Number(a.id));
    out.newest.set(f, dated[0]!.id);
    const then = dated.find((r) => r.time <= moment);
    if (then) out.at.set(f, then);
    else out.notYet.push(f);
  }
  return out;
}

async function contentOf(url: string, siteId: string, revisionId: string): Promise<string> {
  return (await serviceRead<{ content: string }>(url, `site=${siteId}&revision=${revisionId}`)).content;
}

describe('A whole site as it was', function () {
  this.timeout(180000);
  let api: ExtensionApi;
  let url: string;
  let marketing: Site;
  let landing: Site;
  let localDir: vscode.Uri;
  /** Ten days before now (a whole minute): by the seed, two of Marketing Drive's six files did not exist yet. */
  let moment: number;
  let expected: Expected;
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const PANES = ['Sites', 'History Search', 'Site Changes', 'Site As It Was', 'Compare Sites'];
  /** Shows one view of the container with room for its rows: the others are collapsed. */
  const VIEW_IDS: Record<string, string> = { Sites: 'siteRevisions.sites', 'History Search': 'siteRevisions.historySearch', 'Site Changes': 'siteRevisions.siteChanges', 'Site As It Was': 'siteRevisions.asOfView', 'Compare Sites': 'siteRevisions.compareView' };
  const showOnly = async (s: Screen, title: string) => {
    // Focusing expands it (and does nothing more when a command has just focused it: a click on
    // its header would fold it again).
    await vscode.commands.executeCommand(`${VIEW_IDS[title]}.focus`);
    await s.until(() => s.attribute({ selector: `${s.pane(title)} > .pane-header`, name: 'aria-expanded' }), (v) => v === 'true', `the pane ${title} expanded`);
    for (const other of PANES) if (other !== title) await s.setPaneExpanded(other, false);
  };

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    api.model.refresh();
    const sites = await api.model.all();
    marketing = sites.find((s) => s.name === SEARCH_DEMO.siteName)!;
    landing = sites.find((s) => s.name === 'Campaign Landing Pages')!;
    assert.ok(marketing && landing);
    localDir = vscode.Uri.joinPath(workspaceFolder().uri, 'asof-site');
    fs.rmSync(localDir.fsPath, { recursive: true, force: true });
    fs.mkdirSync(localDir.fsPath, { recursive: true });
    await vscode.commands.executeCommand('siteRevisions.mapFolder', marketing.id, localDir);
    moment = Math.floor((Date.now() - 10 * DAY) / 60_000) * 60_000;
    expected = await expectedAsOf(url, marketing.id, moment);
    assert.deepEqual(expected.notYet.sort(), ['campaigns/autumn/notes.txt', 'campaigns/summer/launch.md'], 'the seed as the tests expect it');
  });

  afterEach(async () => {
    await control(url, 'config', { latencyMs: 0 });
  });

  after(async () => {
    const s = screen();
    if (s) for (const title of PANES) await s.setPaneExpanded(title, title === 'Sites');
    await closeAll();
    await vscode.commands.executeCommand('siteRevisions.asOfClear');
    await vscode.commands.executeCommand('siteRevisions.compareSitesClear');
    // The suites after this one find the folder mappings as they were.
    await api.revisions.folders.set(marketing.id, undefined);
    fs.rmSync(localDir.fsPath, { recursive: true, force: true });
  });

  it('the moment typed: the input refuses what it cannot read and says which moment it reads; the as-of tree on screen', async function () {
    const s = screenOrSkip(this);
    const running = vscode.commands.executeCommand('siteRevisions.siteAsOf', { site: marketing }) as Thenable<AsOfRun | undefined>;
    // The quick picks of common moments first; the first item opens the input.
    await s.waitFor({ selector: '.quick-input-widget .monaco-list-row', hasText: 'Yesterday at this time', timeoutMs: 15000 });
    await s.click({ selector: '.quick-input-widget .monaco-list-row', hasText: 'Enter a Date and Time' });
    const input = '.quick-input-widget input';
    const messageText = () => s.texts({ selector: '.quick-input-widget .quick-input-message' });
    await s.waitFor({ selector: input, timeoutMs: 15000 });
    const prompt = (await s.texts({ selector: '.quick-input-widget .quick-input-message' })).join(' ');
    assert.match(prompt, /YYYY-MM-DD HH:MM in your time zone/);
    await s.fill({ selector: input, value: 'last blue moon' });
    await s.until(messageText, (t) => t.join(' ').includes('is not a moment'), 'the refusal in the input');
    const typed = momentText(moment);
    await s.fill({ selector: input, value: typed });
    await s.until(messageText, (t) => t.join(' ').includes(`As of ${typed}`), 'the moment it reads, in the input');
    await s.press('Enter');
    const run = await running;
    assert.ok(run && run.state === 'done', JSON.stringify(run?.state));
    assert.equal(run.moment.time, moment);
    await showOnly(s, 'Site As It Was');
    const header = (await s.texts({ selector: `${s.pane('Site As It Was')} .pane-header` })).join(' ');
    assert.match(header, new RegExp(`Marketing Drive · as of ${typed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(`));
    assert.match(header, /4 files/);
    // Root: the folder, the root file, the files that did not exist yet.
    const rows = await s.until(() => s.rows('Site As It Was'), (r) => r.length >= 3, 'the as-of tree');
    const index = expected.at.get('index.html')!;
    assert.ok(rows[0]!.startsWith('campaigns'), rows.join(' | '));
    assert.ok(rows[1]!.startsWith('index.html') && rows[1]!.includes(formatShortLocal(index.time)) && rows[1]!.includes(index.author), rows[1]);
    assert.match(rows[2]!, /^Did not exist yet\s*2 files/);
    // Inside: each file with the date and author of its revision as of then.
    await s.expandPath(['campaigns', 'spring'], 'Site As It Was');
    for (const p of ['campaigns/spring/index.html', 'campaigns/spring/styles.css']) {
      const r = expected.at.get(p)!;
      await s.until(() => s.rows('Site As It Was'), (all) => all.some((x) => x.startsWith(path.basename(p)) && x.includes(formatShortLocal(r.time)) && x.includes(r.author)), `${p} as of then`);
    }
    await s.expandPath(['Did not exist yet'], 'Site As It Was');
    await s.until(() => s.rows('Site As It Was'), (all) => all.some((x) => x.startsWith('notes.txt')) && all.some((x) => x.startsWith('launch.md')), 'the files that did not exist yet');
  });

  it('a click on a file opens its revision of then (the revision document)', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showOnly(s, 'Site As It Was');
    const r = expected.at.get('campaigns/spring/index.html')!;
    await s.click({ selector: `${s.pane('Site As It Was')} .monaco-list-row[aria-level="3"]`, hasText: 'index.html' });
    await s.until(() => s.tabTitles(), (t) => t.includes(`index.html (${formatShortLocal(r.time)}, ${r.author})`), 'the revision’s tab');
    const doc = await waitFor(() => vscode.window.visibleTextEditors.find((e) => api.revisions.parseRevisionUri(e.document.uri)?.revisionId === r.id));
    assert.equal(doc.document.getText(), await contentOf(url, marketing.id, r.id));
  });
  /** A multi-file diff tab is active and drawn, titled `title…`. */
  const multiDiffShown = async (s: Screen, title: string) => {
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.label.startsWith(title), { message: `the multi-diff tab “${title}…” is active` });
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab!;
    assert.ok(!(tab.input instanceof vscode.TabInputText) && !(tab.input instanceof vscode.TabInputTextDiff), 'not a single (diff) editor');
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith(title)), 'the multi-diff tab on screen');
    await s.waitFor({ selector: '.part.editor .multiDiffEntry', timeoutMs: 15000 });
  };
  const revisionId = (u: vscode.Uri | undefined) => (u ? api.revisions.parseRevisionUri(u)?.revisionId : undefined);
  const relOf = (u: vscode.Uri) => (u.scheme === 'file' ? path.relative(localDir.fsPath, u.fsPath).split(path.sep).join('/') : api.revisions.parseRevisionUri(u)!.path);

  it('Compare with Newest Revisions: every file changed since that moment, or new since, in one multi-file diff editor', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const out = (await vscode.commands.executeCommand('siteRevisions.asOfCompareNewest')) as DiffOutcome;
    assert.equal(out.how, 'multiDiff');
    // From the service: a file whose content then differs from its newest, and the files new since.
    const changed: string[] = [];
    for (const [p, r] of expected.at) if ((await contentOf(url, marketing.id, r.id)) !== (await contentOf(url, marketing.id, expected.newest.get(p)!))) changed.push(p);
    assert.deepEqual(out.resources.map(([label]) => relOf(label)).sort(), [...changed, ...expected.notYet].sort());
    for (const [label, left, right] of out.resources) {
      const p = relOf(label);
      assert.equal(revisionId(left), expected.at.get(p)?.id, `${p}: its revision as of then on the left (none: new since)`);
      assert.equal(revisionId(right), expected.newest.get(p), `${p}: its newest revision on the right`);
    }
    await multiDiffShown(s, 'Marketing Drive as of ');
    assert.ok(vscode.window.tabGroups.activeTabGroup.activeTab!.label.includes('↔ newest revisions'));
  });

  /** The working files as the tests below start from them: one as it was, one edited, two missing, one that did not exist then. */
  const localFiles = () => ({
    same: vscode.Uri.joinPath(localDir, 'index.html'),
    edited: vscode.Uri.joinPath(localDir, 'campaigns/spring/index.html'),
    missing: [vscode.Uri.joinPath(localDir, 'campaigns/spring/styles.css'), vscode.Uri.joinPath(localDir, 'campaigns/autumn/teaser.html')],
    later: vscode.Uri.joinPath(localDir, 'campaigns/summer/launch.md'),
  });
  const prepareLocal = async () => {
    const f = localFiles();
    fs.rmSync(localDir.fsPath, { recursive: true, force: true });
    for (const u of [f.same, f.edited, f.later]) fs.mkdirSync(path.dirname(u.fsPath), { recursive: true });
    fs.writeFileSync(f.same.fsPath, await contentOf(url, marketing.id, expected.at.get('index.html')!.id));
    fs.writeFileSync(f.edited.fsPath, 'local edit\n');
    fs.writeFileSync(f.later.fsPath, 'local launch plan\n');
    return f;
  };

  it('Compare with Working Files: the working files that differ from then, are missing, or did not exist then, in one multi-file diff editor', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const f = await prepareLocal();
    const out = (await vscode.commands.executeCommand('siteRevisions.asOfCompareWorking')) as DiffOutcome;
    assert.equal(out.how, 'multiDiff');
    const shown = new Map(out.resources.map(([label, left, right]) => [relOf(label), [revisionId(left), right?.toString()]]));
    assert.deepEqual(
      [...shown.keys()].sort(),
      ['campaigns/autumn/teaser.html', 'campaigns/spring/index.html', 'campaigns/spring/styles.css', 'campaigns/summer/launch.md'],
      'not index.html: it is as it was',
    );
    assert.deepEqual(shown.get('campaigns/spring/index.html'), [expected.at.get('campaigns/spring/index.html')!.id, f.edited.toString()]);
    assert.deepEqual(shown.get('campaigns/spring/styles.css'), [expected.at.get('campaigns/spring/styles.css')!.id, undefined], 'missing locally: removed on the right');
    assert.deepEqual(shown.get('campaigns/summer/launch.md'), [undefined, f.later.toString()], 'did not exist then: added on the right');
    await multiDiffShown(s, 'Marketing Drive as of ');
    assert.ok(vscode.window.tabGroups.activeTabGroup.activeTab!.label.includes('↔ working files'));
  });

  it('Restore into the mapped folder: one confirmation that counts the files (not there yet: ticked to delete), one edit, one Undo', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const f = await prepareLocal();
    const running = vscode.commands.executeCommand('siteRevisions.asOfRestore') as Thenable<AsOfRestoreOutcome>;
    const title = '.quick-input-widget .quick-input-title';
    const counted = await s.until(() => s.texts({ selector: title }), (t) => t.join(' ').includes('not there yet'), 'the confirmation');
    assert.match(counted.join(' '), /^Restore Marketing Drive as of .+\? 1 replaced, 2 created, 1 not there yet$/);
    const rows = await s.until(() => s.texts({ selector: '.quick-input-widget .monaco-list-row' }), (r) => r.some((x) => x.includes('launch.md')), 'the files');
    assert.ok(rows.some((r) => r.includes('campaigns/spring/index.html') && r.includes('replaced')), rows.join(' | '));
    assert.ok(rows.some((r) => r.includes('campaigns/autumn/teaser.html') && r.includes('created')), rows.join(' | '));
    assert.ok(!rows.some((r) => r.startsWith('index.html')), 'a file already as it was is not listed');
    // The file that did not exist then is left alone unless ticked: tick it.
    try {
      const box = { selector: '.quick-input-widget .monaco-list-row:has-text("launch.md") .monaco-checkbox' };
      assert.equal(await s.attribute({ ...box, name: 'aria-checked' }), 'false', 'not ticked by default');
      await s.click(box);
      await s.until(() => s.attribute({ ...box, name: 'aria-checked' }), (v) => v === 'true', 'launch.md ticked');
      await s.click({ selector: '.quick-input-widget .monaco-button', hasText: 'OK' });
    } catch (e) {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      throw e;
    }
    const out = await running;
    assert.deepEqual([out.replaced.length, out.created.length, out.deleted.length, out.unchanged, out.cancelled], [1, 2, 1, 1, false], JSON.stringify(out));
    const asOfText = async (p: string) => contentOf(url, marketing.id, expected.at.get(p)!.id);
    const edited = await vscode.workspace.openTextDocument(f.edited);
    assert.equal(edited.getText(), await asOfText('campaigns/spring/index.html'));
    for (const u of f.missing) assert.equal((await vscode.workspace.openTextDocument(u)).getText(), await asOfText(relOf(u)));
    assert.equal(fs.existsSync(f.later.fsPath), false, 'launch.md (ticked) deleted');
    // One Undo, from one of the files: VS Code asks whether to undo across all of them.
    await vscode.window.showTextDocument(edited);
    await vscode.commands.executeCommand('undo');
    const across = { selector: '.monaco-dialog-box .monaco-button', hasText: '/Undo in \\d+ Files/' };
    if (await s.until(() => s.count(across), (n) => n > 0, 'the undo dialog', 5000).then(() => true, () => false)) await s.click(across);
    await waitFor(() => edited.getText() === 'local edit\n' && f.missing.every((u) => !fs.existsSync(u.fsPath)) && fs.existsSync(f.later.fsPath), { message: 'one Undo reverts every file', timeoutMs: 15000 });
    assert.equal(fs.readFileSync(f.later.fsPath, 'utf8'), 'local launch plan\n', 'the deleted file is back as it was');
  });

  /** Every file of a folder, by its path below it. */
  const filesBelow = (dir: string) => (fs.readdirSync(dir, { recursive: true }) as string[]).map((p) => p.split(path.sep).join('/')).filter((p) => fs.statSync(path.join(dir, p)).isFile()).sort();

  it('Export into a new folder and into a .zip: the files are the service’s revisions as of then; the notification says so', async function () {
    const s = screenOrSkip(this);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-asof-export-'));
    try {
      const folder = path.join(root, 'recovered');
      const out = (await vscode.commands.executeCommand('siteRevisions.asOfExport', { folder })) as AsOfExportOutcome;
      assert.deepEqual([out.files, out.cancelled, out.refused], [expected.at.size, false, []]);
      assert.deepEqual(filesBelow(folder), [...expected.at.keys()].sort());
      for (const [p, r] of expected.at) assert.equal(fs.readFileSync(path.join(folder, p), 'utf8'), await contentOf(url, marketing.id, r.id), p);
      const zip = path.join(root, 'site.zip');
      const zipped = (await vscode.commands.executeCommand('siteRevisions.asOfExport', { zip })) as AsOfExportOutcome;
      assert.equal(zipped.files, expected.at.size);
      const buf = fs.readFileSync(zip);
      const entries = zipEntries(buf);
      assert.deepEqual(entries.map((e) => e.name).sort(), [...expected.at.keys()].sort());
      for (const e of entries) assert.equal(zipRead(buf, e).toString('utf8'), await contentOf(url, marketing.id, expected.at.get(e.name)!.id), e.name);
      await vscode.commands.executeCommand('notifications.showList');
      await s.until(() => s.notifications(), (n) => n.some((x) => x.startsWith(`Exported ${expected.at.size} files of Marketing Drive as of `) && x.includes(folder)), 'the notification of the export');
      // A folder that is not empty asks first; answered no, nothing is written.
      let asked = '';
      const restore = stubWindow('showWarningMessage', (async (m: string) => {
        asked = m;
        return undefined;
      }) as never);
      try {
        const again = (await vscode.commands.executeCommand('siteRevisions.asOfExport', { folder })) as AsOfExportOutcome;
        assert.equal(again.cancelled, true);
      } finally {
        restore();
      }
      assert.match(asked, /is not empty\. Export into it\?/);
    } finally {
      await screen()?.clearNotifications();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('Export: when “Exported …” is on screen, no progress of the export is left beside it (it ends with the export)', async function () {
    const s = screenOrSkip(this);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-asof-progress-'));
    try {
      await s.clearNotifications();
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.showList');
      const folder = path.join(root, 'again');
      const out = (await vscode.commands.executeCommand('siteRevisions.asOfExport', { folder })) as AsOfExportOutcome;
      assert.equal(out.files, expected.at.size);
      // The first moment the result is drawn: the export's progress must not be drawn with it.
      const shown = await s.until(() => s.notifications(), (n) => n.some((x) => x.startsWith(`Exported ${expected.at.size} files`) && x.includes(folder)), 'the notification of the export');
      assert.deepEqual(shown.filter((x) => x.startsWith('Exporting ')), [], shown.join(' | '));
    } finally {
      await vscode.commands.executeCommand('notifications.clearAll');
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('a cancelled export writes nothing (Cancel in the view’s title bar while the contents are being read)', async function () {
    const s = screenOrSkip(this);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-asof-cancel-'));
    try {
      // Nothing cached: every content is asked for, and each takes 1.5 s.
      await (await api.cache.current())?.clear();
      api.revisions.store.clear();
      await new Promise((r) => setTimeout(r, 200));
      await control(url, 'config', { latencyMs: 1500 });
      await control(url, 'reset-stats');
      const folder = path.join(root, 'never');
      await showOnly(s, 'Site As It Was');
      const running = vscode.commands.executeCommand('siteRevisions.asOfExport', { folder }) as Thenable<AsOfExportOutcome>;
      await waitFor(async () => (await control(url, 'stats')).inFlight >= 1, { timeoutMs: 20000, message: 'requests of the export in flight' });
      await s.clickViewAction('Site As It Was', 'Cancel Site As It Was');
      const out = await running;
      assert.equal(out?.cancelled, true, JSON.stringify(out));
      assert.equal(fs.existsSync(folder), false, 'no folder, no file');
      assert.deepEqual(fs.readdirSync(root), []);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('hostile paths (.git, .vscode, 8.3 names) are refused by the restore and the export, named on screen; nothing is written there', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const hostile = ['.GIT/hooks/pre-commit', 'GIT~1/config', '.vscode/tasks.json'];
    for (const p of hostile) await control(url, 'add-revision', { siteId: marketing.id, path: p, content: '#!/bin/sh\necho owned\n', author: 'mallory@example.com', date: moment - DAY });
    const listed = (await serviceRead<{ files: string[] }>(url, `site=${marketing.id}`)).files;
    assert.deepEqual(hostile.filter((p) => listed.includes(p)), hostile, `the service lists them: ${listed.join(', ')}`);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-asof-hostile-'));
    try {
      api.model.refresh();
      api.revisions.store.invalidate();
      const run = (await vscode.commands.executeCommand('siteRevisions.siteAsOf', { site: marketing }, { moment })) as AsOfRun;
      assert.deepEqual(hostile.filter((p) => run.result!.files.some((f) => f.path === p)), hostile, `the site as of then lists them: ${run.state} ${JSON.stringify(run.result?.files.map((f) => f.path))}`);
      await vscode.commands.executeCommand('notifications.clearAll');
      // The restore: refused before anything is asked (the confirmation that follows is dismissed).
      const restoring = vscode.commands.executeCommand('siteRevisions.asOfRestore') as Thenable<AsOfRestoreOutcome>;
      await s.waitFor({ selector: '.quick-input-widget .quick-input-title', hasText: 'Restore Marketing Drive', timeoutMs: 20000 });
      await s.press('Escape');
      const restored = await restoring;
      assert.deepEqual(restored.refused.map((r) => r.path).sort(), [...hostile].sort());
      // The export: refused, the rest written.
      const folder = path.join(root, 'out');
      const exported = (await vscode.commands.executeCommand('siteRevisions.asOfExport', { folder })) as AsOfExportOutcome;
      assert.deepEqual(exported.refused.map((r) => r.path).sort(), [...hostile].sort());
      assert.deepEqual(filesBelow(folder), [...expected.at.keys()].sort());
      await vscode.commands.executeCommand('notifications.showList');
      const shown = await s.until(
        () => s.notifications(),
        (n) => n.some((x) => x.startsWith('3 paths of the site are not restored')) && n.some((x) => x.startsWith('3 paths of the site are not exported')),
        'the refusals on screen',
      );
      for (const p of hostile) assert.ok(shown.filter((x) => x.includes(JSON.stringify(p)) && /leads into \.(git|vscode)/.test(x)).length >= 2, `${p}: ${shown.join(' | ')}`);
      for (const p of hostile) assert.equal(fs.existsSync(vscode.Uri.joinPath(localDir, p).fsPath), false, `${p} restored`);
      assert.ok(!vscode.workspace.textDocuments.some((d) => d.getText().includes('echo owned')), 'nothing restored into a document');
    } finally {
      await s.clearNotifications();
      fs.rmSync(root, { recursive: true, force: true });
      await control(url, 'reseed');
      await (await api.cache.current())?.forgetSite(marketing.id);
      api.revisions.store.clear();
      api.model.refresh();
      await vscode.commands.executeCommand('siteRevisions.siteAsOf', { site: marketing }, { moment });
    }
  });

  it('Compare with Another Site: a folder of each, matched by relative path; the tree of differences on screen; one multi-file diff', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    // The landing pages keep a copy of the campaigns under site/campaigns: two files as Marketing
    // Drive has them now, one changed, one of their own.
    const newest = async (p: string) => contentOf(url, marketing.id, expected.newest.get(p)!);
    const copies: [string, string][] = [
      ['site/campaigns/spring/index.html', await newest('campaigns/spring/index.html')],
      ['site/campaigns/autumn/teaser.html', await newest('campaigns/autumn/teaser.html')],
      ['site/campaigns/spring/styles.css', `${await newest('campaigns/spring/styles.css')}/* landing */\n`],
      ['site/campaigns/winter/plan.md', '# Winter\n'],
    ];
    for (const [p, content] of copies) await control(url, 'add-revision', { siteId: landing.id, path: p, content, date: Date.now() - 3600_000 });
    try {
      api.revisions.store.invalidate();
      const run = (await vscode.commands.executeCommand('siteRevisions.compareSites', { site: marketing, folder: 'campaigns' }, { other: landing.id, otherFolder: 'site/campaigns', moment: 'newest' })) as CompareRun;
      assert.equal(run.state, 'done');
      const c = run.result!;
      assert.deepEqual([c.differ.map((p) => p.rel), c.onlyA.map((f) => f.rel), c.onlyB.map((f) => f.rel), c.same], [['spring/styles.css'], ['autumn/notes.txt', 'summer/launch.md'], ['winter/plan.md'], 2]);
      await showOnly(s, 'Compare Sites');
      const header = (await s.texts({ selector: `${s.pane('Compare Sites')} .pane-header` })).join(' ');
      assert.match(header, /campaigns — Marketing Drive ↔ site\/campaigns — Campaign Landing Pages · newest revisions/);
      const rows = await s.until(() => s.rows('Compare Sites'), (r) => r.some((x) => x.startsWith('2 files are the same')), 'the tree of differences');
      assert.match(rows[0]!, /^Different\s*1 file/);
      assert.ok(rows.some((r) => /^Only on Marketing Drive\s*2 files/.test(r)), rows.join(' | '));
      assert.ok(rows.some((r) => /^Only on Campaign Landing Pages\s*1 file/.test(r)), rows.join(' | '));
      await s.expandPath(['Different', 'spring'], 'Compare Sites');
      await s.click({ selector: `${s.pane('Compare Sites')} .monaco-list-row[aria-level="3"]`, hasText: 'styles.css' });
      const diff = await waitFor(() => {
        const i = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return i instanceof vscode.TabInputTextDiff ? i : undefined;
      }, { message: 'the diff of the pair' });
      assert.deepEqual([revisionId(diff.original), revisionId(diff.modified)], [c.differ[0]!.a.revision.id, c.differ[0]!.b.revision.id]);
      await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('styles.css (Marketing Drive, ') && x.includes('↔ (Campaign Landing Pages, ')), 'the diff tab');
      await closeAll();
      const out = (await vscode.commands.executeCommand('siteRevisions.compareSitesOpen')) as DiffOutcome;
      assert.equal(out.resources.length, 4);
      await multiDiffShown(s, 'campaigns — Marketing Drive ↔ site/campaigns — Campaign Landing Pages');
    } finally {
      await control(url, 'reseed');
      await (await api.cache.current())?.forgetSite(landing.id);
      api.revisions.store.clear();
    }
  });

  it('Compare with Another Site: the multi-file diff’s headers name both sides by site and folder — no “/” for a file at the root', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    // A file at the root of both compared scopes, and one in a folder of each, that differ.
    await control(url, 'add-revision', { siteId: marketing.id, path: 'readme.txt', content: 'marketing readme\n', date: Date.now() - 3600_000 });
    await control(url, 'add-revision', { siteId: landing.id, path: 'site/readme.txt', content: 'landing readme\n', date: Date.now() - 3600_000 });
    await control(url, 'add-revision', { siteId: landing.id, path: 'site/campaigns/spring/styles.css', content: '/* landing */\n', date: Date.now() - 3600_000 });
    try {
      api.revisions.store.invalidate();
      const run = (await vscode.commands.executeCommand('siteRevisions.compareSites', { site: marketing }, { other: landing.id, otherFolder: 'site', moment: 'newest' })) as CompareRun;
      assert.equal(run.state, 'done');
      assert.deepEqual(run.result!.differ.map((p) => p.rel).sort(), ['campaigns/spring/styles.css', 'readme.txt']);
      const out = (await vscode.commands.executeCommand('siteRevisions.compareSitesOpen')) as DiffOutcome;
      assert.equal(out.how, 'multiDiff');
      await multiDiffShown(s, 'Marketing Drive ↔ site — Campaign Landing Pages');
      const headers = await s.until(() => s.texts({ selector: '.part.editor .multiDiffEntry .header' }), (h) => h.some((x) => x.includes('readme.txt')) && h.some((x) => x.includes('styles.css')), 'the headers of the differing files');
      const of = (name: string) => headers.find((x) => x.startsWith(name))!.replace(/\n/g, ' ');
      for (const [name, folder] of [['readme.txt', ''], ['styles.css', '/campaigns/spring']] as const) {
        const h = of(name);
        assert.ok(h.includes(`Marketing Drive${folder} (`) && h.includes(`Campaign Landing Pages${folder} (`), `${name}: both sides named by site and folder: ${h}`);
        assert.doesNotMatch(h, /(^|\s|:)\/(\s|\(|$)/, `${name}: no “/” as a folder: ${h}`);
      }
    } finally {
      await closeAll();
      await control(url, 'reseed');
      await (await api.cache.current())?.forgetSite(landing.id);
      await (await api.cache.current())?.forgetSite(marketing.id);
      api.revisions.store.clear();
    }
  });

  it('from a day of Site Changes (its context menu): the site as it was before that day’s changes', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const changes = (await vscode.commands.executeCommand('siteRevisions.siteChanges', { site: marketing }, { period: { kind: 'days', days: 7 } })) as ChangesRun;
    assert.equal(changes.state, 'done');
    await showOnly(s, 'Site Changes');
    const day = changes.builder.days()[1]!; // yesterday's, or the day before (the second listed)
    const dayRow = { selector: `${s.pane('Site Changes')} .monaco-list-row[aria-level="1"]`, nth: 1 };
    const item = { selector: '.context-view .monaco-menu .action-menu-item', hasText: 'Site As It Was Before This Change' };
    const header = () => s.texts({ selector: `${s.pane('Site As It Was')} .pane-header` });
    const started = async () => (await header()).join(' ').includes(`as of the start of ${day.day}`);
    // As a person would: open the row's context menu and pick the item; a menu that a redraw of
    // the view closed under the pointer is opened again.
    for (let attempt = 1; !(await started()); attempt++) {
      if (attempt > 3) throw new Error('the context menu item did not start the site as it was');
      await showOnly(s, 'Site Changes');
      await s.waitFor({ ...dayRow, timeoutMs: 15000 });
      await s.click({ ...dayRow, button: 'right' });
      await s.waitFor({ ...item, timeoutMs: 5000 });
      // A click the menu does not take (seen under load: the item drawn, the click not taken) is
      // made with the keyboard: the menu has the focus, and its item is the first.
      const byKeyboard = async () => {
        await s.press('ArrowDown');
        await s.press('Enter');
      };
      await s.click({ ...item, timeoutMs: 3000 }).catch(byKeyboard);
      // A click that did not take leaves the menu open (seen under load): the keyboard then.
      const took = await s.until(started, (v) => v, 'the site as of the start of that day', 3000).catch(() => false);
      if (!took && (await s.count(item)) > 0) await byKeyboard();
      await s.until(started, (v) => v, 'the site as of the start of that day', 5000).catch(() => undefined);
    }
    const want = await expectedAsOf(url, marketing.id, day.start - 1);
    await showOnly(s, 'Site As It Was');
    const drawn = await s.until(header, (t) => t.join(' ').includes(`as of the start of ${day.day}`) && /\d+ files?/.test(t.join(' ')), 'the site as of the start of that day, read');
    assert.ok(drawn.join(' ').includes(want.at.size === 1 ? '· 1 file' : `· ${want.at.size} files`), drawn.join(' '));
    await vscode.commands.executeCommand('siteRevisions.clearSiteChanges');
  });

  it('the language-model tools: the site as of a moment (files and revision ids), and the differences between two sites; a scan asks first', async () => {
    const token = new vscode.CancellationTokenSource().token;
    const lm = (await api.history()).lmTools;
    const files = (await serviceRead<{ files: string[] }>(url, `site=${marketing.id}`)).files;
    const asked = await lm.prepare(TOOL_NAMES.siteAsOf, { site: marketing.id, moment: '2 days ago' }, token);
    assert.equal(asked?.confirmationMessages?.title, `Read ${files.length} files as of a moment?`);
    const compareAsked = await lm.prepare(TOOL_NAMES.compareSites, { site: marketing.id, otherSite: landing.id }, token);
    assert.match(String(compareAsked?.confirmationMessages?.title), /^Compare \d+ files of two sites\?$/);
    const utc = new Date(moment).toISOString().slice(0, 16).replace('T', ' ');
    const r = await vscode.lm.invokeTool(TOOL_NAMES.siteAsOf, { input: { site: marketing.id, moment: utc }, toolInvocationToken: undefined }, token);
    const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const data = JSON.parse(text.slice(text.indexOf('\n') + 1)) as { moment: string; files: { path: string; revisionId: string }[]; notYet: { total: number; files: { path: string }[] } };
    assert.equal(data.moment, `${utc} UTC`);
    assert.deepEqual(Object.fromEntries(data.files.map((f) => [f.path, f.revisionId])), Object.fromEntries([...expected.at].map(([p, x]) => [p, x.id])));
    assert.deepEqual(data.notYet.files.map((f) => f.path).sort(), [...expected.notYet].sort());
    const bad = await vscode.lm.invokeTool(TOOL_NAMES.siteAsOf, { input: { site: marketing.id, moment: 'someday' }, toolInvocationToken: undefined }, token);
    assert.match((bad.content[0] as vscode.LanguageModelTextPart).value, /"moment" cannot be read/);
    const same = await vscode.lm.invokeTool(TOOL_NAMES.compareSites, { input: { site: marketing.id, otherSite: marketing.name, moment: utc }, toolInvocationToken: undefined }, token);
    const sameText = (same.content[0] as vscode.LanguageModelTextPart).value;
    const c = JSON.parse(sameText.slice(sameText.indexOf('\n') + 1)) as { same: number; differ: { total: number }; onlyA: { total: number }; onlyB: { total: number } };
    assert.deepEqual([c.same, c.differ.total, c.onlyA.total, c.onlyB.total], [expected.at.size, 0, 0, 0], 'a site compared with itself as of a moment');
  });

  it('signing out empties both views', async function () {
    const s = screenOrSkip(this);
    await vscode.commands.executeCommand('siteRevisions.compareSites', { site: marketing }, { other: landing.id, moment: 'newest' });
    try {
      await vscode.commands.executeCommand('siteRevisions.signOut');
      for (const title of ['Site As It Was', 'Compare Sites']) {
        await showOnly(s, title);
        await s.until(() => s.rows(title), (r) => r.length === 0, `no row of ${title} after sign-out`);
      }
    } finally {
      await signInDemo(url);
    }
  });
});

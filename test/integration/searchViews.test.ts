// History Search and Site Changes in the real workbench against the local service's demo data
// (the site "Marketing Drive", test/server/seed-search.ts): what the views draw, the diffs a
// click opens, Open Changes in one multi-file diff editor, Restore Checked in one undoable edit,
// and a cancelled site scan that sends nothing more.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import type { SearchRun } from '../../src/features/history/historyView';
import type { ChangesRun } from '../../src/features/history/changesView';
import type { OpenChangesOutcome } from '../../src/features/history/changesCommands';
import type { RestoreOutcome } from '../../src/features/history/restore';
import { formatShortLocal } from '../../src/core/model/time';
import { SEARCH_DEMO } from '../server/seed-search';
import { screen, screenOrSkip, type Screen } from './screen';
import { control, signInDemo, stubWindow } from './support';
import { ext, testService, waitFor, workspaceFolder } from './util';

const MARKER = SEARCH_DEMO.marker;

/** A demo file's revision by its 1-based number (oldest first), as the seed describes it. */
function demo(path: string, n: number) {
  const f = SEARCH_DEMO.files.find((x) => x.path === path);
  assert.ok(f, path);
  return f.revisions[n - 1]!;
}

describe('History Search and Site Changes', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;
  let marketing: Site;
  let localDir: vscode.Uri;

  const stats = () => control(url, 'stats');
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  /** Shows one view of the container with room for its rows: the other two are collapsed. */
  const showOnly = async (s: Screen, title: 'History Search' | 'Site Changes') => {
    await vscode.commands.executeCommand(title === 'History Search' ? 'siteRevisions.historySearch.focus' : 'siteRevisions.siteChanges.focus');
    for (const other of ['Sites', 'History Search', 'Site Changes']) await s.setPaneExpanded(other, other === title);
  };
  /** The revisions the service lists for a demo file, with their parsed times (from the store). */
  const listed = async (path: string) => (await api.revisions.store.revisions(marketing.id, path)).items;

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'reseed');
    await signInDemo(url);
    api.model.refresh();
    const sites = await api.model.all();
    const m = sites.find((s) => s.name === SEARCH_DEMO.siteName);
    assert.ok(m, 'Marketing Drive is listed');
    marketing = m;
    localDir = vscode.Uri.joinPath(workspaceFolder().uri, 'marketing-site');
    fs.rmSync(localDir.fsPath, { recursive: true, force: true });
    fs.mkdirSync(localDir.fsPath, { recursive: true });
    await vscode.commands.executeCommand('siteRevisions.mapFolder', marketing.id, localDir);
  });

  afterEach(async () => {
    await control(url, 'config', { latencyMs: 0 });
  });

  after(async () => {
    // The container as the other suites expect it: the Sites view with the room, the search views folded.
    const s = screen();
    if (s) for (const [title, expanded] of [['Sites', true], ['History Search', false], ['Site Changes', false]] as const) await s.setPaneExpanded(title, expanded);
    await closeAll();
    await vscode.commands.executeCommand('siteRevisions.clearSearches');
    await vscode.commands.executeCommand('siteRevisions.clearSiteChanges');
    fs.rmSync(localDir.fsPath, { recursive: true, force: true });
  });

  it('Search History (changes) lists exactly the revisions that added or removed the text, on screen', async function () {
    const s = screenOrSkip(this);
    const run = (await vscode.commands.executeCommand('siteRevisions.searchHistory', { site: marketing }, { query: { pattern: MARKER, matchCase: true, wholeWord: true }, mode: 'changes' })) as SearchRun;
    assert.equal(run.state, 'done');
    await showOnly(s, 'History Search');
    // The seed's facts, newest first in each file; files in natural path order.
    const expected: [file: string, count: string, author: string][] = [
      ['notes.txt', 'added 1', demo('campaigns/autumn/notes.txt', 2).author],
      ['index.html', 'removed 2', demo('campaigns/spring/index.html', 5).author],
      ['index.html', 'added 1', demo('campaigns/spring/index.html', 4).author],
      ['index.html', 'added 1', demo('campaigns/spring/index.html', 2).author],
      ['styles.css', 'added 1', demo('campaigns/spring/styles.css', 1).author],
      ['index.html', 'added 1', demo('index.html', 2).author],
    ];
    const rows = await s.until(
      () => s.rows('History Search'),
      (r) => r.length >= 1 + 4 + expected.length && r[0]!.includes('4 files, 6 revisions'),
      'the search with its files and revisions',
    );
    assert.match(rows[0]!, /TODO-SEARCH-MARKER/);
    assert.match(rows[0]!, /Marketing Drive · changes · 4 files, 6 revisions/);
    const drawn = rows.slice(1);
    const files = drawn.filter((r) => !/^(added|removed) \d/.test(r));
    const hits = drawn.filter((r) => /^(added|removed) \d/.test(r));
    const names = ['notes.txt', 'index.html', 'styles.css', 'index.html'];
    assert.deepEqual(
      files.map((r, i) => (r.startsWith(names[i]!) ? names[i] : r)),
      names,
      'one row per file with a hit (campaigns/autumn, campaigns/spring ×2, the root)',
    );
    assert.equal(hits.length, expected.length, hits.join(' | '));
    hits.forEach((row, i) => {
      const [, count, author] = expected[i]!;
      assert.ok(row.startsWith(count), `row ${i} says ${count}: ${row}`);
      assert.ok(row.includes(author), `row ${i} names ${author}: ${row}`);
    });
    // The preview line of the first match: the CRLF file's line with its emoji and umlauts.
    assert.ok(hits[0]!.includes('😀 Zeile: TODO-SEARCH-MARKER für Søren'), hits[0]);
  });

  it('the input of Search History: typed text, the Match Case button, an invalid expression refused in the input, then the mode', async function () {
    const s = screenOrSkip(this);
    const started = vscode.commands.executeCommand('siteRevisions.searchHistory', { site: marketing, file: 'campaigns/spring/styles.css' }) as Thenable<SearchRun | undefined>;
    const input = '.quick-input-widget input';
    await s.waitFor({ selector: input, timeoutMs: 15000 });
    // The input starts with the last search's toggles: set each as this search needs it.
    const toggle = async (name: string, on: boolean) => {
      const want = `.quick-input-widget .action-label[aria-label^="${name} (${on ? 'on' : 'off'})"]`;
      if ((await s.count({ selector: want })) === 0) await s.click({ selector: `.quick-input-widget .action-label[aria-label^="${name} (${on ? 'off' : 'on'})"]` });
      await s.waitFor({ selector: want });
    };
    await toggle('Match Whole Word', false);
    // A regular expression that cannot compile is refused in the input, before any request.
    await toggle('Use Regular Expression', true);
    await s.fill({ selector: input, value: 'todo-(' });
    await s.until(() => s.texts({ selector: '.quick-input-widget .quick-input-message' }), (t) => t.join(' ').includes('The regular expression is not valid'), 'the validation message');
    await toggle('Use Regular Expression', false);
    // The lower-case marker with Match Case: only revision 2 of styles.css added it.
    await s.fill({ selector: input, value: 'todo-search-marker' });
    await toggle('Match Case', false);
    await toggle('Match Case', true);
    await s.press('Enter');
    // The mode: Changes is the first item.
    await s.waitFor({ selector: '.quick-input-widget .monaco-list-row', hasText: 'Contains' });
    await s.press('Enter');
    const run = await started;
    assert.ok(run, 'the search ran');
    assert.deepEqual([run.query.pattern, run.query.matchCase, !!run.query.isRegExp, !!run.query.wholeWord, run.mode], ['todo-search-marker', true, false, false, 'changes']);
    await showOnly(s, 'History Search');
    const rows = await s.until(() => s.rows('History Search'), (r) => r.length >= 3 && r[0]!.includes('1 file, 1 revision'), 'the search row');
    assert.match(rows[0]!, /“todo-search-marker” \(match case\)/);
    assert.ok(rows[2]!.startsWith('added 1') && rows[2]!.includes(demo('campaigns/spring/styles.css', 2).author), rows[2]);
  });

  it('a click on a result opens the diff against the revision before, with the first match selected', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await showOnly(s, 'History Search');
    // "removed 2": the match is in the revision before (left side of the diff).
    await s.click({ selector: `${s.pane('History Search')} .monaco-list-row`, hasText: 'removed 2' });
    const items = await listed('campaigns/spring/index.html'); // newest first
    const r5 = items[1]!;
    const r4 = items[2]!;
    assert.equal(r5.item.author, demo('campaigns/spring/index.html', 5).author);
    const title = `index.html (${formatShortLocal(r4.time!)}, ${r4.item.author}) ↔ (${formatShortLocal(r5.time!)}, ${r5.item.author})`;
    await s.until(() => s.tabTitles(), (t) => t.includes(title), `the diff tab "${title}"`);
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    assert.ok(input instanceof vscode.TabInputTextDiff, 'a diff tab');
    assert.equal(api.revisions.parseRevisionUri(input.original)?.revisionId, r4.item.id);
    assert.equal(api.revisions.parseRevisionUri(input.modified)?.revisionId, r5.item.id);
    const left = await waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === input.original.toString() && e.document.getText(e.selection) === MARKER), {
      message: 'the first match selected in the revision before',
    });
    assert.equal(left.selection.start.line, demo('campaigns/spring/index.html', 4).content.split('\n').findIndex((l) => l.includes(MARKER)));
  });

  it('Search History (contains) on one file lists every revision with a match', async function () {
    const s = screenOrSkip(this);
    const run = (await vscode.commands.executeCommand('siteRevisions.searchHistory', { site: marketing, file: 'campaigns/spring/index.html' }, { query: { pattern: MARKER, matchCase: true }, mode: 'contains' })) as SearchRun;
    assert.equal(run.state, 'done');
    await showOnly(s, 'History Search');
    const rows = await s.until(
      () => s.rows('History Search'),
      (r) => r.length > 4 && r[0]!.includes('1 file, 3 revisions'),
      'the contains search',
    );
    assert.match(rows[0]!, /index\.html — Marketing Drive · contains · 1 file, 3 revisions/);
    const hits = rows.slice(2, 5);
    assert.deepEqual(
      hits.map((r) => r.split(' · ')[0]),
      ['2 matches', '1 match', '1 match'],
      'revisions 4 (two markers), 3 and 2; not 5 and 6 (removed) nor 1 (before)',
    );
    [4, 3, 2].forEach((n, i) => assert.ok(hits[i]!.includes(demo('campaigns/spring/index.html', n).author), `row ${i}: revision ${n}: ${hits[i]}`));
    // The earlier search is kept below the new one.
    assert.ok(rows.some((r) => r.includes('4 files, 6 revisions')), 'the earlier search is kept');
  });

  it('Site Changes lists exactly the revisions of the period, day → file → revisions, newest first', async function () {
    const s = screenOrSkip(this);
    const run = (await vscode.commands.executeCommand('siteRevisions.siteChanges', { site: marketing }, { period: { kind: 'days', days: 7 } })) as ChangesRun;
    assert.equal(run.state, 'done');
    // The seed's revisions 0–6 days old.
    const expected = new Set<string>();
    for (const f of SEARCH_DEMO.files) f.revisions.forEach((r, i) => r.daysAgo <= 6 && expected.add(`${f.path}#${i + 1}`));
    const shown = new Set<string>();
    const provider = (await api.history()).searchViews.changes;
    for (const day of await provider.getChildren()) {
      for (const file of await day.getChildren()) {
        const path = (file as unknown as { file: { path: string } }).file.path;
        const ids = (await listed(path)).map((d) => d.item.id).reverse(); // oldest first
        for (const rev of await file.getChildren()) shown.add(`${path}#${ids.indexOf((rev as unknown as { revision: { id: string } }).revision.id) + 1}`);
      }
    }
    assert.deepEqual([...shown].sort(), [...expected].sort());
    // On screen: the view names the site and the period, and today's group comes first with
    // the two files changed today (each with its revision of today).
    await showOnly(s, 'Site Changes');
    const header = await s.texts({ selector: `${s.pane('Site Changes')} .pane-header` });
    assert.match(header.join(' '), /Marketing Drive · Last 7 days/);
    // Today's group is drawn expanded: its rows come in after the groups' (wait for them).
    const today = (r: string[]) => r.slice(1, 5).filter((x) => x.includes('1 revision'));
    const rows = await s.until(() => s.rows('Site Changes'), (r) => r.length >= 5 && today(r).length >= 2, 'the Site Changes rows, today’s group expanded');
    assert.match(rows[0]!, /^Today/);
    const todayFiles = today(rows);
    assert.equal(todayFiles.length, 2, rows.join(' | '));
    assert.ok(todayFiles.some((r) => r.startsWith('index.html')) && todayFiles.some((r) => r.startsWith('launch.md')), todayFiles.join(' | '));
    assert.ok(!/^(Today|Yesterday)/.test(rows[5] ?? '') || rows[5]!.startsWith('Yesterday'), 'the next group is another day');
  });

  it('Open Changes opens every changed file in one multi-file diff editor', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const out = (await vscode.commands.executeCommand('siteRevisions.openChanges', 'before')) as OpenChangesOutcome;
    assert.equal(out.how, 'multiDiff');
    assert.equal(out.resources.length, 6, 'the six files changed in the last 7 days');
    const launch = out.resources.find(([l]) => l.path.endsWith('launch.md'));
    assert.ok(launch && launch[1] === undefined, 'launch.md is new in the period: nothing on the left');
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.label.startsWith('Changes of Marketing Drive'), { message: 'the multi-diff tab is active' });
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab!;
    assert.ok(!(tab.input instanceof vscode.TabInputText) && !(tab.input instanceof vscode.TabInputTextDiff), 'not a single (diff) editor');
    assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, 1, 'one tab for all files');
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('Changes of Marketing Drive — Last 7 days')), 'the multi-diff tab on screen');
    await s.waitFor({ selector: '.part.editor .multiDiffEntry', timeoutMs: 15000 });
  });

  it('Restore Checked writes the checked files in one edit (creating the missing one); one Undo reverts them all', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const indexUri = vscode.Uri.joinPath(localDir, 'campaigns/spring/index.html');
    const launchUri = vscode.Uri.joinPath(localDir, 'campaigns/summer/launch.md');
    fs.mkdirSync(vscode.Uri.joinPath(localDir, 'campaigns/spring').fsPath, { recursive: true });
    fs.writeFileSync(indexUri.fsPath, 'local copy\n');
    fs.rmSync(launchUri.fsPath, { force: true });
    await showOnly(s, 'Site Changes');
    // Check the two files on screen (their checkboxes in the Site Changes view), one after the
    // other. Checking a file redraws every row of it, and a click that lands while the list
    // redraws is lost (seen in CI, the tooltip of the unchecked box under the pointer): as a
    // person would, click again when the box did not take it — never before 3 s have passed, so
    // a slow click is not undone by a second one.
    const { searchViews } = await api.history();
    for (const [i, name] of ['index.html', 'launch.md'].entries()) {
      for (let clicks = 1; searchViews.changes.checked.size <= i; clicks++) {
        if (clicks > 3) throw new Error(`${name}: 3 clicks on its checkbox, still not checked`);
        await s.click({ selector: `${s.pane('Site Changes')} .monaco-list-row:has-text("${name}") .custom-view-tree-node-item-checkbox`, nth: 0 });
        await waitFor(() => searchViews.changes.checked.size === i + 1, { message: `${name} checked`, timeoutMs: 3000 }).catch(() => undefined);
      }
    }
    assert.equal(searchViews.changes.checked.size, 2);
    let detail = '';
    const restoreStub = stubWindow('showWarningMessage', (async (_m: string, o: vscode.MessageOptions, button: string) => {
      detail = o?.detail ?? '';
      return button;
    }) as never);
    let out: RestoreOutcome;
    try {
      out = (await vscode.commands.executeCommand('siteRevisions.restoreCheckedChanges')) as RestoreOutcome;
    } finally {
      restoreStub();
    }
    assert.equal(out.restored.length, 2, JSON.stringify(out));
    assert.match(detail, /index\.html/);
    assert.match(detail, /launch\.md.*created/);
    const newestIndex = demo('campaigns/spring/index.html', 6).content;
    const newestLaunch = demo('campaigns/summer/launch.md', 2).content;
    const indexDoc = await vscode.workspace.openTextDocument(indexUri);
    const launchDoc = await vscode.workspace.openTextDocument(launchUri);
    assert.equal(indexDoc.getText(), newestIndex);
    assert.equal(launchDoc.getText(), newestLaunch);
    assert.ok(fs.existsSync(launchUri.fsPath), 'the missing file was created');
    // One Undo, from the editor of one of them: VS Code asks whether to undo across both files.
    await vscode.window.showTextDocument(indexDoc);
    await vscode.commands.executeCommand('undo');
    const across = { selector: '.monaco-dialog-box .monaco-button', hasText: '/Undo in 2 Files/' };
    if (await s.until(() => s.count(across), (n) => n > 0, 'the undo dialog', 5000).then(() => true, () => false)) await s.click(across);
    await waitFor(() => indexDoc.getText() === 'local copy\n' && !fs.existsSync(launchUri.fsPath), { message: 'one Undo reverts both files' });
  });

  it('Search History on a local file of the mapped folder; with search.compareWith = workingFile a result opens against it', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const working = vscode.Uri.joinPath(localDir, 'campaigns/autumn/notes.txt');
    fs.mkdirSync(vscode.Uri.joinPath(localDir, 'campaigns/autumn').fsPath, { recursive: true });
    fs.writeFileSync(working.fsPath, 'local notes\n');
    const cfg = vscode.workspace.getConfiguration('siteRevisions');
    await cfg.update('search.compareWith', 'workingFile', vscode.ConfigurationTarget.Global);
    try {
      // As from the Explorer or the editor: the local file inside the mapped folder.
      const run = (await vscode.commands.executeCommand('siteRevisions.searchHistory', working, { query: { pattern: MARKER }, mode: 'changes' })) as SearchRun;
      assert.deepEqual([run.scope.site.id, run.scope.file], [marketing.id, 'campaigns/autumn/notes.txt']);
      await showOnly(s, 'History Search');
      // The run's rows first (a new run is drawn above the earlier ones): an 'added 1' row of an
      // earlier run is in the list too, and a click before the redraw lands on it.
      const rowsOf = `${s.pane('History Search')} .monaco-list-row`;
      await s.until(() => s.texts({ selector: rowsOf }), (r) => (r[1] ?? '').trim().startsWith('notes.txt') && (r[2] ?? '').trim().startsWith('added 1'), "this run's rows at the top of History Search");
      await s.click({ selector: rowsOf, hasText: 'added 1' });
      const input = await waitFor(() => {
        const i = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return i instanceof vscode.TabInputTextDiff && i.modified.toString() === working.toString() ? i : undefined;
      }, { message: 'a diff against the working file' });
      assert.equal(api.revisions.parseRevisionUri(input.original)?.path, 'campaigns/autumn/notes.txt');
      await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('notes.txt (') && x.endsWith('↔ working file')), 'the tab "… ↔ working file"');
    } finally {
      await cfg.update('search.compareWith', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('cancelling a site scan: no request of the scan starts after the cancel', async function () {
    const s = screenOrSkip(this);
    // The earlier tests leave a working file of the mapped Marketing Drive open in a diff: once
    // the caches are emptied below, its gutter and newer-revision alert ask for its revisions
    // again, which is not the scan's doing. Nothing stays open, and only the scan's own requests
    // (those about the site it scans) are counted.
    await closeAll();
    const acme = (await api.model.all()).find((x) => x.name === 'Acme Corporate')!;
    const ofScan = (r: { url: string }) => new URL(r.url, url).searchParams.get('site') === acme.id;
    api.revisions.store.invalidate();
    api.revisions.store.cache.clear();
    // Contents kept on disk would answer the scan without a request: the scan must ask.
    await (await api.cache.current())?.clear();
    await control(url, 'config', { latencyMs: 1500 });
    await control(url, 'reset-stats');
    const running = vscode.commands.executeCommand('siteRevisions.searchHistory', { site: acme }, { query: { pattern: 'function' }, mode: 'changes' }) as Thenable<SearchRun>;
    // Every worker waits for its reply (6 requests held by the latency): none is being sent now.
    await waitFor(async () => (await stats()).inFlight >= 6, { timeoutMs: 20000, message: 'six requests in flight' });
    const cancelAt = performance.timeOrigin + performance.now();
    await vscode.commands.executeCommand('siteRevisions.cancelSearch');
    const run = await running;
    assert.equal(run.state, 'cancelled');
    await waitFor(async () => (await stats()).inFlight === 0, { timeoutMs: 20000, message: 'the aborted requests end' });
    const after = (await stats()).requests.filter((r) => r.arrivedAt > cancelAt && ofScan(r));
    assert.deepEqual(after.map((r) => r.operation), [], 'requests of the scan started after the cancel');
    const contents = (await stats()).requests.filter((r) => r.operation === 'getRevisions' && ofScan(r)).length;
    assert.ok(contents < (await api.revisions.store.siteFiles(acme.id)).files.length, `the scan stopped before every file (${contents} asked)`);
    await showOnly(s, 'History Search');
    await s.until(() => s.rows('History Search'), (r) => /Cancelled after \d+ \/ \d+ files/.test(r[0] ?? ''), 'the cancelled search on screen');
  });

  it('Restore refuses paths into .git or .vscode (any case, 8.3 short names), one or checked, with a message naming the path; nothing is written', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    // Files the service lists whose restore would run a program: a Git hook, a Git config
    // (core.fsmonitor), a VS Code task.
    const hostile = ['.GIT/hooks/pre-commit', 'GIT~1/config', '.vscode/tasks.json'];
    for (const path of hostile) await control(url, 'add-revision', { siteId: marketing.id, path, content: '#!/bin/sh\necho owned\n', author: 'mallory@example.com' });
    const Outcome = (o: unknown) => o as { done: boolean; reason?: string };
    // Were a confirmation asked (it must not be: a refusal comes first), it would be accepted.
    const confirmStub = stubWindow('showWarningMessage', (async (_m: string, _o: vscode.MessageOptions, button: string) => button) as never);
    try {
      api.model.refresh();
      // Restore Revision…, one at a time: refused, an error naming the path on screen.
      for (const path of hostile) {
        const newest = (await listed(path))[0]!;
        const out = Outcome(await vscode.commands.executeCommand('siteRevisions.restoreRevision', { siteId: marketing.id, revisionId: newest.item.id, path }));
        assert.deepEqual([out.done, out.reason], [false, 'refused'], path);
      }
      // Restore Checked: the three checked in Site Changes, none restored, said so.
      const run = (await vscode.commands.executeCommand('siteRevisions.siteChanges', { site: marketing }, { period: { kind: 'today' } })) as ChangesRun;
      assert.equal(run.state, 'done');
      const { changes } = (await api.history()).searchViews;
      for (const path of hostile) changes.checked.set(path, true);
      assert.deepEqual(changes.checkedFiles().map((f) => f.path).sort(), [...hostile].sort());
      const out = (await vscode.commands.executeCommand('siteRevisions.restoreCheckedChanges')) as RestoreOutcome;
      assert.deepEqual(out.refused.map((r) => r.path).sort(), [...hostile].sort());
      assert.equal(out.restored.length, 0);
      await vscode.commands.executeCommand('notifications.showList');
      const shown = await s.until(
        () => s.notifications(),
        (n) => hostile.every((p) => n.filter((x) => x.includes(JSON.stringify(p))).length >= 2) && n.some((x) => x.startsWith('None of the checked files can be restored')),
        'the refusals on screen, each naming its path',
      );
      for (const p of hostile) assert.ok(shown.some((x) => x.includes(JSON.stringify(p)) && /leads into \.(git|vscode)/.test(x)), `${p}: ${shown.join(' | ')}`);
      for (const p of hostile) assert.equal(fs.existsSync(vscode.Uri.joinPath(localDir, p).fsPath), false, `${p} written`);
      assert.ok(!vscode.workspace.textDocuments.some((d) => d.getText().includes('echo owned')), 'nothing restored into a document');
    } finally {
      confirmStub();
      await s.clearNotifications();
      await vscode.commands.executeCommand('siteRevisions.clearSiteChanges');
      await control(url, 'reseed');
      api.model.refresh();
    }
  });

  /**
   * 1.5 MB of history (two revisions of 0.75 MB) with the content cache, and so the bound, at its
   * smallest: 1 MB (and the disk cache off when `diskOff`); History Search over it. Returns the
   * row of the file that could not be read.
   */
  const searchTooLarge = async (s: Screen, diskOff: boolean): Promise<string> => {
    const big = 'campaigns/archive/everything.txt';
    const line = 'one line of the marketing archive, kept for the too-large history\n';
    const half = line.repeat(Math.floor((0.75 * 1024 * 1024) / line.length));
    await control(url, 'add-revision', { siteId: marketing.id, path: big, content: half });
    await control(url, 'add-revision', { siteId: marketing.id, path: big, content: half.toUpperCase() });
    const cfg = vscode.workspace.getConfiguration('siteRevisions');
    await cfg.update('revisions.cacheSizeMB', 1, vscode.ConfigurationTarget.Global);
    if (diskOff) await cfg.update('cache.maxSizeMB', 0, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(() => api.revisions.store.cache.maxBytes === 1024 * 1024, { message: 'the content cache at 1 MB' });
      if (diskOff) {
        await waitFor(async () => (await api.cache.current())?.enabled === false, { message: 'the disk cache off' });
        api.revisions.store.clear();
      }
      const run = (await vscode.commands.executeCommand('siteRevisions.searchHistory', { site: marketing, file: big }, { query: { pattern: 'archive' }, mode: 'changes' })) as SearchRun;
      assert.equal(run.state, 'done');
      assert.deepEqual(run.failures.map((f) => f.path), [big]);
      await showOnly(s, 'History Search');
      // The newest search first, expanded: its row, then the one row under it.
      const rows = await s.until(
        () => s.rows('History Search'),
        (r) => /everything\.txt — Marketing Drive · changes · 0 files, 0 revisions/.test(r[0] ?? '') && r[1]?.includes('could not be read') === true,
        'the search done, and the row of the file that could not be read',
      );
      assert.match(rows[1]!, /^“campaigns\/archive\/everything\.txt” could not be read/);
      assert.doesNotMatch(rows[2] ?? '', /^No revision/, 'not “no revision changes”: it was not read');
      return rows[1]!;
    } finally {
      if (diskOff) await cfg.update('cache.maxSizeMB', undefined, vscode.ConfigurationTarget.Global);
      await cfg.update('revisions.cacheSizeMB', undefined, vscode.ConfigurationTarget.Global);
      await control(url, 'reseed');
      await (await api.cache.current())?.forgetSite(marketing.id);
      api.revisions.store.clear();
    }
  };

  it('a file whose history is too large to hold in memory: the search says so, naming the file and the sizes', async function () {
    const row = await searchTooLarge(screenOrSkip(this), false);
    assert.match(row, /The history of “campaigns\/archive\/everything\.txt” .* is too large to read at once: 1\.5 MB of revisions, over the 1\.0 MB allowed \(the setting siteRevisions\.revisions\.cacheSizeMB\)/);
  });

  it('the same with the disk cache off (siteRevisions.cache.maxSizeMB 0): the one reply is cut off at the bound, and the search says so', async function () {
    const row = await searchTooLarge(screenOrSkip(this), true);
    // Cut off while it streamed in: "more than" the bound, not its whole size.
    assert.match(row, /The history of “campaigns\/archive\/everything\.txt” .* is too large to read at once: more than 1\.0 MB of revisions, over the 1\.0 MB allowed \(the setting siteRevisions\.revisions\.cacheSizeMB\)/);
  });

  it('signing out empties both views (nothing found for the account shows after it)', async function () {
    const s = screenOrSkip(this);
    await vscode.commands.executeCommand('siteRevisions.siteChanges', { site: marketing }, { period: { kind: 'today' } });
    assert.ok((await api.history()).searchViews.history.searches.length > 0 && (await api.history()).searchViews.changes.run);
    try {
      await vscode.commands.executeCommand('siteRevisions.signOut');
      await showOnly(s, 'History Search');
      await s.until(() => s.rows('History Search'), (r) => r.length === 0, 'no search row after sign-out');
      await showOnly(s, 'Site Changes');
      await s.until(() => s.rows('Site Changes'), (r) => r.length === 0, 'no Site Changes row after sign-out');
      const welcome = await s.welcome('Site Changes');
      assert.match(welcome.text, /Sign in to search the revision history/);
    } finally {
      await signInDemo(url);
    }
  });
});

// The editor side of revision history (issue 14) in the real workbench against the local
// service's demo data: revision blame (annotation and hover as drawn, the hover's commands),
// the quick diff original, the newer-revision alert, and Compare with the Same File on Another
// Site. The demo history of Acme Corporate's index.php (test/server/seed-content.ts) has five
// revisions; which revision introduced which line is known from its steps.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { parseRevisionUriComponents } from '../../src/core/model/uri';
import { relativeTime } from '../../src/core/model/time';
import { control, leaveMappedFolder, reseededAndSignedIn, serviceRevisions as listedRevisions, settled, type ServiceRevision } from './support';
import { screenOrSkip, type Screen } from './screen';
import { waitFor, workspaceFolder } from './util';

/** The revision a document URI names (the extension's own parseRevisionUri also checks its account, which this copy of the module does not know). */
const parseRevisionUri = (u: vscode.Uri) => (u.scheme === 'site-revision' ? parseRevisionUriComponents(u.path, u.query) : undefined);

describe('Revision blame, quick diff and the newer-revision alert', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;
  let dir: vscode.Uri;
  let acmeId: string;
  /** index.php on the service, oldest first. */
  let history: ServiceRevision[];

  const cfg = () => vscode.workspace.getConfiguration('siteRevisions');
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  /** The requests the service received since its log was reset, by operation. */
  const requests = async () => (await control(url, 'stats')).requests.map((r) => r.operation ?? r.url);

  /** The file's revisions as the service lists them (straight from it, not through the extension), oldest first. */
  const serviceRevisions = (siteId: string, path: string): Promise<ServiceRevision[]> => listedRevisions(url, siteId, path);
  const write = (name: string, text: string) => {
    const file = vscode.Uri.joinPath(dir, name);
    fs.mkdirSync(vscode.Uri.joinPath(file, '..').fsPath, { recursive: true });
    fs.writeFileSync(file.fsPath, text);
    return file;
  };
  const open = async (file: vscode.Uri) => vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), { preview: false });
  const lineOf = (doc: vscode.TextDocument, text: string) => {
    for (let i = 0; i < doc.lineCount; i++) if (doc.lineAt(i).text === text) return i;
    throw new Error(`no line ${JSON.stringify(text)}`);
  };
  /** The lines of the editor as drawn (with their after-decorations) that contain `text`. */
  const drawnLines = async (s: Screen, text: string) => (await s.renderedTexts({ selector: '.part.editor .view-line' })).map((l) => l.replace(/\u00a0/g, ' ')).filter((l) => l.includes(text));
  const annotation = (r: ServiceRevision) => `${r.author} · ${relativeTime(r.time, Date.now())}`;

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    api.model.refresh();
    const sites = await api.model.all();
    acmeId = sites.find((s) => s.name === 'Acme Corporate')!.id;
    dir = vscode.Uri.joinPath(workspaceFolder().uri, 'blame-acme');
    fs.rmSync(dir.fsPath, { recursive: true, force: true });
    fs.mkdirSync(dir.fsPath, { recursive: true });
    await vscode.commands.executeCommand('siteRevisions.mapFolder', acmeId, dir);
    history = await serviceRevisions(acmeId, 'index.php');
    assert.equal(history.length, 5, 'the demo history of index.php');
  });

  afterEach(async () => {
    await cfg().update('blame.allLines', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('newerRevisionAlert.throttleMinutes', undefined, vscode.ConfigurationTarget.Global);
  });

  after(() => leaveMappedFolder(api, url, acmeId, dir));

  it('blame: the annotation of the current line and the hover of any line match the demo history; the hover’s commands open the right diffs', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const newest = history.at(-1)!;
    // The newest revision with one line added locally.
    const file = write('index.php', newest.content.replace('<main>\n', '<main>\n  <!-- local draft -->\n'));
    const editor = await open(file);
    assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame'), 'on');
    const doc = editor.document;
    // Known from the seed's steps (oldest = revision 0).
    const expected: [line: string, text: string][] = [
      ['declare(strict_types=1);', annotation(history[4]!)],
      ['if (!in_array($page, $allowed, true)) {', annotation(history[1]!)],
      ["$allowed = ['home', 'about', 'contact', 'news'];", annotation(history[3]!)],
      ['  <p>Welcome to Acme Corporation — quality products since 1949.</p>', annotation(history[2]!)],
      ["require __DIR__ . '/includes/db.php';", 'before the oldest revision'],
      ['  <!-- local draft -->', 'not in any revision (local change)'],
    ];
    for (const [line, text] of expected) {
      const at = lineOf(doc, line);
      editor.selection = new vscode.Selection(at, 0, at, 0);
      // The annotation is drawn after the line's text, on that line only.
      const drawn = await s.until(() => drawnLines(s, text), (t) => t.length === 1, `annotation “${text}”`);
      assert.ok(drawn[0]!.includes(`${line}${text}`), `${JSON.stringify(drawn[0])} is the line ${line} and its annotation`);
    }

    // Every line, with the setting.
    await cfg().update('blame.allLines', true, vscode.ConfigurationTarget.Global);
    await s.until(() => drawnLines(s, 'before the oldest revision'), (t) => t.length >= 3, 'annotations on every line');

    // The hover of the line revision 1 introduced: dates, author, commands. First the editor as the
    // setting draws it (the annotation of the current line only), so that it is not drawn anew under
    // the hover; then hovered until the hover shows: one the workbench did not show or hid again
    // (seen under load: "the blame hover: not seen", last ["",""]) is asked for again by a new move.
    await cfg().update('blame.allLines', undefined, vscode.ConfigurationTarget.Global);
    await s.until(async () => [(await drawnLines(s, 'before the oldest revision')).length, (await drawnLines(s, 'not in any revision (local change)')).length], ([others, current]) => others === 0 && current === 1, 'the annotation of the current line only');
    const r1 = history[1]!;
    const hover = (
      await s.hoverUntil(
        { selector: '.part.editor .view-line span[class^="mtk"]:visible', hasText: 'in_array' },
        async () => (await s.texts({ selector: '.monaco-hover' })).map((x) => x.replace(/\u00a0/g, ' ')),
        (t) => t.some((x) => x.includes(`revision ${r1.id}`)),
        'the blame hover',
      )
    ).find((x) => x.includes(`revision ${r1.id}`))!;
    assert.ok(hover.includes(r1.author), hover);
    assert.ok(hover.includes(relativeTime(r1.time, Date.now())), hover);
    assert.ok(hover.includes(`${r1.date} UTC`), hover);
    for (const link of ['Compare with This Revision', 'Compare with Its Previous Revision', 'Open Revision', 'Line History']) assert.ok(hover.includes(link), `${link} in ${hover}`);
    // The commands are the only links: the author's address is text.
    assert.deepEqual((await s.texts({ selector: '.monaco-hover a:visible' })).map((x) => x.trim()), ['Compare with This Revision', 'Compare with Its Previous Revision', 'Open Revision', 'Line History']);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(lineOf(doc, 'if (!in_array($page, $allowed, true)) {'), 2));
    const md = hovers.flatMap((h) => h.contents).find((c): c is vscode.MarkdownString => c instanceof vscode.MarkdownString && c.value.includes(r1.id))!;
    assert.deepEqual(md.isTrusted, { enabledCommands: ['siteRevisions.compareWithWorking', 'siteRevisions.compareWithPrevious', 'siteRevisions.openRevision', 'siteRevisions.showLineHistory'] });

    // Its commands: this revision ↔ the working file, then the revision before it ↔ it.
    await s.click({ selector: '.monaco-hover a:visible', hasText: 'Compare with This Revision' });
    await s.until(() => s.tabTitles(), (t) => t.some((x) => /^index\.php \(.*\) ↔ working file$/.test(x)), 'the diff with the working file');
    let diff = await waitFor(() => (vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff ? vscode.window.tabGroups.activeTabGroup.activeTab.input : undefined));
    assert.equal(parseRevisionUri(diff.original)?.revisionId, r1.id);
    assert.equal(diff.modified.toString(), file.toString());

    await open(file);
    // Blame ends with its document: on again if the workbench closed it behind the diff.
    if (!(await api.blame()).blame.isOn(file)) assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame'), 'on');
    const at = lineOf(doc, 'if (!in_array($page, $allowed, true)) {');
    vscode.window.activeTextEditor!.selection = new vscode.Selection(at, 0, at, 0);
    await s.moveMouseAway();
    // This time the hover is opened from the keyboard (Show Hover at the cursor): it stays until clicked.
    await vscode.commands.executeCommand('editor.action.showHover');
    await s.click({ selector: '.monaco-hover a:visible', hasText: 'Compare with Its Previous Revision' });
    diff = await waitFor(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff && parseRevisionUri(input.modified)?.revisionId === r1.id ? input : undefined;
    });
    assert.equal(parseRevisionUri(diff.original)?.revisionId, history[0]!.id);
    await s.until(() => s.tabTitles(), (t) => t.some((x) => /^index\.php \(.*\) ↔ \(.*\)$/.test(x)), 'the diff of two revisions');
    await s.moveMouseAway();
  });

  it('blame hover: a revision date that is not a date is shown as text — a link, an address or a command link in it is inert; the hover’s commands are its only links', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    // Two revisions whose dates cannot be read (the newer by id, the only order left): the
    // second line is the newer one's, so its hover shows that date where a date would be.
    const junk = (n: number) => `https://example.com/${n} www.example.org [x](command:siteRevisions.openRevision) <b>${n}</b>`;
    await control(url, 'add-revision', { siteId: acmeId, path: 'hover-date.php', content: 'first line\n', author: 'a@example.com', date: junk(1) });
    await control(url, 'add-revision', { siteId: acmeId, path: 'hover-date.php', content: 'first line\nsecond line\n', author: 'b@example.com', date: junk(2) });
    await vscode.commands.executeCommand('siteRevisions.refresh');
    const file = write('hover-date.php', 'first line\nsecond line\n');
    await open(file);
    assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame'), 'on');
    await s.moveMouseAway();
    await s.hover({ selector: '.part.editor .view-line span[class^="mtk"]:visible', hasText: 'second' });
    const hover = (await s.until(async () => (await s.texts({ selector: '.monaco-hover' })).map((x) => x.replace(/\u00a0/g, ' ')), (t) => t.some((x) => x.includes('b@example.com')), 'the blame hover')).find((x) => x.includes('b@example.com'))!;
    assert.ok(hover.includes(junk(2)), `the date as sent, as text: ${hover}`);
    assert.deepEqual((await s.texts({ selector: '.monaco-hover a:visible' })).map((x) => x.trim()), ['Compare with This Revision', 'Compare with Its Previous Revision', 'Open Revision', 'Line History']);
    await s.moveMouseAway();
  });

  it('blame: editing re-attributes without a request; a newer revision on the service is picked up on refresh', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const file = write('index.php', history.at(-1)!.content);
    const editor = await open(file);
    if (!(await api.blame()).blame.isOn(editor.document.uri)) assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame'), 'on');
    // What opening the file started (the alert's check, the gutter's original) is done first.
    await Promise.all([(await api.blame()).alert.check(file), (await api.blame()).quickDiff.original(dir, file)]);
    await control(url, 'reset-stats');
    // The editor of the file as it is now (the one opened above may have been replaced meanwhile,
    // e.g. when the workbench reloaded the file just written): an edit of a stale editor is refused.
    const current = async () => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === file.toString()) ?? (await open(file));
    let typing = await current();
    const at = lineOf(typing.document, 'declare(strict_types=1);');
    if (!(await typing.edit((e) => e.insert(new vscode.Position(at, 0), '// typed here\n')))) {
      typing = await open(file);
      assert.ok(await typing.edit((e) => e.insert(new vscode.Position(at, 0), '// typed here\n')), 'the line was typed');
    }
    typing.selection = new vscode.Selection(at, 0, at, 0);
    await s.until(() => drawnLines(s, 'not in any revision (local change)'), (t) => t.length === 1 && t[0]!.includes('typed here'), 'the typed line is a local change');
    assert.deepEqual(await requests(), [], 'no request for an edit');

    // A colleague saves a new revision with the typed line: after a refresh, blame knows it.
    const added = await control(url, 'add-revision', { siteId: acmeId, path: 'index.php', content: typing.document.getText(), author: 'colleague@example.com' });
    assert.ok((added as { success: boolean }).success);
    await vscode.commands.executeCommand('siteRevisions.refresh');
    await s.until(() => drawnLines(s, 'colleague@example.com'), (t) => t.length === 1 && t[0]!.includes('typed here'), 'the new revision after refresh');
    await vscode.commands.executeCommand('siteRevisions.toggleBlame');
    await s.until(() => drawnLines(s, 'colleague@example.com'), (t) => t.length === 0, 'blame off');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('quick diff: the original of a working file is the newest revision on the service, drawn in the gutter', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const revs = await serviceRevisions(acmeId, 'includes/db.php');
    const file = write('includes/db.php', `${revs.at(-1)!.content}// added locally\n`);
    const control = (await api.scm()).controls.all().find((c) => c.folder.toString() === dir.toString());
    assert.ok(control?.sc.quickDiffProvider, 'the source control of the mapped folder has the quick diff');
    const original = await (await api.blame()).quickDiff.original(dir, file);
    assert.equal(parseRevisionUri(original!)?.revisionId, revs.at(-1)!.id, 'the newest revision');
    // A newest revision over the diff editor's limit gives no original (the workbench would read it whole), as Compare refuses it.
    const diffEditor = vscode.workspace.getConfiguration('diffEditor');
    await diffEditor.update('maxFileSize', (Buffer.byteLength(revs.at(-1)!.content) - 1) / (1024 * 1024), vscode.ConfigurationTarget.Global);
    try {
      assert.equal(await (await api.blame()).quickDiff.original(dir, file), undefined, 'no original over the limit');
    } finally {
      await diffEditor.update('maxFileSize', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.ok(await (await api.blame()).quickDiff.original(dir, file), 'an original again under the limit');
    await open(file);
    // The added line is marked in the gutter.
    await s.until(() => s.count({ selector: '.part.editor .margin-view-overlays [class*="dirty-diff-added"]' }), (n) => n >= 1, 'an added line in the gutter');
    // Off with the setting.
    await cfg().update('quickDiff.enabled', false, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(async () => (await api.scm()).controls.all().every((c) => !c.sc.quickDiffProvider), { message: 'no quick diff with the setting off' });
    } finally {
      await cfg().update('quickDiff.enabled', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('alert: shown after the service receives a newer revision that differs, not otherwise; Compare and Dismiss', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await cfg().update('newerRevisionAlert.throttleMinutes', 0, vscode.ConfigurationTarget.Global);
    const revs = await serviceRevisions(acmeId, 'js/app.js');
    const file = write('js/app.js', revs.at(-1)!.content);
    // Saved ten minutes ago: what the service receives from now on is newer.
    const mtime = new Date(Date.now() - 600_000);
    fs.utimesSync(file.fsPath, mtime, mtime);
    const item = { selector: '.part.statusbar .statusbar-item', hasText: 'Changed on the service' };
    await open(file);
    assert.equal(await (await api.blame()).alert.check(file), 'none', 'the file on disk is newer than every revision');
    assert.equal(await s.count(item), 0);

    // A newer revision equal to the file: still nothing.
    await control(url, 'add-revision', { siteId: acmeId, path: 'js/app.js', content: revs.at(-1)!.content, author: 'same@example.com' });
    assert.equal(await (await api.blame()).alert.check(file), 'none', 'same content');
    // A newer revision that differs.
    await control(url, 'add-revision', { siteId: acmeId, path: 'js/app.js', content: `${revs.at(-1)!.content}// changed by a colleague\n`, author: 'colleague@example.com' });
    await open(write('other.txt', 'x'));
    await open(file);
    const shown = await s.until(() => s.texts(item), (t) => t.length === 1, 'the alert').catch(async (e: unknown) => {
      await s.screenshot('/tmp/blameui-alert.png');
      throw e;
    });
    assert.equal(shown[0]!.trim(), 'Changed on the service · colleague@example.com · just now');

    // Throttled: within the window a focus sends nothing.
    await cfg().update('newerRevisionAlert.throttleMinutes', 5, vscode.ConfigurationTarget.Global);
    await control(url, 'reset-stats');
    assert.equal(await (await api.blame()).alert.check(file), 'throttled');
    assert.deepEqual(await requests(), []);

    await s.click(item);
    await s.until(() => s.tabTitles(), (t) => t.some((x) => /^app\.js \(.*colleague@example\.com\) ↔ working file$/.test(x)), 'the diff with the newer revision');
    await open(file);
    await s.click({ selector: '.part.statusbar [id$="siteRevisions.newerRevision.dismiss"]' });
    await s.until(() => s.count(item), (n) => n === 0, 'dismissed');
  });

  it('Compare with the Same File on Another Site: the newest revision there vs the working file; a site without the path says so', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    const bakeryId = (await api.model.all()).find((x) => x.name === 'Bakery API')!.id;
    const bakery = await serviceRevisions(bakeryId, 'config/settings.json');
    const file = write('config/settings.json', '{}\n');
    await open(file);
    const done = (await vscode.commands.executeCommand('siteRevisions.compareWithOtherSite', file, bakeryId)) as { done: boolean; left: vscode.Uri };
    assert.ok(done.done);
    assert.equal(parseRevisionUri(done.left)?.revisionId, bakery.at(-1)!.id);
    assert.equal(parseRevisionUri(done.left)?.siteId, bakeryId);
    await s.until(() => s.tabTitles(), (t) => t.some((x) => /^settings\.json \(.*\) on “Bakery API” ↔ working file$/.test(x)), 'the diff tab');

    const index = write('index.php', history.at(-1)!.content);
    const missing = (await vscode.commands.executeCommand('siteRevisions.compareWithOtherSite', index, bakeryId)) as { done: boolean; reason: string };
    assert.deepEqual(missing, { done: false, reason: 'missing' });
    await vscode.commands.executeCommand('notifications.showList');
    await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('“Bakery API” has no revisions of index.php.')), 'the message');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('a folder also mapped to a site the account no longer lists: blame, the gutter and the alert use the site that lists the file; the stale mapping is offered to be forgotten on screen, and Forget Mapping removes it', async function () {
    const s = screenOrSkip(this);
    await closeAll();
    await vscode.commands.executeCommand('notifications.clearAll');
    await cfg().update('newerRevisionAlert.throttleMinutes', 0, vscode.ConfigurationTarget.Global);
    // A second site mapped to the same folder, then deleted on the service (from another
    // computer, or unshared by its owner): the extension is not told.
    const { siteId: goneId } = await api.session.call((c) => c.createSite({ name: 'Gone Site', server_type: 'FTP', domain: 'gone.example' }));
    await api.revisions.folders.set(goneId, dir);
    await api.session.call((c) => c.deleteSite(goneId));
    api.model.refresh();
    assert.ok(!(await api.model.all()).some((x) => x.id === goneId), 'the account does not list it');
    try {
      // (Earlier tests added revisions: the newest as the service lists it now.)
      const newest = (await serviceRevisions(acmeId, 'index.php')).at(-1)!;
      const file = write('index.php', `${newest.content}// added locally\n`);
      const editor = await open(file);
      // (An earlier test's document of this file may lag behind the disk for a moment.)
      await waitFor(() => editor.document.getText().includes('// added locally'), { message: 'the document as written' });
      // Blame: on, drawn.
      assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame'), 'on');
      const at = lineOf(editor.document, '// added locally');
      editor.selection = new vscode.Selection(at, 0, at, 0);
      await s.until(() => drawnLines(s, 'not in any revision (local change)'), (t) => t.length === 1, 'the blame annotation');
      // The gutter: the added line, against Acme's newest revision.
      const original = await (await api.blame()).quickDiff.original(dir, file);
      assert.equal(parseRevisionUri(original!)?.revisionId, newest.id);
      await s.until(() => s.count({ selector: '.part.editor .margin-view-overlays [class*="dirty-diff-added"]' }), (n) => n >= 1, 'an added line in the gutter');
      // The alert: a newer revision that differs, on Acme.
      const app = (await serviceRevisions(acmeId, 'js/app.js')).at(-1)!;
      const appFile = write('js/app.js', app.content);
      const mtime = new Date(Date.now() - 600_000);
      fs.utimesSync(appFile.fsPath, mtime, mtime);
      await control(url, 'add-revision', { siteId: acmeId, path: 'js/app.js', content: `${app.content}// changed by a colleague\n`, author: 'colleague@example.com' });
      assert.equal(await (await api.blame()).alert.check(appFile), 'alert');
      // The offer to forget the stale mapping, once, naming the folder; Forget Mapping removes it.
      await vscode.commands.executeCommand('notifications.showList');
      const offers = await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('is mapped to a site that your account no longer lists')), 'the offer to forget the mapping');
      const offer = offers.filter((x) => x.includes('no longer lists'));
      assert.equal(offer.length, 1, offer.join(' | '));
      assert.ok(offer[0]!.includes(dir.fsPath) && offer[0]!.includes(`site ${goneId}`), offer[0]);
      await s.click({ selector: '.notifications-center .notification-list-item .monaco-button', hasText: 'Forget Mapping' });
      await waitFor(() => api.revisions.folders.get(goneId) === undefined, { message: 'the stale mapping forgotten' });
      assert.equal(api.revisions.folders.get(acmeId)?.toString(), dir.toString(), 'the other mapping is kept');
    } finally {
      await api.revisions.folders.set(goneId, undefined);
      await vscode.commands.executeCommand('notifications.clearAll');
      await closeAll();
    }
  });

  it('blame of a file whose folder is no longer mapped ends at the next refresh, and nothing is read for it', async () => {
    await closeAll();
    const newest = (await serviceRevisions(acmeId, 'index.php')).at(-1)!;
    write('index.php', newest.content);
    const editor = await open(vscode.Uri.joinPath(dir, 'index.php'));
    const blame = (await api.blame()).blame;
    if (!blame.isOn(editor.document.uri)) assert.equal(await vscode.commands.executeCommand('siteRevisions.toggleBlame'), 'on');
    assert.ok(blame.isOn(editor.document.uri), 'blame is on');
    try {
      // The folder unmapped while the document stays open (as when a suite, or a person, leaves it).
      await api.revisions.folders.set(acmeId, undefined);
      await control(url, 'reset-stats');
      api.model.refresh();
      await waitFor(() => !blame.isOn(editor.document.uri), { message: 'blame off after the refresh' });
      await settled(api.scheduler, url);
      assert.deepEqual((await requests()).filter((op) => op === 'getRevisions' || op === 'getRevision'), [], 'no revision read for a file outside the mapped folders');
    } finally {
      await api.revisions.folders.set(acmeId, dir);
      await closeAll();
    }
  });
});

// Transfers guarded by the history (issue 34) in the real workbench against the REAL servers
// (test/live: OpenSSH's sftp, ProFTPD with its LIST clock three hours off, Apache mod_dav),
// started from this suite: download and upload from the commands, the conflict choice drawn and
// clicked (Overwrite, Take Theirs, Cancel each doing exactly that), a same-size edit on the server
// caught, a server clock three hours off raising no alarm, the kept copies listed in "Overwritten
// on the Server" and every one put back, a cancel mid-folder leaving no partial file on either
// side. What is expected is read from the servers' own folders on disk and from the mapped
// folder on disk, never from the code under test.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { liveUri } from '../../src/features/live/fileSystem';
import { screenOrSkip, type Screen } from './screen';
import { control } from './support';
import { conflictScreen, namesUnder, spyProgress, start, T0, temps, transferContext, type TransferContext } from './transferSupport';
import { waitFor } from './util';

describe('Transfers: download, upload, the conflict choice, kept copies (real servers)', function () {
  this.timeout(240_000);
  let s: Screen;
  let t: TransferContext;
  const q = () => conflictScreen(s);

  before(async function () {
    s = screenOrSkip(this);
    t = await transferContext('Transfer');
  });

  after(async () => {
    await t?.close();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('Download a live folder (from its Live Files row): every file as on the server, progress in files and bytes, nothing temporary left', async () => {
    const srv = t.server('sftp');
    const files: Record<string, Buffer> = { 'dl/a.txt': Buffer.from('alpha\n'), 'dl/sub/b.bin': Buffer.alloc(300_000, 7), 'dl/ünï cödé.txt': Buffer.from('ünï\n'), 'dl/with space/c d.txt': Buffer.from('c d\n') };
    for (const [p, b] of Object.entries(files)) srv.write(p, b);
    const f = await t.api.transfer();
    const seen: string[] = [];
    const restore = spyProgress(seen);
    let r: { uploaded: number; downloaded: number; conflicts: unknown[]; failed: unknown[] } | undefined;
    try {
      // The Live Files row of the folder, as the Sites view gives it.
      r = (await vscode.commands.executeCommand('siteRevisions.download', liveUri({ siteId: t.sites.sftp.id, account: (await t.api.live()).connections.account()!, path: 'dl' }, t.sites.sftp.name))) as typeof r;
    } finally {
      restore();
    }
    assert.equal(r?.downloaded, 4, JSON.stringify(r));
    for (const [p, b] of Object.entries(files)) assert.deepEqual(t.readLocal('sftp', p), b, p);
    assert.ok(seen.some((m) => /of 4 files/.test(m) && /KB/.test(m)), `progress said files and bytes: ${seen.join(' | ')}`);
    assert.deepEqual(temps(namesUnder(t.locals.sftp)), []);
    assert.ok(f.view.pending.length === 0);
  });


  it('an upload over a live file edited on the server since it was downloaded — the same size — writes nothing: the choice is drawn with its three diffs, a diff opens beside it, and Cancel writes nothing', async () => {
    const srv = t.server('sftp');
    srv.write('c/page.php', 'version A\n', T0);
    await control(t.url, 'add-revision', { siteId: t.sites.sftp.id, path: 'c/page.php', content: 'version A\n', author: 'dev@example.com' });
    await vscode.commands.executeCommand('siteRevisions.download', t.working('sftp', 'c/page.php'));
    assert.equal(t.readLocal('sftp', 'c/page.php')?.toString(), 'version A\n');
    // Someone edits it on the server: the same size, another time.
    srv.write('c/page.php', 'version B\n', T0 + 60_000);
    t.writeLocal('sftp', 'c/page.php', 'my version\n');
    const done = start('siteRevisions.upload', t.working('sftp', 'c/page.php'));
    const rows = await q().drawn('page.php');
    for (const r of ['Live ↔ working file', 'Newest revision ↔ live', 'Newest revision ↔ working file', 'Overwrite', 'Take Theirs', 'Cancel']) assert.ok(rows.some((x) => x.includes(r)), `${r} drawn: ${rows.join(' | ')}`);
    assert.match(await q().placeholder(), /changed on the server since this computer last transferred it/);
    await q().click('Live ↔ working file');
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('page.php (live ↔ working file)')), 'the diff opened');
    assert.ok((await q().rows()).some((x) => x.includes('Take Theirs')), 'the choice stays open beside the diff');
    await q().click('Newest revision ↔ live');
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('page.php (newest revision ↔ live)')), 'the second diff opened');
    await s.screenshot(path.join(os.tmpdir(), 'transfer-conflict.png')).catch(() => undefined);
    await q().click('Cancel');
    await done;
    assert.equal(srv.read('c/page.php')?.toString(), 'version B\n', 'nothing written on the server');
    assert.equal(t.readLocal('sftp', 'c/page.php')?.toString(), 'my version\n', 'nothing written locally');
    assert.equal((await t.api.transfer()).view.pending.length, 0, 'Cancel drops it');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Escape leaves the conflict listed in Transfers to decide later; Take Theirs, from the title bar of one of its diffs, downloads the live file over the working one (whose bytes are kept), the server untouched', async () => {
    const srv = t.server('sftp');
    const f = await t.api.transfer();
    const done = start('siteRevisions.upload', t.working('sftp', 'c/page.php'));
    await q().drawn('page.php');
    await q().click('Live ↔ working file');
    await s.until(() => s.tabTitles(), (x) => x.some((y) => y.startsWith('page.php (live ↔ working file)')), 'the diff opened');
    await s.press('Escape');
    await done;
    assert.equal(f.view.pending.length, 1, 'still listed');
    await vscode.commands.executeCommand('siteRevisions.transfersView.focus');
    await s.until(() => s.rows('Transfers'), (r) => r.some((x) => x.startsWith('page.php') && x.includes('changed on the server')), 'listed in Transfers');
    // The diff's title bar offers the choice (the quick pick is closed).
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    await s.click({ selector: '.part.editor .editor-actions .action-label[aria-label^="Take Theirs"]' });
    await waitFor(() => f.view.pending.length === 0, { message: 'resolved from the title bar' });
    assert.equal(t.readLocal('sftp', 'c/page.php')?.toString(), 'version B\n', 'the live file downloaded');
    assert.equal(srv.read('c/page.php')?.toString(), 'version B\n', 'the server untouched');
    const copies = await f.sites.copies();
    const mine = (await copies.list(t.sites.sftp.id)).find((c) => c.path === 'c/page.php' && c.side === 'local');
    assert.ok(mine, 'the working bytes are kept');
    assert.equal(Buffer.from(await copies.read(mine.id)).toString(), 'my version\n');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Overwrite, after another same-size edit on the server, uploads the working file; the live bytes are kept and drawn in Overwritten on the Server', async () => {
    const srv = t.server('sftp');
    srv.write('c/page.php', 'version C\n', T0 + 120_000);
    t.writeLocal('sftp', 'c/page.php', 'mine again\n');
    const done = start('siteRevisions.upload', t.working('sftp', 'c/page.php'));
    await q().drawn('page.php');
    await q().click('Overwrite');
    await done;
    assert.equal(srv.read('c/page.php')?.toString(), 'mine again\n', 'written on the server');
    assert.deepEqual(temps(srv.names('c')), []);
    const copies = await (await t.api.transfer()).sites.copies();
    const kept = (await copies.list(t.sites.sftp.id)).find((c) => c.path === 'c/page.php' && c.side === 'live' && c.why === 'upload');
    assert.ok(kept, 'the live bytes are kept');
    assert.equal(Buffer.from(await copies.read(kept.id)).toString(), 'version C\n');
    // Drawn: the view lists it under its site, with why.
    await vscode.commands.executeCommand('siteRevisions.overwrittenView.focus');
    const drawn = await s.until(() => s.rows('Overwritten on the Server'), (r) => r.some((x) => x.startsWith('page.php') && x.includes('replaced by an upload')), 'the kept copy drawn', 30_000);
    assert.ok(drawn.some((x) => x.startsWith('Transfer SFTP')), drawn.join(' | '));
  });

  it('a download over a working file with edits not uploaded asks first (Cancel keeps them); over unsaved edits too (Take Theirs replaces the file on disk, the editor keeps the edits)', async () => {
    const srv = t.server('sftp');
    t.writeLocal('sftp', 'c/page.php', 'edited here, not uploaded\n');
    let done = start('siteRevisions.download', t.working('sftp', 'c/page.php'));
    await q().drawn('page.php');
    assert.match(await q().placeholder(), /edits that were not uploaded/);
    await q().click('Cancel');
    await done;
    assert.equal(t.readLocal('sftp', 'c/page.php')?.toString(), 'edited here, not uploaded\n');
    // Unsaved edits of a file that is otherwise as downloaded.
    srv.write('c/u.txt', 'server u\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('sftp', 'c/u.txt'));
    const doc = await vscode.workspace.openTextDocument(t.working('sftp', 'c/u.txt'));
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), 'typed, unsaved ');
    await vscode.workspace.applyEdit(edit);
    assert.ok(doc.isDirty);
    srv.write('c/u.txt', 'server u, newer\n', T0 + 60_000);
    done = start('siteRevisions.download', t.working('sftp', 'c/u.txt'));
    await q().drawn('u.txt');
    assert.match(await q().placeholder(), /unsaved edits/);
    await q().click('Take Theirs');
    await done;
    assert.equal(t.readLocal('sftp', 'c/u.txt')?.toString(), 'server u, newer\n');
    assert.ok(doc.isDirty && doc.getText().startsWith('typed, unsaved '), 'the editor keeps the edits');
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('WebDAV: a live change since the download is caught too (Cancel); FTP with its LIST clock three hours off: download, edit, upload raises no alarm', async () => {
    const dav = t.server('dav');
    dav.write('w/a.html', '<p>one</p>\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('dav', 'w/a.html'));
    dav.write('w/a.html', '<p>two</p>\n', T0 + 60_000);
    t.writeLocal('dav', 'w/a.html', '<p>mine</p>\n');
    const done = start('siteRevisions.upload', t.working('dav', 'w/a.html'));
    await q().drawn('a.html');
    await q().click('Cancel');
    await done;
    assert.equal(dav.read('w/a.html')?.toString(), '<p>two</p>\n');

    assert.equal(t.live.ftp!.listTimeZoneHours, 3);
    const ftp = t.server('ftp');
    ftp.write('t/clock.txt', 'server clock\n', Date.now() - 3600_000);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('ftp', 't/clock.txt'));
    assert.equal(t.readLocal('ftp', 't/clock.txt')?.toString(), 'server clock\n');
    t.writeLocal('ftp', 't/clock.txt', 'edited here\n');
    const r = (await vscode.commands.executeCommand('siteRevisions.upload', t.working('ftp', 't/clock.txt'))) as { uploaded: number; conflicts: unknown[] };
    assert.equal(r.uploaded, 1, JSON.stringify(r));
    assert.equal(r.conflicts.length, 0);
    assert.equal(ftp.read('t/clock.txt')?.toString(), 'edited here\n');
  });

  it('every overwritten live file can be put back: each copy of the list put back (the first from its row on screen), the server then holds its bytes, and what it replaced is kept too', async () => {
    const f = await t.api.transfer();
    const copies = await f.sites.copies();
    const srv = t.server('sftp');
    // Another file replaced twice.
    srv.write('pb/x.txt', 'x1\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('sftp', 'pb/x.txt'));
    for (const v of ['x2\n', 'x3\n']) {
      t.writeLocal('sftp', 'pb/x.txt', v);
      await vscode.commands.executeCommand('siteRevisions.upload', t.working('sftp', 'pb/x.txt'));
    }
    const list = (await copies.list(t.sites.sftp.id)).filter((c) => c.side === 'live');
    assert.ok(list.length >= 2, `${list.length} live copies`);
    // Clear Cache leaves the kept copies and the transfers' state alone (they are no cache of the service): every copy is read below.
    const ids = (await copies.list()).map((c) => c.id).sort();
    const asked = t.shown.length;
    await vscode.commands.executeCommand('siteRevisions.clearCache'); // its question answered with Clear Cache
    assert.ok(t.shown.slice(asked).some((m) => m.modal && m.message.startsWith('Delete the revisions')), 'Clear Cache asked first');
    assert.deepEqual((await copies.list()).map((c) => c.id).sort(), ids, 'Clear Cache kept the copies');
    assert.ok(fs.readdirSync(path.join(t.api.cache.folder!, 'transfer')).some((n) => n.endsWith('.bases.json')), 'Clear Cache kept the bases');
    await vscode.commands.executeCommand('siteRevisions.overwrittenView.focus');
    await vscode.commands.executeCommand('siteRevisions.overwrittenRefresh');
    const first = list[0]!;
    const name = first.path.slice(first.path.lastIndexOf('/') + 1);
    const row = { selector: `${s.pane('Overwritten on the Server')} .monaco-list-row`, hasText: name };
    await s.until(() => s.count(row), (n) => n > 0, 'the copy row drawn', 30_000);
    const expect = Buffer.from(await copies.read(first.id));
    await s.clickRowAction(row, 'Put Back on the Server');
    await waitFor(() => srv.read(first.path)?.equals(expect), { message: `${first.path} put back`, timeoutMs: 30_000 });
    for (const c of list.slice(1)) {
      const bytes = Buffer.from(await copies.read(c.id));
      const node = await waitFor(async () => {
        const roots = await f.overwritten.getChildren();
        for (const r of roots) for (const n of await r.getChildren()) if ((n as { copy?: { id: string } }).copy?.id === c.id) return n;
        return undefined;
      });
      await vscode.commands.executeCommand('siteRevisions.overwrittenPutBack', node);
      assert.deepEqual(srv.read(c.path), bytes, `${c.path} (kept ${c.why}) put back`);
    }
    assert.ok((await copies.list(t.sites.sftp.id)).some((c) => c.why === 'put-back'), 'what a put-back replaced is kept');
  });

  it('a cancel mid-folder, clicked in the progress notification, leaves no partial file on either side: upload, then download', async () => {
    const srv = t.server('sftp');
    const big = Buffer.alloc(256 * 1024);
    for (let i = 0; i < 40; i++) {
      big.fill(i);
      t.writeLocal('slow', `big/f${String(i).padStart(2, '0')}.bin`, big);
    }
    const seen: string[] = [];
    const restore = spyProgress(seen);
    // A long way to the server (each file takes a few round trips): the cancel comes mid-folder.
    t.proxy.setLatency(300);
    try {
      await vscode.commands.executeCommand('notifications.showList');
      const up = start('siteRevisions.upload', t.working('slow', 'big'));
      await waitFor(() => seen.some((m) => /^[1-9]\d* of 40 files/.test(m)), { message: 'some files uploaded', timeoutMs: 120_000 });
      await s.click({ selector: '.notifications-center .notification-list-item .monaco-button', hasText: 'Cancel' });
      const r = (await up) as { cancelled: boolean; uploaded: number };
      assert.equal(r.cancelled, true, JSON.stringify(r));
      assert.ok(r.uploaded > 0 && r.uploaded < 40, `${r.uploaded} uploaded before the cancel`);
      const onServer = srv.names('big');
      assert.deepEqual(temps(onServer), [], 'no temporary file on the server');
      for (const n of onServer) assert.deepEqual(srv.read(`big/${n}`), t.readLocal('slow', `big/${n}`), `${n} complete on the server`);
      // Download the whole folder into an empty one, and cancel it.
      fs.rmSync(t.localPath('slow', 'big'), { recursive: true, force: true });
      for (let i = 0; i < 40; i++) {
        big.fill(100 + i);
        srv.write(`big/f${String(i).padStart(2, '0')}.bin`, big);
      }
      seen.length = 0;
      await vscode.commands.executeCommand('notifications.showList');
      const down = start('siteRevisions.download', t.working('slow', 'big'));
      await waitFor(() => seen.some((m) => /^[1-9]\d* of 40 files/.test(m)), { message: 'some files downloaded', timeoutMs: 120_000 });
      await s.click({ selector: '.notifications-center .notification-list-item .monaco-button', hasText: 'Cancel' });
      const d = (await down) as { cancelled: boolean; downloaded: number };
      assert.equal(d.cancelled, true, JSON.stringify(d));
      const here = namesUnder(t.localPath('slow', 'big'));
      assert.deepEqual(temps(here), [], 'no temporary file locally');
      assert.ok(here.length < 40, `${here.length} downloaded before the cancel`);
      for (const n of here) assert.deepEqual(t.readLocal('slow', `big/${n}`), srv.read(`big/${n}`), `${n} complete locally`);
    } finally {
      restore();
      t.proxy.setLatency(40);
    }
  });
});

// The live folder becomes writable (issue 34 §6) in the real workbench against the REAL servers
// (test/live): a live file opened in an editor and saved goes to the server through the guard (a
// change made on the server since the editor opened it shows the conflict choice: Cancel keeps
// the edit unsaved, Overwrite saves it, Take Theirs shows the live file and keeps the edit),
// `workspace.fs` creates, renames and deletes on the server (a delete keeps the bytes), and an
// open editor learns of a change made on the server (the poll of what is on screen). Expected
// results are read from the servers' own folders on disk.
//
// Not covered here: a live folder opened as a workspace folder (adding the first workspace folder
// restarts the extension host under the test runner); its Explorer's saves, creates, renames and
// deletes are these same provider calls.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { liveUri } from '../../src/features/live/fileSystem';
import { screenOrSkip, type Screen } from './screen';
import { conflictScreen, T0, transferContext, type TransferContext } from './transferSupport';
import { waitFor } from './util';

describe('Transfers: the live folder is writable through the guard (real servers)', function () {
  this.timeout(240_000);
  let s: Screen;
  let t: TransferContext;
  const q = () => conflictScreen(s);
  let account: string;
  const uri = (k: 'sftp' | 'ftp' | 'dav', p: string) => liveUri({ siteId: t.sites[k].id, account, path: p }, t.sites[k].name);

  before(async function () {
    s = screenOrSkip(this);
    t = await transferContext('Writable');
    account = (await t.api.live()).connections.account()!;
  });

  after(async () => {
    await t?.close();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  const edit = async (doc: vscode.TextDocument, text: string) => {
    const e = new vscode.WorkspaceEdit();
    e.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
    assert.ok(await vscode.workspace.applyEdit(e));
  };

  it('a live file saved from its editor is written to the server; its tab is not read-only; what it replaced is kept', async () => {
    const srv = t.server('sftp');
    srv.write('wl/a.txt', 'server a\n', T0);
    assert.equal(vscode.workspace.fs.isWritableFileSystem('site-live'), true);
    const doc = await vscode.workspace.openTextDocument(uri('sftp', 'wl/a.txt'));
    await vscode.window.showTextDocument(doc);
    await s.until(() => s.tabTitles(), (x) => x.includes('a.txt (live · Writable SFTP)'), 'the live tab');
    await edit(doc, 'edited in VS Code\n');
    assert.ok(await doc.save(), 'saved');
    assert.equal(srv.read('wl/a.txt')?.toString(), 'edited in VS Code\n');
    assert.equal(doc.isDirty, false);
    const copies = await (await t.api.transfer()).sites.copies();
    const kept = (await copies.list(t.sites.sftp.id)).find((c) => c.path === 'wl/a.txt' && c.why === 'save');
    assert.ok(kept, 'the replaced live bytes are kept');
    assert.equal(Buffer.from(await copies.read(kept.id)).toString(), 'server a\n');
    // Saved again: checked against what this save wrote (no conflict with itself).
    await edit(doc, 'edited twice\n');
    assert.ok(await doc.save());
    assert.equal(srv.read('wl/a.txt')?.toString(), 'edited twice\n');
  });

  it('a save over a change made on the server since the editor opened it (the same size) shows the choice: Cancel leaves it unsaved, Overwrite saves it, Take Theirs shows the live file and keeps the edit', async () => {
    const srv = t.server('sftp');
    const doc = await vscode.workspace.openTextDocument(uri('sftp', 'wl/a.txt'));
    await vscode.window.showTextDocument(doc);
    srv.write('wl/a.txt', 'EDITED TWICE\n', T0 + 60_000);
    await edit(doc, 'mine, third\n');
    let saving = Promise.resolve(doc.save());
    await q().drawn('a.txt');
    const rows = await q().rows();
    assert.ok(rows.some((r) => r.includes('Live ↔ your edit')) && rows.some((r) => r.includes('save your edit to the server')), rows.join(' | '));
    await q().click('Cancel');
    assert.equal(await saving, false, 'not saved');
    assert.ok(doc.isDirty, 'the edit stays in the editor');
    assert.equal(srv.read('wl/a.txt')?.toString(), 'EDITED TWICE\n', 'nothing written');
    saving = Promise.resolve(doc.save());
    await q().drawn('a.txt');
    await q().click('Overwrite');
    assert.equal(await saving, true, 'saved');
    assert.equal(srv.read('wl/a.txt')?.toString(), 'mine, third\n');
    const copies = await (await t.api.transfer()).sites.copies();
    const over = (await copies.list(t.sites.sftp.id)).filter((c) => c.path === 'wl/a.txt' && c.side === 'live');
    assert.ok((await Promise.all(over.map(async (c) => Buffer.from(await copies.read(c.id)).toString()))).includes('EDITED TWICE\n'), 'the live bytes Overwrite replaced are kept');
    // Take Theirs: the editor shows the live file again, the edit kept.
    srv.write('wl/a.txt', 'theirs again\n', T0 + 120_000);
    await edit(doc, 'mine, fourth\n');
    saving = Promise.resolve(doc.save());
    await q().drawn('a.txt');
    await q().click('Take Theirs');
    assert.equal(await saving, false);
    await waitFor(() => !doc.isDirty && doc.getText() === 'theirs again\n', { message: 'the editor shows the live file', timeoutMs: 30_000 });
    assert.equal(srv.read('wl/a.txt')?.toString(), 'theirs again\n');
    const mine = (await copies.list(t.sites.sftp.id)).find((c) => c.path === 'wl/a.txt' && c.side === 'local' && c.why === 'take-theirs');
    assert.ok(mine, 'the edit is kept');
    assert.equal(Buffer.from(await copies.read(mine.id)).toString(), 'mine, fourth\n');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('workspace.fs on live URIs creates a folder and a file, renames and deletes on the server (FTP and WebDAV); a delete keeps the bytes', async () => {
    for (const k of ['ftp', 'dav'] as const) {
      const srv = t.server(k);
      await vscode.workspace.fs.createDirectory(uri(k, 'made'));
      await vscode.workspace.fs.writeFile(uri(k, 'made/new.txt'), Buffer.from(`new on ${k}\n`));
      assert.equal(srv.read('made/new.txt')?.toString(), `new on ${k}\n`, k);
      await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(uri(k, 'made'), Buffer.from('x'))), /directory|folder/i);
      await vscode.workspace.fs.rename(uri(k, 'made/new.txt'), uri(k, 'made/renamed.txt'));
      assert.equal(srv.read('made/new.txt'), undefined, k);
      assert.equal(srv.read('made/renamed.txt')?.toString(), `new on ${k}\n`, k);
      assert.deepEqual(
        (await vscode.workspace.fs.readDirectory(uri(k, 'made'))).map(([n]) => n),
        ['renamed.txt'],
        `${k}: the listing is read again after the writes`,
      );
      await vscode.workspace.fs.delete(uri(k, 'made/renamed.txt'));
      assert.equal(srv.read('made/renamed.txt'), undefined, k);
      const copies = await (await t.api.transfer()).sites.copies();
      const kept = (await copies.list(t.sites[k].id)).find((c) => c.path === 'made/renamed.txt' && c.why === 'delete');
      assert.ok(kept, `${k}: the deleted bytes are kept`);
      assert.equal(Buffer.from(await copies.read(kept.id)).toString(), `new on ${k}\n`);
    }
  });

  it('an open live editor learns of a change made on the server (the poll of what is on screen) and shows it', async () => {
    const srv = t.server('sftp');
    srv.write('wl/poll.txt', 'before\n', T0);
    const doc = await vscode.workspace.openTextDocument(uri('sftp', 'wl/poll.txt'));
    await vscode.window.showTextDocument(doc);
    const live = await t.api.live();
    await live.poll.nextRound();
    srv.write('wl/poll.txt', 'after, changed on the server\n', T0 + 60_000);
    await live.poll.nextRound();
    await waitFor(() => doc.getText() === 'after, changed on the server\n', { message: 'the editor reloaded', timeoutMs: 30_000 });
    await s.until(() => s.texts({ selector: '.part.editor .view-lines' }), (x) => x.some((l) => l.replace(/\u00a0/g, ' ').includes('after, changed on the server')), 'drawn in the editor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

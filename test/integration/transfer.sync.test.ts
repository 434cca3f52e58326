// Sync a folder and upload on save (issue 34 §4, §5) in the real workbench against the REAL
// servers (test/live): the sync's preview drawn in the Transfers view (what would be uploaded,
// downloaded, deleted or left alone, and why; deleting off until included; a row unchecked), then
// the one action, checked on the server's and the mapped folder's disks; upload on save following
// the site's `upload_on_save` (as the service lists it, or as an import kept it here), asking the
// first time, several saves in a burst uploaded once, and saves made while the server cannot be
// reached waiting in the queue (shown in the status bar) until it can.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { screenOrSkip, type Screen } from './screen';
import { control } from './support';
import { conflictScreen, QUICK_ROW, start, T0, transferContext, type TransferContext } from './transferSupport';
import { waitFor } from './util';

describe('Transfers: sync a folder, upload on save (real servers)', function () {
  this.timeout(240_000);
  let s: Screen;
  let t: TransferContext;
  const q = () => conflictScreen(s);
  const pane = 'Transfers';

  before(async function () {
    s = screenOrSkip(this);
    t = await transferContext('Sync');
  });

  after(async () => {
    t.answer = undefined;
    await t?.close();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('Sync: the preview lists what would be uploaded, downloaded, decided and left alone, and why (deleting off); Include Deletes adds the delete; an unchecked row is left out; the one action does the rest through the guard', async () => {
    const srv = t.server('sftp');
    for (const n of ['same', 'live-changed', 'local-changed', 'both', 'deleted-locally']) srv.write(`sy/${n}.txt`, `${n} v1\n`, T0);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('sftp', 'sy'));
    // Since the last transfer: changed on the server, changed here, both, deleted here, new on each side.
    srv.write('sy/live-changed.txt', 'live-changed v2 on the server\n', T0 + 60_000);
    srv.write('sy/both.txt', 'both, the server’s edit\n', T0 + 60_000);
    srv.write('sy/only-live.txt', 'only on the server\n', T0 + 60_000);
    t.writeLocal('sftp', 'sy/local-changed.txt', 'local-changed v2 here\n');
    t.writeLocal('sftp', 'sy/both.txt', 'both, my edit\n');
    t.writeLocal('sftp', 'sy/only-local.txt', 'only here\n');
    t.writeLocal('sftp', 'sy/.git/config', '[core]\n');
    fs.rmSync(t.localPath('sftp', 'sy/deleted-locally.txt'));
    const f = await t.api.transfer();
    // Room for the preview: the Sites view folded.
    await s.openSitesView();
    await s.setPaneExpanded('Sites', false);
    const planned = start('siteRevisions.sync', t.working('sftp', 'sy'));
    await s.until(() => s.texts({ selector: QUICK_ROW }), (r) => r.some((x) => x.includes('Both ways')), 'the direction asked');
    await s.click({ selector: QUICK_ROW, hasText: 'Both ways' });
    await planned;
    const rows = await s.until(() => s.rows(pane), (r) => r.some((x) => x.startsWith('Upload')) && r.some((x) => x.startsWith('local-changed.txt')), 'the preview drawn', 60_000);
    const row = (name: string) => rows.find((x) => x.startsWith(name)) ?? '';
    assert.match(row('Sync preview'), /both ways · deleting off/);
    assert.match(row('local-changed.txt'), /changed here/);
    assert.match(row('only-local.txt'), /only here/);
    assert.match(row('live-changed.txt'), /changed on the server/);
    assert.match(row('only-live.txt'), /only on the server/);
    assert.match(row('both.txt'), /changed on both sides/);
    assert.ok(rows.some((x) => x.startsWith('Left alone')), rows.join(' | '));
    const byAction = (a: string) => f.view.preview!.plan.rows.filter((r) => r.action === a).map((r) => r.path).sort();
    assert.deepEqual(byAction('upload'), ['sy/local-changed.txt', 'sy/only-local.txt']);
    assert.deepEqual(byAction('download'), ['sy/live-changed.txt', 'sy/only-live.txt']);
    assert.deepEqual(byAction('conflict'), ['sy/both.txt']);
    assert.ok(byAction('skip').includes('sy/deleted-locally.txt') && byAction('skip').includes('sy/.git'), byAction('skip').join(', '));
    assert.equal(srv.read('sy/only-local.txt'), undefined, 'nothing written by the preview');
    // Include the deletes: the file deleted here since the last transfer is deleted on the server too.
    await s.clickViewAction(pane, 'Include Deletes in the Sync');
    // The delete's group and the preview's description are drawn in two renders: wait for both.
    const withDeletes = await s.until(() => s.rows(pane), (r) => r.some((x) => x.startsWith('Delete on the server')) && r.some((x) => x.startsWith('Sync preview') && /deletes included/.test(x)), 'the delete drawn', 60_000);
    assert.match(withDeletes.find((x) => x.startsWith('Sync preview')) ?? '', /deletes included/);
    // Leave one upload out.
    await s.click({ selector: `${s.pane(pane)} .monaco-list-row:has-text("only-local.txt") .custom-view-tree-node-item-checkbox` });
    await waitFor(() => f.view.preview?.unchecked.has('sy/only-local.txt'), { message: 'the row unchecked' });
    await s.screenshot(path.join(os.tmpdir(), 'transfer-sync-preview.png')).catch(() => undefined);
    await s.clickViewAction(pane, 'Run Sync of Checked Files');
    await waitFor(() => !f.view.preview && srv.read('sy/deleted-locally.txt') === undefined, { message: 'the sync run', timeoutMs: 60_000 });
    assert.equal(srv.read('sy/local-changed.txt')?.toString(), 'local-changed v2 here\n');
    assert.equal(srv.read('sy/only-local.txt'), undefined, 'the unchecked row left alone');
    assert.equal(t.readLocal('sftp', 'sy/live-changed.txt')?.toString(), 'live-changed v2 on the server\n');
    assert.equal(t.readLocal('sftp', 'sy/only-live.txt')?.toString(), 'only on the server\n');
    assert.equal(srv.read('sy/both.txt')?.toString(), 'both, the server’s edit\n', 'the conflict is not written');
    assert.equal(t.readLocal('sftp', 'sy/both.txt')?.toString(), 'both, my edit\n');
    assert.equal(srv.read('sy/same.txt')?.toString(), 'same v1\n');
    assert.equal(srv.read('sy/.git/config'), undefined, '.git is never synced');
    const kept = (await (await f.sites.copies()).list(t.sites.sftp.id)).find((c) => c.path === 'sy/deleted-locally.txt');
    assert.equal(kept?.why, 'sync-delete', 'the deleted live file is kept');
    // The conflict is set aside, with Resolve…
    const after = await s.until(() => s.rows(pane), (r) => r.some((x) => x.startsWith('Conflicts to resolve')) && r.some((x) => x.startsWith('both.txt')), 'the conflict listed', 30_000);
    assert.ok(after.some((x) => x.startsWith('both.txt') && x.includes('changed on both sides')), after.join(' | '));
    const resolved = start('siteRevisions.resolveConflict');
    await q().drawn('both.txt');
    await q().click('Take Theirs');
    await resolved;
    assert.equal(t.readLocal('sftp', 'sy/both.txt')?.toString(), 'both, the server’s edit\n');
    assert.equal(f.view.pending.length, 0);
    await s.setPaneExpanded('Sites', true);
  });

  /** Edits a working file in its editor and saves it. */
  const saveEdit = async (uri: vscode.Uri, text: string): Promise<void> => {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
    await vscode.workspace.applyEdit(edit);
    assert.ok(await doc.save(), 'saved');
  };
  const setFlag = async (k: 'sftp' | 'slow' | 'dav', value: string) => {
    await control(t.url, 'site-fields', { siteId: t.sites[k].id, fields: { upload_on_save: value } });
    t.api.model.refresh();
    await waitFor(async () => (await t.api.model.all()).find((x) => x.id === t.sites[k].id)?.upload_on_save === value, { message: `upload_on_save=${value} listed` });
  };
  const statusBar = () => s.texts({ selector: '.part.statusbar .statusbar-item' });

  it('upload on save follows the site’s flag: on (as the service lists it) it asks the first time, then uploads through the guard and says so in the status bar; several saves in a burst are one upload; off, a save stays local', async () => {
    const srv = t.server('sftp');
    const f = await t.api.transfer();
    srv.write('os/a.txt', 'a v1\n', T0);
    srv.write('os/off.txt', 'off v1\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('sftp', 'os'));
    // Off ('0', as the service's default): the save stays here.
    await setFlag('sftp', '0');
    await saveEdit(t.working('sftp', 'os/off.txt'), 'off v2, saved here only\n');
    // On ('1'): the first save asks.
    await setFlag('sftp', '1');
    t.answer = (m) => (m.items.includes('Upload on Save') ? 'Upload on Save' : undefined);
    await saveEdit(t.working('sftp', 'os/a.txt'), 'a v2, saved and uploaded\n');
    await waitFor(() => srv.read('os/a.txt')?.toString() === 'a v2, saved and uploaded\n', { message: 'uploaded on save', timeoutMs: 60_000 });
    assert.ok(t.shown.some((m) => m.items.includes('Upload on Save') && m.message.includes('Sync SFTP')), 'asked the first time');
    await s.until(statusBar, (x) => x.some((i) => i.includes('Uploaded a.txt')), 'the status bar says it');
    assert.equal(srv.read('os/off.txt')?.toString(), 'off v1\n', 'the save made while the flag was off stayed local');
    // A burst of saves: one upload, of the last one.
    const asked = t.shown.filter((m) => m.items.includes('Upload on Save')).length;
    const before = f.uploadOnSave.finished.filter((x) => x.path === 'os/a.txt').length;
    for (const v of ['a v3\n', 'a v4\n', 'a v5, the last of the burst\n']) await saveEdit(t.working('sftp', 'os/a.txt'), v);
    await waitFor(() => srv.read('os/a.txt')?.toString() === 'a v5, the last of the burst\n', { message: 'the burst uploaded', timeoutMs: 60_000 });
    await waitFor(() => f.uploadOnSave.items().length === 0, { message: 'the queue empty' });
    assert.equal(f.uploadOnSave.finished.filter((x) => x.path === 'os/a.txt').length - before, 1, 'one upload for the burst');
    assert.equal(t.shown.filter((m) => m.items.includes('Upload on Save')).length, asked, 'asked only once');
    // The copy of what each upload replaced is kept.
    const kept = (await (await f.sites.copies()).list(t.sites.sftp.id)).filter((c) => c.path === 'os/a.txt');
    assert.ok(kept.some((c) => c.why === 'upload'), 'what the upload replaced is kept');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('upload on save of a site whose flag the service did not keep (an import kept it here) uploads too; a live file changed since its download is not overwritten: the save stays local and the conflict is set aside with the choice', async () => {
    const srv = t.server('dav');
    const f = await t.api.transfer();
    srv.write('ov/b.html', '<p>b1</p>\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('dav', 'ov/b.html'));
    await setFlag('dav', '0');
    const key = `${t.api.session.account!.serviceUrl}|${t.api.session.account!.email.toLowerCase()}#${t.sites.dav.id}`;
    await t.api.context.globalState.update('siteRevisions.uploadOnSave', { [key]: '1' });
    t.answer = (m) => (m.items.includes('Upload on Save') ? 'Upload on Save' : undefined);
    await saveEdit(t.working('dav', 'ov/b.html'), '<p>b2</p>\n');
    await waitFor(() => srv.read('ov/b.html')?.toString() === '<p>b2</p>\n', { message: 'uploaded on save (kept from the import)', timeoutMs: 60_000 });
    // Someone changes it on the server; a save here must not overwrite it.
    srv.write('ov/b.html', '<p>theirs</p>\n', T0 + 120_000);
    await saveEdit(t.working('dav', 'ov/b.html'), '<p>b3</p>\n');
    await waitFor(() => f.uploadOnSave.items().some((x) => x.item.state === 'conflict'), { message: 'the conflict', timeoutMs: 60_000 });
    assert.equal(srv.read('ov/b.html')?.toString(), '<p>theirs</p>\n', 'not overwritten');
    assert.equal(t.readLocal('dav', 'ov/b.html')?.toString(), '<p>b3</p>\n', 'the save stays local');
    await s.until(statusBar, (x) => x.some((i) => i.includes('Conflict: b.html')), 'the status bar says it');
    assert.ok(f.view.pending.some((p) => p.conflict.path === 'ov/b.html' && p.from === 'queue'), 'set aside in Transfers');
    const resolved = start('siteRevisions.resolveConflict');
    await q().drawn('b.html');
    await q().click('Overwrite');
    await resolved;
    assert.equal(srv.read('ov/b.html')?.toString(), '<p>b3</p>\n');
    await waitFor(() => f.uploadOnSave.items().length === 0, { message: 'the queue empty' });
    await t.api.context.globalState.update('siteRevisions.uploadOnSave', undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('while the server cannot be reached, saves wait in the queue (the status bar says how many, its list shows them) and go once it can be reached again', async () => {
    const srv = t.server('sftp');
    const f = await t.api.transfer();
    await control(t.url, 'site-fields', { siteId: t.sites.slow.id, fields: { upload_on_save: '1', timeout: '2' } });
    t.api.model.refresh();
    await waitFor(async () => (await t.api.model.all()).find((x) => x.id === t.sites.slow.id)?.timeout === '2', { message: 'the slow site listed anew' });
    srv.write('off/c.txt', 'c1\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', t.working('slow', 'off/c.txt'));
    t.answer = (m) => (m.items.includes('Upload on Save') ? 'Upload on Save' : undefined);
    t.proxy.stall(true);
    try {
      await saveEdit(t.working('slow', 'off/c.txt'), 'c2, saved offline\n');
      await waitFor(() => f.uploadOnSave.items().some((x) => x.item.state === 'offline'), { message: 'waiting for the server', timeoutMs: 60_000 });
      await s.until(statusBar, (x) => x.some((i) => i.includes('1 save waiting to upload')), 'the status bar says it');
      // Its list shows the queue.
      const shown = start('siteRevisions.uploadQueue');
      const listed = await s.until(() => s.texts({ selector: QUICK_ROW }), (r) => r.some((x) => x.includes('off/c.txt')), 'the queue listed');
      assert.ok(listed.some((x) => x.includes('off/c.txt') && x.includes('waiting for the server')), listed.join(' | '));
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await shown;
      assert.equal(srv.read('off/c.txt')?.toString(), 'c1\n');
    } finally {
      t.proxy.stall(false);
      t.proxy.cutAll();
    }
    await waitFor(() => srv.read('off/c.txt')?.toString() === 'c2, saved offline\n', { message: 'uploaded once the server answers', timeoutMs: 120_000 });
    await waitFor(() => f.uploadOnSave.items().length === 0, { message: 'the queue empty' });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

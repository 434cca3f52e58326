// Hardening: nothing the user typed or has on disk is lost — a save that times out keeps the
// form (and saving again does not create the site twice), a restore into a document with unsaved
// edits is undone back to exactly those edits, and deleting a site mapped to a local folder
// leaves the folder's files (and unsaved editors) alone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { FileNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import { control, isDisposed, signInDemo, stubWindow } from './support';
import { ext, testService, waitFor, workspaceFolder } from './util';


/** Every file under `dir` (relative path → content), to compare before and after. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return out;
}

/** Reverts every file editor with unsaved changes (so that closing editors asks nothing). */
async function revertAll(): Promise<void> {
  for (const d of vscode.workspace.textDocuments.filter((x) => x.isDirty && x.uri.scheme === 'file')) {
    await vscode.window.showTextDocument(d);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  }
}

describe('Hardening: nothing lost', function () {
  this.timeout(90000);
  let api: ExtensionApi;
  let url: string;
  const cfg = () => vscode.workspace.getConfiguration('siteRevisions');
  /** The session rebuilds its client in the configuration event, which has fired once the new value reads back. */
  const timeoutSettingApplied = () => waitFor(() => cfg().get('requestTimeoutSeconds') === 1, { message: 'the 1 s time-out is in effect' });
  const dirs: string[] = [];
  const created: string[] = [];
  let mappingsBefore: unknown;
  let autoSaveBefore: unknown;

  const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
  const isFile = (n: TreeNode): n is FileNode => kind(n) === 'revisionFile';
  const isRevision = (n: TreeNode): n is RevisionNode => /^revision(\.|$)/.test(kind(n));
  const siteNode = async (name: string) => {
    const n = ((await api.tree.getChildren()) as SiteNode[]).find((s) => s.site.name === name);
    assert.ok(n, `site ${name} listed`);
    return n;
  };
  const freshSites = () => api.session.call((c) => c.getSites());
  /** The site editor just opened, once its webview has loaded (said "ready" and got its init). */
  const loadedEditor = async () => {
    const ed = api.editors.last!;
    const loaded = await waitFor(() => ed.posted.some((m) => m.type === 'init'), { timeoutMs: 8000 }).catch(() => false);
    if (!loaded) await ed.simulate({ type: 'ready' }); // no webview in this host: as if it had loaded
    return ed;
  };
  const stats = () => control(url, 'stats');
  const tempDir = (name: string) => {
    const dir = path.join(workspaceFolder().uri.fsPath, name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    dirs.push(dir);
    return dir;
  };

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    mappingsBefore = api.context.workspaceState.get('siteRevisions.folderMappings');
    // VS Code for the Web (code-server) saves after a delay by default: "unsaved" must stay unsaved.
    autoSaveBefore = vscode.workspace.getConfiguration('files').inspect('autoSave')?.globalValue;
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
    await control(url, 'reseed');
    await signInDemo(url);
    api.model.refresh();
  });

  afterEach(async () => {
    // A site editor a failed test left open.
    if (api.editors.last && !isDisposed(api.editors.last.panel)) api.editors.last.panel.dispose();
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
    if (cfg().inspect('requestTimeoutSeconds')?.globalValue !== undefined) await cfg().update('requestTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await revertAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.context.workspaceState.update('siteRevisions.folderMappings', mappingsBefore);
    await vscode.workspace.getConfiguration('files').update('autoSave', autoSaveBefore, vscode.ConfigurationTarget.Global);
    // The sites this suite made (also one a failed test left behind).
    const ours = new Set([...created, ...(await freshSites().catch(() => [])).filter((s) => ['Timed-out create', 'Mapped then deleted'].includes(s.name)).map((s) => s.id)]);
    for (const id of ours) await api.session.call((c) => c.deleteSite(id)).catch(() => undefined);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    if (api.session.state !== 'signedIn' || api.session.account?.email !== 'demo@example.com') await signInDemo(url);
    api.model.refresh();
  });

  it('a create that times out keeps the form and says so; saving again saves once, not a second site', async () => {
    const name = 'Timed-out create';
    await cfg().update('requestTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    await timeoutSettingApplied();
    await api.model.all(); // the list the editor was opened from
    await vscode.commands.executeCommand('siteRevisions.createSite');
    const ed = await loadedEditor();
    let settled = false;
    ed.done.then(
      () => (settled = true),
      () => (settled = true),
    );
    const values = { ...ed.initialState.values, name, server_type: 'FTP', domain: 'slow.example', port: '21', ftp_user: 'slow', ftp_pass: 'Slow-Typed-Pa55', dir: '/www' };
    const edited = { ftp_pass: true, db_password: false };
    const before = await stats();
    const inits = ed.posted.filter((m) => m.type === 'init').length;
    await control(url, 'config', { latencyMs: 2000 });
    await ed.simulate({ type: 'save', values, passwordEdited: edited });
    // Given up at the 1 s time-out: the service (2 s of latency) has not answered yet.
    assert.ok((await stats()).inFlight >= 1, 'the save was given up before the service answered');

    // The form is still there, with the error, not reset.
    assert.equal(ed.lastPosted?.type, 'saveFailed', JSON.stringify(ed.lastPosted));
    const message = (ed.lastPosted as { message: string }).message;
    assert.match(message, /no answer from the service within 1 s/);
    assert.match(message, /may have been created/i, `the user is told the outcome is unknown: ${message}`);
    assert.ok(!isDisposed(ed.panel), 'the panel stays open');
    assert.equal(ed.posted.filter((m) => m.type === 'init').length, inits, 'no re-init');
    assert.equal(settled, false, 'the editor is not done');

    // The service carries the write out anyway, once its reply (too late) is sent.
    await waitFor(async () => (await stats()).counts.saveSite - before.counts.saveSite === 1, { timeoutMs: 5000, message: 'the service handled the save' });
    // Latency back to normal.
    await control(url, 'config', { latencyMs: 0 });
    assert.equal((await freshSites()).filter((s) => s.name === name).length, 1, 'the timed-out create did create the site');

    // The user clicks Save again with the same values.
    await ed.simulate({ type: 'save', values, passwordEdited: edited });
    const saved = await ed.done;
    assert.ok(saved?.siteId, `saved: ${JSON.stringify(ed.lastPosted)}`);
    created.push(saved.siteId);
    const after = await stats();
    assert.equal(after.counts.saveSite - before.counts.saveSite, 2, 'one Save Site per click: writes are never retried');
    const same = (await freshSites()).filter((s) => s.name === name);
    assert.equal(same.length, 1, `one site, not two: ${JSON.stringify(same.map((s) => s.id))}`);
    assert.equal(same[0]!.id, saved.siteId);
    assert.equal(same[0]!.domain, 'slow.example');
    assert.equal(same[0]!.ftp_pass, 'Slow-Typed-Pa55');
    assert.ok(isDisposed(ed.panel), 'the editor closes once saved');
  });

  it('an edit that times out keeps the form; saving again applies it (once per click)', async () => {
    const target = await siteNode('Acme Corporate');
    await cfg().update('requestTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    await timeoutSettingApplied();
    await vscode.commands.executeCommand('siteRevisions.editSite', target);
    const ed = await loadedEditor();
    const values = { ...ed.initialState.values, name: 'Acme Corporate (slow edit)' };
    const before = await stats();
    const inits = ed.posted.filter((m) => m.type === 'init').length;
    try {
      await control(url, 'config', { latencyMs: 2000 });
      await ed.simulate({ type: 'save', values, passwordEdited: { ftp_pass: false, db_password: false } });
      assert.equal(ed.lastPosted?.type, 'saveFailed', JSON.stringify(ed.lastPosted));
      const message = (ed.lastPosted as { message: string }).message;
      assert.match(message, /within 1 s/);
      assert.match(message, /may have been saved anyway; saving again is safe/, message);
      assert.ok(!isDisposed(ed.panel));
      assert.equal(ed.posted.filter((m) => m.type === 'init').length, inits, 'no re-init');
      await control(url, 'config', { latencyMs: 0 });
      // The late write lands first.
      await waitFor(async () => (await stats()).counts.saveSite - before.counts.saveSite === 1, { timeoutMs: 10000, message: 'the late write landed' });
      await ed.simulate({ type: 'save', values, passwordEdited: { ftp_pass: false, db_password: false } });
      assert.ok(await ed.done);
      assert.equal((await stats()).counts.saveSite - before.counts.saveSite, 2, 'one Save Site per click');
      const site = (await freshSites()).find((s) => s.id === target.site.id)!;
      assert.equal(site.name, 'Acme Corporate (slow edit)');
      assert.equal(site.ftp_pass, target.site.ftp_pass, 'the stored password is unchanged');
    } finally {
      // Put the name back for the tests and suites after this one, once the late write has landed.
      await control(url, 'config', { latencyMs: 0 });
      await waitFor(async () => (await stats()).requests.some((r) => r.operation === 'saveSite' && r.ms >= 1900 && r.bodyFields.includes('site')), { timeoutMs: 5000 }).catch(() => undefined);
      await api.session.call((c) => c.updateSite(target.site.id, { name: 'Acme Corporate' }));
      api.model.refresh();
    }
  });

  it('a restore into a document with unsaved edits is undone back to exactly the unsaved text', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const dir = tempDir('nothing-lost-acme');
    const acme = await siteNode('Acme Corporate');
    await vscode.commands.executeCommand('siteRevisions.mapFolder', acme.site.id, vscode.Uri.file(dir));
    const working = vscode.Uri.file(path.join(dir, 'index.php'));
    const onDisk = '<?php\r\necho "on disk, CRLF";\r\n';
    fs.writeFileSync(working.fsPath, onDisk);
    const doc = await vscode.workspace.openTextDocument(working);
    const editor = await vscode.window.showTextDocument(doc);
    assert.equal(doc.eol, vscode.EndOfLine.CRLF);
    // Two separate unsaved edits (two undo stops), one of them with trailing spaces and a tab.
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), '// first unsaved edit  \r\n'));
    await editor.edit((e) => e.insert(doc.lineAt(doc.lineCount - 1).range.end, '\t// second unsaved edit'));
    const unsaved = doc.getText();
    assert.ok(doc.isDirty);

    const file = (await api.tree.getChildren(acme)).find((n): n is FileNode => isFile(n) && n.path === 'index.php')!;
    const rev = (await api.tree.getChildren(file)).filter(isRevision).at(-1)!;
    const content = new TextDecoder().decode(await api.revisions.store.content(rev.ref.site.id, rev.ref.item.id));
    const restore = stubWindow('showWarningMessage', (async () => 'Restore') as never);
    const restoreInfo = stubWindow('showInformationMessage', (async () => undefined) as never);
    try {
      const out = (await vscode.commands.executeCommand('siteRevisions.restoreRevision', rev)) as Outcome;
      assert.ok(out.done, JSON.stringify(out));
    } finally {
      restore();
      restoreInfo();
    }
    assert.equal(doc.getText().replace(/\r\n/g, '\n'), content.replace(/\r\n/g, '\n'), 'the revision is in the editor');
    assert.ok(doc.isDirty, 'not saved');
    assert.equal(fs.readFileSync(working.fsPath, 'utf8'), onDisk, 'the disk is untouched');

    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === unsaved, { message: 'one Undo brings back the unsaved text' });
    assert.equal(doc.getText(), unsaved, 'exactly, byte for byte');
    assert.ok(doc.isDirty);
    // Redo and undo again: still exact.
    await vscode.commands.executeCommand('redo');
    await waitFor(() => doc.getText() !== unsaved);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === unsaved);
    // One more Undo takes back the user's own second edit (the restore was one step).
    await vscode.commands.executeCommand('undo');
    await waitFor(() => !doc.getText().includes('second unsaved edit'));
    assert.ok(doc.getText().includes('first unsaved edit'));
    assert.equal(fs.readFileSync(working.fsPath, 'utf8'), onDisk, 'nothing was saved behind the user’s back');
    await revertAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('restore decides between create and replace after the confirmation: a file that appears meanwhile is replaced (asked again), never prepended to', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const dir = tempDir('nothing-lost-appears');
    const acme = await siteNode('Acme Corporate');
    await vscode.commands.executeCommand('siteRevisions.mapFolder', acme.site.id, vscode.Uri.file(dir));
    const working = path.join(dir, 'index.php');
    assert.ok(!fs.existsSync(working), 'no working file when the restore starts');
    const file = (await api.tree.getChildren(acme)).find((n): n is FileNode => isFile(n) && n.path === 'index.php')!;
    const rev = (await api.tree.getChildren(file)).filter(isRevision).at(-1)!;
    const content = new TextDecoder().decode(await api.revisions.store.content(rev.ref.site.id, rev.ref.item.id));
    const asked: string[] = [];
    const restore = stubWindow('showWarningMessage', (async (_m: string, options: vscode.MessageOptions) => {
      asked.push(options?.detail ?? '');
      // While the first confirmation is on screen, something else writes the file.
      if (asked.length === 1) fs.writeFileSync(working, 'appeared meanwhile\n');
      return 'Restore';
    }) as never);
    const restoreInfo = stubWindow('showInformationMessage', (async () => undefined) as never);
    try {
      const out = (await vscode.commands.executeCommand('siteRevisions.restoreRevision', rev)) as Outcome;
      assert.ok(out.done, JSON.stringify(out));
    } finally {
      restore();
      restoreInfo();
    }
    assert.equal(asked.length, 2, `asked again once the file existed: ${JSON.stringify(asked)}`);
    assert.match(asked[0]!, /does not exist: it will be created/);
    assert.match(asked[1]!, /will get the content of revision/);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === vscode.Uri.file(working).fsPath)!;
    assert.equal(doc.getText(), content, 'the revision replaced the file; nothing of it is left in front or behind');
    assert.equal(fs.readFileSync(working, 'utf8'), 'appeared meanwhile\n', 'the disk is untouched until the user saves');
    await revertAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('deleting a site mapped to a local folder leaves the files and unsaved editors alone, and forgets the mapping', async () => {
    const dir = tempDir('nothing-lost-deleted');
    fs.mkdirSync(path.join(dir, 'sub', 'deeper'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), '<h1>keep me</h1>\n');
    fs.writeFileSync(path.join(dir, 'sub', 'app.php'), '<?php echo "keep";\n');
    fs.writeFileSync(path.join(dir, 'sub', 'deeper', 'data.bin'), Buffer.from([0, 1, 2, 255, 254]));
    const before = snapshot(dir);

    const { siteId } = await api.session.call((c) => c.createSite({ name: 'Mapped then deleted', server_type: 'FTP', domain: 'mapped.example' }));
    created.push(siteId);
    api.model.refresh();
    const node = await siteNode('Mapped then deleted');
    await vscode.commands.executeCommand('siteRevisions.mapFolder', siteId, vscode.Uri.file(dir));
    assert.equal(api.revisions.folders.get(siteId)?.fsPath, vscode.Uri.file(dir).fsPath);
    const acmeId = (await siteNode('Acme Corporate')).site.id;
    const acmeMapping = api.revisions.folders.get(acmeId)?.toString();

    // An editor with unsaved edits on a file of that folder.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(dir, 'sub', 'app.php')));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), '// unsaved\n'));
    const unsaved = doc.getText();

    const asked: { message: string; detail?: string }[] = [];
    const restore = stubWindow('showWarningMessage', (async (message: string, options: vscode.MessageOptions) => {
      asked.push({ message, detail: options?.detail });
      return 'Delete';
    }) as never);
    try {
      assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', node), true);
    } finally {
      restore();
    }
    assert.match(asked[0]!.detail ?? '', /Files on your computer are not touched/);
    assert.ok(!(await freshSites()).some((s) => s.id === siteId), 'deleted on the service');

    // Files: all there, same bytes. The unsaved editor: same text, still unsaved.
    assert.deepEqual(snapshot(dir), before);
    assert.equal(doc.getText(), unsaved);
    assert.ok(doc.isDirty);
    assert.ok(!doc.isClosed);

    // The mapping of the deleted site is forgotten (a later site given the same id on the service
    // must not inherit the folder); other mappings stay.
    await waitFor(() => api.revisions.folders.get(siteId) === undefined, { timeoutMs: 3000, message: 'the mapping of the deleted site is forgotten' });
    const stored = (api.context.workspaceState.get<Record<string, string>>('siteRevisions.folderMappings') ?? {}) as Record<string, string>;
    assert.ok(!Object.keys(stored).some((k) => k.endsWith(`#${siteId}`)), JSON.stringify(stored));
    assert.equal(api.revisions.folders.get(acmeId)?.toString(), acmeMapping, 'other mappings are kept');

    await revertAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.deepEqual(snapshot(dir), before);
  });
});

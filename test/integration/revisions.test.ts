// The revisions feature in the real extension host against the local service: files as folders
// under a site, revisions newest first, revision documents, the folder map, every command, and
// the refusal of hostile paths.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { RevisionSummary } from '../../src/core/api/types';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { FileNode, FolderNode, LoadMoreNode, MappingNode, MessageNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import { formatShortLocal } from '../../src/core/model/time';
import { DEMO } from '../server/demo';
import { control, signInDemo, stubWindow } from './support';
import { ext, nextEvent, testService, waitFor, workspaceFolder } from './util';

const ACME = 'Acme Corporate';

// The whole journey runs twice: against the local service as the real one answers (every reply
// with `success`), and answering the reads exactly as the spec shows them (no `success`).
for (const specShaped of [false, true])
describe(specShaped ? 'Revisions (reads shaped as the spec shows them, no success)' : 'Revisions', function () {
  this.timeout(90000);
  let api: ExtensionApi;
  let url: string;
  let ws: vscode.Uri;
  let acmeDir: vscode.Uri;

  const counts = async () => (await control(url, 'stats')).counts;
  const resetStats = () => control(url, 'reset-stats');
  const site = async (name = ACME) => {
    const nodes = (await api.tree.getChildren()) as SiteNode[];
    const n = nodes.find((s) => s.site.name === name);
    assert.ok(n, `site ${name} listed`);
    return n;
  };
  const children = async (n: TreeNode) => n.getChildren();
  // The extension runs from the bundle: its classes are not the ones this file imports, so
  // nodes are told apart by their context value.
  const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
  const isFolder = (n: TreeNode): n is FolderNode => kind(n) === 'revisionFolder';
  const isFile = (n: TreeNode): n is FileNode => kind(n) === 'revisionFile';
  const isRevision = (n: TreeNode): n is RevisionNode => /^revision(\.|$)/.test(kind(n));
  const isMore = (n: TreeNode): n is LoadMoreNode => kind(n) === 'revisionLoadMore';
  const isMapping = (n: TreeNode): n is MappingNode => kind(n).startsWith('revisionMapping');
  const isMessage = (n: TreeNode): n is MessageNode => kind(n) === 'revisionMessage' || kind(n) === 'revisionError';
  const label = (n: TreeNode) => {
    const item = n.getTreeItem() as vscode.TreeItem;
    return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
  };
  /** Walks the folders of a site to a file node. */
  const fileNode = async (path: string, name = ACME): Promise<FileNode> => {
    let nodes = await children(await site(name));
    const segs = path.split('/');
    for (let i = 0; i < segs.length - 1; i++) {
      const folder = nodes.find((n): n is FolderNode => isFolder(n) && n.folder.name === segs[i]);
      assert.ok(folder, `folder ${segs[i]} of ${path}`);
      nodes = await children(folder);
    }
    const file = nodes.find((n): n is FileNode => isFile(n) && n.file.path === path);
    assert.ok(file, `file ${path}`);
    return file;
  };
  const revisions = async (file: FileNode) => (await children(file)).filter((n): n is RevisionNode => isRevision(n));
  const activeDiff = () => {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return input instanceof vscode.TabInputTextDiff ? input : undefined;
  };
  const revUri = (n: RevisionNode) => api.revisions.revisionDocumentUri(n.ref);
  const contentOf = async (n: RevisionNode) => new TextDecoder().decode(await api.revisions.store.content(n.ref.site.id, n.ref.item.id));
  /** Makes an item of a QuickPick the active one, waiting until the workbench has it. */
  const activate = async (qp: vscode.QuickPick<vscode.QuickPickItem>, item: vscode.QuickPickItem) => {
    const echoed = nextEvent(qp.onDidChangeActive, (items) => items[0] === item, 3000).catch(() => undefined);
    qp.activeItems = [item];
    await echoed;
  };
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'reseed');
    await control(url, 'config', { specShaped });
    await signInDemo(url);
    api.model.refresh();
    ws = workspaceFolder().uri;
    acmeDir = vscode.Uri.joinPath(ws, 'acme-site');
    fs.rmSync(acmeDir.fsPath, { recursive: true, force: true });
    fs.mkdirSync(acmeDir.fsPath, { recursive: true });
    // Each test can run alone (--grep): the site is mapped here; the mapping test maps it again.
    await vscode.commands.executeCommand('siteRevisions.mapFolder', (await site()).site.id, acmeDir);
  });

  afterEach(async () => {
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
  });

  after(async () => {
    await control(url, 'config', { specShaped: false });
    await closeAll();
    fs.rmSync(acmeDir.fsPath, { recursive: true, force: true });
  });

  it(specShaped ? 'the service answers the reads without success' : 'the service answers every read with success', async () => {
    const res = await fetch(`${url}/api/sites`, { method: 'POST', body: new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password }) });
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal('success' in body, !specShaped, JSON.stringify(Object.keys(body)));
    assert.ok(Array.isArray(body.sites));
  });

  it('shows the files of a site as folders (folders first, natural order); identical concurrent expansions make one request', async () => {
    api.model.refresh();
    const acme = await site();
    await resetStats();
    await control(url, 'config', { latencyMs: 150 });
    const [a, b, c] = await Promise.all([children(acme), children(acme), children(acme)]);
    assert.equal((await counts()).getRevisionFiles, 1, 'one Get Revision Files for three expansions');
    assert.deepEqual(a.map(label), b.map(label));
    assert.deepEqual(b.map(label), c.map(label));
    assert.ok(isMapping(a[0]!), 'the local folder comes first');
    const rest = a.slice(1);
    const folders = rest.filter((n) => isFolder(n)).map(label);
    const files = rest.filter((n) => isFile(n)).map(label);
    assert.deepEqual(folders, ['admin', 'blog', 'config', 'css', 'includes', 'js', 'templates']);
    assert.deepEqual(files, ['index.php', 'README.md']);
    assert.ok(rest.findIndex((n) => isFile(n)) > rest.length - 1 - [...rest].reverse().findIndex((n) => isFolder(n)), "folders before files");
    // Cached until the Sites view is refreshed.
    await children(await site());
    assert.equal((await counts()).getRevisionFiles, 1);
    const deep = await fileNode('admin/pages/users/list.php');
    assert.equal(label(deep), 'list.php');
    assert.equal((await counts()).getRevisionFiles, 1);
    await vscode.commands.executeCommand('siteRevisions.refresh');
    await children(await site());
    assert.equal((await counts()).getRevisionFiles, 2, 'refresh drops the cache');
  });

  it('the flat layout lists display paths', async () => {
    const cfg = vscode.workspace.getConfiguration('siteRevisions');
    await cfg.update('revisions.layout', 'flat', vscode.ConfigurationTarget.Global);
    try {
      const nodes = (await children(await site())).filter((n) => isFile(n));
      assert.deepEqual(nodes.map(label), ['admin/pages/users/list.php', 'blog/posts/2026/hello.md', 'config/settings.json', 'css/site.css', 'includes/db.php', 'index.php', 'js/app.js', 'README.md', 'templates/base.html']);
    } finally {
      await cfg.update('revisions.layout', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('lists a file’s revisions newest first: relative time, author, exact date in an escaped tooltip; no content requested', async () => {
    await resetStats();
    const revs = await revisions(await fileNode('index.php'));
    assert.ok(revs.length >= 3, `${revs.length} revisions`);
    const times = revs.map((r) => r.ref.time!);
    assert.deepEqual(times, [...times].sort((x, y) => y - x), 'newest first');
    for (const r of revs) {
      const item = r.getTreeItem();
      assert.match(String(item.label), /ago$|^just now$/);
      assert.equal(item.description, r.ref.item.author);
      const tip = item.tooltip as vscode.MarkdownString;
      assert.equal(tip.isTrusted, false);
      assert.match(tip.value, /UTC/);
      assert.match(String(item.contextValue), /^revision/);
    }
    assert.ok(!revs[revs.length - 1]!.hasPrevious && revs[0]!.hasPrevious);
    const reqs = (await control(url, 'stats')).requests.filter((r) => r.operation === 'getRevisions');
    assert.equal(reqs.length, 1);
    assert.match(reqs[0]!.url, /no_content=1/);
    assert.equal((await counts()).getRevision ?? 0, 0, 'listing fetched no content');
  });

  it('opens a revision read-only with the file’s language; a repeated open makes no second request, concurrent opens merge', async () => {
    await closeAll();
    api.revisions.cache.clear();
    // Not from the disk cache either (an earlier run of this journey stored it).
    await (await api.cache.current())?.clear();
    const rev = (await revisions(await fileNode('includes/db.php')))[1]!;
    await resetStats();
    await control(url, 'config', { latencyMs: 150 });
    const [o1, o2] = (await Promise.all([
      vscode.commands.executeCommand('siteRevisions.openRevision', rev),
      vscode.commands.executeCommand('siteRevisions.openRevision', rev),
    ])) as Outcome[];
    assert.ok(o1!.done && o2!.done);
    assert.equal((await counts()).getRevision, 1, 'concurrent opens: one Get Revision');
    const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.scheme === 'site-revision' ? vscode.window.activeTextEditor : undefined));
    assert.equal(editor.document.uri.toString(), revUri(rev).toString());
    assert.match(editor.document.uri.path, /\/includes\/db\.php$/);
    assert.equal(editor.document.languageId, 'php');
    assert.equal(editor.document.getText(), await contentOf(rev));
    await closeAll();
    await vscode.commands.executeCommand('siteRevisions.openRevision', rev);
    await vscode.workspace.openTextDocument(revUri(rev));
    assert.equal((await counts()).getRevision, 1, 'a repeated open: still one Get Revision');
    assert.equal(vscode.workspace.fs.isWritableFileSystem('site-revision'), false, 'read-only file system');
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(revUri(rev), new Uint8Array([1]))));
  });

  it('maps a site to a local folder, remembered in the workspace', async () => {
    const acme = await site();
    const out = (await vscode.commands.executeCommand('siteRevisions.mapFolder', acme.site.id, acmeDir)) as Outcome;
    assert.ok(out.done);
    assert.equal(api.revisions.folders.get(acme.site.id)?.toString(), acmeDir.toString());
    const stored = JSON.stringify(api.context.workspaceState.get('siteRevisions.folderMappings'));
    assert.ok(stored.includes(acmeDir.toString()));
    const mapping = (await children(await site()))[0] as MappingNode;
    assert.equal(mapping.folder?.toString(), acmeDir.toString());
    assert.equal(mapping.getTreeItem().command?.command, 'siteRevisions.mapFolder');
  });

  it('compares with the working file (also the default click when it exists): revision ↔ working file', async () => {
    await closeAll();
    const working = vscode.Uri.joinPath(acmeDir, 'index.php');
    fs.writeFileSync(working.fsPath, '<?php\necho "working copy";\n');
    let revs = await revisions(await fileNode('index.php'));
    assert.equal(revs[0]!.getTreeItem().command?.command, 'siteRevisions.compareWithWorking', 'the click compares when the working file exists');
    const rev = revs[1]!;
    const out = (await vscode.commands.executeCommand('siteRevisions.compareWithWorking', rev)) as Outcome;
    assert.ok(out.done, JSON.stringify(out));
    const diff = await waitFor(activeDiff);
    assert.equal(diff.original.toString(), revUri(rev).toString());
    assert.equal(diff.modified.toString(), working.toString());
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab!;
    assert.equal(tab.label, `index.php (${formatShortLocal(rev.ref.time!)}, ${rev.ref.item.author}) ↔ working file`);
    // Without a working file the click opens the revision.
    revs = await revisions(await fileNode('css/site.css'));
    assert.equal(revs[0]!.getTreeItem().command?.command, 'siteRevisions.openRevision');
  });

  it('compares with the previous revision: older on the left, both labelled', async () => {
    await closeAll();
    const revs = await revisions(await fileNode('index.php'));
    const out = (await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', revs[0])) as Outcome;
    assert.ok(out.done);
    const diff = await waitFor(activeDiff);
    assert.equal(diff.original.toString(), revUri(revs[1]!).toString());
    assert.equal(diff.modified.toString(), revUri(revs[0]!).toString());
    const l = (n: RevisionNode) => `${formatShortLocal(n.ref.time!)}, ${n.ref.item.author}`;
    assert.equal(vscode.window.tabGroups.activeTabGroup.activeTab!.label, `index.php (${l(revs[1]!)}) ↔ (${l(revs[0]!)})`);
    const oldest = (await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', revs[revs.length - 1])) as Outcome;
    assert.deepEqual(oldest.done ? 'done' : oldest.reason, 'none', 'the oldest has no previous revision');
  });

  it('select for compare, compare with selected, and compare two selected revisions', async () => {
    await closeAll();
    const revs = await revisions(await fileNode('index.php'));
    await vscode.commands.executeCommand('siteRevisions.selectForCompare', revs[2]);
    assert.ok(api.revisions.controller.isSelectedForCompare(revs[2]!.ref));
    let out = (await vscode.commands.executeCommand('siteRevisions.compareWithSelected', revs[0])) as Outcome;
    assert.ok(out.done);
    let diff = await waitFor(activeDiff);
    assert.equal(diff.original.toString(), revUri(revs[2]!).toString(), 'the older one on the left');
    assert.equal(diff.modified.toString(), revUri(revs[0]!).toString());
    await closeAll();
    out = (await vscode.commands.executeCommand('siteRevisions.compareSelectedRevisions', revs[0], [revs[0], revs[3] ?? revs[1]])) as Outcome;
    assert.ok(out.done);
    diff = await waitFor(activeDiff);
    assert.equal(diff.original.toString(), revUri((revs[3] ?? revs[1])!).toString());
    assert.equal(diff.modified.toString(), revUri(revs[0]!).toString());
    out = (await vscode.commands.executeCommand('siteRevisions.compareSelectedRevisions', revs[0], [revs[0]])) as Outcome;
    assert.equal(out.done, false, 'one selected revision is not a pair');
    api.revisions.controller.select(undefined);
  });

  it('restores a revision into a document with unsaved edits as one edit; Undo brings the edits back', async () => {
    await closeAll();
    const working = vscode.Uri.joinPath(acmeDir, 'index.php');
    fs.writeFileSync(working.fsPath, '<?php\necho "on disk";\n');
    const doc = await vscode.workspace.openTextDocument(working);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), '// unsaved edit\n'));
    const before = doc.getText();
    assert.ok(doc.isDirty);
    const rev = (await revisions(await fileNode('index.php'))).at(-1)!;
    const expected = await contentOf(rev);
    const asked: string[] = [];
    const restore = stubWindow('showWarningMessage', (async (message: string, options: vscode.MessageOptions) => {
      asked.push(message);
      assert.equal(options.modal, true, 'a modal confirmation');
      return 'Restore';
    }) as never);
    try {
      const out = (await vscode.commands.executeCommand('siteRevisions.restoreRevision', rev)) as Outcome;
      assert.ok(out.done, JSON.stringify(out));
    } finally {
      restore();
    }
    assert.match(asked[0]!, /^Restore index\.php to the revision of /);
    assert.equal(doc.getText(), expected);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === before, { message: 'Undo reverts the restore' });
    assert.equal(fs.readFileSync(working.fsPath, 'utf8'), '<?php\necho "on disk";\n', 'nothing was saved behind the user’s back');
    await vscode.commands.executeCommand('workbench.action.files.revert'); // leave no dirty editor behind
  });

  it('restore creates a missing working file (inside the mapped folder)', async () => {
    const rev = (await revisions(await fileNode('includes/db.php')))[0]!;
    const target = vscode.Uri.joinPath(acmeDir, 'includes', 'db.php');
    assert.equal(fs.existsSync(target.fsPath), false);
    const restore = stubWindow('showWarningMessage', (async () => 'Restore') as never);
    try {
      const out = (await vscode.commands.executeCommand('siteRevisions.restoreRevision', rev)) as Outcome;
      assert.ok(out.done, JSON.stringify(out));
    } finally {
      restore();
    }
    const doc = await vscode.workspace.openTextDocument(target);
    assert.equal(doc.getText(), await contentOf(rev));
    assert.ok(fs.existsSync(target.fsPath));
    assert.ok(await doc.save());
    assert.equal(fs.readFileSync(target.fsPath, 'utf8'), await contentOf(rev));
  });

  it('a cancelled confirmation changes nothing', async () => {
    const rev = (await revisions(await fileNode('css/site.css')))[0]!;
    const restore = stubWindow('showWarningMessage', (async () => undefined) as never);
    try {
      const out = (await vscode.commands.executeCommand('siteRevisions.restoreRevision', rev)) as Outcome;
      assert.deepEqual(out, { done: false, reason: 'cancelled' });
    } finally {
      restore();
    }
    assert.equal(fs.existsSync(vscode.Uri.joinPath(acmeDir, 'css', 'site.css').fsPath), false);
  });

  it('refuses hostile paths from the service for restore and compare, naming the path', async () => {
    const acme = await site();
    const client = await api.session.getClient();
    const hostile = ['../../etc/passwd', '/etc/x', 'C:\\x', 'a/../../x.txt', 'x\u0000y'];
    const orig = { files: client.getRevisionFiles, revs: client.getRevisions, rev: client.getRevision };
    const fake = (p: string): RevisionSummary[] => [{ id: `99${hostile.indexOf(p)}1`, date: '2024-01-02 03:04:05', author: 'mallory' }];
    client.getRevisionFiles = async (...a) => [...(await orig.files.apply(client, a)), ...hostile];
    client.getRevisions = async (siteId, file, o) => (hostile.includes(file) ? fake(file) : orig.revs.call(client, siteId, file, o));
    client.getRevision = async (siteId, id, o) => (id.startsWith('99') ? { id, content: 'owned\n' } : orig.rev.call(client, siteId, id, o));
    const errors: string[] = [];
    const restoreErr = stubWindow('showErrorMessage', (async (m: string) => {
      errors.push(m);
      return undefined;
    }) as never);
    const restoreWarn = stubWindow('showWarningMessage', (async () => 'Restore') as never);
    try {
      api.model.refresh();
      // The tree shows them, never interpreted: `..` is a folder named "..".
      const top = await children(await site());
      assert.ok(top.some((n) => isFolder(n) && n.folder.name === '..'));
      await closeAll();
      for (const p of hostile) {
        const arg = { siteId: acme.site.id, revisionId: fake(p)[0]!.id, path: p };
        for (const cmd of ['siteRevisions.restoreRevision', 'siteRevisions.compareWithWorking']) {
          errors.length = 0;
          const out = (await vscode.commands.executeCommand(cmd, arg)) as Outcome;
          assert.equal(out.done, false, `${cmd} ${JSON.stringify(p)}`);
          assert.equal(!out.done && out.reason, 'refused', `${cmd} ${JSON.stringify(p)}: ${JSON.stringify(out)}`);
          assert.ok(errors[0]?.includes(JSON.stringify(p).slice(1, -1).slice(0, 8)), `the message names the path: ${errors[0]}`);
        }
      }
      assert.equal(activeDiff(), undefined, 'no diff was opened');
      assert.equal(fs.existsSync(path.join(acmeDir.fsPath, '..', '..', 'etc', 'passwd')) && fs.readFileSync(path.join(acmeDir.fsPath, '..', '..', 'etc', 'passwd'), 'utf8') === 'owned\n', false);
      assert.equal(fs.existsSync(path.join(acmeDir.fsPath, '..', 'x.txt')), false);
      for (const d of vscode.workspace.textDocuments) assert.ok(!d.getText().startsWith('owned'), `nothing restored into ${d.uri.toString()}`);
      // Opening it read-only is fine: a revision document never touches the disk.
      const opened = (await vscode.commands.executeCommand('siteRevisions.openRevision', { siteId: acme.site.id, revisionId: fake('../../etc/passwd')[0]!.id, path: '../../etc/passwd' })) as Outcome;
      assert.ok(opened.done);
      assert.equal(vscode.window.activeTextEditor?.document.uri.scheme, 'site-revision');
      assert.equal(vscode.window.activeTextEditor?.document.getText(), 'owned\n');
    } finally {
      restoreErr();
      restoreWarn();
      client.getRevisionFiles = orig.files;
      client.getRevisions = orig.revs;
      client.getRevision = orig.rev;
      api.model.refresh();
    }
  });

  it('pages long revision lists with “Load more…”', async () => {
    const acme = await site();
    const client = await api.session.getClient();
    const orig = { files: client.getRevisionFiles, revs: client.getRevisions };
    const many: RevisionSummary[] = Array.from({ length: 12 }, (_, i) => ({ id: String(5000 + i), date: `2024-01-${String(i + 1).padStart(2, '0')} 10:00:00`, author: `a${i}` }));
    client.getRevisionFiles = async (...a) => [...(await orig.files.apply(client, a)), 'many.txt'];
    client.getRevisions = async (siteId, file, o) => (file === 'many.txt' ? many.map((r) => ({ ...r })) : orig.revs.call(client, siteId, file, o));
    const cfg = vscode.workspace.getConfiguration('siteRevisions');
    await cfg.update('revisions.pageSize', 5, vscode.ConfigurationTarget.Global);
    try {
      api.model.refresh();
      void acme;
      const file = await fileNode('many.txt');
      let nodes = await children(file);
      assert.equal(nodes.filter((n) => isRevision(n)).length, 5);
      const more = nodes.at(-1) as LoadMoreNode;
      assert.ok(isMore(more));
      assert.equal(more.getTreeItem().command?.command, 'siteRevisions.loadMoreRevisions');
      await vscode.commands.executeCommand('siteRevisions.loadMoreRevisions', more);
      nodes = await children(file);
      assert.equal(nodes.filter((n) => isRevision(n)).length, 10);
      await vscode.commands.executeCommand('siteRevisions.loadMoreRevisions', nodes.at(-1));
      nodes = await children(file);
      assert.equal(nodes.filter((n) => isRevision(n)).length, 12);
      assert.ok(!nodes.some((n) => isMore(n)));
      assert.deepEqual(
        nodes.filter((n): n is RevisionNode => isRevision(n)).map((n) => n.ref.item.id),
        many.map((r) => r.id).reverse(),
      );
    } finally {
      await cfg.update('revisions.pageSize', undefined, vscode.ConfigurationTarget.Global);
      client.getRevisionFiles = orig.files;
      client.getRevisions = orig.revs;
      api.model.refresh();
    }
  });

  it('a failure shows as a node with the message and a retry; the retry loads', async () => {
    api.model.refresh();
    const acme = await site();
    await control(url, 'config', { failNext: [{ kind: 'http500', operation: 'getRevisionFiles' }] });
    const nodes = await children(acme);
    const err = nodes.find((n): n is MessageNode => isMessage(n) && n.options.contextValue === 'revisionError');
    assert.ok(err, 'an error node');
    const item = err.getTreeItem();
    assert.match(String(item.description), /500/);
    assert.equal(item.command?.command, 'siteRevisions.revisions.retry');
    const again = await children(acme);
    assert.ok(again.some((n) => isFolder(n)), 'the retry loads the files');
  });

  it('copies a revision’s content', async () => {
    const rev = (await revisions(await fileNode('includes/db.php')))[0]!;
    const out = (await vscode.commands.executeCommand('siteRevisions.copyRevisionContent', rev)) as Outcome;
    assert.ok(out.done);
    assert.equal(await vscode.env.clipboard.readText(), await contentOf(rev));
  });

  it('a revision over diffEditor.maxFileSize is not diffed; the user may open it read-only', async () => {
    await closeAll();
    const diffCfg = vscode.workspace.getConfiguration('diffEditor');
    await diffCfg.update('maxFileSize', 0.00005, vscode.ConfigurationTarget.Global); // ~52 bytes
    const warned: string[] = [];
    const restore = stubWindow('showWarningMessage', (async (m: string) => {
      warned.push(m);
      return 'Open Read-Only';
    }) as never);
    try {
      const revs = await revisions(await fileNode('index.php'));
      const out = (await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', revs[0])) as Outcome;
      assert.deepEqual(out.done ? 'done' : out.reason, 'too-large');
      assert.match(warned[0]!, /diffEditor\.maxFileSize/);
      await waitFor(() => vscode.window.activeTextEditor?.document.uri.scheme === 'site-revision', { message: 'opened read-only' });
      assert.equal(activeDiff(), undefined);
    } finally {
      restore();
      await diffCfg.update('maxFileSize', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('hides revisions identical to the working file when the setting is on (contents already loaded only)', async () => {
    const revs = await revisions(await fileNode('index.php'));
    const same = revs[1]!;
    fs.writeFileSync(vscode.Uri.joinPath(acmeDir, 'index.php').fsPath, await contentOf(same));
    await closeAll();
    const cfg = vscode.workspace.getConfiguration('siteRevisions');
    await cfg.update('revisions.hideIdenticalToWorkingFile', true, vscode.ConfigurationTarget.Global);
    try {
      const nodes = await children(await fileNode('index.php'));
      const ids = nodes.filter((n): n is RevisionNode => isRevision(n)).map((n) => n.ref.item.id);
      assert.ok(!ids.includes(same.ref.item.id), 'the identical revision is hidden');
      assert.equal(ids.length, revs.length - 1);
      assert.ok(nodes.some((n) => isMessage(n) && /identical to the working file/.test(n.label)));
    } finally {
      await cfg.update('revisions.hideIdenticalToWorkingFile', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('Revisions of Active File: a pick of the file’s revisions, newest first; then an action', async () => {
    await closeAll();
    const working = vscode.Uri.joinPath(acmeDir, 'index.php');
    fs.writeFileSync(working.fsPath, '<?php\necho "active";\n');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(working));
    const revs = await revisions(await fileNode('index.php'));
    const running = vscode.commands.executeCommand('siteRevisions.revisionsOfActiveFile') as Thenable<Outcome>;
    const pick = await waitFor(() => (api.revisions.picks.current && api.revisions.picks.current.items.length ? api.revisions.picks.current : undefined), { message: 'the revision pick' });
    assert.equal(pick.items.length, revs.length);
    assert.deepEqual(
      pick.items.map((i) => i.description),
      revs.map((r) => r.ref.item.author),
    );
    assert.match(pick.items[0]!.label, /ago|just now/);
    assert.match(pick.items[0]!.detail!, /UTC/);
    await activate(pick, pick.items[1]!);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const actions = await waitFor(() => (api.revisions.picks.current && api.revisions.picks.current !== pick ? api.revisions.picks.current : undefined), { message: 'the action pick' });
    assert.match(actions.items[0]!.label, /Compare with Working File/);
    await activate(actions, actions.items[0]!);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const out = await running;
    assert.ok(out.done, JSON.stringify(out));
    const diff = await waitFor(activeDiff);
    assert.equal(diff.original.toString(), revUri(revs[1]!).toString());
    assert.equal(diff.modified.toString(), working.toString());
  });

  it('Revisions of Active File on a file outside any mapped folder says so', async () => {
    const other = vscode.Uri.joinPath(ws, 'not-mapped.txt');
    fs.writeFileSync(other.fsPath, 'x\n');
    const restore = stubWindow('showInformationMessage', (async () => undefined) as never);
    try {
      const out = (await vscode.commands.executeCommand('siteRevisions.revisionsOfActiveFile', other)) as Outcome;
      assert.equal(out.done, false);
    } finally {
      restore();
      fs.rmSync(other.fsPath, { force: true });
    }
  });
});

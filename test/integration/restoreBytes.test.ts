// A restore gives back the revision's bytes (issue 32 §9): every restore path — one file (the
// revisions feature), Restore Checked (Site Changes), a site as it was (Restore Into Local
// Folder…) and Restore Newest Revision of the Source Control view — with a byte-order mark, CRLF
// line ends, no final newline, Latin-1 letters (over a working file saved as Latin-1) and mixed
// line ends, over existing working files and into missing ones. After the restore and Save All,
// each file's bytes are read from disk and compared with the revision's bytes as the service
// gives them (its content as UTF-8). Nothing here comes from the extension's own reading.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import type { AsOfRun } from '../../src/features/siteAsOf/views';
import type { AsOfRestoreOutcome } from '../../src/features/siteAsOf/restore';
import type { RestoreOutcome } from '../../src/features/history/restore';
import type { ChangesRun } from '../../src/features/history/changesView';
import type { RevisionRef } from '../../src/features/revisions/nodes';
import { parseRevisionDate } from '../../src/core/model/ordering';
import { SEARCH_DEMO } from '../server/seed-search';
import { screenOrSkip } from './screen';
import { control, leaveMappedFolder, reseededAndSignedIn, serviceRevisions, sitesViewOnly, spyMessages } from './support';
import { waitFor, workspaceFolder } from './util';

/** The revisions the tests restore: a site path and its content (a JSON string: its bytes are its UTF-8). */
const CASES: Record<string, string> = {
  'prices.csv': '\uFEFFid;price;currency\n1;9.99;EUR\n2;19.50;EUR\n', // a byte-order mark (the QA's data/prices.csv)
  'windows.txt': 'first line\r\nsecond line\r\nthird line\r\n', // CRLF
  'no-final-newline.txt': 'line one\nline two, and no newline after it', // no final newline
  'latin.txt': 'Grüße aus Köln: café, crème brûlée, ½ ¼ ¾, ÿ\n', // Latin-1 letters
  'mixed.txt': 'windows line\r\nunix line\nwindows again\r\n', // mixed line ends
};
/** What the existing working files hold before each restore (the Latin-1 one is saved as Latin-1). */
const LOCAL: Record<string, Buffer> = {
  'prices.csv': Buffer.from('id;price;currency\n1;8.99;EUR\n'),
  'windows.txt': Buffer.from('an older text\nwith LF line ends\n'),
  'no-final-newline.txt': Buffer.from('line one\nline two\n'),
  'latin.txt': Buffer.from('Gr\xfc\xdfe aus K\xf6ln: caf\xe9\n', 'latin1'),
  'mixed.txt': Buffer.from('all LF\nhere\n'),
};
/** Each case twice: over an existing working file (`old-…`) and into a missing one (`new-…`). */
const PATHS = Object.keys(CASES).flatMap((name) => [`bytes/old-${name}`, `bytes/new-${name}`]);
const caseOf = (p: string) => p.replace(/^bytes\/(old|new)-/, '');

describe('A restore gives back the revision’s bytes (BOM, CRLF, no final newline, Latin-1, mixed line ends)', function () {
  this.timeout(240000);
  let api: ExtensionApi;
  let url: string;
  let site: Site;
  let dir: vscode.Uri;
  /** path → the newest revision: its id, date, author and bytes as the service gives them. */
  const revisions = new Map<string, { id: string; date: string; author: string; time: number; bytes: Buffer }>();
  const fileOf = (p: string) => vscode.Uri.joinPath(dir, ...p.split('/'));
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');

  const folders: vscode.Uri[] = [];
  /**
   * The working files as each test starts, in a folder of its own mapped to the site (VS Code
   * keeps the documents of the test before for minutes; files rewritten under them would meet a
   * save with "the file is newer"): the `old-` ones as LOCAL has them, no `new-` one.
   */
  const prepare = async () => {
    for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty)) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await closeAll();
    dir = vscode.Uri.joinPath(workspaceFolder().uri, `restore-bytes-${folders.length + 1}`);
    folders.push(dir);
    fs.mkdirSync(fileOf('bytes').fsPath, { recursive: true });
    for (const p of PATHS) if (p.startsWith('bytes/old-')) fs.writeFileSync(fileOf(p).fsPath, LOCAL[caseOf(p)]!);
    await vscode.commands.executeCommand('siteRevisions.mapFolder', site.id, dir);
  };
  /** Saved (by File > Save All, else by the restore's own "Save Them"), then every file's bytes on disk against the revision's. */
  const savedBytesAreTheRevisions = async (how: 'saveAll' | 'saveThem', paths = PATHS) => {
    if (how === 'saveAll') await vscode.commands.executeCommand('workbench.action.files.saveAll');
    await waitFor(() => !vscode.workspace.textDocuments.some((d) => d.isDirty), { message: `every document saved (dirty: ${vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()).join(', ')})` });
    const wrong = paths.flatMap((p) => {
      const want = revisions.get(p)!.bytes;
      const got = fs.existsSync(fileOf(p).fsPath) ? fs.readFileSync(fileOf(p).fsPath) : undefined;
      return got && got.equals(want) ? [] : [`${p}: ${got ? JSON.stringify(got.toString('latin1')) : 'missing'} ≠ ${JSON.stringify(want.toString('latin1'))}`];
    });
    assert.deepEqual(wrong, [], 'the revisions’ bytes on disk');
  };
  const refOf = (p: string): RevisionRef => {
    const r = revisions.get(p)!;
    return { site, path: p, item: { id: r.id, date: r.date, author: r.author }, time: r.time };
  };

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    const sites = await api.model.all();
    site = sites.find((s) => s.name === SEARCH_DEMO.siteName)!;
    // An hour ago: before "now" for a site as it was, and within Site Changes of the last two days
    // ("today" would miss them in the first hour after midnight: .ci/run failed so at 00:12).
    for (const p of PATHS) await control(url, 'add-revision', { siteId: site.id, path: p, content: CASES[caseOf(p)], author: 'qa@example.com', date: Date.now() - 3600_000 });
    for (const p of PATHS) {
      const r = (await serviceRevisions(url, site.id, p)).at(-1)!;
      revisions.set(p, { id: r.id, date: r.date, author: r.author, time: parseRevisionDate(r.date)!, bytes: Buffer.from(r.content, 'utf8') });
    }
    assert.deepEqual([...revisions.get('bytes/old-prices.csv')!.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the service gives the byte-order mark');
    api.revisions.store.invalidate();
  });

  after(async () => {
    await leaveMappedFolder(api, url, site.id, dir);
    for (const f of folders) fs.rmSync(f.fsPath, { recursive: true, force: true });
    await sitesViewOnly();
  });

  it('one file (Restore Revision): each revision’s bytes; where the editor would change them, written as they are, and said so', async () => {
    await prepare();
    const spy = spyMessages((m) => (m.modal && m.items.includes('Restore') ? 'Restore' : undefined));
    try {
      for (const p of PATHS) await vscode.commands.executeCommand('siteRevisions.restoreRevision', refOf(p));
    } finally {
      spy.restore();
    }
    // Each restored file is open in an editor: File > Save All saves them.
    await savedBytesAreTheRevisions('saveAll');
    // The confirmation said which were written as they are, and why.
    const asked = (name: string) => spy.shown.find((m) => m.modal && m.detail?.includes(name))?.detail ?? '';
    assert.match(asked('old-prices.csv'), /written with the bytes of revision .* at once, not through the editor: it starts with a byte-order mark/);
    assert.match(asked('new-prices.csv'), /created on disk with the bytes of revision .*byte-order mark/);
    assert.match(asked('old-mixed.txt'), /mixes CRLF and LF line ends/);
    assert.match(asked('old-windows.txt'), /will get the content of revision/, 'CRLF: through the editor (its line ends set to CRLF)');
    assert.match(asked('old-latin.txt'), /will get the content of revision/);
  });

  it('one file: unsaved changes are never lost to a restore written as it is (refused, saying why)', async () => {
    await prepare();
    const uri = fileOf('bytes/old-mixed.txt');
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'typed, not saved\n'));
    const spy = spyMessages((m) => (m.modal && m.items.includes('Restore') ? 'Restore' : undefined));
    try {
      await vscode.commands.executeCommand('siteRevisions.restoreRevision', refOf('bytes/old-mixed.txt'));
    } finally {
      spy.restore();
    }
    assert.ok(spy.shown.some((m) => /has unsaved changes: save or revert them first/.test(m.message)), JSON.stringify(spy.shown));
    assert.ok(doc.getText().startsWith('typed, not saved\n'), 'the typed text is kept');
    assert.deepEqual(fs.readFileSync(uri.fsPath), LOCAL['mixed.txt'], 'the file on disk untouched');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('Restore Checked (Site Changes): every checked file’s revision bytes', async () => {
    await prepare();
    const run = (await vscode.commands.executeCommand('siteRevisions.siteChanges', { site }, { period: { kind: 'days', days: 2 } })) as ChangesRun;
    assert.equal(run.state, 'done');
    const { searchViews } = await api.history();
    for (const p of PATHS) searchViews.changes.checked.set(p, true);
    // The confirmation accepted, and "Save Them" of the message after it (the edited files are open in no editor: File > Save All would not save them).
    const spy = spyMessages((m) => (m.modal ? m.items[0] : m.items.includes('Save Them') ? 'Save Them' : undefined));
    let out: RestoreOutcome;
    try {
      out = (await vscode.commands.executeCommand('siteRevisions.restoreCheckedChanges')) as RestoreOutcome;
      assert.equal(out.restored.length, PATHS.length, JSON.stringify(out));
      const detail = spy.shown.find((m) => m.modal)?.detail ?? '';
      assert.match(detail, /old-prices\.csv.*written to disk byte for byte at once \(it starts with a byte-order mark/);
      await savedBytesAreTheRevisions('saveThem');
    } finally {
      spy.restore();
      await vscode.commands.executeCommand('siteRevisions.clearSiteChanges');
    }
  });

  it('a site as it was (Restore Into Local Folder…): every file’s revision bytes', async () => {
    await prepare();
    const run = (await vscode.commands.executeCommand('siteRevisions.siteAsOf', { site, folder: 'bytes' }, { moment: Date.now() })) as AsOfRun;
    assert.equal(run.state, 'done');
    assert.equal(run.result!.files.length, PATHS.length);
    const spy = spyMessages((m) => (m.items.includes('Save Them') ? 'Save Them' : undefined));
    try {
      const restoring = vscode.commands.executeCommand('siteRevisions.asOfRestore') as Thenable<AsOfRestoreOutcome>;
      // The confirmation (a quick pick of the files, all ticked): accepted as Enter would.
      await waitFor(async () => {
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return Promise.race([restoring.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 300))]);
      }, { message: 'the confirmation accepted', timeoutMs: 30000 });
      const out = await restoring;
      assert.deepEqual([out.replaced.length, out.created.length, out.cancelled], [PATHS.length / 2, PATHS.length / 2, false], JSON.stringify(out));
      assert.deepEqual(out.written.map((u) => u.toString()).sort(), [fileOf('bytes/old-mixed.txt').toString(), fileOf('bytes/old-prices.csv').toString()]);
      await savedBytesAreTheRevisions('saveThem');
    } finally {
      spy.restore();
      await vscode.commands.executeCommand('siteRevisions.asOfClear');
    }
  });

  it('Restore Newest Revision from the Source Control view: each file’s newest revision bytes', async function () {
    const s = screenOrSkip(this);
    await prepare();
    const settings = vscode.workspace.getConfiguration('siteRevisions');
    await settings.update('sourceControl.enabled', true, vscode.ConfigurationTarget.Global);
    const spy = spyMessages((m) => (m.modal && m.items.includes('Restore') ? 'Restore' : undefined));
    try {
      const rows = '.part.sidebar .scm-view .monaco-list-row';
      await vscode.commands.executeCommand('workbench.view.scm');
      // Every file of the folder listed (the old- ones changed locally, the new- ones only on the service).
      await s.until(() => s.texts({ selector: rows }), (r) => PATHS.every((p) => r.some((x) => x.startsWith(p.slice('bytes/'.length)))), 'the files in the Source Control view', 60000);
      for (const p of PATHS) {
        const name = p.slice('bytes/'.length);
        const asked = () => spy.shown.some((m) => m.modal && m.message.startsWith(`Restore ${name} `));
        // (A click while the list is drawn again is lost: clicked again then.)
        for (let attempt = 1; !asked(); attempt++) {
          await s.clickRowAction({ selector: rows, hasText: name }, 'Restore Newest Revision');
          await waitFor(asked, { message: `the restore of ${name} asked`, timeoutMs: 4000 }).catch((e: unknown) => {
            if (attempt >= 3) throw e;
          });
        }
        // Restored: open in an editor (the text way), or its bytes on disk (the byte way).
        await waitFor(() => fs.existsSync(fileOf(p).fsPath) && (vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === fileOf(p).toString() && e.document.isDirty) || revisions.get(p)!.bytes.equals(fs.readFileSync(fileOf(p).fsPath))), { message: `${p} restored`, timeoutMs: 20000 });
      }
      await savedBytesAreTheRevisions('saveAll');
    } finally {
      spy.restore();
      await settings.update('sourceControl.enabled', false, vscode.ConfigurationTarget.Global);
    }
  });
});

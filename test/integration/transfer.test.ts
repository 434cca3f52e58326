// Transfers guarded by the history (issue 34) in the real workbench against the REAL servers
// (test/live: OpenSSH's sftp, ProFTPD with its LIST clock three hours off, Apache mod_dav),
// started from this suite: download and upload from the commands, the conflict choice drawn and
// clicked (Overwrite, Take Theirs, Cancel each doing exactly that), a same-size edit on the server
// caught, a server clock three hours off raising no alarm, the kept copies listed in "Overwritten
// on the Server" and every one put back, a cancel mid-folder leaving no partial file on either
// side. What is expected is read from the servers' own folders on disk and from the mapped
// folder on disk, never from the code under test.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site, SiteFields } from '../../src/core/api/types';
import { liveUri } from '../../src/features/live/fileSystem';
import type { LiveServers } from '../live/servers';
import type { FaultProxy } from '../live/faultProxy';
import { screenOrSkip, type Screen } from './screen';
import { control, signInDemo, spyMessages, stubWindow } from './support';
import { ext, testService, waitFor } from './util';

/** What the servers' folders hold (a server's user owns what the test writes there). */
export interface ServerFolder {
  dir: string;
  read(rel: string): Buffer | undefined;
  write(rel: string, bytes: Buffer | string, mtimeMs?: number): void;
  names(rel?: string): string[];
}

export function serverFolder(dir: string): ServerFolder {
  const owner = fs.statSync(dir);
  const abs = (rel: string) => path.join(dir, ...rel.split('/'));
  return {
    dir,
    read: (rel) => (fs.existsSync(abs(rel)) ? fs.readFileSync(abs(rel)) : undefined),
    write: (rel, bytes, mtimeMs) => {
      let d = dir;
      for (const s of rel.split('/').slice(0, -1)) {
        d = path.join(d, s);
        if (!fs.existsSync(d)) {
          fs.mkdirSync(d);
          fs.chownSync(d, owner.uid, owner.gid);
        }
      }
      fs.writeFileSync(abs(rel), bytes);
      fs.chownSync(abs(rel), owner.uid, owner.gid);
      if (mtimeMs !== undefined) fs.utimesSync(abs(rel), new Date(mtimeMs), new Date(mtimeMs));
    },
    names: (rel = '') => namesUnder(abs(rel)),
  };
}

/** Every name under a folder on disk (recursively), sorted. */
export function namesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(r);
      if (e.isDirectory()) walk(path.join(d, e.name), r);
    }
  };
  if (fs.existsSync(dir)) walk(dir, '');
  return out.sort();
}

/** Temporary files of a write (ours: `.name.sr-….tmp`) among names. */
export function temps(names: string[]): string[] {
  return names.filter((n) => /\.sr-[0-9a-f-]+\.tmp$/.test(n.slice(n.lastIndexOf('/') + 1)));
}

export const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A time far from the test's writes (whole seconds), as "another version" on the server. */
const T0 = Date.parse('2024-05-06T07:08:09Z');

/** Records the messages of every progress notification shown (and lets it be drawn). */
function spyProgress(seen: string[]): () => void {
  const orig = vscode.window.withProgress.bind(vscode.window);
  return stubWindow('withProgress', ((o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string; increment?: number }>, t: vscode.CancellationToken) => Thenable<unknown>) =>
    orig(o, (p, t) =>
      task(
        {
          report: (v) => {
            if (v.message) seen.push(v.message);
            p.report(v);
          },
        },
        t,
      ),
    )) as never);
}

const QUICK = '.quick-input-widget';
const QUICK_ROW = `${QUICK}:visible .monaco-list-row`;

describe('Transfers: download, upload, the conflict choice, kept copies (real servers)', function () {
  this.timeout(240_000);
  let s: Screen;
  let api: ExtensionApi;
  let url: string;
  let live: LiveServers;
  const sites = {} as Record<'sftp' | 'ftp' | 'dav' | 'slow', Site>;
  const locals = {} as Record<'sftp' | 'ftp' | 'dav' | 'slow', string>;
  let proxy: FaultProxy;
  let spy: { shown: { message: string; items: string[]; modal: boolean }[]; restore(): void };
  let restoreInput: () => void;

  const makeSite = async (fields: SiteFields): Promise<Site> => {
    const r = await api.session.call((c) => c.createSite(fields));
    api.model.refresh();
    return waitFor(async () => (await api.model.all()).find((x) => x.id === r.siteId), { message: `site ${fields.name}` });
  };
  const server = (k: 'sftp' | 'ftp' | 'dav') => serverFolder(k === 'sftp' ? live.sftp!.dataDir : k === 'ftp' ? live.ftp!.dataDir : live.dav!.dataDir);
  const localPath = (k: keyof typeof locals, rel: string) => path.join(locals[k], ...rel.split('/'));
  const readLocal = (k: keyof typeof locals, rel: string) => (fs.existsSync(localPath(k, rel)) ? fs.readFileSync(localPath(k, rel)) : undefined);
  const writeLocal = (k: keyof typeof locals, rel: string, bytes: string | Buffer) => {
    fs.mkdirSync(path.dirname(localPath(k, rel)), { recursive: true });
    fs.writeFileSync(localPath(k, rel), bytes);
  };
  const working = (k: keyof typeof locals, rel: string) => vscode.Uri.file(localPath(k, rel));

  /** The rows of the quick input drawn now. */
  const quickRows = () => s.texts({ selector: QUICK_ROW });
  /** Waits for the conflict choice to be drawn; returns its rows. */
  const conflictDrawn = async (name: string) => {
    // The widget stays in the page once hidden: only a visible one counts.
    await s.until(() => s.texts({ selector: `${QUICK}:visible .quick-input-title` }), (t) => t.some((x) => x.includes(`Conflict: ${name}`)), `the conflict choice of ${name}`, 60_000);
    return s.until(quickRows, (r) => r.some((x) => x.includes('Overwrite')), 'its rows');
  };
  const clickQuick = (text: string) => s.click({ selector: QUICK_ROW, hasText: text });

  before(async function () {
    s = screenOrSkip(this);
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'reseed');
    await signInDemo(url);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startLiveServers } = require('../live/servers') as typeof import('../live/servers');
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = '/tmp';
    try {
      // ProFTPD writes its LIST times three hours east of UTC: a server whose clock is off.
      live = await startLiveServers({ only: ['ftp', 'sftp', 'dav'], ftpListTimeZoneHours: 3 });
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
    const ftp = live.ftp!;
    const sftp = live.sftp!;
    const dav = live.dav!;
    // The trust prompts (modal: not drawn under the test driver) are answered with their first button; no password is asked.
    spy = spyMessages((m) => (m.modal && m.items.length ? m.items[0] : undefined));
    restoreInput = stubWindow('showInputBox', () => Promise.resolve(undefined));
    sites.sftp = await makeSite({ name: 'Transfer SFTP', server_type: 'SFTP', domain: sftp.host, port: String(sftp.port), ftp_user: sftp.user, ftp_pass: sftp.password, dir: sftp.dataDir } as SiteFields);
    sites.ftp = await makeSite({ name: 'Transfer FTPS', server_type: 'FTP', domain: `ftps://${ftp.host}`, port: String(ftp.port), ftp_user: ftp.user, ftp_pass: ftp.password, dir: '/', pasv: '1', encryption: '1' } as SiteFields);
    sites.dav = await makeSite({ name: 'Transfer DAV', server_type: 'WebDAV', domain: dav.httpsUrl, port: new URL(dav.httpsUrl).port, encryption: '1', ftp_user: dav.user, ftp_pass: dav.password, dir: '' } as SiteFields);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startFaultProxy } = require('../live/faultProxy') as typeof import('../live/faultProxy');
    proxy = await startFaultProxy({ host: sftp.host, port: sftp.port }, { latencyMs: 40 });
    sites.slow = await makeSite({ name: 'Transfer SFTP slow', server_type: 'SFTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: sftp.user, ftp_pass: sftp.password, dir: sftp.dataDir } as SiteFields);
    for (const k of Object.keys(sites) as (keyof typeof sites)[]) {
      locals[k] = fs.mkdtempSync(path.join(os.tmpdir(), `transfer-${k}-`));
      await api.revisions.folders.set(sites[k].id, vscode.Uri.file(locals[k]));
    }
  });

  after(async () => {
    spy?.restore();
    restoreInput?.();
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty)) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('siteRevisions.transfersClear');
    for (const k of Object.keys(sites) as (keyof typeof sites)[]) {
      if (sites[k]) await api.revisions.folders.set(sites[k].id, undefined);
      if (locals[k]) fs.rmSync(locals[k], { recursive: true, force: true });
    }
    (await api?.live())?.connections.closeAll();
    await proxy?.close();
    await live?.stop();
    await control(url, 'reseed');
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('Download a live folder (from its Live Files row): every file as on the server, progress in files and bytes, nothing temporary left', async () => {
    const srv = server('sftp');
    const files: Record<string, Buffer> = { 'dl/a.txt': Buffer.from('alpha\n'), 'dl/sub/b.bin': Buffer.alloc(300_000, 7), 'dl/ünï cödé.txt': Buffer.from('ünï\n'), 'dl/with space/c d.txt': Buffer.from('c d\n') };
    for (const [p, b] of Object.entries(files)) srv.write(p, b);
    const f = await api.transfer();
    const seen: string[] = [];
    const restore = spyProgress(seen);
    let r: { uploaded: number; downloaded: number; conflicts: unknown[]; failed: unknown[] } | undefined;
    try {
      // The Live Files row of the folder, as the Sites view gives it.
      r = (await vscode.commands.executeCommand('siteRevisions.download', liveUri({ siteId: sites.sftp.id, account: (await api.live()).connections.account()!, path: 'dl' }, sites.sftp.name))) as typeof r;
    } finally {
      restore();
    }
    assert.equal(r?.downloaded, 4, JSON.stringify(r));
    for (const [p, b] of Object.entries(files)) assert.deepEqual(readLocal('sftp', p), b, p);
    assert.ok(seen.some((m) => /of 4 files/.test(m) && /KB/.test(m)), `progress said files and bytes: ${seen.join(' | ')}`);
    assert.deepEqual(temps(namesUnder(locals.sftp)), []);
    assert.ok(f.view.pending.length === 0);
  });

  /** Runs a command that may show the conflict choice; returns its promise (not awaited). */
  const start = (command: string, ...args: unknown[]) => Promise.resolve(vscode.commands.executeCommand(command, ...args));

  it('an upload over a live file edited on the server since it was downloaded — the same size — writes nothing: the choice is drawn with its three diffs, a diff opens beside it, and Cancel writes nothing', async () => {
    const srv = server('sftp');
    srv.write('c/page.php', 'version A\n', T0);
    await control(url, 'add-revision', { siteId: sites.sftp.id, path: 'c/page.php', content: 'version A\n', author: 'dev@example.com' });
    await vscode.commands.executeCommand('siteRevisions.download', working('sftp', 'c/page.php'));
    assert.equal(readLocal('sftp', 'c/page.php')?.toString(), 'version A\n');
    // Someone edits it on the server: the same size, another time.
    srv.write('c/page.php', 'version B\n', T0 + 60_000);
    writeLocal('sftp', 'c/page.php', 'my version\n');
    const done = start('siteRevisions.upload', working('sftp', 'c/page.php'));
    const rows = await conflictDrawn('page.php');
    for (const r of ['Live ↔ working file', 'Newest revision ↔ live', 'Newest revision ↔ working file', 'Overwrite', 'Take Theirs', 'Cancel']) assert.ok(rows.some((x) => x.includes(r)), `${r} drawn: ${rows.join(' | ')}`);
    assert.match((await s.attribute({ selector: `${QUICK}:visible input`, name: 'placeholder' })) ?? '', /changed on the server since this computer last transferred it/);
    await clickQuick('Live ↔ working file');
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('page.php (live ↔ working file)')), 'the diff opened');
    assert.ok((await quickRows()).some((x) => x.includes('Take Theirs')), 'the choice stays open beside the diff');
    await clickQuick('Newest revision ↔ live');
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('page.php (newest revision ↔ live)')), 'the second diff opened');
    await s.screenshot(path.join(os.tmpdir(), 'transfer-conflict.png')).catch(() => undefined);
    await clickQuick('Cancel');
    await done;
    assert.equal(srv.read('c/page.php')?.toString(), 'version B\n', 'nothing written on the server');
    assert.equal(readLocal('sftp', 'c/page.php')?.toString(), 'my version\n', 'nothing written locally');
    assert.equal((await api.transfer()).view.pending.length, 0, 'Cancel drops it');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Take Theirs downloads the live file over the working one, whose bytes are kept; the server is untouched', async () => {
    const srv = server('sftp');
    const done = start('siteRevisions.upload', working('sftp', 'c/page.php'));
    await conflictDrawn('page.php');
    await clickQuick('Take Theirs');
    await done;
    assert.equal(readLocal('sftp', 'c/page.php')?.toString(), 'version B\n', 'the live file downloaded');
    assert.equal(srv.read('c/page.php')?.toString(), 'version B\n', 'the server untouched');
    const copies = await (await api.transfer()).sites.copies();
    const mine = (await copies.list(sites.sftp.id)).find((c) => c.path === 'c/page.php' && c.side === 'local');
    assert.ok(mine, 'the working bytes are kept');
    assert.equal(Buffer.from(await copies.read(mine.id)).toString(), 'my version\n');
  });

  it('Overwrite, after another same-size edit on the server, uploads the working file; the live bytes are kept and drawn in Overwritten on the Server', async () => {
    const srv = server('sftp');
    srv.write('c/page.php', 'version C\n', T0 + 120_000);
    writeLocal('sftp', 'c/page.php', 'mine again\n');
    const done = start('siteRevisions.upload', working('sftp', 'c/page.php'));
    await conflictDrawn('page.php');
    await clickQuick('Overwrite');
    await done;
    assert.equal(srv.read('c/page.php')?.toString(), 'mine again\n', 'written on the server');
    assert.deepEqual(temps(srv.names('c')), []);
    const copies = await (await api.transfer()).sites.copies();
    const kept = (await copies.list(sites.sftp.id)).find((c) => c.path === 'c/page.php' && c.side === 'live' && c.why === 'upload');
    assert.ok(kept, 'the live bytes are kept');
    assert.equal(Buffer.from(await copies.read(kept.id)).toString(), 'version C\n');
    // Drawn: the view lists it under its site, with why.
    await vscode.commands.executeCommand('siteRevisions.overwrittenView.focus');
    const drawn = await s.until(() => s.rows('Overwritten on the Server'), (r) => r.some((x) => x.startsWith('page.php') && x.includes('replaced by an upload')), 'the kept copy drawn', 30_000);
    assert.ok(drawn.some((x) => x.startsWith('Transfer SFTP')), drawn.join(' | '));
  });

  it('a download over a working file with edits not uploaded asks first (Cancel keeps them); over unsaved edits too (Take Theirs replaces the file on disk, the editor keeps the edits)', async () => {
    const srv = server('sftp');
    writeLocal('sftp', 'c/page.php', 'edited here, not uploaded\n');
    let done = start('siteRevisions.download', working('sftp', 'c/page.php'));
    await conflictDrawn('page.php');
    assert.match((await s.attribute({ selector: `${QUICK}:visible input`, name: 'placeholder' })) ?? '', /edits that were not uploaded/);
    await clickQuick('Cancel');
    await done;
    assert.equal(readLocal('sftp', 'c/page.php')?.toString(), 'edited here, not uploaded\n');
    // Unsaved edits of a file that is otherwise as downloaded.
    srv.write('c/u.txt', 'server u\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', working('sftp', 'c/u.txt'));
    const doc = await vscode.workspace.openTextDocument(working('sftp', 'c/u.txt'));
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), 'typed, unsaved ');
    await vscode.workspace.applyEdit(edit);
    assert.ok(doc.isDirty);
    srv.write('c/u.txt', 'server u, newer\n', T0 + 60_000);
    done = start('siteRevisions.download', working('sftp', 'c/u.txt'));
    await conflictDrawn('u.txt');
    assert.match((await s.attribute({ selector: `${QUICK}:visible input`, name: 'placeholder' })) ?? '', /unsaved edits/);
    await clickQuick('Take Theirs');
    await done;
    assert.equal(readLocal('sftp', 'c/u.txt')?.toString(), 'server u, newer\n');
    assert.ok(doc.isDirty && doc.getText().startsWith('typed, unsaved '), 'the editor keeps the edits');
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('WebDAV: a live change since the download is caught too (Cancel); FTP with its LIST clock three hours off: download, edit, upload raises no alarm', async () => {
    const dav = server('dav');
    dav.write('w/a.html', '<p>one</p>\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', working('dav', 'w/a.html'));
    dav.write('w/a.html', '<p>two</p>\n', T0 + 60_000);
    writeLocal('dav', 'w/a.html', '<p>mine</p>\n');
    const done = start('siteRevisions.upload', working('dav', 'w/a.html'));
    await conflictDrawn('a.html');
    await clickQuick('Cancel');
    await done;
    assert.equal(dav.read('w/a.html')?.toString(), '<p>two</p>\n');

    assert.equal(live.ftp!.listTimeZoneHours, 3);
    const ftp = server('ftp');
    ftp.write('t/clock.txt', 'server clock\n', Date.now() - 3600_000);
    await vscode.commands.executeCommand('siteRevisions.download', working('ftp', 't/clock.txt'));
    assert.equal(readLocal('ftp', 't/clock.txt')?.toString(), 'server clock\n');
    writeLocal('ftp', 't/clock.txt', 'edited here\n');
    const r = (await vscode.commands.executeCommand('siteRevisions.upload', working('ftp', 't/clock.txt'))) as { uploaded: number; conflicts: unknown[] };
    assert.equal(r.uploaded, 1, JSON.stringify(r));
    assert.equal(r.conflicts.length, 0);
    assert.equal(ftp.read('t/clock.txt')?.toString(), 'edited here\n');
  });

  it('every overwritten live file can be put back: each copy of the list put back (the first from its row on screen), the server then holds its bytes, and what it replaced is kept too', async () => {
    const f = await api.transfer();
    const copies = await f.sites.copies();
    const srv = server('sftp');
    // Another file replaced twice.
    srv.write('pb/x.txt', 'x1\n', T0);
    await vscode.commands.executeCommand('siteRevisions.download', working('sftp', 'pb/x.txt'));
    for (const v of ['x2\n', 'x3\n']) {
      writeLocal('sftp', 'pb/x.txt', v);
      await vscode.commands.executeCommand('siteRevisions.upload', working('sftp', 'pb/x.txt'));
    }
    const list = (await copies.list(sites.sftp.id)).filter((c) => c.side === 'live');
    assert.ok(list.length >= 2, `${list.length} live copies`);
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
    assert.ok((await copies.list(sites.sftp.id)).some((c) => c.why === 'put-back'), 'what a put-back replaced is kept');
  });

  it('a cancel mid-folder, clicked in the progress notification, leaves no partial file on either side: upload, then download', async () => {
    const srv = server('sftp');
    const big = Buffer.alloc(256 * 1024);
    for (let i = 0; i < 40; i++) {
      big.fill(i);
      writeLocal('slow', `big/f${String(i).padStart(2, '0')}.bin`, big);
    }
    const seen: string[] = [];
    const restore = spyProgress(seen);
    // A long way to the server (each file takes a few round trips): the cancel comes mid-folder.
    proxy.setLatency(300);
    try {
      await vscode.commands.executeCommand('notifications.showList');
      const up = start('siteRevisions.upload', working('slow', 'big'));
      await waitFor(() => seen.some((m) => /^[1-9]\d* of 40 files/.test(m)), { message: 'some files uploaded', timeoutMs: 120_000 });
      await s.click({ selector: '.notifications-center .notification-list-item .monaco-button', hasText: 'Cancel' });
      const r = (await up) as { cancelled: boolean; uploaded: number };
      assert.equal(r.cancelled, true, JSON.stringify(r));
      assert.ok(r.uploaded > 0 && r.uploaded < 40, `${r.uploaded} uploaded before the cancel`);
      const onServer = srv.names('big');
      assert.deepEqual(temps(onServer), [], 'no temporary file on the server');
      for (const n of onServer) assert.deepEqual(srv.read(`big/${n}`), readLocal('slow', `big/${n}`), `${n} complete on the server`);
      // Download the whole folder into an empty one, and cancel it.
      fs.rmSync(localPath('slow', 'big'), { recursive: true, force: true });
      for (let i = 0; i < 40; i++) {
        big.fill(100 + i);
        srv.write(`big/f${String(i).padStart(2, '0')}.bin`, big);
      }
      seen.length = 0;
      await vscode.commands.executeCommand('notifications.showList');
      const down = start('siteRevisions.download', working('slow', 'big'));
      await waitFor(() => seen.some((m) => /^[1-9]\d* of 40 files/.test(m)), { message: 'some files downloaded', timeoutMs: 120_000 });
      await s.click({ selector: '.notifications-center .notification-list-item .monaco-button', hasText: 'Cancel' });
      const d = (await down) as { cancelled: boolean; downloaded: number };
      assert.equal(d.cancelled, true, JSON.stringify(d));
      const here = namesUnder(localPath('slow', 'big'));
      assert.deepEqual(temps(here), [], 'no temporary file locally');
      assert.ok(here.length < 40, `${here.length} downloaded before the cancel`);
      for (const n of here) assert.deepEqual(readLocal('slow', `big/${n}`), srv.read(`big/${n}`), `${n} complete locally`);
    } finally {
      restore();
      proxy.setLatency(40);
    }
  });
});

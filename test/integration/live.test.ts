// The live feature in the real workbench against the REAL servers (test/live: ProFTPD with FTPS,
// OpenSSH, Apache mod_dav), started from this suite: the trust prompts drawn and answered, Test
// Connection from the Sites view (its report) and from the form (its stages drawn, a failing one
// with its next step), Live Files expanded with the special names, a 10,000-entry folder drawn
// progressively and cancelled, a live file opened read-only with its tab title, Compare Live
// with Local and Live Drift drawn and a row's diff opened, the language-model tool. Expected
// results come from the servers' own folders on disk.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';


import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { liveUri } from '../../src/features/live/fileSystem';
import type { Site, SiteFields } from '../../src/core/api/types';
import type { LiveServers } from '../live/servers';
import type { FaultProxy } from '../live/faultProxy';
import { screenOrSkip, type Screen } from './screen';
import { control, reseededAndSignedIn, signInDemo, spyMessages, stubWindow } from './support';
import { waitFor } from './util';
import { DEMO } from '../server/demo';



describe('Live servers: trust prompts, Test Connection, Live Files, compare and drift (real servers)', function () {
  this.timeout(180_000);
  let s: Screen;
  let api: ExtensionApi;
  let url: string;
  let live: LiveServers;
  const sites: Record<'ftps' | 'sftp' | 'dav' | 'expired' | 'slow', Site> = {} as never;
  let proxy: FaultProxy;
  const WEBVIEW = ['iframe.webview', 'iframe#active-frame'];
  const form = (selector: string) => ({ selector, frames: WEBVIEW });
  /** Answers the trust dialogs (modal: the workbench does not draw them under the test driver) with their first button. */
  const trustAll = () => {
    const spy = spyMessages((m) => (m.modal && m.items.length ? m.items[0] : undefined));
    // No password is asked in this suite: the sites have theirs saved (an input would wait for ever).
    const restoreInput = stubWindow('showInputBox', (o: vscode.InputBoxOptions) => {
      inputs.push(o.prompt ?? '');
      return Promise.resolve(undefined);
    });
    return { shown: spy.shown, restore: () => (spy.restore(), restoreInput()) };
  };
  const inputs: string[] = [];

  const makeSite = async (fields: SiteFields): Promise<Site> => {
    const r = await api.session.call((c) => c.createSite(fields));
    api.model.refresh();
    return waitFor(async () => (await api.model.all()).find((x) => x.id === r.siteId), { message: `site ${fields.name}` });
  };


  before(async function () {
    s = screenOrSkip(this);
    ({ url, api } = await reseededAndSignedIn());
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startLiveServers } = require('../live/servers') as typeof import('../live/servers');
    // Under /tmp: the SFTP server's user must reach its folder (the run folder of the harness is not for others).
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = '/tmp';
    try {
      live = await startLiveServers({ only: ['ftp', 'sftp', 'dav'] });
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
    const ftp = live.ftp!;
    const sftp = live.sftp!;
    const dav = live.dav!;
    sites.ftps = await makeSite({ name: 'Live FTPS', server_type: 'FTP', domain: `ftps://${ftp.host}`, port: String(ftp.port), ftp_user: ftp.user, ftp_pass: ftp.password, dir: '/', pasv: '1', encryption: '1' } as SiteFields);
    sites.sftp = await makeSite({ name: 'Live SFTP', server_type: 'SFTP', domain: sftp.host, port: String(sftp.port), ftp_user: sftp.user, ftp_pass: sftp.password, dir: sftp.dataDir } as SiteFields);
    sites.dav = await makeSite({ name: 'Live DAV', server_type: 'WebDAV', domain: dav.httpsUrl, ftp_user: dav.user, ftp_pass: dav.password, dir: '' } as SiteFields);
    // A slow way to the same SFTP server (50 ms each way): a big folder's batches arrive one by one.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startFaultProxy } = require('../live/faultProxy') as typeof import('../live/faultProxy');
    proxy = await startFaultProxy({ host: sftp.host, port: sftp.port }, { latencyMs: 50 });
    sites.slow = await makeSite({ name: 'Live SFTP slow', server_type: 'SFTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: sftp.user, ftp_pass: sftp.password, dir: sftp.dataDir } as SiteFields);
    sites.expired = await makeSite({ name: 'Live Expired', server_type: 'FTP', domain: `ftps://${ftp.host}`, port: String(ftp.expiredPort), ftp_user: ftp.user, ftp_pass: ftp.password, dir: '/', encryption: '1' } as SiteFields);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The Live Server view goes (it takes room the other suites' panes count on), and the rows fold.
    await vscode.commands.executeCommand('siteRevisions.liveCompareClear');
    await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
    (await api?.live())?.connections.closeAll();
    await proxy?.close();
    await live?.stop();
    await control(url, 'reseed');
  });

  it('Test Connection from the Sites view: the unknown certificate asked in a modal dialog (its fingerprint), trusted; the report lists each stage and says it ran from this computer', async () => {
    const f = await api.live();
    // The workbench refuses to draw dialogs under the test driver: the modal's text, detail and
    // buttons are read where the extension shows it, and answered there.
    const spy = trustAll();
    let r: { view: { ok: boolean; rows: { stage: string }[] }; uri: vscode.Uri };
    try {
      r = (await vscode.commands.executeCommand('siteRevisions.testConnection', sites.ftps.id)) as typeof r;
    } finally {
      spy.restore();
    }
    const d = spy.shown.find((m) => m.modal)!;
    assert.ok(d, 'a modal dialog asked');
    assert.match(d.message, /The certificate of “Live FTPS” \(127\.0\.0\.1:\d+\) is not vouched for .*\(self-signed\)/);
    assert.ok(d.detail?.includes(`SHA-256 fingerprint: ${live.ftp!.fingerprint256}`), `the fingerprint in the dialog: ${d.detail}`);
    assert.match(d.detail ?? '', /Subject: .*127\.0\.0\.1/);
    assert.match(d.detail ?? '', /Valid from .* to /);
    assert.deepEqual(d.items, ['Trust This Certificate', 'Connect Once']);
    assert.equal(r.view.ok, true, JSON.stringify(r.view));
    assert.deepEqual(r.view.rows.map((x) => x.stage), ['resolve', 'connect', 'tls', 'login', 'list']);
    assert.deepEqual(inputs, [], 'no password asked: the saved one is used');
    assert.deepEqual(await f.connections.trustStore.pins(live.ftp!.host, live.ftp!.port), [live.ftp!.fingerprint256]);
    const entries = fs.readdirSync(live.ftp!.dataDir).length;
    await vscode.commands.executeCommand('notifications.showList');
    const note = await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Live FTPS') && x.includes('The connection works')), 'the outcome notification');
    assert.ok(note.some((x) => x.includes(`${entries} entries`)), `${entries} entries said: ${note.join(' | ')}`);
    await vscode.window.showTextDocument(r.uri);
    await s.until(() => s.tabTitles(), (t) => t.some((x) => x.startsWith('Test Connection Live FTPS')), 'the report tab');
    const text = vscode.window.activeTextEditor!.document.getText();
    assert.match(text, /✓ TLS/);
    assert.match(text, /the test ran from this computer|The test ran from this computer/i);
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  /** Whether the Sites view draws a Live Files row under a site. */
  const hasLiveRow = async (siteId: string): Promise<boolean> => {
    await api.tree.getChildren();
    const node = api.tree.roots.find((n) => n.site.id === siteId)!;
    const items = await Promise.all((await api.tree.getChildren(node)).map((c) => Promise.resolve(c.getTreeItem())));
    return items.some((i) => i.label === 'Live Files');
  };

  it('a site no live server can be reached for says why (Dropbox: the service’s own authorization; None: no server), and shows no Live Files row', async () => {
    const all = await api.model.all();
    for (const [type, why] of [
      ['Dropbox', /OAuth/],
      ['None', /no server/],
      ['AJAX', /PHP proxy/],
    ] as const) {
      const site = all.find((x) => x.server_type === type)!;
      const r = (await vscode.commands.executeCommand('siteRevisions.testConnection', site.id)) as { view: { ok: boolean; unreachable?: boolean; headline: string; rows: unknown[] } };
      assert.equal(r.view.ok, false, type);
      assert.equal(r.view.unreachable, true, type);
      assert.match(r.view.headline, why, type);
      assert.deepEqual(r.view.rows, [], 'no stage ran');
      assert.equal(await hasLiveRow(site.id), false, `no Live Files under ${type}`);
    }
    assert.equal(await hasLiveRow(sites.ftps.id), true, 'an FTP site has its Live Files row');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('an expired certificate is refused, never asked: the failing TLS stage named with its next step', async () => {
    const f = await api.live();
    const asked = f.connections.asked.length;
    const r = (await vscode.commands.executeCommand('siteRevisions.testConnection', sites.expired.id)) as { view: { ok: boolean; headline: string; next?: string; rows: { stage: string; ok: boolean }[] } };
    assert.equal(r.view.ok, false);
    assert.match(r.view.headline, /^TLS failed: .*expired/i);
    assert.ok(r.view.next, 'a next step');
    assert.equal(f.connections.asked.length, asked, 'nothing asked');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('the form tests the values as typed: a wrong password typed and not saved fails at “Logged in” with its next step; the stored one then works, each stage drawn with its time', async () => {
    const spy = trustAll();
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('siteRevisions.editSite', sites.sftp.id);
      await s.waitFor({ ...form('#test'), timeoutMs: 30_000 });
      await s.fill({ ...form('#f-ftp_pass'), value: 'not-the-password' });
      await s.click(form('#test'));
      const headline = await s.until(() => s.texts(form('#test-results .headline')), (t) => /failed/.test(t.join('')), 'the failed test drawn', 60_000);
      assert.match(headline.join(''), /^Logged in failed: /);
      const failed = await s.texts(form('#test-results .stage.failed .label'));
      assert.deepEqual(failed, ['Logged in']);
      const passed = await s.texts(form('#test-results .stage.ok .label'));
      assert.deepEqual(passed, ['Name resolved', 'TCP connected', 'Host key']);
      assert.match((await s.texts(form('#test-results .next'))).join(''), /^Next step: /);
      assert.match((await s.texts(form('#test-results .note'))).join(''), /ran from this computer/);
      // The host key was asked once, with its fingerprint.
      const asked = spy.shown.find((m) => m.modal && m.items.includes('Trust and Connect'));
      assert.ok(asked?.message.includes(live.sftp!.hostKeyFingerprint), `the host key's fingerprint asked: ${asked?.message}`);
      // The stored password (the field left empty): every stage passes.
      await s.fill({ ...form('#f-ftp_pass'), value: '' });
      await s.click(form('#test'));
      await s.until(() => s.texts(form('#test-results .headline')), (t) => /The connection works/.test(t.join('')), 'the passing test drawn', 60_000);
      const rows = await s.texts(form('#test-results .stage .label'));
      assert.deepEqual(rows, ['Name resolved', 'TCP connected', 'Host key', 'Logged in', 'Folder listed']);
      const times = await s.texts(form('#test-results .stage .time'));
      assert.ok(times.every((t) => /^\d+ ms$/.test(t)), times.join(', '));
      assert.match((await s.texts(form('#test-results .headline'))).join(''), new RegExp(`${fs.readdirSync(live.sftp!.dataDir).length} entries`));
      await s.screenshot(path.join(os.tmpdir(), 'live-form-test.png')).catch(() => undefined);
    } finally {
      spy.restore();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('Live Files: the root listed lazily with the names on disk (spaces, non-ASCII, # and %), links shown as links and not followed outside the root; a live file opens (writable since issue 34: its saves go through the guard, transfer.live.test), its tab says it is live and from which site', async () => {
    const spy = trustAll();
    try {
      await s.openSitesView();
      await s.expandPath(['Live SFTP', 'Live Files']);
      const onDisk = fs.readdirSync(live.sftp!.dataDir);
      await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('hash#name.txt')), 'the entries drawn', 60_000);
      // Every entry on disk has its row (the tree draws only what is in view: each is scrolled to).
      const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      const liveRow = (n: string) => ({ selector: `${s.pane('Sites')} .monaco-list-row[aria-level="3"]`, hasText: `/^\\s*${escape(n)}/` });
      for (const n of onDisk) await s.scrollToRow(liveRow(n));
      await s.scrollToRow(liveRow('link-outside.txt'));
      const outside = (await s.rows()).find((r) => r.startsWith('link-outside.txt'))!;
      assert.match(outside, /→ .*outside\.txt.*outside the site's folder: not followed/);
      // Open the file with # in its name from its row.
      await s.scrollToRow(liveRow('hash#name.txt'));
      await s.click(liveRow('hash#name.txt'));
      await s.until(() => s.tabTitles(), (t) => t.includes('hash#name.txt (live · Live SFTP)'), 'the live tab title');
      const doc = (await waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'site-live'), { message: 'the live editor' })).document;
      assert.equal(doc.uri.scheme, 'site-live');
      assert.equal(doc.getText(), fs.readFileSync(path.join(live.sftp!.dataDir, 'hash#name.txt'), 'utf8'));
      // Writable since issue 34 (the saves and the guard: transfer.live.test).
      assert.equal(vscode.workspace.fs.isWritableFileSystem('site-live'), true);
      // Every special name round-trips through its URI's text form.
      const f = await api.live();
      for (const name of ['ünï cödé.txt', 'hash#name.txt', 'pct%20name.txt', 'percent%.txt', 'with space/a b.txt']) {
        const uri = vscode.Uri.parse(liveUri({ siteId: sites.sftp.id, account: f.connections.account()!, path: name }, sites.sftp.name).toString());
        assert.equal(uri.path, `/${name}`);
        const bytes = await vscode.workspace.fs.readFile(uri);
        assert.deepEqual(Buffer.from(bytes), fs.readFileSync(path.join(live.sftp!.dataDir, name)), name);
      }
      // The link outside the root is refused.
      const out = liveUri({ siteId: sites.sftp.id, account: f.connections.account()!, path: 'link-outside.txt' }, sites.sftp.name);
      await assert.rejects(Promise.resolve(vscode.workspace.fs.readFile(out)), /outside the site's folder/);
    } finally {
      spy.restore();
    }
  });

  it('another account signed in: an open live file shows that it belongs to another account, not the first account’s bytes; the first account back, its file again', async () => {
    const spy = trustAll();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startService } = require('../server') as typeof import('../server');
    const serviceB = await startService({ port: 0, host: '127.0.0.1', quiet: true });
    try {
      // Nothing expanded to be drawn expanded again when the first account is back.
      await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
      const f = await api.live();
      const name = 'ünï cödé.txt';
      const onDisk = fs.readFileSync(path.join(live.sftp!.dataDir, name), 'utf8');
      const uri = liveUri({ siteId: sites.sftp.id, account: f.connections.account()!, path: name }, sites.sftp.name);
      const doc = (await vscode.window.showTextDocument(uri, { preview: false })).document;
      assert.equal(doc.getText(), onDisk);
      // Another account (another service, where the same site id may name another site).
      await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: serviceB.url.replace(/\/+$/, ''), email: DEMO.team.email, password: DEMO.team.password });
      assert.equal(api.session.account?.email, DEMO.team.email);
      await waitFor(() => doc.getText().includes('belongs to another Site Revisions account'), { message: 'the live document read again for the other account' });
      assert.ok(!doc.getText().includes(onDisk.trim()), 'the first account’s bytes are gone');
      await s.until(() => s.texts({ selector: '.part.editor .editor-container' }), (t) => t.join('\n').replace(/\u00a0/g, ' ').includes('belongs to another Site Revisions account'), 'the message drawn in its tab');
      // Its writes are refused for the other account.
      await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('x'))), /another Site Revisions account/);
      assert.equal(fs.readFileSync(path.join(live.sftp!.dataDir, name), 'utf8'), onDisk, 'the server file untouched');
      // The first account again: its file again.
      await signInDemo(url);
      await waitFor(() => doc.getText() === onDisk, { message: 'the live file read again for its account' });
    } finally {
      spy.restore();
      if (api.session.account?.email !== DEMO.user.email || api.session.state !== 'signedIn') await signInDemo(url);
      await serviceB.close();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      // Signed in again, the rows expanded before are drawn expanded: folded, as the next test expects.
      await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
    }
  });

  it('a folder of 10,000 entries appears progressively under a “Loading… n so far” row; a click on it cancels, and what arrived stays drawn', async () => {
    const big = path.join(live.sftp!.dataDir, 'ten-thousand');
    fs.mkdirSync(big);
    for (let i = 0; i < 10_000; i++) fs.writeFileSync(path.join(big, `f${String(i).padStart(5, '0')}.txt`), `${i}\n`);
    const spy = trustAll();
    try {
      await s.openSitesView();
      // Folded first: "Live SFTP" expanded above would lend its own "Live Files" row to the path below.
      await vscode.commands.executeCommand('workbench.actions.treeView.siteRevisions.sites.collapseAll');
      await s.until(() => s.count({ selector: `${s.pane('Sites')} .monaco-list-row[aria-expanded="true"]` }), (n) => n === 0, 'the Sites rows folded');
      await s.expandPath(['Live SFTP slow', 'Live Files']);
      await s.expandPath(['Live SFTP slow', 'Live Files', 'ten-thousand']);
      const loading = { selector: `${s.pane('Sites')} .monaco-list-row`, hasText: '/Loading… [\\d,]+ so far/' };
      const first = await s.until(() => s.texts(loading), (t) => t.length > 0, 'the loading row with a count', 60_000);
      const n1 = Number(/([\d,]+) so far/.exec(first[0]!)![1]!.replace(/,/g, ''));
      const later = await s.until(() => s.texts(loading), (t) => t.length > 0 && Number(/([\d,]+) so far/.exec(t[0]!)![1]!.replace(/,/g, '')) > n1, 'the count growing', 60_000);
      const n2 = Number(/([\d,]+) so far/.exec(later[0]!)![1]!.replace(/,/g, ''));
      assert.ok(n1 > 0 && n2 > n1 && n2 < 10_000, `${n1} then ${n2}`);
      await s.click(loading);
      const done = await s.until(() => s.rows(), (r) => r.some((x) => /Listing cancelled: [\d,]+ entries shown/.test(x)), 'the cancelled row', 30_000);
      const shown = Number(/Listing cancelled: ([\d,]+) entries/.exec(done.find((x) => x.includes('Listing cancelled'))!)![1]!.replace(/,/g, ''));
      assert.ok(shown >= n2 && shown < 10_000, `${shown} shown`);
      await s.screenshot(path.join(os.tmpdir(), 'live-10k.png')).catch(() => undefined);
    } finally {
      spy.restore();
      fs.rmSync(big, { recursive: true, force: true });
    }
  });

  /** The files a live walk finds on disk: regular files, and links to files inside the root (links out, dangling links and folders' links left out). */
  const liveFilesOnDisk = (root: string): string[] => {
    const out: string[] = [];
    const walk = (dir: string, rel: string) => {
      for (const name of fs.readdirSync(dir)) {
        const abs = path.join(dir, name);
        const r = rel ? `${rel}/${name}` : name;
        const st = fs.lstatSync(abs);
        if (st.isDirectory()) walk(abs, r);
        else if (st.isFile()) out.push(r);
        else if (st.isSymbolicLink()) {
          const real = fs.existsSync(abs) ? fs.realpathSync(abs) : '';
          if (real.startsWith(`${fs.realpathSync(root)}/`) && fs.statSync(abs).isFile()) out.push(r);
        }
      }
    };
    walk(root, '');
    return out.sort();
  };

  it('Compare Live with Local: the groups drawn in the Live Server view (expected from the two folders on disk), the basis of each row, a row opens its diff', async () => {
    const data = live.sftp!.dataDir;
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'live-local-'));
    const liveFiles = liveFilesOnDisk(data);
    for (const f of liveFiles) {
      if (fs.lstatSync(path.join(data, f)).isSymbolicLink()) continue;
      fs.mkdirSync(path.dirname(path.join(local, f)), { recursive: true });
      fs.copyFileSync(path.join(data, f), path.join(local, f));
    }
    fs.appendFileSync(path.join(local, 'index.html'), '<p>edited locally</p>\n');
    const readme = fs.readFileSync(path.join(local, 'sub/readme.md'), 'utf8');
    fs.writeFileSync(path.join(local, 'sub/readme.md'), readme.replace('nested', 'NESTED'));
    fs.rmSync(path.join(local, 'old.txt'));
    fs.writeFileSync(path.join(local, 'local-only.txt'), 'only here\n');
    await api.revisions.folders.set(sites.sftp.id, vscode.Uri.file(local));
    const spy = trustAll();
    try {
      const run = (await vscode.commands.executeCommand('siteRevisions.compareLiveWithLocal', sites.sftp.id)) as { finished: Promise<void>; state: string; result?: { rows: { path: string; group: string; basis: string }[] } };
      await run.finished;
      assert.equal(run.state, 'done');
      const localFiles = liveFilesOnDisk(local);
      const by = (g: string) => run.result!.rows.filter((r) => r.group === g).map((r) => r.path).sort();
      assert.deepEqual(by('differsFromLocal'), ['index.html', 'sub/readme.md']);
      assert.deepEqual(by('onlyLive'), liveFiles.filter((f) => !localFiles.includes(f)));
      assert.deepEqual(by('onlyLocal'), ['local-only.txt']);
      assert.equal(run.result!.rows.find((r) => r.path === 'sub/readme.md')!.basis, 'hash');
      const pane = 'Live Server';
      const rows = await s.until(() => s.rows(pane), (r) => r.some((x) => x.startsWith('Differs from local')) && r.some((x) => x.startsWith('readme.md')), 'the groups drawn', 30_000);
      assert.ok(rows.some((x) => x.startsWith('readme.md') && x.includes('same size, content differs')), rows.join(' | '));
      assert.ok(rows.some((x) => x.startsWith('index.html') && x.includes('size differs')), rows.join(' | '));
      await s.click({ selector: `${s.pane(pane)} .monaco-list-row`, hasText: '/^\\s*readme\\.md/' });
      await s.until(() => s.tabTitles(), (t) => t.includes('readme.md (live ↔ working file)'), 'the diff of the row');
      await s.screenshot(path.join(os.tmpdir(), 'live-compare-local.png')).catch(() => undefined);
    } finally {
      spy.restore();
      await api.revisions.folders.set(sites.sftp.id, undefined);
      fs.rmSync(local, { recursive: true, force: true });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  /** Revisions on the service for the SFTP site: every text file as it is live, but two. */
  const seedHistory = async () => {
    const data = live.sftp!.dataDir;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { SAME_SIZE } = require('../live/seed') as typeof import('../live/seed');
    for (const f of liveFilesOnDisk(data)) {
      if (f.startsWith('bin/') || fs.lstatSync(path.join(data, f)).isSymbolicLink()) continue;
      let content = fs.readFileSync(path.join(data, f), 'utf8');
      if (f === SAME_SIZE.path) content = SAME_SIZE.revisionContent.toString('utf8');
      if (f === 'index.html') content = '<!doctype html>\n<title>older</title>\n';
      if (!content) continue;
      await control(url, 'add-revision', { siteId: sites.sftp.id, path: f, content, author: 'dev@example.com' });
    }
    await control(url, 'add-revision', { siteId: sites.sftp.id, path: 'gone.txt', content: 'deleted on the server since\n', author: 'dev@example.com' });
    (await api.loadRevisions()).store.clear();
  };

  it('Live Drift: files changed on the server since their newest revision (a same-size edit caught by content), files with no revision, files only in the history; a row opens newest revision ↔ live', async () => {
    await seedHistory();
    const spy = trustAll();
    try {
      const run = (await vscode.commands.executeCommand('siteRevisions.liveDrift', sites.sftp.id)) as { finished: Promise<void>; state: string; result?: { rows: { path: string; group: string; basis: string }[] } };
      await run.finished;
      assert.equal(run.state, 'done');
      const by = (g: string) => run.result!.rows.filter((r) => r.group === g);
      // The same-size file is decided by its content: hashed now, or known from the compare's read (last seen).
      assert.deepEqual(by('differsFromNewest').map((r) => `${r.path}:${r.basis.replace('lastSeen', 'hash')}`).sort(), ['index.html:size', 'same-size.txt:hash']);
      assert.deepEqual(by('onlyInHistory').map((r) => r.path), ['gone.txt']);
      assert.ok(by('onlyLive').some((r) => r.path === 'bin/blob.bin'));
      const pane = 'Live Server';
      const rows = await s.until(() => s.rows(pane), (r) => r.some((x) => x.startsWith('Differs from the newest revision')) && r.some((x) => x.startsWith('same-size.txt')), 'the drift groups drawn', 30_000);
      assert.ok(rows.some((x) => x.startsWith('same-size.txt') && x.includes('same size, content differs')), rows.join(' | '));
      await s.click({ selector: `${s.pane(pane)} .monaco-list-row`, hasText: '/^\\s*same-size\\.txt/' });
      await s.until(() => s.tabTitles(), (t) => t.includes('same-size.txt (newest revision ↔ live)'), 'the diff of the row');
      await s.screenshot(path.join(os.tmpdir(), 'live-drift.png')).catch(() => undefined);
    } finally {
      spy.restore();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('the language-model tool answers the drift with paths and groups, and no credential', async () => {
    const spy = trustAll();
    try {
      const r = await vscode.lm.invokeTool('siteRevisions_liveCompare', { input: { site: sites.sftp.id, mode: 'drift' }, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
      const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      assert.match(text, /^Live drift of the whole site of site "Live SFTP"/);
      const data = JSON.parse(text.slice(text.indexOf('\n') + 1)) as { groups: Record<string, { path: string }[]> };
      assert.deepEqual(data.groups.changedOnServer!.map((g) => g.path).sort(), ['index.html', 'same-size.txt']);
      assert.ok(!text.includes(live.sftp!.password), 'no password');
      assert.ok(!text.includes(live.sftp!.user) && !text.includes(String(live.sftp!.port)), 'no user, no port');
    } finally {
      spy.restore();
    }
  });

  it('a changed host key is refused with both fingerprints; nothing is asked', async () => {
    const f = await api.live();
    const before = live.sftp!.hostKeyFingerprint;
    const after = await live.sftp!.rotateHostKey();
    const spy = trustAll();
    try {
      const r = (await vscode.commands.executeCommand('siteRevisions.testConnection', sites.sftp.id)) as { view: { ok: boolean; headline: string; next?: string } };
      assert.equal(r.view.ok, false);
      assert.match(r.view.headline, /^Host key failed: /);
      const all = `${r.view.headline} ${r.view.next}`;
      assert.ok(all.includes(before.replace(/=+$/, '')) && all.includes(after.replace(/=+$/, '')), all);
      assert.equal(spy.shown.filter((m) => m.modal).length, 0, 'no dialog offers to connect anyway');
    } finally {
      spy.restore();
      f.connections.closeAll();
    }
  });
});

// Import Sites… and Export Sites… on screen, against the local service: the preview (a site
// already on the service unticked and marked, one that cannot be imported not tickable), an
// untick, the confirmation, the progress, the sites in the Sites view; a failure and Retry; a
// cancel before the next save; a file dropped on the view; an export read back.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import { parseSiteFile } from '../../src/core/siteImport';
import type { ImportOutcome } from '../../src/features/siteImport';
import { SiteFileDrop } from '../../src/features/siteImport/register';
import { control, reseededAndSignedIn, stubWindow } from './support';
import { screenOrSkip, type Screen } from './screen';

const QUICK = '.quick-input-widget';
const ROW = `${QUICK} .monaco-list-row`;

/** A FileZilla site manager: Acme Corporate is on the demo account already; one site has a port the form refuses. */
function siteManager(names: string[], extra = ''): string {
  const servers = names
    .map((n, i) => `<Server><Host>ftp${i}.${n.toLowerCase().replace(/[^a-z]+/g, '-')}.example</Host><Port>21</Port><Protocol>4</Protocol><User>user${i}</User><Pass encoding="base64">${Buffer.from(`pass-${i}`).toString('base64')}</Pass><Logontype>1</Logontype><Name>${n}</Name><RemoteDir>1 0 3 www 4 my s</RemoteDir></Server>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<FileZilla3><Servers>\n${servers}\n${extra}</Servers></FileZilla3>\n`;
}

const ACME = '<Server><Host>ftp.acme-corp.example</Host><Port>21</Port><Protocol>4</Protocol><User>acmeweb</User><Logontype>1</Logontype><Name>Acme again</Name><RemoteDir>1 0 11 public_html</RemoteDir></Server>';

describe('Import Sites and Export Sites', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;
  let dir: string;

  before(async () => {
    ({ url, api } = await reseededAndSignedIn());
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-import-it-'));
    // What earlier suites left in the notification center is not read as this suite's.
    await vscode.commands.executeCommand('notifications.clearAll');
  });
  after(async () => {
    await control(url, 'config', { failNext: [], latencyMs: 0 });
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await control(url, 'config', { failNext: [], latencyMs: 0 });
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  const write = (name: string, text: string) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text);
    return vscode.Uri.file(f);
  };
  const serviceSites = () => api.session.call((c) => c.getSites());
  const rowTexts = (s: Screen) => s.texts({ selector: ROW });
  const box = (name: string) => ({ selector: `${ROW}:has-text("${name}") .monaco-checkbox` });
  /** Confirms the preview once its title counts `ticked` of `of` (what a person reads before pressing OK). */
  const confirm = async (s: Screen, ticked: number, of: number) => {
    await s.until(() => s.texts({ selector: `${QUICK} .quick-input-title` }), (t) => t.join(' ').includes(`: ${ticked} of ${of} ticked`), 'the preview’s count');
    await s.click({ selector: `${QUICK} .monaco-button`, hasText: 'OK' });
  };

  it('previews (the site already on the service unticked and marked, one that cannot be imported not tickable), saves the ticked ones with progress, and the Sites view shows them', async function () {
    const s = screenOrSkip(this);
    const bad = '<Server><Host>bad port.example</Host><Port>21</Port><Protocol>1</Protocol><Name>Spaced host</Name></Server>';
    const file = write('sitemanager.xml', siteManager(['Imported One', 'Imported Two', 'Left Unticked'], ACME + bad));
    // Each save takes a while: the progress is on screen long enough to be read.
    await control(url, 'config', { latencyMs: 1500 });
    const running = vscode.commands.executeCommand('siteRevisions.importSites', file) as Thenable<ImportOutcome | undefined>;
    try {
      const title = await s.until(() => s.texts({ selector: `${QUICK} .quick-input-title` }), (t) => t.join(' ').includes('Import Sites from FileZilla'), 'the preview');
      assert.match(title.join(' '), /Import Sites from FileZilla \(sitemanager\.xml\): 3 of 5 ticked/);
      const rows = await s.until(() => rowTexts(s), (r) => r.some((x) => x.includes('Acme again')), 'the rows');
      const acme = rows.find((r) => r.includes('Acme again'))!;
      assert.match(acme, /Already on the service as “Acme Corporate”/);
      assert.match(acme, /FTP · ftp\.acme-corp\.example:21/);
      const one = rows.find((r) => r.includes('Imported One'))!;
      assert.match(one, /user user0 · home \/www\/my s · password included/);
      assert.match(rows.find((r) => r.includes('Spaced host'))!, /Cannot be imported: Host must not contain spaces/);
      assert.equal(await s.attribute({ ...box('Acme again'), name: 'aria-checked' }), 'false', 'the site on the service is unticked');
      assert.equal(await s.attribute({ ...box('Imported One'), name: 'aria-checked' }), 'true');
      // A site that cannot be imported does not stay ticked.
      await s.click(box('Spaced host'));
      await s.until(() => s.attribute({ ...box('Spaced host'), name: 'aria-checked' }), (v) => v === 'false', 'the invalid row unticked again');
      await s.click(box('Left Unticked'));
      await s.until(() => s.texts({ selector: `${QUICK} .quick-input-title` }), (t) => t.join(' ').includes('2 of 5 ticked'), 'the count after the untick');
      await s.click({ selector: `${QUICK} .monaco-button`, hasText: 'OK' });
    } catch (e) {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      throw e;
    }
    await vscode.commands.executeCommand('notifications.showList');
    await s.until(() => s.notifications(), (n) => n.some((x) => /Importing sites/.test(x) && /of 2\)/.test(x)), 'the progress', 20000);
    const out = (await running)!;
    assert.deepEqual(out.saved.map((x) => x.row.site.fields.name), ['Imported One', 'Imported Two']);
    await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Imported 2 sites.')), 'the summary');
    const listed = await serviceSites();
    const one = listed.find((x) => x.name === 'Imported One')!;
    assert.deepEqual([one.server_type, one.domain, one.port, one.ftp_user, one.ftp_pass, one.dir, one.encryption], ['FTP', 'ftp0.imported-one.example', '21', 'user0', 'pass-0', '/www/my s', '1']);
    assert.ok(!listed.some((x) => x.name === 'Left Unticked' || x.name === 'Acme again' || x.name === 'Spaced host'), 'nothing unticked was saved');
    await s.openSitesView();
    await s.until(() => s.texts({ selector: '.pane-body .monaco-list-row' }), (r) => r.some((x) => x.includes('Imported One')) && r.some((x) => x.includes('Imported Two')), 'the imported sites in the Sites view');
  });

  it('a failed save costs that site only; the summary’s Retry saves it, once', async function () {
    const s = screenOrSkip(this);
    await control(url, 'config', { failNext: [{ kind: 'serviceError', operation: 'saveSite', error: 'Quota of sites reached' }] });
    const file = write('retry.xml', siteManager(['Retry First', 'Retry Second']));
    const running = vscode.commands.executeCommand('siteRevisions.importSites', file) as Thenable<ImportOutcome | undefined>;
    await s.until(() => rowTexts(s), (r) => r.some((x) => x.includes('Retry Second')), 'the preview');
    await confirm(s, 2, 2);
    const out = (await running)!;
    assert.deepEqual([out.saved.map((x) => x.row.site.fields.name), out.failed.map((x) => x.row.site.fields.name)], [['Retry Second'], ['Retry First']]);
    await vscode.commands.executeCommand('notifications.showList');
    const said = await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Imported 1 of 2 sites')), 'the summary with the failure');
    assert.match(said.find((x) => x.includes('Imported 1 of 2'))!, /1 failed: Retry First \(first: “Retry First”: .*Quota of sites reached\)/);
    assert.equal((await serviceSites()).filter((x) => x.name === 'Retry First').length, 0);
    await s.click({ selector: '.notification-list-item-buttons-container .monaco-button', hasText: 'Retry' });
    await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Imported 1 site.')), 'the summary of the retry');
    const listed = await serviceSites();
    assert.equal(listed.filter((x) => x.name === 'Retry First').length, 1);
    assert.equal(listed.filter((x) => x.name === 'Retry Second').length, 1, 'the site saved before is not saved again');
  });

  it('Cancel stops before the next save: the one under way is finished, the rest not tried', async function () {
    const s = screenOrSkip(this);
    // The first save stays under way long enough to be seen and cancelled.
    await control(url, 'config', { latencyMs: 5000 });
    const file = write('cancel.xml', siteManager(['Cancel A', 'Cancel B', 'Cancel C']));
    const running = vscode.commands.executeCommand('siteRevisions.importSites', file) as Thenable<ImportOutcome | undefined>;
    await s.until(() => rowTexts(s), (r) => r.some((x) => x.includes('Cancel C')), 'the preview');
    await confirm(s, 3, 3);
    await vscode.commands.executeCommand('notifications.showList');
    await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Cancel A (1 of 3)')), 'the first save under way');
    await s.click({ selector: '.notification-list-item-buttons-container .monaco-button', hasText: 'Cancel' });
    const out = (await running)!;
    assert.deepEqual([out.saved.map((x) => x.row.site.fields.name), out.notTried.map((r) => r.site.fields.name), out.failed.length], [['Cancel A'], ['Cancel B', 'Cancel C'], 0]);
    const listed = await serviceSites();
    assert.deepEqual(['Cancel A', 'Cancel B', 'Cancel C'].map((n) => listed.filter((x) => x.name === n).length), [1, 0, 0]);
    // The center closes with its last notification (the progress): open it again.
    await vscode.commands.executeCommand('notifications.showList');
    await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Imported 1 of 3 sites: cancelled before the others.')), 'the summary');
  });

  it('a file dropped on the Sites view opens the preview; closing it saves nothing', async function () {
    const s = screenOrSkip(this);
    const file = write('dropped.xml', siteManager(['Dropped Site']));
    const before = (await serviceSites()).length;
    const data = new vscode.DataTransfer();
    data.set('text/uri-list', new vscode.DataTransferItem(`${file.toString()}\r\n`));
    await new SiteFileDrop().handleDrop(undefined, data);
    await s.until(() => rowTexts(s), (r) => r.some((x) => x.includes('Dropped Site')), 'the preview of the dropped file');
    await s.press('Escape');
    await s.until(() => s.count({ selector: `${QUICK}:not(.hidden) ${ROW}` }), (n) => n === 0, 'the preview closed');
    assert.equal((await serviceSites()).length, before);
  });

  it('vscode-sftp: uploadOnSave is carried (kept here when the service does not keep it), and the folder that holds .vscode is offered for mapping', async function () {
    const s = screenOrSkip(this);
    const project = path.join(dir, 'project');
    fs.mkdirSync(path.join(project, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(project, '.vscode', 'sftp.json'), JSON.stringify({ name: 'From sftp.json', host: 'sftp.project.example', username: 'dev', password: 'pw-1', remotePath: '/srv/project', uploadOnSave: true }));
    const running = vscode.commands.executeCommand('siteRevisions.importSites', vscode.Uri.file(path.join(project, '.vscode', 'sftp.json'))) as Thenable<ImportOutcome | undefined>;
    await s.until(() => rowTexts(s), (r) => r.some((x) => x.includes('From sftp.json')), 'the preview');
    await confirm(s, 1, 1);
    const out = (await running)!;
    const siteId = out.saved[0]!.siteId;
    await vscode.commands.executeCommand('notifications.showList');
    await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Map “From sftp.json” to the folder its sftp.json belongs to')), 'the offer to map the folder');
    await s.click({ selector: '.notification-list-item-buttons-container .monaco-button', hasText: 'Map Folders' });
    const revisions = await api.loadRevisions();
    await s.until(async () => revisions.folders.get(siteId)?.fsPath, (f) => f === project, 'the folder mapped');
    // The local service keeps only the spec's Save Site fields: the value is kept in this editor.
    const state = api.context.globalState.get<Record<string, string>>('siteRevisions.uploadOnSave') ?? {};
    assert.deepEqual(Object.entries(state).filter(([k]) => k.endsWith(`#${siteId}`)).map(([, v]) => v), ['1']);
    await revisions.folders.set(siteId, undefined);
  });

  it('exports the chosen sites as a FileZilla XML file (passwords after the warning), 0600, and the export reads back', async function () {
    const s = screenOrSkip(this);
    const mine = (await serviceSites()).filter((x) => x.name === 'Imported One' || x.name === 'Acme Corporate');
    const target = vscode.Uri.file(path.join(dir, 'export', 'FileZilla.xml'));
    fs.mkdirSync(path.dirname(target.fsPath), { recursive: true });
    // Modal dialogs of extensions are refused under the test runner: the warning is answered here (and read).
    let warned = '';
    const restore = stubWindow('showWarningMessage', (async (m: string, o: { modal?: boolean; detail?: string }, ...items: string[]) => {
      warned = `${m} ${o.detail ?? ''} [${items.join(', ')}]`;
      return o.modal ? 'Write Passwords' : undefined;
    }) as never);
    const running = vscode.commands.executeCommand('siteRevisions.exportSites', { siteIds: mine.map((x) => x.id), target }) as Thenable<vscode.Uri | undefined>;
    try {
      await s.until(() => rowTexts(s), (r) => r.some((x) => x.includes('FileZilla XML file')), 'the format pick');
      await s.click({ selector: ROW, hasText: 'FileZilla XML file' });
      await s.until(() => rowTexts(s), (r) => r.some((x) => x.includes('Include passwords')), 'the password pick');
      await s.click({ selector: ROW, hasText: 'Include passwords' });
      assert.equal((await running)?.fsPath, target.fsPath);
    } catch (e) {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      throw e;
    } finally {
      restore();
    }
    assert.match(warned, /^Write the passwords of 2 sites into the file\? .*not encrypted.*never written\. \[Write Passwords\]$/);
    if (process.platform !== 'win32') assert.equal(fs.statSync(target.fsPath).mode & 0o777, 0o600);
    const back = await parseSiteFile(target.fsPath);
    const byName = (n: string) => back.sites.find((x) => x.fields.name === n)!.fields;
    const expect = (x: Site) => [x.server_type, x.domain, x.port, x.ftp_user, x.ftp_pass, x.dir];
    for (const x of mine) assert.deepEqual([byName(x.name).server_type, byName(x.name).domain, byName(x.name).port, byName(x.name).ftp_user, byName(x.name).ftp_pass, byName(x.name).dir], expect(x), x.name);
    await vscode.commands.executeCommand('notifications.showList');
    await s.until(() => s.notifications(), (n) => n.some((x) => x.includes('Exported 2 sites to FileZilla.xml.')), 'the notification of the export');
    // Without passwords (decided by the caller): none in the file.
    const bare = vscode.Uri.file(path.join(dir, 'export', 'bare.xml'));
    await vscode.commands.executeCommand('siteRevisions.exportSites', { siteIds: mine.map((x) => x.id), target: bare, format: 'filezilla', includePasswords: false });
    assert.doesNotMatch(fs.readFileSync(bare.fsPath, 'utf8'), /<Pass/);
  });
});

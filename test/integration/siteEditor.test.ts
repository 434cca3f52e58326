// The site editor’s own script (src/features/sites/webview/main.ts, bundled as dist/siteEditor.js) in the real workbench: every flow is typed
// and clicked into the webview's form through Chromium — create, switch the server type, a
// validation message, Ctrl+Enter to save, a failed save that keeps the input — not through the
// host-side simulate() hook. Elements are found by their stable ids (f-<field>, save, banner…)
// and labels, not by the form's structure.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { screenOrSkip, type Screen, type Target } from './screen';
import { control, isDisposed, signInDemo } from './support';
import { ext, testService, waitFor } from './util';

const WEBVIEW = ['iframe.webview', 'iframe#active-frame'];

describe('Screen: the site editor’s own form, typed into and clicked', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;
  let s: Screen;

  /** An element of the form, by CSS selector (inside the webview's frames). */
  const form = (selector: string, more: Partial<Target> = {}): Target => ({ selector, frames: WEBVIEW, ...more });
  const field = (name: string) => form(`#f-${name}`);
  const errorOf = (name: string) => form(`#f-${name}-error`);
  const labelOf = (name: string) => form(`label[for="f-${name}"]`);

  /** Opens a new-site form from the Sites view's title bar (its + button) and waits for the form. */
  async function newSiteForm(): Promise<void> {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await s.openSitesView();
    await s.clickViewAction('Sites', 'New Site');
    await s.waitFor(field('name'));
    assert.equal((await s.texts(form('#title')))[0], 'New site');
  }

  /** The site once the service lists it (each look asks the service again). */
  const listed = (name: string) =>
    waitFor(
      async () => {
        api.model.refresh();
        return (await api.model.all()).find((x) => x.name === name);
      },
      { message: `“${name}” on the service`, intervalMs: 250 },
    );

  before(async function () {
    s = screenOrSkip(this);
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'reseed');
    await signInDemo(url);
    await vscode.commands.executeCommand('siteRevisions.clearFilter');
  });

  afterEach(async () => {
    await control(url, 'config', { failNext: [] });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(async () => {
    await control(url, 'reseed');
  });

  it('create: the fields typed in, Save clicked; the site is saved, the form closes and the site is drawn in the view', async () => {
    await newSiteForm();
    await s.fill({ ...field('name'), value: 'Typed FTP' });
    await s.fill({ ...field('domain'), value: 'ftp.typed.example' });
    await s.fill({ ...field('ftp_user'), value: 'typist' });
    await s.fill({ ...field('ftp_pass'), value: 'Typed-Pa55' });
    await s.fill({ ...field('dir'), value: '/www' });
    await s.click(form('#save'));
    const site = await listed('Typed FTP');
    assert.equal(site.server_type, 'FTP');
    assert.equal(site.domain, 'ftp.typed.example');
    assert.equal(site.ftp_pass, 'Typed-Pa55');
    assert.equal(site.port, '21', 'the FTP default the form filled in');
    assert.equal(site.pasv, '1');
    await s.until(() => s.count({ selector: 'iframe.webview' }), (n) => n === 0, 'the form closed');
    await s.until(() => s.rows(), (r) => r.some((x) => x.startsWith('Typed FTP')), 'the new site in the Sites view');
  });

  it('switching the server type changes the fields, their labels and defaults', async () => {
    await newSiteForm();
    assert.equal(await s.value(field('server_type')), 'FTP');
    assert.equal(await s.value(field('port')), '21');
    assert.equal(await s.count(field('pasv')), 1, 'FTP has passive mode');
    await s.selectOption({ ...field('server_type'), value: 'SFTP' });
    await s.until(() => s.value(field('port')), (v) => v === '22', 'the SFTP port');
    assert.equal(await s.count(field('pasv')), 0, 'no passive mode for SFTP');
    assert.equal(await s.count(field('logon_type')), 1, 'SFTP asks how to authenticate');
    await s.selectOption({ ...field('server_type'), value: 'AmazonS3' });
    await s.until(() => s.texts(labelOf('domain')), (t) => t.some((x) => x.startsWith('Bucket')), 'the bucket label');
    assert.equal(await s.count(field('s3_public')), 1);
    assert.equal(await s.count(field('port')), 0, 'no port for S3');
    await s.selectOption({ ...field('server_type'), value: 'Dropbox' });
    await s.until(() => s.count(field('domain')), (n) => n === 0, 'no host for Dropbox');
    assert.match((await s.texts(form('.note'))).join(' '), /authorized through the service/);
  });

  it('a value the rules refuse shows its message at the field and in the banner; nothing is sent', async () => {
    await newSiteForm();
    await control(url, 'reset-stats');
    await s.fill({ ...field('name'), value: '' });
    await s.fill({ ...field('port'), value: 'abc' });
    await s.click(form('#save'));
    await s.until(() => s.texts(errorOf('port')), (t) => t.join('') === 'Port must be a whole number from 1 to 65535.', 'the port message');
    assert.equal((await s.texts(errorOf('name'))).join(''), 'Enter a name for the site.');
    assert.equal(await s.attribute({ ...field('port'), name: 'aria-invalid' }), 'true');
    assert.match((await s.texts(form('#banner'))).join(''), /fields need attention|needs attention/);
    assert.equal((await control(url, 'stats')).counts.saveSite, 0, 'nothing was sent');
    // Correcting a field clears its message as the user types.
    await s.fill({ ...field('port'), value: '2121' });
    await s.until(() => s.texts(errorOf('port')), (t) => t.join('') === '', 'the port message gone');
  });

  it('Ctrl+Enter saves from any field', async () => {
    await newSiteForm();
    await s.fill({ ...field('name'), value: 'Keyboard Site' });
    await s.selectOption({ ...field('server_type'), value: 'None' });
    await s.focus(field('name'));
    await s.press('Control+Enter');
    const site = await listed('Keyboard Site');
    assert.equal(site.server_type, 'None');
    await s.until(() => s.count({ selector: 'iframe.webview' }), (n) => n === 0, 'the form closed');
  });

  it('a failed save shows the service’s message in the banner, keeps the form and every value typed; saving again works', async () => {
    await newSiteForm();
    await s.fill({ ...field('name'), value: 'Kept Input' });
    await s.fill({ ...field('domain'), value: 'ftp.kept.example' });
    await s.fill({ ...field('ftp_pass'), value: 'Kept-Pa55' });
    await control(url, 'config', { failNext: [{ kind: 'http500', operation: 'saveSite' }] });
    await s.click(form('#save'));
    const banner = await s.until(() => s.texts(form('#banner')), (t) => /HTTP 500/.test(t.join('')), 'the failure in the banner');
    assert.match(banner.join(''), /^The site was not saved\. /);
    const panel = api.editors.last!.panel;
    assert.equal(isDisposed(panel), false, 'the form stays open');
    assert.equal(await s.value(field('name')), 'Kept Input');
    assert.equal(await s.value(field('domain')), 'ftp.kept.example');
    assert.equal(await s.value(field('ftp_pass')), 'Kept-Pa55', 'the typed password too');
    await s.click(form('#save'));
    const site = await listed('Kept Input');
    assert.equal(site.ftp_pass, 'Kept-Pa55');
    await waitFor(() => isDisposed(panel), { message: 'the form closes once saved' });
  });
});

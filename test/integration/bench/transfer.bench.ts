// Transfers in the real extension host (issue 34's row "the host's event loop during each"):
// the extension host's event loop while a folder download runs from its command (over SFTP and
// FTPS) and while a save of a mapped file is uploaded by upload on save. The transfers themselves
// are measured in plain Node by bench/transfer.ts against rclone and lftp; this is the host's
// side: the thread every extension shares. The real servers of test/live, started here (as the
// transfer suites do), on loopback with nothing added. Run by `npm run bench` (the host step,
// after actions.bench.ts); the figures are added to SITE_REVISIONS_BENCH_OUT under `transfer`.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { performance } from 'node:perf_hooks';
import { sampleLoopDelay } from '../../../bench/lib';
import { control } from '../support';
import { transferContext, type TransferContext } from '../transferSupport';
import { waitFor } from '../util';
import { addHostFigures, type HostFigures } from './figures';

const SAMPLES = Math.max(1, Number(process.env.SITE_REVISIONS_BENCH_SAMPLES) || 3);
/** The folder downloaded: 20 folders of 25 files of 40,000 bytes (500 files, 20 MB). */
const FOLDERS = 20;
const PER_FOLDER = 25;
const FILE_BYTES = 40_000;
/** Saves uploaded by upload on save (after one that answers its first-time question). */
const SAVES = Math.max(5, SAMPLES * 3);

type Figures = NonNullable<HostFigures['transfer']>;

describe('Bench: transfers in the real host (the event loop)', function () {
  this.timeout(600_000);
  let t: TransferContext | undefined;
  const figures: Figures = { files: FOLDERS * PER_FOLDER, bytes: FOLDERS * PER_FOLDER * FILE_BYTES, download: [], save: [], errors: [] };

  before(async function () {
    try {
      t = await transferContext('Bench transfer');
    } catch (e) {
      // The servers are Debian packages (test/live/system.ts); without them the rows say why.
      figures.skipped = (e as Error).message;
      this.skip();
    }
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') figures.errors.push(`${this.currentTest.title}: ${this.currentTest.err?.message ?? 'failed'}`);
  });

  after(async () => {
    await t?.close();
    addHostFigures({ transfer: figures });
  });

  it('a folder download from its command over SFTP and FTPS (500 files, 20 MB): the host’s event loop meanwhile', async () => {
    const ctx = t!;
    for (const kind of ['sftp', 'ftp'] as const) {
      const srv = ctx.server(kind);
      for (let i = 0; i < SAMPLES; i++) {
        const root = `bench-dl-${i}`;
        for (let d = 0; d < FOLDERS; d++) for (let f = 0; f < PER_FOLDER; f++) srv.write(`${root}/d${d}/f${f}.bin`, Buffer.alloc(FILE_BYTES, (d * PER_FOLDER + f) % 251));
        const loop = sampleLoopDelay();
        const t0 = performance.now();
        const r = (await vscode.commands.executeCommand('siteRevisions.download', ctx.working(kind, root))) as { downloaded: number; failed: unknown[]; conflicts: unknown[] } | undefined;
        const ms = performance.now() - t0;
        const delay = loop.stop();
        assert.equal(r?.downloaded, figures.files, JSON.stringify(r));
        assert.equal(ctx.readLocal(kind, `${root}/d${FOLDERS - 1}/f${PER_FOLDER - 1}.bin`)?.length, FILE_BYTES, 'the last file on disk');
        figures.download.push({ kind, ms, loop: delay });
      }
    }
  });

  it('upload on save of one file over SFTP, save → uploaded (guard included): the host’s event loop meanwhile', async () => {
    const ctx = t!;
    const srv = ctx.server('sftp');
    const f = await ctx.api.transfer();
    const rel = 'bench-save/page.html';
    srv.write(rel, `<p>${'v0 '.repeat(1700)}</p>\n`);
    await vscode.commands.executeCommand('siteRevisions.download', ctx.working('sftp', rel));
    await control(ctx.url, 'site-fields', { siteId: ctx.sites.sftp.id, fields: { upload_on_save: '1' } });
    ctx.api.model.refresh();
    await waitFor(async () => (await ctx.api.model.all()).find((x) => x.id === ctx.sites.sftp.id)?.upload_on_save === '1', { message: 'upload_on_save listed' });
    ctx.answer = (m) => (m.items.includes('Upload on Save') ? 'Upload on Save' : undefined);
    const doc = await vscode.workspace.openTextDocument(ctx.working('sftp', rel));
    await vscode.window.showTextDocument(doc, { preview: false });
    const save = async (n: number): Promise<string> => {
      const text = `<p>${`v${n} `.repeat(1700)}</p>\n`;
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
      await vscode.workspace.applyEdit(edit);
      assert.ok(await doc.save(), 'saved');
      return text;
    };
    const uploaded = async (text: string) => {
      await waitFor(() => srv.read(rel)?.toString() === text, { message: 'uploaded on save', timeoutMs: 60_000, intervalMs: 5 });
      await waitFor(() => f.uploadOnSave.items().length === 0, { message: 'the queue empty', intervalMs: 5 });
    };
    // The first save asks (the answer is remembered for the site); not measured.
    await uploaded(await save(1));
    for (let i = 0; i < SAVES; i++) {
      const loop = sampleLoopDelay();
      const t0 = performance.now();
      await uploaded(await save(i + 2));
      const ms = performance.now() - t0;
      figures.save.push({ ms, loop: loop.stop() });
    }
    ctx.answer = undefined;
    await control(ctx.url, 'site-fields', { siteId: ctx.sites.sftp.id, fields: { upload_on_save: '0' } });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

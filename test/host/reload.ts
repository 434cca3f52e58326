// Revision tabs and site editors across a window reload, in the real workbench: code-server with
// this repository as an extension, the demo service and user, headless Chromium. The suites of
// test/integration run inside the extension host, which a reload ends, so this check drives the
// page from here: open a revision and a diff of two revisions from the Sites view (clicks only),
// and a new-site form and an edit form typed into (passwords too); reload the page, and read what
// the restored tabs show — their titles, their content, the language mode, the forms with what
// was typed but no password — and that no editor says it could not be opened.
//
//   node out/test/host/reload.js [--results FILE] [--keep]
//
// Compile and bundle first (npx tsc -p . && node esbuild.mjs). Exits 0 only when every check passed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { Cleanup, finishRun, log, makeRunDir, repoRoot, runMain, type RunResults } from './common';
import { startDemo } from './demo';
import { ensureAll } from './install';
import { openWorkbench, type Workbench } from './workbench';
import { writeWorkspace } from './workspace';

/** `index.php (2026-10-01 12:25, demo@example.com)`: a revision's title (uri.ts). */
const REVISION_TITLE = /^index\.php \(\d{4}-\d\d-\d\d \d\d:\d\d, [^)]+\)$/;
const CANNOT_OPEN = /could not be opened|unexpected error|Could not load revision/i;

async function tabLabels(page: Page): Promise<string[]> {
  const tabs = page.locator('.part.editor .tabs-container .tab');
  const n = await tabs.count();
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await tabs.nth(i).getAttribute('aria-label')) ?? '');
  return out;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await read().catch(() => last);
    if (last !== undefined && ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An element of the visible site editor's form (the webview's frames). */
function form(page: Page, selector: string) {
  return page.frameLocator('iframe.webview:visible').frameLocator('iframe#active-frame').locator(selector);
}

/** Typed into the site editors before the reload. */
const TYPED = { newName: 'Typed before the reload', newHost: 'sftp.reload.example', editName: 'Acme Corporate (typed before the reload)', password: 'Typed-Not-Kept-Pa55' };

/** The text the active editor (or both sides of a diff) draws. */
function editorText(page: Page): Promise<string> {
  return page.locator('.part.editor .editor-group-container.active .editor-container').first().innerText();
}

async function rowAction(wb: Workbench, row: RegExp, label: string): Promise<void> {
  const r = await wb.waitForRow(row);
  await r.hover();
  await r.locator(`.action-label[aria-label^="${label}"]`).first().click();
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const { values } = parseArgs({ options: { results: { type: 'string' }, keep: { type: 'boolean', default: false } }, strict: true });
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.mjs'))) throw new Error('dist/extension.mjs is missing: bundle first (node esbuild.mjs)');
  ensureAll({ chromium: true });
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  const runDir = makeRunDir('reload', { keepLast: 3 });
  const results: RunResults = { passed: 0, failed: 0, tests: [] };
  const check = async (title: string, fn: () => Promise<void>): Promise<boolean> => {
    const started = Date.now();
    try {
      await fn();
      results.passed++;
      results.tests.push({ title, fullTitle: `Reload: ${title}`, state: 'passed', durationMs: Date.now() - started });
      console.log(`  ✔ ${title}`);
      return true;
    } catch (e) {
      results.failed++;
      const error = e instanceof Error ? e.message : String(e);
      results.tests.push({ title, fullTitle: `Reload: ${title}`, state: 'failed', durationMs: Date.now() - started, error });
      console.log(`  ✗ ${title}\n      ${error.split('\n')[0]}`);
      await wb?.screenshot(path.join(runDir, `FAILED-${results.failed}.png`)).catch(() => undefined);
      return false;
    }
  };
  let wb: Workbench | undefined;
  try {
    // No preview editors: the diff opens beside the revision instead of in its place.
    const { server } = await startDemo({ runDir, cleanup, serviceDataFile: path.join(runDir, 'service.json'), settings: { 'workbench.editor.enablePreview': false } });
    const workspace = path.join(runDir, 'workspace');
    writeWorkspace(workspace);
    wb = await openWorkbench({ server, folder: workspace, runDir, cleanup });
    const w = wb;
    const page = w.page;
    console.log('\n  Reload: revision tabs');
    let single = '';
    let diff = '';
    const opened =
      (await check('a revision opened from the Sites view is titled with its date and author', async () => {
        await w.openActivity('Site Revisions');
        await w.expandRow('Acme Corporate');
        await w.expandRow(/^index\.php/);
        await rowAction(w, /ago/, 'Open Revision');
        const tabs = await until('the revision tab', () => tabLabels(page), (t) => t.some((l) => REVISION_TITLE.test(l.split(',').slice(0, 2).join(','))));
        single = tabs.find((l) => l.startsWith('index.php ('))!;
        await until('its content', () => editorText(page), (t) => t.includes('<?php'));
      })) &&
      (await check('a diff of two revisions opened from the Sites view', async () => {
        await rowAction(w, /ago/, 'Compare with Previous');
        await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 30000 });
        const tabs = await until('the diff tab', () => tabLabels(page), (t) => t.some((l) => l.includes('↔')));
        diff = tabs.find((l) => l.includes('↔'))!;
      }));
    console.log('\n  Reload: site editors');
    const typed = await check('a new-site form and an edit form, typed into (passwords too)', async () => {
      // The Sites view's title actions: in the side bar's title when it is the container's only
      // view, else in its pane header, drawn while the pointer is over it.
      const newSite = page.locator('.part.sidebar .action-label[aria-label^="New Site"]').first();
      if (!(await newSite.isVisible())) await page.locator('.part.sidebar .pane-header:has(.action-label[aria-label^="New Site"])').first().hover();
      await newSite.click();
      await form(page, '#f-name').waitFor({ timeout: 30000 });
      // The button's tooltip would cover the first site's row.
      await page.mouse.move(900, 500);
      await page.locator('.context-view .hover-contents').waitFor({ state: 'hidden', timeout: 10000 });
      await form(page, '#f-name').fill(TYPED.newName);
      await form(page, '#f-server_type').selectOption('SFTP');
      await until('the SFTP port', () => form(page, '#f-port').inputValue(), (v) => v === '22');
      await form(page, '#f-domain').fill(TYPED.newHost);
      await form(page, '#f-ftp_pass').fill(TYPED.password);
      await rowAction(w, /^Acme Corporate/, 'Edit Site');
      await until('the edit form', () => form(page, '#title').innerText(), (t) => t === 'Edit site: Acme Corporate');
      await form(page, '#f-name').fill(TYPED.editName);
      await form(page, '#f-db_password').fill(TYPED.password);
    });
    if (opened || typed) {
      await w.reloadWindow();
      if (opened) {
        await check('after a reload the Sites view draws the site and the file expanded before it, with the revisions under them, without a click', async () => {
          await w.openActivity('Site Revisions');
          // Nothing is clicked in the tree: the rows are drawn as they were left.
          const expanded = async (row: RegExp) => (await w.waitForRow(row)).getAttribute('aria-expanded');
          const seen = await until(
            'the expanded rows',
            async () => ({ site: await expanded(/^Acme Corporate/), file: await expanded(/^index\.php/), revisions: await page.locator('.part.sidebar .monaco-list-row', { hasText: /ago/ }).count() }),
            (s) => s.site === 'true' && s.file === 'true' && s.revisions > 0,
          );
          log(`after the reload: ${JSON.stringify(seen)}`);
        });
      }
      await check('after a reload the diff is restored: both revisions drawn, no error', async () => {
        // The diff's title (its description, the two sides' names, may be shortened after a restore).
        const diffTitle = diff.slice(0, diff.indexOf(')', diff.indexOf('↔')) + 1);
        await until(`the restored tabs ${JSON.stringify([single, diffTitle])}`, () => tabLabels(page), (t) => t.includes(single) && t.some((l) => l.startsWith(diffTitle)));
        // The site editors opened after it may be in front.
        await page.locator('.part.editor .tabs-container .tab', { hasText: '↔' }).first().click();
        await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 30000 });
        const text = await until('the restored diff', () => editorText(page), (t) => t.includes('<?php') || CANNOT_OPEN.test(t));
        if (CANNOT_OPEN.test(text)) throw new Error(`the restored diff shows: ${text.slice(0, 200)}`);
      });
      await check('after a reload the revision tab is restored: the same title, its content, the file’s language', async () => {
        await page.locator('.part.editor .tabs-container .tab', { hasText: 'index.php (' }).filter({ hasNotText: '↔' }).first().click();
        const text = await until('the restored revision', () => editorText(page), (t) => t.includes('<?php') || CANNOT_OPEN.test(t));
        if (CANNOT_OPEN.test(text)) throw new Error(`the restored revision shows: ${text.slice(0, 200)}`);
        await until('the PHP language mode', () => page.locator('.statusbar-item[id="status.editor.mode"]').innerText(), (t) => t.trim() === 'PHP');
        const tabs = await tabLabels(page);
        if (!tabs.includes(single)) throw new Error(`the title changed: ${JSON.stringify(tabs)}`);
      });
    }
    if (typed) {
      await check('after a reload the new-site form is back with what was typed, except the password', async () => {
        await until('the restored form tabs', () => tabLabels(page), (t) => t.some((l) => l.startsWith('New site')) && t.some((l) => l.startsWith('Edit site: Acme Corporate')));
        await page.locator('.part.editor .tabs-container .tab', { hasText: 'New site' }).first().click();
        await until('the typed name', () => form(page, '#f-name').inputValue(), (v) => v === TYPED.newName);
        const seen = { type: await form(page, '#f-server_type').inputValue(), host: await form(page, '#f-domain').inputValue(), port: await form(page, '#f-port').inputValue(), password: await form(page, '#f-ftp_pass').inputValue() };
        const want = { type: 'SFTP', host: TYPED.newHost, port: '22', password: '' };
        if (JSON.stringify(seen) !== JSON.stringify(want)) throw new Error(`the restored form shows ${JSON.stringify(seen)}, not ${JSON.stringify(want)}`);
      });
      await check('after a reload the edit form is back with what was typed, except the password, and saves into the site', async () => {
        await page.locator('.part.editor .tabs-container .tab', { hasText: 'Edit site: Acme Corporate' }).first().click();
        await until('the typed name', () => form(page, '#f-name').inputValue(), (v) => v === TYPED.editName);
        const password = await form(page, '#f-db_password').inputValue();
        if (password !== '') throw new Error(`the restored form shows a password (${password.length} characters)`);
        await form(page, '#save').click();
        await w.waitForRow(TYPED.editName);
        await until('the saved form closed', () => tabLabels(page), (t) => !t.some((l) => l.startsWith('Edit site:')));
      });
    }
  } catch (e) {
    results.failed++;
    results.tests.push({ title: 'reload run', fullTitle: 'reload run', state: 'failed', durationMs: Date.now() - t0, error: e instanceof Error ? e.message : String(e) });
    log(e instanceof Error ? e.message : String(e));
  } finally {
    await cleanup.run();
  }
  if (results.passed + results.failed === 0) results.failed++;
  return finishRun({ results, t0, runDir, keep: !!values.keep, ...(values.results ? { resultsFile: path.resolve(values.results) } : {}) });
}

runMain(main);

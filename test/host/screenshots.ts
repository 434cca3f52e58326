// Screenshots of what a person sees, for the docs: the local service with demo data, code-server
// with the extension (signed in as the demo user), headless Chromium at 1280×800.
//
//   node out/test/host/screenshots.js [--out docs] [--only NAME[,NAME…]] [--keep]
//
// Every shot in SHOTS is taken once per theme, as <out>/<name>-<theme>.png (and .webp where the
// README embeds it: the .vsix ships those). To add one, append
// an entry: its steps run on a freshly reloaded workbench.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Cleanup, log, makeRunDir, repoRoot, runMain } from './common';
import { startDemo } from './demo';
import { DEMO } from '../server/demo';
import { ensureAll } from './install';
import { openWorkbench, type Clip, type Workbench } from './workbench';
import { writeWorkspace } from './workspace';

export type Step =
  /** Open the activity-bar item whose aria-label starts with this (e.g. "Site Revisions"). */
  | { open: string }
  /** Wait until a tree/list row with this text is visible. */
  | { row: string | RegExp }
  /** Click a row (selects it; runs its command, e.g. opens a diff). */
  | { click: string | RegExp }
  /** Expand a collapsed tree row. */
  | { expand: string | RegExp }
  /** Run a command through the command palette, by its title as shown there. */
  | { command: string }
  /** Wait until a CSS selector is visible (e.g. ".monaco-diff-editor"). */
  | { waitFor: string }
  /** Hover a row and click one of its inline actions, by the start of its aria-label. */
  | { action: { row: string | RegExp; label: string } }
  /** Wait until a webview (any frame) shows this text. */
  | { webviewText: string }
  /** Click the element of a webview (any frame) that matches this CSS selector. */
  | { webviewClick: string }
  /** Click a button of the modal dialog drawn now (`ifShown`: go on when none shows within a few seconds). */
  | { dialogButton: string; ifShown?: boolean }
  /** Configure the local service (POST /__control/config), e.g. faults for the next requests. */
  | { service: Record<string, unknown> }
  /** Click a button of the Sites view's title bar (its pane header), by the start of its aria-label (e.g. "Refresh"). */
  | { titleAction: string }
  /** Wait until the Sites view's welcome content shows this text. */
  | { welcome: string }
  /** Run a command that asks something next (a quick pick): the input stays open for `pick`. */
  | { commandThenPick: string }
  /** Click the row of the open quick input (a quick pick) that has this text. */
  | { pick: string | RegExp }
  /**
   * Write a working file into the workspace folder: the newest revision of `path` on site `site`
   * (read from the service as the demo user) with `replace` applied, its modification time
   * `minutesAgo` in the past (default: now).
   */
  | { workingFile: { site: string; path: string; replace?: [find: string, replace: string][]; minutesAgo?: number } }
  /**
   * Store a new revision on the service (POST /__control/add-revision): the newest one with
   * `replace` applied, as a new revision of the same file, or of `to` (another site or path).
   */
  | { newRevision: { site: string; path: string; replace: [find: string, replace: string][]; author: string; minutesAgo: number; to?: { site: string; path: string } } }
  /** Open a workspace file by name through Quick Open. */
  | { openFile: string }
  /** Put the cursor at the start of this line (1-based) with Go to Line. */
  | { line: number }
  /** Select whole lines `from`…`to` (1-based) of the active editor: Go to Line, then Shift+Down. */
  | { selectLines: [from: number, to: number] }
  /** Hover the first element that matches (a Playwright selector) and has this text; the shot keeps the pointer there. */
  | { hover: { selector: string; hasText: string } }
  /** Type into the open quick input, wait until a list row shows this text, and press Enter (picks it). */
  | { typePick: string }
  /** Type into the open input box and press Enter. */
  | { enter: string }
  /** Expand (true) or collapse (false) a view pane of the side bar, by its title (e.g. "Sites"). */
  | { pane: string; expanded: boolean }
  /** Wait this many milliseconds (let an animation or a request finish). */
  | { pause: number };

export interface Shot {
  /** File name without theme and extension: <out>/<name>-light.png, <out>/<name>-dark.png. */
  name: string;
  steps: Step[];
  /** Default: every theme in THEMES. */
  themes?: (keyof typeof THEMES)[];
  /**
   * Themes also written as <name>-<theme>.webp (lossy, quality 70: about a third of the PNG's bytes):
   * the images the README embeds, which the .vsix ships (its size target counts them).
   */
  webp?: (keyof typeof THEMES)[];
  /** The part of the page the WebP keeps (default: all of it): fewer bytes in the .vsix. */
  webpClip?: Clip;
}

export const THEMES = {
  light: 'Default Light Modern',
  dark: 'Default Dark Modern',
} as const;

/** Every shot starts from an empty editor area: a reload restores the editors of the shot before. */
const CLEAN: Step = { command: 'View: Close All Editors' };

/**
 * The Site Revisions container with the Sites view open and the search views collapsed: a reload
 * restores the panes as the shot before left them.
 */
const OPEN: Step[] = [{ open: 'Site Revisions' }, { pane: 'Sites', expanded: true }, { pane: 'History Search', expanded: false }, { pane: 'Site Changes', expanded: false }];

/** The Sites view and the search views folded (the view a shot shows gets the room). */
const FOLD: Step[] = [{ pane: 'Sites', expanded: false }, { pane: 'History Search', expanded: false }, { pane: 'Site Changes', expanded: false }];

/** A copy of a file of Marketing Drive (site 4) on Campaign Landing Pages (site 5), as a second site of the campaigns. */
const COPY = (path: string, replace: [string, string][] = [], to = path): Step => ({ newRevision: { site: '4', path, replace, author: 'lena@marketing.example', minutesAgo: 90, to: { site: '5', path: to } } });

/** Maps the demo site Acme Corporate to the workspace folder (its files are Acme's), from the Sites view as OPEN leaves it. */
const MAP_ACME: Step[] = [...OPEN, { row: 'Acme Corporate' }, { commandThenPick: 'Site Revisions: Map Site to Local Folder…' }, { pick: 'Acme Corporate' }, { pick: 'First workspace folder' }, { pause: 500 }];

/** Site Changes of the demo site "Marketing Drive" over the last 7 days, its view given the room. */
const SITE_CHANGES: Step[] = [
  CLEAN,
  ...OPEN,
  { row: 'Acme Corporate' },
  { command: 'Site Revisions: Site Changes…' },
  { typePick: 'Marketing Drive' },
  { typePick: 'Last 7 days' },
  { typePick: 'Everyone' },
  { pane: 'Sites', expanded: false },
  { pane: 'History Search', expanded: false },
  { row: /^Yesterday/ },
];

/** The demo site with a live server (test/host/liveDemo.ts), mapped to the workspace folder with two of its files there, one edited. */
const MAP_BAKERY: Step[] = [
  ...OPEN,
  { row: 'Bakery API' },
  { commandThenPick: 'Site Revisions: Map Site to Local Folder…' },
  { pick: 'Bakery API' },
  { pick: 'First workspace folder' },
  { pause: 500 },
  { workingFile: { site: '2', path: 'requirements.txt' } },
  { workingFile: { site: '2', path: 'api/app.py', replace: [['\n', '\n# local: not uploaded yet\n']] } },
];

/**
 * Quick Open's editor history emptied: it offers the diffs earlier shots opened (named like the
 * file, e.g. `app.py (newest revision ↔ live)`, their kept sides gone) before the file itself.
 */
const NO_HISTORY: Step[] = [{ command: 'Clear Editor History' }, { dialogButton: 'Clear' }];

export const SHOTS: Shot[] = [
  { name: 'sites', steps: [CLEAN, ...OPEN, { row: 'Acme Corporate' }, { pause: 1000 }] },
  {
    name: 'revisions',
    webp: ['dark'],
    steps: [
      CLEAN,
      ...OPEN,
      { expand: 'Acme Corporate' },
      { expand: /^index\.php/ },
      { action: { row: /ago/, label: 'Open Revision' } },
      { waitFor: '.part.editor .tabs-container .tab[aria-label^="index.php ("]' },
      { pause: 1000 },
    ],
  },
  {
    name: 'diff',
    steps: [
      CLEAN,
      ...OPEN,
      { expand: 'Acme Corporate' },
      { expand: /^index\.php/ },
      { action: { row: /ago/, label: 'Compare with Previous' } },
      { waitFor: '.monaco-diff-editor' },
      { pause: 1500 },
    ],
  },
  { name: 'site-editor', steps: [CLEAN, ...OPEN, { row: 'Acme Corporate' }, { command: 'Site Revisions: New Site…' }, { waitFor: 'iframe.webview' }, { webviewText: 'Site name' }, { pause: 800 }] },
  {
    // History Search: the search of the demo marker over a site, and the diff a result opens.
    name: 'history-search',
    steps: [
      CLEAN,
      ...OPEN,
      { row: 'Acme Corporate' },
      { command: 'Site Revisions: Search History…' },
      { typePick: 'Marketing Drive' },
      { enter: 'TODO-SEARCH-MARKER' },
      { typePick: 'Changes' },
      { pane: 'Sites', expanded: false },
      { pane: 'Site Changes', expanded: false },
      { click: /^removed 2/ },
      { waitFor: '.monaco-diff-editor' },
      { pause: 1500 },
    ],
  },
  {
    name: 'site-changes',
    steps: [...SITE_CHANGES, { pause: 1000 }],
  },
  {
    // Open Changes: every file changed in the last 7 days in one multi-file diff editor.
    name: 'open-changes',
    steps: [
      ...SITE_CHANGES,
      { command: 'Site Revisions: Open Changes' },
      { typePick: 'Against the Last Revision Before the Period' },
      { waitFor: '.part.editor .multiDiffEntry' },
      { pause: 2000 },
    ],
  },
  {
    // A site as it was 7 days ago: its tree (each file's revision of then), a file opened.
    name: 'site-as-of',
    webp: ['dark'],
    steps: [
      CLEAN,
      ...OPEN,
      { row: 'Acme Corporate' },
      { command: 'Site Revisions: Site As It Was…' },
      { typePick: 'Marketing Drive' },
      { typePick: '7 days ago' },
      ...FOLD,
      { row: /^Did not exist yet/ },
      { expand: /^campaigns/ },
      { expand: /^spring/ },
      { expand: /^Did not exist yet/ },
      { click: /^index\.html.*lena/ },
      { waitFor: '.part.editor .tabs-container .tab[aria-label^="index.html ("]' },
      { pause: 1000 },
    ],
  },
  {
    // Two sites compared: the files that differ, those on one side only, the diff of a pair.
    name: 'compare-sites',
    webp: ['light'],
    steps: [
      CLEAN,
      COPY('campaigns/spring/index.html'),
      COPY('campaigns/autumn/teaser.html'),
      COPY('campaigns/spring/styles.css', [['--brand: #2e7d32;', '--brand: #1565c0;']]),
      COPY('campaigns/summer/launch.md', [['# Summer launch', '# Winter plan']], 'campaigns/winter/plan.md'),
      ...OPEN,
      { row: 'Acme Corporate' },
      { command: 'Site Revisions: Compare with Another Site…' },
      { typePick: 'Marketing Drive' },
      { typePick: 'Campaign Landing Pages' },
      { typePick: 'The Whole Site' },
      { typePick: 'Their Newest Revisions' },
      ...FOLD,
      { row: /^Different/ },
      { expand: /^campaigns/ },
      { expand: /^spring/ },
      { expand: /^Only on Campaign Landing Pages/ },
      { click: /^styles\.css/ },
      { waitFor: '.monaco-diff-editor' },
      { pause: 1500 },
    ],
  },
  {
    // A failure state as drawn: its explanation, the hint for its cause, and its buttons.
    name: 'view-unreachable',
    webp: ['light'],
    steps: [
      CLEAN,
      ...OPEN,
      { row: 'Acme Corporate' },
      { service: { failNext: ['http503', 'http503', 'http503', 'http503'] } },
      { titleAction: 'Refresh' },
      { welcome: 'busy or down for maintenance' },
      { pause: 800 },
    ],
  },
  {
    // Revision blame: the annotation of the current line and the hover of another line. The
    // README embeds the editor part of the dark one.
    name: 'blame',
    webp: ['dark'],
    webpClip: { x: 352, y: 30, width: 928, height: 500 },
    steps: [
      CLEAN,
      ...MAP_ACME,
      { workingFile: { site: '1', path: 'index.php', replace: [['<main>\n', '<main>\n  <!-- draft: new banner -->\n']] } },
      { openFile: 'index.php' },
      { command: 'Site Revisions: Toggle Revision Blame' },
      { line: 12 },
      { hover: { selector: '.part.editor .view-line span[class^="mtk"]', hasText: 'in_array' } },
      { pause: 800 },
    ],
  },
  {
    // The gutter: what differs from the newest revision on the service.
    name: 'gutter',
    steps: [
      CLEAN,
      ...MAP_ACME,
      { workingFile: { site: '1', path: 'css/site.css', replace: [['body {', '/* local: tighter layout */\nbody {'], ['margin: 0;', 'padding: 0;']] } },
      { openFile: 'site.css' },
      { waitFor: '.part.editor .margin-view-overlays [class*="dirty-diff-"]' },
      { pause: 800 },
    ],
  },
  {
    // The newer-revision alert: a colleague saved the file on the service after it was saved here.
    name: 'alert',
    steps: [
      CLEAN,
      ...MAP_ACME,
      { workingFile: { site: '1', path: 'js/app.js', minutesAgo: 300 } },
      { newRevision: { site: '1', path: 'js/app.js', replace: [['\n', '\n// checked by Maria\n']], author: 'maria@acme-corp.example', minutesAgo: 120 } },
      { openFile: 'app.js' },
      { waitFor: '.part.statusbar .statusbar-item:has-text("Changed on the service")' },
      { hover: { selector: '.part.statusbar .statusbar-item', hasText: 'Changed on the service' } },
      { pause: 800 },
    ],
  },
  {
    // The working copy at a glance: the mapped folder in the Source Control view (a file changed
    // here, one a colleague saved newer on the service, the ones with no working file), and the
    // diff a click opens.
    name: 'source-control',
    webp: ['dark'],
    steps: [
      CLEAN,
      ...MAP_ACME,
      { workingFile: { site: '1', path: 'index.php', replace: [['<main>\n', '<main>\n  <!-- draft: new banner -->\n']] } },
      { workingFile: { site: '1', path: 'css/site.css', minutesAgo: 60 } },
      { workingFile: { site: '1', path: 'templates/base.html', minutesAgo: 60 } },
      { workingFile: { site: '1', path: 'config/settings.json', minutesAgo: 60 } },
      { workingFile: { site: '1', path: 'README.md', minutesAgo: 60 } },
      { workingFile: { site: '1', path: 'includes/db.php', minutesAgo: 60 } },
      { workingFile: { site: '1', path: 'js/app.js', minutesAgo: 300 } },
      { newRevision: { site: '1', path: 'js/app.js', replace: [['\n', '\n// checked by Maria\n']], author: 'maria@acme-corp.example', minutesAgo: 120 } },
      { open: 'Source Control' },
      { command: 'Site Revisions: Refresh Status' },
      { row: /^app\.js/ },
      { click: /^index\.php/ },
      { waitFor: '.monaco-diff-editor' },
      { pause: 1500 },
    ],
  },
  {
    // Line History: the revisions that changed the selected lines, newest first, and the diff one opens.
    name: 'line-history',
    webp: ['dark'],
    steps: [
      CLEAN,
      ...MAP_ACME,
      { workingFile: { site: '1', path: 'index.php', minutesAgo: 60 } },
      { openFile: 'index.php' },
      { selectLines: [5, 12] },
      { command: 'Site Revisions: Show Line History' },
      { pane: 'Sites', expanded: false },
      { row: /revision \d+ · / },
      { click: /revision \d+ · \$allowed/ },
      { waitFor: '.monaco-diff-editor' },
      { pause: 1500 },
    ],
  },
  {
    // Import Sites…: the preview of a FileZilla site manager (a site already on the service unticked and marked, one the service cannot hold listed).
    name: 'site-import',
    webp: ['dark'],
    steps: [
      CLEAN,
      ...OPEN,
      { row: 'Acme Corporate' },
      { commandThenPick: 'Site Revisions: Import Sites…' },
      { enter: path.join(repoRoot, 'test', 'fixtures', 'siteImport', 'demo-sitemanager.xml') },
      { waitFor: '.quick-input-widget .monaco-list-row' },
      { pause: 1000 },
    ],
  },
  {
    // The trust dialog of the demo server's host key, as the first connection shows it (left unanswered: the next shot answers it).
    name: 'live-trust-dialog',
    themes: ['light'],
    steps: [CLEAN, ...OPEN, { row: 'Bakery API' }, { command: 'Site Revisions: Test Connection' }, { typePick: 'Bakery API' }, { waitFor: '.monaco-dialog-box' }, { pause: 500 }],
  },
  {
    name: 'live-test-connection',
    webp: ['dark'],
    // The first connection to the demo server asks to trust its host key (a real dialog): answered here, remembered for the shots after it.
    steps: [CLEAN, ...OPEN, { action: { row: 'Bakery API', label: 'Edit Site' } }, { webviewText: 'Test Connection' }, { webviewClick: '#test' }, { dialogButton: 'Trust and Connect', ifShown: true }, { webviewText: 'The connection works' }, { pause: 800 }],
  },
  {
    name: 'live-files',
    webp: ['dark'],
    steps: [CLEAN, ...OPEN, { expand: 'Bakery API' }, { expand: /^Live Files/ }, { dialogButton: 'Trust and Connect', ifShown: true }, { expand: /^api\d{4}-/ }, { row: /^app\.py\d/ }, { pause: 500 }],
  },
  {
    name: 'live-file',
    webp: ['dark'],
    steps: [CLEAN, ...OPEN, { expand: 'Bakery API' }, { expand: /^Live Files/ }, { dialogButton: 'Trust and Connect', ifShown: true }, { expand: /^api\d{4}-/ }, { click: /^app\.py\d/ }, { waitFor: '.part.editor .tabs-container .tab[aria-label^="app.py (live"]' }, { pause: 800 }],
  },
  {
    name: 'live-compare-local',
    webp: ['light'],
    steps: [CLEAN, ...MAP_BAKERY, { command: 'Site Revisions: Compare Live with Local' }, { typePick: 'Bakery API' }, { dialogButton: 'Trust and Connect', ifShown: true }, ...FOLD, { row: 'Differs from local' }, { click: /^app\.py/ }, { waitFor: '.monaco-diff-editor' }, { pause: 1000 }],
  },
  {
    name: 'live-drift',
    webp: ['dark'],
    steps: [CLEAN, ...OPEN, { row: 'Bakery API' }, { command: 'Site Revisions: Live Drift' }, { typePick: 'Bakery API' }, { dialogButton: 'Trust and Connect', ifShown: true }, ...FOLD, { row: 'Differs from the newest revision' }, { click: /^app\.py/ }, { waitFor: '.monaco-diff-editor' }, { pause: 1000 }],
  },
  {
    // Upload of a file changed on the demo server since its newest revision (and edited here): the choice, with one of its diffs opened beside it.
    name: 'transfer-conflict',
    webp: ['dark'],
    steps: [
      CLEAN,
      ...NO_HISTORY,
      ...MAP_BAKERY,
      { openFile: 'app.py' },
      { commandThenPick: 'Site Revisions: Upload to Live Server' },
      { dialogButton: 'Trust and Connect', ifShown: true },
      { pick: 'Newest revision ↔ live' },
      { waitFor: '.monaco-diff-editor' },
      { pause: 1200 },
    ],
  },
  {
    // Sync of the demo site both ways: one file edited here, the server's files to download, one changed on both sides.
    name: 'transfer-sync-preview',
    webp: ['light'],
    steps: [
      CLEAN,
      ...MAP_BAKERY,
      { workingFile: { site: '2', path: 'requirements.txt', replace: [['\n', '\nuvicorn==0.30.1\n']] } },
      { commandThenPick: 'Site Revisions: Sync with Live Server…' },
      { typePick: 'Bakery API' },
      { typePick: 'Both ways' },
      { dialogButton: 'Trust and Connect', ifShown: true },
      ...FOLD,
      { row: /^Sync preview/ },
      { click: /^requirements\.txt/ },
      { waitFor: '.monaco-diff-editor' },
      { pause: 800 },
    ],
  },
  {
    // Two uploads over live files (one of them after Overwrite in its conflict): what they replaced, kept, and one compared with the live file now.
    name: 'transfer-overwritten',
    // Dark only, and last: its uploads change the demo server, which the shots before read as seeded.
    themes: ['dark'],
    webp: ['dark'],
    steps: [
      CLEAN,
      ...NO_HISTORY,
      ...MAP_BAKERY,
      { workingFile: { site: '2', path: 'requirements.txt', replace: [['\n', '\nuvicorn==0.30.1\n']] } },
      { openFile: 'requirements.txt' },
      { command: 'Site Revisions: Upload to Live Server' },
      { dialogButton: 'Trust and Connect', ifShown: true },
      { openFile: 'app.py' },
      { commandThenPick: 'Site Revisions: Upload to Live Server' },
      { pick: 'Overwrite' },
      ...FOLD,
      { pane: 'Overwritten on the Server', expanded: true },
      { row: /^app\.py/ },
      { click: /^requirements\.txt/ },
      { waitFor: '.monaco-diff-editor' },
      { pause: 1000 },
    ],
  },
];

/** The newest revision of a file on the service, read as the demo user. */
async function newestRevision(serviceUrl: string, site: string, filePath: string): Promise<string> {
  const res = await fetch(`${serviceUrl}/api/revisions?site=${encodeURIComponent(site)}&file=${encodeURIComponent(filePath)}&no_content=0`, {
    method: 'POST',
    body: new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password }),
  });
  const body = (await res.json()) as { revisions?: { id: string; date: string; content: string }[] };
  const newest = [...(body.revisions ?? [])].sort((a, b) => b.date.localeCompare(a.date) || Number(b.id) - Number(a.id))[0];
  if (!newest) throw new Error(`no revision of ${filePath} on site ${site}`);
  return newest.content;
}

function replaced(text: string, replace: [string, string][] = []): string {
  for (const [find, by] of replace) {
    if (!text.includes(find)) throw new Error(`text not found: ${JSON.stringify(find)}`);
    text = text.replace(find, by);
  }
  return text;
}

async function runStep(wb: Workbench, step: Step, serviceUrl: string, workspace: string): Promise<void> {
  if ('open' in step) await wb.openActivity(step.open);
  else if ('commandThenPick' in step) await wb.runCommand(step.commandThenPick, 30000, true);
  else if ('pick' in step) await wb.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: step.pick }).first().click({ timeout: 30000 });
  else if ('workingFile' in step) {
    const w = step.workingFile;
    const file = path.join(workspace, w.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, replaced(await newestRevision(serviceUrl, w.site, w.path), w.replace));
    const at = new Date(Date.now() - (w.minutesAgo ?? 0) * 60_000);
    fs.utimesSync(file, at, at);
  } else if ('newRevision' in step) {
    const r = step.newRevision;
    const content = replaced(await newestRevision(serviceUrl, r.site, r.path), r.replace);
    const res = await fetch(`${serviceUrl}/__control/add-revision`, { method: 'POST', body: JSON.stringify({ siteId: r.to?.site ?? r.site, path: r.to?.path ?? r.path, content, author: r.author, date: Date.now() - r.minutesAgo * 60_000 }), headers: { 'content-type': 'application/json' } });
    if (!res.ok) throw new Error(`add-revision: HTTP ${res.status}`);
    await res.arrayBuffer();
  } else if ('openFile' in step) {
    await wb.page.keyboard.press('Control+P');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 30000 });
    await input.fill(step.openFile);
    await wb.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: step.openFile }).first().waitFor({ state: 'visible', timeout: 30000 });
    await wb.page.keyboard.press('Enter');
    await wb.page.locator(`.part.editor .tabs-container .tab[aria-label^="${step.openFile}"]`).first().waitFor({ state: 'visible', timeout: 30000 });
  } else if ('line' in step) {
    await wb.page.keyboard.press('Control+G');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 30000 });
    await input.fill(`:${step.line}`);
    await wb.page.keyboard.press('Enter');
  } else if ('selectLines' in step) {
    await runStep(wb, { line: step.selectLines[0] }, serviceUrl, workspace);
    for (let i = step.selectLines[0]; i <= step.selectLines[1]; i++) await wb.page.keyboard.press('Shift+ArrowDown');
  } else if ('hover' in step) {
    await wb.page.locator(step.hover.selector).filter({ hasText: step.hover.hasText }).first().hover({ timeout: 30000 });
    await wb.page.locator('.monaco-hover:visible').first().waitFor({ state: 'visible', timeout: 30000 });
  }
  else if ('service' in step) {
    const res = await fetch(`${serviceUrl}/__control/config`, { method: 'POST', body: JSON.stringify(step.service), headers: { 'content-type': 'application/json' } });
    if (!res.ok) throw new Error(`service config: HTTP ${res.status}`);
    await res.arrayBuffer();
  } else if ('titleAction' in step) {
    // The Sites view shares the container with the search views: its actions are in its pane header.
    const header = wb.page.locator('.part.sidebar .pane-header[aria-label^="Sites"]').first();
    await header.hover();
    await header.locator(`.actions .action-label[aria-label^="${step.titleAction}"]`).first().click();
  }
  else if ('welcome' in step) await wb.page.locator('.part.sidebar .welcome-view-content', { hasText: step.welcome }).first().waitFor({ state: 'visible', timeout: 30000 });
  else if ('typePick' in step || 'enter' in step) await quickInput(wb, 'typePick' in step ? step.typePick : step.enter, 'typePick' in step);
  else if ('pane' in step) await setPane(wb, step.pane, step.expanded);
  else if ('row' in step) await wb.waitForRow(step.row);
  else if ('click' in step) await wb.clickRow(step.click);
  else if ('expand' in step) await wb.expandRow(step.expand);
  else if ('command' in step) await wb.runCommand(step.command);
  else if ('waitFor' in step) await wb.waitFor(step.waitFor);
  else if ('webviewText' in step) await waitForFrameText(wb, step.webviewText);
  else if ('webviewClick' in step) await clickInFrame(wb, step.webviewClick);
  else if ('dialogButton' in step) {
    const button = wb.page.locator('.monaco-dialog-box .monaco-button').filter({ hasText: step.dialogButton }).first();
    const shown = await button.waitFor({ state: 'visible', timeout: step.ifShown ? 8000 : 30000 }).then(() => true, (e: unknown) => (step.ifShown ? false : Promise.reject(e)));
    if (shown) await button.click();
  }
  else if ('action' in step) {
    const row = await wb.waitForRow(step.action.row);
    await row.hover();
    await row.locator(`.action-label[aria-label^="${step.action.label}"]`).first().click();
  }
  else await wb.page.waitForTimeout(step.pause);
}

/** Clicks a side-bar pane's header when the pane is not expanded / collapsed as asked. */
async function setPane(wb: Workbench, title: string, expanded: boolean): Promise<void> {
  const header = wb.page.locator(`.part.sidebar .pane-header[aria-label^="${title.replace(/"/g, '\\"')}"]`).first();
  await header.waitFor({ state: 'visible', timeout: 30000 });
  if (((await header.getAttribute('aria-expanded')) === 'true') !== expanded) await header.click();
}

/** Types into the quick input shown now; for a pick, waits for the row with that text first. */
async function quickInput(wb: Workbench, text: string, pick: boolean): Promise<void> {
  const input = wb.page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 30000 });
  await input.fill(text);
  if (pick) await wb.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: text }).first().waitFor({ state: 'visible', timeout: 30000 });
  await wb.page.keyboard.press('Enter');
  await wb.page.waitForTimeout(500); // the next input of the flow replaces this one
}

async function waitForFrameText(wb: Workbench, text: string, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const f of wb.page.frames()) {
      const body = await f.evaluate(() => document.body?.innerText ?? '').catch(() => '');
      if (body.includes(text)) return;
    }
    await wb.page.waitForTimeout(200);
  }
  throw new Error(`no webview shows "${text}" within ${timeoutMs} ms`);
}

async function clickInFrame(wb: Workbench, selector: string, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const f of wb.page.frames()) {
      const el = f.locator(selector).first();
      if ((await el.count().catch(() => 0)) > 0 && (await el.isVisible().catch(() => false))) return el.click({ timeout: 5000 });
    }
    await wb.page.waitForTimeout(200);
  }
  throw new Error(`no webview has "${selector}" within ${timeoutMs} ms`);
}

function describe(step: Step): string {
  return JSON.stringify(step, (_k, v: unknown) => (v instanceof RegExp ? String(v) : v));
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'docs' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const outDir = path.resolve(repoRoot, values.out!);
  const only = values.only?.split(',');
  const shots = SHOTS.filter((s) => !only || only.includes(s.name));
  if (!shots.length) throw new Error(`no shot named "${values.only}"; known: ${SHOTS.map((s) => s.name).join(', ')}`);
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.mjs'))) throw new Error('dist/extension.mjs is missing: bundle first (node esbuild.mjs)');

  ensureAll({ chromium: true });
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  const runDir = makeRunDir('shots', { keepLast: 3 });
  let failures = 0;
  try {
    const { server, service } = await startDemo({ runDir, cleanup, serviceDataFile: path.join(runDir, 'service.json') });
    const workspace = path.join(runDir, 'workspace');
    writeWorkspace(workspace);
    const wb = await openWorkbench({ server, folder: workspace, runDir, cleanup });
    await wb.waitReady();
    for (const [theme, themeName] of Object.entries(THEMES) as [keyof typeof THEMES, string][]) {
      server.writeSettings({ 'workbench.colorTheme': themeName });
      for (const shot of shots) {
        if (shot.themes && !shot.themes.includes(theme)) continue;
        const file = path.join(outDir, `${shot.name}-${theme}.png`);
        try {
          await wb.reload();
          for (const step of shot.steps) {
            try {
              await runStep(wb, step, service.url, workspace);
            } catch (err) {
              throw new Error(`step ${describe(step)}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, { cause: err });
            }
          }
          await wb.screenshot(file, shot.steps.some((st) => 'hover' in st));
          log(`wrote ${path.relative(process.cwd(), file)}`);
          if (shot.webp?.includes(theme)) {
            const webp = file.replace(/\.png$/, '.webp');
            await wb.screenshot(webp, true, shot.webpClip);
            log(`wrote ${path.relative(process.cwd(), webp)}`);
          }
        } catch (err) {
          failures++;
          const failFile = path.join(runDir, `${shot.name}-${theme}-FAILED.png`);
          await wb.screenshot(failFile).catch(() => undefined);
          log(`${shot.name} (${theme}) failed: ${err instanceof Error ? err.message : String(err)}; the screen then: ${failFile}`);
        }
      }
    }
  } finally {
    await cleanup.run();
  }
  log(`${failures ? `${failures} shot(s) failed` : 'all shots taken'} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (failures || values.keep) log(`run folder kept: ${path.relative(process.cwd(), runDir)}`);
  else fs.rmSync(runDir, { recursive: true, force: true });
  return failures ? 1 : 0;
}

if (require.main === module) runMain(main);

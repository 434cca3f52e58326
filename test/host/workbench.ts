// Opens the code-server workbench in Debian Chromium (playwright-core), optionally with an
// extension-development / extension-tests payload, plus helpers to drive it for screenshots.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { CodeServer } from './codeServer';
import { Cleanup, cleanEnv, killTree, log, makeTmpDir } from './common';
import { ensureChromium } from './install';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A rectangle of the page, in CSS pixels. */
export interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WorkbenchPayload {
  /** Absolute path on the server of the extension to load in development mode. */
  extensionDevelopmentPath?: string;
  /** Absolute path on the server of the folder holding the tests' index.js. */
  extensionTestsPath?: string;
}

export interface WorkbenchOptions {
  server: CodeServer;
  /** Absolute path of the folder to open. */
  folder: string;
  payload?: WorkbenchPayload;
  /** Run folder: Chromium's profile and the logs go below it. */
  runDir: string;
  cleanup?: Cleanup;
  /**
   * Every workbench log message (incl. the extension host's console in test mode):
   * `args` is `[message or format, ...args]`.
   */
  onLog?: (level: string, args: unknown[]) => void;
  headless?: boolean;
  viewport?: { width: number; height: number };
}

export interface ExitInfo {
  code: number;
  /** Set when the page crashed or closed instead of reporting an exit code. */
  error?: string;
}

export interface Workbench {
  page: Page;
  context: BrowserContext;
  url: string;
  /** Resolves when the workbench calls codeAutomationExit (extension tests finished). */
  exit: Promise<ExitInfo>;
  waitReady(timeoutMs?: number): Promise<void>;
  /** Opens (never toggles closed) the activity-bar item whose aria-label starts with `label`. */
  openActivity(label: string, timeoutMs?: number): Promise<void>;
  /** A `.monaco-list-row` whose text contains `text`, once it is visible. */
  waitForRow(text: string | RegExp, timeoutMs?: number): Promise<Locator>;
  clickRow(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Expands a collapsed tree row (no-op when already expanded). */
  expandRow(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Runs a command through the command palette (F1, type, Enter). */
  /** Runs a command from the palette; `opensInput`: it asks something next (the quick input stays open). */
  runCommand(label: string, timeoutMs?: number, opensInput?: boolean): Promise<void>;
  /** Waits for a CSS selector to be visible. */
  waitFor(selector: string, timeoutMs?: number): Promise<void>;
  /** `keepPointer`: leave the pointer where it is (a hover shot); otherwise it is parked where nothing shows a hover. */
  /** A PNG, or a WebP when `file` ends with .webp; `clip`: only that part of the page (CSS pixels). */
  screenshot(file: string, keepPointer?: boolean, clip?: Clip): Promise<void>;
  /** Reloads the page (the browser's reload: the workbench may not have saved its state). */
  reload(): Promise<void>;
  /** Developer: Reload Window, as a person does it: the workbench saves its state (open editors…) first. */
  reloadWindow(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** `/?folder=…&payload=…` for a folder and optional payload on this server. */
export function workbenchUrl(server: CodeServer, folder: string, payload?: WorkbenchPayload): string {
  let url = `${server.url}/?folder=${encodeURIComponent(folder)}`;
  const entries: [string, string][] = [];
  if (payload?.extensionDevelopmentPath) entries.push(['extensionDevelopmentPath', server.remoteUri(payload.extensionDevelopmentPath)]);
  if (payload?.extensionTestsPath) entries.push(['extensionTestsPath', server.remoteUri(payload.extensionTestsPath)]);
  if (entries.length) {
    entries.push(['skipWelcome', 'true']);
    url += `&payload=${encodeURIComponent(JSON.stringify(entries))}`;
  }
  return url;
}

/** Turns a codeAutomationLog message (`[format, ...args]`, printf-like) into plain text. */
export function logText(args: unknown): string {
  const list = Array.isArray(args) ? args : [args];
  return format(...list);
}

export async function openWorkbench(opts: WorkbenchOptions): Promise<Workbench> {
  const executablePath = ensureChromium();
  const profile = path.join(opts.runDir, 'chromium-profile');
  const xdg = path.join(opts.runDir, 'chromium-xdg');
  fs.mkdirSync(profile, { recursive: true });
  fs.mkdirSync(xdg, { recursive: true });
  const tmp = makeTmpDir(opts.runDir);
  const logFile = fs.createWriteStream(path.join(opts.runDir, 'workbench.log'), { flags: 'a' });

  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: opts.headless ?? true,
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    args: CHROMIUM_FLAGS,
    env: cleanEnv({ XDG_CONFIG_HOME: xdg, XDG_CACHE_HOME: xdg, XDG_DATA_HOME: xdg, TMPDIR: tmp }) as Record<string, string>,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: 60000,
  });
  // Chromium's own process (playwright starts it in a new process group).
  const browserPid = findChromiumPid(profile);
  if (browserPid) opts.cleanup?.trackGroup(browserPid);

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await Promise.race([context.close().catch(() => undefined), new Promise((r) => setTimeout(r, 10000))]);
      if (browserPid) {
        const left = await killTree(browserPid, 2000);
        opts.cleanup?.untrackGroup(browserPid);
        if (left.length) log(`Chromium processes still running: ${left.join('; ')}`);
      }
      logFile.end();
    })());
  opts.cleanup?.add('chromium', close);

  let exitResolve!: (e: ExitInfo) => void;
  const exit = new Promise<ExitInfo>((resolve) => (exitResolve = resolve));
  await context.exposeFunction('codeAutomationLog', (level: unknown, args: unknown) => {
    const list = Array.isArray(args) ? (args as unknown[]) : [args];
    logFile.write(`[${String(level)}] ${logText(list)}\n`);
    opts.onLog?.(String(level), list);
  });
  await context.exposeFunction('codeAutomationExit', (code: unknown, logs: unknown) => {
    saveLogs(path.join(opts.runDir, 'workbench-logs'), logs);
    exitResolve({ code: typeof code === 'number' ? code : Number(code) || 0 });
  });

  const page = context.pages()[0] ?? (await context.newPage());
  page.on('crash', () => exitResolve({ code: 1, error: 'the workbench page crashed' }));
  page.on('close', () => exitResolve({ code: 1, error: 'the workbench page closed' }));
  page.on('console', (msg) => logFile.write(`[console.${msg.type()}] ${msg.text()}\n`));
  page.on('pageerror', (err) => logFile.write(`[pageerror] ${err.stack ?? err.message}\n`));
  const url = workbenchUrl(opts.server, opts.folder, opts.payload);
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });

  const rowLocator = (text: string | RegExp): Locator => page.locator('.monaco-list-row').filter({ hasText: text }).first();

  const wb: Workbench = {
    page,
    context,
    url,
    exit,
    async waitReady(timeoutMs = 60000) {
      await page.locator('.monaco-workbench .part.activitybar').first().waitFor({ state: 'visible', timeout: timeoutMs });
    },
    async openActivity(label, timeoutMs = 30000) {
      await wb.waitReady(timeoutMs);
      const item = page.locator(`.part.activitybar .action-item:has([aria-label^="${cssString(label)}"]), .part.activitybar .action-item[aria-label^="${cssString(label)}"]`).first();
      await item.waitFor({ state: 'visible', timeout: timeoutMs });
      // Clicking the active item hides the side bar, and a restored layout settles late:
      // look twice before clicking an item that is active but whose side bar is not shown.
      const deadline = Date.now() + timeoutMs;
      let hiddenWhileActive = 0;
      for (;;) {
        const checked = (await item.getAttribute('class'))?.split(/\s+/).includes('checked') || (await item.getAttribute('aria-selected')) === 'true' || (await item.locator('[aria-selected="true"]').count()) > 0;
        const visible = await page.locator('.part.sidebar').isVisible();
        if (checked && visible) return;
        if (Date.now() > deadline) throw new Error(`the activity-bar item "${label}" did not open within ${timeoutMs} ms`);
        if (!checked || ++hiddenWhileActive >= 2) {
          await item.click();
          hiddenWhileActive = 0;
        }
        await page.waitForTimeout(600);
      }
    },
    async waitForRow(text, timeoutMs = 30000) {
      const row = rowLocator(text);
      await row.waitFor({ state: 'visible', timeout: timeoutMs });
      return row;
    },
    async clickRow(text, timeoutMs = 30000) {
      const row = await wb.waitForRow(text, timeoutMs);
      await row.click();
    },
    async expandRow(text, timeoutMs = 30000) {
      const row = await wb.waitForRow(text, timeoutMs);
      if ((await row.getAttribute('aria-expanded')) === 'false') {
        await row.click();
        await page.waitForFunction((el) => el?.getAttribute('aria-expanded') !== 'false', await row.elementHandle(), { timeout: timeoutMs });
      }
    },
    async runCommand(label, timeoutMs = 30000, opensInput = false) {
      await wb.waitReady(timeoutMs);
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: timeoutMs });
      await input.fill(`>${label}`);
      await page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: label }).first().waitFor({ state: 'visible', timeout: timeoutMs });
      await page.keyboard.press('Enter');
      if (opensInput) return;
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: timeoutMs }).catch(() => undefined);
    },
    async waitFor(selector, timeoutMs = 30000) {
      await page.locator(selector).first().waitFor({ state: 'visible', timeout: timeoutMs });
    },
    async screenshot(file, keepPointer = false, clip) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      if (!keepPointer) {
        // Park the pointer over the empty editor area so no hover or tooltip shows.
        const vp = page.viewportSize() ?? { width: 1280, height: 800 };
        await page.mouse.move(Math.round(vp.width * 0.7), Math.round(vp.height * 0.55));
      }
      await page.waitForTimeout(400);
      if (file.endsWith('.webp')) {
        // Playwright writes PNG and JPEG only; Chromium's own capture encodes WebP.
        const cdp = await page.context().newCDPSession(page);
        const { data } = (await cdp.send('Page.captureScreenshot', { format: 'webp', quality: 70, ...(clip && { clip: { ...clip, scale: 1 } }) })) as { data: string };
        await cdp.detach();
        fs.writeFileSync(file, Buffer.from(data, 'base64'));
      } else {
        await page.screenshot({ path: file, clip });
      }
    },
    async reload() {
      await page.reload({ waitUntil: 'domcontentloaded' });
      await wb.waitReady();
    },
    async reloadWindow(timeoutMs = 60000) {
      const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: timeoutMs });
      await wb.runCommand('Developer: Reload Window', timeoutMs).catch(() => undefined);
      await navigated;
      await page.waitForLoadState('domcontentloaded', { timeout: timeoutMs });
      await wb.waitReady(timeoutMs);
    },
    close,
  };
  return wb;
}

function cssString(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}

function saveLogs(dir: string, logs: unknown): void {
  if (!Array.isArray(logs)) return;
  for (const entry of logs as { relativePath?: unknown; contents?: unknown }[]) {
    if (typeof entry?.relativePath !== 'string' || typeof entry.contents !== 'string') continue;
    const file = path.resolve(dir, entry.relativePath);
    if (!file.startsWith(dir + path.sep)) continue;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, entry.contents);
    } catch {
      /* best effort */
    }
  }
}

/** The PID of the Chromium browser process using `profile` (its main process leads a group). */
function findChromiumPid(profile: string): number | undefined {
  try {
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      let cmd: string;
      try {
        cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      const args = cmd.split('\0');
      if (args.includes(`--user-data-dir=${profile}`) && !args.some((a) => a.startsWith('--type='))) return Number(name);
    }
  } catch {
    /* no /proc */
  }
  return undefined;
}

// The screen driver: lets the suites running inside the extension host look at and act on the
// workbench the way a person does — read what is drawn, click, type, press keys — through the
// Chromium page the runner holds. The runner starts it on a loopback port with a random token and
// passes `http://127.0.0.1:<port>/<token>` to the extension host (env SITE_REVISIONS_TEST_DRIVER);
// test/integration/screen.ts is the client. One POST per action, JSON in and out.
//
// Selectors are Playwright selectors in the workbench page; `frames` walks into iframes first
// (a webview is `iframe.webview` › `iframe#active-frame`). `hasText` narrows to elements whose
// text contains it (a /regex/flags string is a regular expression).
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FrameLocator, Locator, Page } from 'playwright-core';

export interface Target {
  selector: string;
  hasText?: string;
  /** Frame selectors to enter first, outermost first. */
  frames?: string[];
  /** Which match (default 0; -1 = last). */
  nth?: number;
}

export type DriverRequest =
  | ({ op: 'texts' } & Target)
  | ({ op: 'renderedTexts' } & Target)
  | ({ op: 'count' } & Target)
  | ({ op: 'attribute'; name: string } & Target)
  | ({ op: 'style'; property: string; pseudo?: '::before' | '::after' } & Target)
  | ({ op: 'value' } & Target)
  | ({ op: 'waitFor'; state?: 'visible' | 'hidden' | 'attached' | 'detached'; timeoutMs?: number } & Target)
  | ({ op: 'click'; button?: 'left' | 'right' | 'middle'; clickCount?: number; modifiers?: ('Alt' | 'Control' | 'Meta' | 'Shift')[]; timeoutMs?: number } & Target)
  | ({ op: 'hover'; timeoutMs?: number } & Target)
  | ({ op: 'fill'; value: string; timeoutMs?: number } & Target)
  | ({ op: 'selectOption'; value: string; timeoutMs?: number } & Target)
  | ({ op: 'focus'; timeoutMs?: number } & Target)
  | { op: 'type'; text: string }
  | { op: 'press'; key: string }
  | { op: 'screenshot'; file: string }
  | { op: 'moveMouseAway' };

export interface Driver {
  /** `http://127.0.0.1:<port>/<token>` */
  url: string;
  close(): Promise<void>;
}

function textMatcher(hasText: string | undefined): string | RegExp | undefined {
  if (hasText === undefined) return undefined;
  const m = /^\/(.*)\/([a-z]*)$/s.exec(hasText);
  return m ? new RegExp(m[1]!, m[2]) : hasText;
}

function locate(page: Page, t: Target): Locator {
  let scope: Page | FrameLocator = page;
  for (const f of t.frames ?? []) scope = scope.frameLocator(f);
  let loc = scope.locator(t.selector);
  const text = textMatcher(t.hasText);
  if (text !== undefined) loc = loc.filter({ hasText: text });
  return t.nth === undefined ? loc : t.nth < 0 ? loc.last() : loc.nth(t.nth);
}

async function perform(page: Page, r: DriverRequest): Promise<unknown> {
  switch (r.op) {
    case 'texts':
      return locate(page, { ...r, nth: undefined }).allInnerTexts();
    case 'renderedTexts':
      // innerText leaves out what CSS draws (`::before` / `::after` content, e.g. an editor's
      // after-decorations): walk each match and put that content where it is drawn.
      return locate(page, { ...r, nth: undefined }).evaluateAll((els) => {
        const generated = (el: Element, pseudo: '::before' | '::after'): string => {
          const c = getComputedStyle(el, pseudo).content;
          if (!c || c === 'none' || c === 'normal' || !c.startsWith('"')) return '';
          return c.slice(1, -1).replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/g, (_m, hex: string | undefined, ch: string | undefined) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : (ch ?? '')));
        };
        const walk = (n: Node): string => {
          if (n.nodeType === Node.TEXT_NODE) return n.textContent ?? '';
          if (!(n instanceof Element)) return '';
          let out = generated(n, '::before');
          for (const child of Array.from(n.childNodes)) out += walk(child);
          return out + generated(n, '::after');
        };
        return els.map((el) => walk(el));
      });
    case 'count':
      return locate(page, { ...r, nth: undefined }).count();
    case 'attribute':
      return locate(page, { ...r, nth: r.nth ?? 0 }).getAttribute(r.name, { timeout: 5000 });
    case 'style':
      return locate(page, { ...r, nth: r.nth ?? 0 }).evaluate((el, [prop, pseudo]) => getComputedStyle(el, pseudo ?? null).getPropertyValue(prop), [r.property, r.pseudo] as const, { timeout: 5000 });
    case 'value':
      return locate(page, { ...r, nth: r.nth ?? 0 }).inputValue({ timeout: 5000 });
    case 'waitFor':
      await locate(page, { ...r, nth: r.nth ?? 0 }).waitFor({ state: r.state ?? 'visible', timeout: r.timeoutMs ?? 15000 });
      return true;
    case 'click':
      await locate(page, { ...r, nth: r.nth ?? 0 }).click({
        timeout: r.timeoutMs ?? 15000,
        ...(r.button ? { button: r.button } : {}),
        ...(r.clickCount ? { clickCount: r.clickCount } : {}),
        ...(r.modifiers ? { modifiers: r.modifiers } : {}),
      });
      return true;
    case 'hover':
      await locate(page, { ...r, nth: r.nth ?? 0 }).hover({ timeout: r.timeoutMs ?? 15000 });
      return true;
    case 'fill':
      await locate(page, { ...r, nth: r.nth ?? 0 }).fill(r.value, { timeout: r.timeoutMs ?? 15000 });
      return true;
    case 'selectOption':
      await locate(page, { ...r, nth: r.nth ?? 0 }).selectOption(r.value, { timeout: r.timeoutMs ?? 15000 });
      return true;
    case 'focus':
      await locate(page, { ...r, nth: r.nth ?? 0 }).focus({ timeout: r.timeoutMs ?? 15000 });
      return true;
    case 'type':
      await page.keyboard.type(r.text);
      return true;
    case 'press':
      await page.keyboard.press(r.key);
      return true;
    case 'screenshot':
      await page.screenshot({ path: r.file });
      return true;
    case 'moveMouseAway': {
      const vp = page.viewportSize() ?? { width: 1280, height: 800 };
      await page.mouse.move(Math.round(vp.width * 0.7), Math.round(vp.height * 0.55));
      return true;
    }
    default:
      throw new Error(`unknown driver op ${JSON.stringify((r as { op?: unknown }).op)}`);
  }
}

/** Starts the driver for the page `page()` returns (undefined until the workbench is open). */
export async function startDriver(page: () => Page | undefined): Promise<Driver> {
  const token = randomBytes(16).toString('hex');
  // One action at a time: a click and a read must not interleave.
  let queue: Promise<unknown> = Promise.resolve();
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== `/${token}`) return reply(404, { error: 'not found' });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let r: DriverRequest;
      try {
        r = JSON.parse(Buffer.concat(chunks).toString('utf8')) as DriverRequest;
      } catch {
        return reply(400, { error: 'not JSON' });
      }
      const p = page();
      if (!p) return reply(503, { error: 'the workbench is not open yet' });
      const run = queue.then(() => perform(p, r));
      queue = run.catch(() => undefined);
      run.then(
        (value) => reply(200, { value: value ?? null }),
        (e: unknown) => reply(200, { error: e instanceof Error ? e.message.split('\n').slice(0, 6).join('\n') : String(e) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

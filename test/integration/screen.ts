// What a person sees: the suites ask the runner (test/host/driver.ts) to read and act on the
// workbench page through Chromium — the drawn text of a view, a button, a tab title — instead of
// trusting a context key or a command result. Under a runner without a page (the desktop
// runner) `screen()` is undefined and the tests that need it skip, saying why.
import * as vscode from 'vscode';
import type { DriverRequest, Target } from '../host/driver';

export type { Target } from '../host/driver';

type Op<K extends DriverRequest['op']> = Omit<Extract<DriverRequest, { op: K }>, 'op'>;

export class Screen {
  constructor(private readonly url: string) {}

  private async send<T>(r: DriverRequest): Promise<T> {
    let res = await this.post(r);
    // 503: the runner has not got its page yet (the suites can start first).
    for (let i = 0; res.status === 503 && i < 100; i++) {
      await res.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await this.post(r);
    }
    const body = (await res.json()) as { value?: T; error?: string };
    if (!res.ok || body.error !== undefined) throw new Error(`screen ${r.op} ${'selector' in r ? JSON.stringify(r.selector) : ''}: ${body.error ?? `HTTP ${res.status}`}`);
    return body.value as T;
  }

  private post(r: DriverRequest): Promise<Response> {
    return fetch(this.url, { method: 'POST', body: JSON.stringify(r), headers: { 'content-type': 'application/json' } });
  }

  /** Whether the first match is visible now (no waiting). */
  async visible(t: Target): Promise<boolean> {
    try {
      await this.send({ op: 'waitFor', ...t, state: 'visible', timeoutMs: 1 });
      return true;
    } catch {
      return false;
    }
  }

  /** The rendered text (innerText) of every match. */
  texts(t: Target): Promise<string[]> {
    return this.send({ op: 'texts', ...t });
  }
  /**
   * The text of every match as drawn, with what CSS adds (`::before` / `::after` content, such as
   * an editor's after-decorations) where it appears; text nodes as they are (no layout).
   */
  renderedTexts(t: Target): Promise<string[]> {
    return this.send({ op: 'renderedTexts', ...t });
  }
  count(t: Target): Promise<number> {
    return this.send({ op: 'count', ...t });
  }
  attribute(t: Target & { name: string }): Promise<string | null> {
    return this.send({ op: 'attribute', ...t });
  }
  /** A CSS property of the first match as the browser computed it (of its `::before` / `::after` with `pseudo`). */
  style(t: Target & { property: string; pseudo?: '::before' | '::after' }): Promise<string> {
    return this.send({ op: 'style', ...t });
  }
  /** The current value of an input, select or textarea (what it shows, not its attribute). */
  value(t: Target): Promise<string> {
    return this.send({ op: 'value', ...t });
  }
  waitFor(t: Op<'waitFor'>): Promise<void> {
    return this.send({ op: 'waitFor', ...t });
  }
  click(t: Op<'click'>): Promise<void> {
    return this.send({ op: 'click', ...t });
  }
  hover(t: Op<'hover'>): Promise<void> {
    return this.send({ op: 'hover', ...t });
  }
  fill(t: Op<'fill'>): Promise<void> {
    return this.send({ op: 'fill', ...t });
  }
  selectOption(t: Op<'selectOption'>): Promise<void> {
    return this.send({ op: 'selectOption', ...t });
  }
  focus(t: Op<'focus'>): Promise<void> {
    return this.send({ op: 'focus', ...t });
  }
  type(text: string): Promise<void> {
    return this.send({ op: 'type', text });
  }
  press(key: string): Promise<void> {
    return this.send({ op: 'press', key });
  }
  screenshot(file: string): Promise<void> {
    return this.send({ op: 'screenshot', file });
  }
  moveMouseAway(): Promise<void> {
    return this.send({ op: 'moveMouseAway' });
  }

  /**
   * Hovers `target` until what the hover shows (`read`) passes `check`: the mouse is moved away
   * and back for each try. A hover comes up on a mouse move only: one the workbench did not show,
   * or hid again (its editor drawn anew under it, a slow provider on a loaded machine), is asked
   * for again rather than waited for. Each try waits `tryMs` for the hover (its delay, 300 ms,
   * and the providers); throws with the last value seen after `timeoutMs`.
   */
  async hoverUntil<T>(target: Target, read: () => Promise<T>, check: (v: T) => boolean, what: string, { tryMs = 3000, timeoutMs = 20000 } = {}): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      await this.moveMouseAway();
      await this.hover(target);
      try {
        return await this.until(read, check, what, Math.min(tryMs, Math.max(1, deadline - Date.now())));
      } catch (e) {
        if (Date.now() >= deadline) throw new Error(`${(e as Error).message} (${attempt} hovers)`, { cause: e });
      }
    }
  }

  /** Polls `read` until `check` accepts its value; throws with the last value seen. */
  async until<T>(read: () => Promise<T>, check: (v: T) => boolean, what: string, timeoutMs = 15000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: T | undefined;
    let lastError: unknown;
    for (;;) {
      try {
        last = await read();
        if (check(last)) return last;
        lastError = undefined;
      } catch (e) {
        lastError = e;
      }
      if (Date.now() > deadline) {
        const why = lastError instanceof Error ? lastError.message : JSON.stringify(last);
        throw new Error(`${what}: not seen on screen within ${timeoutMs} ms (last: ${why})`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  // ---- the workbench parts the suites read

  /**
   * Shows the Sites view (never toggles the side bar closed: clicking the activity-bar item of the
   * container already shown would hide it) and waits until its pane is drawn.
   */
  async openSitesView(): Promise<void> {
    await vscode.commands.executeCommand('siteRevisions.sites.focus');
    // A container with one view hides that view's header: the pane body is what is drawn.
    const body = { selector: `${this.pane('Sites')} > .pane-body` };
    await this.waitFor({ ...body, timeoutMs: 30000 });
  }

  /** The pane of a view in the side bar, by its header title. */
  pane(title: string): string {
    return `.part.sidebar .pane:has(> .pane-header[aria-label^="${title.replace(/"/g, '\\"')}"])`;
  }

  /**
   * Clicks an action of a view's title bar, by the start of its aria-label (e.g. "New Site"): in
   * the container's title bar when the view is alone in it, else in the view's own pane header
   * (whose actions show while the pointer is over it).
   */
  async clickViewAction(title: string, label: string): Promise<void> {
    const header = `${this.pane(title)} > .pane-header`;
    const action = `.action-label[aria-label^="${label.replace(/"/g, '\\"')}"]`;
    const inContainer = `.part.sidebar .title-actions ${action}`;
    if ((await this.count({ selector: inContainer })) > 0) return this.click({ selector: inContainer });
    await this.hover({ selector: header });
    await this.click({ selector: `${header} .actions ${action}` });
  }

  /**
   * Expands or collapses a view pane of the side bar (a click on its header when it is not in
   * that state yet), and waits until it is drawn so.
   */
  async setPaneExpanded(title: string, expanded: boolean): Promise<void> {
    const header = `${this.pane(title)} > .pane-header`;
    const state = async () => (await this.attribute({ selector: header, name: 'aria-expanded' })) === 'true';
    if ((await this.count({ selector: header })) === 0) return; // a container with one view draws no header
    if ((await state()) !== expanded) await this.click({ selector: header });
    await this.until(state, (v) => v === expanded, `the pane ${title} ${expanded ? 'expanded' : 'collapsed'}`);
  }

  /**
   * The welcome content drawn in a view pane: all its text, its paragraphs (the text outside the
   * buttons, one per line of the content) and the labels of its buttons.
   */
  async welcome(title = 'Sites'): Promise<{ text: string; paragraphs: string[]; buttons: string[] }> {
    const pane = this.pane(title);
    const text = (await this.texts({ selector: `${pane} .welcome-view-content` })).join('\n');
    const paragraphs = await this.texts({ selector: `${pane} .welcome-view-content p` });
    const buttons = await this.texts({ selector: `${pane} .welcome-view-content .monaco-button` });
    const clean = (list: string[]) => list.map((x) => x.trim()).filter(Boolean);
    return { text, paragraphs: clean(paragraphs), buttons: clean(buttons) };
  }

  /** Clicks a button of the welcome content drawn in a view pane, by its label. */
  clickWelcomeButton(label: string, title = 'Sites'): Promise<void> {
    return this.click({ selector: `${this.pane(title)} .welcome-view-content .monaco-button`, hasText: `/^\\s*${escapeRegExp(label)}\\s*$/` });
  }

  /**
   * Clicks an inline action button of a tree row (drawn only while the row is hovered): hovers the
   * row, then clicks the button; a row drawn again meanwhile (a refresh) is hovered again.
   */
  async clickRowAction(row: Target, label: string): Promise<void> {
    const within = row.hasText ? `${row.selector}:has-text(${JSON.stringify(row.hasText)})` : row.selector;
    const button: Target = { selector: `${within} .action-label[aria-label^=${JSON.stringify(label)}]`, ...(row.frames ? { frames: row.frames } : {}) };
    for (let attempt = 1; ; attempt++) {
      // The hover of the row hovered before (its tooltip) may lie over this row: the pointer goes to
      // the window's title first, which has none, so that the tooltip goes.
      await this.hover({ selector: '.part.titlebar', timeoutMs: 3000 }).catch(() => undefined);
      try {
        await this.hover({ ...row, timeoutMs: 5000 });
        await this.click({ ...button, timeoutMs: 3000 });
        return;
      } catch (e) {
        if (attempt >= 4) throw e;
      }
    }
  }

  /**
   * Expands a path of rows in a view's tree by clicking them, one level at a time: the row of
   * level n+1 whose label starts with `labels[n]`. A row drawn again meanwhile (a refresh that
   * folds it back) is clicked again, until it stays expanded. Returns the last row's target.
   */
  async expandPath(labels: string[], title = 'Sites'): Promise<Target> {
    let row: Target = { selector: '' };
    for (const [i, label] of labels.entries()) {
      row = { selector: `${this.pane(title)} .monaco-list-row[aria-level="${i + 1}"]`, hasText: `/^\\s*${escapeRegExp(label)}/` };
      const expanded = async () => (await this.attribute({ ...row, name: 'aria-expanded' })) === 'true';
      for (let attempt = 1; ; attempt++) {
        // A row out of view is not drawn (the tree draws what is in view): scrolled to, once the wait for it is over.
        await this.waitFor({ ...row, timeoutMs: 15000 }).catch(async (e: unknown) => {
          await this.scrollToRow(row, title).catch(() => {
            throw e;
          });
        });
        if (!(await expanded())) await this.click(row);
        await this.until(expanded, (x) => x, `the row “${label}” expanded`, 5000).catch(() => undefined);
        // Settled: still expanded a moment later.
        await new Promise((r) => setTimeout(r, 250));
        if (await expanded()) break;
        if (attempt >= 4) throw new Error(`the row “${label}” does not stay expanded`);
      }
    }
    return row;
  }

  /**
   * Makes a row of a view's tree drawn: a tree draws only the rows in its viewport, so a child
   * below the bottom edge is not in the page. Walks the tree from its first row with the arrow
   * key (the list scrolls its focused row into view) until the row is drawn.
   */
  async scrollToRow(row: Target, title = 'Sites', maxSteps = 80): Promise<void> {
    if ((await this.count(row)) > 0) return;
    await this.focus({ selector: `${this.pane(title)} .monaco-list` });
    await this.press('Home');
    for (let i = 0; i < maxSteps && (await this.count(row)) === 0; i++) await this.press('ArrowDown');
    await this.waitFor({ ...row, timeoutMs: 5000 });
  }

  /** The rows of the tree in a view pane, as drawn (label and description). */
  rows(title = 'Sites'): Promise<string[]> {
    return this.texts({ selector: `${this.pane(title)} .monaco-list-row` });
  }

  /** All the text the side bar draws: its title (a single view's description shows there), rows, a view's message. */
  async sideBarText(): Promise<string> {
    return (await this.texts({ selector: '.part.sidebar' })).join('\n');
  }

  /** The labels (aria-label) of the action buttons drawn in the side bar's title and pane headers. */
  async sideBarActions(): Promise<string[]> {
    const n = await this.count({ selector: SIDEBAR_ACTIONS });
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push((await this.attribute({ selector: SIDEBAR_ACTIONS, nth: i, name: 'aria-label' })) ?? '');
    return out;
  }

  /** The titles of the editor tabs, as drawn. */
  async tabTitles(): Promise<string[]> {
    return (await this.texts({ selector: '.part.editor .tabs-container .tab .label-name' })).map((t) => t.trim());
  }

  /**
   * The messages of the notifications drawn: the toasts and the notification center. The
   * workbench draws no toasts while the smoke-test driver is on (as under the runner): open the
   * center first (command `notifications.showList`).
   */
  async notifications(): Promise<string[]> {
    return (await this.texts({ selector: NOTIFICATION_MESSAGES })).map((t) => t.trim());
  }

  /** The labels of the buttons drawn in notifications, toasts and center. */
  async notificationButtons(): Promise<string[]> {
    return (await this.texts({ selector: NOTIFICATION_MESSAGES.split(', ').map((s) => s.replace('.notification-list-item-message', '.notification-list-item-buttons-container .monaco-button')).join(', ') })).map((t) => t.trim());
  }

  /** The links drawn inside notification messages (their texts), toasts and center. */
  notificationLinks(): Promise<string[]> {
    return this.texts({ selector: NOTIFICATION_MESSAGES.split(', ').map((s) => `${s} a`).join(', ') });
  }

  /** Closes every notification toast (Escape in the notification center does it too). */
  async clearNotifications(): Promise<void> {
    for (let i = 0; i < 10; i++) {
      const n = await this.count({ selector: '.notifications-toasts .notification-list-item .codicon-notifications-clear' });
      if (!n) return;
      await this.click({ selector: '.notifications-toasts .notification-list-item .codicon-notifications-clear' }).catch(() => undefined);
    }
  }
}

const SIDEBAR_ACTIONS = '.part.sidebar .actions-container .action-label';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

const NOTIFICATION_MESSAGES = '.notifications-toasts .notification-list-item-message, .notifications-center .notification-list-item-message';

let cached: Screen | null | undefined;

/** The screen of the runner's workbench, or undefined when the runner has none. */
export function screen(): Screen | undefined {
  if (cached === undefined) {
    const url = process.env.SITE_REVISIONS_TEST_DRIVER;
    cached = url ? new Screen(url) : null;
  }
  return cached ?? undefined;
}

/** The screen, or skips the test (with the reason) under a runner without one. */
export function screenOrSkip(ctx: Mocha.Context): Screen {
  const s = screen();
  if (!s) {
    ctx.skip();
  }
  return s!;
}

/**
 * What the workbench shows when a test fails, for the log of a run nobody watches (CI): the side
 * bar's text, the tab titles, the notifications; and a screenshot into `dir` when one is given.
 * Never throws: a report that cannot be made says so.
 */
export async function failureReport(testTitle: string, dir: string | undefined): Promise<string> {
  const s = screen();
  if (!s) return '';
  const lines: string[] = [`--- screen at the failure of “${testTitle}”`];
  const read = async (what: string, f: () => Promise<string | string[]>) => {
    try {
      const v = await f();
      lines.push(`${what}: ${typeof v === 'string' ? v.replace(/\n+/g, ' | ') : JSON.stringify(v)}`);
    } catch (e) {
      lines.push(`${what}: (not read: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
    }
  };
  await read('side bar', () => s.sideBarText());
  await read('tabs', () => s.tabTitles());
  await read('notifications', () => s.notifications());
  if (dir) {
    const file = `${dir}/${testTitle.replace(/[^\w-]+/g, '-').slice(0, 80)}.png`;
    await read('screenshot', async () => {
      await s.screenshot(file);
      return file;
    });
  }
  return lines.join('\n');
}

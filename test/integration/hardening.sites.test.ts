// Hardening of the Sites view, the site editor and the transport settings, in the real extension
// host: hostile site data from the service (markup, markdown command links, bidi overrides,
// control characters, 4 KB values, duplicate ids, prototype-named types) is shown only as data,
// and the siteRevisions.caFile setting is honored end to end for a self-signed service.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import { SITE_STRING_FIELDS } from '../../src/core/api/types';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import { startRawServer, TEST_CERT, TEST_KEY, type RawServer } from '../unit/helpers/rawServer';
import { signInDemo } from './support';
import { ext, testService, waitFor } from './util';

const MARKUP = '<img src=x onerror=alert(1)>';
const MD_LINK = '**bold** [link](command:siteRevisions.signOut)';
const RTL = 'invoice\u202Egpj.exe';
const CONTROLS = `ctl${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')}end`;
const LONG = `${'Ω'.repeat(4096)}`;

/** Characters that must not reach a tooltip's markdown raw. */
const HIDDEN_IN_TOOLTIP = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Every string field of a site set to `''`, then `over`. */
function site(over: Partial<Site>): Record<string, unknown> {
  const s: Record<string, unknown> = Object.fromEntries(SITE_STRING_FIELDS.map((f) => [f, '']));
  return { ...s, shared: false, ...over };
}

/** Asserts a tree item shows `s` as data: label, unique id, escaped untrusted tooltip, string icon id. */
function assertRendersAsData(item: vscode.TreeItem, s: Site): void {
  assert.equal(typeof item.label === 'string' ? item.label : item.label?.label, s.name || '(unnamed)', 'the label is the name, as text');
  assert.ok(item.tooltip instanceof vscode.MarkdownString, 'the tooltip is a MarkdownString');
  const md = item.tooltip;
  assert.equal(md.isTrusted, false, 'untrusted: command links cannot run');
  assert.equal(md.supportHtml, false, 'no HTML rendering');
  assert.ok(!/<[a-z!/?]/i.test(md.value), `no raw tag in the tooltip markdown: ${md.value.slice(0, 300)}`);
  assert.ok(!md.value.includes(']('), `no live markdown link in: ${md.value.slice(0, 300)}`);
  assert.ok(!/(^|[^\\])\[/.test(md.value.replace(/\\\\/g, '')), 'every [ of the data is escaped');
  assert.ok(!HIDDEN_IN_TOOLTIP.test(md.value), 'no control or bidi character in the tooltip markdown');
  assert.ok(item.iconPath instanceof vscode.ThemeIcon && typeof item.iconPath.id === 'string', `icon id ${String((item.iconPath as vscode.ThemeIcon).id)}`);
  assert.equal(typeof item.id, 'string');
  assert.equal(typeof item.description, 'string');
}

/** Replaces console.warn (how the Sites tree reports duplicate ids without a log) for a while. */
function spyConsoleWarn(into: string[]): () => void {
  const desc = Object.getOwnPropertyDescriptor(console, 'warn');
  Object.defineProperty(console, 'warn', { value: (...a: unknown[]) => void into.push(a.map(String).join(' ')), writable: true, configurable: true });
  return () => {
    if (desc) Object.defineProperty(console, 'warn', desc);
  };
}

describe('Hardening: sites', function () {
  this.timeout(120_000);
  let api: ExtensionApi;
  let url: string;
  const cfg = () => vscode.workspace.getConfiguration('siteRevisions');
  let savedServiceUrl: unknown;
  let savedCaFile: unknown;
  const createdIds: string[] = [];
  let hostile: Site[] = [];

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    savedServiceUrl = cfg().inspect('serviceUrl')?.globalValue;
    savedCaFile = cfg().inspect('caFile')?.globalValue;
    await signInDemo(url);
  });

  after(async () => {
    for (const id of createdIds) await api.session.call((c) => c.deleteSite(id)).catch(() => undefined);
    await cfg().update('caFile', savedCaFile, vscode.ConfigurationTarget.Global);
    if (api.session.account?.serviceUrl !== url) {
      await api.session.signOut();
      await signInDemo(url);
    }
    if (cfg().get('serviceUrl') !== savedServiceUrl && savedServiceUrl !== undefined) {
      await cfg().update('serviceUrl', savedServiceUrl, vscode.ConfigurationTarget.Global);
    }
  });

  const roots = async () => (await api.tree.getChildren()) as SiteNode[];

  it('creates sites with markup, markdown links, bidi overrides, control characters and 4 KB values on the service', async () => {
    const specs: { name: string; domain: string; web_url?: string; dir?: string }[] = [
      { name: `Hardening ${MARKUP}`, domain: `${MARKUP}.example` },
      { name: `Hardening ${MD_LINK}`, domain: '[x](command:workbench.action.quit)' },
      { name: `Hardening ${RTL}`, domain: `\u202E${'moc.elpmaxe'}` },
      { name: `Hardening ${CONTROLS}`, domain: CONTROLS, dir: `/www/${CONTROLS}` },
      { name: `Hardening long ${'x'.repeat(230)}`, domain: `${'d'.repeat(4096)}.example`, web_url: `https://example.com/${MARKUP}${'p'.repeat(4000)}` },
    ];
    for (const s of specs) {
      const r = await api.session.call((c) => c.createSite({ name: s.name, server_type: 'FTP', domain: s.domain, ...(s.dir ? { dir: s.dir } : {}), ...(s.web_url ? { web_url: s.web_url } : {}) }));
      assert.ok(r.siteId);
      createdIds.push(r.siteId);
    }
    api.model.refresh();
    const all = await api.model.all();
    hostile = createdIds.map((id) => all.find((s) => s.id === id)!);
    assert.ok(hostile.every(Boolean), 'every created site is listed');
    assert.deepEqual(
      hostile.map((s) => s.name),
      specs.map((s) => s.name),
      'the service keeps the names exactly',
    );
    assert.equal(hostile[4]!.domain.length, 4096 + '.example'.length);
  });

  it('renders them in the Sites view as data: labels, escaped untrusted tooltips, unique ids; VS Code accepts every item', async () => {
    const nodes = await roots();
    const ids = nodes.map((n) => n.getTreeItem().id);
    assert.equal(new Set(ids).size, ids.length, 'tree item ids are unique');
    for (const s of hostile) {
      const node = nodes.find((n) => n.site.id === s.id);
      assert.ok(node, `a node for ${JSON.stringify(s.name.slice(0, 40))}`);
      const item = node.getTreeItem();
      assertRendersAsData(item, s);
      assert.ok(String(item.description).includes(s.domain), 'the description carries the domain as text');
    }
    // The markup and the link are in the tooltip, escaped: readable, not live.
    const tip = (nodes.find((n) => n.site.id === hostile[0]!.id)!.getTreeItem().tooltip as vscode.MarkdownString).value;
    assert.ok(tip.includes('&lt;img'), tip);
    const linkTip = (nodes.find((n) => n.site.id === hostile[1]!.id)!.getTreeItem().tooltip as vscode.MarkdownString).value;
    assert.ok(linkTip.includes('\\[link\\]\\(command:siteRevisions.signOut\\)'), linkTip);
    const rtlTip = (nodes.find((n) => n.site.id === hostile[2]!.id)!.getTreeItem().tooltip as vscode.MarkdownString).value;
    assert.ok(rtlTip.includes('invoice\ufffdgpj.exe'), 'the bidi override is shown as U+FFFD in the tooltip');

    // Through VS Code's own tree view code (item conversion, tooltip, icon): reveal each one.
    await vscode.commands.executeCommand('siteRevisions.sites.focus');
    for (const s of hostile) {
      const node = (await roots()).find((n) => n.site.id === s.id)!;
      await api.view.reveal(node, { select: false, focus: false, expand: false });
    }
    assert.equal(api.session.state, 'signedIn', 'no command link ran (e.g. sign out)');
  });

  it('the site editor gets hostile values only as data through postMessage, never in its HTML', async () => {
    for (const s of hostile) {
      await vscode.commands.executeCommand('siteRevisions.editSite', s.id);
      const ed = api.editors.last!;
      try {
        await ed.simulate({ type: 'ready' });
        const html = ed.panel.webview.html;
        for (const needle of [s.name, s.domain, MARKUP, 'onerror', 'command:siteRevisions.signOut', '\u202E', 'ctl\u0000']) {
          assert.ok(!html.includes(needle), `the webview HTML contains ${JSON.stringify(needle.slice(0, 40))}`);
        }
        assert.match(html, /default-src 'none'/);
        assert.match(html, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
        assert.ok(!/unsafe-inline|unsafe-eval/.test(html));
        assert.equal(ed.initialState.values.name, s.name, 'the name is in the init message, as a value');
        assert.equal(ed.initialState.values.domain, s.domain);
        const init = ed.posted.find((m) => m.type === 'init');
        assert.ok(init && init.type === 'init' && init.values.name === s.name, 'posted to the webview as data');
        assert.equal(ed.panel.title, `Edit site: ${s.name}`, 'the panel title is plain text');
      } finally {
        ed.panel.dispose();
      }
    }
  });

  it('the webview script (src/features/sites/webview/main.ts) inserts data only with textContent, value and attributes (static check)', () => {
    const file = vscode.Uri.joinPath(api.context.extensionUri, 'src', 'features', 'sites', 'webview', 'main.ts').fsPath;
    const code = stripComments(fs.readFileSync(file, 'utf8'));
    for (const [re, what] of [
      [/\.innerHTML\b/, 'innerHTML'],
      [/\.outerHTML\b/, 'outerHTML'],
      [/insertAdjacentHTML/, 'insertAdjacentHTML'],
      [/document\s*\.\s*write(ln)?\b/, 'document.write'],
      [/\beval\s*\(/, 'eval'],
      [/\bnew\s+Function\b|\bFunction\s*\(/, 'Function()'],
      [/createContextualFragment|DOMParser|parseFromString/, 'HTML parsing'],
      [/\bsrcdoc\b/, 'srcdoc'],
      [/set(Timeout|Interval)\s*\(\s*['"`]/, 'string timer'],
      [/\.(src|href|action|formAction)\s*=/, 'URL-bearing property'],
      [/setAttribute\(\s*['"`]on/i, 'event handler attribute'],
      [/\.on[a-z]+\s*=/, 'event handler property'],
    ] as const) {
      assert.ok(!re.test(code), `the webview script uses ${what}`);
    }
    // Every createElement names a literal tag (data never chooses what element is made).
    for (const m of code.matchAll(/createElement\(([^)]*)\)/g)) assert.ok(/^(tag|'[a-z]+')$/.test(m[1]!.trim()), `createElement(${m[1]})`);
    for (const m of code.matchAll(/\bel\(\s*([^,)]*)/g)) assert.ok(/^'[a-z0-9]+'$/.test(m[1]!.trim()) || m[1]!.trim() === 'tag', `el(${m[1]})`);
  });

  it('dist/siteEditor.js, run on a DOM that refuses HTML, shows the hostile values as text and values only', async () => {
    const s = hostile[0]!;
    await vscode.commands.executeCommand('siteRevisions.editSite', s.id);
    const ed = api.editors.last!;
    let init: unknown;
    try {
      init = ed.initialState;
    } finally {
      ed.panel.dispose();
    }
    const file = vscode.Uri.joinPath(api.context.extensionUri, 'dist', 'siteEditor.js').fsPath;
    const dom = runEditorScript(fs.readFileSync(file, 'utf8'), init);
    assert.deepEqual(dom.posted[0], { type: 'ready' });
    assert.deepEqual(dom.state, { mode: 'edit', siteId: s.id, values: ed.initialState.values, cleared: { ftp_pass: false, db_password: false } }, 'the form kept for a reload, as data');
    const name = dom.byId('f-name');
    assert.ok(name, 'the name field is built');
    assert.equal(name.props.value, s.name, 'the name is the input value');
    assert.equal(dom.byId('f-domain')?.props.value, s.domain);
    assert.equal(dom.byId('title')?.text(), `Edit site: ${s.name}`, 'the title is text');
    const tags = new Set(dom.all().map((n) => n.tag));
    for (const t of tags) assert.ok(['#text', 'main', 'h1', 'h2', 'p', 'div', 'form', 'fieldset', 'legend', 'label', 'span', 'input', 'select', 'option', 'button', 'section', 'ol', 'li'].includes(t), `element <${t}>`);
    assert.ok(!tags.has('img') && !tags.has('script'));
  });

  it('a list with duplicate ids, 4 KB names and prototype-named types still renders: unique item ids and a warning', async () => {
    const list = [
      site({ id: '5', name: 'First of id 5', server_type: 'FTP' }),
      site({ id: '5', name: 'Second of id 5', server_type: 'SFTP' }),
      site({ id: '5', name: `Third of id 5 ${MARKUP}`, server_type: 'constructor' }),
      site({ id: 'site-duplicate:2:5', name: 'Not a duplicate', server_type: '__proto__' }),
      site({ id: '6', name: LONG, domain: LONG, server_type: 'toString' }),
      site({ id: '7', name: '', server_type: 'hasOwnProperty' }),
      site({ id: '8', name: CONTROLS, domain: RTL, shared: true }),
    ];
    const raw = await startRawServer({ body: { success: true, sites: list } });
    const warnings: string[] = [];
    const restoreWarn = spyConsoleWarn(warnings);
    const logWarn = api.log.warn;
    api.log.warn = (m: string, ...a: unknown[]) => {
      warnings.push(m);
      logWarn.call(api.log, m, ...a);
    };
    try {
      await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: raw.url, email: 'hardening@example.com', password: 'hardening-pw' });
      const nodes = await roots();
      assert.equal(nodes.length, list.length, 'every site is shown');
      const items = nodes.map((n) => n.getTreeItem());
      const ids = items.map((i) => i.id);
      assert.equal(new Set(ids).size, ids.length, `unique tree item ids: ${JSON.stringify(ids)}`);
      for (const [i, n] of nodes.entries()) assertRendersAsData(items[i]!, n.site);
      const fives = nodes.filter((n) => n.site.id === '5');
      assert.equal(fives.length, 3);
      assert.equal(fives.filter((n) => n.duplicate === undefined).length, 1, 'one of them is the site');
      for (const d of fives.filter((n) => n.duplicate !== undefined)) {
        assert.equal(d.getTreeItem().collapsibleState, vscode.TreeItemCollapsibleState.None, 'a duplicate cannot be expanded');
        assert.deepEqual(await d.getChildren(), []);
      }
      for (const t of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const n = nodes.find((x) => x.site.server_type === t)!;
        assert.equal((n.getTreeItem().iconPath as vscode.ThemeIcon).id, 'question', `the icon of server_type ${t}`);
      }
      assert.ok(warnings.some((w) => /same id/.test(w) && w.includes('"5" (3 times)')), `warned: ${JSON.stringify(warnings)}`);
      const before = warnings.length;
      await roots();
      assert.equal(warnings.length, before, 'the same list is not warned about again on every render');
      // Through VS Code's tree view code: every item, the duplicates included.
      await vscode.commands.executeCommand('siteRevisions.sites.focus');
      for (const n of await roots()) await api.view.reveal(n, { select: false, focus: false, expand: false });
    } finally {
      api.log.warn = logWarn;
      restoreWarn();
      await api.session.signOut();
      await signInDemo(url);
      await raw.close();
    }
  });

  it('honors siteRevisions.caFile end to end: a self-signed service fails with the certificate problem and a next step, then works with the CA file', async () => {
    const tls: RawServer = await startRawServer({ body: { success: true, sites: [site({ id: '900', name: 'Behind a private CA', server_type: 'SFTP' })] } }, { tls: { cert: TEST_CERT, key: TEST_KEY } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-ca-'));
    const creds = { serviceUrl: tls.url, email: 'ca@example.com', password: 'ca-test-pw' };
    try {
      await cfg().update('caFile', undefined, vscode.ConfigurationTarget.Global);
      await assert.rejects(
        async () => vscode.commands.executeCommand('siteRevisions.signIn', creds),
        (e: Error) => {
          assert.match(e.message, /certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)/, 'names the certificate problem');
          assert.match(e.message, /set siteRevisions\.caFile/, 'names the next step');
          assert.ok(!e.message.includes(creds.password));
          return true;
        },
      );
      assert.equal(tls.requests.length, 0, 'nothing was sent over the untrusted connection');
      assert.equal(api.session.account?.serviceUrl, url, 'the failed sign-in changed nothing');

      // A file that holds no certificate is ignored (with a warning): still refused.
      const junk = path.join(dir, 'junk.pem');
      fs.writeFileSync(junk, 'not a certificate\n');
      await cfg().update('caFile', junk, vscode.ConfigurationTarget.Global);
      await assert.rejects(async () => vscode.commands.executeCommand('siteRevisions.signIn', creds), /DEPTH_ZERO_SELF_SIGNED_CERT/);

      const pem = path.join(dir, 'private-ca.pem');
      fs.writeFileSync(pem, TEST_CERT);
      await cfg().update('caFile', pem, vscode.ConfigurationTarget.Global);
      await waitFor(() => cfg().get('caFile') === pem, { message: 'the caFile setting is visible' });
      assert.equal(await vscode.commands.executeCommand('siteRevisions.signIn', creds), true);
      assert.equal(api.session.state, 'signedIn');
      assert.equal(api.session.account?.serviceUrl, tls.url);
      assert.equal(tls.requests.at(-1)?.url, '/api/sites');
      assert.equal(tls.requests.at(-1)?.form.get('email'), creds.email);
      // The session's own client (not only the sign-in check) trusts the CA too.
      const names = (await roots()).map((n) => n.site.name);
      assert.deepEqual(names, ['Behind a private CA']);

      // Trusting the CA does not loosen the name check: the same certificate served for another
      // address (127.0.0.2 is loopback on Linux; skipped where it cannot be bound) is refused.
      const other = await startRawServer({ body: { success: true, sites: [] } }, { host: '127.0.0.2', tls: { cert: TEST_CERT, key: TEST_KEY } }).catch(() => undefined);
      if (other) {
        try {
          await assert.rejects(
            async () => vscode.commands.executeCommand('siteRevisions.signIn', { ...creds, serviceUrl: other.url }),
            /certificate does not match 127\.0\.0\.2 \(ERR_TLS_CERT_ALTNAME_INVALID\): check the service URL/,
          );
          assert.equal(other.requests.length, 0);
          assert.equal(api.session.account?.serviceUrl, tls.url, 'still signed in to the trusted service');
        } finally {
          await other.close();
        }
      }
    } finally {
      await cfg().update('caFile', savedCaFile, vscode.ConfigurationTarget.Global);
      await api.session.signOut();
      await signInDemo(url);
      await tls.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(api.session.account?.serviceUrl, url, 'back on the test service');
  });
});

/** The script without its comments (a crude but sufficient scanner: strings hold no comment markers here). */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

// ---- a minimal DOM on which any HTML-parsing API throws ----

interface FakeNode {
  tag: string;
  props: Record<string, unknown>;
  attrs: Map<string, string>;
  children: FakeNode[];
  parent?: FakeNode;
  text(): string;
}

interface EditorDom {
  posted: unknown[];
  /** What the script last kept with setState. */
  state: unknown;
  byId(id: string): FakeNode | undefined;
  all(): FakeNode[];
}

/** Runs the bundled webview script (dist/siteEditor.js) in a VM with a fake DOM and posts `init` to it. */
function runEditorScript(code: string, init: unknown): EditorDom {
  const refuse = (what: string) => () => {
    throw new Error(`the webview script used ${what}`);
  };
  const make = (tag: string): FakeNode => {
    const node: FakeNode = {
      tag,
      props: {},
      attrs: new Map(),
      children: [],
      text: () => (node.tag === '#text' ? String(node.props.data) : node.children.map((c) => c.text()).join('')),
    };
    const api: Record<string, unknown> = {
      __node: node,
      setAttribute: (k: string, v: string) => {
        if (/^on/i.test(k)) throw new Error(`event handler attribute ${k}`);
        node.attrs.set(k, String(v));
      },
      getAttribute: (k: string) => node.attrs.get(k) ?? null,
      removeAttribute: (k: string) => node.attrs.delete(k),
      appendChild: (c: { __node: FakeNode }) => {
        c.__node.parent = node;
        node.children.push(c.__node);
        return c;
      },
      replaceChildren: (...cs: { __node: FakeNode }[]) => {
        node.children = cs.map((c) => c.__node);
      },
      addEventListener: () => undefined,
      focus: () => undefined,
      closest: (sel: string) => {
        const cls = sel.replace(/^\./, '');
        for (let n: FakeNode | undefined = node; n; n = n.parent) if ((n.attrs.get('class') ?? '').split(/\s+/).includes(cls)) return wrap(n);
        return null;
      },
      classList: { toggle: () => undefined },
      insertAdjacentHTML: refuse('insertAdjacentHTML'),
    };
    const wrapped = new Proxy(api, {
      get: (t, k) => {
        if (k === 'textContent') return node.text();
        if (k === 'id') return node.attrs.get('id') ?? node.props.id ?? '';
        if (k in t) return t[k as string];
        return node.props[k as string];
      },
      set: (_t, k, v) => {
        if (k === 'innerHTML' || k === 'outerHTML') throw new Error(`the webview script set ${String(k)}`);
        if (k === 'textContent') {
          const tn = make('#text');
          tn.props.data = String(v);
          node.children = [tn];
          tn.parent = node;
          return true;
        }
        node.props[k as string] = v;
        return true;
      },
    });
    wrappers.set(node, wrapped);
    return node;
  };
  const wrappers = new Map<FakeNode, unknown>();
  const wrap = (n: FakeNode) => wrappers.get(n);
  const root = make('main');
  root.attrs.set('id', 'app');
  const all = (): FakeNode[] => {
    const out: FakeNode[] = [];
    const walk = (n: FakeNode) => {
      out.push(n);
      n.children.forEach(walk);
    };
    walk(root);
    return out;
  };
  const byId = (id: string) => all().find((n) => n.attrs.get('id') === id || n.props.id === id);
  const listeners: ((e: { data: unknown }) => void)[] = [];
  const posted: unknown[] = [];
  const kept: { state?: unknown } = {};
  const document = {
    createElement: (tag: string) => wrap(make(tag)),
    createTextNode: (t: string) => {
      const n = make('#text');
      n.props.data = t;
      return wrap(n);
    },
    getElementById: (id: string) => {
      const n = byId(id);
      return n ? wrap(n) : null;
    },
    addEventListener: () => undefined,
    write: refuse('document.write'),
    writeln: refuse('document.writeln'),
  };
  const context = vm.createContext({
    document,
    window: { addEventListener: (type: string, fn: (e: { data: unknown }) => void) => type === 'message' && listeners.push(fn) },
    navigator: { platform: 'Linux', userAgent: 'test' },
    acquireVsCodeApi: () => ({
      postMessage: (m: unknown) => posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => kept.state,
      setState: (st: unknown) => (kept.state = JSON.parse(JSON.stringify(st))),
    }),
    URL,
  });
  vm.runInContext(code, context, { filename: 'siteEditor.js' });
  // The message crosses a structured clone in the real webview.
  for (const l of listeners) l({ data: JSON.parse(JSON.stringify(init)) });
  return {
    posted,
    byId,
    all,
    get state() {
      return kept.state;
    },
  };
}

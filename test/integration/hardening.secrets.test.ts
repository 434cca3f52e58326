// Hardening: the account's password and API key never leave SecretStorage. A scripted session in
// the real extension host (sign in through the prompts, list sites, edit a site, browse, open and
// restore revisions, a 401, sign out) with the API-key account, whose password and key are
// distinctive; then the password and key are searched for in the log files on disk (trace
// level, so debug lines are written too), every siteRevisions.* and http.* setting, global and
// workspace state, every request URL the service received, the tree items, the notifications and
// the messages posted to the site editor: zero hits. Sign-out leaves no secret behind.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { secretKey } from '../../src/features/auth/session';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { FileNode, FolderNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import { DEMO } from '../server/demo';
import { control, signInDemo, stubWindow } from './support';
import { ext, testService, waitFor, workspaceFolder } from './util';

const { email, password, apiKey } = DEMO.keyUser;
/** A site password typed into the editor: not the account's, but it must not leak either. */
const TYPED_SITE_PASSWORD = 'Typed-Site-Pa55-7c1e';
/** Typed into a save the service refuses, quoting it back in its error text. */
const ECHOED_SITE_PASSWORD = 'Echoed-Site-Pa55-4d2b';
/** What must never be found, with the forms it could take in a URL or a header. */
const NEEDLES = [password, apiKey, TYPED_SITE_PASSWORD, ECHOED_SITE_PASSWORD].flatMap((s) => [s, encodeURIComponent(s), Buffer.from(s).toString('base64')]);

function hits(where: string, text: string): string[] {
  return [...new Set(NEEDLES)].filter((n) => text.includes(n)).map((n) => `${where}: ${n.slice(0, 4)}…`);
}

function textOf(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (v instanceof vscode.MarkdownString) return v.value;
  if (typeof v === 'object' && 'label' in (v as object)) return textOf((v as { label: unknown }).label);
  return JSON.stringify(v);
}

/** Every file under `dir` (bounded depth). */
function filesUnder(dir: string, depth = 6): string[] {
  if (depth < 0 || !fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, depth - 1));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

describe('Hardening: secrets', function () {
  this.timeout(90000);
  let api: ExtensionApi;
  let url: string;
  let previousLogLevel: string | undefined;
  let traceOn = false;
  const treeTexts: string[] = [];
  const messages: string[] = [];
  const editorPosts: string[] = [];
  const signedInState: string[] = [];
  const restores: (() => void)[] = [];
  let shopDir: string;

  const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
  const isFolder = (n: TreeNode): n is FolderNode => kind(n) === 'revisionFolder';
  const isFile = (n: TreeNode): n is FileNode => kind(n) === 'revisionFile';
  const isRevision = (n: TreeNode): n is RevisionNode => /^revision(\.|$)/.test(kind(n));
  /** Children of a node, their tree items recorded for the search. */
  const expand = async (n?: TreeNode): Promise<TreeNode[]> => {
    const kids = await api.tree.getChildren(n);
    for (const k of kids) {
      const item = await api.tree.getTreeItem(k);
      treeTexts.push([item.label, item.description, item.tooltip, item.accessibilityInformation?.label, item.id].map(textOf).join('\n'));
    }
    return kids;
  };

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
    await control(url, 'reseed');
    // Trace level, so that debug lines (one per request) are written to the log file too.
    try {
      previousLogLevel = await vscode.commands.executeCommand<string>('_extensionTests.getLogLevel');
      await vscode.commands.executeCommand('_extensionTests.setLogLevel', 'trace');
      await waitFor(() => api.log.channel.logLevel === vscode.LogLevel.Trace, { timeoutMs: 5000 });
      traceOn = true;
    } catch (e) {
      console.log(`[secrets] could not switch the log to trace (${String(e)}): only lines at ${vscode.LogLevel[api.log.channel.logLevel]} and above are checked`);
    }
    await api.session.signOut();
    shopDir = path.join(workspaceFolder().uri.fsPath, 'key-shop');
    fs.rmSync(shopDir, { recursive: true, force: true });
    fs.mkdirSync(shopDir, { recursive: true });
    // Prompts: notifications are recorded (and searched); modal confirmations say yes.
    const record = (answer?: (message: string, options: unknown) => string | undefined) =>
      (async (message: string, ...rest: unknown[]) => {
        messages.push(message, textOf((rest[0] as vscode.MessageOptions | undefined)?.detail));
        return answer?.(message, rest[0]);
      }) as never;
    restores.push(
      stubWindow('showInformationMessage', record()),
      stubWindow('showErrorMessage', record()),
      stubWindow('showWarningMessage', record((_m, o) => ((o as vscode.MessageOptions | undefined)?.modal ? 'Restore' : undefined))),
    );
  });

  after(async () => {
    restores.splice(0).forEach((r) => r());
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
    for (const d of vscode.workspace.textDocuments.filter((x) => x.isDirty && x.uri.scheme === 'file')) {
      await vscode.window.showTextDocument(d);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (previousLogLevel) await vscode.commands.executeCommand('_extensionTests.setLogLevel', previousLogLevel).then(undefined, () => undefined);
    fs.rmSync(shopDir, { recursive: true, force: true });
    await control(url, 'reseed'); // the edited site gets its name back
    await signInDemo(url);
    api.model.refresh();
  });

  it('a scripted session with the API-key account: sign in, sites, edit, revisions, 401, sign out', async () => {
    // Sign in through the prompts (URL, email, password, API key), as a person would.
    const answers = [url, email, password, apiKey];
    const prompts: string[] = [];
    const restoreInput = stubWindow('showInputBox', (async (o: vscode.InputBoxOptions) => {
      prompts.push(`${o.title} ${o.prompt} ${o.value ?? ''}`);
      return answers.shift();
    }) as never);
    try {
      assert.equal(await vscode.commands.executeCommand('siteRevisions.signIn'), true);
    } finally {
      restoreInput();
    }
    assert.equal(api.session.state, 'signedIn');
    assert.equal(api.session.account?.email, email);
    messages.push(...prompts);

    // Sites.
    api.model.refresh();
    const sites = (await expand()) as SiteNode[];
    assert.deepEqual(sites.map((s) => s.site.name), ['Key Account Shop']);
    const shop = sites[0]!;

    // Edit the site through the editor (and type a new site password).
    await vscode.commands.executeCommand('siteRevisions.editSite', shop);
    const ed = api.editors.last!;
    editorPosts.push(ed.panel.title);
    await ed.simulate({ type: 'ready' });
    await ed.simulate({
      type: 'save',
      values: { ...ed.initialState.values, name: 'Key Account Shop (edited)', ftp_pass: TYPED_SITE_PASSWORD },
      passwordEdited: { ftp_pass: true, db_password: false },
    });
    assert.ok(await ed.done, JSON.stringify(ed.lastPosted));
    editorPosts.push(JSON.stringify(ed.posted));
    // A save the service refuses, quoting the typed site password in its error text: the
    // password reaches neither the log (the request's debug line included) nor the form.
    await vscode.commands.executeCommand('siteRevisions.editSite', shop);
    const refused = api.editors.last!;
    await refused.simulate({ type: 'ready' });
    await control(url, 'config', { failNext: [{ kind: 'echo', operation: 'saveSite' }] });
    await refused.simulate({
      type: 'save',
      values: { ...refused.initialState.values, ftp_pass: ECHOED_SITE_PASSWORD },
      passwordEdited: { ftp_pass: true, db_password: false },
    });
    assert.equal(refused.lastPosted?.type, 'saveFailed', JSON.stringify(refused.lastPosted));
    assert.match((refused.lastPosted as { message: string }).message, /Could not connect to .* with shop \/ \*\*\*/, 'the service’s text, the password hidden');
    editorPosts.push(JSON.stringify(refused.posted));
    refused.panel.dispose();
    api.model.refresh();
    const [edited] = (await expand()) as SiteNode[];
    assert.equal(edited!.site.name, 'Key Account Shop (edited)');
    assert.equal(edited!.site.ftp_pass, TYPED_SITE_PASSWORD, 'the service stored the typed password');

    // Revisions: browse, open, compare, map a folder and restore.
    const top = await expand(edited);
    const catalog = top.find(isFolder)!;
    assert.ok(catalog, 'the folder of the seeded revisions');
    await expand(catalog);
    const index = top.find((n): n is FileNode => isFile(n) && n.path === 'index.php')!;
    const revs = (await expand(index)).filter(isRevision);
    assert.equal(revs.length, 3);
    const opened = (await vscode.commands.executeCommand('siteRevisions.openRevision', revs[0])) as Outcome;
    assert.ok(opened.done);
    const compared = (await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', revs[0])) as Outcome;
    assert.ok(compared.done);
    await vscode.commands.executeCommand('siteRevisions.mapFolder', edited!.site.id, vscode.Uri.file(shopDir));
    fs.writeFileSync(path.join(shopDir, 'index.php'), '<?php echo "working";\n');
    const restored = (await vscode.commands.executeCommand('siteRevisions.restoreRevision', revs[2])) as Outcome;
    assert.ok(restored.done, JSON.stringify(restored));
    const content = new TextDecoder().decode(await api.revisions.store.content(edited!.site.id, revs[2]!.ref.item.id));
    assert.equal(vscode.window.activeTextEditor?.document.getText(), content);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await expand(edited);
    await expand(index);
    // The mapping is not a secret, but this suite leaves no state behind.
    await api.revisions.folders.set(edited!.site.id, undefined);

    // The service signs the account out (401): the session expires and asks once to sign in.
    await control(url, 'config', { failNext: [{ kind: 'http401', operation: 'getSites' }] });
    api.model.refresh();
    assert.deepEqual(await expand(), []);
    assert.equal(api.session.state, 'expired');
    assert.ok(messages.some((m) => /Sign in again/.test(m)), JSON.stringify(messages));
    messages.push(textOf(api.view.message), textOf(api.view.description), textOf(api.view.title), api.model.errorMessage ?? '');
    // State as it is while the account is signed in (searched with the rest below).
    for (const state of [api.context.globalState, api.context.workspaceState]) signedInState.push(JSON.stringify(state.keys().map((k) => [k, state.get(k)])));
    assert.ok(signedInState[0]!.includes(email), 'the remembered account (email and URL only) is in global state');

    // Sign out.
    await vscode.commands.executeCommand('siteRevisions.signOut');
    assert.equal(api.session.state, 'signedOut');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('sign-out leaves nothing behind: no secret of the account in SecretStorage, no remembered account', async () => {
    for (const what of ['password', 'apiKey'] as const) {
      assert.equal(await api.context.secrets.get(secretKey(url, email, what)), undefined, `${what} deleted`);
    }
    const keys = (api.context.secrets as unknown as { keys?: () => Thenable<string[]> }).keys;
    if (typeof keys === 'function') {
      const left = (await keys.call(api.context.secrets)).filter((k) => k.toLowerCase().includes(email));
      assert.deepEqual(left, [], 'no SecretStorage key of the account');
    }
    assert.equal(api.context.globalState.get('siteRevisions.account'), undefined);
    assert.equal(api.session.account, undefined);
    await assert.rejects(api.session.getClient(), /signed out|not accepted/);
  });

  it('the password and API key are nowhere: log files (trace), settings, state, request URLs, tree, messages, editor', async () => {
    const found: string[] = [];

    // The log: the channel's file is in the extension's log folder (context.logUri).
    const marker = `secrets-check-${Date.now()}`;
    api.log.info(marker);
    const logDir = api.context.logUri.fsPath;
    const ourLog = await waitFor(
      () => {
        const f = filesUnder(path.dirname(logDir), 3).find((p) => /Site Revisions\.log$/.test(p) && fs.readFileSync(p, 'utf8').includes(marker));
        return f;
      },
      { timeoutMs: 10000, message: `the Site Revisions log file under ${path.dirname(logDir)}` },
    );
    const logText = fs.readFileSync(ourLog, 'utf8');
    assert.match(logText, new RegExp(`Signed in to .* as ${email.replace('.', '\\.')}`), 'the session is in the log');
    if (traceOn) {
      assert.match(logText, /\[debug\] request \{"operation":"Get Sites"/, 'debug lines (one per request) were written');
      assert.match(logText, /"operation":"Save Site"/);
      assert.match(logText, /"operation":"Get Revision"/);
      assert.match(logText, /"status":401/, 'the 401 is in the log');
      assert.match(logText, /Could not connect to [^"]* with shop \/ \*\*\*/, 'the refused save is in the log, its echoed password hidden');
    }
    // Every log file of this session (this extension host's, the other extensions', VS Code's own).
    const session = path.dirname(path.dirname(logDir));
    const allLogs = filesUnder(session, 5).filter((p) => /\.log$/.test(p));
    for (const f of allLogs) found.push(...hits(path.relative(session, f), fs.readFileSync(f, 'utf8')));

    // Settings: every siteRevisions.* and http.* value, at every level.
    const ext = vscode.extensions.getExtension('site-revisions.site-revisions')!;
    const props = Object.keys((ext.packageJSON as { contributes: { configuration: { properties: Record<string, unknown> } } }).contributes.configuration.properties);
    const all = vscode.workspace.getConfiguration();
    for (const key of props) found.push(...hits(`setting ${key}`, JSON.stringify(all.inspect(key))));
    const http = vscode.workspace.getConfiguration('http');
    const httpKeys = Object.keys(http).filter((k) => typeof (http as unknown as Record<string, unknown>)[k] !== 'function');
    assert.ok(httpKeys.includes('proxy'), `http settings read: ${httpKeys.join(', ')}`);
    for (const key of httpKeys) found.push(...hits(`setting http.${key}`, JSON.stringify(http.inspect(key))));

    // Global and workspace state: every key, while signed in and now.
    found.push(...hits('state while signed in', signedInState.join('\n')));
    for (const [name, state] of [['globalState', api.context.globalState], ['workspaceState', api.context.workspaceState]] as const) {
      for (const key of state.keys()) found.push(...hits(`${name} ${key}`, `${key} ${JSON.stringify(state.get(key))}`));
    }

    // Every request the service received in this run (all suites so far).
    const { requests } = await control(url, 'stats');
    assert.ok(requests.some((r) => r.authorization), 'the key account’s requests were among them');
    for (const r of requests) found.push(...hits(`request ${r.url}`, `${r.url} ${r.bodyFields.join(',')}`));

    // The tree items, notifications, prompts and the editor's messages.
    assert.ok(treeTexts.length >= 8, `${treeTexts.length} tree items seen`);
    found.push(...hits('tree', treeTexts.join('\n')));
    found.push(...hits('messages', messages.join('\n')));
    found.push(...hits('site editor', editorPosts.join('\n')));

    console.log(`[secrets] searched ${allLogs.length} log files (${traceOn ? 'trace' : 'default'} level; ours: ${logText.length} chars), ${props.length + httpKeys.length} settings, ${api.context.globalState.keys().length + api.context.workspaceState.keys().length} state keys, ${requests.length} request URLs, ${treeTexts.length} tree items, ${messages.length} messages`);
    assert.deepEqual(found, [], 'no hit');
  });
});

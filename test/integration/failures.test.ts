// Every failure is shown: what a person starts from a notification button, a quick pick button or
// activation itself fails visibly, like a command does ("<command>: <what went wrong>"), rather
// than as an unhandled promise rejection nobody sees.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { FileNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import { DEMO } from '../server/demo';
import { disposeCopy, freshContext, loadFreshCopy, runningBundle } from './freshCopy';
import { screen } from './screen';
import { control, signInDemo, spyMessages, type ShownMessage } from './support';
import { ext, testService, waitFor, workspaceFolder } from './util';

describe('Failures are shown', function () {
  this.timeout(90_000);
  let api: ExtensionApi;
  let url: string;
  let dir: string;
  let acmeId: string;
  let mappingBefore: vscode.Uri | undefined;

  const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
  /** The revisions of Acme's index.php, newest first. */
  const revisions = async (): Promise<RevisionNode[]> => {
    const acme = ((await api.tree.getChildren()) as SiteNode[]).find((s) => s.site.id === acmeId)!;
    const file = (await api.tree.getChildren(acme)).find((n): n is FileNode => kind(n) === 'revisionFile' && (n as FileNode).path === 'index.php')!;
    return (await api.tree.getChildren(file)).filter((n): n is RevisionNode => /^revision(\.|$)/.test(kind(n)));
  };
  /** The next Get Revision fails with HTTP 500 (not retried), and nothing is cached. */
  const nextContentFails = async () => {
    api.revisions.cache.clear();
    await (await api.cache.current())?.clear();
    await control(url, 'config', { failNext: ['http500'] });
  };
  const errorOf = (shown: ShownMessage[], title: string) =>
    waitFor(() => shown.find((m) => m.severity === 'error' && m.message.startsWith(`${title}: `)), { message: `an error message "${title}: …" (shown: ${JSON.stringify(shown.map((m) => m.message))})` });

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
    await signInDemo(url);
    api.model.refresh();
    acmeId = (await api.model.all()).find((s) => s.name === 'Acme Corporate')!.id;
    mappingBefore = api.revisions.folders.get(acmeId);
    // A mapped folder without the working files: "the working file does not exist".
    dir = path.join(workspaceFolder().uri.fsPath, 'failures-empty');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    await api.revisions.folders.set(acmeId, vscode.Uri.file(dir));
  });

  afterEach(async () => {
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  after(async () => {
    await api.revisions.folders.set(acmeId, mappingBefore);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [button, title] of [
    ['Open Revision', 'Open Revision'],
    ['Restore Revision…', 'Restore Revision'],
  ] as const) {
    it(`“${button}” in the “working file does not exist” message: its failure is shown`, async () => {
      const [newest] = await revisions();
      const spy = spyMessages(async (m) => {
        if (!/does not exist, so there is nothing to compare with/.test(m.message)) return undefined;
        await nextContentFails();
        return button;
      });
      try {
        const out = (await vscode.commands.executeCommand('siteRevisions.compareWithWorking', newest)) as Outcome;
        assert.equal(out.done ? 'done' : out.reason, 'missing');
        const error = await errorOf(spy.shown, title);
        assert.match(error.message, /HTTP 500/);
      } finally {
        spy.restore();
      }
    });
  }

  it('“Open Read-Only” after a diff is refused as too large: its failure is shown', async () => {
    const diff = vscode.workspace.getConfiguration('diffEditor');
    const before = diff.inspect('maxFileSize')?.globalValue;
    // About 10 bytes: every revision is over it.
    const changed = new Promise<void>((resolve) => {
      const sub = vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('diffEditor.maxFileSize')) {
          sub.dispose();
          resolve();
        }
      });
    });
    await diff.update('maxFileSize', 0.00001, vscode.ConfigurationTarget.Global);
    await changed;
    const [newest] = await revisions();
    const spy = spyMessages(async (m) => {
      if (!/over the diff editor's limit/.test(m.message)) return undefined;
      await nextContentFails();
      return 'Open Read-Only';
    });
    try {
      const out = (await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', newest)) as Outcome;
      assert.equal(out.done ? 'done' : out.reason, 'too-large');
      const error = await errorOf(spy.shown, 'Open Revision');
      assert.match(error.message, /HTTP 500/);
    } finally {
      spy.restore();
      await diff.update('maxFileSize', before, vscode.ConfigurationTarget.Global);
    }
  });

  it('the Copy button of the revision quick pick: its failure is shown', async function () {
    const s = screen();
    if (!s) this.skip(); // the button is clicked on screen
    const [newest] = await revisions();
    const uri = api.revisions.revisionUri({ siteId: newest!.ref.site.id, revisionId: newest!.ref.item.id, path: newest!.ref.path });
    const spy = spyMessages();
    const picking = vscode.commands.executeCommand('siteRevisions.revisionsOfActiveFile', uri) as Thenable<Outcome>;
    try {
      const qp = await waitFor(() => (api.revisions.picks.current?.items.length ? api.revisions.picks.current : undefined), { message: 'the quick pick of the revisions' });
      await nextContentFails();
      const row = '.quick-input-widget .quick-input-list .monaco-list-row';
      await s!.hover({ selector: row, nth: 0 });
      await s!.click({ selector: `${row} .codicon-clippy`, nth: 0 });
      const error = await errorOf(spy.shown, 'Copy Revision Content');
      assert.match(error.message, /HTTP 500/);
      qp.hide();
      const out = await picking;
      assert.equal(out.done ? 'done' : out.reason, 'cancelled');
    } finally {
      spy.restore();
      api.revisions.picks.current?.hide();
    }
  });

  it('a session that cannot be restored at activation is shown, and activation completes signed out', async () => {
    // A new copy of the extension whose secret storage cannot be read (a locked keychain).
    const ctx = freshContext(url, DEMO.user.email, DEMO.user.password, { get: () => Promise.reject(new Error('the keychain is locked')) });
    const spy = spyMessages();
    try {
      const copy = (await loadFreshCopy(runningBundle(), `failures${Date.now().toString(36)}`)).activate(ctx)!;
      await copy.ready; // resolves: nothing is left rejected
      assert.equal(copy.session.state, 'signedOut');
      const error = await errorOf(spy.shown, 'Could not restore the Site Revisions session');
      assert.match(error.message, /the keychain is locked/);
    } finally {
      spy.restore();
      disposeCopy(ctx);
    }
  });
});

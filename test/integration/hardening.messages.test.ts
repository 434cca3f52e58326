// Hardening: text written by someone else — a site name chosen by the user who shares the site,
// an error text of the service, a file path, an author — never becomes a live link, a command or
// reordered text in this user's notifications and dialogs, nor a control or bidi character in a
// revision tooltip. Non-modal notifications render `[text](https://…)` and `[text](command:…)`
// as links: the texts handed to VS Code are checked (spied in the host), and so is what the
// workbench draws (no link inside a notification's message).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { SiteRevisionClient } from '../../src/core/api/client';
import type { FileNode, FolderNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import { DEMO } from '../server/demo';
import { startRawServer, type RawServer } from '../unit/helpers/rawServer';
import { screen } from './screen';
import { signInDemo, spyMessages, type ShownMessage } from './support';
import { ext, testService, workspaceFolder } from './util';

const PHISH = '[Verify account](https://phish.example)';
const COMMAND = '[x](command:siteRevisions.signOut)';
/** A link of any scheme VS Code's notifications turn into an anchor. */
const LINK = /\]\((?:https?:\/\/|command:|file:)/i;
/** Characters that reorder or break a line of text. */
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Every string field of a site set to `''`, then `over`. */
function rawSite(over: Record<string, unknown>): Record<string, unknown> {
  const fields = ['id', 'user', 'name', 'server_type', 'domain', 'logon_type', 'ftp_user', 'ftp_pass', 'dir', 'dir_id', 'port', 'pasv', 'encryption', 's3_public', 'check_out', 'encoding', 'web_url', 'db_username', 'db_password', 'db_phpmyadmin'];
  return { ...Object.fromEntries(fields.map((f) => [f, ''])), shared: false, ...over };
}

function assertInert(shown: ShownMessage[], mustMention: string): void {
  assert.ok(shown.length > 0, 'messages were shown');
  for (const m of shown) {
    for (const text of [m.message, m.detail ?? '', ...m.items]) {
      assert.ok(!LINK.test(text), `a live link in a ${m.severity} message: ${JSON.stringify(text)}`);
      assert.ok(!HIDDEN.test(text), `a control or bidi character in a ${m.severity} message: ${JSON.stringify(text)}`);
    }
  }
  assert.ok(
    shown.some((m) => m.message.includes(mustMention)),
    `the data is still there to read (${mustMention}): ${JSON.stringify(shown.map((m) => m.message))}`,
  );
}

/** What the workbench draws: the toasts show the data, and none of their messages holds a link. */
async function assertDrawnWithoutLinks(mustMention: string): Promise<void> {
  const s = screen();
  if (!s) return; // a runner without a page (desktop): the texts handed to VS Code were checked
  await vscode.commands.executeCommand('notifications.showList');
  await s.until(() => s.notifications(), (texts) => texts.some((t) => t.includes(mustMention)), `a notification mentioning ${mustMention}`);
  assert.deepEqual(await s.notificationLinks(), [], 'no link is drawn inside a notification message');
}

describe('Hardening: messages', function () {
  this.timeout(120_000);
  let api: ExtensionApi;
  let url: string;

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await signInDemo(url);
  });

  afterEach(async () => {
    // Non-modal notifications stay until closed (and the Notifier shows one per kind meanwhile).
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  it('a shared site named like a link: the owner’s name reaches the other user’s notifications as text', async () => {
    // The team account owns "Team Intranet" and shares it with the demo user; it renames it.
    const team = new SiteRevisionClient({ baseUrl: url, credentials: () => DEMO.team });
    const original = (await team.getSites()).find((s) => s.name === 'Team Intranet' || s.name.includes('Verify account'));
    assert.ok(original, 'the shared site of the team account');
    const hostile = `${PHISH} ${COMMAND} \u202Eevil`;
    const spy = spyMessages((m) => (m.modal && /^Delete/.test(m.message) ? 'Delete' : undefined));
    try {
      await team.updateSite(original.id, { name: hostile, web_url: '' });
      api.model.refresh();
      const shared = (await api.model.all()).find((s) => s.id === original.id);
      assert.ok(shared?.shared && shared.name === hostile, 'the demo user sees the renamed shared site');

      // A warning (no web URL) and the note that a shared site cannot be deleted (nothing is sent), both naming the site.
      assert.equal(await vscode.commands.executeCommand('siteRevisions.openWebUrl', shared.id), false);
      assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', shared.id), false);
      assert.ok(spy.shown.some((m) => m.severity === 'info' && /is shared with you by/.test(m.message)), JSON.stringify(spy.shown));
      assertInert(spy.shown, 'Verify account');
      await assertDrawnWithoutLinks('Verify account');
      assert.equal(api.session.state, 'signedIn', 'no command link ran');
    } finally {
      spy.restore();
      await team.updateSite(original.id, { name: 'Team Intranet', web_url: 'https://intranet.team.example/' });
      await team.dispose();
      api.model.refresh();
    }
  });

  describe('a service whose data and error texts are hostile', () => {
    let raw: RawServer;
    let dir: string;
    const hostilePath = `docs/${PHISH.replace('https://phish.example', 'command:siteRevisions.signOut')}.php`;

    before(async () => {
      raw = await startRawServer((req) => {
        const u = new URL(req.url, 'http://x');
        if (u.pathname === '/api/sites' && u.searchParams.get('cmd') === 'delete') return { body: { success: false, error: `${PHISH} to keep this site` } };
        if (u.pathname === '/api/sites') return { body: { success: true, sites: [rawSite({ id: '1', user: '1', name: `Raw ${COMMAND}`, server_type: 'FTP' })] } };
        const revision = u.searchParams.get('revision');
        if (revision) return { body: { success: true, id: revision, content: 'restored text\n' } };
        const file = u.searchParams.get('file');
        if (file === hostilePath) return { body: { success: true, revisions: [{ id: '11', date: '2024-01-01 10:00:00', author: 'mallory\u202Eevil\u0007' }] } };
        if (file === 'docs/clean.php') {
          return {
            body: {
              success: true,
              revisions: [
                { id: '21', date: '2024-01-01 10:00:00', author: `${PHISH}\u202E` },
                { id: '22', date: 'not a date\u2066 [y](command:workbench.action.quit)', author: 'eve\u0000' },
              ],
            },
          };
        }
        return { body: { success: true, files: [hostilePath, 'docs/clean.php'] } };
      });
      dir = path.join(workspaceFolder().uri.fsPath, 'hostile-messages');
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: raw.url, email: 'hostile@example.com', password: 'hostile-pw' });
      await vscode.commands.executeCommand('siteRevisions.mapFolder', '1', vscode.Uri.file(dir));
    });

    after(async () => {
      for (const d of vscode.workspace.textDocuments.filter((x) => x.isDirty && x.uri.fsPath.startsWith(dir))) {
        await vscode.window.showTextDocument(d);
        await vscode.commands.executeCommand('workbench.action.files.revert');
      }
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await api.session.signOut();
      await signInDemo(url);
      await raw.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
    const revisionsOf = async (file: string): Promise<RevisionNode[]> => {
      const [site] = (await api.tree.getChildren()) as SiteNode[];
      const docs = (await api.tree.getChildren(site)).find((n): n is FolderNode => kind(n) === 'revisionFolder')!;
      const node = (await api.tree.getChildren(docs)).find((n): n is FileNode => kind(n) === 'revisionFile' && (n as FileNode).path === file)!;
      assert.ok(node, `file ${JSON.stringify(file)} listed`);
      return (await api.tree.getChildren(node)).filter((n): n is RevisionNode => /^revision(\.|$)/.test(kind(n)));
    };

    it('revision tooltips show authors, dates, ids and paths as text, without control or bidi characters', async () => {
      const revs = [...(await revisionsOf(hostilePath)), ...(await revisionsOf('docs/clean.php'))];
      assert.equal(revs.length, 3);
      for (const r of revs) {
        const md = r.getTreeItem().tooltip as vscode.MarkdownString;
        assert.ok(md instanceof vscode.MarkdownString);
        assert.equal(md.isTrusted, false);
        assert.equal(md.supportHtml, false);
        assert.ok(!HIDDEN.test(md.value), `no control or bidi character in the tooltip: ${JSON.stringify(md.value)}`);
        assert.ok(!md.value.includes(']('), `no markdown link in the tooltip: ${JSON.stringify(md.value)}`);
      }
      const tip = (revs[1]!.getTreeItem().tooltip as vscode.MarkdownString).value;
      assert.ok(/Verify(&nbsp;| )account/.test(tip) && tip.includes('\ufffd'), `the author is shown, its bidi control as U+FFFD: ${tip}`);
    });

    it('file paths, authors and the service’s error text reach notifications and dialogs as text', async () => {
      const spy = spyMessages((m) => (m.modal ? (/^Restore/.test(m.message) ? 'Restore' : /^Delete/.test(m.message) ? 'Delete' : undefined) : undefined));
      try {
        const [oldest] = await revisionsOf(hostilePath);
        // The only revision of the file: "the oldest revision of <file name>".
        assert.equal(((await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', oldest)) as Outcome).done, false);
        // Its path cannot be mapped to a file (a colon): the refusal quotes the path.
        assert.equal(((await vscode.commands.executeCommand('siteRevisions.compareWithWorking', oldest)) as Outcome).done, false);
        // A clean path: the restore is confirmed, and the message names the author.
        const [newer] = await revisionsOf('docs/clean.php');
        const restored = (await vscode.commands.executeCommand('siteRevisions.restoreRevision', newer)) as Outcome;
        assert.ok(restored.done, JSON.stringify(restored));
        // The service's own error text, in the delete failure.
        assert.equal(await vscode.commands.executeCommand('siteRevisions.deleteSite', '1'), false);
        const messages = spy.shown.map((m) => m.message);
        for (const expected of [/oldest revision of/, /contains a colon/, /^Restore clean\.php/, /^Restored clean\.php/, /to keep this site/]) {
          assert.ok(messages.some((m) => expected.test(m)), `${expected}: ${JSON.stringify(messages)}`);
        }
        assertInert(spy.shown, 'Verify account');
        await assertDrawnWithoutLinks('Verify account');
        assert.equal(api.session.state, 'signedIn', 'no command link ran');
      } finally {
        spy.restore();
      }
    });
  });
});

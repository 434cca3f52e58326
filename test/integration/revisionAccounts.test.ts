// Each account's own revision documents (issue 32 §4), in the real workbench: two accounts on two
// instances of the local service whose sites share ids (both seeded alike: "Team Intranet" has the
// same id for the demo user on one and the team user on the other), and a revision of the same id
// and path on each, with other content. A tab of the first account's revision, and a document
// VS Code read for it under a URI made before URIs named their account, must not show the first
// account's text once the second has signed in: the tab says that the revision belongs to an
// account that is not signed in, the old document is read again for the account signed in.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { DEMO } from '../server/demo';
import { control, signInDemo, twoAccounts, type ServiceRevision } from './support';
import { screenOrSkip } from './screen';
import { waitFor } from './util';

describe('Revision documents: each account’s own (two accounts whose sites share ids and revision ids)', function () {
  this.timeout(180000);
  let t: Awaited<ReturnType<typeof twoAccounts>>;
  const PATH = 'shared/account-news.txt';
  const TEXT_A = 'the news of account A: salaries\n';
  const TEXT_B = 'the news of account B\n';
  const newest = async (url: string, who: { email: string; password: string }): Promise<ServiceRevision> => {
    const res = await fetch(`${url}/api/revisions?site=${t.teamSiteId}&file=${encodeURIComponent(PATH)}&no_content=0`, { method: 'POST', body: new URLSearchParams({ login: '1', email: who.email, password: who.password }) });
    return ((await res.json()) as { revisions: ServiceRevision[] }).revisions.sort((a, b) => Number(b.id) - Number(a.id))[0]!;
  };
  const signInB = () => vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: t.urlB, email: DEMO.team.email, password: DEMO.team.password });
  /** The text the editor area draws (the editor draws its spaces as no-break spaces). */
  const editorText = async (s: ReturnType<typeof screenOrSkip>) => (await s.texts({ selector: '.part.editor .editor-container' })).join('\n').replace(/\u00a0/g, ' ');

  before(async () => {
    t = await twoAccounts();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { urlA, urlB, teamSiteId: siteId } = t;
    await control(urlA, 'add-revision', { siteId, path: PATH, content: TEXT_A, author: 'a-only@example.com' });
    await control(urlB, 'add-revision', { siteId, path: PATH, content: TEXT_B, author: 'b-only@example.com' });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (!t) return;
    if (t.api.session.account?.email !== DEMO.user.email || t.api.session.state !== 'signedIn') await signInDemo(t.urlA);
    await t.serviceB.close();
  });

  it('after another account signs in, a tab of the first’s revision says it belongs to an account that is not signed in, and a document read before URIs named their account is read again for the second', async function () {
    const s = screenOrSkip(this);
    const { api, urlA, urlB, teamSiteId: siteId } = t;
    const revA = await newest(urlA, DEMO.user);
    const revB = await newest(urlB, DEMO.team);
    assert.equal(revA.id, revB.id, 'the two accounts’ revisions share an id');
    const address = { siteId, revisionId: revA.id, path: PATH };
    await api.loadRevisions();

    // Account A: its revision in a tab (its URI names A), and the same revision under a URI of the form made before (no account) read by VS Code.
    const uriA = api.revisions.revisionUri(address, { when: 'the same label', of: '' });
    assert.ok(JSON.parse(uriA.query).a, 'a revision URI names its account');
    const old = vscode.Uri.from({ scheme: 'site-revision', authority: 'revision', path: `/${PATH}`, query: JSON.stringify({ s: siteId, r: revA.id, p: PATH, of: '', when: 'old form' }) });
    await vscode.window.showTextDocument(uriA, { preview: false });
    const oldDoc = await vscode.workspace.openTextDocument(old);
    assert.equal(vscode.window.activeTextEditor?.document.getText(), TEXT_A);
    assert.equal(oldDoc.getText(), TEXT_A);
    await s.until(() => editorText(s), (t) => t.includes('salaries'), 'A’s revision drawn');

    // Account B signs in.
    await signInB();
    assert.equal(api.session.account?.email, DEMO.team.email);

    // The tab of A's revision: A's text is gone, and it says why.
    const drawn = await s.until(() => editorText(s), (t) => !t.includes('salaries') && t.includes('belongs to an account that is not signed in'), 'the tab of A’s revision after B signed in');
    assert.ok(!drawn.includes(TEXT_B.trim()), 'nor is it B’s revision');
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.getText().includes('salaries')), 'no document holds A’s text');
    assert.match(new TextDecoder().decode(await vscode.workspace.fs.readFile(uriA)), /^Revision \d+ of account-news\.txt belongs to an account that is not signed in\.\nSign in as that account to open it\.\n$/);
    // The document of the old form is B's revision now.
    await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.toString() === old.toString())?.getText() === TEXT_B, { message: 'the old form read again for B' });
    // B's own revision of the same ids is another document, with B's text.
    const uriB = api.revisions.revisionUri(address, { when: 'the same label', of: '' });
    assert.notEqual(uriB.toString(), uriA.toString());
    assert.equal((await vscode.workspace.openTextDocument(uriB)).getText(), TEXT_B);

    // A signs in again: its tab shows its revision again.
    await signInDemo(urlA);
    await s.until(() => editorText(s), (t) => t.includes('salaries'), 'A’s revision drawn again for A');
  });
});

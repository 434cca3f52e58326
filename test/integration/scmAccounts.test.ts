// Each account's own Source Control status (issue 32 §4), in the real workbench: two accounts on two
// instances of the local service whose sites share ids (both are seeded alike: "Team Intranet"
// has the same id for the demo user on one and the team user on the other), each mapping that
// site to the same folder. After signing in as the second, nothing of the first's status may be
// kept: its paths, newest revision ids, authors and digests; the second's first pass reads its own
// service again; the status snapshot is the second's, in the second's cache folder. What each
// status must hold is computed here from each service's own data.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { snapshotName, type StatusSnapshot } from '../../src/core/status/snapshot';
import { DEMO } from '../server/demo';
import type { RunningService } from '../server';
import { control, leaveMappedFolder, settled, signInDemo, twoAccounts, type ServiceRevision } from './support';
import { screenOrSkip } from './screen';
import { waitFor, workspaceFolder } from './util';

const sha = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

describe('Source control: each account’s own status (two accounts whose sites share ids, one folder)', function () {
  this.timeout(180000);
  let api: ExtensionApi;
  let urlA: string;
  let serviceB: RunningService;
  let urlB: string;
  let siteId: string;
  let dir: vscode.Uri;
  /** A file only account A's site has, and a file both have whose newest revision differs (same id, other author and content). */
  const ONLY_A = { path: 'only-in-a/payroll.txt', author: 'a-only@example.com', content: 'salaries of account A\n' };
  const BOTH = 'shared/news.txt';
  /** …and one only account B's site has (so that the ids of the revisions added to both come out equal). */
  const ONLY_B = { path: 'only-in-b/notes.txt', author: 'b-only@example.com', content: 'notes of account B\n' };
  const post = async <T>(url: string, p: string, who: { email: string; password: string }): Promise<T> => {
    const res = await fetch(`${url}${p}`, { method: 'POST', body: new URLSearchParams({ login: '1', email: who.email, password: who.password }) });
    return (await res.json()) as T;
  };
  /** Every file of the site and its revisions, as a service lists them to `who`. */
  const siteOf = async (url: string, who: { email: string; password: string }): Promise<Map<string, ServiceRevision[]>> => {
    const out = new Map<string, ServiceRevision[]>();
    for (const p of (await post<{ files: string[] }>(url, `/api/revisions?site=${siteId}`, who)).files) {
      const res = await fetch(`${url}/api/revisions?site=${siteId}&file=${encodeURIComponent(p)}&no_content=0`, { method: 'POST', body: new URLSearchParams({ login: '1', email: who.email, password: who.password }) });
      const revs = ((await res.json()) as { revisions: ServiceRevision[] }).revisions.map((r) => ({ ...r, time: Date.parse(`${r.date.replace(' ', 'T')}Z`) }));
      out.set(
        p,
        revs.sort((a, b) => a.time - b.time || Number(a.id) - Number(b.id)),
      );
    }
    return out;
  };
  const controlOf = async () => (await api.scm()).controls.all().find((c) => c.folder.toString() === dir.toString());

  before(async () => {
    ({ api, urlA, serviceB, urlB, teamSiteId: siteId } = await twoAccounts());
    const teamB = (await post<{ sites: { id: string; name: string }[] }>(urlB, '/api/sites', DEMO.team)).sites.find((s) => s.name === 'Team Intranet');
    assert.equal(teamB?.id, siteId, 'the two accounts’ sites share an id');
    // A's: a file B's site has not, and a newer revision of a file both have; B's: its own newer revision of that file.
    await control(urlA, 'add-revision', { siteId, ...ONLY_A });
    await control(urlA, 'add-revision', { siteId, path: BOTH, content: 'news of account A\n', author: 'a-only@example.com' });
    await control(urlB, 'add-revision', { siteId, ...ONLY_B });
    await control(urlB, 'add-revision', { siteId, path: BOTH, content: 'news of account B, longer\n', author: 'b-only@example.com' });
    dir = vscode.Uri.joinPath(workspaceFolder().uri, 'scm-accounts');
    fs.rmSync(dir.fsPath, { recursive: true, force: true });
    fs.mkdirSync(dir.fsPath, { recursive: true });
    await vscode.workspace.getConfiguration('siteRevisions').update('sourceControl.enabled', true, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    if (!dir) return;
    if (api.session.account?.email !== DEMO.user.email || api.session.state !== 'signedIn') await signInDemo(urlA);
    await leaveMappedFolder(api, urlA, siteId, dir);
    await vscode.workspace.getConfiguration('siteRevisions').update('sourceControl.enabled', false, vscode.ConfigurationTarget.Global);
    await serviceB.close();
  });

  it('signing in as another account that maps a site of the same id to the same folder keeps nothing of the first’s status: paths, newest revisions, authors, digests; its first pass reads its own service; its snapshot is its own, in its own cache folder', async function () {
    const s = screenOrSkip(this);
    const a = await siteOf(urlA, DEMO.user);
    const b = await siteOf(urlB, DEMO.team);
    assert.ok(a.has(ONLY_A.path) && !b.has(ONLY_A.path) && b.has(ONLY_B.path) && !a.has(ONLY_B.path));
    assert.equal(a.get(BOTH)!.at(-1)!.id, b.get(BOTH)!.at(-1)!.id, 'the differing revision has the same id on both');
    assert.notEqual(a.get(BOTH)!.at(-1)!.author, b.get(BOTH)!.at(-1)!.author);
    // The folder: every file of A's site as A's newest revision (B's differs for BOTH only).
    for (const [p, revs] of a) {
      const file = vscode.Uri.joinPath(dir, ...p.split('/'));
      fs.mkdirSync(path.dirname(file.fsPath), { recursive: true });
      fs.writeFileSync(file.fsPath, revs.at(-1)!.content);
      fs.utimesSync(file.fsPath, new Date(revs.at(-1)!.time + 1000), new Date(revs.at(-1)!.time + 1000));
    }

    // Account B mapped its site to the folder in an earlier session (the mapping is kept per account).
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: urlB, email: DEMO.team.email, password: DEMO.team.password });
    assert.equal(api.session.account?.email, DEMO.team.email);
    await api.revisions.folders.set(siteId, dir);
    await settled(api.scheduler, urlB);

    // Account A: the folder mapped, its status read.
    await signInDemo(urlA);
    assert.equal(api.session.account?.email, DEMO.user.email);
    await api.revisions.folders.set(siteId, dir);
    const first = await waitFor(controlOf, { message: 'A’s source control' });
    await first.settled();
    await waitFor(() => first.status.get(ONLY_A.path)?.newest?.author === ONLY_A.author && first.status.groups().unknown === 0, { message: 'A’s status' });
    assert.equal(first.status.get(BOTH)!.newest!.digest, sha(a.get(BOTH)!.at(-1)!.content));
    const folderA = api.cache.folder!;

    // Account B signs in again (at once: A's snapshot may not be written yet), its site of the same id mapped to the same folder.
    serviceB.resetStats();
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: urlB, email: DEMO.team.email, password: DEMO.team.password });
    assert.equal(api.session.account?.email, DEMO.team.email);
    assert.equal(api.revisions.folders.get(siteId)?.toString(), dir.toString());
    const second = await waitFor(async () => {
      const c = await controlOf();
      return c && c !== first ? c : undefined;
    }, { message: 'B’s own source control' });
    await second.settled();
    await waitFor(() => second.status.all().length > 0 && second.status.groups().unknown === 0, { message: 'B’s status' });

    // Nothing of A's: the paths are B's, and so are the newest revisions' authors and digests.
    assert.deepEqual(second.status.all().map((e) => e.path).sort(), [...b.keys()].sort());
    assert.equal(second.status.get(ONLY_A.path), undefined, 'A’s file is not listed');
    const bothB = second.status.get(BOTH)!.newest!;
    assert.deepEqual({ id: bothB.id, author: bothB.author, digest: bothB.digest }, { id: b.get(BOTH)!.at(-1)!.id, author: b.get(BOTH)!.at(-1)!.author, digest: sha(b.get(BOTH)!.at(-1)!.content) });
    for (const e of second.status.all()) assert.equal(e.newest?.digest, sha(b.get(e.path)!.at(-1)!.content), e.path);
    // Its groups as B's data says: the working file of BOTH is A's text, newer than B's revision; B's own file is not in the folder.
    assert.deepEqual(second.status.groups().changedLocally.map((e) => e.path), [BOTH]);
    assert.deepEqual(second.status.groups().onlyOnService.map((e) => e.path), [ONLY_B.path]);
    // B's first pass asked B's service: its list, and every file's newest revision.
    const asked = serviceB.requests().map((r) => r.operation);
    assert.ok(asked.filter((o) => o === 'getRevisionFiles').length >= 1, JSON.stringify(asked));
    assert.equal(asked.filter((o) => o === 'getRevisions').length, b.size, JSON.stringify(asked));
    // Drawn: the repository's Changed Locally has BOTH only, and A's file is nowhere.
    await vscode.commands.executeCommand('workbench.view.scm');
    const rows = await s.until(
      () => s.texts({ selector: '.part.sidebar .scm-view .monaco-list-row' }),
      (t) => t.some((x) => x.startsWith('news.txt')),
      'B’s groups',
    );
    assert.ok(!rows.some((x) => x.includes('payroll.txt')), rows.join(' | '));

    // The snapshot: B's status, in B's cache folder (A's folder is gone with A).
    const folderB = api.cache.folder!;
    assert.notEqual(folderB, folderA);
    const file = path.join(folderB, 'status', snapshotName(siteId, dir.toString()));
    const snap = await waitFor(() => (fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as StatusSnapshot) : undefined), { message: 'B’s snapshot', timeoutMs: 15000 });
    assert.deepEqual(snap.entries.map((r) => r[0]).sort(), [...b.keys()].sort());
    const row = snap.entries.find((r) => r[0] === BOTH)!;
    assert.ok(Array.isArray(row[1]) && row[1][2] === b.get(BOTH)!.at(-1)!.author, JSON.stringify(row));
    await waitFor(() => !fs.existsSync(folderA), { message: 'A’s cache folder deleted' });

    // B's mapping goes (the workspace keeps it per account); back to the demo account.
    await api.revisions.folders.set(siteId, undefined);
    await settled(api.scheduler, urlB);
    await signInDemo(urlA);
  });
});

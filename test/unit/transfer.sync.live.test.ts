// Sync a folder (issue 34 §4) against the REAL servers: the plan's rows and reasons for every case
// (changed on one side, on both, the same way, deleted on one side with and without edits on the
// other, new on either side, excluded), deleting off by default, one direction only, and the run:
// each row through the guard, results read from the server's folder and the mapped folder.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compareLive } from '../../src/core/live/compare';
import { nodeWorkingFs } from '../../src/core/status/working';
import { compileExcludes, DEFAULT_EXCLUDES } from '../../src/core/transfer/ignore';
import { planSync, runSync, type SyncPlan } from '../../src/core/transfer/sync';
import { startLiveServers, type LiveServers } from '../live/servers';
import { requireLiveServers, type LiveKind } from '../live/system';
import { openTestSite, removeTestSites, type TestSite } from './helpers/transferSite';

const T0 = Date.parse('2023-03-04T05:06:07Z');

function rowsOf(plan: SyncPlan): Record<string, string> {
  return Object.fromEntries(plan.rows.map((r) => [r.path, `${r.action} ${r.reason}`]));
}

describe('live transfer: sync a folder against the real servers', function () {
  this.timeout(180_000);
  let servers: LiveServers;
  before(async function () {
    this.timeout(20 * 60_000);
    requireLiveServers(this, ['sftp', 'dav', 'ftp']);
    this.timeout(120_000);
    servers = await startLiveServers({ only: ['sftp', 'dav', 'ftp'] });
  });
  after(async () => {
    await servers?.stop();
    removeTestSites();
  });

  /** The folder as downloaded, then changed on both sides in every way a sync must tell apart. */
  async function scenario(s: TestSite, dir: string): Promise<void> {
    const files = ['unchanged', 'live-edit', 'local-edit', 'both-edit', 'both-same', 'del-local', 'del-live', 'del-live-edited', 'del-local-edited'];
    for (const f of files) await s.server.write(`${dir}/${f}.txt`, `${f}: base\n`, T0);
    await s.server.write(`${dir}/node_modules/pkg/a.js`, 'module\n', T0);
    await s.server.write(`${dir}/keep.log`, 'log\n', T0);
    await s.server.write(`${dir}/.vscode/settings.json`, '{}\n', T0);
    const exclude = compileExcludes([...DEFAULT_EXCLUDES, 'node_modules/', '*.log']);
    const d = await s.tx.downloadFolder(dir, { exclude });
    assert.equal(d.counts.downloaded, files.length);
    // On the server (another editor), with times later than the base's:
    const later = T0 + 3600_000;
    await s.server.write(`${dir}/live-edit.txt`, 'live-edit: changed there\n', later);
    await s.server.write(`${dir}/both-edit.txt`, 'both-edit: changed there\n', later);
    await s.server.write(`${dir}/both-same.txt`, 'both-same: same change\n', later);
    await s.server.remove(`${dir}/del-live.txt`);
    await s.server.remove(`${dir}/del-live-edited.txt`);
    await s.server.write(`${dir}/del-local-edited.txt`, 'del-local-edited: changed there\n', later);
    await s.server.write(`${dir}/new-live.txt`, 'new there\n', later);
    // In the mapped folder:
    s.writeLocal(`${dir}/local-edit.txt`, 'local-edit: changed here\n');
    s.writeLocal(`${dir}/both-edit.txt`, 'both-edit: changed here\n');
    s.writeLocal(`${dir}/both-same.txt`, 'both-same: same change\n');
    fs.rmSync(path.join(s.local, dir, 'del-local.txt'));
    s.writeLocal(`${dir}/del-live-edited.txt`, 'del-live-edited: changed here\n');
    fs.rmSync(path.join(s.local, dir, 'del-local-edited.txt'));
    s.writeLocal(`${dir}/new-local.txt`, 'new here\n');
    s.writeLocal(`${dir}/.git/config`, '[core]\n');
    s.writeLocal(`${dir}/debug.log`, 'excluded\n');
  }

  const EXPECTED = (dir: string, deletes: boolean): Record<string, string> => ({
    [`${dir}/unchanged.txt`]: 'same unchanged',
    [`${dir}/live-edit.txt`]: 'download changed-live',
    [`${dir}/local-edit.txt`]: 'upload changed-locally',
    [`${dir}/both-edit.txt`]: 'conflict both-changed',
    [`${dir}/both-same.txt`]: 'same same-bytes',
    [`${dir}/del-local.txt`]: deletes ? 'delete-live deleted-locally' : 'skip deleted-locally',
    [`${dir}/del-live.txt`]: deletes ? 'delete-local deleted-live' : 'skip deleted-live',
    [`${dir}/del-live-edited.txt`]: 'conflict deleted-live',
    [`${dir}/del-local-edited.txt`]: 'conflict deleted-local',
    [`${dir}/new-live.txt`]: 'download only-live',
    [`${dir}/new-local.txt`]: 'upload only-local',
    [`${dir}/node_modules`]: 'skip excluded',
    [`${dir}/keep.log`]: 'skip excluded',
    [`${dir}/debug.log`]: 'skip excluded',
    [`${dir}/.vscode`]: 'skip excluded',
    [`${dir}/.git`]: 'skip excluded',
  });

  for (const kind of ['sftp', 'dav', 'ftp'] as LiveKind[]) {
    it(`${kind}: the plan names every case with its reason; deleting is off by default; nothing is written by planning`, async () => {
      const s = await openTestSite(servers, kind, { siteId: `plan-${kind}` });
      try {
        await scenario(s, 'sy');
        const exclude = compileExcludes([...DEFAULT_EXCLUDES, 'node_modules/', '*.log']);
        const before = await s.server.names('sy');
        const plan = await planSync(s.tx, { dir: 'sy', exclude });
        assert.deepEqual(rowsOf(plan), EXPECTED('sy', false));
        assert.deepEqual(await s.server.names('sy'), before, 'planning wrote nothing on the server');
        const withDeletes = await planSync(s.tx, { dir: 'sy', exclude, deletes: true });
        assert.deepEqual(rowsOf(withDeletes), EXPECTED('sy', true));
        const up = rowsOf(await planSync(s.tx, { dir: 'sy', exclude, direction: 'upload' }));
        assert.equal(up['sy/live-edit.txt'], 'skip changed-live');
        assert.equal(up['sy/new-live.txt'], 'skip only-live');
        assert.equal(up['sy/local-edit.txt'], 'upload changed-locally');
        const down = rowsOf(await planSync(s.tx, { dir: 'sy', exclude, direction: 'download', deletes: true }));
        assert.equal(down['sy/local-edit.txt'], 'skip changed-locally');
        assert.equal(down['sy/del-live.txt'], 'delete-local deleted-live');
        assert.equal(down['sy/del-local.txt'], 'skip deleted-locally');
      } finally {
        await s.close();
      }
    });
  }

  it('sftp: running the plan does each row through the guard: transfers, deletes with kept bytes, conflicts left as they are; a file changed again since the plan is not overwritten', async () => {
    const s = await openTestSite(servers, 'sftp', { siteId: 'run' });
    try {
      await scenario(s, 'sr');
      const exclude = compileExcludes([...DEFAULT_EXCLUDES, 'node_modules/', '*.log']);
      const plan = await planSync(s.tx, { dir: 'sr', exclude, deletes: true });
      // Changed again on the server after the preview: the guard catches it.
      await s.server.write('sr/local-edit.txt', 'local-edit: changed there after the plan\n', T0 + 7200_000);
      const r = await runSync(s.tx, plan);
      const by = Object.fromEntries(r.files.map((f) => [f.path, f.action]));
      assert.equal(by['sr/live-edit.txt'], 'downloaded');
      assert.equal(s.readLocal('sr/live-edit.txt')?.toString(), 'live-edit: changed there\n');
      assert.equal(by['sr/new-local.txt'], 'uploaded');
      assert.equal((await s.server.read('sr/new-local.txt'))?.toString(), 'new here\n');
      assert.equal(by['sr/new-live.txt'], 'downloaded');
      assert.equal(s.readLocal('sr/new-live.txt')?.toString(), 'new there\n');
      assert.equal(by['sr/local-edit.txt'], 'conflict');
      assert.equal((await s.server.read('sr/local-edit.txt'))?.toString(), 'local-edit: changed there after the plan\n');
      assert.equal(by['sr/del-local.txt'], 'deleted');
      assert.equal(await s.server.read('sr/del-local.txt'), undefined);
      assert.equal(by['sr/del-live.txt'], 'deleted');
      assert.equal(s.readLocal('sr/del-live.txt'), undefined);
      const kept = await s.copies.list();
      assert.ok(kept.some((k) => k.path === 'sr/del-local.txt' && k.side === 'live' && k.why === 'sync-delete'));
      assert.ok(kept.some((k) => k.path === 'sr/del-live.txt' && k.side === 'local' && k.why === 'sync-delete'));
      // The plan's conflicts: nothing written, each with its choices.
      assert.equal((await s.server.read('sr/both-edit.txt'))?.toString(), 'both-edit: changed there\n');
      assert.equal(s.readLocal('sr/both-edit.txt')?.toString(), 'both-edit: changed here\n');
      const conflict = (p: string) => r.conflicts.find((c) => c.path === p)!;
      assert.equal(conflict('sr/del-local-edited.txt').reason, 'deleted-local');
      // Take Theirs of "deleted here, changed there": the live file comes back.
      assert.equal((await conflict('sr/del-local-edited.txt').overwriteWorking()).outcome, 'done');
      assert.equal(s.readLocal('sr/del-local-edited.txt')?.toString(), 'del-local-edited: changed there\n');
      // Overwrite of "deleted there, changed here": the working file goes up again.
      assert.equal((await conflict('sr/del-live-edited.txt').overwriteLive()).outcome, 'done');
      assert.equal((await s.server.read('sr/del-live-edited.txt'))?.toString(), 'del-live-edited: changed here\n');
      // Excluded files were not touched.
      assert.equal(await s.server.read('sr/debug.log'), undefined);
      assert.equal(await s.server.read('sr/.git/config'), undefined);
      assert.equal(s.readLocal('sr/keep.log'), undefined);
      // A second plan now: only what is still in conflict (and what is excluded) remains.
      const again = rowsOf(await planSync(s.tx, { dir: 'sr', exclude }));
      const open = Object.entries(again).filter(([, v]) => !v.startsWith('same') && !v.endsWith('excluded'));
      assert.deepEqual(open.map(([k]) => k).sort(), ['sr/both-edit.txt', 'sr/local-edit.txt']);
    } finally {
      await s.close();
    }
  });

  it('sftp: a comparison of live and local reads the live files but does not move the base: a change it saw still makes the next upload a conflict', async () => {
    const s = await openTestSite(servers, 'sftp', { siteId: 'cmp' });
    try {
      await s.server.write('cmp/f.txt', 'base\n', T0);
      assert.equal((await s.tx.downloadFile('cmp/f.txt')).action, 'downloaded');
      await s.server.write('cmp/f.txt', 'BASE\n', T0 + 60_000); // the same size: the comparison reads it
      // Compare Live with Local (the connection layer's engine) with the shared last-seen state.
      const cmp = await compareLive(s.live, { root: 'cmp', local: nodeWorkingFs(s.local), lastSeen: s.lastSeen });
      assert.equal(cmp.counts.differsFromLocal, 1);
      assert.equal(s.lastSeen.get('cmp/f.txt')?.by, 'read');
      s.writeLocal('cmp/f.txt', 'mine\n');
      const up = await s.tx.uploadFile('cmp/f.txt');
      assert.equal(up.action, 'conflict');
      assert.equal((await s.server.read('cmp/f.txt'))?.toString(), 'BASE\n');
    } finally {
      await s.close();
    }
  });
});

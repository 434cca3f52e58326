// Guarded upload and download (issue 34 §1–§3) against the REAL servers (test/live): ProFTPD
// (explicit FTPS), OpenSSH's sftp, Apache mod_dav (https) and an S3 server that checks
// signatures. What is expected is read from the servers' own folders on disk (S3: through rclone)
// and from the mapped folder on disk, never from the code under test.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startLiveServers, type LiveServers } from '../live/servers';
import { ALL_KINDS, requireLiveServers, type LiveKind } from '../live/system';
import type { Conflict, FileOutcome, FolderResult, TransferProgress } from '../../src/core/transfer/types';
import { bytesOf, localNames, openTestSite, removeTestSites, sha256, type TestSite } from './helpers/transferSite';

function conflictOf(o: FileOutcome): Conflict {
  assert.equal(o.action, 'conflict', `expected a conflict, got ${JSON.stringify(o.action === 'failed' ? { action: o.action, error: o.error.message } : o.action)}`);
  return (o as { conflict: Conflict }).conflict;
}

function ok(o: FileOutcome, action: FileOutcome['action']): void {
  assert.equal(o.action, action, o.action === 'failed' ? `failed: ${o.error.kind}: ${o.error.message}` : o.action === 'conflict' ? `conflict: ${o.conflict.message}` : `got ${o.action}`);
}

/** The temporary names of writes on either side: `.<name>.sr-<hex>.tmp` on the server (src/core/live/fs.ts), `.<name>.sr-<pid>-<hex>.tmp` locally. */
const TEMP_NAME = /^\..*\.sr-[0-9a-f-]+\.tmp$/;

function noTemps(names: string[]): void {
  const temps = names.filter((n) => TEMP_NAME.test(n.slice(n.lastIndexOf('/') + 1)));
  assert.deepEqual(temps, [], 'no temporary file left');
}

/** A time far from any write of the test, as a different server-side version's time (whole seconds). */
const T0 = Date.parse('2023-03-04T05:06:07Z');

describe('live transfer: guarded upload and download against the real servers', function () {
  let servers: LiveServers;
  before(async function () {
    this.timeout(20 * 60_000);
    requireLiveServers(this, ALL_KINDS);
    this.timeout(120_000);
    servers = await startLiveServers();
  });
  after(async () => {
    await servers?.stop();
    removeTestSites();
  });

  for (const kind of ['ftp', 'sftp', 'dav', 's3'] as LiveKind[]) {
    describe(`${kind}`, function () {
      this.timeout(120_000);
      let s: TestSite;
      beforeEach(async () => {
        s = await openTestSite(servers, kind);
      });
      afterEach(async () => s?.close());

      it(`${kind}: downloads a folder with the server's bytes, names with spaces and non-ASCII, progress in files and bytes`, async () => {
        const files: Record<string, Buffer> = { 'dl/a.txt': Buffer.from('alpha\n'), 'dl/sub/b.bin': bytesOf(1, 200_000), 'dl/ünï cödé.txt': Buffer.from('ünï\n'), 'dl/with space/c d.txt': Buffer.from('c d\n') };
        for (const [p, b] of Object.entries(files)) await s.server.write(p, b);
        const seen: TransferProgress[] = [];
        const r = await s.tx.downloadFolder('dl', { onProgress: (p) => seen.push(p) });
        assert.equal(r.cancelled, false);
        assert.equal(r.counts.downloaded, 4, JSON.stringify(r.files.map((f) => [f.path, f.action])));
        for (const [p, b] of Object.entries(files)) assert.deepEqual(s.readLocal(p), b, p);
        const last = seen[seen.length - 1]!;
        assert.equal(last.phase, 'done');
        assert.deepEqual(last.files, { done: 4, total: 4 });
        assert.equal(last.bytes.total, Object.values(files).reduce((n, b) => n + b.length, 0));
        assert.equal(last.bytes.done, last.bytes.total);
        noTemps(localNames(s.local));
      });

      it(`${kind}: uploads a folder; the server's folder then holds the working bytes${kind === 'ftp' || kind === 'sftp' ? ', and a replaced file keeps its permission bits' : ''}`, async () => {
        await s.server.write('ul/keep.sh', '#!/bin/sh\necho old\n');
        s.server.chmod?.('ul/keep.sh', 0o750);
        const down = await s.tx.downloadFile('ul/keep.sh');
        ok(down, 'downloaded');
        s.writeLocal('ul/keep.sh', '#!/bin/sh\necho new version\n');
        s.writeLocal('ul/new/x.txt', 'x\n');
        s.writeLocal('ul/ünï.txt', bytesOf(2, 70_000));
        const r = await s.tx.uploadFolder('ul');
        assert.equal(r.counts.uploaded, 3, JSON.stringify(r.files.map((f) => [f.path, f.action, f.action === 'failed' ? f.error.message : ''])));
        for (const p of ['ul/keep.sh', 'ul/new/x.txt', 'ul/ünï.txt']) assert.deepEqual(await s.server.read(p), s.readLocal(p), p);
        // FTP (MLSD unix.mode) and SFTP report permission bits, so they are kept; WebDAV and S3 report none.
        if (kind === 'ftp' || kind === 'sftp') assert.equal(s.server.mode!('ul/keep.sh') & 0o777, 0o750);
        const replaced = r.files.find((f) => f.path === 'ul/keep.sh');
        assert.ok(replaced?.action === 'uploaded' && replaced.kept, 'the replaced live bytes were kept');
        assert.equal((await s.copies.read(replaced.kept.id)).toString(), '#!/bin/sh\necho old\n');
        noTemps(await s.server.names('ul'));
      });

      it(`${kind}: an upload over a live file edited on the server since the download (same size) writes nothing and shows a conflict; Overwrite then writes and keeps the live bytes, which can be put back`, async () => {
        await s.server.write('c1/page.php', 'version A\n', T0);
        ok(await s.tx.downloadFile('c1/page.php'), 'downloaded');
        // Someone edits it on the server: same size, another time (as an editor there would).
        await s.server.write('c1/page.php', 'version B\n', T0 + 60_000);
        s.writeLocal('c1/page.php', 'my version\n');
        const c = conflictOf(await s.tx.uploadFile('c1/page.php'));
        assert.equal(c.reason, 'live-changed');
        assert.equal(c.base.from, 'last-seen');
        assert.equal((await s.server.read('c1/page.php'))?.toString(), 'version B\n', 'nothing written');
        assert.equal(c.live.sha256, sha256('version B\n'));
        assert.ok(c.live.copy, 'the live bytes are held for the diffs');
        assert.equal((await s.copies.read(c.live.copy.id)).toString(), 'version B\n');
        assert.equal(c.working.sha256, sha256('my version\n'));
        const res = await c.overwriteLive();
        assert.equal(res.outcome, 'done');
        assert.equal((await s.server.read('c1/page.php'))?.toString(), 'my version\n');
        assert.equal(s.readLocal('c1/page.php')?.toString(), 'my version\n');
        // The overwritten bytes are in the list of copies, and can be put back (guarded).
        const copies = await s.copies.list(s.tx.site.siteId);
        const copy = copies.find((x) => x.path === 'c1/page.php' && x.side === 'live');
        assert.ok(copy, 'the overwritten live file is listed');
        assert.equal((await s.copies.read(copy.id)).toString(), 'version B\n');
        const back = await s.tx.putBack(copy.id);
        ok(back, 'uploaded');
        assert.equal((await s.server.read('c1/page.php'))?.toString(), 'version B\n');
        // Putting back kept what it replaced too.
        const again = (await s.copies.list(s.tx.site.siteId)).find((x) => x.path === 'c1/page.php' && x.why === 'put-back');
        assert.equal(again && (await s.copies.read(again.id)).toString(), 'my version\n');
      });

      it(`${kind}: putting back is guarded: a live file changed since it was last seen is not replaced`, async () => {
        await s.server.write('c2/a.txt', 'one\n', T0);
        ok(await s.tx.downloadFile('c2/a.txt'), 'downloaded');
        s.writeLocal('c2/a.txt', 'two\n');
        const up = await s.tx.uploadFile('c2/a.txt');
        ok(up, 'uploaded');
        assert.ok(up.action === 'uploaded' && up.kept);
        await s.server.write('c2/a.txt', 'three, by someone else\n', T0 + 120_000);
        const c = conflictOf(await s.tx.putBack(up.kept.id));
        assert.equal((await s.server.read('c2/a.txt'))?.toString(), 'three, by someone else\n', 'nothing written');
        assert.equal(c.reason, 'live-changed');
        assert.equal((await c.cancel()).outcome, 'cancelled');
        assert.equal((await s.server.read('c2/a.txt'))?.toString(), 'three, by someone else\n');
      });

      it(`${kind}: Take Theirs downloads the live file over the working one (whose bytes are kept); Cancel writes nothing`, async () => {
        await s.server.write('c3/x.txt', 'base\n', T0);
        await s.server.write('c3/y.txt', 'base y\n', T0);
        ok(await s.tx.downloadFile('c3/x.txt'), 'downloaded');
        ok(await s.tx.downloadFile('c3/y.txt'), 'downloaded');
        await s.server.write('c3/x.txt', 'theirs\n', T0 + 60_000);
        await s.server.write('c3/y.txt', 'theirs y\n', T0 + 60_000);
        s.writeLocal('c3/x.txt', 'mine\n');
        s.writeLocal('c3/y.txt', 'mine y\n');
        const cx = conflictOf(await s.tx.uploadFile('c3/x.txt'));
        const r = await cx.overwriteWorking();
        assert.equal(r.outcome, 'done');
        assert.equal(s.readLocal('c3/x.txt')?.toString(), 'theirs\n');
        assert.equal((await s.server.read('c3/x.txt'))?.toString(), 'theirs\n', 'the server is untouched');
        assert.ok(r.outcome === 'done' && r.file.action === 'downloaded' && r.file.kept);
        assert.equal((await s.copies.read(r.file.kept.id)).toString(), 'mine\n', 'the working bytes were kept');
        const cy = conflictOf(await s.tx.uploadFile('c3/y.txt'));
        assert.equal((await cy.cancel()).outcome, 'cancelled');
        assert.equal(s.readLocal('c3/y.txt')?.toString(), 'mine y\n');
        assert.equal((await s.server.read('c3/y.txt'))?.toString(), 'theirs y\n');
        assert.equal(cy.live.copy && s.copies.get(cy.live.copy.id), undefined, 'the held copy was released');
        // A second answer does nothing.
        assert.equal((await cy.overwriteLive()).outcome, 'failed');
        assert.equal((await s.server.read('c3/y.txt'))?.toString(), 'theirs y\n');
      });

      it(`${kind}: a download over a working file with edits not uploaded is a conflict; Overwrite (the working file) does it`, async () => {
        await s.server.write('c4/w.txt', 'served\n', T0);
        ok(await s.tx.downloadFile('c4/w.txt'), 'downloaded');
        s.writeLocal('c4/w.txt', 'edited here, not uploaded\n');
        await s.server.write('c4/w.txt', 'served, v2\n', T0 + 60_000);
        const c = conflictOf(await s.tx.downloadFile('c4/w.txt'));
        assert.equal(c.direction, 'download');
        assert.equal(c.reason, 'working-changed');
        assert.equal(s.readLocal('c4/w.txt')?.toString(), 'edited here, not uploaded\n', 'nothing written');
        const r = await c.overwriteWorking();
        assert.equal(r.outcome, 'done');
        assert.equal(s.readLocal('c4/w.txt')?.toString(), 'served, v2\n');
      });

      it(`${kind}: Overwrite re-checks the live file: changed again after the conflict was shown, nothing is written and the new conflict comes back`, async () => {
        await s.server.write('c5/f.txt', 'v1\n', T0);
        ok(await s.tx.downloadFile('c5/f.txt'), 'downloaded');
        await s.server.write('c5/f.txt', 'v2\n', T0 + 60_000);
        s.writeLocal('c5/f.txt', 'mine\n');
        const c = conflictOf(await s.tx.uploadFile('c5/f.txt'));
        await s.server.write('c5/f.txt', 'v3\n', T0 + 120_000);
        const r = await c.overwriteLive();
        assert.equal(r.outcome, 'changed');
        assert.ok(r.outcome === 'changed' && r.conflict);
        assert.equal(r.conflict.live.sha256, sha256('v3\n'));
        assert.equal((await s.server.read('c5/f.txt'))?.toString(), 'v3\n', 'nothing written');
        // Take Theirs on the conflict shown earlier: the live file is not the one shown either.
        const t = await c.overwriteWorking();
        assert.equal(t.outcome, 'failed', 'a conflict is answered once');
        const r2 = await r.conflict.overwriteLive();
        assert.equal(r2.outcome, 'done');
        assert.equal((await s.server.read('c5/f.txt'))?.toString(), 'mine\n');
      });

      it(`${kind}: with no last-seen record the newest revision is the base: a live file that is the newest revision is replaced, one that differs is a conflict`, async () => {
        await s.server.write('c6/r.txt', 'as in the history\n', T0);
        await s.server.write('c6/q.txt', 'changed outside the editor\n', T0);
        s.history.set('c6/r.txt', 'as in the history\n');
        s.history.set('c6/q.txt', 'as in the history\n');
        s.writeLocal('c6/r.txt', 'new\n');
        s.writeLocal('c6/q.txt', 'new\n');
        const r = await s.tx.uploadFile('c6/r.txt');
        ok(r, 'uploaded');
        assert.equal((await s.server.read('c6/r.txt'))?.toString(), 'new\n');
        const c = conflictOf(await s.tx.uploadFile('c6/q.txt'));
        assert.equal(c.base.from, 'newest-revision');
        assert.ok(c.newest?.revisionId, 'the newest revision is named for the diffs');
        assert.equal((await s.server.read('c6/q.txt'))?.toString(), 'changed outside the editor\n');
        // Never seen and no revision: a live file that differs is a conflict too.
        await s.server.write('c6/none.txt', 'unknown\n', T0);
        s.writeLocal('c6/none.txt', 'mine\n');
        assert.equal(conflictOf(await s.tx.uploadFile('c6/none.txt')).reason, 'no-base');
      });

      it(`${kind}: a cancel in the middle of a folder leaves no partial file on either side`, async () => {
        const n = 24;
        for (let i = 0; i < n; i++) await s.server.write(`big/d/f${String(i).padStart(2, '0')}.bin`, bytesOf(100 + i, 300_000));
        const ac = new AbortController();
        let done = 0;
        const r: FolderResult = await s.tx.downloadFolder('big/d', { signal: ac.signal, onFile: () => ++done >= 2 && ac.abort() });
        assert.equal(r.cancelled, true);
        const got = localNames(s.local).filter((x) => x.endsWith('.bin'));
        assert.ok(got.length < n, 'stopped before the end');
        noTemps(localNames(s.local));
        for (const g of got) assert.deepEqual(s.readLocal(g), await s.server.read(g), `${g} is complete`);
        // Upload: a new folder, cancelled in the middle.
        for (let i = 0; i < n; i++) s.writeLocal(`big/u/g${String(i).padStart(2, '0')}.bin`, bytesOf(200 + i, 300_000));
        const ac2 = new AbortController();
        let sent = 0;
        const u = await s.tx.uploadFolder('big/u', { signal: ac2.signal, onFile: () => ++sent >= 2 && ac2.abort() });
        assert.equal(u.cancelled, true);
        const names = await s.server.names('big/u');
        noTemps(names);
        const up = names.filter((x) => x.endsWith('.bin'));
        assert.ok(up.length < n, 'stopped before the end');
        for (const g of up) assert.deepEqual(await s.server.read(`big/u/${g}`), s.readLocal(`big/u/${g}`), `${g} is complete on the server`);
      });
    });
  }

  describe('symbolic links are never followed out of either root', function () {
    this.timeout(120_000);
    it('sftp: live links outside the site or to folders are left alone; a link to a file inside is read, and written through (it stays a link)', async () => {
      const s = await openTestSite(servers, 'sftp', { siteId: 'links-live' });
      const data = servers.sftp!.dataDir;
      try {
        await s.server.write('ln/in.txt', 'inside\n', T0);
        await s.server.write('ln/sub/x.txt', 'x\n', T0);
        const link = (target: string, name: string) => {
          fs.symlinkSync(target, path.join(data, 'ln', name));
          fs.lchownSync(path.join(data, 'ln', name), fs.statSync(data).uid, fs.statSync(data).gid);
        };
        link('in.txt', 'inside.txt');
        link('../../outside.txt', 'outside.txt');
        link('/etc/hostname', 'absolute.txt');
        link('sub', 'dir-link');
        const r = await s.tx.downloadFolder('ln');
        const by = Object.fromEntries(r.files.map((f) => [f.path, f.action === 'skipped' ? `skipped ${f.reason}` : f.action]));
        assert.equal(by['ln/in.txt'], 'downloaded');
        assert.equal(by['ln/inside.txt'], 'downloaded');
        assert.equal(by['ln/outside.txt'], 'skipped link-outside');
        assert.equal(by['ln/absolute.txt'], 'skipped link-outside');
        assert.equal(by['ln/dir-link'], 'skipped link-to-folder');
        assert.equal(s.readLocal('ln/inside.txt')?.toString(), 'inside\n');
        for (const n of localNames(s.local)) {
          const f = path.join(s.local, n);
          if (fs.statSync(f).isFile()) assert.ok(!fs.readFileSync(f, 'utf8').includes('OUTSIDE THE ROOT'), `${n} holds nothing from outside the root`);
        }
        // Uploading over the link to a file inside writes its target; the link stays a link.
        s.writeLocal('ln/inside.txt', 'through the link\n');
        ok(await s.tx.uploadFile('ln/inside.txt'), 'uploaded');
        assert.equal(fs.readFileSync(path.join(data, 'ln', 'in.txt'), 'utf8'), 'through the link\n');
        assert.ok(fs.lstatSync(path.join(data, 'ln', 'inside.txt')).isSymbolicLink());
        // Uploading over a link that leads outside: refused; what it points to is untouched.
        const outsideBefore = fs.readFileSync(path.join(data, '..', 'outside.txt'));
        s.writeLocal('ln/outside.txt', 'overwrite?\n');
        const out = await s.tx.uploadFile('ln/outside.txt');
        assert.ok(out.action === 'failed' && out.error.kind === 'outside-root', JSON.stringify(out.action));
        assert.deepEqual(fs.readFileSync(path.join(data, '..', 'outside.txt')), outsideBefore);
        assert.ok(fs.lstatSync(path.join(data, 'ln', 'outside.txt')).isSymbolicLink());
      } finally {
        await s.close();
      }
    });

    it('sftp: local links outside the mapped folder or to folders are not uploaded, and a download never writes through one', async () => {
      const s = await openTestSite(servers, 'sftp', { siteId: 'links-local' });
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'sroutside-'));
      try {
        fs.writeFileSync(path.join(elsewhere, 'secret.txt'), 'not part of the site\n');
        s.writeLocal('lk/real.txt', 'real\n');
        fs.symlinkSync('real.txt', path.join(s.local, 'lk', 'link-in.txt'));
        fs.symlinkSync(path.join(elsewhere, 'secret.txt'), path.join(s.local, 'lk', 'link-out.txt'));
        fs.symlinkSync(elsewhere, path.join(s.local, 'lk', 'dir-out'));
        fs.mkdirSync(path.join(s.local, 'lk', 'sub'));
        fs.symlinkSync('..', path.join(s.local, 'lk', 'sub', 'loop')); // a loop back to lk
        const r = await s.tx.uploadFolder('lk');
        const by = Object.fromEntries(r.files.map((f) => [f.path, f.action === 'skipped' ? `skipped ${f.reason}` : f.action]));
        assert.equal(by['lk/real.txt'], 'uploaded');
        assert.equal(by['lk/link-in.txt'], 'uploaded');
        assert.equal(by['lk/link-out.txt'], 'skipped link-outside');
        assert.match(by['lk/dir-out']!, /^skipped link-(outside|to-folder)$/);
        assert.equal(by['lk/sub/loop'], 'skipped link-to-folder');
        assert.equal((await s.server.read('lk/link-in.txt'))?.toString(), 'real\n');
        assert.deepEqual((await s.server.names('lk')).sort(), ['link-in.txt', 'real.txt']);
        // A download over a working file that is a link to a place outside: refused, the place untouched.
        await s.server.write('lk2/x.txt', 'from the server\n', T0);
        fs.mkdirSync(path.join(s.local, 'lk2'));
        fs.symlinkSync(path.join(elsewhere, 'secret.txt'), path.join(s.local, 'lk2', 'x.txt'));
        const d = await s.tx.downloadFile('lk2/x.txt');
        assert.ok(d.action === 'skipped' || (d.action === 'failed' && d.error.kind === 'outside-root'), JSON.stringify(d.action));
        assert.equal(fs.readFileSync(path.join(elsewhere, 'secret.txt'), 'utf8'), 'not part of the site\n');
      } finally {
        fs.rmSync(elsewhere, { recursive: true, force: true });
        await s.close();
      }
    });
  });

  describe('a server clock hours off', function () {
    this.timeout(120_000);
    // The server's times are its own: shifted 3 hours either way from this computer's, a file that
    // did not change is not reported as changed (the guard compares raw times with raw times only).
    for (const kind of ['ftp', 'sftp', 'dav'] as LiveKind[]) {
      it(`${kind}: files stamped 3 hours ahead or behind this computer's clock raise no false alarm, and a real change is still caught`, async () => {
        const s = await openTestSite(servers, kind, { siteId: `clock-${kind}` });
        try {
          const now = Math.floor(Date.now() / 1000) * 1000;
          await s.server.write('clock/ahead.txt', 'ahead\n', now + 3 * 3600_000);
          await s.server.write('clock/behind.txt', 'behind\n', now - 3 * 3600_000);
          const d = await s.tx.downloadFolder('clock');
          assert.equal(d.counts.downloaded, 2);
          // Downloaded again: neither side changed, so no conflict either way, and nothing to do.
          ok(await s.tx.downloadFile('clock/ahead.txt'), 'identical');
          ok(await s.tx.downloadFile('clock/behind.txt'), 'identical');
          // Edited here (the working file is "older" than the live one by the clocks): uploads.
          s.writeLocal('clock/ahead.txt', 'edited\n');
          s.writeLocal('clock/behind.txt', 'edited\n');
          ok(await s.tx.uploadFile('clock/ahead.txt'), 'uploaded');
          ok(await s.tx.uploadFile('clock/behind.txt'), 'uploaded');
          // A real change on the server, stamped 3 hours behind this computer: caught.
          await s.server.write('clock/behind.txt', 'changed there\n', now - 3 * 3600_000 + 1000);
          s.writeLocal('clock/behind.txt', 'edited again\n');
          assert.equal(conflictOf(await s.tx.uploadFile('clock/behind.txt')).reason, 'live-changed');
        } finally {
          await s.close();
        }
      });
    }
    it('ftp: LIST times in a time zone 3 hours away change nothing (MLSD times are UTC)', async () => {
      const shifted = await startLiveServers({ only: ['ftp'], ftpListTimeZoneHours: 3 });
      try {
        const s = await openTestSite(shifted, 'ftp', { siteId: 'tz' });
        try {
          await s.server.write('tz/a.txt', 'a\n', T0);
          ok(await s.tx.downloadFile('tz/a.txt'), 'downloaded');
          s.writeLocal('tz/a.txt', 'b\n');
          ok(await s.tx.uploadFile('tz/a.txt'), 'uploaded');
          assert.equal((await s.server.read('tz/a.txt'))?.toString(), 'b\n');
        } finally {
          await s.close();
        }
      } finally {
        await shifted.stop();
      }
    });
  });

  describe('the same size and the same time', function () {
    this.timeout(120_000);
    it('sftp: an edit that keeps the size and the time is caught when the live bytes are not kept yet (they are read before replacing), and with verify "content" always', async () => {
      const s = await openTestSite(servers, 'sftp', { siteId: 'same' });
      const v = await openTestSite(servers, 'sftp', { siteId: 'same-verify', verify: 'content' });
      try {
        for (const t of [s, v]) {
          const dir = `same-${t.tx.site.siteId}`;
          await t.server.write(`${dir}/a.txt`, 'AAAA\n', T0);
          await t.server.write(`${dir}/b.txt`, 'BBBB\n', T0);
          // A folder download keeps no base copies: the next upload reads the live bytes to keep them.
          assert.equal((await t.tx.downloadFolder(dir)).counts.downloaded, 2);
          await t.server.write(`${dir}/a.txt`, 'XXXX\n', T0);
          t.writeLocal(`${dir}/a.txt`, 'mine\n');
          assert.equal(conflictOf(await t.tx.uploadFile(`${dir}/a.txt`)).reason, 'live-changed');
          assert.equal((await t.server.read(`${dir}/a.txt`))?.toString(), 'XXXX\n');
        }
        // A single-file download keeps the bytes as the base: by metadata the live file is then
        // unchanged (documented: a same-size edit in the same second, or one that resets the time,
        // needs verify 'content').
        await v.server.write('same-v/c.txt', 'CCCC\n', T0);
        ok(await v.tx.downloadFile('same-v/c.txt'), 'downloaded');
        await v.server.write('same-v/c.txt', 'ZZZZ\n', T0);
        v.writeLocal('same-v/c.txt', 'mine\n');
        assert.equal(conflictOf(await v.tx.uploadFile('same-v/c.txt')).reason, 'live-changed');
      } finally {
        await s.close();
        await v.close();
      }
    });
  });
});

// Upload on save (issue 34 §5): the per-site queue against the REAL SFTP server — saves in a burst
// are one upload, a save during an upload makes one more, going offline pauses it and it comes
// back by itself, it survives a restart (its file in the account's cache folder), a conflict
// waits for an answer, a failure waits for Retry — and the site field `upload_on_save`'s values.
// What the server holds is read from its own folder on disk.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { UploadQueue, type QueueSnapshot } from '../../src/core/transfer/queue';
import type { Transfers } from '../../src/core/transfer/transfer';
import { uploadOnSave, uploadOnSaveValue } from '../../src/core/transfer/uploadOnSave';
import { startFaultProxy } from '../live/faultProxy';
import { startLiveServers, type LiveServers } from '../live/servers';
import { requireLiveServers } from '../live/system';
import { openTestSite, removeTestSites, type TestSite } from './helpers/transferSite';
import { until } from './helpers/wait';

const T0 = Date.parse('2023-03-04T05:06:07Z');

describe('live transfer: the upload-on-save queue against the real SFTP server', function () {
  this.timeout(120_000);
  let servers: LiveServers;
  before(async function () {
    this.timeout(20 * 60_000);
    requireLiveServers(this, ['sftp']);
    this.timeout(120_000);
    servers = await startLiveServers({ only: ['sftp'] });
  });
  after(async () => {
    await servers?.stop();
    removeTestSites();
  });

  let s: TestSite;
  beforeEach(async () => {
    s = await openTestSite(servers, 'sftp', { siteId: `queue-${Math.random().toString(16).slice(2, 8)}` });
  });
  afterEach(async () => s?.close());

  /** The same site through a port where nothing listens any more (a proxy that went away): connections are refused. */
  async function unreachable(): Promise<TestSite> {
    const proxy = await startFaultProxy({ host: servers.sftp!.host, port: servers.sftp!.port });
    const port = proxy.port;
    await proxy.close();
    return openTestSite(servers, 'sftp', { siteId: s.tx.site.siteId, port });
  }

  /** A queue over a Transfers, counting the uploads it asks for. */
  async function queueOf(tx: () => Transfers, extra: Partial<Parameters<typeof UploadQueue.open>[0]> = {}) {
    const calls: string[] = [];
    const q = await UploadQueue.open({
      siteId: s.tx.site.siteId,
      file: UploadQueue.fileFor(s.cache, s.tx.site.siteId),
      debounceMs: 50,
      upload: (p, signal) => {
        calls.push(p);
        return tx().uploadFile(p, { signal });
      },
      ...extra,
    });
    return { q, calls };
  }

  it('saves of one file in a burst are one upload of the last bytes saved', async () => {
    await s.server.write('q1/a.txt', 'v0\n', T0);
    assert.equal((await s.tx.downloadFile('q1/a.txt')).action, 'downloaded');
    const { q, calls } = await queueOf(() => s.tx);
    try {
      for (let i = 1; i <= 5; i++) {
        s.writeLocal('q1/a.txt', `v${i}\n`);
        q.enqueue('q1/a.txt');
      }
      await q.idle();
      assert.deepEqual(calls, ['q1/a.txt']);
      assert.equal((await s.server.read('q1/a.txt'))?.toString(), 'v5\n');
      assert.equal(q.snapshot().items.length, 0);
      assert.equal(q.snapshot().uploaded, 1);
    } finally {
      await q.dispose();
    }
  });

  it('a save during an upload makes exactly one more upload after it, with the newest bytes; states are reported by events', async () => {
    await s.server.write('q2/a.txt', 'v0\n', T0);
    assert.equal((await s.tx.downloadFile('q2/a.txt')).action, 'downloaded');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let first = true;
    const states: string[] = [];
    const { q, calls } = await queueOf(() => s.tx, {
      upload: async (p, signal) => {
        calls.push(p);
        if (first) {
          first = false;
          await gate;
        }
        return s.tx.uploadFile(p, { signal });
      },
    });
    q.onDidChange((snap: QueueSnapshot) => states.push(snap.items.map((i) => i.state).join(',') || 'empty'));
    try {
      s.writeLocal('q2/a.txt', 'v1\n');
      q.enqueue('q2/a.txt');
      await until(() => q.snapshot().counts.uploading === 1, 'the first upload started');
      s.writeLocal('q2/a.txt', 'v2\n');
      q.enqueue('q2/a.txt');
      s.writeLocal('q2/a.txt', 'v3\n');
      q.enqueue('q2/a.txt');
      release();
      await q.idle();
      assert.deepEqual(calls, ['q2/a.txt', 'q2/a.txt']);
      assert.equal((await s.server.read('q2/a.txt'))?.toString(), 'v3\n');
      assert.ok(states.includes('queued') && states.includes('uploading') && states[states.length - 1] === 'empty', states.join(' | '));
    } finally {
      await q.dispose();
    }
  });

  it('offline: uploads wait and come back by themselves once the server can be reached; the queue survives a restart', async () => {
    await s.server.write('q3/a.txt', 'v0\n', T0);
    await s.server.write('q3/b.txt', 'b0\n', T0);
    assert.equal((await s.tx.downloadFolder('q3')).counts.downloaded, 2);
    const away = await unreachable();
    const offlineTx = await s.reopen({ live: away.live });
    const { q } = await queueOf(() => offlineTx, { retryMs: () => 60_000 });
    s.writeLocal('q3/a.txt', 'a saved offline\n');
    q.enqueue('q3/a.txt');
    await until(() => q.snapshot().offline, 'offline');
    s.writeLocal('q3/b.txt', 'b saved offline\n');
    q.enqueue('q3/b.txt');
    const snap = q.snapshot();
    assert.deepEqual(snap.items.map((i) => `${i.path} ${i.state}`).sort(), ['q3/a.txt offline', 'q3/b.txt offline']);
    assert.ok(snap.items[0]!.error?.next, 'a next step is given');
    await q.dispose();
    await away.close();
    assert.equal((await s.server.read('q3/a.txt'))?.toString(), 'v0\n', 'nothing was written while offline');
    // Written to the account's cache folder:
    const onDisk = JSON.parse(fs.readFileSync(UploadQueue.fileFor(s.cache, s.tx.site.siteId), 'utf8')) as { items: { path: string }[] };
    assert.deepEqual(onDisk.items.map((i) => i.path).sort(), ['q3/a.txt', 'q3/b.txt']);
    // A restart, and the server reachable again: the queue drains by itself.
    const tx2 = await s.reopen();
    const { q: q2, calls } = await queueOf(() => tx2);
    try {
      await q2.idle();
      assert.deepEqual(calls.sort(), ['q3/a.txt', 'q3/b.txt']);
      assert.equal((await s.server.read('q3/a.txt'))?.toString(), 'a saved offline\n');
      assert.equal((await s.server.read('q3/b.txt'))?.toString(), 'b saved offline\n');
      assert.equal(q2.snapshot().items.length, 0);
    } finally {
      await q2.dispose();
    }
  });

  it('offline then back: the retry timer tries again without being told', async () => {
    await s.server.write('q4/a.txt', 'v0\n', T0);
    assert.equal((await s.tx.downloadFile('q4/a.txt')).action, 'downloaded');
    const away = await unreachable();
    let current = await s.reopen({ live: away.live });
    const { q } = await queueOf(() => current, { retryMs: () => 30 });
    try {
      s.writeLocal('q4/a.txt', 'saved\n');
      q.enqueue('q4/a.txt');
      await until(() => q.snapshot().offline, 'offline');
      current = s.tx; // the network is back
      await until(() => q.snapshot().items.length === 0, 'the queue drained after a retry');
      assert.equal(q.snapshot().offline, false);
      assert.equal((await s.server.read('q4/a.txt'))?.toString(), 'saved\n');
    } finally {
      await q.dispose();
      await away.close();
    }
  });

  it('a conflict waits for an answer; Overwrite settles it and uploads', async () => {
    await s.server.write('q5/a.txt', 'v0\n', T0);
    assert.equal((await s.tx.downloadFile('q5/a.txt')).action, 'downloaded');
    await s.server.write('q5/a.txt', 'changed there\n', T0 + 60_000);
    const { q } = await queueOf(() => s.tx);
    try {
      s.writeLocal('q5/a.txt', 'mine\n');
      q.enqueue('q5/a.txt');
      await until(() => q.snapshot().counts.conflict === 1, 'a conflict');
      assert.equal((await s.server.read('q5/a.txt'))?.toString(), 'changed there\n');
      const c = q.snapshot().items[0]!.conflict!;
      assert.equal(c.reason, 'live-changed');
      assert.equal((await c.overwriteLive()).outcome, 'done');
      assert.equal((await s.server.read('q5/a.txt'))?.toString(), 'mine\n');
      assert.equal(q.snapshot().items.length, 0);
    } finally {
      await q.dispose();
    }
  });

  it('a failure leaves the save local and waits for Retry', async () => {
    await s.server.write('q6/locked/a.txt', 'v0\n', T0);
    assert.equal((await s.tx.downloadFile('q6/locked/a.txt')).action, 'downloaded');
    fs.chmodSync(`${servers.sftp!.dataDir}/q6/locked`, 0o555); // the server's user cannot write there
    const { q } = await queueOf(() => s.tx);
    try {
      s.writeLocal('q6/locked/a.txt', 'mine\n');
      q.enqueue('q6/locked/a.txt');
      await until(() => q.snapshot().counts.failed === 1, 'failed');
      const it = q.snapshot().items[0]!;
      assert.equal(it.error?.kind, 'permission');
      assert.ok(it.error?.next);
      assert.equal(s.readLocal('q6/locked/a.txt')?.toString(), 'mine\n', 'the save stays local');
      fs.chmodSync(`${servers.sftp!.dataDir}/q6/locked`, 0o755);
      q.retry('q6/locked/a.txt');
      await q.idle();
      assert.equal((await s.server.read('q6/locked/a.txt'))?.toString(), 'mine\n');
    } finally {
      await q.dispose();
    }
  });
});

describe('transfer: the site field upload_on_save', () => {
  // The decision (docs/decisions.md, "Upload on save"): the spellings the extension reads for flags.
  const rows: [string | undefined | null, boolean, boolean][] = [
    ['1', true, false],
    [' 1 ', true, false],
    ['true', true, false],
    ['TRUE', true, false],
    ['yes', true, false],
    ['on', true, false],
    ['', false, false],
    [undefined, false, false],
    [null, false, false],
    ['0', false, false],
    ['false', false, false],
    ['no', false, false],
    ['off', false, false],
    ['2', false, true],
    ['enabled', false, true],
  ];
  for (const [v, on, noted] of rows) {
    it(`${JSON.stringify(v)} is ${on ? 'on' : 'off'}${noted ? ', with a note' : ''}`, () => {
      const r = uploadOnSave({ upload_on_save: v as string | undefined });
      assert.equal(r.on, on);
      assert.equal(r.note !== undefined, noted);
    });
  }
  it('is written as "1" or "0"', () => {
    assert.equal(uploadOnSaveValue(true), '1');
    assert.equal(uploadOnSaveValue(false), '0');
    assert.equal(uploadOnSave({ upload_on_save: uploadOnSaveValue(true) }).on, true);
    assert.equal(uploadOnSave({ upload_on_save: uploadOnSaveValue(false) }).on, false);
  });
});

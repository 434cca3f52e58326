// One account's data never reaches another's (src/core/model/revisionStore.ts): two accounts on two
// instances of the local service whose sites share ids (both are seeded alike), a real request
// of account A in flight when account B signs in (without signing out first), as the extension
// does it: the store's `disk` follows the session to B's disk store and the store is cleared.
// Nothing A's request brings may land in B's memory or on B's disk, nor be shown to B.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SiteRevisionClient } from '../../src/core/api';
import { RevisionStore } from '../../src/core/model/revisionStore';
import { RequestScheduler } from '../../src/core/scheduler';
import { isOffline } from '../../src/features/sites/viewState';
import { DiskStore } from '../../src/core/store';
import { DEMO, startService, type RunningService } from '../server';

describe('revisions: one account’s data never reaches another’s (two accounts, local service)', function () {
  this.timeout(60_000);
  /** Account A: the demo user on one service; B: the team user on another; both see "Team Intranet" under the same id. */
  let serviceA: RunningService;
  let serviceB: RunningService;
  let clientA: SiteRevisionClient;
  let clientB: SiteRevisionClient;
  let siteId: string;
  let root: string;
  const disks: DiskStore[] = [];
  /** A file, its author and a revision only account A's service has. */
  const ONLY_A = { path: 'only-in-a/payroll.txt', author: 'a-only@example.com', content: 'salaries of account A\n' };

  before(async () => {
    [serviceA, serviceB] = await Promise.all([startService({ quiet: true }), startService({ quiet: true })]);
    clientA = new SiteRevisionClient({ baseUrl: serviceA.url, credentials: () => DEMO.user, timeoutMs: 10_000, retries: 0, scheduler: new RequestScheduler() });
    clientB = new SiteRevisionClient({ baseUrl: serviceB.url, credentials: () => DEMO.team, timeoutMs: 10_000, retries: 0, scheduler: new RequestScheduler() });
    const teamA = (await clientA.getSites()).find((s) => s.name === 'Team Intranet')!;
    const teamB = (await clientB.getSites()).find((s) => s.name === 'Team Intranet')!;
    assert.equal(teamA.id, teamB.id, 'the two accounts’ sites share an id');
    siteId = teamA.id;
    const res = await fetch(`${serviceA.url}/__control/add-revision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ siteId, ...ONLY_A }) });
    assert.equal(res.status, 200);
    assert.ok(!(await clientB.getRevisionFiles(siteId)).includes(ONLY_A.path), 'account B’s site has no such file');
  });
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-accounts-'));
  });
  afterEach(async () => {
    for (const d of disks.splice(0)) await d.dispose();
    fs.rmSync(root, { recursive: true, force: true });
    serviceA.configure({ latencyMs: 0 });
    serviceB.configure({ latencyMs: 0, down: false });
  });
  after(async () => {
    await Promise.all([clientA.dispose(), clientB.dispose()]);
    await Promise.all([serviceA.close(), serviceB.close()]);
  });

  /** The store as the extension wires it: the current account's client and disk store; `switchTo` is a sign-in as B. */
  const session = () => {
    const diskA = new DiskStore(path.join(root, 'a'), { maxBytes: 64 * 1024 * 1024 });
    const diskB = new DiskStore(path.join(root, 'b'), { maxBytes: 64 * 1024 * 1024 });
    disks.push(diskA, diskB);
    let current = { client: clientA, disk: diskA };
    const store = new RevisionStore((fn) => fn(current.client), 1024 * 1024, undefined, { disk: () => Promise.resolve(current.disk), isOffline });
    const switchTo = () => {
      current = { client: clientB, disk: diskB };
      store.clear(); // registerRevisions: another account, nothing of the previous one may show
    };
    return { store, diskA, diskB, switchTo };
  };
  /** Waits for a service to have answered (or seen aborted) `n` requests. */
  const answered = async (s: RunningService, n: number) => {
    while (s.requests().length < n) await new Promise((r) => setTimeout(r, 5));
  };

  it('lists read for A and in flight when B signs in are dropped: not on B’s disk, not in memory, not shown to B (from disk, offline either)', async () => {
    const { store, diskB, switchTo } = session();
    serviceA.resetStats();
    serviceA.configure({ latencyMs: 400 });
    const files = store.siteFiles(siteId);
    const revisions = store.revisions(siteId, ONLY_A.path);
    while (serviceA.inFlight() < 2) await new Promise((r) => setTimeout(r, 5));
    switchTo();
    await Promise.allSettled([files, revisions]);
    await answered(serviceA, 2);
    assert.deepEqual(serviceA.requests().map((r) => r.operation).sort(), ['getRevisionFiles', 'getRevisions'], 'A’s requests were real and answered');
    assert.equal(await diskB.peek({ kind: 'files', siteId }), undefined, 'A’s file list is not in B’s disk cache');
    assert.equal(await diskB.peek({ kind: 'revisions', siteId, path: ONLY_A.path }), undefined, 'nor A’s revisions');
    assert.equal(store.peekSiteFiles(siteId), undefined);
    assert.equal(store.peekRevisions(siteId, ONLY_A.path), undefined);
    await assert.rejects(files, { name: 'CancelledError' }, 'the reply for A is handed to no one');
    await assert.rejects(revisions, { name: 'CancelledError' });

    // B's Sites view: B's own files, fetched for B (and then on B's disk).
    const shown = await store.siteFiles(siteId);
    assert.ok(!shown.files.some((f) => f.path === ONLY_A.path), 'B is not shown A’s file');
    assert.deepEqual((await diskB.peek({ kind: 'files', siteId }))?.value, await clientB.getRevisionFiles(siteId));
    // Offline, from B's disk: still B's.
    serviceB.configure({ down: true });
    store.invalidate();
    const offline = await store.siteFiles(siteId);
    assert.equal(offline.offline, true);
    assert.ok(!offline.files.some((f) => f.path === ONLY_A.path));
    await assert.rejects(store.revisions(siteId, ONLY_A.path), (e: unknown) => isOffline(e), 'A’s revisions are nowhere to be shown from');
  });

  it('a refresh behind of A’s list, in flight when B signs in, lands nowhere', async () => {
    const { store, diskA, diskB, switchTo } = session();
    // A's list on A's disk (an earlier session): shown at once, refreshed behind.
    await diskA.put({ kind: 'revisions', siteId, path: ONLY_A.path }, [{ id: '1', date: '2020-01-01 00:00:00', author: ONLY_A.author }], 1000);
    serviceA.resetStats();
    serviceA.configure({ latencyMs: 400 });
    const shown = await store.revisions(siteId, ONLY_A.path);
    assert.equal(shown.fetchedAt, 1000, 'from A’s disk');
    while (serviceA.inFlight() < 1) await new Promise((r) => setTimeout(r, 5));
    switchTo();
    await answered(serviceA, 1);
    // Until the refresh has settled (or, without the fix, until its reply reached B's disk).
    while (store.refreshingBehind !== 0 && !(await diskB.peek({ kind: 'revisions', siteId, path: ONLY_A.path }))) await new Promise((r) => setTimeout(r, 5));
    assert.equal(await diskB.peek({ kind: 'revisions', siteId, path: ONLY_A.path }), undefined, 'not in B’s disk cache');
    assert.equal(store.peekRevisions(siteId, ONLY_A.path), undefined, 'not in memory');
    assert.ok(!(await diskA.peek({ kind: 'revisions', siteId, path: ONLY_A.path }))?.value.some((r) => r.author !== ONLY_A.author), 'A’s disk keeps only A’s');
  });
});

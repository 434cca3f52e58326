// The request scheduler (src/core/scheduler) in front of the service client, against the local
// service over real HTTP: concurrency counted at the service, priorities, coalescing of identical
// reads, cancellation, Retry-After holding the whole origin, and writes that are never shared or
// retried.
import * as assert from 'node:assert/strict';
import { CancelledError, HttpStatusError, SiteRevisionClient, type ClientOptions, type RequestEvent } from '../../src/core/api';
import { RequestScheduler, type SchedulerEvent } from '../../src/core/scheduler';
import { DEMO, startService, type RunningService } from '../server';
import { rejectsWith } from './helpers/rawServer';
import { until } from './helpers/wait';

describe('request scheduler (local service)', function () {
  let service: RunningService;
  let origin: string;
  /** Revision ids of the demo site 1 (Acme), 40 of them. */
  let revisionIds: string[] = [];
  const SITE = '1';
  const clients: SiteRevisionClient[] = [];

  function client(scheduler: RequestScheduler | undefined, opts: Partial<ClientOptions> = {}): SiteRevisionClient {
    const c = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user, timeoutMs: 10_000, retryBaseDelayMs: 5, scheduler, ...opts });
    clients.push(c);
    return c;
  }
  /** Which revision each Get Revision at the service asked for, in arrival order. */
  const asked = (): string[] => service.requests().map((r) => new URL(r.url, 'http://x').searchParams.get('revision') ?? r.operation ?? '?');

  before(async () => {
    service = await startService({ quiet: true });
    origin = new URL(service.url).origin;
    const c = client(undefined);
    for (const file of await c.getRevisionFiles(SITE)) revisionIds.push(...(await c.getRevisions(SITE, file)).map((r) => r.id));
    revisionIds = [...new Set(revisionIds)];
    assert.ok(revisionIds.length >= 12);
  });
  after(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await service.close();
  });
  beforeEach(() => {
    service.configure({ latencyMs: 0, faultRate: 0, failNext: [] });
    service.resetStats();
  });

  it('holds at most `concurrency` requests in flight per origin (counted at the service); without it all go at once', async () => {
    service.configure({ latencyMs: 300 });
    const ids = revisionIds.slice(0, 10);
    const scheduled = client(new RequestScheduler({ concurrency: 3 }));
    const got = await Promise.all(ids.map((id) => scheduled.getRevision(SITE, id, { priority: 'background' })));
    assert.deepEqual(got.map((r) => r.id), ids);
    assert.equal(service.count('getRevision'), 10);
    assert.equal(service.maxInFlight(), 3);

    // The same calls without a scheduler: the counter sees them all at once.
    service.resetStats();
    await Promise.all(ids.map((id) => client(undefined).getRevision(SITE, id)));
    assert.ok(service.maxInFlight() > 3, `without a scheduler ${service.maxInFlight()} were in flight`);
  });

  it('starts a user call before the background calls queued ahead of it; FIFO within a priority', async () => {
    const scheduler = new RequestScheduler({ concurrency: 1 });
    const c = client(scheduler);
    // The only slot, held while the calls line up (as by a request in flight).
    const hold = await scheduler.acquire(origin);
    const bg = revisionIds.slice(0, 5);
    const background = bg.map((id) => c.getRevision(SITE, id, { priority: 'background' }));
    await until(() => scheduler.stats(origin).queued === 5, 'five background calls queued');
    const user = c.getRevision(SITE, revisionIds[5]!, { priority: 'user' });
    await until(() => scheduler.stats(origin).queued === 6, 'the user call queued behind them');
    assert.equal(service.count(), 0);
    hold();
    await Promise.all([...background, user]);
    assert.deepEqual(asked(), [revisionIds[5], ...bg]);
  });

  it('coalesces identical reads: 10 callers, 1 request; one caller aborting leaves the others their result', async () => {
    service.configure({ latencyMs: 200 });
    const c = client(new RequestScheduler());
    const controllers = Array.from({ length: 10 }, () => new AbortController());
    const calls = controllers.map((ac) => c.getRevision(SITE, revisionIds[0]!, { signal: ac.signal }));
    await until(() => service.inFlight() === 1, 'the shared request at the service');
    controllers[3]!.abort();
    await rejectsWith(calls[3]!, CancelledError);
    const results = await Promise.all(calls.filter((_, i) => i !== 3));
    assert.equal(results.length, 9);
    assert.ok(results.every((r) => r.id === revisionIds[0] && r.content === results[0]!.content));
    assert.equal(service.count(), 1);
    assert.equal(service.requests()[0]!.status, 200);
  });

  it('aborts the shared request only when every caller has aborted; a later caller starts anew', async () => {
    service.configure({ latencyMs: 400 });
    const events: RequestEvent[] = [];
    const c = client(new RequestScheduler(), { onEvent: (e) => events.push(e) });
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    const calls = controllers.map((ac) => c.getRevision(SITE, revisionIds[1]!, { signal: ac.signal }));
    await until(() => service.inFlight() === 1, 'the shared request at the service');
    controllers[0]!.abort();
    controllers[1]!.abort();
    assert.equal(events.length, 0, 'two of three aborted: the request goes on');
    controllers[2]!.abort();
    for (const p of calls) await rejectsWith(p, CancelledError);
    // The one request itself was cancelled (one attempt, ended as cancelled), not only its callers.
    await until(() => events.length === 1, 'the attempt event');
    assert.equal(events[0]!.errorKind, 'cancelled');
    assert.equal(events[0]!.attempt, 1);
    const again = await c.getRevision(SITE, revisionIds[1]!);
    assert.equal(again.id, revisionIds[1]);
    assert.equal(service.count('getRevision'), 2);
  });

  it('a queued call that is cancelled leaves the queue at once and never reaches the service; a shared one too', async () => {
    const scheduler = new RequestScheduler({ concurrency: 1 });
    const c = client(scheduler);
    const hold = await scheduler.acquire(origin);
    const lone = new AbortController();
    const queued = c.getRevision(SITE, revisionIds[2]!, { priority: 'background', signal: lone.signal });
    const shared = [new AbortController(), new AbortController()];
    const sharedCalls = shared.map((ac) => c.getRevision(SITE, revisionIds[3]!, { signal: ac.signal }));
    await until(() => scheduler.stats(origin).queued === 2, 'two requests waiting (one of them shared by two callers)');
    lone.abort();
    assert.equal(scheduler.stats(origin).queued, 1, 'left the queue at once');
    await rejectsWith(queued, CancelledError);
    shared.forEach((ac) => ac.abort());
    assert.equal(scheduler.stats(origin).queued, 0);
    for (const p of sharedCalls) await rejectsWith(p, CancelledError);
    hold();
    // Another call once the slot is free: the cancelled ones never went out, before it or after.
    await c.getSites();
    assert.deepEqual(asked(), ['getSites']);
  });

  it('moves a shared background call up when a user caller joins it', async () => {
    const scheduler = new RequestScheduler({ concurrency: 1 });
    const c = client(scheduler);
    const hold = await scheduler.acquire(origin);
    const first = c.getRevision(SITE, revisionIds[0]!, { priority: 'background' });
    const second = c.getRevision(SITE, revisionIds[1]!, { priority: 'background' });
    const prefetch = c.getRevision(SITE, revisionIds[2]!, { priority: 'background' });
    await until(() => scheduler.stats(origin).queued === 3, 'three background calls queued');
    const open = c.getRevision(SITE, revisionIds[2]!, { priority: 'user' });
    await new Promise((r) => setImmediate(r));
    assert.equal(scheduler.stats(origin).queued, 3, 'the user call joined the prefetch: no new request');
    hold();
    const [, , a, b] = await Promise.all([first, second, prefetch, open]);
    assert.equal(a.content, b.content);
    assert.deepEqual(asked(), [revisionIds[2], revisionIds[0], revisionIds[1]]);
  });

  it('Retry-After on a 503 holds every request to the origin; a user call waiting meanwhile goes first, then the retry', async () => {
    const seen: SchedulerEvent[] = [];
    let atResume: { requests: number; queued: number } | undefined;
    const scheduler = new RequestScheduler({
      concurrency: 1,
      onEvent: (e) => {
        seen.push(e);
        if (e.type === 'resume') atResume = { requests: service.count(), queued: e.queued };
      },
    });
    const c = client(scheduler);
    service.configure({ latencyMs: 300, failNext: [{ kind: 'http503', retryAfterSeconds: 1 }] });
    const [a, b, cc, u] = revisionIds;
    const first = c.getRevision(SITE, a!, { priority: 'background' });
    await until(() => scheduler.stats(origin).active === 1, 'the first request in flight');
    // Queued behind it; when its 503 frees the slot, none of them may slip out before the hold ends.
    const later = [c.getRevision(SITE, b!, { priority: 'background' }), c.getRevision(SITE, cc!, { priority: 'background' })];
    const user = c.getRevision(SITE, u!, { priority: 'user' });
    await until(() => scheduler.stats(origin).queued === 3, 'three requests waiting');
    await Promise.all([first, ...later, user]);
    assert.deepEqual(atResume, { requests: 1, queued: 4 }, 'when the hold ended, only the 503 had reached the service and four requests waited');
    assert.deepEqual(seen.map((e) => [e.type, e.ms]), [['backoff', 1000], ['resume', undefined]]);
    assert.deepEqual(asked(), [a, u, a, b, cc]);
    assert.deepEqual(service.requests().map((r) => r.status), [503, 200, 200, 200, 200]);
  });

  it('writes are never coalesced nor retried; a write told Retry-After still holds the origin', async () => {
    service.configure({ latencyMs: 100 });
    const scheduler = new RequestScheduler();
    const c = client(scheduler);
    const { siteId } = await c.createSite({ name: 'Scheduler scratch', server_type: 'FTP', domain: 'ftp.scratch.example' });
    service.resetStats();
    await Promise.all([c.updateSite(siteId, { name: 'Scheduler scratch' }), c.updateSite(siteId, { name: 'Scheduler scratch' })]);
    assert.equal(service.count('saveSite'), 2, 'two identical writes, two requests');

    service.resetStats();
    service.configure({ latencyMs: 0, failNext: [{ kind: 'http503', retryAfterSeconds: 1 }] });
    const err = await rejectsWith(c.deleteSite(siteId), HttpStatusError);
    assert.equal(err.status, 503);
    assert.equal(service.count(), 1, 'not retried');
    assert.equal(scheduler.stats(origin).paused, true);
    await c.deleteSite(siteId);
    assert.deepEqual(service.requests().map((r) => r.status), [503, 200]);
  });

  describe('in-process', () => {
    it('hands out slots in order, grows with setConcurrency, and a retry waits at the head of its priority', async () => {
      const s = new RequestScheduler({ concurrency: 1 });
      const order: string[] = [];
      const take = (name: string, o: Parameters<RequestScheduler['acquire']>[1]) => s.acquire('o', o).then((release) => (order.push(name), release));
      const r0 = await take('first', {});
      const waiting = [take('bg1', { priority: 'background' }), take('bg2', { priority: 'background' }), take('retry', { priority: 'background', front: true }), take('user', {})];
      assert.deepEqual(s.stats('o'), { active: 1, queued: 4, started: 1, paused: false });
      s.setConcurrency(3);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(order, ['first', 'user', 'retry']);
      r0();
      r0(); // a second release does nothing
      const bg1 = await waiting[0]!;
      assert.deepEqual(order, ['first', 'user', 'retry', 'bg1']);
      assert.deepEqual(s.stats('o'), { active: 3, queued: 1, started: 4, paused: false });
      (await waiting[3]!)();
      const bg2 = await waiting[1]!;
      assert.deepEqual(order, ['first', 'user', 'retry', 'bg1', 'bg2']);
      [bg1, bg2, await waiting[2]!].forEach((r) => r());
      assert.deepEqual(s.stats('o'), { active: 0, queued: 0, started: 5, paused: false });
    });

    it('dispose rejects what waits and later calls', async () => {
      const s = new RequestScheduler({ concurrency: 1 });
      await s.acquire('o');
      const waiting = s.acquire('o');
      s.backOff('o', 60_000);
      s.dispose();
      await assert.rejects(waiting, /disposed/);
      await assert.rejects(s.acquire('o'), /disposed/);
      assert.throws(() => new RequestScheduler({ concurrency: 0 }), /concurrency/);
    });
  });
});

// The request scheduler's figures, against the local service in its own process:
//  - overhead: Get Revision through the client with a scheduler (S) against the same client
//    without one (C) and a raw undici.request of the same call (R), interleaved in rotating
//    order on one keep-alive connection, with the service's latency set by the caller (1 ms: a
//    LAN). The figure is the median of the paired differences S − C over the median of R;
//  - the scheduler's own cost per request in this process, without I/O (a shared call and a slot);
//  - 500 concurrent background reads (distinct Get Revision calls of the large site) with
//    concurrency 6: the most in flight at once, counted by the service; and a user action
//    (Get Sites) queued behind them: how many requests started between queueing it and its start.
import { performance } from 'node:perf_hooks';
import { SiteRevisionClient } from '../src/core/api/client';
import { RequestScheduler, type AcquireOptions, type Priority, type Release } from '../src/core/scheduler';
import { DEMO } from '../test/server/demo';
import { LARGE_SITE_ID } from '../test/server/large';
import { log, median } from './lib';

export interface SchedulerFigures {
  overhead: { latencyMs: number; iterations: number; rawMedianUs: number; clientMedianUs: number; scheduledMedianUs: number; pairedDiffMedianUs: number; percentOfRaw: number };
  inProcessUs: number;
  concurrency: { requests: number; limit: number; maxInFlight: number; inFlightWhenQueued: number; startedBeforeUser: number; userPosition: number; failed: number };
}

/** A scheduler that writes down the priority of each request in the order they get their slot. */
class Recording extends RequestScheduler {
  readonly starts: Priority[] = [];
  userQueuedAt = -1;
  activeWhenUserQueued = -1;
  /** The client tries this first, with the priority it is about to wait with (unknown here: a slot handed out at once jumps no queue). */
  override tryAcquire(origin: string): Release | undefined {
    const release = super.tryAcquire(origin);
    if (release) this.starts.push('background');
    return release;
  }
  override acquire(origin: string, o: AcquireOptions = {}): Promise<Release> {
    const priority = o.shared?.priority ?? o.priority ?? 'user';
    if (priority === 'user') {
      this.userQueuedAt = this.starts.length;
      this.activeWhenUserQueued = this.stats(origin).active;
    }
    return super.acquire(origin, o).then((release) => {
      this.starts.push(priority);
      return release;
    });
  }
}

export async function schedulerBench(baseUrl: string, opts: { iterations: number; warmup: number; latencyMs: number; configure: (c: Record<string, unknown>) => Promise<void>; stats: () => Promise<{ maxInFlight: number }>; resetStats: () => Promise<void> }): Promise<SchedulerFigures> {
  // The whole of undici, for its request(): the raw side of the comparison.
  const undici = ((m) => m.default ?? m)((await import('undici')) as typeof import('undici') & { default?: typeof import('undici') });
  const agent = new undici.Agent({ connections: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 120_000 });
  const creds = { email: DEMO.user.email, password: DEMO.user.password };
  const plain = new SiteRevisionClient({ baseUrl, credentials: () => creds, dispatcher: agent });
  const scheduled = new SiteRevisionClient({ baseUrl, credentials: () => creds, dispatcher: agent, scheduler: new RequestScheduler() });
  try {
    // ---- overhead at the given service latency
    await opts.configure({ latencyMs: opts.latencyMs });
    const site = '1';
    const file = (await plain.getRevisionFiles(site))[0]!;
    const revision = (await plain.getRevisions(site, file))[0]!.id;
    const url = `${baseUrl}/api/revisions?site=${encodeURIComponent(site)}&revision=${encodeURIComponent(revision)}`;
    const body = new URLSearchParams([['login', '1'], ['email', creds.email], ['password', creds.password]]).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const raw = async (): Promise<unknown> => {
      const res = await undici.request(url, { method: 'POST', headers, body, dispatcher: agent });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`raw call: HTTP ${res.statusCode}`);
      return JSON.parse(text);
    };
    const calls = [raw, () => plain.getRevision(site, revision), () => scheduled.getRevision(site, revision)];
    const orders = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [2, 1, 0], [1, 0, 2]];
    const times: number[][] = [[], [], []];
    const diffs: number[] = [];
    for (let i = 0; i < opts.warmup + opts.iterations; i++) {
      const t: number[] = [0, 0, 0];
      for (const k of orders[i % orders.length]!) {
        const t0 = performance.now();
        await calls[k]!();
        t[k] = (performance.now() - t0) * 1000;
      }
      if (i < opts.warmup) continue;
      t.forEach((x, k) => times[k]!.push(x));
      diffs.push(t[2]! - t[1]!);
    }
    const [rawMedianUs, clientMedianUs, scheduledMedianUs] = times.map(median) as [number, number, number];
    const pairedDiffMedianUs = median(diffs);
    const overhead = { latencyMs: opts.latencyMs, iterations: opts.iterations, rawMedianUs, clientMedianUs, scheduledMedianUs, pairedDiffMedianUs, percentOfRaw: (pairedDiffMedianUs / rawMedianUs) * 100 };
    log(`scheduler overhead: raw ${rawMedianUs.toFixed(0)} µs, client ${clientMedianUs.toFixed(0)} µs, with scheduler ${scheduledMedianUs.toFixed(0)} µs; paired difference ${pairedDiffMedianUs.toFixed(1)} µs (${overhead.percentOfRaw.toFixed(2)} % of raw)`);

    // ---- the scheduler alone: a shared call holding a slot, as the client does for a read
    const inProcessUs = await (async () => {
      const s = new RequestScheduler();
      const one = (i: number) => s.share(`k${i}`, { priority: 'background' }, async (call) => (await s.acquire('o', { shared: call, signal: call.signal }))());
      for (let i = 0; i < 20_000; i++) await one(i);
      const n = 200_000;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await one(i);
      return ((performance.now() - t0) * 1000) / n;
    })();
    log(`scheduler in process: ${inProcessUs.toFixed(2)} µs per shared call with a slot`);

    // ---- 500 background reads, concurrency 6, and a user action behind them
    await opts.configure({ latencyMs: 2 });
    const recording = new Recording({ concurrency: 6 });
    // Its own Agent: six connections may be open at once.
    const wide = new undici.Agent({ connections: 16, keepAliveTimeout: 60_000 });
    const c = new SiteRevisionClient({ baseUrl, credentials: () => creds, dispatcher: wide, scheduler: recording, timeoutMs: 120_000 });
    try {
      await c.getRevisionFiles(String(LARGE_SITE_ID)); // the connection warm; not counted
      await opts.resetStats();
      recording.starts.length = 0;
      const requests = 500;
      const ids = Array.from({ length: requests }, (_, i) => String(50_000_001 + i));
      const background = ids.map((id) => c.getRevision(String(LARGE_SITE_ID), id, { priority: 'background' }));
      // Every one of them queued or running, then the user action.
      const origin = new URL(baseUrl).origin;
      const deadline = Date.now() + 60_000;
      while (recording.starts.length + recording.stats(origin).queued < requests) {
        if (Date.now() > deadline) throw new Error('the background reads did not all reach the scheduler');
        await new Promise((r) => setImmediate(r));
      }
      const user = c.getSites({ priority: 'user' });
      const settled = await Promise.allSettled([...background, user]);
      const failed = settled.filter((x) => x.status === 'rejected').length;
      const userPosition = recording.starts.indexOf('user');
      if (userPosition < 0 || recording.userQueuedAt < 0) throw new Error('the user action did not wait behind the background reads');
      const startedBeforeUser = userPosition - recording.userQueuedAt;
      const { maxInFlight } = await opts.stats();
      const concurrency = { requests, limit: 6, maxInFlight, inFlightWhenQueued: recording.activeWhenUserQueued, startedBeforeUser, userPosition, failed };
      log(`scheduler: ${requests} background reads, at most ${maxInFlight} in flight at the service; the user action was queued with ${recording.activeWhenUserQueued} in flight and ${startedBeforeUser} requests started before it`);
      return { overhead, inProcessUs, concurrency };
    } finally {
      await c.dispose();
      await wide.close();
    }
  } finally {
    await opts.configure({ latencyMs: 0 });
    await plain.dispose();
    await scheduled.dispose();
    await agent.close();
  }
}

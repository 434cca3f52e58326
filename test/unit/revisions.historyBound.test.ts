// One file's history is bounded in bytes also without the disk store (issue 32 §7): a service that
// leaves the contents out of Get Revisions (the spec does not say it sends them) makes the store
// fetch each revision's content; the bound stops those reads once it is passed, before the whole
// history is in memory. The disk-store path and the one reply cut off at the bound are in
// revisions.disk.test.
import * as assert from 'node:assert/strict';
import { SiteRevisionClient } from '../../src/core/api';
import { HistoryTooLargeError, RevisionStore } from '../../src/core/model/revisionStore';
import { RequestScheduler } from '../../src/core/scheduler';
import { isOffline } from '../../src/features/sites/viewState';
import { startRawServer, type RawServer } from './helpers/rawServer';

describe('revisions: one file’s history bounded in bytes without the disk store (per-revision reads)', () => {
  let server: RawServer;
  const REVISIONS = 8;
  const CONTENT = 400; // bytes (ASCII) per revision
  before(async () => {
    server = await startRawServer((req) => {
      const q = new URL(req.url, 'http://x').searchParams;
      if (q.has('revision')) return { body: { success: true, id: q.get('revision'), content: `${q.get('revision')}`.padEnd(CONTENT, '.') } };
      // Get Revisions: the list without any content.
      return { body: { success: true, revisions: Array.from({ length: REVISIONS }, (_, i) => ({ id: String(100 + i), date: `2025-06-0${1 + (i % 9)} 10:00:00`, author: 'a@example.com' })) } };
    });
  });
  after(() => server.close());

  const open = (historyBytes: number) => {
    const scheduler = new RequestScheduler({ concurrency: 1 });
    const client = new SiteRevisionClient({ baseUrl: server.url, credentials: () => ({ email: 'e@example.com', password: 'p' }), timeoutMs: 10_000, retries: 0, scheduler });
    const store = new RevisionStore((fn) => fn(client), 16 * 1024 * 1024, undefined, { disk: () => Promise.resolve(undefined), isOffline, historyBytes });
    return { store, dispose: async () => (await client.dispose(), scheduler.dispose()) };
  };
  const contentReads = () => server.requests.filter((r) => new URL(r.url, 'http://x').searchParams.has('revision')).length;

  it('over the bound: refused with the file and its size once the contents read pass it; the rest is not read', async () => {
    const { store, dispose } = open(1000);
    try {
      server.requests.length = 0;
      await assert.rejects(store.allContents('7', 'big.txt'), (e: unknown) => e instanceof HistoryTooLargeError && e.path === 'big.txt' && e.limit === 1000 && e.bytes > 1000 && e.bytes <= 1000 + CONTENT);
      assert.equal(contentReads(), Math.ceil(1001 / CONTENT), 'reads stop at the bound');
    } finally {
      await dispose();
    }
  });

  it('within the bound: every revision with its content', async () => {
    const { store, dispose } = open(REVISIONS * CONTENT);
    try {
      const all = await store.allContents('7', 'small.txt');
      assert.equal(all.length, REVISIONS);
      assert.ok(all.every((r) => r.content?.length === CONTENT));
    } finally {
      await dispose();
    }
  });
});

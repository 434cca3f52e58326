// The views' HistorySource (revisionStoreSource, src/core/search/source.ts) over the extension's RevisionStore, against
// the local service's demo data: what it finds, that every content read goes at background
// priority with the scan's signal, and that it keeps nothing of its own (a repeated search is
// served by the store's cache: no content request).
import * as assert from 'node:assert/strict';
import { SiteRevisionClient } from '../../src/core/api';
import type { CallOptions } from '../../src/core/api/types';
import { RevisionStore, type RevisionSource } from '../../src/core/model/revisionStore';
import { directSchedule, revisionStoreSource, searchHistory } from '../../src/core/search';
import { DEMO, startService, type RunningService } from '../server';
import { SEARCH_DEMO } from '../server/seed-search';

describe('searchView: the HistorySource over the revision store', function () {
  this.timeout(30000);
  let service: RunningService;
  let client: SiteRevisionClient;
  let siteId: string;
  /** The options of every content read the store made. */
  let contentReads: (CallOptions | undefined)[];
  let store: RevisionStore;
  let found: string[] = [];

  before(async () => {
    service = await startService({ quiet: true });
    client = new SiteRevisionClient({ baseUrl: service.url, credentials: () => DEMO.user });
    siteId = (await client.getSites()).find((s) => s.name === SEARCH_DEMO.siteName)!.id;
  });

  after(() => service.close());

  beforeEach(() => {
    contentReads = [];
    // The real client; only the options of the reads with content are noted on the way.
    const source: RevisionSource = {
      getRevisionFiles: (id, o) => client.getRevisionFiles(id, o),
      getRevisions: (id, file, o) => {
        if (o?.withContent) contentReads.push(o);
        return client.getRevisions(id, file, o);
      },
      getRevision: (id, rev, o) => client.getRevision(id, rev, o),
    };
    store = new RevisionStore((fn) => fn(source), 16 * 1024 * 1024);
  });

  const search = () =>
    searchHistory({
      scope: { siteId, folder: SEARCH_DEMO.folder },
      source: revisionStoreSource(store),
      schedule: directSchedule,
      query: { pattern: SEARCH_DEMO.folderNeedle, matchCase: true },
      mode: 'changes',
      onResult: (r) => void found.push(`${r.path}:${r.hits.map((h) => `+${h.added}-${h.removed}`).join(',')}`),
    });

  it('finds the folder-only needle in the two files of the folder, reading contents at background priority with a signal', async () => {
    found = [];
    const summary = await search();
    assert.equal(summary.cancelled, false);
    // Both files have it from their first revision on: one "added 1" each.
    assert.deepEqual(found.sort(), ['campaigns/autumn/notes.txt:+1-0', 'campaigns/autumn/teaser.html:+1-0']);
    assert.equal(contentReads.length, 2, 'one Get Revisions with content per file of the folder');
    for (const o of contentReads) {
      assert.equal(o?.priority, 'background');
      assert.ok(o?.signal instanceof AbortSignal, 'the scan can abort it');
    }
  });

  it('a second search of the same scope is served by the store: no content request', async () => {
    found = [];
    await search();
    const before = service.count('getRevisions');
    contentReads = [];
    found = [];
    await search();
    assert.deepEqual(contentReads, []);
    assert.equal(service.count('getRevisions'), before);
    assert.equal(found.length, 2, 'the same results');
  });
});

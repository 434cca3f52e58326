// The HistorySource of the views: the extension's RevisionStore (src/revisions/store.ts), so a
// search reads through the same lists and content cache as the Sites view — nothing of its own
// is kept. Whatever stands behind the store (a disk store, a request scheduler) serves the scan
// too: the adapter only forwards the scan's signal and its background priority.
import type { HistorySource } from '../search';
import type { RevisionStore } from '../revisions/store';

export function revisionStoreSource(store: RevisionStore): HistorySource {
  return {
    listFiles: async (siteId) => (await store.siteFiles(siteId)).files.map((f) => f.path),
    listRevisions: async (siteId, path) => (await store.revisions(siteId, path)).items.map((d) => d.item),
    revisionContents: (siteId, path, o) => store.allContents(siteId, path, { signal: o.signal, priority: 'background' }),
  };
}

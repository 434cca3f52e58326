// Pure (no `vscode`): the HistorySource the extension uses — the service client with the disk
// store (src/core/store/) behind it.
//
// - listFiles / listRevisions: fetched (at the scan's background priority) and kept in the
//   store, so the views show them from disk next time;
// - revisionContents: the store's `fetchAllContents` (nothing requested when every content of
//   the file is on disk, else one Get Revisions with content, falling back per revision for a
//   reply over its cap), then the contents read back from disk one file at a time. With the
//   store turned off (size 0) the client is asked directly, as `clientSource` does.
// A content the store could not keep comes back as `undefined` (that revision is skipped).
import { fetchAllContents, type DiskStore } from '../store';
import type { RevisionText } from './history';
import { clientSource, type HistorySource, type RevisionReads } from './source';

export function storeSource(client: RevisionReads, store: DiskStore): HistorySource {
  const direct = clientSource(client);
  return {
    async listFiles(siteId, o) {
      const files = await direct.listFiles(siteId, o);
      await store.put({ kind: 'files', siteId }, files);
      return files;
    },
    async listRevisions(siteId, path, o) {
      const list = await direct.listRevisions(siteId, path, o);
      await store.put({ kind: 'revisions', siteId, path }, list);
      return list;
    },
    async revisionContents(siteId, path, o) {
      await store.ready;
      if (!store.enabled) return direct.revisionContents(siteId, path, o);
      await fetchAllContents(client, store, siteId, path, { signal: o.signal, priority: o.priority });
      const list = (await store.peek({ kind: 'revisions', siteId, path }))?.value ?? [];
      return Promise.all(list.map(async (r): Promise<RevisionText> => ({ id: r.id, date: r.date, author: r.author, content: await store.getContent(siteId, r.id) })));
    },
  };
}

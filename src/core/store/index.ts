// Public surface of the disk store (plain Node: no `vscode` import anywhere under src/core/store).
//
// How the extension uses it (one store per signed-in account):
//   const folder = path.join(context.globalStorageUri.fsPath, 'store', accountFolderName(serviceUrl, email));
//   const store = new DiskStore(folder, { maxBytes: cacheMaxSizeMB * 1024 * 1024, log: (m) => log.warn(m) });
//   context.subscriptions.push({ dispose: () => void store.dispose() });
//   // setting changed:            await store.setMaxBytes(mb * 1024 * 1024)      (0 = off, deletes it)
//   // show cached at once:        const hit = await store.peek({ kind: 'files', siteId });  → { value, fetchedAt }
//   // then refresh behind:        await store.put({ kind: 'files', siteId }, await client.getRevisionFiles(siteId, { priority: 'background' }));
//   // open a revision:            (await store.getContent(siteId, id)) ?? fetch, then store.putContent(siteId, id, content)
//   // every revision of a file:   await fetchAllContents(client, store, siteId, path, { signal })
//   // a site was deleted:         await store.forgetSite(siteId)
// Lists: { kind: 'sites' } (sites without secret fields), { kind: 'files', siteId } (paths),
// { kind: 'revisions', siteId, path } (id, date, author; no content). The in-memory byte LRU
// (src/core/model/lru.ts) stays in front of getContent(); digestOf() gives a stored content's
// SHA-256 without reading it. Two windows may open the same folder at once.
export { DiskStore, type Cached, type ListInput, type ListKey, type ListValue } from './diskStore';
export type { DiskStoreOptions, StoreStats } from './blobStore';
export { accountFolderName } from './account';
export { fetchAllContents, DEFAULT_BULK_REPLY_BYTES, type BulkOptions, type BulkResult, type BulkSource } from './bulk';
export { CACHED_SITE_FIELDS, type CachedRevision, type CachedSite } from './lists';

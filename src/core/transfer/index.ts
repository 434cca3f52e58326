// Upload and download guarded by the history (issue 34), plain Node, no `vscode`. What the
// VS Code side uses (everything takes an AbortSignal and reports progress by callbacks; failures
// are TransferError with a kind and a next step; nothing holds a secret):
//
//   const copies = await KeptCopies.open({ folder: KeptCopies.folderFor(accountCacheDir), maxBytes })   // one per account
//   const tx = new Transfers({
//     live: openLive(endpoint, liveOptions), siteId, localRoot: mappedFolder,
//     bases: await Bases.load(Bases.fileFor(accountCacheDir, siteId)),                  // the guard's bases
//     lastSeen: await LastSeen.load(LastSeen.fileFor(accountCacheDir, siteId)),         // the compare engine's hash cache (optional)
//     copies, history: storeHistory(revisionStore, siteId, 'complete'),
//     isUnsaved: (path) => <the editor has unsaved edits of that working file>,
//   });
//   await tx.uploadFile(path, { signal, onProgress })     → FileOutcome ('uploaded' | 'identical' | 'conflict' | 'failed' | 'skipped')
//   await tx.downloadFile(path, …)                         → FileOutcome
//   await tx.uploadFolder(dir, { exclude, signal, onProgress, onFile }) → FolderResult (conflicts set aside and listed)
//   await tx.downloadFolder(dir, …)                        → FolderResult
//   outcome.conflict.overwriteLive() / .overwriteWorking() / .cancel()   → Resolution (each re-checks what was shown)
//   await tx.saveLive(path, bytes) / tx.deleteLive(path)   the writable live folder (§6), through the guard
//   await copies.list(siteId) / copies.read(id) / tx.putBack(id) / copies.remove(id)   "Overwritten on the server"
//   const plan = await planSync(tx, { dir, direction, deletes, exclude: compileExcludes(patterns) })   the preview
//   await runSync(tx, plan, { only, signal, onProgress, onFile })                          the one action
//   const queue = await UploadQueue.open({ siteId, file: UploadQueue.fileFor(accountCacheDir, siteId), upload: (p, signal) => tx.uploadFile(p, { signal }) })
//   queue.enqueue(path) on save; queue.onDidChange(snapshot => status bar); queue.retry(); queue.online(); queue.dispose()
//   uploadOnSave(site) → { on, raw, note? }; uploadOnSaveValue(on) → '1' | '0'
// Every file lives under the account's cache folder (deleted at sign-out): `overwritten/`,
// `transfer/<site>.bases.json`, `transfer/<site>.upload-queue.json`.
export * from './types';
export { Bases } from './bases';
export { KeptCopies, DEFAULT_COPIES_BYTES, type KeptCopiesOptions } from './copies';
export { Transfers, type TransferSite, type FileOptions, type FolderOptions } from './transfer';
export { planSync, runSync, groupPlan, type SyncAction, type SyncDirection, type SyncOptions, type SyncPlan, type SyncReason, type SyncRow } from './sync';
export { compileExcludes, DEFAULT_EXCLUDES, type Exclude } from './ignore';
export { UploadQueue, type QueueItem, type QueueSnapshot, type QueueState, type UploadQueueOptions } from './queue';
export { uploadOnSave, uploadOnSaveValue, type UploadOnSave } from './uploadOnSave';
export { normalEtag, unchangedSince } from './guard';

// Upload and download guarded by the history (issue 34), the part a person sees; loaded on first
// use by what activation registers (./register.ts). The engine is src/core/transfer (plain Node):
// this folder drives it from commands and views.
// - Download / Upload of files and folders (./targets.ts says what a command was run on), with
//   progress in files and bytes and a cancel at any point;
// - the conflict choice (./conflict.ts) and the Transfers view (./transfersView.ts: the sync's
//   preview, the conflicts set aside, what failed);
// - "Overwritten on the Server" (./overwrittenView.ts) and the kept copies' documents;
// - upload on save (./uploadOnSave.ts) and the writable live folder (./liveWrites.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { compileExcludes, planSync, runSync, type Conflict, type FileOutcome, type FolderResult, type Resolution, type SyncDirection, type TransferProgress, type Transfers } from '../../core/transfer';
import { displayText } from '../../core/util/text';
import { background } from '../../core/util/background';
import { setContext } from '../../workbench/context';
import type { Log } from '../../workbench/log';
import { inform, message, plain, showError, showInfo, showWarning } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import type { AccountCache } from '../auth/accountCache';
import type { Session } from '../auth/session';
import type { LiveFeature } from '../live';
import { liveUri } from '../live/fileSystem';
import { sizeText } from '../live/liveTree';
import type { RevisionsApi } from '../revisions';
import { FolderMapping } from '../revisions/mapping';
import type { SitesModel } from '../sites/sitesModel';
import { ConflictChoice, type ConflictSides } from './conflict';
import { LiveWrites } from './liveWrites';
import type { TransferCommand } from './names';
import { CopyNode, OverwrittenView } from './overwrittenView';
import { excludePatterns, TransferSites } from './sites';
import { targetsOf, type Target } from './targets';
import { ConflictNode, PlanRowNode, TransfersView, type Pending } from './transfersView';
import { UploadOnSave } from './uploadOnSave';
import { keptUri, parseKeptUri } from './uris';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface TransferFeatureDeps {
  context: vscode.ExtensionContext;
  session: Session;
  model: SitesModel;
  log: Log;
  notifier: Notifier;
  revisions: { load(): Promise<RevisionsApi>; folders: FolderMapping };
  live: () => Promise<LiveFeature>;
  cache: AccountCache;
  /** The signed-in account's key (`serviceUrl|email`), undefined when signed out. */
  accountKey: () => string | undefined;
}

export interface TransferFeature {
  sites: TransferSites;
  view: TransfersView;
  overwritten: OverwrittenView;
  conflicts: ConflictChoice;
  uploadOnSave: UploadOnSave;
  liveWrites: LiveWrites;
  /** The kept copies' documents (`site-kept:`), read-only. */
  kept: Pick<vscode.FileSystemProvider, 'stat' | 'readFile' | 'readDirectory'>;
  handlers: Record<TransferCommand, (...args: unknown[]) => unknown>;
  /** A save of a mapped file (activation decided the site uploads on save). */
  saved(site: Site, folder: vscode.Uri, path: string): Promise<void>;
  /** Opens the upload queues a previous session left on disk (their saves go now). */
  resume(siteIds: string[]): Promise<void>;
}

/** What a transfer command did, as one notification. */
interface Summary {
  uploaded: number;
  downloaded: number;
  identical: number;
  deleted: number;
  conflicts: Pending[];
  failed: FileOutcome[];
  skipped: number;
  bytes: number;
  cancelled: boolean;
  files: FileOutcome[];
}

function progressText(p: TransferProgress): string {
  const n = (x: number) => x.toLocaleString(vscode.env.language);
  if (p.phase === 'listing') return vscode.l10n.t('listing…');
  if (p.phase === 'checking') return vscode.l10n.t('{0} of {1} files checked', n(p.files.done), n(p.files.total));
  const parts = [vscode.l10n.t('{0} of {1} files', n(p.files.done), n(p.files.total))];
  if (p.bytes.total) parts.push(vscode.l10n.t('{0} of {1}', sizeText(p.bytes.done), sizeText(p.bytes.total)));
  if (p.conflicts) parts.push(p.conflicts === 1 ? vscode.l10n.t('1 conflict set aside') : vscode.l10n.t('{0} conflicts set aside', p.conflicts));
  if (p.current) parts.push(displayText(p.current.slice(p.current.lastIndexOf('/') + 1)));
  return parts.join(' · ');
}

export async function activateTransfer(deps: TransferFeatureDeps, subscriptions: vscode.Disposable[]): Promise<TransferFeature> {
  const { model, log, session } = deps;
  // The engines need the live feature (connections, the live file system) and the revision store.
  const [live, revisions] = await Promise.all([deps.live(), deps.revisions.load()]);
  const sites = new TransferSites({ live, revisions, cache: deps.cache, log });
  const account = () => live.connections.account() ?? '';
  const siteOf = (id: string) => model.find(id) ?? live.connections.siteOf(id);
  const view = new TransfersView();
  const overwritten = new OverwrittenView(() => sites.copies(), siteOf);
  const copiesChanged = () => {
    sites.copiesChanged();
    overwritten.refresh();
  };
  const conflicts = new ConflictChoice(revisions, account);
  const targetDeps = { model, folders: revisions.folders, account: () => live.connections.account() };
  const workingUri = (folder: vscode.Uri | undefined, p: string): vscode.Uri | undefined => {
    if (!folder) return undefined;
    const w = FolderMapping.resolveWorkingFile(folder, p);
    return w.ok ? w.uri : undefined;
  };
  const liveOf = (site: Site, p: string) => liveUri({ siteId: site.id, account: account(), path: p }, site.name);

  // ---- running with progress

  /** Runs `fn` in a cancellable notification that says files and bytes. */
  const withProgress = <T>(title: string, fn: (signal: AbortSignal, onProgress: (p: TransferProgress) => void) => Promise<T>): Thenable<T> =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      let shown = 0;
      try {
        return await fn(abort.signal, (p) => {
          const total = p.bytes.total || p.files.total;
          const done = p.bytes.total ? p.bytes.done : p.files.done;
          const pct = total ? Math.min(100, (done / total) * 100) : 0;
          progress.report({ message: progressText(p), increment: pct > shown ? pct - shown : 0 });
          shown = Math.max(shown, pct);
        });
      } finally {
        sub.dispose();
      }
    });

  /** The site's mapped folder on this computer's disk (asked once when there is none). */
  const folderOf = async (site: Site, why: string): Promise<vscode.Uri | undefined> => {
    const folder = await revisions.folders.ensure(site, why);
    if (folder && folder.scheme !== 'file') {
      await showError(message('The local folder of “{0}” must be on this computer’s disk to transfer files.', plain(site.name)));
      return undefined;
    }
    return folder;
  };

  const engine = (site: Site, folder: vscode.Uri | undefined): Promise<Transfers> => sites.engine(site, folder?.fsPath);

  // ---- conflicts

  /** Shows the choice for a conflict set aside, and does what was chosen. */
  const resolvePending = async (p: Pending): Promise<void> => {
    const sides: ConflictSides = { site: p.site, yours: p.from === 'put-back' ? undefined : workingUri(p.folder, p.conflict.path), live: liveOf(p.site, p.conflict.path), kind: p.from === 'put-back' ? 'put-back' : 'transfer' };
    const how = await conflicts.choose(p.conflict, sides);
    if (how) await act(p, how);
  };

  /** Does what was chosen for a conflict set aside (from its choice, or from the title bar of one of its diffs). */
  const act = async (p: Pending, how: 'overwrite' | 'theirs' | 'cancel'): Promise<void> => {
    if (!view.pending.includes(p)) return;
    if (how === 'cancel' || (how === 'theirs' && p.from === 'put-back')) {
      await p.conflict.cancel();
      view.remove(p);
      inform(message('Nothing was written for “{0}”.', plain(p.conflict.path)));
      return;
    }
    const name = displayText(p.site.name || p.site.id);
    const r: Resolution = await withProgress(how === 'overwrite' ? vscode.l10n.t('Uploading to “{0}”', name) : vscode.l10n.t('Downloading from “{0}”', name), (signal, onProgress) =>
      how === 'overwrite' ? p.conflict.overwriteLive({ signal, onProgress }) : p.conflict.overwriteWorking({ signal, onProgress }),
    );
    await settled(p, r);
  };

  /** What a choice did: said, and the conflict list updated (a side that changed again shows the choice again). */
  const settled = async (p: Pending, r: Resolution): Promise<void> => {
    switch (r.outcome) {
      case 'done':
        view.remove(p);
        copiesChanged();
        fileDone(p.site, r.file, true);
        return;
      case 'changed':
        if (r.conflict) {
          const again = view.add({ conflict: r.conflict, site: p.site, folder: p.folder, from: p.from });
          view.remove(p);
          await showWarning(message('“{0}” changed again since it was shown: nothing was written. Here it is as it is now.', plain(p.conflict.path)));
          return resolvePending(again);
        }
        view.remove(p);
        if (r.file) fileDone(p.site, r.file, true);
        return;
      case 'cancelled':
        inform(message('Stopped: nothing was written for “{0}”. It is still listed in Transfers.', plain(p.conflict.path)));
        return;
      case 'failed':
        view.remove(p);
        await showError(message('“{0}”: {1} {2}', plain(p.conflict.path), plain(r.error.message), plain(r.error.next)));
        return;
    }
  };

  /** Says how one file went (an explicit command, or a conflict answered). */
  const fileDone = (site: Site, o: FileOutcome, alone: boolean): void => {
    const name = plain(site.name || site.id);
    switch (o.action) {
      case 'uploaded':
        inform(o.kept ? message('Uploaded “{0}” to “{1}”; the live file it replaced is kept in Overwritten on the Server.', plain(o.path), name) : message('Uploaded “{0}” to “{1}”.', plain(o.path), name));
        return;
      case 'downloaded': {
        const unsaved = vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.scheme === 'file' && d.uri.path.endsWith(`/${o.path}`));
        inform(
          unsaved
            ? message('Downloaded “{0}” from “{1}”. Your unsaved edits are still in the editor (Revert File drops them); the file’s previous bytes are kept in Overwritten on the Server.', plain(o.path), name)
            : o.kept
              ? message('Downloaded “{0}” from “{1}”; your previous file is kept in Overwritten on the Server.', plain(o.path), name)
              : message('Downloaded “{0}” from “{1}”.', plain(o.path), name),
        );
        return;
      }
      case 'identical':
        if (alone) inform(message('“{0}” is the same on this computer and on “{1}”: nothing was written.', plain(o.path), name));
        return;
      case 'deleted':
        inform(message('Deleted “{0}” ({1}); its bytes are kept in Overwritten on the Server.', plain(o.path), o.side === 'live' ? plain(site.name || site.id) : message('this computer')));
        return;
      case 'skipped':
        inform(message('“{0}” was left alone: {1}', plain(o.path), plain(o.detail)));
        return;
      case 'failed':
        background('Saying a transfer failed', showError(message('“{0}”: {1} {2}', plain(o.path), plain(o.error.message), plain(o.error.next))));
        return;
      case 'conflict':
        return;
    }
  };

  /** The conflict set aside whose diff (opened by its choice) is the active editor. */
  const activeConflict = (): Pending | undefined => {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (!(input instanceof vscode.TabInputTextDiff)) return undefined;
    const c = conflicts.conflictOfDiff(input.original, input.modified);
    return c && view.pending.find((p) => p.conflict === c);
  };
  const conflictContext = () => setContext('siteRevisions.conflictDiff', !!activeConflict());
  /** Overwrite or Take Theirs from the diff's title bar: the choice (if on screen) closes, and it is done. */
  const fromDiff = async (how: 'overwrite' | 'theirs'): Promise<void> => {
    const p = activeConflict();
    if (!p) return;
    if (conflicts.current?.conflict === p.conflict) conflicts.current.pick.hide();
    await act(p, how);
    conflictContext();
  };

  // ---- download / upload

  const summarize = (into: Summary, r: FolderResult | FileOutcome, site: Site, folder: vscode.Uri, from: Pending['from']): void => {
    const files = 'files' in r ? r.files : [r];
    if ('cancelled' in r && r.cancelled) into.cancelled = true;
    for (const f of files) {
      into.files.push(f);
      if (f.action === 'uploaded' || f.action === 'downloaded') {
        into[f.action]++;
        into.bytes += f.bytes;
      } else if (f.action === 'identical') into.identical++;
      else if (f.action === 'deleted') into.deleted++;
      else if (f.action === 'skipped') into.skipped++;
      else if (f.action === 'failed') into.failed.push(f);
      else if (f.action === 'conflict') into.conflicts.push(view.add({ conflict: f.conflict, site, folder, from }));
    }
  };

  /** Says what a folder transfer (or several files) did, with "Resolve…" when conflicts were set aside. */
  const report = async (site: Site, s: Summary, direction: 'upload' | 'download' | 'sync'): Promise<void> => {
    view.setFailures(site, s.failed);
    if (s.uploaded || s.deleted || s.conflicts.length) copiesChanged();
    const name = plain(site.name || site.id);
    const parts: string[] = [];
    if (s.uploaded) parts.push(s.uploaded === 1 ? vscode.l10n.t('1 file uploaded') : vscode.l10n.t('{0} files uploaded', s.uploaded));
    if (s.downloaded) parts.push(s.downloaded === 1 ? vscode.l10n.t('1 file downloaded') : vscode.l10n.t('{0} files downloaded', s.downloaded));
    if (s.bytes) parts.push(sizeText(s.bytes));
    if (s.deleted) parts.push(s.deleted === 1 ? vscode.l10n.t('1 file deleted (kept)') : vscode.l10n.t('{0} files deleted (kept)', s.deleted));
    if (s.identical) parts.push(s.identical === 1 ? vscode.l10n.t('1 already the same') : vscode.l10n.t('{0} already the same', s.identical));
    if (s.skipped) parts.push(s.skipped === 1 ? vscode.l10n.t('1 left alone') : vscode.l10n.t('{0} left alone', s.skipped));
    if (s.conflicts.length) parts.push(s.conflicts.length === 1 ? vscode.l10n.t('1 conflict set aside') : vscode.l10n.t('{0} conflicts set aside', s.conflicts.length));
    if (s.failed.length) parts.push(s.failed.length === 1 ? vscode.l10n.t('1 failed') : vscode.l10n.t('{0} failed', s.failed.length));
    const what = direction === 'upload' ? message('Upload to “{0}”', name) : direction === 'download' ? message('Download from “{0}”', name) : message('Sync with “{0}”', name);
    const text = s.cancelled
      ? message('{0} cancelled: {1}. Nothing is left half-written.', what, plain(parts.join(', ') || vscode.l10n.t('nothing done')))
      : message('{0}: {1}.', what, plain(parts.join(', ') || vscode.l10n.t('nothing to do')));
    const resolve = vscode.l10n.t('Resolve Conflicts…');
    const details = vscode.l10n.t('Show Transfers');
    const items = [...(s.conflicts.length ? [resolve] : []), ...(s.failed.length ? [details] : [])];
    if (s.conflicts.length || s.failed.length) view.reveal();
    const show = s.failed.length ? showError : s.conflicts.length ? showWarning : showInfo;
    const pick = await show(text, ...items);
    if (pick === resolve && s.conflicts[0]) await resolvePending(s.conflicts[0]);
    else if (pick === details) view.reveal();
  };

  const run = async (direction: 'upload' | 'download', args: unknown[]): Promise<Summary | undefined> => {
    const targets = await targetsOf(args, targetDeps);
    if (!targets.length) {
      inform(direction === 'upload' ? message('Choose a file or folder of a mapped folder, or a site, to upload.') : message('Choose a live file or folder, a file or folder of a mapped folder, or a site, to download.'));
      return undefined;
    }
    const bySite = new Map<string, Target[]>();
    for (const t of targets) bySite.set(t.site.id, [...(bySite.get(t.site.id) ?? []), t]);
    let last: Summary | undefined;
    for (const list of bySite.values()) {
      const site = list[0]!.site;
      const folder = await folderOf(site, direction === 'upload' ? vscode.l10n.t('Choose the local folder of “{0}” to upload from.', displayText(site.name)) : vscode.l10n.t('Choose the local folder of “{0}” to download into.', displayText(site.name)));
      if (!folder) continue;
      const tx = await engine(site, folder);
      const exclude = compileExcludes(excludePatterns());
      const s: Summary = { uploaded: 0, downloaded: 0, identical: 0, deleted: 0, conflicts: [], failed: [], skipped: 0, bytes: 0, cancelled: false, files: [] };
      const name = displayText(site.name || site.id);
      const title = direction === 'upload' ? vscode.l10n.t('Uploading to “{0}”', name) : vscode.l10n.t('Downloading from “{0}”', name);
      await withProgress(title, async (signal, onProgress) => {
        for (const t of list) {
          if (signal.aborted) break;
          // A path named in the mapped folder that is not there (yet): the live side says whether it is a folder.
          if (direction === 'download' && t.side === 'local' && !t.isFolder && !fs.existsSync(path.join(folder.fsPath, ...t.path.split('/')))) {
            const e = await tx.site.live.stat(t.path, { signal }).catch(() => undefined);
            if (e?.type === 'dir' || (e?.type === 'symlink' && e.link?.targetType === 'dir')) t.isFolder = true;
          }
          const r = t.isFolder
            ? direction === 'upload'
              ? await tx.uploadFolder(t.path, { exclude, signal, onProgress })
              : await tx.downloadFolder(t.path, { exclude, signal, onProgress })
            : direction === 'upload'
              ? await tx.uploadFile(t.path, { signal, onProgress })
              : await tx.downloadFile(t.path, { signal, onProgress });
          if (!('files' in r) && r.action === 'failed' && r.error.cancelled) s.cancelled = true;
          else summarize(s, r, site, folder, direction);
        }
      });
      last = s;
      log.info(`${direction} of site ${site.id}: ${s.uploaded} up, ${s.downloaded} down, ${s.identical} same, ${s.conflicts.length} conflicts, ${s.failed.length} failed${s.cancelled ? ', cancelled' : ''}`);
      for (const f of s.failed.slice(0, 5)) if (f.action === 'failed') log.warn(`${direction} of ${f.path} (site ${site.id}) failed: ${f.error.kind}: ${f.error.message}`);
      const one = list.length === 1 && !list[0]!.isFolder && s.files.length === 1 ? s.files[0]! : undefined;
      if (one && !s.cancelled) {
        // One file: its outcome said at once; a conflict shows the choice now.
        if (one.action === 'conflict') await resolvePending(s.conflicts[0]!);
        else {
          if (one.action === 'uploaded' || one.action === 'downloaded') copiesChanged();
          fileDone(site, one, true);
        }
        continue;
      }
      background('Saying what a transfer did', report(site, s, direction));
    }
    return last;
  };

  // ---- sync

  const plan = async (site: Site, folder: vscode.Uri, dir: string, direction: SyncDirection, deletes: boolean, unchecked = new Set<string>()): Promise<void> => {
    const tx = await engine(site, folder);
    const p = await withProgress(vscode.l10n.t('Comparing with “{0}”', displayText(site.name || site.id)), (signal, onProgress) => planSync(tx, { dir, direction, deletes, exclude: compileExcludes(excludePatterns()), signal, onProgress }));
    view.showPlan({ plan: p, site, folder, tx, unchecked });
  };

  const sync = async (args: unknown[]): Promise<void> => {
    const t = args[0] === undefined ? undefined : (await targetsOf([args[0]], targetDeps))[0];
    let site: Site | undefined = t?.site;
    if (!site) {
      const all = await model.visibleSites();
      const pick = await vscode.window.showQuickPick(all.map((s) => ({ label: s.name, description: s.server_type, s })), { placeHolder: vscode.l10n.t('Site to sync with its live server') });
      site = pick?.s;
    }
    if (!site) return;
    const folder = await folderOf(site, vscode.l10n.t('Choose the local folder of “{0}” to sync with its live server.', displayText(site.name)));
    if (!folder) return;
    const dir = t ? (t.isFolder ? t.path : t.path.includes('/') ? t.path.slice(0, t.path.lastIndexOf('/')) : '') : '';
    const pick = await vscode.window.showQuickPick(
      [
        { label: `$(arrow-swap) ${vscode.l10n.t('Both ways')}`, description: vscode.l10n.t('upload what changed here, download what changed there'), d: 'both' as const },
        { label: `$(cloud-upload) ${vscode.l10n.t('Upload only')}`, description: vscode.l10n.t('what changed on the server is listed, left alone'), d: 'upload' as const },
        { label: `$(cloud-download) ${vscode.l10n.t('Download only')}`, description: vscode.l10n.t('what changed here is listed, left alone'), d: 'download' as const },
      ],
      { title: vscode.l10n.t('Sync {0} with “{1}”', dir ? displayText(dir) : vscode.l10n.t('the whole folder'), displayText(site.name)), placeHolder: vscode.l10n.t('A preview comes first: nothing is written until you run it.') },
    );
    if (!pick) return;
    await plan(site, folder, dir, pick.d, false);
  };

  const replan = async (deletes?: boolean): Promise<void> => {
    const p = view.preview;
    if (!p) return;
    await plan(p.site, p.folder, p.plan.dir, p.plan.direction, deletes ?? p.plan.deletes, p.unchecked);
  };

  const syncRun = async (): Promise<void> => {
    const p = view.preview;
    if (!p) return;
    const only = p.plan.rows.filter((r) => r.action !== 'same' && r.action !== 'skip' && !p.unchecked.has(r.path)).map((r) => r.path);
    if (!only.length) {
      inform(message('Nothing is checked to do.'));
      return;
    }
    const s: Summary = { uploaded: 0, downloaded: 0, identical: 0, deleted: 0, conflicts: [], failed: [], skipped: 0, bytes: 0, cancelled: false, files: [] };
    const r = await withProgress(vscode.l10n.t('Syncing with “{0}”', displayText(p.site.name || p.site.id)), (signal, onProgress) => runSync(p.tx, p.plan, { only, signal, onProgress }));
    view.clearPlan();
    summarize(s, r, p.site, p.folder, 'sync');
    await report(p.site, s, 'sync');
  };

  // ---- the writable live folder's save conflicts

  const liveWrites = new LiveWrites({
    live: async () => live,
    sites,
    folders: revisions.folders,
    copiesChanged,
    saveConflict: async (site, uri, out, bytes) => {
      let c: Conflict = out.conflict;
      for (;;) {
        const how = await conflicts.choose(c, { site, yours: uri, live: uri, kind: 'save' });
        if (how === 'overwrite') {
          const r = await c.overwriteLive();
          if (r.outcome === 'done') {
            copiesChanged();
            return 'saved';
          }
          if (r.outcome === 'changed' && r.conflict) {
            await showWarning(message('“{0}” changed again on the server since it was shown: nothing was written. Here it is as it is now.', plain(c.path)));
            c = r.conflict;
            continue;
          }
          if (r.outcome === 'failed') throw r.error;
          return 'cancelled';
        }
        await c.cancel();
        if (how === 'theirs') {
          // The edit is kept first (nothing lost), then the editor shows the live file.
          const store = await sites.copies();
          const sha256 = await store.putBlob(bytes);
          await store.keep({ kind: 'copy', siteId: site.id, path: c.path, size: bytes.length, sha256, why: 'take-theirs', side: 'local' });
          copiesChanged();
          setTimeout(() => background('Showing the live file taken', revertLive(uri)), 0);
          return 'theirs';
        }
        return 'cancelled';
      }
    },
  });

  /** Drops the unsaved edit of a live document (Take Theirs on its save): it shows the live file again. */
  const revertLive = async (uri: vscode.Uri): Promise<void> => {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (!doc?.isDirty) return;
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand('workbench.action.files.revert');
  };

  // ---- upload on save

  const uploadOnSave = new UploadOnSave({
    sites,
    state: deps.context.globalState,
    account: deps.accountKey,
    siteOf: (id) => model.find(id),
    log,
    copiesChanged,
    conflict: (site, folder, item) => {
      if (!item.conflict) return;
      const p = view.add({ conflict: item.conflict, site, folder, from: 'queue' });
      const res = vscode.l10n.t('Resolve…');
      background(
        'Saying an upload on save found a conflict',
        Promise.resolve(showWarning(message('“{0}” was saved here but not uploaded: it changed on the server of “{1}” since this computer last transferred it.', plain(item.path), plain(site.name || site.id)), res)).then(async (pick) => {
          if (pick === res) await resolvePending(p);
        }),
      );
    },
  });

  // ---- the kept copies' documents

  const kept = {
    async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
      const k = parseKeptUri(uri);
      if (!k || k.account !== account()) throw vscode.FileSystemError.FileNotFound(uri);
      const store = await sites.copies();
      const c = store.get(k.id) ?? (await store.list(), store.get(k.id));
      if (!c) throw vscode.FileSystemError.FileNotFound(uri);
      return { type: vscode.FileType.File, ctime: c.at, mtime: c.at, size: c.size, permissions: vscode.FilePermission.Readonly };
    },
    async readFile(uri: vscode.Uri): Promise<Uint8Array> {
      const k = parseKeptUri(uri);
      if (!k || k.account !== account()) throw vscode.FileSystemError.FileNotFound(uri);
      const store = await sites.copies();
      if (!store.get(k.id)) await store.list();
      try {
        return await store.read(k.id);
      } catch (e) {
        throw vscode.FileSystemError.Unavailable(e instanceof Error ? e.message : String(e));
      }
    },
    readDirectory(): [string, vscode.FileType][] {
      return [];
    },
  };

  // ---- the Overwritten view's actions

  const copyArg = (arg: unknown): CopyNode | undefined => (arg instanceof CopyNode ? arg : (overwritten.view?.selection.find((n) => n instanceof CopyNode) as CopyNode | undefined));

  const putBack = async (n: CopyNode): Promise<void> => {
    const site = n.site;
    if (!site) {
      await showError(message('The site of this copy is no longer in your account: it cannot be put back.'));
      return;
    }
    const tx = await engine(site, deps.revisions.folders.get(site.id));
    log.info(`Put back: a kept copy of site ${site.id}`);
    const out = await withProgress(vscode.l10n.t('Putting “{0}” back on “{1}”', displayText(n.copy.path), displayText(site.name)), (signal, onProgress) => tx.putBack(n.copy.id, { signal, onProgress }));
    copiesChanged();
    log.info(`Put back: ${out.action}${out.action === 'failed' ? ` (${out.error.kind}: ${out.error.message})` : ''}`);
    if (out.action === 'conflict') {
      await resolvePending(view.add({ conflict: out.conflict, site, folder: deps.revisions.folders.get(site.id), from: 'put-back' }));
      return;
    }
    if (out.action === 'uploaded') {
      inform(message('“{0}” is back on “{1}” as it was kept; the live file it replaced is kept too.', plain(n.copy.path), plain(site.name)));
      live.fs.fire([{ type: vscode.FileChangeType.Changed, uri: liveOf(site, n.copy.path) }]);
      return;
    }
    fileDone(site, out, true);
  };

  const handlers: Record<TransferCommand, (...args: unknown[]) => unknown> = {
    'siteRevisions.upload': (...args) => run('upload', args),
    'siteRevisions.download': (...args) => run('download', args),
    'siteRevisions.sync': (...args) => sync(args),
    'siteRevisions.syncRun': () => syncRun(),
    'siteRevisions.syncIncludeDeletes': () => replan(true),
    'siteRevisions.syncLeaveDeletes': () => replan(false),
    'siteRevisions.syncReplan': () => replan(),
    'siteRevisions.transfersClear': () => view.clear(),
    'siteRevisions.resolveConflict': (arg: unknown) => {
      const p = arg instanceof ConflictNode ? arg.pending : view.pending[0];
      return p ? resolvePending(p) : undefined;
    },
    'siteRevisions.overwrittenCompareLive': async (arg: unknown) => {
      const n = copyArg(arg);
      if (!n?.site) return undefined;
      const left = keptUri(n.copy, account());
      const right = liveOf(n.site, n.copy.path);
      await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0} (kept ↔ live now)', n.copy.path.slice(n.copy.path.lastIndexOf('/') + 1)), { preview: true });
      return { left, right };
    },
    'siteRevisions.overwrittenCompareWorking': async (arg: unknown) => {
      const n = copyArg(arg);
      if (!n?.site) return undefined;
      const folder = await folderOf(n.site, vscode.l10n.t('Choose the local folder of “{0}” to compare the kept copy with its working file.', displayText(n.site.name)));
      const right = workingUri(folder, n.copy.path);
      if (!right) return undefined;
      const left = keptUri(n.copy, account());
      await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0} (kept ↔ working file)', n.copy.path.slice(n.copy.path.lastIndexOf('/') + 1)), { preview: true });
      return { left, right };
    },
    'siteRevisions.overwrittenPutBack': async (arg: unknown) => {
      const n = copyArg(arg);
      if (n) await putBack(n);
    },
    'siteRevisions.overwrittenDelete': async (arg: unknown) => {
      const n = copyArg(arg);
      if (!n) return false;
      const del = vscode.l10n.t('Delete Copy');
      const ok = await showWarning(message('Delete the kept copy of “{0}”?', plain(n.copy.path)), { modal: true, detail: message('It was kept {0}. Once deleted it cannot be put back.', plain(new Date(n.copy.at).toLocaleString(vscode.env.language))) }, del);
      if (ok !== del) return false;
      await (await sites.copies()).remove(n.copy.id);
      overwritten.refresh();
      return true;
    },
    'siteRevisions.overwrittenRefresh': () => overwritten.refresh(),
    'siteRevisions.uploadQueue': () =>
      uploadOnSave.showQueue(async (x) => {
        if (x.item.conflict) await resolvePending(view.pending.find((p) => p.conflict === x.item.conflict) ?? view.add({ conflict: x.item.conflict, site: x.site, folder: x.folder, from: 'queue' }));
      }),
    'siteRevisions.conflictOverwrite': () => fromDiff('overwrite'),
    'siteRevisions.conflictTakeTheirs': () => fromDiff('theirs'),
    'siteRevisions.uploadOnSaveForSite': async (arg: unknown) => {
      const t = arg === undefined ? undefined : (await targetsOf([arg], targetDeps))[0];
      let site: Site | undefined = t?.site;
      if (!site) {
        const all = await model.visibleSites();
        site = (await vscode.window.showQuickPick(all.map((s) => ({ label: s.name, description: s.server_type, s })), { placeHolder: vscode.l10n.t('Site whose upload on save to set for this computer') }))?.s;
      }
      return site && uploadOnSave.chooseFor(site);
    },
  };

  subscriptions.push(
    view,
    uploadOnSave,
    vscode.window.tabGroups.onDidChangeTabs(conflictContext),
    vscode.window.tabGroups.onDidChangeTabGroups(conflictContext),
    view.onDidChangeTreeData(conflictContext),
    vscode.commands.registerCommand('siteRevisions.transfersOpenRow', async (n: unknown) => {
      if (!(n instanceof PlanRowNode)) return;
      const p = view.preview;
      if (!p) return;
      const r = n.row;
      const w = workingUri(p.folder, r.path);
      const l = liveOf(p.site, r.path);
      const name = r.path.slice(r.path.lastIndexOf('/') + 1);
      if (r.live && r.local && w) await vscode.commands.executeCommand('vscode.diff', l, w, vscode.l10n.t('{0} (live ↔ working file)', name), { preview: true });
      else if (r.live) await vscode.commands.executeCommand('vscode.open', l, { preview: true });
      else if (w) await vscode.commands.executeCommand('vscode.open', w, { preview: true });
    }),
    // Another account, or none: nothing of the previous one is shown or used.
    session.onDidChange(() => {
      view.clear();
      sites.reset();
      background('Closing the upload queues', uploadOnSave.closeAll());
      overwritten.refresh();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('siteRevisions.transfer.keptCopiesMB')) background('Changing the bound of the kept copies', sites.setMaxBytes());
    }),
  );
  return {
    sites,
    view,
    overwritten,
    conflicts,
    uploadOnSave,
    liveWrites,
    kept,
    handlers,
    saved: (site, folder, path) => uploadOnSave.saved(site, folder, path),
    resume: async (siteIds) => {
      for (const id of siteIds) {
        const site = model.find(id);
        const folder = deps.revisions.folders.get(id);
        if (site && folder?.scheme === 'file') await uploadOnSave.queueOf(site, folder);
      }
    },
  };
}

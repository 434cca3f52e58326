// The live folder becomes writable (issue 34 §6): the writes of the `site-live:` file system —
// an editor's save, a new file or folder, a rename, a delete in the Explorer of a live workspace
// folder or through `workspace.fs` — each through the guard and the store of kept copies:
// - a save is checked against the version the editor was given (what the live file system's
//   read remembered: ../live/fileSystem.ts), or this computer's base of the file when the editor
//   read none; a live file changed since shows the conflict choice while the save waits:
//   Overwrite saves (the live bytes kept first), Take Theirs drops the edit (kept first) and shows
//   the live file, Cancel (or Escape) leaves the save undone and the edit in the editor;
// - a delete keeps the bytes first; a file changed since it was last seen asks first;
// - a rename over an existing file keeps that file's bytes first (asking when it changed), and
//   the base of the file moves with it;
// - after each write, the folder's listing is read again and VS Code is told what changed.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { TransferError, type FileOutcome } from '../../core/transfer';
import { displayText } from '../../core/util/text';
import { message, plain, showWarning } from '../../workbench/messages';
import type { FileSystemWrites } from '../../workbench/lazyFileSystem';
import type { LiveFeature } from '../live';
import { fileError } from '../live/fileSystem';
import type { FolderMapping } from '../revisions/mapping';
import type { TransferSites } from './sites';

export interface LiveWritesDeps {
  live: () => Promise<LiveFeature>;
  sites: TransferSites;
  folders: FolderMapping;
  /** A save's conflict: the choice, and what it did ('saved': the live file now holds the bytes given). */
  saveConflict(site: Site, uri: vscode.Uri, out: Extract<FileOutcome, { action: 'conflict' }>, bytes: Uint8Array): Promise<'saved' | 'theirs' | 'cancelled'>;
  copiesChanged(): void;
}

function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

export class LiveWrites implements FileSystemWrites {
  /** Writes done (tests count them). */
  writes = 0;

  constructor(private readonly deps: LiveWritesDeps) {}

  private async context(uri: vscode.Uri) {
    const live = await this.deps.live();
    const { site, path } = await live.fs.resolve(uri);
    const folder = this.deps.folders.get(site.id);
    const tx = await this.deps.sites.engine(site, folder?.scheme === 'file' ? folder.fsPath : undefined);
    return { live, site, path, tx, fs: live.connections.fsFor(site) };
  }

  /** After a write: the folder listed again, the tree redrawn, VS Code told, the poll told. */
  private async after(live: LiveFeature, site: Site, uri: vscode.Uri, path: string, events: vscode.FileChangeEvent[]): Promise<void> {
    this.writes++;
    const dir = parentOf(path);
    live.listings.forget(site.id, dir);
    if (live.tree.node(site.id, dir)) live.tree.refresh(site.id, dir);
    live.fs.fire([...events, { type: vscode.FileChangeType.Changed, uri: uri.with({ path: `/${dir}` }) }]);
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array, options: { readonly create: boolean; readonly overwrite: boolean }): Promise<void> {
    const { live, site, path, tx, fs } = await this.context(uri);
    if (!path) throw vscode.FileSystemError.FileIsADirectory(uri);
    try {
      const entry = await fs.stat(path);
      if (entry && (entry.type === 'dir' || (entry.type === 'symlink' && entry.link?.targetType === 'dir'))) throw vscode.FileSystemError.FileIsADirectory(uri);
      if (entry && !options.overwrite) throw vscode.FileSystemError.FileExists(uri);
      if (!entry && !options.create) throw vscode.FileSystemError.FileNotFound(uri);
      // The version the editor was given is what this save replaces (not what a comparison read since).
      const opened = live.fs.opened(site.id, path);
      if (entry && opened && opened.entry.size !== undefined && opened.entry.mtimeRaw !== undefined) tx.site.bases.set(opened.entry.path, opened.entry, opened.sha256, 'read');
      let out = await tx.saveLive(path, content);
      if (out.action === 'conflict') {
        const how = await this.deps.saveConflict(site, uri, out, content);
        if (how !== 'saved') {
          throw vscode.FileSystemError.Unavailable(
            how === 'theirs'
              ? vscode.l10n.t('Not saved: you took the live file of “{0}” instead (your edit is kept in Overwritten on the Server).', displayText(site.name))
              : vscode.l10n.t('Not saved: {0} changed on the server since you opened it. Your edit is still in the editor; save again to choose.', displayText(path)),
          );
        }
        out = { path, action: 'identical', sha256: '' };
      }
      if (out.action === 'failed') throw out.error;
      if (out.action === 'skipped') throw new TransferError('refused-path', 'live', out.detail, { next: '', path });
      if (out.action === 'uploaded' && out.kept) this.deps.copiesChanged();
      const rec = tx.site.bases.get(opened?.entry.path ?? path) ?? tx.site.bases.get(path);
      const sha = out.action === 'uploaded' || out.action === 'identical' ? out.sha256 || rec?.sha256 : undefined;
      const now = out.action === 'uploaded' && out.entry ? out.entry : rec && { name: path.slice(path.lastIndexOf('/') + 1), path: opened?.entry.path ?? path, type: 'file' as const, size: rec.size, mtimeRaw: rec.mtimeRaw, ...(rec.etag ? { etag: rec.etag } : {}) };
      if (now && sha) live.fs.setOpened(site.id, path, { entry: now, sha256: sha });
      live.poll.note(uri, now);
      await this.after(live, site, uri, path, entry ? [] : [{ type: vscode.FileChangeType.Created, uri }]);
    } catch (e) {
      throw this.error(e, uri);
    }
  }

  async createDirectory(uri: vscode.Uri): Promise<void> {
    const { live, site, path, fs } = await this.context(uri);
    try {
      if (await fs.stat(path)) throw vscode.FileSystemError.FileExists(uri);
      await fs.mkdir(path);
      await this.after(live, site, uri, path, [{ type: vscode.FileChangeType.Created, uri }]);
    } catch (e) {
      throw this.error(e, uri);
    }
  }

  /** Deletes a live file through the guard: changed since it was last seen (or never seen), it asks first; its bytes are kept whatever. */
  private async deleteFile(tx: Awaited<ReturnType<LiveWrites['context']>>['tx'], site: Site, path: string, why: 'delete' | 'rename', confirmed: { all?: boolean }): Promise<void> {
    let out = await tx.deleteLive(path, { why });
    if (out.action === 'failed' && out.error.kind === 'exists') {
      if (!confirmed.all) {
        const anyway = vscode.l10n.t('Delete Anyway');
        const pick = await showWarning(
          message('“{0}” on “{1}” changed on the server since this computer last saw it (or was never opened here).', plain(path), plain(site.name || site.id)),
          { modal: true, detail: message('Its bytes are kept in Overwritten on the Server either way, and can be put back.') },
          anyway,
        );
        if (pick !== anyway) throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Not deleted: {0} changed on the server.', displayText(path)));
        confirmed.all = true;
      }
      out = await tx.deleteLive(path, { why, force: true });
    }
    if (out.action === 'failed') throw out.error;
    if (out.action === 'deleted' && out.kept) this.deps.copiesChanged();
  }

  async delete(uri: vscode.Uri, options: { readonly recursive: boolean }): Promise<void> {
    const { live, site, path, tx, fs } = await this.context(uri);
    if (!path) throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('The root of a live server cannot be deleted from here.'));
    try {
      const entry = await fs.stat(path);
      if (!entry) throw vscode.FileSystemError.FileNotFound(uri);
      if (entry.type === 'dir') {
        const tree = await tx.walkLive(path, new AbortController().signal);
        if (!options.recursive && (tree.files.size || tree.dirs.length)) throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('{0} is not empty.', displayText(path)));
        const confirmed = {};
        for (const p of [...tree.files.keys()].sort()) await this.deleteFile(tx, site, p, 'delete', confirmed);
        await fs.delete(path, { recursive: true });
      } else if (entry.type === 'file' || (entry.type === 'symlink' && entry.link?.targetType === 'file')) {
        await this.deleteFile(tx, site, path, 'delete', {});
      } else {
        // A link to a folder or outside the root, or another kind: only the entry itself goes.
        await fs.delete(path);
      }
      live.fs.setOpened(site.id, path, undefined);
      live.poll.note(uri, undefined);
      await this.after(live, site, uri, path, [{ type: vscode.FileChangeType.Deleted, uri }]);
    } catch (e) {
      throw this.error(e, uri);
    }
  }

  async rename(oldUri: vscode.Uri, newUri: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
    const { live, site, path, tx, fs } = await this.context(oldUri);
    const to = (await live.fs.resolve(newUri)).path;
    if (!path || !to) throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('The root of a live server cannot be renamed.'));
    try {
      const [from, target] = await Promise.all([fs.stat(path), fs.stat(to)]);
      if (!from) throw vscode.FileSystemError.FileNotFound(oldUri);
      if (target) {
        if (!options.overwrite) throw vscode.FileSystemError.FileExists(newUri);
        if (target.type === 'file') await this.deleteFile(tx, site, to, 'rename', {});
        else throw vscode.FileSystemError.FileExists(newUri);
      }
      await fs.rename(path, to, { overwrite: options.overwrite });
      // The file's base goes with it (a folder's files are compared with their newest revisions next time).
      const base = tx.site.bases.get(path);
      if (base && from.type === 'file') {
        const now = await fs.stat(to).catch(() => undefined);
        if (now && now.size === base.size) tx.site.bases.set(to, now, base.sha256, base.by);
        tx.site.bases.delete(path);
        await tx.saveState();
      }
      const opened = live.fs.opened(site.id, path);
      live.fs.setOpened(site.id, path, undefined);
      if (opened) live.fs.setOpened(site.id, to, { ...opened, entry: { ...opened.entry, path: to, name: to.slice(to.lastIndexOf('/') + 1) } });
      live.poll.note(oldUri, undefined);
      await this.after(live, site, oldUri, path, [{ type: vscode.FileChangeType.Deleted, uri: oldUri }]);
      if (parentOf(to) !== parentOf(path)) await this.after(live, site, newUri, to, []);
      live.fs.fire([{ type: vscode.FileChangeType.Created, uri: newUri }]);
    } catch (e) {
      throw this.error(e, oldUri);
    }
  }

  private error(e: unknown, uri: vscode.Uri): vscode.FileSystemError {
    if (e instanceof vscode.FileSystemError) return e;
    if (e instanceof TransferError) {
      const text = `${e.message} ${e.next}`.trim();
      return e.kind === 'not-found' ? vscode.FileSystemError.FileNotFound(uri) : e.kind === 'permission' ? vscode.FileSystemError.NoPermissions(text) : vscode.FileSystemError.Unavailable(text);
    }
    return fileError(e, uri);
  }
}

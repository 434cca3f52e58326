// The `site-live:` file system: the live server of a site, rooted at its `dir`, as VS Code's
// editors, the Explorer (a live folder opened as a workspace folder) and `workspace.fs` see it.
// What VS Code has as the provider is registered at activation (./register.ts: it loads this on
// first use); listings are shared with the Sites view's Live Files rows (./listing.ts).
//
// Reads and watches are answered here; writes (save, create, rename, delete) by the transfer
// feature, through the guard (src/features/transfer/liveWrites.ts). What a read gave an editor
// is remembered (the live file's size, raw time and etag before the read, and the hash of the
// bytes read): a save from that editor is then checked against the version it showed. Changes
// made on the server by others reach open editors and shown folders through a poll of what is
// on screen (./poll.ts).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { createHash } from 'node:crypto';
import { LiveError, type LiveEntry } from '../../core/live';
import { displayText } from '../../core/util/text';
import type { SitesModel } from '../sites/sitesModel';
import { baseName, LIVE_SCHEME, liveUriComponents, parentPath, parseLiveUriComponents, type LiveAddress } from './address';
import { UnreachableSite, type LiveConnections } from './connections';
import type { Listings } from './listing';
import type { LivePoll } from './poll';

/** The version of a live file an editor was given: its entry before the read and the hash of the bytes read. */
export interface OpenedVersion {
  entry: LiveEntry;
  sha256: string;
}

/** Versions remembered at most (the oldest read is forgotten first). */
const MAX_OPENED = 2000;

/** The biggest live file read into an editor (VS Code keeps a document in memory). */
export const MAX_READ_BYTES = 256 * 1024 * 1024;

export function liveUri(a: LiveAddress, siteName: string): vscode.Uri {
  return vscode.Uri.from(liveUriComponents(a, siteName));
}

export function parseLiveUri(uri: vscode.Uri): (LiveAddress & { siteName: string }) | undefined {
  return uri.scheme === LIVE_SCHEME ? parseLiveUriComponents(uri.authority, uri.path, uri.query) : undefined;
}

/** The FileType of a live entry: a link is a link, and what it points at when that is inside the root. */
export function fileTypeOf(e: LiveEntry): vscode.FileType {
  if (e.type === 'dir') return vscode.FileType.Directory;
  if (e.type === 'file') return vscode.FileType.File;
  if (e.type === 'symlink') {
    const t = e.link?.targetType;
    return vscode.FileType.SymbolicLink | (t === 'dir' ? vscode.FileType.Directory : t === 'file' ? vscode.FileType.File : vscode.FileType.Unknown);
  }
  return vscode.FileType.Unknown;
}

/** A failure as VS Code's file errors (the message says what to do next). */
export function fileError(e: unknown, uri: vscode.Uri): vscode.FileSystemError {
  if (e instanceof vscode.FileSystemError) return e;
  if (e instanceof UnreachableSite) return vscode.FileSystemError.Unavailable(e.message);
  if (e instanceof LiveError) {
    const text = `${e.message} ${e.next}`.trim();
    switch (e.kind) {
      case 'not-found':
        return vscode.FileSystemError.FileNotFound(uri);
      case 'not-a-folder':
        return vscode.FileSystemError.FileNotADirectory(uri);
      case 'not-a-file':
        return vscode.FileSystemError.FileIsADirectory(uri);
      case 'permission':
        return vscode.FileSystemError.NoPermissions(text);
      default:
        return vscode.FileSystemError.Unavailable(text);
    }
  }
  return vscode.FileSystemError.Unavailable(e instanceof Error ? e.message : String(e));
}

export class LiveFileSystem {
  private readonly _onDidChangeFile = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this._onDidChangeFile.event;
  /** The documents that last read as "another account" (see refused): read again when the sites change. */
  private readonly refusedShown = new Map<string, vscode.Uri>();
  /** What each live file read gave (by site and path): a save is checked against it. */
  private readonly versions = new Map<string, OpenedVersion>();
  /** Set by the feature: the poll of what is on screen. */
  poll: LivePoll | undefined;

  constructor(
    private readonly live: LiveConnections,
    private readonly listings: Listings,
    private readonly model: SitesModel,
    private readonly whenReady: () => Promise<unknown>,
  ) {}

  /** Tells VS Code that a folder's entries may have changed (after a Refresh). */
  changed(uri: vscode.Uri): void {
    this._onDidChangeFile.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  /** Tells VS Code what changed (a write of ours, or what the poll saw). */
  fire(events: vscode.FileChangeEvent[]): void {
    if (events.length) this._onDidChangeFile.fire(events);
  }

  /** The version of a live file the last read gave (undefined: not read in this window). */
  opened(siteId: string, path: string): OpenedVersion | undefined {
    return this.versions.get(`${siteId}\n${path}`);
  }

  /** Records the version an editor now holds (a read, or a save of ours: what was written). */
  setOpened(siteId: string, path: string, v: OpenedVersion | undefined): void {
    const k = `${siteId}\n${path}`;
    this.versions.delete(k);
    if (!v) return;
    this.versions.set(k, v);
    if (this.versions.size > MAX_OPENED) this.versions.delete(this.versions.keys().next().value!);
  }

  watch(uri: vscode.Uri): vscode.Disposable {
    return this.poll?.watch(uri) ?? new vscode.Disposable(() => undefined);
  }

  dispose(): void {
    this._onDidChangeFile.dispose();
  }

  /** The site and path of a URI of this account. */
  async resolve(uri: vscode.Uri): Promise<{ site: Site; path: string }> {
    const a = parseLiveUri(uri);
    if (!a) throw vscode.FileSystemError.FileNotFound(uri);
    await this.whenReady().catch(() => undefined);
    const account = this.live.account();
    if (!account) throw vscode.FileSystemError.Unavailable(vscode.l10n.t('Sign in to Site Revisions to open the live files of “{0}”.', displayText(a.siteName)));
    if (a.account !== account) throw vscode.FileSystemError.Unavailable(vscode.l10n.t('This live file of “{0}” belongs to another Site Revisions account: sign in to that account to open it.', displayText(a.siteName)));
    const site = this.model.find(a.siteId) ?? this.live.siteOf(a.siteId) ?? (await this.model.all().catch(() => [] as Site[])).find((s) => s.id === a.siteId);
    if (!site) throw vscode.FileSystemError.Unavailable(vscode.l10n.t('The site “{0}” is not in your Site Revisions account (any more).', displayText(a.siteName)));
    return { site, path: a.path };
  }

  /**
   * What an open live document of an account not signed in reads as: a message, never a failure
   * (VS Code keeps a document's text when reading it again fails: the previous account's bytes
   * would stay on screen after a switch). Only documents VS Code holds: opening one fails as resolve
   * says. Its writes are refused (resolve).
   */
  private async refused(uri: vscode.Uri): Promise<Uint8Array | undefined> {
    const a = parseLiveUri(uri);
    if (!a || !vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return undefined;
    await this.whenReady().catch(() => undefined);
    const account = this.live.account();
    if (account && a.account === account) return undefined;
    this.refusedShown.set(uri.toString(), uri);
    return new TextEncoder().encode(`${vscode.l10n.t('This live file of “{0}” belongs to another Site Revisions account: sign in to that account to open it.', displayText(a.siteName))}\n`);
  }

  /**
   * Tells VS Code to read again the documents that read as another account's: once the account
   * they belong to is back and its sites are listed (a read before that finds no site, and VS Code
   * then keeps the message).
   */
  retryRefused(): void {
    // Kept until a read gives the file's bytes (a read that fails meanwhile leaves the message).
    const uris = [...this.refusedShown.values()].filter((u) => vscode.workspace.textDocuments.some((d) => d.uri.toString() === u.toString()));
    if (uris.length < this.refusedShown.size) for (const k of [...this.refusedShown.keys()]) if (!uris.some((u) => u.toString() === k)) this.refusedShown.delete(k);
    if (uris.length) this._onDidChangeFile.fire(uris.map((uri) => ({ type: vscode.FileChangeType.Changed, uri })));
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const refused = await this.refused(uri);
    // Now as its time: VS Code keeps the newer of two times it was given for a document, and
    // would take the file's own (older) time, once its account is back, for the one it holds.
    if (refused) return { type: vscode.FileType.File, ctime: Date.now(), mtime: Date.now(), size: refused.byteLength, permissions: vscode.FilePermission.Readonly };
    const { site, path } = await this.resolve(uri);
    if (path === '') return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    try {
      const parent = this.listings.peek(site.id, parentPath(path));
      const entry = parent?.state === 'done' ? parent.find(baseName(path)) : await this.live.fsFor(site).stat(path);
      if (!entry) throw vscode.FileSystemError.FileNotFound(uri);
      return { type: fileTypeOf(entry), ctime: entry.mtime ?? 0, mtime: entry.mtime ?? 0, size: entry.size ?? 0 };
    } catch (e) {
      throw fileError(e, uri);
    }
  }

  async readDirectory(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
    const { site, path } = await this.resolve(uri);
    try {
      const l = this.listings.get(site.id, path, this.live.fsFor(site), true);
      await l.done;
      if (l.state === 'failed') throw l.error;
      return l.entries.map((e) => [e.name, fileTypeOf(e)]);
    } catch (e) {
      throw fileError(e, uri);
    }
  }

  /**
   * A live file's bytes. The entry is stat'ed BEFORE the read (never at the same time): the
   * version remembered is then never newer than the bytes, so a save can only be refused for a
   * change it did not see, never let one through.
   */
  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const refused = await this.refused(uri);
    if (refused) return refused;
    const { site, path } = await this.resolve(uri);
    try {
      const fs = this.live.fsFor(site);
      const entry = await fs.stat(path);
      const file = entry?.type === 'symlink' && entry.link?.targetType === 'file' && entry.link.path !== undefined ? await fs.stat(entry.link.path) : entry;
      const bytes = await fs.readAll(path, { maxBytes: MAX_READ_BYTES });
      this.refusedShown.delete(uri.toString());
      if (file?.type === 'file') this.setOpened(site.id, path, { entry: file, sha256: createHash('sha256').update(bytes).digest('hex') });
      return bytes;
    } catch (e) {
      throw fileError(e, uri);
    }
  }
}

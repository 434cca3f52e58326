// Revision documents: a read-only FileSystemProvider for `site-revision:` URIs (see uri.ts).
//
// Why a FileSystemProvider (registered with isReadonly) rather than a TextDocumentContentProvider:
// - the editor knows the document is read-only and says so ("Revisions are read-only — use
//   Restore Revision"), instead of offering edits that cannot be saved;
// - `stat` reports the real size, so VS Code's own large-file and binary guards apply, and
//   `workspace.fs.readFile` works on revision URIs (Save As…, copy, other extensions);
// - the content is served from the store's LRU: reopening, diffing and `stat` after `readFile`
//   reuse the one Get Revision request.
import * as vscode from 'vscode';
import { isApiError } from '../../core/api/errors';
import { describeError } from '../../workbench/notify';
import { isOffline } from '../sites/viewState';
import { fileName, revisionLabel, type RevisionRef } from './nodes';
import type { RevisionStore } from '../../core/model/revisionStore';
import { isForAccount, isRevisionDocument, parseRevisionUriComponents, revisionUriComponents, REVISION_SCHEME, type RevisionAddress, type RevisionLabel } from '../../core/model/uri';
import { Disposable } from '../../core/util/disposable';
import { revisionAccount } from './account';

/** The document of a revision; `label` names it in its tab (see uri.ts). Of the account signed in unless `a` names one. */
export function revisionUri(a: RevisionAddress, label?: RevisionLabel): vscode.Uri {
  const account = a.account ?? revisionAccount();
  return vscode.Uri.from({ scheme: REVISION_SCHEME, ...revisionUriComponents(account === undefined ? a : { ...a, account }, label) });
}

/** The document of a listed revision, titled with its date and author (what every command opens). */
export function revisionDocumentUri(ref: RevisionRef): vscode.Uri {
  return revisionUri({ siteId: ref.site.id, revisionId: ref.item.id, path: ref.path }, revisionLabel(ref));
}

/** The revision a URI names, when it is one of the account signed in (or made before URIs named one; see uri.ts). */
export function parseRevisionUri(uri: vscode.Uri): RevisionAddress | undefined {
  const a = anyRevisionUri(uri);
  return a && isForAccount(a, revisionAccount()) ? a : undefined;
}

/** The revision a URI names, whichever account it belongs to. */
function anyRevisionUri(uri: vscode.Uri): RevisionAddress | undefined {
  return uri.scheme === REVISION_SCHEME ? parseRevisionUriComponents(uri.path, uri.query) : undefined;
}

/** What a revision of another account reads as (two lines: the editor does not wrap them). */
export function otherAccountMessage(a: Pick<RevisionAddress, 'revisionId' | 'path'>): string {
  return `${vscode.l10n.t('Revision {0} of {1} belongs to an account that is not signed in.', a.revisionId, fileName(a.path))}\n${vscode.l10n.t('Sign in as that account to open it.')}\n`;
}

/** The revision documents a tab shows (a diff shows two). */
function tabUris(tab: vscode.Tab): vscode.Uri[] {
  const i = tab.input;
  if (i instanceof vscode.TabInputText) return [i.uri];
  if (i instanceof vscode.TabInputTextDiff) return [i.original, i.modified];
  return [];
}

/**
 * The reads of the `site-revision:` file system. What VS Code has as the provider is registered
 * at activation (./register.ts: it refuses every write and loads this on the first read).
 */
export class RevisionFileSystem extends Disposable {
  /**
   * Loads under way, by document URI: closing the last tab that shows the document aborts its
   * load (the request too, unless another document of the same revision waits for it).
   */
  private readonly loads = new Map<string, AbortController>();

  /**
   * @param whenReady resolves once the stored session is restored: a window that reopens with
   * revision tabs asks for their content while the extension is still activating (activation
   * event onFileSystem:site-revision), before the secrets are read.
   */
  constructor(
    private readonly store: RevisionStore,
    private readonly whenReady: () => Promise<unknown> = () => Promise.resolve(),
    /** The tag of the account signed in (undefined: none): a URI of another account reads as otherAccountMessage. */
    private readonly account: () => string | undefined = revisionAccount,
  ) {
    super();
  }

  /** Tabs were closed: the loads of documents no tab shows any more are aborted. */
  tabsClosed(closed: readonly vscode.Tab[]): void {
    if (!this.loads.size) return;
    const gone = new Set(closed.flatMap(tabUris).filter((u) => u.scheme === REVISION_SCHEME).map((u) => u.toString()));
    if (!gone.size) return;
    for (const group of vscode.window.tabGroups.all) for (const tab of group.tabs) for (const u of tabUris(tab)) gone.delete(u.toString());
    for (const key of gone) this.loads.get(key)?.abort();
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const a = anyRevisionUri(uri);
    // Anything that is not a revision document (a folder of its breadcrumbs, which keeps its
    // query…) is an empty folder.
    if (!a || !isRevisionDocument(uri.path, a)) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0, permissions: vscode.FilePermission.Readonly };
    const refused = await this.refused(a);
    // Time 0: VS Code reads a document again only when its time or size differ from the last read.
    if (refused) return { type: vscode.FileType.File, ctime: 0, mtime: 0, size: refused.byteLength, permissions: vscode.FilePermission.Readonly };
    const bytes = await this.load(uri, a);
    // The revision's date as the file time, when its list is loaded.
    const found = this.store.findListed(a.siteId, a.revisionId);
    const time = (found && found.list.items[found.index]?.time) ?? 0;
    return { type: vscode.FileType.File, ctime: time, mtime: time, size: bytes.byteLength, permissions: vscode.FilePermission.Readonly };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const a = anyRevisionUri(uri);
    if (!a || !isRevisionDocument(uri.path, a)) throw vscode.FileSystemError.FileIsADirectory(uri);
    return (await this.refused(a)) ?? this.load(uri, a);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  /**
   * What a revision of another account than the one signed in reads as: the message that says so
   * (undefined: it is of the account signed in, or of none). Site and revision ids are only unique
   * within an account, and the store has the signed-in account's, which may hold the same ids.
   * Not an error: VS Code keeps the text it read for a document (an open tab, a document it keeps
   * without one) when reading it again fails, so after a switch of accounts the tab would go on
   * showing the other account's revision; it replaces it with this text.
   */
  private async refused(a: RevisionAddress): Promise<Uint8Array | undefined> {
    if (a.account === undefined) return undefined;
    // A restored window asks before the stored session is back.
    await this.whenReady().catch(() => undefined);
    return isForAccount(a, this.account()) ? undefined : new TextEncoder().encode(otherAccountMessage(a));
  }

  private async load(uri: vscode.Uri, a: RevisionAddress): Promise<Uint8Array> {
    const cached = this.store.peekContent(a.siteId, a.revisionId);
    if (cached) return cached;
    const key = uri.toString();
    let ac = this.loads.get(key);
    if (!ac || ac.signal.aborted) this.loads.set(key, (ac = new AbortController()));
    const mine = ac;
    try {
      await this.whenReady().catch(() => undefined);
      return await this.store.content(a.siteId, a.revisionId, { signal: mine.signal, priority: 'user' });
    } catch (e) {
      if (isApiError(e) && e.kind === 'cancelled') throw vscode.FileSystemError.Unavailable(uri);
      if (isOffline(e)) throw vscode.FileSystemError.Unavailable(notAvailableOffline(a.revisionId, a.path));
      throw vscode.FileSystemError.Unavailable(vscode.l10n.t('Could not load revision {0}: {1}', a.revisionId, describeError(e).message));
    } finally {
      if (this.loads.get(key) === mine) this.loads.delete(key);
    }
  }

}

/** What a revision that is not cached says while the service cannot be reached (instead of the transport's error). */
export function notAvailableOffline(revisionId: string, path: string): string {
  return vscode.l10n.t('Revision {0} of {1} is not available offline: the service cannot be reached, and this revision is not cached on this computer. It opens once the service can be reached again.', revisionId, fileName(path));
}

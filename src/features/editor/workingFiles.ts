// What the editor features (blame, quick diff, the newer-revision alert, compare with another
// site) know about a working file: which site file it is, its revisions with their contents, and
// the newest one. Everything is read through the extension's RevisionStore (its caches, and
// whatever disk store and scheduler stand behind it): nothing is cached here. Concurrent reads of
// one file's history are shared, so blame, quick diff and the alert opening together send one
// request.
import type * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { revisionUri } from '../revisions/fileSystem';
import { locateSiteFiles, type SiteFile } from '../revisions/locate';
import type { FolderMapping } from '../revisions/mapping';
import { revisionLabel, type RevisionRef } from '../revisions/nodes';
import type { Dated } from '../../core/model/ordering';
import type { ReadOptions, RevisionItem, RevisionStore, RevisionWithContent } from '../../core/model/revisionStore';
import type { RevisionAddress } from '../../core/model/uri';
import { InFlight } from '../../core/util/inflight';

/** A working file that is a file of a site (its revision path and the mapped folder). */
export interface Target extends SiteFile {
  uri: vscode.Uri;
}

/** A listed revision of a target's file, with its date as a time when it is one. */
export type Listed = Dated<RevisionItem>;

export class WorkingFiles {
  private readonly inflight = new InFlight();

  constructor(
    readonly store: RevisionStore,
    readonly folders: FolderMapping,
    /** A site already loaded by the Sites model (never loads: a label can do without its name). */
    private readonly loadedSite: (siteId: string) => Site | undefined,
    /** Whether the session is signed in (background checks send nothing otherwise). */
    readonly signedIn: () => boolean,
  ) {}

  /**
   * The site file a working file is: the first site (deepest mapped folder) that lists it.
   * Undefined when it is in no mapped folder or no site lists it. Costs the site's file list
   * (one Get Revision Files per site until a refresh).
   */
  async target(uri: vscode.Uri): Promise<Target | undefined> {
    if (!this.folders.sitesContaining(uri).length) return undefined;
    const found = await locateSiteFiles(uri, this.folders, (siteId) => this.store.siteFiles(siteId));
    if (found === 'unmapped' || !found.length) return undefined;
    return { ...found[0]!, uri };
  }

  /** Whether a working file is inside a mapped folder (no request). */
  isMapped(uri: vscode.Uri): boolean {
    return this.folders.sitesContaining(uri).length > 0;
  }

  /**
   * Every revision of the file with its content, newest first (the store's allContents: no
   * request when it has them all, otherwise one Get Revisions with content). Concurrent callers
   * share one read.
   */
  history(t: Pick<Target, 'siteId' | 'path'>, o: ReadOptions = {}): Promise<RevisionWithContent[]> {
    return this.inflight.run(JSON.stringify([t.siteId, t.path]), () => this.store.allContents(t.siteId, t.path, o));
  }

  /**
   * The newest revision of the file and its content: from the store's caches when it has both,
   * otherwise through `history` (which fills them). Undefined when the file has no revision.
   */
  async newest(t: Pick<Target, 'siteId' | 'path'>, o: ReadOptions = {}): Promise<{ listed: Listed; content: Uint8Array } | undefined> {
    const cached = this.peekNewest(t);
    if (cached) return cached;
    await this.history(t, o);
    return this.peekNewest(t);
  }

  private peekNewest(t: Pick<Target, 'siteId' | 'path'>): { listed: Listed; content: Uint8Array } | undefined {
    const listed = this.store.peekRevisions(t.siteId, t.path)?.items[0];
    const content = listed && this.store.peekContent(t.siteId, listed.item.id);
    return listed && content ? { listed, content } : undefined;
  }

  /** The listed revisions of the file, newest first, when the store has the list (no request). */
  peekListed(t: Pick<Target, 'siteId' | 'path'>): readonly Listed[] | undefined {
    return this.store.peekRevisions(t.siteId, t.path)?.items;
  }

  /** A revision as the revision commands take it. */
  address(t: Pick<Target, 'siteId' | 'path'>, item: Pick<RevisionItem, 'id'>): RevisionAddress {
    return { siteId: t.siteId, revisionId: item.id, path: t.path };
  }

  /** The site of a target, as loaded by the Sites model (only its id when it is not loaded). */
  site(siteId: string): Site {
    return this.loadedSite(siteId) ?? ({ id: siteId, name: '' } as Site);
  }

  /** A listed revision of a target's file as the revision commands and labels take it. */
  ref(t: Pick<Target, 'siteId' | 'path'>, listed: Listed): RevisionRef {
    return { site: this.site(t.siteId), path: t.path, item: listed.item, time: listed.time };
  }

  /** The revision's document, titled with its date and author like every other revision tab. */
  documentUri(t: Pick<Target, 'siteId' | 'path'>, listed: Listed): vscode.Uri {
    return revisionUri(this.address(t, listed.item), revisionLabel(this.ref(t, listed)));
  }
}

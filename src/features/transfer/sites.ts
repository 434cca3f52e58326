// One guarded-transfer engine per site of the signed-in account (src/core/transfer's Transfers):
// the site's live file system (the live feature's connection pool), its mapped folder, the
// guard's bases and the live layer's last-seen state (files under the account's cache folder),
// the account's store of kept copies ("Overwritten on the Server"), and the newest revisions on
// the service (the base when nothing was transferred from here yet, and the third side of the
// conflict's diffs). Another account, or signing out, drops them all; a changed definition or
// mapping makes a new engine on the same bases.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { LastSeen, storeHistory } from '../../core/live';
import { Bases, DEFAULT_COPIES_BYTES, KeptCopies, Transfers, TransferError } from '../../core/transfer';
import { displayText } from '../../core/util/text';
import type { Log } from '../../workbench/log';
import type { AccountCache } from '../auth/accountCache';
import type { LiveFeature } from '../live';
import type { RevisionsApi } from '../revisions';

/** The bound of the kept copies, bytes (setting siteRevisions.transfer.keptCopiesMB). */
export function keptCopiesBytes(): number {
  const v = vscode.workspace.getConfiguration('siteRevisions.transfer').get<unknown>('keptCopiesMB');
  const mb = typeof v === 'number' && Number.isFinite(v) ? Math.min(100_000, Math.max(16, Math.round(v))) : DEFAULT_COPIES_BYTES / (1024 * 1024);
  return mb * 1024 * 1024;
}

/** The exclusion patterns of sync and folder transfers (setting siteRevisions.transfer.exclude). */
export function excludePatterns(): string[] {
  const v = vscode.workspace.getConfiguration('siteRevisions.transfer').get<unknown>('exclude');
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : ['.git/', '.vscode/'];
}

export interface TransferSitesDeps {
  live: LiveFeature;
  revisions: RevisionsApi;
  cache: AccountCache;
  log: Log;
}

interface Engine {
  key: string;
  tx: Transfers;
}

export class TransferSites implements vscode.Disposable {
  private account: string | undefined;
  private copiesP: Promise<KeptCopies> | undefined;
  private readonly bases = new Map<string, Promise<Bases>>();
  private readonly lastSeen = new Map<string, Promise<LastSeen>>();
  private readonly engines = new Map<string, Engine>();
  private readonly _onDidKeep = new vscode.EventEmitter<void>();
  /** Something may have been kept, put back or removed (the Overwritten view refreshes). */
  readonly onDidChangeCopies = this._onDidKeep.event;

  constructor(private readonly deps: TransferSitesDeps) {}

  dispose(): void {
    this._onDidKeep.dispose();
    this.reset();
  }

  /** The kept copies changed (a transfer kept or released something). */
  copiesChanged(): void {
    this._onDidKeep.fire();
  }

  /** The account's cache folder, or why there is none. */
  cacheFolder(): string {
    const f = this.deps.cache.folder;
    if (!f) throw new TransferError('local-io', 'store', vscode.l10n.t('Uploads and downloads need VS Code\'s storage folder for this extension (to keep the overwritten copies), and this window has none.'), { next: vscode.l10n.t('Open a folder or a workspace, then try again.') });
    if (f !== this.account) {
      this.reset();
      this.account = f;
    }
    return f;
  }

  /** Forgets everything of the account (another account, or signed out). */
  reset(): void {
    this.account = undefined;
    this.copiesP = undefined;
    this.bases.clear();
    this.lastSeen.clear();
    this.engines.clear();
  }

  /** The account's kept copies. */
  copies(): Promise<KeptCopies> {
    const folder = this.cacheFolder();
    this.copiesP ??= KeptCopies.open({ folder: KeptCopies.folderFor(folder), maxBytes: keptCopiesBytes(), log: (m) => this.deps.log.warn(m) }).catch((e: unknown) => {
      this.copiesP = undefined;
      throw e;
    });
    return this.copiesP;
  }

  /** The bound changed (its setting). */
  async setMaxBytes(): Promise<void> {
    if (this.copiesP) await (await this.copiesP).setMaxBytes(keptCopiesBytes());
  }

  private once<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
    let p = map.get(key);
    if (!p) {
      p = make();
      map.set(key, p);
      p.catch(() => map.delete(key));
    }
    return p;
  }

  /**
   * The engine of a site. `localRoot`: its mapped folder; a site with none (the live folder's own
   * saves) gets a folder under the account's cache that nothing is ever written to.
   */
  async engine(site: Site, localRoot: string | undefined): Promise<Transfers> {
    const folder = this.cacheFolder();
    const live = this.deps.live.connections.fsFor(site);
    const root = localRoot ?? path.join(folder, 'transfer', 'no-mapped-folder');
    const [copies, bases, lastSeen] = await Promise.all([
      this.copies(),
      this.once(this.bases, site.id, () => Bases.load(Bases.fileFor(folder, site.id))),
      this.once(this.lastSeen, site.id, () => LastSeen.load(LastSeen.fileFor(folder, site.id))),
    ]);
    if (folder !== this.account) return this.engine(site, localRoot);
    const key = JSON.stringify([root]);
    const have = this.engines.get(site.id);
    if (have && have.key === key && have.tx.site.live === live) return have.tx;
    const store = this.deps.revisions.store;
    const tx = new Transfers({
      live,
      siteId: site.id,
      localRoot: root,
      bases,
      lastSeen,
      copies,
      history: storeHistory(store, site.id, 'complete'),
      isUnsaved: (p) => {
        if (!localRoot) return false;
        const abs = path.join(localRoot, ...p.split('/'));
        return vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.scheme === 'file' && d.uri.fsPath === abs);
      },
      log: (level, text) => (level === 'warn' ? this.deps.log.warn(text) : level === 'info' ? this.deps.log.info(text) : this.deps.log.debug(text)),
    });
    this.engines.set(site.id, { key, tx });
    return tx;
  }

  /** A site's name for messages. */
  static siteName(site: Site): string {
    return displayText(site.name || site.id);
  }
}

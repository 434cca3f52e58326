// Folder mappings whose site the account no longer lists (deleted elsewhere, or no longer shared
// with this user). Such a mapping is skipped wherever a working file's site is looked for (blame,
// the gutter, the alert, Revisions of Active File, the search scope): the site that lists the
// file is used instead. Its site is not in the Sites view, so the mapping could not be removed
// there: the first time one is skipped in a session, a message offers "Forget Mapping".
//
// A site is taken for gone only when Get Sites, asked after a request about the site failed,
// does not list it (and left no entry out): no error text is relied on (the spec shows none).
// It stays gone for the session unless the Sites view's list, fetched after that, has it again
// (site ids are only unique at a time: a site made later may get the id of one deleted).
import * as vscode from 'vscode';
import type { ListReply, Site } from '../../core/api/types';
import { isApiError } from '../../core/api/errors';
import type { Log } from '../../workbench/log';
import { message, plain, showWarning } from '../../workbench/messages';
import { background } from '../../core/util/background';
import type { GoneMappings } from './mapping';

export class GoneSites implements GoneMappings {
  /** `account#siteId` of the sites found gone in this session, with when. */
  private readonly gone = new Map<string, number>();
  /** Those whose mapping was offered to be forgotten (once a session). */
  private readonly offered = new Set<string>();

  constructor(
    private readonly deps: {
      account: () => string | undefined;
      /** Get Sites, as the service answers now. */
      listSites: () => Promise<ListReply<Site>>;
      /** The Sites view's list still shows the site: it is loaded again. */
      shown: (siteId: string) => boolean;
      /** When the Sites view's list was fetched (undefined: none is). */
      listedAt?: () => number | undefined;
      refreshShown: () => void;
      /** Forgets the site's mapping (and what is cached of it). */
      forget: (siteId: string) => Promise<void>;
      log: Log;
    },
  ) {}

  private key(siteId: string): string | undefined {
    const acc = this.deps.account();
    return acc ? `${acc}#${siteId}` : undefined;
  }

  isGone(siteId: string): boolean {
    const k = this.key(siteId);
    const since = k === undefined ? undefined : this.gone.get(k);
    if (since === undefined) return false;
    // Listed again by a list fetched since: a site of that id exists (again).
    const at = this.deps.listedAt?.();
    if (at !== undefined && at > since && this.deps.shown(siteId)) {
      this.gone.delete(k!);
      this.offered.delete(k!);
      return false;
    }
    return true;
  }

  async confirmGone(siteId: string, failure: unknown): Promise<boolean> {
    if (isApiError(failure) && (failure.kind === 'cancelled' || failure.kind === 'auth')) return false;
    const k = this.key(siteId);
    if (!k) return false;
    if (this.isGone(siteId)) return true;
    let sites: ListReply<Site>;
    try {
      sites = await this.deps.listSites();
    } catch {
      return false;
    }
    if (sites.issues?.skipped || sites.some((s) => s.id === siteId)) return false;
    this.gone.set(k, Date.now());
    this.deps.log.warn(`Site ${siteId} is mapped to a folder but no longer listed by the service: its mapping is skipped.`);
    if (this.deps.shown(siteId)) this.deps.refreshShown();
    return true;
  }

  skipped(siteId: string, folder: vscode.Uri): void {
    const k = this.key(siteId);
    if (!k || this.offered.has(k)) return;
    this.offered.add(k);
    const forget = vscode.l10n.t('Forget Mapping');
    const where = folder.scheme === 'file' ? folder.fsPath : folder.toString(true);
    background(
      'Offering to forget the mapping of a site that is gone',
      showWarning(message('The folder {0} is mapped to a site that your account no longer lists (site {1}: deleted, or no longer shared with you). The mapping is skipped.', plain(where), plain(siteId)), forget).then(async (pick) => {
        if (pick !== forget) return;
        await this.deps.forget(siteId);
        this.deps.log.info(`The mapping of site ${siteId} (no longer listed) was forgotten.`);
      }),
    );
  }
}

// Pure (no `vscode`): whether the user has let the language-model tools hand out the content of a
// site's revisions (a `wp-config.php`, an `.env`: passwords written in files). Any installed
// extension can call the tools (`vscode.lm.invokeTool`, no chat needed), so content never goes
// out before the user said yes once for that site, in a confirmation VS Code shows. The answer is
// remembered in memory only, for the signed-in account, until sign-out or the window closes.
//
// How a yes is known: VS Code calls a tool's `prepareInvocation` before every invocation, shows
// the confirmation it returns, and invokes the tool only when the user accepts. So the
// preparation notes that it asked (`asking`), and the invocation that follows turns that into
// the site's permission (`take`). An invocation with neither (signed out while preparing, then
// signed in) reads nothing and says why.
//
// Consent follows the content: a yes for a site covers the revisions that belong to it. A revision
// id that nothing read in this session lists under that site is asked about on its own, for that
// call only (`askingUnlisted`, `takeUnlisted`): a service may answer Get Revision by the id alone,
// and then a yes for "Public Blog" must not hand out "Client Production"'s `wp-config.php`.

export class ContentConsent {
  /** `account \n siteId` of the sites the user allowed. */
  private readonly allowed = new Set<string>();
  /** `account \n site reference` for which a preparation asked; taken by the invocation that follows. */
  private readonly asked = new Set<string>();

  /** @param account the signed-in account's key (service URL and email), undefined when signed out. */
  constructor(private readonly account: () => string | undefined) {}

  private key(part: string): string | undefined {
    const a = this.account();
    return a === undefined ? undefined : `${a}\n${part}`;
  }

  /** Whether the user allowed content of this site of the signed-in account. */
  allows(siteId: string): boolean {
    const k = this.key(siteId);
    return k !== undefined && this.allowed.has(k);
  }

  /** A preparation asks the user about the site the agent named `ref` (its id or its name, as given). */
  asking(ref: string): void {
    const k = this.key(ref);
    if (k === undefined) return;
    // Bounded: refused confirmations leave entries behind (their invocation never comes).
    if (this.asked.size >= 256) this.asked.clear();
    this.asked.add(k);
  }

  /**
   * The invocation after a confirmation: true when the site is allowed, or when a preparation
   * asked about `ref` (the user then said yes: VS Code invokes only after a yes), which from now
   * on allows the site. False otherwise: the content must not be read.
   */
  take(ref: string, siteId: string): boolean {
    if (this.allows(siteId)) return true;
    const asked = this.key(ref);
    const site = this.key(siteId);
    if (asked === undefined || site === undefined || !this.asked.delete(asked)) return false;
    this.allowed.add(site);
    return true;
  }

  /** `account \n site reference \n revision id` of revisions no list ties to the site, for which a preparation asked. */
  private readonly askedUnlisted = new Set<string>();

  /**
   * A preparation asks the user about a revision that nothing read in this session lists under the
   * site the agent named `ref` (so that it might be another site's: see ToolKit.revisionOf).
   */
  askingUnlisted(ref: string, revisionId: string): void {
    const k = this.key(`${ref}\n${revisionId}`);
    if (k === undefined) return;
    if (this.askedUnlisted.size >= 256) this.askedUnlisted.clear();
    this.askedUnlisted.add(k);
  }

  /**
   * The invocation after the question about an unlisted revision: true once (the yes is for this
   * call only), which also allows the site's contents, as the question said; false without it.
   */
  takeUnlisted(ref: string, revisionId: string, siteId: string): boolean {
    const asked = this.key(`${ref}\n${revisionId}`);
    const site = this.key(siteId);
    if (asked === undefined || site === undefined || !this.askedUnlisted.delete(asked)) return false;
    this.allowed.add(site);
    return true;
  }

  /** Forgets every answer (sign-out, an expired session). */
  clear(): void {
    this.allowed.clear();
    this.asked.clear();
    this.askedUnlisted.clear();
  }
}

/**
 * How a revision id stands to the site a call names: one of the revisions listed for one of its
 * files (`listed`); a `path` the site has no file of (`notAFile`) or whose revisions do not hold
 * the id (`notListed`); or nothing read in this session says (`unknown`).
 */
export type Belonging = { kind: 'listed'; path: string } | { kind: 'notAFile'; path: string } | { kind: 'notListed'; path: string } | { kind: 'unknown' };

/** What the check reads of one site: its lists, asked for by that site (`fresh`: of the service now, whatever is cached). */
export interface SiteReads {
  files(fresh: boolean): Promise<readonly string[]>;
  revisionIds(path: string, fresh: boolean): Promise<readonly string[]>;
  /** The file of a list of the site read in this session that holds the revision; never a request. */
  listedPath(revisionId: string): string | undefined;
}

export interface SiteLists extends SiteReads {
  /** The site's file that `path` names (exactly, or but for leading slashes), from the cached list, else a fresh one; undefined when it has none. */
  file(path: string): Promise<string | undefined>;
}

export function siteLists(reads: SiteReads): SiteLists {
  return {
    ...reads,
    async file(path) {
      const bare = path.replace(/^\/+/, '');
      const find = (files: readonly string[]) => files.find((f) => f === path) ?? files.find((f) => f.replace(/^\/+/, '') === bare);
      return find(await reads.files(false)) ?? find(await reads.files(true));
    },
  };
}

/**
 * Whether a revision id belongs to the site (consent follows the content). With a `path`, the id
 * must be one of that file's revisions, and the file one of the site's (each list read again when
 * the cached one lacks it: a new file, a new revision); without one, a list of the site read in
 * this session must hold it, for a file the site has. Lists are asked for by site, so what they
 * hold is the site's, even from a service that answers Get Revision by the id alone.
 */
export async function revisionBelonging(site: SiteLists, revisionId: string, path: string | undefined): Promise<Belonging> {
  if (path !== undefined) {
    const file = await site.file(path);
    if (file === undefined) return { kind: 'notAFile', path };
    const holds = async (fresh: boolean) => (await site.revisionIds(file, fresh)).includes(revisionId);
    return (await holds(false)) || (await holds(true)) ? { kind: 'listed', path: file } : { kind: 'notListed', path: file };
  }
  const listed = site.listedPath(revisionId);
  if (listed !== undefined && (await site.file(listed)) !== undefined) return { kind: 'listed', path: listed };
  return { kind: 'unknown' };
}

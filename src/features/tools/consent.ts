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

  /** Forgets every answer (sign-out, an expired session). */
  clear(): void {
    this.allowed.clear();
    this.asked.clear();
  }
}

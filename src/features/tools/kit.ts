// The language-model tools' shared machinery: each tool registered with its input read once for
// both the preparation and the run, the signed-out answer, cancellation, errors as text the agent
// can act on, and the plumbing of the confirmations and of the per-site consent to hand out
// revision contents (ContentConsent). The tools themselves are in readTools.ts, scanTools.ts,
// wholeSiteTools.ts and workingCopyTools.ts; tools.ts puts them together.
import * as vscode from 'vscode';
import { isApiError } from '../../core/api/errors';
import type { Site } from '../../core/api/types';
import type { Session } from '../auth/session';
import type { AsOfReads } from '../../core/asof';
import type { Log } from '../../workbench/log';
import { filesInScope, type HistorySource as ScanSource } from '../../core/search';
import { ContentConsent, revisionBelonging, siteLists, type Belonging, type SiteLists } from './consent';

export type { Belonging };
import { findSite, ToolInputError, type ScanScope } from './results';
import type { WorkingCopy } from './workingCopy';

/** What the tools read. Implemented on the Sites model and the revision store (see index.ts). */
export interface HistorySource {
  sites(signal: AbortSignal): Promise<readonly Site[]>;
  /** Paths of the files with revisions, in the service's order (`fresh`: asked of the service now, whatever is cached). */
  files(siteId: string, signal: AbortSignal, fresh?: boolean): Promise<readonly string[]>;
  /** Newest first. `time` is epoch ms, undefined when the date could not be read. */
  revisions(siteId: string, path: string, signal: AbortSignal, fresh?: boolean): Promise<readonly { id: string; date: string; author: string; time: number | undefined }[]>;
  /** The file of a list of the site read in this session (in memory) that holds the revision; never a request. */
  listedPath(siteId: string, revisionId: string): string | undefined;
  content(siteId: string, revisionId: string, signal: AbortSignal): Promise<string>;
}


/** How a tool prepares (from its input as read once): the message while it runs, and a confirmation when it asks one. */
export type Prepare<T> = (input: T, signal: AbortSignal) => string | vscode.PreparedToolInvocation | Promise<vscode.PreparedToolInvocation>;

/** A CancellationToken as an AbortSignal (disposed with the returned function). */
function signalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  const sub = token.onCancellationRequested(() => ac.abort());
  return { signal: ac.signal, dispose: () => sub.dispose() };
}

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

/** `{0}` filled with a quoted value: an agent's input is shown as data in the confirmation. */
export function quoted(v: unknown): string {
  return JSON.stringify(String(v ?? '')).slice(0, 200);
}

/** A confirmation whose message is shown as text (site names and the agent's input are data, never markdown). */
export function confirmation(invocationMessage: string, title: string, sentences: string[]): vscode.PreparedToolInvocation {
  return { invocationMessage, confirmationMessages: { title, message: new vscode.MarkdownString().appendText(sentences.join(' ')) } };
}

/** What a preparation knows of the site a call names: the site, or only the reference as given (signed out, unknown, or its list could not be read). */
export type SiteSeen = { site: Site } | { ref: string };

/** How many files a scan reads: a number, or undefined when it could not be worked out (the preparation then asks). */
type Reads = number | undefined;

/**
 * What every tool shares. The tools are functions of it (the groups' files): what they use of it
 * is public; the consent, the preparations and the log stay private.
 */
export class ToolKit implements vscode.Disposable {
  /** The sites whose revision contents the user let the tools hand out (memory only). */
  private readonly consent: ContentConsent;
  private readonly subscription: vscode.Disposable;

  constructor(
    readonly session: Session,
    readonly source: HistorySource,
    /** What History Search and Site Changes scan through (the revision store, at background priority). */
    readonly scans: ScanSource,
    private readonly log: Log,
    /** What a site as of a moment and the compare of two sites read (the revision store, at background priority). */
    readonly asOf: AsOfReads,
    /** The mapped folders and the store, for a folder's status and the history of lines. */
    readonly working: WorkingCopy,
  ) {
    this.consent = new ContentConsent(() => {
      const a = session.state === 'signedIn' ? session.account : undefined;
      return a && `${a.serviceUrl}|${a.email.toLowerCase()}`;
    });
    // Signed out or expired: every answer is forgotten (the next sign-in asks again).
    this.subscription = session.onDidChange((state) => {
      if (state !== 'signedIn') this.consent.clear();
    });
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /** Each tool's preparation, by name, from its raw input (what VS Code calls before it invokes the tool). */
  private readonly preparations = new Map<string, Prepare<object>>();

  /** The preparation VS Code gets for a tool: its message, and its confirmation when it asks one. */
  async prepare(name: string, input: object, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation | undefined> {
    const p = this.preparations.get(name);
    if (!p) return undefined;
    const { signal, dispose } = signalOf(token);
    try {
      const prepared = await p(input, signal);
      return typeof prepared === 'string' ? { invocationMessage: prepared } : prepared;
    } finally {
      dispose();
    }
  }

  /**
   * What a preparation can find out about a call, without ever failing: the site it names (else
   * the reference as given) and, for a scan, how many files it reads (a file: one; a folder or
   * the whole site: the files listed; undefined when that could not be worked out).
   */
  async look(ref: string | undefined, scope: ScanScope | undefined, signal: AbortSignal): Promise<{ seen: SiteSeen; reads: Reads }> {
    const reads: Reads = scope?.file !== undefined ? 1 : undefined;
    if (this.session.state !== 'signedIn') return { seen: { ref: ref ?? '' }, reads };
    let site: Site;
    try {
      site = await this.site(ref, signal);
    } catch {
      return { seen: { ref: ref ?? '' }, reads };
    }
    if (!scope || scope.file !== undefined) return { seen: { site }, reads };
    try {
      return { seen: { site }, reads: filesInScope(await this.source.files(site.id, signal), scope.folder).length };
    } catch {
      return { seen: { site }, reads: undefined };
    }
  }

  /** Whether the user still has to allow revision contents of the site (always, when the site is not known). */
  mustAsk(seen: SiteSeen): boolean {
    return !('site' in seen && this.consent.allows(seen.site.id));
  }

  /** The sentence that asks for revision contents, and its note that the preparation asked (see ContentConsent). */
  contentSentence(ref: string | undefined, what: string): string {
    this.consent.asking(ref ?? '');
    return vscode.l10n.t(
      '{0} Tool calls come from a chat agent or from any installed extension. If you allow it, they can read the content of every revision of this site (configuration files with passwords included) without asking again until you sign out or close the window.',
      what,
    );
  }

  /**
   * The sentence that asks for a revision no list of this session ties to the site (`unknown`,
   * see revisionOf), for this call only, and its note that the preparation asked.
   */
  unlistedSentence(ref: string | undefined, revisionId: string, siteName: string): string {
    this.consent.askingUnlisted(ref ?? '', revisionId);
    return vscode.l10n.t(
      'Revision {0} is not among the revisions listed for the site {1} in this session, so nothing shows that it is one of that site’s revisions: a service that finds a revision by its id alone would hand out another site’s file. This yes is for this call only (the agent can give the file’s path to have the revision checked).',
      quoted(revisionId),
      siteName,
    );
  }

  /** The file of `site` that `path` names, as Get Revision Files lists it (read again when the cached list lacks it); undefined when it has none. */
  fileOf(site: Site, path: string, signal: AbortSignal): Promise<string | undefined> {
    return this.readsOf(site, signal).file(path);
  }

  /** Whether a revision id belongs to `site` (consent follows the content: see revisionBelonging). */
  revisionOf(site: Site, revisionId: string, path: string | undefined, signal: AbortSignal): Promise<Belonging> {
    return revisionBelonging(this.readsOf(site, signal), revisionId, path);
  }

  private readsOf(site: Site, signal: AbortSignal): SiteLists {
    return siteLists({
      files: (fresh) => this.source.files(site.id, signal, fresh),
      revisionIds: async (path, fresh) => (await this.source.revisions(site.id, path, signal, fresh)).map((r) => r.id),
      listedPath: (revisionId) => this.source.listedPath(site.id, revisionId),
    });
  }

  /** "in the folder …" or "in every folder", for a confirmation. */
  where(scope: ScanScope): string {
    return scope.folder ? vscode.l10n.t('in the folder {0}', quoted(scope.folder)) : vscode.l10n.t('in every folder');
  }

  /**
   * One tool: its input read once (`read`) for both the preparation and the run, the signed-out
   * answer, cancellation, and errors as text the agent can act on (a wrong site name lists the
   * right ones).
   */
  tool<T>(name: string, read: (input: unknown) => T, prepare: Prepare<T>, run: (input: T, signal: AbortSignal) => Promise<string>): [string, vscode.LanguageModelTool<object>] {
    this.preparations.set(name, (input, signal) => prepare(read(input), signal));
    const tool: vscode.LanguageModelTool<object> = {
      prepareInvocation: (o, token) => this.prepare(name, (o.input ?? {}) as object, token),
      invoke: async (o, token) => {
        if (this.session.state !== 'signedIn') return text(this.signedOutAnswer());
        const { signal, dispose } = signalOf(token);
        try {
          if (signal.aborted) throw new vscode.CancellationError();
          return text(await run(read(o.input), signal));
        } catch (e) {
          if (signal.aborted || (isApiError(e) && e.kind === 'cancelled')) throw new vscode.CancellationError();
          if (e instanceof ToolInputError) return text(e.message);
          if (isApiError(e) && e.kind === 'auth') return text(this.signedOutAnswer());
          const msg = e instanceof Error ? e.message : String(e);
          this.log.warn(`Language-model tool ${name} failed: ${msg}`);
          return text(`The Site Revisions service could not answer: ${msg}`);
        } finally {
          dispose();
        }
      },
    };
    return [name, tool];
  }

  private signedOutAnswer(): string {
    return this.session.state === 'expired'
      ? 'The Site Revisions service no longer accepts the stored credentials. Ask the user to sign in again with the command "Site Revisions: Sign In…"; do not retry until they have.'
      : 'The user is not signed in to Site Revisions. Ask them to sign in with the command "Site Revisions: Sign In…"; do not retry until they have.';
  }

  async site(ref: string | undefined, signal: AbortSignal): Promise<Site> {
    if (!ref) throw new ToolInputError('Give the site as its id or its name (see the list-sites tool).');
    return findSite(await this.source.sites(signal), ref);
  }

  /**
   * Revision contents go out only for a site the user allowed (see ContentConsent): after the
   * confirmation of this call, or of an earlier one for the same site.
   */
  requireContentConsent(ref: string | undefined, site: Site): void {
    if (this.consent.take(ref ?? '', site.id)) return;
    throw this.notAllowed(site);
  }

  private notAllowed(site: Site): ToolInputError {
    return new ToolInputError(
      `The user has not allowed the tools to hand out the content of revisions of site ${JSON.stringify(site.name)} (id ${site.id}), and was not asked for this call. Call the tool again: VS Code then asks the user.`,
    );
  }

  /** The content of a revision no list ties to the site goes out only after the question of this call (unlistedSentence). */
  requireUnlistedConsent(ref: string | undefined, revisionId: string, site: Site): void {
    if (this.consent.takeUnlisted(ref ?? '', revisionId, site.id)) return;
    if (!this.consent.allows(site.id)) throw this.notAllowed(site);
    throw new ToolInputError(
      `Revision ${JSON.stringify(revisionId)} is not among the revisions listed for site ${JSON.stringify(site.name)} (id ${site.id}) in this session, and the user was not asked about it for this call. Give its file as "path" (the list-revisions tool lists a file's revisions), or call the tool again: VS Code then asks the user. No content was read.`,
    );
  }
}

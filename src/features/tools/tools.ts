// Language-model tools: the service's history for VS Code's agents (chat, Copilot and others),
// read-only. Each tool is declared in package.json (`languageModelTools`, shown only while signed
// in) and registered here. They read through the same session, request path and caches as the
// views, so an answer the tree already loaded costs no request; they honor the cancellation
// token; signed out, they answer so (no sign-in prompt: the agent tells the user).
import * as vscode from 'vscode';
import { isApiError } from '../../core/api/errors';
import type { Site } from '../../core/api/types';
import type { Session } from '../auth/session';
import { compareSites, momentText, MomentError, parseMoment, siteAsOf, type AsOfReads, type AtRevision } from '../../core/asof';
import type { Log } from '../../workbench/log';
import { formatUtc } from '../../core/model/time';
import {
  filesInScope,
  PeriodError,
  QueryError,
  scanSiteChanges,
  searchHistory,
  ZoneError,
  type FileSearchResult,
  type HistorySource as ScanSource,
  type Period,
  type Scope,
} from '../../core/search';
import { ContentConsent } from './consent';
import {
  capContent,
  compareSitesInput,
  findSite,
  folderStatusInput,
  getRevisionInput,
  LIMITS,
  lineHistoryInput,
  listFilesInput,
  listRevisionsInput,
  listSitesInput,
  periodOf,
  result,
  searchHistoryInput,
  siteAsOfInput,
  siteChangesInput,
  siteSummary,
  ToolInputError,
  type FolderStatusInput,
  type CompareSitesInput,
  type GetRevisionInput,
  type LineHistoryInput,
  type ListFilesInput,
  type ListRevisionsInput,
  type ListSitesInput,
  type ScanScope,
  type SearchHistoryInput,
  type SiteAsOfInput,
  type SiteChangesInput,
} from './results';
import { folderStatus, lineHistoryOf, lineTarget, mappingOf, notCached, type WorkingCopy } from './workingCopy';
import { GROUPS } from '../../core/status';

/** What the tools read. Implemented on the Sites model and the revision store (see index.ts). */
export interface HistorySource {
  sites(signal: AbortSignal): Promise<readonly Site[]>;
  /** Paths of the files with revisions, in the service's order. */
  files(siteId: string, signal: AbortSignal): Promise<readonly string[]>;
  /** Newest first. `time` is epoch ms, undefined when the date could not be read. */
  revisions(siteId: string, path: string, signal: AbortSignal): Promise<readonly { id: string; date: string; author: string; time: number | undefined }[]>;
  content(siteId: string, revisionId: string, signal: AbortSignal): Promise<string>;
}

import { TOOL_NAMES } from '../history/names';
export { TOOL_NAMES };

/** How a tool prepares (from its input as read once): the message while it runs, and a confirmation when it asks one. */
type Prepare<T> = (input: T, signal: AbortSignal) => string | vscode.PreparedToolInvocation | Promise<vscode.PreparedToolInvocation>;

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
function quoted(v: unknown): string {
  return JSON.stringify(String(v ?? '')).slice(0, 200);
}

/** A confirmation whose message is shown as text (site names and the agent's input are data, never markdown). */
function confirmation(invocationMessage: string, title: string, sentences: string[]): vscode.PreparedToolInvocation {
  return { invocationMessage, confirmationMessages: { title, message: new vscode.MarkdownString().appendText(sentences.join(' ')) } };
}

/** What a preparation knows of the site a call names: the site, or only the reference as given (signed out, unknown, or its list could not be read). */
type SiteSeen = { site: Site } | { ref: string };

/** How many files a scan reads: a number, or undefined when it could not be worked out (the preparation then asks). */
type Reads = number | undefined;

export class HistoryTools implements vscode.Disposable {
  /** The sites whose revision contents the user let the tools hand out (memory only). */
  private readonly consent: ContentConsent;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly session: Session,
    private readonly source: HistorySource,
    /** What History Search and Site Changes scan through (the revision store, at background priority). */
    private readonly scans: ScanSource,
    private readonly log: Log,
    /** What a site as of a moment and the compare of two sites read (the revision store, at background priority). */
    private readonly asOf: AsOfReads,
    /** The mapped folders and the store, for a folder's status and the history of lines. */
    private readonly working: WorkingCopy,
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

  /** Each tool by name, as VS Code calls it (src/features/history/register.ts registers them at activation). */
  tools(): Map<string, vscode.LanguageModelTool<object>> {
    return new Map([
      this.tool(TOOL_NAMES.listSites, listSitesInput, () => vscode.l10n.t('Listing the sites of Site Revisions'), (i, s) => this.listSites(i, s)),
      this.tool(TOOL_NAMES.listFiles, listFilesInput, (i) => vscode.l10n.t('Listing the files with revisions of site {0}', quoted(i.site)), (i, s) => this.listFiles(i, s)),
      this.tool(TOOL_NAMES.listRevisions, listRevisionsInput, (i) => vscode.l10n.t('Listing the revisions of {0}', quoted(i.path)), (i, s) => this.listRevisions(i, s)),
      this.tool(TOOL_NAMES.getRevision, getRevisionInput, (i, s) => this.prepareRevision(i, s), (i, s) => this.getRevision(i, s)),
      this.tool(TOOL_NAMES.searchHistory, searchHistoryInput, (i, s) => this.prepareSearch(i, s), (i, s) => this.searchHistory(i, s)),
      this.tool(TOOL_NAMES.siteChanges, siteChangesInput, (i, s) => this.prepareChanges(i, s), (i, s) => this.siteChanges(i, s)),
      this.tool(TOOL_NAMES.folderStatus, folderStatusInput, (i, s) => this.prepareStatus(i, s), (i, s) => this.folderStatus(i, s)),
      this.tool(TOOL_NAMES.lineHistory, lineHistoryInput, (i, s) => this.prepareLineHistory(i, s), (i, s) => this.lineHistory(i, s)),
      this.tool(TOOL_NAMES.siteAsOf, siteAsOfInput, (i, s) => this.prepareAsOf(i, s), (i, s) => this.siteAsOf(i, s)),
      this.tool(TOOL_NAMES.compareSites, compareSitesInput, (i, s) => this.prepareCompare(i, s), (i, s) => this.compareSites(i, s)),
    ]);
  }

  /**
   * What a preparation can find out about a call, without ever failing: the site it names (else
   * the reference as given) and, for a scan, how many files it reads (a file: one; a folder or
   * the whole site: the files listed; undefined when that could not be worked out).
   */
  private async look(ref: string | undefined, scope: ScanScope | undefined, signal: AbortSignal): Promise<{ seen: SiteSeen; reads: Reads }> {
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
  private mustAsk(seen: SiteSeen): boolean {
    return !('site' in seen && this.consent.allows(seen.site.id));
  }

  /** The sentence that asks for revision contents, and its note that the preparation asked (see ContentConsent). */
  private contentSentence(ref: string | undefined, what: string): string {
    this.consent.asking(ref ?? '');
    return vscode.l10n.t(
      '{0} Tool calls come from a chat agent or from any installed extension. If you allow it, they can read the content of every revision of this site (configuration files with passwords included) without asking again until you sign out or close the window.',
      what,
    );
  }

  private prepareRevision(i: GetRevisionInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
    const invocationMessage = vscode.l10n.t('Reading revision {0}', quoted(i.revisionId));
    return this.look(i.site, undefined, signal).then(({ seen }) => {
      if (!this.mustAsk(seen)) return { invocationMessage };
      const name = quoted('site' in seen ? seen.site.name : seen.ref);
      return confirmation(invocationMessage, vscode.l10n.t('Hand out the content of revisions?'), [
        this.contentSentence(i.site, vscode.l10n.t('A language-model tool call wants the content of revision {0}{1} of the site {2}.', quoted(i.revisionId), i.path ? ` (${quoted(i.path)})` : '', name)),
      ]);
    });
  }

  /**
   * A history search asks when it reads more than one file (or when how many cannot be worked
   * out), and when the user has not allowed the site's contents yet: its result quotes lines of
   * the revisions that match.
   */
  private async prepareSearch(i: SearchHistoryInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
    const invocationMessage = vscode.l10n.t('Searching the history for {0}', quoted(i.pattern));
    const { seen, reads } = await this.look(i.site, i.scope, signal);
    const content = this.mustAsk(seen);
    if (reads !== undefined && reads <= 1 && !content) return { invocationMessage };
    const name = quoted('site' in seen ? seen.site.name : seen.ref);
    const sentences = [
      reads === undefined
        ? vscode.l10n.t('The agent wants to search every revision of the files {0} of the site {1} for {2}; how many files that is could not be worked out. Each file costs one request unless its revisions are cached.', this.where(i.scope), name, quoted(i.pattern))
        : reads > 1
          ? vscode.l10n.t('The agent wants to search every revision of {0} files of the site {1} for {2}. Each file costs one request unless its revisions are cached.', reads, name, quoted(i.pattern))
          : vscode.l10n.t('The agent wants to search every revision of {0} of the site {1} for {2}.', quoted(i.scope.file), name, quoted(i.pattern)),
    ];
    if (content) sentences.push(this.contentSentence(i.site, vscode.l10n.t('The result quotes the lines that match.')));
    const title =
      reads === undefined ? vscode.l10n.t('Search the history of every file in the scope?') : reads > 1 ? vscode.l10n.t('Search the history of {0} files?', reads) : vscode.l10n.t('Hand out the content of revisions?');
    return confirmation(invocationMessage, title, sentences);
  }

  /** Site Changes lists revisions (no content): it asks when it reads more than one file's list, or when how many cannot be worked out. */
  private async prepareChanges(i: SiteChangesInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
    const invocationMessage = vscode.l10n.t('Listing the changes of site {0}', quoted(i.site));
    const { seen, reads } = await this.look(i.site, i.scope, signal);
    if (reads !== undefined && reads <= 1) return { invocationMessage };
    const name = quoted('site' in seen ? seen.site.name : seen.ref);
    return reads === undefined
      ? confirmation(invocationMessage, vscode.l10n.t('List the changes of every file in the scope?'), [
          vscode.l10n.t('The agent wants to read the revision lists of the files {0} of the site {1}; how many files that is could not be worked out. Each file costs one request unless its list is cached.', this.where(i.scope), name),
        ])
      : confirmation(invocationMessage, vscode.l10n.t('List the changes of {0} files?', reads), [
          vscode.l10n.t('The agent wants to read the revision lists of {0} files of the site {1}. Each file costs one request unless its list is cached.', reads, name),
        ]);
  }

  /**
   * A folder's status hands out no content (paths, states, revision ids, dates, authors): it asks
   * when it would ask the service about more than one file (not cached), or when that cannot be
   * worked out.
   */
  private async prepareStatus(i: FolderStatusInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
    const invocationMessage = vscode.l10n.t('Reading the status of a mapped folder {0}', quoted(i.folder ?? i.site ?? ''));
    let sites: readonly Site[];
    try {
      sites = await this.source.sites(signal);
    } catch {
      sites = [];
    }
    let reads: number | undefined;
    let where = quoted(i.folder ?? '');
    let name = quoted(i.site ?? '');
    try {
      const m = mappingOf(this.working, sites, i);
      where = quoted(m.folder.scheme === 'file' ? m.folder.fsPath : m.folder.toString());
      name = quoted(m.site.name);
      reads = await notCached(this.working, m.site.id);
    } catch (e) {
      // A folder that is not mapped: the run says so and reads nothing (when the sites could be read).
      if (e instanceof ToolInputError && sites.length) return { invocationMessage };
    }
    if (reads !== undefined && reads <= 1) return { invocationMessage };
    return reads === undefined
      ? confirmation(invocationMessage, vscode.l10n.t('Check every file of the folder against the service?'), [
          vscode.l10n.t('The agent wants the status of the folder {0} mapped to the site {1}. Its file list is not cached, so how many files the service is asked about could not be worked out; each costs one request.', where, name),
        ])
      : confirmation(invocationMessage, vscode.l10n.t('Check {0} files against the service?', reads), [
          vscode.l10n.t('The agent wants the status of the folder {0} mapped to the site {1}: {2} of its files are not cached, and each costs one request.', where, name, reads),
        ]);
  }

  /** The history of lines quotes them as each revision had them: revision contents, asked once per site. */
  private async prepareLineHistory(i: LineHistoryInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
    const lines = i.startLine === undefined ? '' : i.endLine !== undefined && i.endLine !== i.startLine ? `${i.startLine}–${i.endLine}` : String(i.startLine);
    const invocationMessage = vscode.l10n.t('Reading the history of lines {0} of {1}', lines, quoted(i.path));
    let seen: SiteSeen = { ref: i.site ?? '' };
    if (this.session.state === 'signedIn') {
      try {
        seen = { site: (await lineTarget(this.working, await this.source.sites(signal), i)).site };
      } catch {
        // not worked out: asked about the site as given
      }
    }
    if (!this.mustAsk(seen)) return { invocationMessage };
    const ref = i.site ?? ('site' in seen ? seen.site.id : '');
    const name = quoted('site' in seen ? seen.site.name : seen.ref);
    return confirmation(invocationMessage, vscode.l10n.t('Hand out the content of revisions?'), [
      this.contentSentence(ref, vscode.l10n.t('A language-model tool call wants the history of lines {0} of {1} of the site {2}: the text of those lines in each revision that changed them.', lines, quoted(i.path), name)),
      ]);
    }

  /** A site as of a moment lists revisions (no content): it asks as Site Changes does. */
  private async prepareAsOf(i: SiteAsOfInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
    const invocationMessage = vscode.l10n.t('Reading site {0} as of {1}', quoted(i.site), quoted(i.moment));
    const { seen, reads } = await this.look(i.site, i.scope, signal);
    if (reads !== undefined && reads <= 1) return { invocationMessage };
    const name = quoted('site' in seen ? seen.site.name : seen.ref);
    return reads === undefined
      ? confirmation(invocationMessage, vscode.l10n.t('Read every file in the scope as of a moment?'), [
          vscode.l10n.t('The agent wants the revision lists of the files {0} of the site {1}, to know each file’s revision as of {2}; how many files that is could not be worked out. Each file costs one request unless its list is cached.', this.where(i.scope), name, quoted(i.moment)),
        ])
      : confirmation(invocationMessage, vscode.l10n.t('Read {0} files as of a moment?', reads), [
          vscode.l10n.t('The agent wants the revision lists of {0} files of the site {1}, to know each file’s revision as of {2}. Each file costs one request unless its list is cached.', reads, name, quoted(i.moment)),
        ]);
  }

  /**
   * The compare of two sites reads both sides' revision lists and the contents of the pairs whose
   * digests are not known yet (none of them is handed out: only whether they differ): it asks
   * with the number of files of both sides, or when that could not be worked out.
   */
  private async prepareCompare(i: CompareSitesInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
    const invocationMessage = vscode.l10n.t('Comparing site {0} with site {1}', quoted(i.site), quoted(i.other));
    const [a, b] = [await this.look(i.site, i.scope, signal), await this.look(i.other, i.otherScope, signal)];
    const name = (x: { seen: SiteSeen }) => quoted('site' in x.seen ? x.seen.site.name : x.seen.ref);
    const reads = a.reads === undefined || b.reads === undefined ? undefined : a.reads + b.reads;
    if (reads !== undefined && reads <= 1) return { invocationMessage };
    return confirmation(invocationMessage, reads === undefined ? vscode.l10n.t('Compare every file of two sites?') : vscode.l10n.t('Compare {0} files of two sites?', reads), [
      reads === undefined
        ? vscode.l10n.t('The agent wants to compare the files {0} of the site {1} with those {2} of the site {3}; how many files that is could not be worked out.', this.where(i.scope), name(a), this.where(i.otherScope), name(b))
        : vscode.l10n.t('The agent wants to compare {0} files of the site {1} with {2} files of the site {3}.', a.reads!, name(a), b.reads!, name(b)),
      vscode.l10n.t('It reads each file’s revision list, and the contents of the pairs that are not cached (one request each); the result says only which files differ, never their content.'),
    ]);
  }

  /** "in the folder …" or "in every folder", for a confirmation. */
  private where(scope: ScanScope): string {
    return scope.folder ? vscode.l10n.t('in the folder {0}', quoted(scope.folder)) : vscode.l10n.t('in every folder');
  }

  /**
   * One tool: its input read once (`read`) for both the preparation and the run, the signed-out
   * answer, cancellation, and errors as text the agent can act on (a wrong site name lists the
   * right ones).
   */
  private tool<T>(name: string, read: (input: unknown) => T, prepare: Prepare<T>, run: (input: T, signal: AbortSignal) => Promise<string>): [string, vscode.LanguageModelTool<object>] {
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

  private async site(ref: string | undefined, signal: AbortSignal): Promise<Site> {
    if (!ref) throw new ToolInputError('Give the site as its id or its name (see the list-sites tool).');
    return findSite(await this.source.sites(signal), ref);
  }

  /**
   * Revision contents go out only for a site the user allowed (see ContentConsent): after the
   * confirmation of this call, or of an earlier one for the same site.
   */
  private requireContentConsent(ref: string | undefined, site: Site): void {
    if (this.consent.take(ref ?? '', site.id)) return;
    throw new ToolInputError(
      `The user has not allowed the tools to hand out the content of revisions of site ${JSON.stringify(site.name)} (id ${site.id}), and was not asked for this call. Call the tool again: VS Code then asks the user.`,
    );
  }

  async listSites(input: ListSitesInput, signal: AbortSignal): Promise<string> {
    const all = await this.source.sites(signal);
    const filter = input.filter;
    // What a filter matches is what the result shows (a host without its user:password@).
    const sites = all.map(siteSummary).filter((s) => !filter || [s.name, s.host, s.serverType].some((v) => v.toLowerCase().includes(filter)));
    return result(`${sites.length} of the ${all.length} sites of the signed-in account${filter ? ` matching ${JSON.stringify(filter)}` : ''} (shared: another account shares the site, read-only).`, { sites });
  }

  async listFiles(input: ListFilesInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const prefix = input.pathPrefix;
    const limit = input.limit;
    const all = await this.source.files(site.id, signal);
    const matching = prefix ? all.filter((p) => p.replace(/^\/+/, '').startsWith(prefix)) : all;
    const files = [...matching].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).slice(0, limit);
    const more = matching.length - files.length;
    return result(
      `${matching.length} files with revisions on site ${JSON.stringify(site.name)} (id ${site.id})${prefix ? ` under ${JSON.stringify(prefix)}` : ''}; ${more > 0 ? `the first ${files.length} are listed (raise "limit" or narrow "pathPrefix" for more)` : 'all are listed'}.`,
      { site: { id: site.id, name: site.name }, total: matching.length, files },
    );
  }

  async listRevisions(input: ListRevisionsInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const path = input.path;
    if (!path) throw new ToolInputError('Give the file as "path", exactly as the list-files tool returned it.');
    const limit = input.limit;
    const all = await this.source.revisions(site.id, path, signal);
    const revisions = all.slice(0, limit).map((r) => ({ id: r.id, date: r.time === undefined ? r.date : formatUtc(r.time), author: r.author }));
    return result(
      `${all.length} revisions of ${JSON.stringify(path)} on site ${JSON.stringify(site.name)} (id ${site.id}), newest first; dates in UTC; ${all.length > revisions.length ? `the newest ${revisions.length} are listed` : 'all are listed'}.`,
      { site: { id: site.id, name: site.name }, path, total: all.length, revisions },
    );
  }

  async getRevision(input: GetRevisionInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const id = input.revisionId;
    if (!id) throw new ToolInputError('Give the revision as "revisionId" (see the list-revisions tool).');
    this.requireContentConsent(input.site, site);
    const max = input.maxChars;
    const content = await this.source.content(site.id, id, signal);
    const { text: shown, truncated } = capContent(content, max);
    const path = input.path;
    return result(
      `Content of revision ${id}${path ? ` of ${JSON.stringify(path)}` : ''} on site ${JSON.stringify(site.name)}: ${truncated ? `CUT after ${shown.length} of ${content.length} characters (raise "maxChars", up to ${LIMITS.contentChars.max}, for more)` : `complete, ${content.length} characters`}.`,
      { site: { id: site.id, name: site.name }, revisionId: id, ...(path ? { path } : {}), truncated, totalChars: content.length, content: shown },
    );
  }

  async searchHistory(input: SearchHistoryInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const pattern = input.pattern;
    if (!pattern) throw new ToolInputError('Give the text (or regular expression) to look for as "query".');
    // Its result quotes matching lines: revision contents.
    this.requireContentConsent(input.site, site);
    const mode = input.mode;
    const limit = input.limit;
    const scope: Scope = { siteId: site.id, ...input.scope };
    const files: FileSearchResult[] = [];
    let found = 0;
    let summary;
    try {
      summary = await searchHistory({
        scope,
        source: this.scans,
        signal,
        mode,
        query: { pattern, isRegExp: input.isRegExp === true, matchCase: input.matchCase === true, wholeWord: input.wholeWord === true },
        onResult: (r) => {
          found++;
          if (files.length < limit) files.push(r);
        },
      });
    } catch (e) {
      if (e instanceof QueryError) throw new ToolInputError(`The query cannot be used: ${e.message}`);
      throw e;
    }
    if (summary.cancelled) throw new vscode.CancellationError();
    const where = scope.file ? JSON.stringify(scope.file) : scope.folder ? `the ${summary.total ?? 0} files under ${JSON.stringify(scope.folder)}` : `all ${summary.total ?? 0} files`;
    const what = mode === 'changes' ? 'revisions in which the number of matches changed (added: more than in the revision before; removed: fewer)' : 'revisions whose content matches';
    const shown = files.map((f) => ({
      path: f.path,
      matches: f.matches,
      revisions: f.hits.slice(0, LIMITS.hitsPerFile).map((h) => ({
        id: h.id,
        date: h.time === undefined ? h.date : formatUtc(h.time),
        author: h.author,
        count: h.count,
        added: h.added,
        removed: h.removed,
        previousId: h.previousId,
        firstMatch: h.preview ? { in: h.previewIn === 'revision' ? 'this revision' : 'the revision before', line: h.preview.line + 1, text: h.preview.text } : undefined,
      })),
      ...(f.hits.length > LIMITS.hitsPerFile ? { moreRevisions: f.hits.length - LIMITS.hitsPerFile } : {}),
    }));
    return result(
      `History search of ${where} of site ${JSON.stringify(site.name)} (id ${site.id}) for ${JSON.stringify(pattern)}: ${summary.revisions} revisions searched; ${found} files have ${what}${found > shown.length ? `; the first ${shown.length} files are listed (raise "limit" or narrow the scope for more)` : ''}${summary.failed ? `; ${summary.failed} files could not be read` : ''}. Dates in UTC, newest first.`,
      { site: { id: site.id, name: site.name }, mode, total: found, files: shown },
    );
  }

  async siteChanges(input: SiteChangesInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const period: Period = periodOf(input.period, input.since);
    const { authors, limit } = input;
    const folder = input.scope.folder;
    let summary;
    try {
      summary = await scanSiteChanges({ scope: { siteId: site.id, folder }, source: this.scans, signal, filter: { period, authors, now: Date.now() } });
    } catch (e) {
      if (e instanceof PeriodError || e instanceof ZoneError) throw new ToolInputError(e.message);
      throw e;
    }
    if (summary.cancelled) throw new vscode.CancellationError();
    const all = summary.builder.files();
    const utc = (r: { date: string; time: number }) => formatUtc(r.time) || r.date;
    const files = all.slice(0, limit).map((f) => ({
      path: f.path,
      revisions: f.revisions.slice(0, LIMITS.revisionsPerFile).map((r) => ({ id: r.id, date: utc(r), author: r.author })),
      ...(f.revisions.length > LIMITS.revisionsPerFile ? { moreRevisions: f.revisions.length - LIMITS.revisionsPerFile } : {}),
      newestInPeriod: f.newest.id,
      lastBeforePeriod: f.before?.id ?? null,
    }));
    return result(
      `Changes on site ${JSON.stringify(site.name)} (id ${site.id})${folder ? ` under ${JSON.stringify(folder)}` : ''} ${describePeriod(period)}${authors.length ? ` by ${authors.map((a) => JSON.stringify(a)).join(', ')}` : ''}: ${all.length} of ${summary.total ?? 0} files changed, ${summary.builder.revisionCount} revisions${all.length > files.length ? `; the ${files.length} most recently changed files are listed (raise "limit" for more)` : ''}${summary.failed ? `; ${summary.failed} files could not be read` : ''}. Files newest change first; dates in UTC. To see what changed in a file, compare the content of lastBeforePeriod (null: the file is new) with newestInPeriod (get-revision tool).`,
      { site: { id: site.id, name: site.name }, authors: summary.builder.authors(), total: all.length, files },
    );
  }

  async folderStatus(input: FolderStatusInput, signal: AbortSignal): Promise<string> {
    const sites = await this.source.sites(signal);
    const m = mappingOf(this.working, sites, input);
    const { status, offline, failed } = await folderStatus(this.working, m, signal);
    const g = status.groups();
    const local = status.localOnly;
    const folder = m.folder.scheme === 'file' ? m.folder.fsPath : m.folder.toString();
    const files = (id: (typeof GROUPS)[number]) =>
      g[id].slice(0, input.limit).map((e) => ({ path: e.path, newest: e.newest ? { id: e.newest.id, date: e.newest.time === undefined ? e.newest.date : formatUtc(e.newest.time), author: e.newest.author } : null }));
    const cut = GROUPS.some((id) => g[id].length > input.limit);
    return result(
      `Status of the folder ${JSON.stringify(folder)} mapped to site ${JSON.stringify(m.site.name)} (id ${m.site.id}): ${g.changedLocally.length} files changed locally (the working file differs from the newest revision on the service), ${g.newerOnService.length} newer on the service (its newest revision is newer than the working file and differs from it), ${g.onlyOnService.length} only on the service (no working file); ${local.complete ? '' : 'more than '}${local.count} local files have no revision (not listed)${g.unknown ? `; ${g.unknown} files could not be checked${failed ? ' (the service failed)' : ''}` : ''}${offline ? '; the service could not be reached: this is the last known state' : ''}${cut ? `; the first ${input.limit} files of each group are listed (raise "limit" for more)` : ''}. Paths as the site stores them; dates in UTC.`,
      {
        site: { id: m.site.id, name: m.site.name },
        folder,
        offline,
        counts: { changedLocally: g.changedLocally.length, newerOnService: g.newerOnService.length, onlyOnService: g.onlyOnService.length, localFilesWithoutRevisions: local.count, notChecked: g.unknown },
        changedLocally: files('changedLocally'),
        newerOnService: files('newerOnService'),
        onlyOnService: files('onlyOnService'),
      },
    );
  }

  async lineHistory(input: LineHistoryInput, signal: AbortSignal): Promise<string> {
    const t = await lineTarget(this.working, await this.source.sites(signal), input);
    // Its result quotes the lines as each revision had them: revision contents.
    this.requireContentConsent(input.site ?? t.site.id, t.site);
    const h = await lineHistoryOf(this.working, t, input, signal);
    const lines = `${input.startLine}–${input.endLine ?? input.startLine}`;
    const from = t.working !== undefined ? 'as the working file has them' : t.revisionId !== undefined ? `as revision ${JSON.stringify(t.revisionId)} has them` : 'as the newest revision has them';
    return result(
      `History of lines ${lines} of ${JSON.stringify(t.path)} on site ${JSON.stringify(t.site.name)} (id ${t.site.id}), ${from}: the ${h.total} revisions that changed them, newest first${h.total > h.entries.length ? ` (the newest ${h.entries.length} are listed: raise "limit" for more)` : ''}, each with where the lines were in it and their text there. "change": changed; moved (a block moved from elsewhere); added (the revision added the lines: the history ends there); oldest (the oldest revision kept has them; they may be older); a working-file entry is a change not in any revision. Dates in UTC.`,
      { site: { id: t.site.id, name: t.site.name }, path: t.path, total: h.total, entries: h.entries },
    );
  }

  async siteAsOf(input: SiteAsOfInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const moment = momentOfInput(input.moment, 'the moment');
    const folder = input.scope.folder;
    const r = await siteAsOf({ reads: this.asOf, siteId: site.id, ...(folder ? { folder } : {}), moment, signal });
    if (r.cancelled) throw new vscode.CancellationError();
    const { limit } = input;
    const files = r.files.slice(0, limit).map((f) => ({ path: f.path, ...revisionOf(f.revision) }));
    const notYet = r.notYet.slice(0, limit).map((f) => ({ path: f.path, first: revisionOf(f.first) }));
    return result(
      `Site ${JSON.stringify(site.name)} (id ${site.id})${folder ? ` under ${JSON.stringify(folder)}` : ''} as of ${momentText(moment, true)} UTC: ${r.files.length} of its ${r.total} files existed then, each with its newest revision at or before that moment${r.files.length > files.length ? ` (the first ${files.length} are listed: raise "limit" or narrow "folder")` : ''}; ${r.notYet.length} did not exist yet (their first revision is later)${r.undated ? `; ${r.undated} have no readable date` : ''}${r.failures.length ? `; ${r.failures.length} could not be read` : ''}. Dates in UTC. The get-revision tool gives a revision's content.`,
      { site: { id: site.id, name: site.name }, ...(folder ? { folder } : {}), moment: `${momentText(moment, true)} UTC`, total: r.files.length, files, notYet: { total: r.notYet.length, files: notYet } },
    );
  }

  async compareSites(input: CompareSitesInput, signal: AbortSignal): Promise<string> {
    const a = await this.site(input.site, signal);
    if (!input.other) throw new ToolInputError('Give the other site as "otherSite" (its id or name).');
    const b = await this.site(input.other, signal);
    const moment = input.moment ? momentOfInput(input.moment, 'the moment') : undefined;
    const side = (site: Site, folder: string | undefined) => ({ siteId: site.id, ...(folder ? { folder } : {}), ...(moment !== undefined ? { moment } : {}) });
    const c = await compareSites({ reads: this.asOf, a: side(a, input.scope.folder), b: side(b, input.otherScope.folder), signal });
    if (c.cancelled) throw new vscode.CancellationError();
    const { limit } = input;
    const one = (f: { path: string; rel: string; revision: AtRevision }) => ({ path: f.rel, sitePath: f.path, ...revisionOf(f.revision) });
    const name = (site: Site, folder: string | undefined) => `${JSON.stringify(site.name)} (id ${site.id})${folder ? ` under ${JSON.stringify(folder)}` : ''}`;
    const cut = (n: number, shown: number) => (n > shown ? ` (the first ${shown} listed)` : '');
    return result(
      `Site ${name(a, input.scope.folder)} compared with site ${name(b, input.otherScope.folder)}, ${moment === undefined ? 'by their newest revisions' : `as of ${momentText(moment, true)} UTC`}, files matched by their path relative to each folder: ${c.differ.length} differ${cut(c.differ.length, limit)}, ${c.same} are the same, ${c.onlyA.length} are only on the first${cut(c.onlyA.length, limit)}, ${c.onlyB.length} only on the second${cut(c.onlyB.length, limit)}${c.failures.length ? `; ${c.failures.length} could not be read` : ''}. Compare two revisions' contents with the get-revision tool.`,
      {
        a: { site: { id: a.id, name: a.name }, folder: input.scope.folder ?? null },
        b: { site: { id: b.id, name: b.name }, folder: input.otherScope.folder ?? null },
        moment: moment === undefined ? null : `${momentText(moment, true)} UTC`,
        same: c.same,
        differ: { total: c.differ.length, files: c.differ.slice(0, limit).map((p) => ({ path: p.rel, a: one(p.a), b: one(p.b) })) },
        onlyA: { total: c.onlyA.length, files: c.onlyA.slice(0, limit).map(one) },
        onlyB: { total: c.onlyB.length, files: c.onlyB.slice(0, limit).map(one) },
      },
    );
  }
}

/** A moment an agent gives, read in UTC (as every date the tools give). */
function momentOfInput(text: string | undefined, what: string): number {
  if (!text) throw new ToolInputError(`Give ${what} as "moment": "YYYY-MM-DD HH:MM" in UTC, or e.g. "2 days ago", "yesterday 14:00".`);
  try {
    return parseMoment(text, { now: Date.now(), utc: true });
  } catch (e) {
    if (e instanceof MomentError) throw new ToolInputError(`"moment" cannot be read: ${e.message} (UTC).`);
    throw e;
  }
}

const revisionOf = (r: AtRevision) => ({ revisionId: r.id, date: r.time === undefined ? r.date : formatUtc(r.time), author: r.author });

function describePeriod(p: Period): string {
  return p.kind === 'today' ? 'today' : p.kind === 'days' ? `in the last ${p.days} days` : `since ${p.date}`;
}

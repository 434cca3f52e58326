// Language-model tools: the service's history for VS Code's agents (chat, Copilot and others),
// read-only. Each tool is declared in package.json (`languageModelTools`, shown only while signed
// in) and registered here. They read through the same session, request path and caches as the
// views, so an answer the tree already loaded costs no request; they honor the cancellation
// token; signed out, they answer so (no sign-in prompt: the agent tells the user).
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import type { Site } from '../api/types';
import type { Session } from '../auth/session';
import type { Log } from '../log';
import { formatUtc } from '../revisions/time';
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
} from '../search';
import { capContent, findSite, folderOf, LIMITS, limitOf, periodOf, result, siteSummary, textOf, ToolInputError } from './results';

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

interface ListSitesInput {
  filter?: string;
}
interface ListFilesInput {
  site: string;
  pathPrefix?: string;
  limit?: number;
}
interface ListRevisionsInput {
  site: string;
  path: string;
  limit?: number;
}
interface GetRevisionInput {
  site: string;
  revisionId: string;
  path?: string;
  maxChars?: number;
}
interface SearchHistoryInput {
  site: string;
  path?: string;
  folder?: string;
  query: string;
  isRegExp?: boolean;
  matchCase?: boolean;
  wholeWord?: boolean;
  mode?: string;
  limit?: number;
}
interface SiteChangesInput {
  site: string;
  folder?: string;
  period?: string;
  since?: string;
  authors?: unknown;
  limit?: number;
}

/** How a tool prepares: the message while it runs, and a confirmation when it may cost many requests. */
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

export class HistoryTools {
  constructor(
    private readonly session: Session,
    private readonly source: HistorySource,
    /** What History Search and Site Changes scan through (the revision store, at background priority). */
    private readonly scans: ScanSource,
    private readonly log: Log,
  ) {}

  /** Each tool's preparation, by name (what VS Code calls before it invokes the tool). */
  private readonly preparations = new Map<string, Prepare<never>>();

  /** The preparation VS Code gets for a tool: its message, and its confirmation when it asks one. */
  async prepare(name: string, input: object, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation | undefined> {
    const p = this.preparations.get(name) as Prepare<object> | undefined;
    if (!p) return undefined;
    const { signal, dispose } = signalOf(token);
    try {
      const prepared = await p(input, signal);
      return typeof prepared === 'string' ? { invocationMessage: prepared } : prepared;
    } finally {
      dispose();
    }
  }

  /** Each tool by name, as VS Code calls it (src/history/register.ts registers them at activation). */
  tools(): Map<string, vscode.LanguageModelTool<object>> {
    return new Map([
      this.tool<ListSitesInput>(TOOL_NAMES.listSites, () => vscode.l10n.t('Listing the sites of Site Revisions'), (i, s) => this.listSites(i, s)),
      this.tool<ListFilesInput>(TOOL_NAMES.listFiles, (i) => vscode.l10n.t('Listing the files with revisions of site {0}', quoted(i.site)), (i, s) => this.listFiles(i, s)),
      this.tool<ListRevisionsInput>(TOOL_NAMES.listRevisions, (i) => vscode.l10n.t('Listing the revisions of {0}', quoted(i.path)), (i, s) => this.listRevisions(i, s)),
      this.tool<GetRevisionInput>(TOOL_NAMES.getRevision, (i) => vscode.l10n.t('Reading revision {0}', quoted(i.revisionId)), (i, s) => this.getRevision(i, s)),
      this.tool<SearchHistoryInput>(
        TOOL_NAMES.searchHistory,
        (i, s) =>
          this.prepareScan(i, s, vscode.l10n.t('Searching the history for {0}', quoted(i.query)), (n, site) => ({
            title: vscode.l10n.t('Search the history of {0} files?', n),
            message: vscode.l10n.t('The agent wants to search every revision of {0} files of the site {1} for {2}. Each file costs one request unless its revisions are cached.', n, quoted(site), quoted(i.query)),
          })),
        (i, s) => this.searchHistory(i, s),
      ),
      this.tool<SiteChangesInput>(
        TOOL_NAMES.siteChanges,
        (i, s) =>
          this.prepareScan(i, s, vscode.l10n.t('Listing the changes of site {0}', quoted(i.site)), (n, site) => ({
            title: vscode.l10n.t('List the changes of {0} files?', n),
            message: vscode.l10n.t('The agent wants to read the revision lists of {0} files of the site {1}. Each file costs one request unless its list is cached.', n, quoted(site)),
          })),
        (i, s) => this.siteChanges(i, s),
      ),
    ]);
  }

  /**
   * The preparation of a scan: a confirmation naming how many files it reads when that is more
   * than one (a single file is one request and runs without asking). What cannot be worked out
   * here (signed out, an unknown site) is left to the invocation, which says so.
   */
  private async prepareScan(
    input: { site: string; path?: string; folder?: string },
    signal: AbortSignal,
    invocationMessage: string,
    confirm: (files: number, site: string) => { title: string; message: string },
  ): Promise<vscode.PreparedToolInvocation> {
    if (this.session.state !== 'signedIn' || typeof input.path === 'string') return { invocationMessage };
    try {
      const site = await this.site(input.site, signal);
      const files = filesInScope(await this.source.files(site.id, signal), folderOf(input.folder)).length;
      if (files <= 1) return { invocationMessage };
      const c = confirm(files, site.name);
      // The message shows the site's name (text from the service) as text, not markdown.
      return { invocationMessage, confirmationMessages: { title: c.title, message: new vscode.MarkdownString().appendText(c.message) } };
    } catch {
      return { invocationMessage };
    }
  }

  /**
   * One tool: the invocation message, the signed-out answer, cancellation, and errors
   * as text the agent can act on (a wrong site name lists the right ones).
   */
  private tool<T>(name: string, prepare: Prepare<T>, run: (input: T, signal: AbortSignal) => Promise<string>): [string, vscode.LanguageModelTool<object>] {
    this.preparations.set(name, prepare as Prepare<never>);
    const tool: vscode.LanguageModelTool<T> = {
      prepareInvocation: (o, token) => this.prepare(name, (o.input ?? {}) as object, token),
      invoke: async (o, token) => {
        if (this.session.state !== 'signedIn') return text(this.signedOutAnswer());
        const { signal, dispose } = signalOf(token);
        try {
          if (signal.aborted) throw new vscode.CancellationError();
          return text(await run(o.input ?? ({} as T), signal));
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
    return [name, tool as vscode.LanguageModelTool<object>];
  }

  private signedOutAnswer(): string {
    return this.session.state === 'expired'
      ? 'The Site Revisions service no longer accepts the stored credentials. Ask the user to sign in again with the command "Site Revisions: Sign In…"; do not retry until they have.'
      : 'The user is not signed in to Site Revisions. Ask them to sign in with the command "Site Revisions: Sign In…"; do not retry until they have.';
  }

  private async site(ref: unknown, signal: AbortSignal): Promise<Site> {
    const r = textOf(ref);
    if (!r) throw new ToolInputError('Give the site as its id or its name (see the list-sites tool).');
    return findSite(await this.source.sites(signal), r);
  }

  async listSites(input: ListSitesInput, signal: AbortSignal): Promise<string> {
    const all = await this.source.sites(signal);
    const filter = textOf(input.filter)?.toLowerCase();
    const sites = (filter ? all.filter((s) => [s.name, s.domain, s.server_type].some((v) => v.toLowerCase().includes(filter))) : all).map(siteSummary);
    return result(`${sites.length} of the ${all.length} sites of the signed-in account${filter ? ` matching ${JSON.stringify(filter)}` : ''} (shared: another account shares the site, read-only).`, { sites });
  }

  async listFiles(input: ListFilesInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const prefix = textOf(input.pathPrefix)?.replace(/^\/+/, '');
    const limit = limitOf(input.limit, LIMITS.files);
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
    const path = typeof input.path === 'string' ? input.path : undefined;
    if (!path) throw new ToolInputError('Give the file as "path", exactly as the list-files tool returned it.');
    const limit = limitOf(input.limit, LIMITS.revisions);
    const all = await this.source.revisions(site.id, path, signal);
    const revisions = all.slice(0, limit).map((r) => ({ id: r.id, date: r.time === undefined ? r.date : formatUtc(r.time), author: r.author }));
    return result(
      `${all.length} revisions of ${JSON.stringify(path)} on site ${JSON.stringify(site.name)} (id ${site.id}), newest first; dates in UTC; ${all.length > revisions.length ? `the newest ${revisions.length} are listed` : 'all are listed'}.`,
      { site: { id: site.id, name: site.name }, path, total: all.length, revisions },
    );
  }

  async getRevision(input: GetRevisionInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const id = textOf(input.revisionId);
    if (!id) throw new ToolInputError('Give the revision as "revisionId" (see the list-revisions tool).');
    const max = limitOf(input.maxChars, LIMITS.contentChars);
    const content = await this.source.content(site.id, id, signal);
    const { text: shown, truncated } = capContent(content, max);
    const path = typeof input.path === 'string' ? input.path : undefined;
    return result(
      `Content of revision ${id}${path ? ` of ${JSON.stringify(path)}` : ''} on site ${JSON.stringify(site.name)}: ${truncated ? `CUT after ${shown.length} of ${content.length} characters (raise "maxChars", up to ${LIMITS.contentChars.max}, for more)` : `complete, ${content.length} characters`}.`,
      { site: { id: site.id, name: site.name }, revisionId: id, ...(path ? { path } : {}), truncated, totalChars: content.length, content: shown },
    );
  }

  private scope(siteId: string, input: { path?: unknown; folder?: unknown }): Scope {
    const path = typeof input.path === 'string' && input.path !== '' ? input.path : undefined;
    return path ? { siteId, file: path } : { siteId, folder: folderOf(input.folder) };
  }

  async searchHistory(input: SearchHistoryInput, signal: AbortSignal): Promise<string> {
    const site = await this.site(input.site, signal);
    const pattern = typeof input.query === 'string' ? input.query : '';
    if (!pattern) throw new ToolInputError('Give the text (or regular expression) to look for as "query".');
    const mode = input.mode === 'contains' ? 'contains' : 'changes';
    const limit = limitOf(input.limit, LIMITS.searchFiles);
    const scope = this.scope(site.id, input);
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
    const authors = Array.isArray(input.authors) ? input.authors.filter((a): a is string => typeof a === 'string' && a.trim() !== '') : typeof input.authors === 'string' && input.authors.trim() ? [input.authors] : [];
    const limit = limitOf(input.limit, LIMITS.changedFiles);
    let summary;
    try {
      summary = await scanSiteChanges({ scope: { siteId: site.id, folder: folderOf(input.folder) }, source: this.scans, signal, filter: { period, authors, now: Date.now() } });
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
    const folder = folderOf(input.folder);
    return result(
      `Changes on site ${JSON.stringify(site.name)} (id ${site.id})${folder ? ` under ${JSON.stringify(folder)}` : ''} ${describePeriod(period)}${authors.length ? ` by ${authors.map((a) => JSON.stringify(a)).join(', ')}` : ''}: ${all.length} of ${summary.total ?? 0} files changed, ${summary.builder.revisionCount} revisions${all.length > files.length ? `; the ${files.length} most recently changed files are listed (raise "limit" for more)` : ''}${summary.failed ? `; ${summary.failed} files could not be read` : ''}. Files newest change first; dates in UTC. To see what changed in a file, compare the content of lastBeforePeriod (null: the file is new) with newestInPeriod (get-revision tool).`,
      { site: { id: site.id, name: site.name }, authors: summary.builder.authors(), total: all.length, files },
    );
  }
}

function describePeriod(p: Period): string {
  return p.kind === 'today' ? 'today' : p.kind === 'days' ? `in the last ${p.days} days` : `since ${p.date}`;
}

// Language-model tools: the service's history for VS Code's agents (chat, Copilot and others),
// read-only. Each tool is declared in package.json (`languageModelTools`, shown only while signed
// in) and registered here. They read through the same session, request path and caches as the
// views, so an answer the tree already loaded costs no request; they honour the cancellation
// token; signed out, they answer so (no sign-in prompt: the agent tells the user).
import * as vscode from 'vscode';
import { isApiError } from '../api/errors';
import type { Site } from '../api/types';
import type { Session } from '../auth/session';
import type { Log } from '../log';
import { formatUtc } from '../revisions/time';
import { capContent, findSite, LIMITS, limitOf, result, siteSummary, textOf, ToolInputError } from './results';

/** What the tools read. Implemented on the Sites model and the revision store (see index.ts). */
export interface HistorySource {
  sites(signal: AbortSignal): Promise<readonly Site[]>;
  /** Paths of the files with revisions, in the service's order. */
  files(siteId: string, signal: AbortSignal): Promise<readonly string[]>;
  /** Newest first. `time` is epoch ms, undefined when the date could not be read. */
  revisions(siteId: string, path: string, signal: AbortSignal): Promise<readonly { id: string; date: string; author: string; time: number | undefined }[]>;
  content(siteId: string, revisionId: string, signal: AbortSignal): Promise<string>;
}

export const TOOL_NAMES = {
  listSites: 'siteRevisions_listSites',
  listFiles: 'siteRevisions_listFiles',
  listRevisions: 'siteRevisions_listRevisions',
  getRevision: 'siteRevisions_getRevision',
} as const;

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
    private readonly log: Log,
  ) {}

  register(): vscode.Disposable[] {
    return [
      this.tool<ListSitesInput>(TOOL_NAMES.listSites, () => vscode.l10n.t('Listing the sites of Site Revisions'), (i, s) => this.listSites(i, s)),
      this.tool<ListFilesInput>(TOOL_NAMES.listFiles, (i) => vscode.l10n.t('Listing the files with revisions of site {0}', quoted(i.site)), (i, s) => this.listFiles(i, s)),
      this.tool<ListRevisionsInput>(TOOL_NAMES.listRevisions, (i) => vscode.l10n.t('Listing the revisions of {0}', quoted(i.path)), (i, s) => this.listRevisions(i, s)),
      this.tool<GetRevisionInput>(TOOL_NAMES.getRevision, (i) => vscode.l10n.t('Reading revision {0}', quoted(i.revisionId)), (i, s) => this.getRevision(i, s)),
    ];
  }

  /**
   * Registers one tool: the invocation message, the signed-out answer, cancellation, and errors
   * as text the agent can act on (a wrong site name lists the right ones).
   */
  private tool<T>(name: string, message: (input: T) => string, run: (input: T, signal: AbortSignal) => Promise<string>): vscode.Disposable {
    return vscode.lm.registerTool<T>(name, {
      prepareInvocation: (o) => ({ invocationMessage: message(o.input ?? ({} as T)) }),
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
    });
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
}

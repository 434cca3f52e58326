// The language-model tools that scan a site's files: History Search and Site Changes (through the
// scans of src/core/search). They ask first when they read more than one file.
import * as vscode from 'vscode';
import { formatUtc } from '../../core/model/time';
import { PeriodError, QueryError, scanSiteChanges, searchHistory, ZoneError, type FileSearchResult, type Period, type Scope } from '../../core/search';
import { confirmation, quoted, type ToolKit } from './kit';
import { LIMITS, periodOf, result, searchHistoryInput, siteChangesInput, ToolInputError, type SearchHistoryInput, type SiteChangesInput } from './results';
import { TOOL_NAMES } from '../history/names';

/** History Search and Site Changes, by name. */
export function scanTools(kit: ToolKit): [string, vscode.LanguageModelTool<object>][] {
  return [
    kit.tool(TOOL_NAMES.searchHistory, searchHistoryInput, (i, s) => prepareSearch(kit, i, s), (i, s) => runSearchHistory(kit, i, s)),
    kit.tool(TOOL_NAMES.siteChanges, siteChangesInput, (i, s) => prepareChanges(kit, i, s), (i, s) => runSiteChanges(kit, i, s)),
  ];
}

/**
 * A history search asks when it reads more than one file (or when how many cannot be worked
 * out), and when the user has not allowed the site's contents yet: its result quotes lines of
 * the revisions that match.
 */
async function prepareSearch(kit: ToolKit, i: SearchHistoryInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
  const invocationMessage = vscode.l10n.t('Searching the history for {0}', quoted(i.pattern));
  const { seen, reads } = await kit.look(i.site, i.scope, signal);
  const content = kit.mustAsk(seen);
  if (reads !== undefined && reads <= 1 && !content) return { invocationMessage };
  const name = quoted('site' in seen ? seen.site.name : seen.ref);
  const sentences = [
    reads === undefined
      ? vscode.l10n.t('The agent wants to search every revision of the files {0} of the site {1} for {2}; how many files that is could not be worked out. Each file costs one request unless its revisions are cached.', kit.where(i.scope), name, quoted(i.pattern))
      : reads > 1
        ? vscode.l10n.t('The agent wants to search every revision of {0} files of the site {1} for {2}. Each file costs one request unless its revisions are cached.', reads, name, quoted(i.pattern))
        : vscode.l10n.t('The agent wants to search every revision of {0} of the site {1} for {2}.', quoted(i.scope.file), name, quoted(i.pattern)),
  ];
  if (content) sentences.push(kit.contentSentence(i.site, vscode.l10n.t('The result quotes the lines that match.')));
  const title =
    reads === undefined ? vscode.l10n.t('Search the history of every file in the scope?') : reads > 1 ? vscode.l10n.t('Search the history of {0} files?', reads) : vscode.l10n.t('Hand out the content of revisions?');
  return confirmation(invocationMessage, title, sentences);
}

/** Site Changes lists revisions (no content): it asks when it reads more than one file's list, or when how many cannot be worked out. */
async function prepareChanges(kit: ToolKit, i: SiteChangesInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
  const invocationMessage = vscode.l10n.t('Listing the changes of site {0}', quoted(i.site));
  const { seen, reads } = await kit.look(i.site, i.scope, signal);
  if (reads !== undefined && reads <= 1) return { invocationMessage };
  const name = quoted('site' in seen ? seen.site.name : seen.ref);
  return reads === undefined
    ? confirmation(invocationMessage, vscode.l10n.t('List the changes of every file in the scope?'), [
        vscode.l10n.t('The agent wants to read the revision lists of the files {0} of the site {1}; how many files that is could not be worked out. Each file costs one request unless its list is cached.', kit.where(i.scope), name),
      ])
    : confirmation(invocationMessage, vscode.l10n.t('List the changes of {0} files?', reads), [
        vscode.l10n.t('The agent wants to read the revision lists of {0} files of the site {1}. Each file costs one request unless its list is cached.', reads, name),
      ]);
}

async function runSearchHistory(kit: ToolKit, input: SearchHistoryInput, signal: AbortSignal): Promise<string> {
  const site = await kit.site(input.site, signal);
  const pattern = input.pattern;
  if (!pattern) throw new ToolInputError('Give the text (or regular expression) to look for as "query".');
  // Its result quotes matching lines: revision contents.
  kit.requireContentConsent(input.site, site);
  const mode = input.mode;
  const limit = input.limit;
  const scope: Scope = { siteId: site.id, ...input.scope };
  const files: FileSearchResult[] = [];
  let found = 0;
  let summary;
  try {
    summary = await searchHistory({
      scope,
      source: kit.scans,
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

async function runSiteChanges(kit: ToolKit, input: SiteChangesInput, signal: AbortSignal): Promise<string> {
  const site = await kit.site(input.site, signal);
  const period: Period = periodOf(input.period, input.since);
  const { authors, limit } = input;
  const folder = input.scope.folder;
  let summary;
  try {
    summary = await scanSiteChanges({ scope: { siteId: site.id, folder }, source: kit.scans, signal, filter: { period, authors, now: Date.now() } });
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

function describePeriod(p: Period): string {
  return p.kind === 'today' ? 'today' : p.kind === 'days' ? `in the last ${p.days} days` : `since ${p.date}`;
}

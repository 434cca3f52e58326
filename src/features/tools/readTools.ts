// The language-model tools that read one site or one file: the sites, a site's files, a file's
// revisions, a revision's content (the one that hands out contents asks first: see ContentConsent).
import * as vscode from 'vscode';
import { formatUtc } from '../../core/model/time';
import { confirmation, quoted, type Belonging, type ToolKit } from './kit';
import type { Site } from '../../core/api/types';
import {
  capContent,
  getRevisionInput,
  LIMITS,
  listFilesInput,
  listRevisionsInput,
  listSitesInput,
  result,
  siteSummary,
  ToolInputError,
  type GetRevisionInput,
  type ListFilesInput,
  type ListRevisionsInput,
  type ListSitesInput,
} from './results';
import { TOOL_NAMES } from '../history/names';

/** The tools that read one site or one file, by name. */
export function readTools(kit: ToolKit): [string, vscode.LanguageModelTool<object>][] {
  return [
    kit.tool(TOOL_NAMES.listSites, listSitesInput, () => vscode.l10n.t('Listing the sites of Site Revisions'), (i, s) => runListSites(kit, i, s)),
    kit.tool(TOOL_NAMES.listFiles, listFilesInput, (i) => vscode.l10n.t('Listing the files with revisions of site {0}', quoted(i.site)), (i, s) => runListFiles(kit, i, s)),
    kit.tool(TOOL_NAMES.listRevisions, listRevisionsInput, (i) => vscode.l10n.t('Listing the revisions of {0}', quoted(i.path)), (i, s) => runListRevisions(kit, i, s)),
    kit.tool(TOOL_NAMES.getRevision, getRevisionInput, (i, s) => prepareRevision(kit, i, s), (i, s) => runGetRevision(kit, i, s)),
  ];
}

async function prepareRevision(kit: ToolKit, i: GetRevisionInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
  const invocationMessage = vscode.l10n.t('Reading revision {0}', quoted(i.revisionId));
  const { seen } = await kit.look(i.site, undefined, signal);
  const name = quoted('site' in seen ? seen.site.name : seen.ref);
  const wants = () => kit.contentSentence(i.site, vscode.l10n.t('A language-model tool call wants the content of revision {0}{1} of the site {2}.', quoted(i.revisionId), i.path ? ` (${quoted(i.path)})` : '', name));
  const title = vscode.l10n.t('Hand out the content of revisions?');
  if (!('site' in seen)) return confirmation(invocationMessage, title, [wants()]);
  // Consent follows the content: is the revision one of this site's? (A preparation never fails: not knowing asks.)
  let belongs: Belonging = { kind: 'unknown' };
  try {
    if (i.revisionId) belongs = await kit.revisionOf(seen.site, i.revisionId, i.path, signal);
  } catch {
    // unknown: asked below
  }
  // Not a revision of that file, or no file of the site: the run says so and reads nothing.
  if (belongs.kind === 'notAFile' || belongs.kind === 'notListed') return { invocationMessage };
  if (belongs.kind === 'listed') return kit.mustAsk(seen) ? confirmation(invocationMessage, title, [wants()]) : { invocationMessage };
  return confirmation(invocationMessage, title, [...(kit.mustAsk(seen) ? [wants()] : []), kit.unlistedSentence(i.site, i.revisionId ?? '', name)]);
}

async function runListSites(kit: ToolKit, input: ListSitesInput, signal: AbortSignal): Promise<string> {
  const all = await kit.source.sites(signal);
  const filter = input.filter;
  // What a filter matches is what the result shows (a host without its user:password@).
  const sites = all.map(siteSummary).filter((s) => !filter || [s.name, s.host, s.serverType].some((v) => v.toLowerCase().includes(filter)));
  return result(`${sites.length} of the ${all.length} sites of the signed-in account${filter ? ` matching ${JSON.stringify(filter)}` : ''} (shared: another account shares the site, read-only).`, { sites });
}

async function runListFiles(kit: ToolKit, input: ListFilesInput, signal: AbortSignal): Promise<string> {
  const site = await kit.site(input.site, signal);
  const prefix = input.pathPrefix;
  const limit = input.limit;
  const all = await kit.source.files(site.id, signal);
  const matching = prefix ? all.filter((p) => p.replace(/^\/+/, '').startsWith(prefix)) : all;
  const files = [...matching].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).slice(0, limit);
  const more = matching.length - files.length;
  return result(
    `${matching.length} files with revisions on site ${JSON.stringify(site.name)} (id ${site.id})${prefix ? ` under ${JSON.stringify(prefix)}` : ''}; ${more > 0 ? `the first ${files.length} are listed (raise "limit" or narrow "pathPrefix" for more)` : 'all are listed'}.`,
    { site: { id: site.id, name: site.name }, total: matching.length, files },
  );
}

async function runListRevisions(kit: ToolKit, input: ListRevisionsInput, signal: AbortSignal): Promise<string> {
  const site = await kit.site(input.site, signal);
  if (!input.path) throw new ToolInputError('Give the file as "path", exactly as the list-files tool returned it.');
  // Only a file the site lists: a service that answers Get Revisions by the path alone would
  // otherwise list another site's revision ids under this one.
  const path = await kit.fileOf(site, input.path, signal);
  if (path === undefined) throw new ToolInputError(notAFile(input.path, site));
  const limit = input.limit;
  const all = await kit.source.revisions(site.id, path, signal);
  const revisions = all.slice(0, limit).map((r) => ({ id: r.id, date: r.time === undefined ? r.date : formatUtc(r.time), author: r.author }));
  return result(
    `${all.length} revisions of ${JSON.stringify(path)} on site ${JSON.stringify(site.name)} (id ${site.id}), newest first; dates in UTC; ${all.length > revisions.length ? `the newest ${revisions.length} are listed` : 'all are listed'}.`,
    { site: { id: site.id, name: site.name }, path, total: all.length, revisions },
  );
}

async function runGetRevision(kit: ToolKit, input: GetRevisionInput, signal: AbortSignal): Promise<string> {
  const site = await kit.site(input.site, signal);
  const id = input.revisionId;
  if (!id) throw new ToolInputError('Give the revision as "revisionId" (see the list-revisions tool).');
  // Consent follows the content: the revision must be one of this site's (or the user said yes to it for this call).
  const belongs = await kit.revisionOf(site, id, input.path, signal);
  if (belongs.kind === 'notAFile') throw new ToolInputError(`${notAFile(belongs.path, site)} No content was read.`);
  if (belongs.kind === 'notListed') throw new ToolInputError(`Revision ${JSON.stringify(id)} is not one of the revisions of ${JSON.stringify(belongs.path)} on site ${JSON.stringify(site.name)} (id ${site.id}); the list-revisions tool lists them. No content was read.`);
  if (belongs.kind === 'listed') kit.requireContentConsent(input.site, site);
  else kit.requireUnlistedConsent(input.site, id, site);
  const max = input.maxChars;
  const content = await kit.source.content(site.id, id, signal);
  const { text: shown, truncated } = capContent(content, max);
  const path = belongs.kind === 'listed' ? belongs.path : input.path;
  return result(
    `Content of revision ${id}${path ? ` of ${JSON.stringify(path)}` : ''} on site ${JSON.stringify(site.name)}: ${truncated ? `CUT after ${shown.length} of ${content.length} characters (raise "maxChars", up to ${LIMITS.contentChars.max}, for more)` : `complete, ${content.length} characters`}.`,
    { site: { id: site.id, name: site.name }, revisionId: id, ...(path ? { path } : {}), truncated, totalChars: content.length, content: shown },
  );
}

/** What a tool says of a path the site has no file of. */
function notAFile(path: string, site: Site): string {
  return `${JSON.stringify(path)} is not a file with revisions on site ${JSON.stringify(site.name)} (id ${site.id}); the list-files tool lists them, give the path exactly as it returns it.`;
}

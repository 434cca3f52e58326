// The language-model tools that read a whole site at once: a site as of a moment, and two sites
// compared (through src/core/asof). They list revisions, never hand out content.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { compareSites, momentText, MomentError, parseMoment, siteAsOf, type AtRevision } from '../../core/asof';
import { formatUtc } from '../../core/model/time';
import { confirmation, quoted, type SiteSeen, type ToolKit } from './kit';
import { compareSitesInput, result, siteAsOfInput, ToolInputError, type CompareSitesInput, type SiteAsOfInput } from './results';
import { TOOL_NAMES } from '../history/names';

/** A site as of a moment and the compare of two sites, by name. */
export function wholeSiteTools(kit: ToolKit): [string, vscode.LanguageModelTool<object>][] {
  return [
    kit.tool(TOOL_NAMES.siteAsOf, siteAsOfInput, (i, s) => prepareAsOf(kit, i, s), (i, s) => runSiteAsOf(kit, i, s)),
    kit.tool(TOOL_NAMES.compareSites, compareSitesInput, (i, s) => prepareCompare(kit, i, s), (i, s) => runCompareSites(kit, i, s)),
  ];
}

/** A site as of a moment lists revisions (no content): it asks as Site Changes does. */
async function prepareAsOf(kit: ToolKit, i: SiteAsOfInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
  const invocationMessage = vscode.l10n.t('Reading site {0} as of {1}', quoted(i.site), quoted(i.moment));
  const { seen, reads } = await kit.look(i.site, i.scope, signal);
  if (reads !== undefined && reads <= 1) return { invocationMessage };
  const name = quoted('site' in seen ? seen.site.name : seen.ref);
  return reads === undefined
    ? confirmation(invocationMessage, vscode.l10n.t('Read every file in the scope as of a moment?'), [
        vscode.l10n.t('The agent wants the revision lists of the files {0} of the site {1}, to know each file’s revision as of {2}; how many files that is could not be worked out. Each file costs one request unless its list is cached.', kit.where(i.scope), name, quoted(i.moment)),
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
async function prepareCompare(kit: ToolKit, i: CompareSitesInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
  const invocationMessage = vscode.l10n.t('Comparing site {0} with site {1}', quoted(i.site), quoted(i.other));
  const [a, b] = [await kit.look(i.site, i.scope, signal), await kit.look(i.other, i.otherScope, signal)];
  const name = (x: { seen: SiteSeen }) => quoted('site' in x.seen ? x.seen.site.name : x.seen.ref);
  const reads = a.reads === undefined || b.reads === undefined ? undefined : a.reads + b.reads;
  if (reads !== undefined && reads <= 1) return { invocationMessage };
  return confirmation(invocationMessage, reads === undefined ? vscode.l10n.t('Compare every file of two sites?') : vscode.l10n.t('Compare {0} files of two sites?', reads), [
    reads === undefined
      ? vscode.l10n.t('The agent wants to compare the files {0} of the site {1} with those {2} of the site {3}; how many files that is could not be worked out.', kit.where(i.scope), name(a), kit.where(i.otherScope), name(b))
      : vscode.l10n.t('The agent wants to compare {0} files of the site {1} with {2} files of the site {3}.', a.reads!, name(a), b.reads!, name(b)),
    vscode.l10n.t('It reads each file’s revision list, and the contents of the pairs that are not cached (one request each); the result says only which files differ, never their content.'),
  ]);
}

async function runSiteAsOf(kit: ToolKit, input: SiteAsOfInput, signal: AbortSignal): Promise<string> {
  const site = await kit.site(input.site, signal);
  const moment = momentOfInput(input.moment, 'the moment');
  const folder = input.scope.folder;
  const r = await siteAsOf({ reads: kit.asOf, siteId: site.id, ...(folder ? { folder } : {}), moment, signal });
  if (r.cancelled) throw new vscode.CancellationError();
  const { limit } = input;
  const files = r.files.slice(0, limit).map((f) => ({ path: f.path, ...revisionOf(f.revision) }));
  const notYet = r.notYet.slice(0, limit).map((f) => ({ path: f.path, first: revisionOf(f.first) }));
  return result(
    `Site ${JSON.stringify(site.name)} (id ${site.id})${folder ? ` under ${JSON.stringify(folder)}` : ''} as of ${momentText(moment, true)} UTC: ${r.files.length} of its ${r.total} files existed then, each with its newest revision at or before that moment${r.files.length > files.length ? ` (the first ${files.length} are listed: raise "limit" or narrow "folder")` : ''}; ${r.notYet.length} did not exist yet (their first revision is later)${r.undated ? `; ${r.undated} have no readable date` : ''}${r.failures.length ? `; ${r.failures.length} could not be read` : ''}. Dates in UTC. The get-revision tool gives a revision's content.`,
    { site: { id: site.id, name: site.name }, ...(folder ? { folder } : {}), moment: `${momentText(moment, true)} UTC`, total: r.files.length, files, notYet: { total: r.notYet.length, files: notYet } },
  );
}

async function runCompareSites(kit: ToolKit, input: CompareSitesInput, signal: AbortSignal): Promise<string> {
  const a = await kit.site(input.site, signal);
  if (!input.other) throw new ToolInputError('Give the other site as "otherSite" (its id or name).');
  const b = await kit.site(input.other, signal);
  const moment = input.moment ? momentOfInput(input.moment, 'the moment') : undefined;
  const side = (site: Site, folder: string | undefined) => ({ siteId: site.id, ...(folder ? { folder } : {}), ...(moment !== undefined ? { moment } : {}) });
  const c = await compareSites({ reads: kit.asOf, a: side(a, input.scope.folder), b: side(b, input.otherScope.folder), signal });
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

// The language-model tools of the working copy: a mapped folder's status and the history of lines
// (what they read: ./workingCopy.ts).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { formatUtc } from '../../core/model/time';
import { GROUPS } from '../../core/status';
import { confirmation, quoted, type SiteSeen, type ToolKit } from './kit';
import { folderStatusInput, lineHistoryInput, result, ToolInputError, type FolderStatusInput, type LineHistoryInput } from './results';
import { folderStatus, lineHistoryOf, lineTarget, mappingOf, notCached } from './workingCopy';
import { TOOL_NAMES } from '../history/names';

/** A mapped folder's status and the history of lines, by name. */
export function workingCopyTools(kit: ToolKit): [string, vscode.LanguageModelTool<object>][] {
  return [
    kit.tool(TOOL_NAMES.folderStatus, folderStatusInput, (i, s) => prepareStatus(kit, i, s), (i, s) => runFolderStatus(kit, i, s)),
    kit.tool(TOOL_NAMES.lineHistory, lineHistoryInput, (i, s) => prepareLineHistory(kit, i, s), (i, s) => runLineHistory(kit, i, s)),
  ];
}

/**
 * A folder's status hands out no content (paths, states, revision ids, dates, authors): it asks
 * when it would ask the service about more than one file (not cached), or when that cannot be
 * worked out.
 */
async function prepareStatus(kit: ToolKit, i: FolderStatusInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
  const invocationMessage = vscode.l10n.t('Reading the status of a mapped folder {0}', quoted(i.folder ?? i.site ?? ''));
  let sites: readonly Site[];
  try {
    sites = await kit.source.sites(signal);
  } catch {
    sites = [];
  }
  let reads: number | undefined;
  let where = quoted(i.folder ?? '');
  let name = quoted(i.site ?? '');
  try {
    const m = mappingOf(kit.working, sites, i);
    where = quoted(m.folder.scheme === 'file' ? m.folder.fsPath : m.folder.toString());
    name = quoted(m.site.name);
    reads = await notCached(kit.working, m.site.id);
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
async function prepareLineHistory(kit: ToolKit, i: LineHistoryInput, signal: AbortSignal): Promise<vscode.PreparedToolInvocation> {
  const lines = i.startLine === undefined ? '' : i.endLine !== undefined && i.endLine !== i.startLine ? `${i.startLine}–${i.endLine}` : String(i.startLine);
  const invocationMessage = vscode.l10n.t('Reading the history of lines {0} of {1}', lines, quoted(i.path));
  let seen: SiteSeen = { ref: i.site ?? '' };
  if (kit.session.state === 'signedIn') {
    try {
      seen = { site: (await lineTarget(kit.working, await kit.source.sites(signal), i)).site };
    } catch {
      // not worked out: asked about the site as given
    }
  }
  if (!kit.mustAsk(seen)) return { invocationMessage };
  const ref = i.site ?? ('site' in seen ? seen.site.id : '');
  const name = quoted('site' in seen ? seen.site.name : seen.ref);
  return confirmation(invocationMessage, vscode.l10n.t('Hand out the content of revisions?'), [
    kit.contentSentence(ref, vscode.l10n.t('A language-model tool call wants the history of lines {0} of {1} of the site {2}: the text of those lines in each revision that changed them.', lines, quoted(i.path), name)),
  ]);
}

async function runFolderStatus(kit: ToolKit, input: FolderStatusInput, signal: AbortSignal): Promise<string> {
  const sites = await kit.source.sites(signal);
  const m = mappingOf(kit.working, sites, input);
  const { status, offline, failed } = await folderStatus(kit.working, m, signal);
  const g = status.groups();
  const local = status.localOnly;
  const folder = m.folder.scheme === 'file' ? m.folder.fsPath : m.folder.toString();
  const files = (id: (typeof GROUPS)[number]) =>
    g[id].slice(0, input.limit).map((e) => ({ path: e.path, newest: e.newest ? { id: e.newest.id, date: e.newest.time === undefined ? e.newest.date : formatUtc(e.newest.time), author: e.newest.author } : null }));
  const cut = GROUPS.some((id) => g[id].length > input.limit);
  const notCompared = g.notCompared.slice(0, input.limit).map((e) => ({ path: e.path, why: e.working?.notCompared === 'tooLarge' ? 'working file too large' : e.working?.notCompared === 'unreadable' ? 'working file unreadable' : 'newest revision too large to read' }));
  return result(
    `Status of the folder ${JSON.stringify(folder)} mapped to site ${JSON.stringify(m.site.name)} (id ${m.site.id}): ${g.changedLocally.length} files changed locally (the working file differs from the newest revision on the service), ${g.newerOnService.length} newer on the service (its newest revision is newer than the working file and differs from it), ${g.onlyOnService.length} only on the service (no working file)${g.notCompared.length ? `, ${g.notCompared.length} not compared (a working file over 64 MiB or unreadable, or a newest revision too large to read)` : ''}; ${local.complete ? '' : 'more than '}${local.count} local files have no revision (not listed)${g.unknown ? `; ${g.unknown} files could not be checked${failed ? ' (the service failed)' : ''}` : ''}${offline ? '; the service could not be reached: this is the last known state' : ''}${cut ? `; the first ${input.limit} files of each group are listed (raise "limit" for more)` : ''}. Paths as the site stores them; dates in UTC.`,
    {
      site: { id: m.site.id, name: m.site.name },
      folder,
      offline,
      counts: { changedLocally: g.changedLocally.length, newerOnService: g.newerOnService.length, onlyOnService: g.onlyOnService.length, notCompared: g.notCompared.length, localFilesWithoutRevisions: local.count, notChecked: g.unknown },
      changedLocally: files('changedLocally'),
      newerOnService: files('newerOnService'),
      onlyOnService: files('onlyOnService'),
      notCompared,
    },
  );
}

async function runLineHistory(kit: ToolKit, input: LineHistoryInput, signal: AbortSignal): Promise<string> {
  const t = await lineTarget(kit.working, await kit.source.sites(signal), input);
  // Its result quotes the lines as each revision had them: revision contents.
  kit.requireContentConsent(input.site ?? t.site.id, t.site);
  const h = await lineHistoryOf(kit.working, t, input, signal);
  const lines = `${input.startLine}–${input.endLine ?? input.startLine}`;
  const from = t.working !== undefined ? 'as the working file has them' : t.revisionId !== undefined ? `as revision ${JSON.stringify(t.revisionId)} has them` : 'as the newest revision has them';
  return result(
    `History of lines ${lines} of ${JSON.stringify(t.path)} on site ${JSON.stringify(t.site.name)} (id ${t.site.id}), ${from}: the ${h.total} revisions that changed them, newest first${h.total > h.entries.length ? ` (the newest ${h.entries.length} are listed: raise "limit" for more)` : ''}, each with where the lines were in it and their text there. "change": changed; moved (a block moved from elsewhere); added (the revision added the lines: the history ends there); oldest (the oldest revision kept has them; they may be older); a working-file entry is a change not in any revision. Dates in UTC.`,
    { site: { id: t.site.id, name: t.site.name }, path: t.path, total: h.total, entries: h.entries },
  );
}

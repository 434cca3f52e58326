// The working copy for the language-model tools (read-only): the status of a mapped folder, and
// the history of lines of a file. They read through the revision store and the folder mapping the
// views use, with the status engine of the Source Control view (src/core/status) and the blame engine's
// line history (src/core/blame): what is cached costs no request.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { loadBlame } from '../../core/blame/load';
import { ignoresCase, locateSiteFiles } from '../revisions/locate';
import { FolderMapping } from '../revisions/mapping';
import { parseRevisionDate } from '../../core/model/ordering';
import { digest, type RevisionStore } from '../../core/model/revisionStore';
import { formatUtc } from '../../core/model/time';
import { FolderStatus, stateOf, type WorkingFile } from '../../core/status';
import { scanStatus, storeSource } from '../../core/status/scan';
import { DigestCache, nodeWorkingFs } from '../../core/status/working';
import { findSite, LIMITS, ToolInputError, type LineHistoryInput } from './results';

export interface WorkingCopy {
  folders: FolderMapping;
  store: RevisionStore;
}

/** Local files walked at most for the count of those with no revision. */
const WALK_MAX = 20_000;

const encoder = new TextEncoder();

/** A path an agent gives: a URI, an absolute path, or a path relative to the first workspace folder. */
function uriOf(p: string): vscode.Uri {
  if (/^[a-zA-Z][\w+.-]+:\/\//.test(p)) return vscode.Uri.parse(p, true);
  if (path.isAbsolute(p)) return vscode.Uri.file(p);
  const ws = vscode.workspace.workspaceFolders?.[0];
  if (!ws) throw new ToolInputError(`${JSON.stringify(p)} is a relative path and no folder is open: give an absolute path.`);
  return vscode.Uri.joinPath(ws.uri, ...p.split(/[\\/]+/).filter(Boolean));
}

const shown = (u: vscode.Uri) => (u.scheme === 'file' ? u.fsPath : u.toString());

/** The mapped folders, for an answer that says which there are. */
function mappedList(w: WorkingCopy, sites: readonly Site[]): string {
  const list = w.folders.mapped().map((m) => ({ site: sites.find((s) => s.id === m.siteId)?.name ?? m.siteId, folder: shown(m.folder) }));
  return list.length ? `Mapped folders: ${JSON.stringify(list)}` : 'No folder is mapped to a site (the user maps one with "Site Revisions: Map Site to Local Folder…").';
}

/** The mapped folder an agent names by the site, or by a path in it; with neither, the only one there is. */
export function mappingOf(w: WorkingCopy, sites: readonly Site[], input: { folder?: string | undefined; site?: string | undefined }): { site: Site; folder: vscode.Uri } {
  const site = (id: string) => sites.find((s) => s.id === id) ?? ({ id, name: `site ${id}` } as Site);
  if (input.site) {
    const s = findSite(sites, input.site);
    const folder = w.folders.get(s.id);
    if (!folder) throw new ToolInputError(`The site ${JSON.stringify(s.name)} (id ${s.id}) is not mapped to a local folder. ${mappedList(w, sites)}`);
    return { site: s, folder };
  }
  const mapped = w.folders.mapped().filter((m) => !w.folders.gone?.isGone(m.siteId));
  if (input.folder) {
    const uri = uriOf(input.folder);
    const inside = mapped.filter((m) => m.folder.toString() === uri.toString() || FolderMapping.contains(m.folder, uri)).sort((a, b) => b.folder.path.length - a.folder.path.length);
    if (!inside.length) throw new ToolInputError(`${JSON.stringify(input.folder)} is not inside a folder mapped to a site. ${mappedList(w, sites)}`);
    return { site: site(inside[0]!.siteId), folder: inside[0]!.folder };
  }
  if (mapped.length !== 1) throw new ToolInputError(`Give the mapped folder as "folder" (or its site as "site"). ${mappedList(w, sites)}`);
  return { site: site(mapped[0]!.siteId), folder: mapped[0]!.folder };
}

/**
 * How many files' newest revisions a status of the folder would ask the service for (not in
 * memory or on disk); undefined when the site's file list is not cached (it cannot be worked out).
 */
export async function notCached(w: WorkingCopy, siteId: string): Promise<number | undefined> {
  const files = await w.store.cachedSiteFiles(siteId);
  if (!files) return undefined;
  let n = 0;
  for (const f of files.files) {
    const list = await w.store.cachedRevisions(siteId, f.path);
    const newest = list?.items[0]?.item.id;
    if (!list || (newest !== undefined && (await w.store.cachedDigest(siteId, newest)) === undefined)) n++;
  }
  return n;
}

/** The folder's status: what is cached, then what is not asked for at background priority. Unsaved edits count as the editor has them. */
export async function folderStatus(w: WorkingCopy, m: { site: Site; folder: vscode.Uri }, signal: AbortSignal) {
  if (m.folder.scheme !== 'file') throw new ToolInputError(`The folder ${shown(m.folder)} is not on the local disk: its status is shown in the Source Control view only.`);
  const status = new FolderStatus(ignoresCase(m.folder));
  const digests = new DigestCache();
  const working = nodeWorkingFs(m.folder.fsPath);
  const edited = new Map<string, WorkingFile>();
  for (const d of vscode.workspace.textDocuments) {
    if (!d.isDirty || !FolderMapping.contains(m.folder, d.uri)) continue;
    const bytes = encoder.encode(d.getText());
    edited.set(d.uri.path.slice(m.folder.path.replace(/\/+$/, '').length + 1), { size: bytes.byteLength, mtime: Date.now(), digest: digest(bytes) });
  }
  const o = { signal, override: (relative: string) => edited.get(relative), walkMax: WALK_MAX };
  const cached = await scanStatus(status, storeSource(w.store, m.site.id, 'cached'), working, digests, o);
  const unknown = status
    .all()
    .filter((e) => stateOf(e) === 'unknown')
    .map((e) => e.path);
  // What the cache could not say is asked of the service; `offline` when it could not be reached then.
  const asked = cached.noList || unknown.length ? await scanStatus(status, storeSource(w.store, m.site.id, 'complete'), working, digests, { ...o, ...(cached.noList ? {} : { paths: unknown }), walkMax: 0 }) : undefined;
  return { status, offline: asked?.offline ?? false, failed: asked?.failed ?? 0 };
}

/** The site file and the text an agent's line history is about (a working file, or a site path at a revision). */
export async function lineTarget(w: WorkingCopy, sites: readonly Site[], input: LineHistoryInput): Promise<{ site: Site; path: string; working?: string; revisionId?: string }> {
  if (!input.path) throw new ToolInputError('Give the file as "path": a working file in a mapped folder, or (with "site") its path on the site.');
  if (input.site) return { site: findSite(sites, input.site), path: input.path, ...(input.revisionId ? { revisionId: input.revisionId } : {}) };
  const uri = uriOf(input.path);
  const found = await locateSiteFiles(uri, w.folders, (id) => w.store.siteFiles(id));
  if (found === 'unmapped') throw new ToolInputError(`${JSON.stringify(input.path)} is not inside a folder mapped to a site. ${mappedList(w, sites)}`);
  const f = found[0];
  if (!f) throw new ToolInputError(`${JSON.stringify(input.path)} has no revisions on the site mapped to its folder.`);
  const site = sites.find((s) => s.id === f.siteId) ?? ({ id: f.siteId, name: `site ${f.siteId}` } as Site);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  let working: string;
  try {
    working = doc ? doc.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    throw new ToolInputError(`The working file ${JSON.stringify(input.path)} cannot be read.`);
  }
  return { site, path: f.path, working };
}

/** The revisions that changed lines startLine–endLine (1-based) of the target, newest first, as a tool returns them. */
export async function lineHistoryOf(w: WorkingCopy, t: Awaited<ReturnType<typeof lineTarget>>, input: LineHistoryInput, signal: AbortSignal) {
  if (input.startLine === undefined) throw new ToolInputError('Give the first line as "startLine" (1-based; "endLine" is the last, default the same).');
  const [history, blame] = await Promise.all([w.store.allContents(t.site.id, t.path, { signal, priority: 'user' }), loadBlame()]);
  let revisions = history.filter((r) => r.content !== undefined).reverse();
  if (t.revisionId !== undefined) {
    const at = revisions.findIndex((r) => r.id === t.revisionId);
    if (at < 0) throw new ToolInputError(`Revision ${JSON.stringify(t.revisionId)} is not a revision of ${JSON.stringify(t.path)} (see the list-revisions tool).`);
    revisions = revisions.slice(0, at + 1);
  }
  const entries = await blame.lineHistory(
    revisions.map((r) => r.content!),
    { start: input.startLine - 1, end: input.endLine ?? input.startLine },
    { signal, ...(t.working !== undefined ? { working: t.working } : {}) },
  );
  return {
    total: entries.length,
    entries: entries.slice(0, input.limit).map((e) => {
      const r = e.revision === blame.LOCAL ? undefined : revisions[e.revision]!;
      const time = r && parseRevisionDate(r.date);
      const lines = e.lines.slice(0, LIMITS.linesPerRevision);
      return {
        revisionId: r ? r.id : null,
        date: r ? (time === undefined ? r.date : formatUtc(time)) : null,
        author: r ? r.author : null,
        change: e.revision === blame.LOCAL ? 'working file (not in any revision)' : e.change,
        lines: { start: e.range.start + 1, end: e.range.end },
        text: lines.join('\n'),
        ...(e.lines.length > lines.length ? { moreLines: e.lines.length - lines.length } : {}),
      };
    }),
  };
}

// Which site files a local working file is: the sites whose mapped folder contains it (deepest
// folder first), and on each, the revision path that names it — the exact path as Get Revision
// Files listed it (compared segment by segment, ignoring case where the file system does).
// Used by "Revisions of Active File", the scope of the search views and the editor features
// (blame, quick diff, alert).
import * as vscode from 'vscode';
import type { FolderModel } from '../../core/model/folders';
import type { FolderMapping } from './mapping';
import { safeSegments } from '../../core/model/safePath';

export interface SiteFile {
  siteId: string;
  /** The exact path the service sent. */
  path: string;
  /** The mapped folder the working file is in. */
  folder: vscode.Uri;
}

/**
 * The site files of a local file: 'unmapped' when no mapped folder contains it, otherwise one
 * entry per site that lists it (none when no site has revisions of it). `files(siteId)` gives
 * a site's file list (the store's: one request per site until a refresh). A mapped site whose
 * list fails because the account no longer lists it is skipped (mapping.gone); any other
 * failure is the caller's.
 */
export async function locateSiteFiles(uri: vscode.Uri, mapping: FolderMapping, files: (siteId: string) => Promise<FolderModel>): Promise<'unmapped' | SiteFile[]> {
  const matches = mapping.sitesContaining(uri);
  if (!matches.length) return 'unmapped';
  const out: SiteFile[] = [];
  for (const m of matches) {
    let model: FolderModel;
    try {
      model = await files(m.siteId);
    } catch (e) {
      const gone = mapping.gone;
      if (!gone || !(await gone.confirmGone(m.siteId, e))) throw e;
      gone.skipped(m.siteId, m.folder);
      continue;
    }
    for (const path of pathsOf(model, m.segments, ignoresCase(uri))) out.push({ siteId: m.siteId, path, folder: m.folder });
  }
  return out;
}

/** Whether names of a working file's file system ignore case (for comparing paths). */
export function ignoresCase(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' && (process.platform === 'win32' || process.platform === 'darwin');
}

/** The revision paths of a site's file list that name the working file at `segments` (relative to the mapped folder). */
export function pathsOf(model: FolderModel, segments: readonly string[], ci: boolean): string[] {
  const want = segments.join('/');
  const out: string[] = [];
  for (const f of model.files) {
    const s = safeSegments(f.path);
    if (!s.ok) continue;
    const got = s.segments.join('/');
    if (got === want || (ci && got.toLowerCase() === want.toLowerCase())) out.push(f.path);
  }
  return out;
}

// What a search or a Site Changes scan covers, as the commands receive it: a file or a folder
// node of the Sites view's revisions tree, a site node, a local file or folder (Explorer, editor
// title) inside a mapped folder, or nothing (the active editor's file, else a site to pick).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { RevisionsApi } from '../revisions';
import { FileNode, fileName, FolderNode } from '../revisions/nodes';
import { SiteNode } from '../sites/sitesTree';
import { inform, message, plain } from '../../workbench/messages';
import { displayText } from '../../core/util/text';

export interface ViewScope {
  site: Site;
  /** One file (its exact path). */
  file?: string;
  /** A folder of the revisions tree (its key: display segments joined with `/`). */
  folder?: string;
}

/** `index.html — Marketing Drive`, `campaigns/autumn — Marketing Drive`, `Marketing Drive`. */
export function scopeLabel(s: ViewScope): string {
  const site = displayText(s.site.name) || s.site.id;
  if (s.file !== undefined) return vscode.l10n.t('{0} — {1}', fileName(s.file), site);
  if (s.folder) return vscode.l10n.t('{0} — {1}', displayText(s.folder), site);
  return site;
}

/**
 * The scope of a command's argument; undefined when the user cancelled or nothing fits (the user
 * was told). `allowFile`: Site Changes works on sites and folders only.
 */
export async function scopeOf(arg: unknown, revisions: RevisionsApi, allowFile: boolean): Promise<ViewScope | undefined> {
  const cmds = revisions.commands;
  if (arg instanceof FileNode) return allowFile ? { site: arg.site, file: arg.path } : { site: arg.site };
  if (arg instanceof FolderNode) return { site: arg.site, folder: arg.folder.key };
  if (arg instanceof SiteNode) return { site: arg.site };
  if (arg && typeof arg === 'object' && 'site' in arg && !(arg instanceof vscode.Uri)) {
    const s = arg as Partial<ViewScope>;
    if (s.site?.id) return { site: s.site, ...(s.file !== undefined && allowFile ? { file: s.file } : {}), ...(s.folder ? { folder: s.folder } : {}) };
  }
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  if (uri && uri.scheme !== 'untitled') {
    const local = await localScope(uri, revisions, allowFile, arg instanceof vscode.Uri);
    if (local) return local;
    if (arg instanceof vscode.Uri) return undefined;
  }
  const site = await cmds.siteOf(undefined, allowFile ? vscode.l10n.t('Site whose history to search') : vscode.l10n.t('Site whose changes to list'));
  return site && { site };
}

/** A revision document, or a local file or folder inside a mapped folder. */
async function localScope(uri: vscode.Uri, revisions: RevisionsApi, allowFile: boolean, tell: boolean): Promise<ViewScope | undefined> {
  const rev = revisions.parseRevisionUri(uri);
  if (rev) {
    const site = await revisions.controller.site(rev.siteId);
    return site && (allowFile ? { site, file: rev.path } : { site });
  }
  let isFolder = false;
  try {
    isFolder = ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
  } catch {
    // a file that no longer exists locally: its revisions may still be there
  }
  if (isFolder) {
    const mapped = revisions.folders.mapped().find((m) => m.folder.toString() === uri.toString());
    if (mapped) {
      const site = await revisions.controller.site(mapped.siteId);
      if (site) return { site };
    }
    const inside = revisions.folders.sitesContaining(uri)[0];
    const site = inside && (await revisions.controller.site(inside.siteId));
    if (site && inside) return { site, folder: inside.segments.join('/') };
  } else {
    const found = await revisions.commands.findFile(uri);
    if (found !== 'unmapped' && found.length) {
      const target = found[0]!;
      return allowFile ? { site: target.site, file: target.path } : { site: target.site };
    }
    if (found !== 'unmapped' && tell) {
      inform(message('No revisions of {0} are stored on the mapped site.', plain(fileName(uri.path))));
      return undefined;
    }
  }
  if (tell) inform(message('{0} is not inside a folder mapped to a site.', plain(uri.scheme === 'file' ? uri.fsPath : uri.toString(true))));
  return undefined;
}

// What a transfer command acts on, from whatever it was run on: the Explorer (a file or folder of
// a mapped folder, or several selected), the editor (its file: a working file or a live file), the
// Sites view (a site: its whole folder; a Live Files row), the Source Control view (a file of a
// group, several, or a whole group), or the palette (the active editor's file).
import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { SitesModel } from '../sites/sitesModel';
import type { FolderMapping } from '../revisions/mapping';
import { LIVE_SCHEME, parseLiveUriComponents } from '../live/address';

/** A file or folder of a site, by its root-relative path ('' the whole site). */
export interface Target {
  site: Site;
  path: string;
  isFolder: boolean;
  /** Where it was named: a working file or folder, or a live one. */
  side: 'local' | 'live';
}

export interface TargetDeps {
  model: SitesModel;
  folders: FolderMapping;
  /** The live feature's account tag (a live URI of another account names nothing). */
  account(): string | undefined;
}

/** The arguments a command gets, flattened: (uri, uris[]) from the Explorer, states from Source Control, a group's states. */
function flatten(args: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const a of args) {
    if (Array.isArray(a)) out.push(...a);
    else if (a && typeof a === 'object' && Array.isArray((a as { resourceStates?: unknown }).resourceStates)) out.push(...(a as { resourceStates: unknown[] }).resourceStates);
    else out.push(a);
  }
  return out;
}

async function isDir(uri: vscode.Uri): Promise<boolean> {
  if (uri.scheme === 'file') return (await fsp.stat(uri.fsPath).catch(() => undefined))?.isDirectory() ?? false;
  return ((await Promise.resolve(vscode.workspace.fs.stat(uri)).catch(() => undefined))?.type ?? 0) & vscode.FileType.Directory ? true : false;
}

/** One argument as a target (undefined when it names nothing this feature can transfer). */
export async function targetOf(arg: unknown, d: TargetDeps): Promise<Target | undefined> {
  if (!arg || typeof arg !== 'object') return undefined;
  const x = arg as Record<string, unknown>;
  // A Sites view row: a site, or a Live Files row (duck-typed: those classes load with the live feature).
  if (x.site && typeof x.site === 'object' && typeof (x.site as Site).id === 'string') {
    const site = x.site as Site;
    if ('siteNode' in x) return { site, path: '', isFolder: true, side: 'live' };
    const entry = x.entry as { type?: string; path?: string; link?: { targetType?: string } } | undefined;
    if (entry && typeof entry.path === 'string') return { site, path: entry.path, isFolder: entry.type === 'dir' || (entry.type === 'symlink' && entry.link?.targetType === 'dir'), side: 'live' };
    if (!('path' in x) || x.path === undefined) return { site, path: '', isFolder: true, side: 'local' };
    // A Source Control resource (its `ref`) or a revisions row of the Sites view.
  }
  const ref = x.ref as { site?: Site; path?: string } | undefined;
  const uri = arg instanceof vscode.Uri ? arg : x.resourceUri instanceof vscode.Uri ? x.resourceUri : undefined;
  if (uri) {
    const live = uri.scheme === LIVE_SCHEME ? parseLiveUriComponents(uri.authority, uri.path, uri.query) : undefined;
    if (live) {
      if (live.account !== d.account()) return undefined;
      const site = d.model.find(live.siteId);
      return site && { site, path: live.path, isFolder: await isDir(uri), side: 'live' };
    }
    const inside = d.folders.sitesContaining(uri)[0];
    if (inside) {
      const site = d.model.find(inside.siteId);
      if (site) return { site, path: inside.segments.join('/'), isFolder: await isDir(uri), side: 'local' };
    }
    if (ref?.site && typeof ref.path === 'string') return { site: ref.site, path: ref.path.replace(/^\/+/, ''), isFolder: false, side: 'local' };
    // A workspace folder that IS a mapped folder.
    for (const m of d.folders.mapped()) {
      if (m.folder.toString() === uri.toString()) {
        const site = d.model.find(m.siteId);
        if (site) return { site, path: '', isFolder: true, side: 'local' };
      }
    }
  }
  return undefined;
}

/** Every target a command's arguments name (the active editor's file when they name none). */
export async function targetsOf(args: unknown[], d: TargetDeps): Promise<Target[]> {
  const flat = flatten(args).filter((a) => a !== undefined && a !== null);
  if (!flat.length) {
    const uri = vscode.window.activeTextEditor?.document.uri;
    if (uri) flat.push(uri);
  }
  const out: Target[] = [];
  for (const a of flat) {
    const t = await targetOf(a, d);
    if (t && !out.some((o) => o.site.id === t.site.id && o.path === t.path)) out.push(t);
  }
  // A folder and a file inside it: the folder covers it.
  return out.filter((t) => !out.some((o) => o !== t && o.site.id === t.site.id && o.isFolder && (o.path === '' || t.path.startsWith(`${o.path}/`))));
}

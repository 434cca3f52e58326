// Which local folder holds the working files of each site: asked once (a pick of the workspace
// folders, the first one first, or any other folder), remembered per workspace
// (workspaceState) and per account, changeable with "Map Site to Local Folder…".
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { translate } from '../../workbench/l10n';
import { displayText } from '../../core/util/text';
import { isInside, joinInside, quotePath, relativeSegments, restoreRefusal, safeSegments } from '../../core/model/safePath';
import { Disposable } from '../../core/util/disposable';

const STATE_KEY = 'siteRevisions.folderMappings';

export type WorkingFile = { ok: true; uri: vscode.Uri; folder: vscode.Uri } | { ok: false; reason: string };

/** The mappings of sites the account no longer lists (goneSites.ts). */
export interface GoneMappings {
  /** Known to be gone (no request). */
  isGone(siteId: string): boolean;
  /** After `failure` of a request about the site: whether the account no longer lists it (asks the service). */
  confirmGone(siteId: string, failure: unknown): Promise<boolean>;
  /** A mapping was skipped because its site is gone (offers to forget it, once). */
  skipped(siteId: string, folder: vscode.Uri): void;
}

/** File systems whose names ignore case by default (for "is this file inside that folder"). */
function caseInsensitive(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' && (process.platform === 'win32' || process.platform === 'darwin');
}

export class FolderMapping extends Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<string>();
  /** Fires with the site id whose folder changed. */
  readonly onDidChange = this._onDidChange.event;
  /** Set by the revisions feature: mappings of sites that are gone are skipped. */
  gone: GoneMappings | undefined;

  constructor(
    private readonly state: vscode.Memento,
    /** Identifies the signed-in account: site ids are only unique within one service and user. */
    private readonly account: () => string | undefined,
  ) {
    super();
    this.own(this._onDidChange);
  }

  private key(siteId: string): string | undefined {
    const acc = this.account();
    return acc ? `${acc}#${siteId}` : undefined;
  }

  private all(): Record<string, string> {
    return { ...(this.state.get<Record<string, string>>(STATE_KEY) ?? {}) };
  }

  /** The folder mapped to a site in this workspace, if any. */
  get(siteId: string): vscode.Uri | undefined {
    const k = this.key(siteId);
    const s = k ? this.all()[k] : undefined;
    if (!s) return undefined;
    try {
      return vscode.Uri.parse(s, true);
    } catch {
      return undefined;
    }
  }

  async set(siteId: string, folder: vscode.Uri | undefined): Promise<void> {
    const k = this.key(siteId);
    if (!k) throw new Error(vscode.l10n.t('Sign in before mapping a site to a folder.'));
    const all = this.all();
    if (folder) all[k] = folder.toString();
    else delete all[k];
    await this.state.update(STATE_KEY, all);
    this._onDidChange.fire(siteId);
  }

  /** Site ids of the current account with a mapped folder. */
  mapped(): { siteId: string; folder: vscode.Uri }[] {
    const acc = this.account();
    if (!acc) return [];
    const out: { siteId: string; folder: vscode.Uri }[] = [];
    for (const [k, v] of Object.entries(this.all())) {
      if (!k.startsWith(`${acc}#`)) continue;
      try {
        out.push({ siteId: k.slice(acc.length + 1), folder: vscode.Uri.parse(v, true) });
      } catch {
        // a damaged entry: ignored
      }
    }
    return out;
  }

  /**
   * Asks for the folder of a site: the workspace folders (the first one first), then "Choose
   * Another Folder…" (a folder dialog that opens on the first workspace folder). Saves and
   * returns the choice; undefined when the user cancels.
   */
  async ask(site: Site, reason?: string): Promise<vscode.Uri | undefined> {
    const current = this.get(site.id);
    const ws = vscode.workspace.workspaceFolders ?? [];
    type Item = vscode.QuickPickItem & { uri?: vscode.Uri; browse?: boolean };
    const items: Item[] = ws.map((f, i) => ({
      label: `$(root-folder) ${f.name}`,
      description: f.uri.scheme === 'file' ? f.uri.fsPath : f.uri.toString(),
      detail: [i === 0 ? vscode.l10n.t('First workspace folder') : '', current?.toString() === f.uri.toString() ? vscode.l10n.t('Current mapping') : ''].filter(Boolean).join(' · ') || undefined,
      uri: f.uri,
    }));
    if (current && !ws.some((f) => f.uri.toString() === current.toString())) {
      items.unshift({ label: `$(folder) ${current.path.split('/').pop() || current.path}`, description: current.scheme === 'file' ? current.fsPath : current.toString(), detail: vscode.l10n.t('Current mapping'), uri: current });
    }
    items.push({ label: `$(folder-opened) ${vscode.l10n.t('Choose Another Folder…')}`, browse: true });
    const name = displayText(site.name || site.id);
    let chosen: vscode.Uri | undefined;
    if (ws.length === 0 && !current) {
      chosen = await this.browse(name, undefined);
    } else {
      const pick = await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t('Local folder of “{0}”', name),
        placeHolder: reason ?? vscode.l10n.t('Which local folder holds the working files of “{0}”? Revision paths are resolved inside it.', name),
        ignoreFocusOut: true,
      });
      if (!pick) return undefined;
      chosen = pick.browse ? await this.browse(name, current ?? ws[0]?.uri) : pick.uri;
    }
    if (!chosen) return undefined;
    await this.set(site.id, chosen);
    return chosen;
  }

  private async browse(name: string, defaultUri: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      ...(defaultUri ? { defaultUri } : {}),
      openLabel: vscode.l10n.t('Map Folder'),
      title: vscode.l10n.t('Local folder of “{0}”', name),
    });
    return picked?.[0];
  }

  /** The mapped folder, asking once when there is none (undefined: the user cancelled). */
  async ensure(site: Site, reason?: string): Promise<vscode.Uri | undefined> {
    return this.get(site.id) ?? (await this.ask(site, reason));
  }

  /**
   * The working file of a revision path inside a folder. Refuses (with a message naming the path)
   * anything that could leave the folder: see safeSegments.
   */
  static resolve(folder: vscode.Uri, rawPath: string): WorkingFile {
    const safe = safeSegments(rawPath, translate);
    if (!safe.ok) return { ok: false, reason: safe.reason };
    const leaves = () => vscode.l10n.t('The revision path {0} would leave the local folder, so it is refused.', quotePath(rawPath));
    const joined = joinInside(folder.path, safe.segments);
    if (!joined) return { ok: false, reason: leaves() };
    const uri = folder.with({ path: joined });
    if (!FolderMapping.contains(folder, uri)) return { ok: false, reason: leaves() };
    return { ok: true, uri, folder };
  }

  /**
   * `resolve`, and for local files also that no symbolic link inside the folder leads the path
   * out of it: what every restore and compare checks before it touches a working file.
   */
  static resolveWorkingFile(folder: vscode.Uri, rawPath: string): WorkingFile {
    const w = FolderMapping.resolve(folder, rawPath);
    if (w.ok && !realPathBelow(w.folder, w.uri)) {
      return { ok: false, reason: vscode.l10n.t('The revision path {0} leads outside the local folder through a symbolic link, so it is refused.', quotePath(rawPath)) };
    }
    return w;
  }

  /**
   * `resolveWorkingFile` for a restore, which writes: also refuses a path into `.git` or
   * `.vscode` (restoreRefusal), as sent or as a symbolic link inside the folder resolves it.
   */
  static resolveRestoreTarget(folder: vscode.Uri, rawPath: string): WorkingFile {
    const w = FolderMapping.resolveWorkingFile(folder, rawPath);
    if (!w.ok) return w;
    const sent = safeSegments(rawPath);
    const real = realPathBelow(w.folder, w.uri);
    const why = (sent.ok && restoreRefusal(rawPath, sent.segments, translate)) || (Array.isArray(real) && restoreRefusal(rawPath, real, translate));
    return why ? { ok: false, reason: why } : w;
  }

  /** Whether `uri` is strictly inside `folder` (same scheme and authority, path below). */
  static contains(folder: vscode.Uri, uri: vscode.Uri): boolean {
    return folder.scheme === uri.scheme && folder.authority.toLowerCase() === uri.authority.toLowerCase() && isInside(folder.path, uri.path, caseInsensitive(folder));
  }

  /**
   * The sites whose mapped folder contains a local file, deepest folder first, with the file's
   * path relative to that folder (as segments). A site known to be gone is skipped (see `gone`).
   */
  sitesContaining(file: vscode.Uri): { siteId: string; folder: vscode.Uri; segments: string[] }[] {
    const out: { siteId: string; folder: vscode.Uri; segments: string[] }[] = [];
    for (const { siteId, folder } of this.mapped()) {
      if (folder.scheme !== file.scheme || folder.authority.toLowerCase() !== file.authority.toLowerCase()) continue;
      const segments = relativeSegments(folder.path, file.path, caseInsensitive(folder));
      if (!segments) continue;
      if (this.gone?.isGone(siteId)) this.gone.skipped(siteId, folder);
      else out.push({ siteId, folder, segments });
    }
    return out.sort((a, b) => b.folder.path.length - a.folder.path.length);
  }
}

/**
 * For local files: the deepest existing ancestor of `uri`, with links resolved, and the rest of
 * its path, as segments below the folder's real path; false when that leads out of the folder.
 * Not a local file, or the folder itself missing (nothing can be followed out of it): true.
 */
function realPathBelow(folder: vscode.Uri, uri: vscode.Uri): string[] | boolean {
  if (folder.scheme !== 'file' || uri.scheme !== 'file') return true;
  const ci = process.platform === 'win32' || process.platform === 'darwin';
  let root: string;
  try {
    root = fs.realpathSync.native(folder.fsPath).replace(/\\/g, '/');
  } catch {
    return true;
  }
  let p = uri.fsPath;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = fs.realpathSync.native(p).replace(/\\/g, '/');
      if (real !== root && !isInside(root, real, ci)) return false;
      return [...(relativeSegments(root, real, ci) ?? []), ...rest];
    } catch {
      const m = /[\\/]([^\\/]*)$/.exec(p);
      const parent = m ? p.slice(0, m.index) : '';
      if (!parent || parent === p) return false;
      rest.unshift(m![1]!);
      p = parent;
    }
  }
}

// Export Sites…: one site, several or all → vscode-sftp's sftp.json in a mapped folder's .vscode,
// or a FileZilla XML file. Passwords only when the user ticks "include passwords", after a
// warning; a shared site's passwords (its owner's) never. The file is written 0600, atomically.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import { exportFileZilla, exportSftpJson, writePrivateFile } from '../../core/siteImport/export';
import { translate } from '../../workbench/l10n';
import { message, plain, showInfo, showWarning } from '../../workbench/messages';
import { SiteNode } from '../sites/sitesTree';
import type { SiteImportDeps } from './index';

/** What a test (or a caller) may decide in advance instead of the pickers. */
export interface ExportArgs {
  siteIds?: string[];
  format?: 'sftp.json' | 'filezilla';
  includePasswords?: boolean;
  /** The file to write (skips the folder or save dialog). */
  target?: vscode.Uri;
}

function isArgs(x: unknown): x is ExportArgs {
  return !!x && typeof x === 'object' && !(x instanceof SiteNode) && !Array.isArray(x);
}

const shown = (s: string) => displayText(s).replace(/\$\(/g, '$\u200b(');

/** The export; resolves with the file written, undefined when nothing was. */
export async function exportSites(deps: SiteImportDeps, arg?: unknown, all?: unknown): Promise<vscode.Uri | undefined> {
  const { model, folders, log, session } = deps;
  if (session.state !== 'signedIn') {
    background('Saying export needs a sign-in', showInfo(message('Sign in to Site Revisions first: the sites exported are those of your account.')));
    return undefined;
  }
  const args: ExportArgs = isArgs(arg) ? arg : {};
  // The sites: the selection of the Sites view, the ids given, or a pick (all ticked).
  const list = await model.all();
  let chosen: Site[] = [];
  if (args.siteIds) chosen = list.filter((s) => args.siteIds!.includes(s.id));
  else {
    const nodes = (Array.isArray(all) ? all : arg instanceof SiteNode ? [arg] : []).filter((n): n is SiteNode => n instanceof SiteNode);
    if (arg instanceof SiteNode && !nodes.includes(arg)) nodes.unshift(arg);
    chosen = nodes.map((n) => n.site);
  }
  if (!chosen.length) {
    const picks = await vscode.window.showQuickPick(
      [...list].sort((a, b) => a.name.localeCompare(b.name)).map((s) => ({ label: shown(s.name), description: shown([s.server_type, s.domain].filter(Boolean).join(' · ')), picked: true, site: s })),
      { canPickMany: true, title: vscode.l10n.t('Export Sites: which sites?'), placeHolder: vscode.l10n.t('Every site is ticked: untick those not to export') },
    );
    chosen = picks?.map((p) => p.site) ?? [];
  }
  if (!chosen.length) return undefined;

  let format = args.format;
  if (!format) {
    const pick = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('sftp.json for a mapped folder'), description: 'vscode-sftp', detail: vscode.l10n.t('FTP and SFTP sites; several become profiles of one file'), format: 'sftp.json' as const },
        { label: vscode.l10n.t('FileZilla XML file'), description: 'FileZilla', detail: vscode.l10n.t('FileZilla’s Site Manager imports it (File › Import…)'), format: 'filezilla' as const },
      ],
      { title: vscode.l10n.t('Export {0} sites: which format?', chosen.length) },
    );
    format = pick?.format;
  }
  if (!format) return undefined;

  let includePasswords = args.includePasswords;
  if (includePasswords === undefined) {
    const without = vscode.l10n.t('Without passwords');
    const withThem = vscode.l10n.t('Include passwords');
    const pick = await vscode.window.showQuickPick(
      [
        { label: without, detail: vscode.l10n.t('The tool asks for each password when it connects') },
        { label: withThem, detail: vscode.l10n.t('Written in the file as the tool stores them (readable, not encrypted): anyone who can read the file can sign in') },
      ],
      { title: vscode.l10n.t('Export: passwords?') },
    );
    if (!pick) return undefined;
    includePasswords = pick.label === withThem;
    if (includePasswords) {
      const write = vscode.l10n.t('Write Passwords');
      const ok = await showWarning(
        message('Write the passwords of {0} sites into the file?', chosen.length),
        { modal: true, detail: message('They are stored as the tool stores them, not encrypted. The file is made readable by you only, but a copy, a backup or a commit of it carries them. Passwords of sites shared with you are never written.') },
        write,
      );
      if (ok !== write) return undefined;
    }
  }
  // Passwords come from the service now (the list on disk has none); never those of shared sites.
  if (includePasswords) {
    const fresh = await model.current();
    chosen = chosen.map((s) => fresh.find((f) => f.id === s.id) ?? s).map((s) => (s.shared ? { ...s, ftp_pass: '', db_password: '' } : s));
  }

  let target = args.target;
  if (!target && format === 'sftp.json') {
    const mapped = folders.mapped();
    if (!mapped.length) {
      background('Saying there is no mapped folder', showInfo(message('No site is mapped to a folder here: map one with “Map Site to Local Folder…”, or export a FileZilla XML file.')));
      return undefined;
    }
    const first = mapped.find((m) => chosen.some((s) => s.id === m.siteId)) ?? mapped[0]!;
    const picks = mapped.map((m) => ({ label: shown(path.basename(m.folder.fsPath || m.folder.path)), description: shown(m.folder.fsPath || m.folder.toString()), detail: shown(list.find((s) => s.id === m.siteId)?.name ?? m.siteId), folder: m.folder }));
    picks.sort((a, b) => (a.folder.toString() === first.folder.toString() ? -1 : b.folder.toString() === first.folder.toString() ? 1 : 0));
    const pick = picks.length === 1 ? picks[0] : await vscode.window.showQuickPick(picks, { title: vscode.l10n.t('Export: sftp.json of which folder?') });
    if (!pick) return undefined;
    target = vscode.Uri.joinPath(pick.folder, '.vscode', 'sftp.json');
  } else if (!target) {
    const base = vscode.workspace.workspaceFolders?.[0]?.uri;
    target = await vscode.window.showSaveDialog({ title: vscode.l10n.t('Export Sites as a FileZilla XML File'), filters: { 'FileZilla XML': ['xml'] }, ...(base ? { defaultUri: vscode.Uri.joinPath(base, 'FileZilla.xml') } : {}) });
  }
  if (!target) return undefined;
  if (target.scheme !== 'file') {
    background('Saying where an export can go', showWarning(message('Exports are written to a folder on this computer: choose one there.')));
    return undefined;
  }
  const result = format === 'sftp.json' ? exportSftpJson(chosen, { includePasswords }, translate) : exportFileZilla(chosen, { includePasswords }, translate);
  if (!result.written) {
    background('Saying nothing could be exported', showWarning(message('Nothing was written: {0}', plain(result.notes.join(' ')))));
    return undefined;
  }
  if (format === 'sftp.json' && !args.target) {
    const exists = await vscode.workspace.fs.stat(target).then(
      () => true,
      () => false,
    );
    if (exists) {
      const replace = vscode.l10n.t('Replace');
      if ((await showWarning(message('{0} exists. Replace it?', plain(target.fsPath)), { modal: true }, replace)) !== replace) return undefined;
    }
  }
  await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(target.fsPath)));
  await writePrivateFile(target.fsPath, result.text);
  log.info(`Export: ${result.written} sites written to ${target.fsPath} (${format}, ${includePasswords ? 'with' : 'without'} passwords)${result.notes.length ? `; ${result.notes.join('; ')}` : ''}`);
  const open = vscode.l10n.t('Open File');
  const said = result.notes.length ? message('Exported {0} sites to {1}. Not written: {2}', result.written, plain(path.basename(target.fsPath)), plain(result.notes.join(' '))) : message('Exported {0} sites to {1}.', result.written, plain(path.basename(target.fsPath)));
  background(
    'Offering to open the export',
    Promise.resolve(showInfo(said, open)).then(async (pick) => {
      if (pick === open) await vscode.window.showTextDocument(target);
    }),
  );
  return target;
}

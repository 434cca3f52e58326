// Commands of the Sites view: refresh, filter, create, edit, duplicate, delete, open web URL,
// copy details.
import * as vscode from 'vscode';
import type { Site } from '../api/types';
import type { Session } from '../auth/session';
import type { Notifier } from '../ui/notify';
import { openSiteEditor, type SiteEditorHandle } from './siteEditor';
import type { SitesModel } from './sitesModel';
import { SiteNode } from './sitesTree';

export interface SiteCommandDeps {
  extensionUri: vscode.Uri;
  session: Session;
  model: SitesModel;
  notifier: Notifier;
  /** Called after a save or delete with the site id concerned. */
  onSaved?: (siteId: string) => void;
}

/** Test hook: the last editor opened by a command. */
export const editors: { last?: SiteEditorHandle } = {};

/** Resolves the site a command was invoked on: a tree node, a site id, or (palette) a pick. */
async function siteArg(model: SitesModel, arg: unknown, placeHolder: string): Promise<Site | undefined> {
  if (arg instanceof SiteNode) return arg.site;
  if (typeof arg === 'string') return model.find(arg) ?? (await model.all()).find((s) => s.id === arg);
  const sites = await model.visibleSites();
  const pick = await vscode.window.showQuickPick(
    sites.map((s) => ({ label: s.name, description: [s.server_type, s.domain].filter(Boolean).join(' · '), site: s })),
    { placeHolder, matchOnDescription: true },
  );
  return pick?.site;
}

/** Site details for the clipboard: every non-empty field except the secrets. */
export function siteDetailsText(site: Site): string {
  const lines = [`Name: ${site.name}`];
  const fields: [string, string][] = [
    ['Type', site.server_type],
    ['Host', site.domain],
    ['Port', site.port],
    ['User', site.ftp_user],
    ['Authentication', site.logon_type === 'key' ? 'key' : ''],
    ['Directory', site.dir],
    ['Web URL', site.web_url],
    ['Encoding', site.encoding],
    ['Passive mode', site.pasv === '1' ? 'yes' : ''],
    ['Encryption', site.encryption === '1' ? 'yes' : ''],
    ['Database user', site.db_username],
    ['Database admin', site.db_phpmyadmin],
    ['Shared', site.shared ? 'yes' : ''],
  ];
  for (const [k, v] of fields) if (v) lines.push(`${k}: ${v}`);
  return lines.join('\n');
}

export function isWebUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

export function registerSiteCommands(deps: SiteCommandDeps): vscode.Disposable[] {
  const { session, model, notifier, extensionUri } = deps;
  const watched = new WeakSet<SiteEditorHandle>();

  const openEditor = (mode: 'create' | 'edit' | 'duplicate', site?: Site) => {
    const handle = openSiteEditor(extensionUri, {
      mode,
      ...(site ? { site } : {}),
      save: (fields) =>
        mode === 'edit' && site ? session.call((c) => c.updateSite(site.id, fields)) : session.call((c) => c.createSite(fields)),
    });
    editors.last = handle;
    // Editing a site that is already open reveals the same panel: attach the handler once.
    if (watched.has(handle)) return handle;
    watched.add(handle);
    void handle.done.then((r) => {
      if (!r) return;
      model.refresh();
      deps.onSaved?.(r.siteId);
    });
    return handle;
  };

  return [
    vscode.commands.registerCommand('siteRevisions.refresh', () => model.refresh()),
    vscode.commands.registerCommand('siteRevisions.filterSites', async (value?: string) => {
      const f = typeof value === 'string' ? value : await vscode.window.showInputBox({
        title: 'Filter Sites',
        prompt: 'Show sites whose name, host, type, directory or web URL contains…',
        value: model.filter,
      });
      if (f !== undefined) model.setFilter(f);
    }),
    vscode.commands.registerCommand('siteRevisions.clearFilter', () => model.setFilter('')),
    vscode.commands.registerCommand('siteRevisions.createSite', () => openEditor('create')),
    vscode.commands.registerCommand('siteRevisions.editSite', async (arg?: unknown) => {
      const site = await siteArg(model, arg, 'Site to edit');
      return site && openEditor('edit', site);
    }),
    vscode.commands.registerCommand('siteRevisions.duplicateSite', async (arg?: unknown) => {
      const site = await siteArg(model, arg, 'Site to duplicate');
      return site && openEditor('duplicate', site);
    }),
    vscode.commands.registerCommand('siteRevisions.deleteSite', async (arg?: unknown) => {
      const site = await siteArg(model, arg, 'Site to delete');
      if (!site) return false;
      const choice = await vscode.window.showWarningMessage(
        `Delete the site “${site.name}”?`,
        { modal: true, detail: 'The site and its revision history are deleted on the service. Files on your computer are not touched.' },
        'Delete',
      );
      if (choice !== 'Delete') return false;
      try {
        await vscode.window.withProgress({ location: { viewId: 'siteRevisions.sites' } }, () => session.call((c) => c.deleteSite(site.id)));
      } catch (e) {
        void notifier.error(`Could not delete “${site.name}”`, e);
        return false;
      }
      model.refresh();
      deps.onSaved?.(site.id);
      return true;
    }),
    vscode.commands.registerCommand('siteRevisions.openWebUrl', async (arg?: unknown) => {
      const site = await siteArg(model, arg, 'Site whose web URL to open');
      if (!site) return false;
      if (!isWebUrl(site.web_url)) {
        void vscode.window.showWarningMessage(`“${site.name}” has no web URL (http or https). Edit the site to add one.`, 'Edit Site').then((c) => {
          if (c) void vscode.commands.executeCommand('siteRevisions.editSite', site.id);
        });
        return false;
      }
      return vscode.env.openExternal(vscode.Uri.parse(site.web_url, true));
    }),
    vscode.commands.registerCommand('siteRevisions.copySiteDetails', async (arg?: unknown) => {
      const site = await siteArg(model, arg, 'Site whose details to copy');
      if (!site) return undefined;
      const text = siteDetailsText(site);
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage(`Copied the details of “${site.name}” (without passwords).`, 3000);
      return text;
    }),
  ];
}

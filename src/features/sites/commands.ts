// Commands of the Sites view: create, edit, duplicate, delete, open web URL, copy details, and
// a site editor given back after a window reload. Loaded on first use by what activation
// registers (./register.ts).
import * as vscode from 'vscode';
import { isApiError, type HttpStatusError, type NetworkError } from '../../core/api/errors';
import type { SaveSiteResult, Site, SiteFields } from '../../core/api/types';
import { withoutUserinfo } from '../../core/api/userinfo';
import type { Session } from '../auth/session';
import { inform, message, plain, showWarning, type MessageText } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';
import type { EditorState } from './protocol';
import { editors, loadSiteEditor } from './editorLoad';
import { UpdatedWhileOpenError } from '../../workbench/feature';
import type { FormTester, SiteEditorHandle } from './siteEditor';
import type { SitesModel } from './sitesModel';
import { SiteNode, siteDetailRows } from './sitesTree';
import { isOffline } from './viewState';
import type { SiteCommand } from './register';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface SiteCommandDeps {
  extensionUri: vscode.Uri;
  session: Session;
  model: SitesModel;
  notifier: Notifier;
  /** Called (and awaited) once a site is deleted on the service: what refers to it locally is forgotten. */
  onDeleted?: (siteId: string) => unknown;
  /** Resolves once the session is restored at activation (a site editor restored after a reload needs its site). */
  whenReady?: () => Promise<void>;
  /** The form's Test Connection (the live feature, loaded on first use). */
  testConnection?: FormTester;
}

/**
 * The sites a command from the Sites view was invoked on when several are selected (VS Code
 * passes the clicked node and the selection), or undefined for one site.
 */
export function selectedSites(arg: unknown, all: unknown): Site[] | undefined {
  if (!Array.isArray(all)) return undefined;
  const sites = all.filter((n): n is SiteNode => n instanceof SiteNode).map((n) => n.site);
  if (arg instanceof SiteNode && !sites.some((x) => x.id === arg.site.id)) sites.unshift(arg.site);
  return sites.length > 1 ? sites : undefined;
}

/** Who shares a site, for messages: its owner as the service names it, when it does. */
function sharedBy(site: Site): MessageText {
  const owner = site.user.trim();
  return owner
    ? message('“{0}” is shared with you by {1}: you can view it and its revisions, not change or delete it.', plain(site.name), plain(owner))
    : message('“{0}” is shared with you: you can view it and its revisions, not change or delete it.', plain(site.name));
}

/** Tells the user a command acts on one site and several are selected; the command does nothing. */
function oneAtATime(command: string): false {
  inform(message('“{0}” works on one site at a time: select a single site.', plain(command)));
  return false;
}

/** Resolves the site a command was invoked on: a tree node, a site id, or (palette) a pick. */
async function siteArg(model: SitesModel, arg: unknown, placeHolder: string): Promise<Site | undefined> {
  if (arg instanceof SiteNode) return arg.site;
  if (typeof arg === 'string') return model.find(arg) ?? (await model.all()).find((s) => s.id === arg);
  const sites = await model.visibleSites();
  const pick = await vscode.window.showQuickPick(
    sites.map((s) => ({ label: s.name, description: [s.server_type, withoutUserinfo(s.domain)].filter(Boolean).join(' · '), site: s })),
    { placeHolder, matchOnDescription: true },
  );
  return pick?.site;
}

/** Site details for the clipboard: every non-empty field except the secrets. */
export function siteDetailsText(site: Site): string {
  const lines = [`${vscode.l10n.t('Name')}: ${site.name}`];
  for (const [k, v] of siteDetailRows(site)) if (v) lines.push(`${k}: ${v}`);
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

/** Connection errors that mean the request never reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'EPROXYCONFIG', 'EPROXYAUTH', 'EPROXYREFUSED', 'ENOUNDICI']);

/**
 * Whether a failed write may have been carried out all the same: the request went out but no
 * usable answer came back (a time-out, a dropped connection, a reply cut off or garbled, a 5xx
 * from a gateway). A refusal (401, the service's own error, another 4xx, no connection) means not.
 */
export function writeOutcomeUnknown(e: unknown): boolean {
  if (!isApiError(e)) return false;
  switch (e.kind) {
    case 'timeout':
    case 'invalid-reply':
      return true;
    case 'network': {
      const n = e as NetworkError;
      return !n.isCertificateError && !NOT_SENT_CODES.has(n.code ?? '');
    }
    case 'http':
      return (e as HttpStatusError).status >= 500;
    default:
      return false;
  }
}

/**
 * A write that never reached the service because it cannot be reached: said plainly (the site
 * editor shows it and keeps the input). A write that may have arrived is left to the callers.
 */
function notSentOffline(e: unknown): void {
  if (isOffline(e) && !writeOutcomeUnknown(e)) {
    throw new Error(vscode.l10n.t('The service cannot be reached, so nothing was saved. Your input is kept: save again once it answers.'), { cause: e });
  }
}

/** The handlers of the commands ./register.ts registers, and what gives a site editor back after a reload. */
export function siteCommands(deps: SiteCommandDeps): { handlers: Record<SiteCommand, (...args: unknown[]) => unknown>; restoreEditor: (panel: vscode.WebviewPanel, state: EditorState) => Promise<void> } {
  const { session, model, notifier, extensionUri } = deps;
  const watched = new WeakSet<SiteEditorHandle>();

  /**
   * Save Site with new=1 for one editor. Writes are never retried, but a create whose outcome is
   * unknown (see writeOutcomeUnknown) may have created the site: the user is told so, and the
   * next Save first looks for a site it created (not among the sites known before, with a name
   * that was sent) and saves into that one instead of creating a second.
   */
  const creator = () => {
    let unsure: { known: ReadonlySet<string>; names: Set<string> } | undefined;
    return async (fields: SiteFields): Promise<SaveSiteResult> => {
      if (unsure) {
        const { known, names } = unsure;
        const made = (await session.call((c) => c.getSites()))
          .filter((s) => !s.shared && !known.has(s.id) && names.has(s.name))
          .sort((a, b) => Number(b.id) - Number(a.id))[0];
        if (made) {
          const r = await session.call((c) => c.updateSite(made.id, fields));
          unsure = undefined;
          return r;
        }
      }
      const known = unsure?.known ?? (await model.all().then((all) => new Set(all.map((s) => s.id)), () => undefined));
      try {
        const r = await session.call((c) => c.createSite(fields));
        unsure = undefined;
        return r;
      } catch (e) {
        notSentOffline(e);
        if (!writeOutcomeUnknown(e)) throw e;
        if (known) unsure = { known, names: new Set([...(unsure?.names ?? []), fields.name]) };
        const message = known
          ? vscode.l10n.t('{0} The site may have been created anyway. Save again to check: if it was, your values are saved into it rather than into a second site.', (e as Error).message)
          : vscode.l10n.t('{0} The site may have been created anyway. Refresh the Sites view and check before saving again, so that it is not created twice.', (e as Error).message);
        throw new Error(message, { cause: e });
      }
    };
  };

  const updater = (siteId: string) => async (fields: SiteFields): Promise<SaveSiteResult> => {
    try {
      return await session.call((c) => c.updateSite(siteId, fields));
    } catch (e) {
      notSentOffline(e);
      if (!writeOutcomeUnknown(e)) throw e;
      throw new Error(vscode.l10n.t('{0} The changes may have been saved anyway; saving again is safe.', (e as Error).message), { cause: e });
    }
  };

  /**
   * The site as the service has it now, for an edit or a duplicate: their save sends the stored
   * passwords back, and a site shown from the disk cache has none. Undefined (the user is told)
   * when it cannot be had.
   */
  const current = async (site: Site): Promise<Site | undefined> => {
    try {
      const fresh = await vscode.window.withProgress({ location: { viewId: 'siteRevisions.sites' } }, () => model.freshSite(site.id));
      if (!fresh) inform(message('“{0}” is no longer on the service.', plain(site.name)));
      return fresh;
    } catch (e) {
      if (isOffline(e)) inform(message('“{0}” cannot be edited while the service cannot be reached: its stored passwords are only there. Try again once it answers.', plain(site.name)));
      else notifier.error(message('Could not load “{0}”', plain(site.name)), e);
      return undefined;
    }
  };

  const openEditor = async (mode: 'create' | 'edit' | 'duplicate', site?: Site, restore?: { panel: vscode.WebviewPanel; state: EditorState }): Promise<SiteEditorHandle | undefined> => {
    // A shared site's passwords are its owner's: a duplicate never copies them (the user types their own).
    const source = site && mode === 'duplicate' && site.shared ? { ...site, ftp_pass: '', db_password: '' } : site;
    // Its file missing (updated under this window): the window has said so and offered to reload.
    const editor = await loadSiteEditor().catch((e: unknown) => (e instanceof UpdatedWhileOpenError ? undefined : Promise.reject(e)));
    if (!editor) return undefined;
    const handle = editor.openSiteEditor(extensionUri, {
      mode,
      ...(source ? { site: source } : {}),
      save: mode === 'edit' && site ? updater(site.id) : creator(),
      ...(restore ? { restore } : {}),
      ...(deps.testConnection ? { test: deps.testConnection } : {}),
    });
    editors.last = handle;
    // Editing a site that is already open reveals the same panel: attach the handler once.
    if (watched.has(handle)) return handle;
    watched.add(handle);
    background(
      'Refreshing after a save',
      handle.done.then((r) => {
        if (r) model.refresh();
      }),
    );
    return handle;
  };

  /** A site editor VS Code restored after a reload: the same form again, with what the user had typed. */
  const restoreEditor = async (panel: vscode.WebviewPanel, state: EditorState): Promise<void> => {
    if (state.mode === 'create') {
      await openEditor('create', undefined, { panel, state });
      return;
    }
    await deps.whenReady?.();
    let site: Site | undefined;
    let problem: unknown;
    try {
      // As the service has it now: the save sends the stored passwords back, and a site shown
      // from the disk cache has none.
      site = await model.freshSite(state.siteId);
    } catch (e) {
      problem = e;
    }
    if (site && !(state.mode === 'edit' && site.shared)) {
      await openEditor(state.mode, site, { panel, state });
      return;
    }
    panel.dispose();
    const name = plain(state.values.name);
    if (problem) notifier.error(message('The form of “{0}” was not reopened after the reload', name), problem);
    else inform(message('The form of “{0}” was not reopened after the reload: the site is not in your list of sites.', name));
  };

  const handlers: Record<SiteCommand, (...args: unknown[]) => unknown> = {
    'siteRevisions.createSite': () => openEditor('create'),
    'siteRevisions.editSite': async (arg?: unknown, all?: unknown) => {
      if (selectedSites(arg, all)) return oneAtATime(vscode.l10n.t('Edit Site'));
      const site = await siteArg(model, arg, vscode.l10n.t('Site to edit'));
      if (site?.shared) {
        inform(sharedBy(site));
        return false;
      }
      const fresh = site && (await current(site));
      return fresh && openEditor('edit', fresh);
    },
    'siteRevisions.duplicateSite': async (arg?: unknown, all?: unknown) => {
      if (selectedSites(arg, all)) return oneAtATime(vscode.l10n.t('Duplicate Site'));
      const site = await siteArg(model, arg, vscode.l10n.t('Site to duplicate'));
      const fresh = site && (await current(site));
      return fresh && openEditor('duplicate', fresh);
    },
    'siteRevisions.deleteSite': async (arg?: unknown, all?: unknown) => {
      const chosen = selectedSites(arg, all) ?? [await siteArg(model, arg, vscode.l10n.t('Site to delete'))].filter((x): x is Site => !!x);
      if (!chosen.length) return false;
      const shared = chosen.filter((x) => x.shared);
      const own = chosen.filter((x) => !x.shared);
      if (!own.length) {
        inform(shared.length === 1 ? sharedBy(shared[0]!) : message('The selected sites are shared with you: they cannot be deleted.'));
        return false;
      }
      const del = vscode.l10n.t('Delete');
      const untouched = message('The site and its revision history are deleted on the service. Files on your computer are not touched.');
      const several = message('These sites and their revision history are deleted on the service. Files on your computer are not touched.');
      const notShared = shared.length ? `\n\n${message('Not deleted, because shared with you: {0}.', plain(shared.map((x) => `“${x.name}”`).join(', ')))}` : '';
      const list = own.map((x) => `• ${plain(x.name)}`).join('\n');
      const choice = await showWarning(
        own.length === 1 ? message('Delete the site “{0}”?', plain(own[0]!.name)) : message('Delete {0} sites?', own.length),
        { modal: true, detail: (own.length === 1 ? `${untouched}${notShared}` : `${list}\n\n${several}${notShared}`) as MessageText },
        del,
      );
      if (choice !== del) return false;
      let deleted = 0;
      for (const site of own) {
        try {
          await vscode.window.withProgress({ location: { viewId: 'siteRevisions.sites' } }, () => session.call((c) => c.deleteSite(site.id)));
        } catch (e) {
          notifier.error(
            isOffline(e) && !writeOutcomeUnknown(e) ? message('Could not delete “{0}”: the service cannot be reached, nothing was deleted', plain(site.name)) : message('Could not delete “{0}”', plain(site.name)),
            e,
          );
          continue;
        }
        deleted++;
        // Its folder mapping and compare selection go: a later site may be given the same id.
        await Promise.resolve(deps.onDeleted?.(site.id)).catch(() => undefined);
      }
      model.refresh();
      return deleted === own.length;
    },
    'siteRevisions.openWebUrl': async (arg?: unknown, all?: unknown) => {
      if (selectedSites(arg, all)) return oneAtATime(vscode.l10n.t('Open Web URL'));
      const site = await siteArg(model, arg, vscode.l10n.t('Site whose web URL to open'));
      if (!site) return false;
      if (!isWebUrl(site.web_url)) {
        const edit = vscode.l10n.t('Edit Site');
        background(
          'The message about a missing web URL',
          showWarning(message('“{0}” has no web URL (http or https). Edit the site to add one.', plain(site.name)), edit).then((c) =>
            c === edit ? vscode.commands.executeCommand('siteRevisions.editSite', site.id) : undefined,
          ),
        );
        return false;
      }
      return vscode.env.openExternal(vscode.Uri.parse(site.web_url, true));
    },
    'siteRevisions.copySiteDetails': async (arg?: unknown, all?: unknown) => {
      const several = selectedSites(arg, all);
      const sites = several ?? [await siteArg(model, arg, vscode.l10n.t('Site whose details to copy'))].filter((x): x is Site => !!x);
      if (!sites.length) return undefined;
      const text = sites.map(siteDetailsText).join('\n\n');
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage(
        several ? vscode.l10n.t('Copied the details of {0} sites (without passwords).', sites.length) : vscode.l10n.t('Copied the details of “{0}” (without passwords).', sites[0]!.name),
        3000,
      );
      return text;
    },
  };
  return { handlers, restoreEditor };
}

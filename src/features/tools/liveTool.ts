// The language-model tool of the live feature (read-only): Live Drift (live files that differ
// from their newest revision on the service: changed outside this editor) and Compare Live with
// Local, for a site or one of its folders. It connects to the site's server, lists every folder
// under the scope and reads the files whose size does not settle the question, so it always
// asks first, as the scans do. Its result names paths, groups and how each was decided: never a
// host, a user, a password or a file's content.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { CompareGroup } from '../../core/live';
import type { Log } from '../../workbench/log';
import type { Session } from '../auth/session';
import type { SitesModel } from '../sites/sitesModel';
import type { LiveCompare } from '../live/compare';
import { UnreachableSite } from '../live/connections';
import { LiveError } from '../../core/live';
import { confirmation, quoted } from './kit';
import { findSite, result, ToolInputError } from './results';

export interface LiveToolInput {
  site: string;
  mode: 'drift' | 'local';
  folder: string;
  limit: number;
}

export function liveToolInput(raw: unknown): LiveToolInput {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const limit = typeof o.limit === 'number' && Number.isFinite(o.limit) ? Math.min(500, Math.max(1, Math.round(o.limit))) : 100;
  return {
    site: typeof o.site === 'string' ? o.site : '',
    mode: o.mode === 'local' ? 'local' : 'drift',
    folder: typeof o.folder === 'string' ? o.folder.split('/').filter((s) => s && s !== '.').join('/') : '',
    limit,
  };
}

const GROUP_NAMES: Record<CompareGroup, string> = {
  differsFromNewest: 'changedOnServer',
  differsFromLocal: 'differsFromLocal',
  onlyLive: 'onlyLive',
  onlyLocal: 'onlyLocal',
  onlyInHistory: 'onlyInHistory',
};

export function liveTool(deps: { session: Session; model: SitesModel; log: Log; compare: LiveCompare; folderOf?: (site: Site) => vscode.Uri | undefined }): vscode.LanguageModelTool<object> {
  const { session, model, log, compare } = deps;
  const signalOf = (token: vscode.CancellationToken) => {
    const ac = new AbortController();
    if (token.isCancellationRequested) ac.abort();
    const sub = token.onCancellationRequested(() => ac.abort());
    return { signal: ac.signal, dispose: () => sub.dispose() };
  };
  return {
    prepareInvocation: async (o) => {
      const i = liveToolInput(o.input);
      const site = (await model.all().catch(() => [] as Site[])).find((s) => s.id === i.site || s.name.toLowerCase() === i.site.toLowerCase());
      const name = quoted(site?.name ?? i.site);
      const where = i.folder ? vscode.l10n.t('the folder {0} of', quoted(i.folder)) : vscode.l10n.t('every folder of');
      const invocationMessage = i.mode === 'drift' ? vscode.l10n.t('Checking the live server of {0} for drift', name) : vscode.l10n.t('Comparing the live server of {0} with the local folder', name);
      return confirmation(invocationMessage, i.mode === 'drift' ? vscode.l10n.t('Check the live server for drift?') : vscode.l10n.t('Compare the live server with the local folder?'), [
        i.mode === 'drift'
          ? vscode.l10n.t('The agent wants to connect to the server of the site {0}, list {1} it, and compare each live file with its newest revision on the service (changed outside this editor).', name, where)
          : vscode.l10n.t('The agent wants to connect to the server of the site {0}, list {1} it, and compare each live file with the working file in the mapped local folder.', name, where),
        vscode.l10n.t('Files whose size does not settle it are read to compare their content. The result lists paths only: no content, no credentials.'),
      ]);
    },
    invoke: async (o, token) => {
      const text = (v: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(v)]);
      if (session.state !== 'signedIn') return text('The user is not signed in to Site Revisions. Ask them to sign in with the command "Site Revisions: Sign In…"; do not retry until they have.');
      const i = liveToolInput(o.input);
      const { signal, dispose } = signalOf(token);
      try {
        if (!i.site) throw new ToolInputError('Give the site as its id or its name (see the list-sites tool).');
        const site = findSite(await model.current(), i.site);
        let folder: vscode.Uri | undefined;
        if (i.mode === 'local') {
          folder = deps.folderOf?.(site);
          if (!folder) throw new ToolInputError(`The site ${JSON.stringify(site.name)} has no local folder mapped in this workspace: ask the user to map one ("Site Revisions: Map Site to Local Folder…").`);
        }
        const r = await compare.compute(i.mode, site, i.folder, folder, signal);
        const groups: Record<string, { path: string; basis: string; liveSize?: number; otherSize?: number }[]> = {};
        let listed = 0;
        for (const row of r.rows) {
          const g = (groups[GROUP_NAMES[row.group]] ??= []);
          if (listed >= i.limit) continue;
          listed++;
          const other = row.group === 'differsFromLocal' ? row.local?.size : row.newest?.size;
          g.push({ path: row.path, basis: row.basis === 'hash' ? 'content differs (same size)' : row.basis === 'size' ? 'size' : row.basis === 'lastSeen' ? 'content differs (known from the last read)' : 'could not be read', ...(row.live?.size !== undefined ? { liveSize: row.live.size } : {}), ...(other !== undefined ? { otherSize: other } : {}) });
        }
        const counts = Object.fromEntries(Object.entries(r.counts).map(([k, v]) => [GROUP_NAMES[k as CompareGroup], v]));
        const scope = i.folder ? `the folder ${JSON.stringify(i.folder)}` : 'the whole site';
        return text(
          result(
            i.mode === 'drift'
              ? `Live drift of ${scope} of site ${JSON.stringify(site.name)} (id ${site.id}): ${r.progress.liveFiles} live files, ${r.counts.differsFromNewest} changed on the server since their newest revision (changedOnServer: not made through this editor or the service), ${r.counts.onlyLive} with no revision, ${r.counts.onlyInHistory} with revisions but not on the server; ${r.progress.reads} files were read to compare content.${listed < r.rows.length ? ` The first ${listed} of ${r.rows.length} rows are listed (raise "limit").` : ''}`
              : `Live versus local of ${scope} of site ${JSON.stringify(site.name)} (id ${site.id}): ${r.progress.liveFiles} live files, ${r.counts.differsFromLocal} differ from the working file, ${r.counts.onlyLive} only live, ${r.counts.onlyLocal} only local; ${r.progress.reads} files were read to compare content.${listed < r.rows.length ? ` The first ${listed} of ${r.rows.length} rows are listed (raise "limit").` : ''}`,
            { site: { id: site.id, name: site.name }, mode: i.mode, folder: i.folder, counts, groups },
          ),
        );
      } catch (e) {
        if (signal.aborted) throw new vscode.CancellationError();
        if (e instanceof ToolInputError) return text(e.message);
        if (e instanceof UnreachableSite) return text(`The live server of this site cannot be reached from here: ${e.message}`);
        if (e instanceof LiveError) {
          if (e.kind === 'cancelled') throw new vscode.CancellationError();
          return text(`The live server could not be read (${e.kind}, at ${e.stage}): ${e.message} Next step for the user: ${e.next}`);
        }
        const msg = e instanceof Error ? e.message : String(e);
        log.warn(`Language-model tool live compare failed: ${msg}`);
        return text(`The comparison failed: ${msg}`);
      } finally {
        dispose();
      }
    },
  };
}

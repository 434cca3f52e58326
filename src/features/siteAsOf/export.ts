// "Export…": the site (or folder) as of the moment into a folder of the user's choice, or a .zip,
// for recovery when no working copy exists. A folder that is not empty asks first. The writer
// (src/core/asof/export.ts) writes nothing outside the chosen folder and nothing at all when the export
// is cancelled or fails; a path it refuses is said, and left out — paths that differ only in case
// on a disk that does not tell them apart are found before anything is written. The progress
// lasts as long as the export: the commit, or the clean-up after a cancel, is part of it.
import * as vscode from 'vscode';
import { clashMessage, ExportPathError, exportSegments, folderState, folderWriter, zipWriter } from '../../core/asof/export';
import { translate } from '../../workbench/l10n';
import { inform, message, plain, showWarning } from '../../workbench/messages';
import { displayText } from '../../core/util/text';
import type { SiteAsOfDeps } from './index';
import { readAsOf, withRunProgress } from './work';
import { AS_OF_VIEW, scopeText, type AsOfRun } from './views';

/** What "Export…" can be given instead of asking (tests, scripts). */
export interface ExportRequest {
  folder?: vscode.Uri | string;
  zip?: vscode.Uri | string;
}

export interface AsOfExportOutcome {
  /** The folder or .zip written (its path). */
  target?: string;
  files: number;
  refused: { path: string; reason: string }[];
  cancelled: boolean;
}

const asUri = (v: vscode.Uri | string) => (typeof v === 'string' ? vscode.Uri.file(v) : v);

async function chooseTarget(run: AsOfRun): Promise<{ uri: vscode.Uri; zip: boolean } | undefined> {
  const title = vscode.l10n.t('Export {0} as of {1}', scopeText(run.scope), run.moment.label);
  const zip = vscode.l10n.t('Into a .zip File…');
  const pick = await vscode.window.showQuickPick([vscode.l10n.t('Into a Folder…'), zip], { title, placeHolder: vscode.l10n.t('Where to write the files (the site’s own paths below it)') });
  if (!pick) return undefined;
  const home = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (pick === zip) {
    const name = `${displayText(run.scope.site.name).replace(/[^\w.-]+/g, '-') || 'site'}-${run.moment.label.replace(/[^\d]+/g, '').slice(0, 12)}.zip`;
    const uri = await vscode.window.showSaveDialog({ title, filters: { [vscode.l10n.t('Zip archive')]: ['zip'] }, ...(home ? { defaultUri: vscode.Uri.joinPath(home, name) } : {}), saveLabel: vscode.l10n.t('Export') });
    return uri && { uri, zip: true };
  }
  const folder = await vscode.window.showOpenDialog({ title, canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: vscode.l10n.t('Export Here'), ...(home ? { defaultUri: home } : {}) });
  return folder?.[0] && { uri: folder[0], zip: false };
}

export async function exportAsOf(run: AsOfRun, abort: AbortController, deps: SiteAsOfDeps, request: ExportRequest = {}): Promise<AsOfExportOutcome> {
  const outcome: AsOfExportOutcome = { files: 0, refused: [], cancelled: false };
  const given = request.zip ?? request.folder;
  const chosen = given ? { uri: asUri(given), zip: request.zip !== undefined } : await chooseTarget(run);
  if (!chosen) return { ...outcome, cancelled: true };
  if (chosen.uri.scheme !== 'file') throw new Error(vscode.l10n.t('An export is written to a folder of this computer, not to {0}.', chosen.uri.toString(true)));
  const path = chosen.uri.fsPath;
  if (!chosen.zip) {
    const state = await folderState(path);
    if (state === 'notFolder') throw new Error(vscode.l10n.t('{0} is not a folder.', path));
    if (state === 'notEmpty') {
      const into = vscode.l10n.t('Export Into It');
      const answer = await showWarning(message('{0} is not empty. Export into it?', plain(path)), { modal: true, detail: message('Files at the same paths are replaced; nothing else in it is touched.') }, into);
      if (answer !== into) return { ...outcome, cancelled: true };
    }
  }
  const writer = chosen.zip ? await zipWriter(path, translate) : await folderWriter(path, translate);
  outcome.target = writer.target;
  const refuse = (p: string, e: unknown) => {
    if (!(e instanceof ExportPathError)) throw e;
    outcome.refused.push({ path: p, reason: e.message });
    deps.log.warn(`Export refused a revision path: ${e.message}`);
  };
  // Before anything is written: the paths this disk would take for one file.
  const clashed = new Map<string, string>();
  for (const group of writer.clashes((run.result?.files ?? []).map((f) => f.path))) for (const p of group) clashed.set(p, clashMessage(group, translate));
  const title = vscode.l10n.t('Exporting {0} as of {1}', scopeText(run.scope), run.moment.label);
  const cancelled = await withRunProgress(AS_OF_VIEW, title, abort, async (report) => {
    try {
      const r = await readAsOf(run, deps.revisions.store, abort.signal, report, {
        want: (f) => {
          try {
            exportSegments(f.path, translate);
            const clash = clashed.get(f.path);
            if (clash) throw new ExportPathError(f.path, clash);
            return true;
          } catch (e) {
            refuse(f.path, e);
            return false;
          }
        },
        take: (f, bytes) => writer.add(f.path, bytes, f.revision.time).catch((e: unknown) => refuse(f.path, e)),
      });
      if (r.cancelled || abort.signal.aborted) {
        await writer.abort();
        return true;
      }
      outcome.files = (await writer.commit()).files;
      return false;
    } catch (e) {
      await writer.abort();
      throw e;
    }
  });
  if (cancelled) return { ...outcome, cancelled: true };
  deps.log.info(`Exported ${outcome.files} files of ${scopeText(run.scope)} as of ${run.moment.label} into ${outcome.target}${outcome.refused.length ? `; ${outcome.refused.length} paths refused` : ''}`);
  if (outcome.refused.length) inform(message('{0} paths of the site are not exported: {1}', outcome.refused.length, plain([...new Set(outcome.refused.map((x) => x.reason))].join(' '))));
  inform(message('Exported {0} files of {1} as of {2} into {3}.', outcome.files, plain(scopeText(run.scope)), plain(run.moment.label), plain(outcome.target!)));
  return outcome;
}

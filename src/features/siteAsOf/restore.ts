// "Restore Into Local Folder…": the site (or folder) as of the moment written into the site's
// mapped folder as ONE undoable WorkspaceEdit, after ONE confirmation — a pick of the files that
// counts those replaced (the working file differs), created (it is not there) and "not there
// yet" (it did not exist at that moment: left alone unless ticked, then deleted). Working files
// already as they were are not touched. The safety is the single restore's
// (FolderMapping.resolveRestoreTarget: safe segments, strictly inside the folder, no symbolic link
// leading out, nothing into .git or .vscode); a refused path is said, and never written.
// As Restore Checked does (src/features/history/restore.ts), existence is looked at again after the
// confirmation, and a file that appeared or went meanwhile asks again; nothing is saved.
import * as vscode from 'vscode';
import type { AsOfFile, NotYetFile } from '../../core/asof';
import { FolderMapping } from '../revisions/mapping';
import { addRestoreEdit, statOf } from '../revisions/workingFile';
import { inform, message, plain } from '../../workbench/messages';
import { displayText } from '../../core/util/text';
import type { SiteAsOfDeps } from './index';
import { readAsOf, sameBytes, withRunProgress, workingBytes } from './work';
import { AS_OF_VIEW, scopeText, type AsOfRun } from './views';

export interface AsOfRestoreOutcome {
  replaced: vscode.Uri[];
  created: vscode.Uri[];
  deleted: vscode.Uri[];
  /** Working files already as they were. */
  unchanged: number;
  refused: { path: string; reason: string }[];
  cancelled: boolean;
}

interface Planned {
  file: AsOfFile;
  uri: vscode.Uri;
  exists: boolean;
  text: string;
}

interface Gone {
  file: NotYetFile;
  uri: vscode.Uri;
}

const decoder = new TextDecoder();

function shown(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString(true);
}

async function isFile(uri: vscode.Uri): Promise<boolean | 'folder'> {
  const st = await statOf(uri);
  return !st ? false : st.type & vscode.FileType.File ? true : 'folder';
}

export async function restoreAsOf(run: AsOfRun, abort: AbortController, deps: SiteAsOfDeps): Promise<AsOfRestoreOutcome> {
  const { revisions, log } = deps;
  const site = run.scope.site;
  const outcome: AsOfRestoreOutcome = { replaced: [], created: [], deleted: [], unchanged: 0, refused: [], cancelled: false };
  const folder = await revisions.folders.ensure(site, vscode.l10n.t('Choose the local folder of “{0}” to restore it into.', displayText(site.name)));
  if (!folder) return { ...outcome, cancelled: true };
  const targets = new Map<string, vscode.Uri | undefined>();
  const target = (path: string): vscode.Uri | undefined => {
    if (targets.has(path)) return targets.get(path);
    const w = FolderMapping.resolveRestoreTarget(folder, path);
    targets.set(path, w.ok ? w.uri : undefined);
    if (w.ok) return w.uri;
    outcome.refused.push({ path, reason: w.reason });
    log.warn(`Restore as it was refused a revision path: ${w.reason}`);
    return undefined;
  };
  const planned: Planned[] = [];
  const gone: Gone[] = [];
  const r = await withRunProgress(AS_OF_VIEW, vscode.l10n.t('Reading {0} as of {1} to restore it', scopeText(run.scope), run.moment.label), abort, async (report) => {
    const result = await readAsOf(run, revisions.store, abort.signal, report, {
      want: (f) => target(f.path) !== undefined,
      take: async (f, bytes) => {
        const uri = target(f.path)!;
        const kind = await isFile(uri);
        if (kind === 'folder') return void outcome.refused.push({ path: f.path, reason: vscode.l10n.t('{0} is a folder, not a file.', shown(uri)) });
        const working = kind ? await workingBytes(uri) : undefined;
        if (working && sameBytes(working, bytes)) outcome.unchanged++;
        else planned.push({ file: f, uri, exists: kind === true, text: decoder.decode(bytes) });
      },
    });
    for (const f of result.notYet) {
      const uri = target(f.path);
      if (uri && (await isFile(uri)) === true) gone.push({ file: f, uri });
    }
    return result;
  });
  if (r.cancelled || abort.signal.aborted) return { ...outcome, cancelled: true };
  if (outcome.refused.length) {
    inform(message('{0} paths of the site are not restored: {1}', outcome.refused.length, plain(outcome.refused.map((x) => x.reason).join(' '))));
  }
  if (!planned.length && !gone.length) {
    inform(message('{0} in {1} is already as it was at that moment.', plain(scopeText(run.scope)), plain(shown(folder))));
    return outcome;
  }
  // What the user confirms is what happens: looked at again after the confirmation.
  let chosen: { planned: Planned[]; gone: Gone[] } | undefined;
  for (let asked = 0; ; asked++) {
    if (asked >= 3) throw new Error(vscode.l10n.t('The working files keep appearing and disappearing; nothing was restored.'));
    chosen = await confirm(run, folder, planned, gone, outcome.unchanged);
    if (!chosen) return { ...outcome, cancelled: true };
    let moved = false;
    for (const p of chosen.planned) {
      const now = await isFile(p.uri);
      if (now === 'folder') throw new Error(vscode.l10n.t('{0} is a folder, not a file.', shown(p.uri)));
      if (now !== p.exists) [moved, p.exists] = [true, now];
    }
    for (const g of chosen.gone) if ((await isFile(g.uri)) !== true) moved = true;
    if (!moved) break;
    gone.splice(0, gone.length, ...(await Promise.all(gone.map(async (g) => ((await isFile(g.uri)) === true ? g : undefined)))).filter((g): g is Gone => !!g));
  }
  const edit = new vscode.WorkspaceEdit();
  for (const p of chosen.planned) await addRestoreEdit(edit, p.uri, p.exists, p.text);
  for (const g of chosen.gone) edit.deleteFile(g.uri, { ignoreIfNotExists: true });
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(vscode.l10n.t('VS Code did not apply the restore; nothing was changed.'));
  outcome.replaced = chosen.planned.filter((p) => p.exists).map((p) => p.uri);
  outcome.created = chosen.planned.filter((p) => !p.exists).map((p) => p.uri);
  outcome.deleted = chosen.gone.map((g) => g.uri);
  log.info(`Restored ${scopeText(run.scope)} as of ${run.moment.label} in one edit: ${outcome.replaced.length} replaced, ${outcome.created.length} created, ${outcome.deleted.length} deleted, ${outcome.unchanged} already so`);
  inform(message('Restored {0} files in one edit ({1} deleted). Save All to keep them; one Undo reverts them all.', outcome.replaced.length + outcome.created.length, outcome.deleted.length));
  return outcome;
}

/**
 * The one confirmation: every file to restore, ticked, under "Replaced" and "Created"; the files
 * that did not exist yet under "Not there yet", not ticked. The title counts them. Accepting
 * restores the ticked ones; undefined when dismissed.
 */
function confirm(run: AsOfRun, folder: vscode.Uri, planned: Planned[], gone: Gone[], unchanged: number): Promise<{ planned: Planned[]; gone: Gone[] } | undefined> {
  type Item = vscode.QuickPickItem & { p?: Planned; g?: Gone };
  const replaced = planned.filter((p) => p.exists);
  const created = planned.filter((p) => !p.exists);
  const row = (rel: string, detail: string, x: Partial<Item>): Item => ({ label: displayText(rel), description: detail, ...x });
  const items: Item[] = [];
  const group = (label: string, list: Item[]) => list.length && items.push({ label, kind: vscode.QuickPickItemKind.Separator }, ...list);
  group(
    vscode.l10n.t('Replaced ({0}): the working file differs', replaced.length),
    replaced.map((p) => row(p.file.rel, vscode.l10n.t('replaced'), { p, picked: true })),
  );
  group(
    vscode.l10n.t('Created ({0}): not in the local folder', created.length),
    created.map((p) => row(p.file.rel, vscode.l10n.t('created'), { p, picked: true })),
  );
  group(
    vscode.l10n.t('Not there yet ({0}): did not exist at that moment — tick to delete', gone.length),
    gone.map((g) => row(g.file.rel, vscode.l10n.t('not there yet: left alone unless ticked'), { g, picked: false })),
  );
  const qp = vscode.window.createQuickPick<Item>();
  qp.canSelectMany = true;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  qp.title = vscode.l10n.t('Restore {0} as of {1}? {2} replaced, {3} created, {4} not there yet', scopeText(run.scope), run.moment.label, replaced.length, created.length, gone.length);
  qp.placeholder = vscode.l10n.t('Into {0}, in one edit (one Undo reverts it; nothing is saved). {1} files are already as they were. Enter restores the ticked files.', shown(folder), unchanged);
  qp.items = items;
  qp.selectedItems = items.filter((i) => i.picked);
  return new Promise((resolve) => {
    let done = false;
    qp.onDidAccept(() => {
      done = true;
      const picked = qp.selectedItems;
      qp.hide();
      resolve({ planned: picked.flatMap((i) => (i.p ? [i.p] : [])), gone: picked.flatMap((i) => (i.g ? [i.g] : [])) });
    });
    qp.onDidHide(() => {
      qp.dispose();
      if (!done) resolve(undefined);
    });
    qp.show();
  });
}

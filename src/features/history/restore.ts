// "Restore Checked…" of both views: the checked files, each to one revision, in ONE undoable
// WorkspaceEdit into the site's mapped folder, after ONE confirmation that lists them. Files
// that no longer exist locally are created. The safety is the single restore's
// (src/features/revisions: FolderMapping.resolveRestoreTarget — safe path segments, strictly inside the
// folder, no symbolic link leading out, nothing into .git or .vscode): a path it refuses is
// listed as not restored. Each file gets the revision's bytes (../revisions/workingFile.ts: by the
// editor where it keeps them, else written as they are — said in the confirmation).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { Log } from '../../workbench/log';
import type { RevisionsApi } from '../revisions';
import { addRestoreEdit, bytesRefusal, informRestored, restoreWay, setLineEnds, writeRestoredBytes, type RestoreWay } from '../revisions/workingFile';
import { FolderMapping } from '../revisions/mapping';
import { whenAndWho } from '../revisions/nodes';
import { inform, message, plain, showWarning, type MessageText } from '../../workbench/messages';
import { displayText } from '../../core/util/text';

/** One file to restore, and to which revision. */
export interface RestoreTarget {
  site: Site;
  path: string;
  revision: { id: string; date: string; author: string; time: number | undefined };
}

export interface RestoreOutcome {
  /** The working files edited or created. */
  restored: vscode.Uri[];
  /** Paths refused (with why). */
  refused: { path: string; reason: string }[];
  cancelled: boolean;
}

interface Planned {
  target: RestoreTarget;
  uri: vscode.Uri;
  exists: boolean;
  bytes: Uint8Array;
  way?: RestoreWay;
}

function shown(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString(true);
}

async function existsAsFile(uri: vscode.Uri): Promise<boolean | 'folder'> {
  try {
    const st = await vscode.workspace.fs.stat(uri);
    return st.type & vscode.FileType.File ? true : 'folder';
  } catch {
    return false;
  }
}

export async function restoreMany(targets: RestoreTarget[], revisions: RevisionsApi, log: Log): Promise<RestoreOutcome> {
  const outcome: RestoreOutcome = { restored: [], refused: [], cancelled: false };
  if (!targets.length) {
    inform(message('Check the files to restore first (the boxes in front of them).'));
    return outcome;
  }
  // The folder of each site, asked once.
  const folders = new Map<string, vscode.Uri>();
  for (const t of targets) {
    if (folders.has(t.site.id)) continue;
    const folder = await revisions.folders.ensure(t.site, vscode.l10n.t('Choose the local folder of “{0}” to restore the checked files into.', displayText(t.site.name)));
    if (!folder) return { ...outcome, cancelled: true };
    folders.set(t.site.id, folder);
  }
  const planned: Planned[] = [];
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Reading the revisions to restore') }, async () => {
    for (const t of targets) {
      const w = FolderMapping.resolveRestoreTarget(folders.get(t.site.id)!, t.path);
      if (!w.ok) {
        log.warn(`Restore Checked refused a revision path: ${w.reason}`);
        outcome.refused.push({ path: t.path, reason: w.reason });
        continue;
      }
      planned.push({ target: t, uri: w.uri, exists: false, bytes: await revisions.store.content(t.site.id, t.revision.id) });
    }
  });
  // What the user confirms is what happens: looked at again after the confirmation, and asked
  // again when a file appeared or went meanwhile.
  let confirmed: string | undefined;
  let lineEndsSet = 0;
  for (let asked = 0; ; asked++) {
    for (const p of [...planned]) {
      const e = await existsAsFile(p.uri);
      const refuse = (reason: string) => {
        outcome.refused.push({ path: p.target.path, reason });
        planned.splice(planned.indexOf(p), 1);
      };
      if (e === 'folder') {
        refuse(vscode.l10n.t('{0} is a folder, not a file.', shown(p.uri)));
        continue;
      }
      p.exists = e;
      p.way = await restoreWay(p.uri, e, p.bytes);
      const dirty = bytesRefusal(p.uri, e, p.way);
      if (dirty) refuse(dirty);
    }
    if (!planned.length) {
      inform(message('None of the checked files can be restored: {0}', plain(outcome.refused.map((r) => r.reason).join(' '))));
      return outcome;
    }
    const state = planned.map((p) => `${p.exists}:${p.way!.kind}`).join();
    if (confirmed !== state) {
      if (asked >= 3) throw new Error(vscode.l10n.t('The checked files keep appearing and disappearing; nothing was restored.'));
      if (!(await confirm(planned, outcome.refused))) return { ...outcome, cancelled: true };
      confirmed = state;
      continue;
    }
    lineEndsSet += await setLineEnds(planned.map((p) => ({ uri: p.uri, exists: p.exists, way: p.way! })));
    const edit = new vscode.WorkspaceEdit();
    let edits = 0;
    for (const p of planned) if (await addRestoreEdit(edit, p.uri, p.exists, p.way!, p.bytes)) edits++;
    if (!edits || (await vscode.workspace.applyEdit(edit))) {
      for (const p of planned) if (p.exists && p.way!.kind === 'bytes') await writeRestoredBytes(p.uri, p.bytes);
      break;
    }
    if ((await Promise.all(planned.map((p) => existsAsFile(p.uri)))).map(String).join() === planned.map((p) => `${p.exists}`).join()) {
      throw new Error(vscode.l10n.t('VS Code did not apply the restore of the checked files.'));
    }
  }
  outcome.restored = planned.map((p) => p.uri);
  const written = planned.filter((p) => p.exists && p.way!.kind === 'bytes');
  log.info(`Restored ${planned.length} files in one edit: ${planned.map((p) => `${p.target.site.id}:${p.target.revision.id}${p.way!.kind === 'bytes' ? ' (bytes)' : ''}`).join(', ')}`);
  const edited = planned.filter((p) => p.way!.kind === 'text').map((p) => p.uri);
  if (lineEndsSet) inform(message('The line ends of {0} restored files were changed to their revisions’ first: a second Undo brings those back.', lineEndsSet));
  if (!written.length) informRestored(message('Restored {0} files in one edit, not saved yet: Save Them keeps them; one Undo reverts them all.', planned.length), edited);
  else informRestored(message('Restored {0} files in one edit; {1} of them written to disk byte for byte, as the editor would not have kept them ({2}). Save Them keeps the others; one Undo reverts those.', planned.length, written.length, plain(written.map((p) => `${shown(p.uri)}: ${(p.way as { reason: string }).reason}`).join('; '))), edited);
  return outcome;
}

async function confirm(planned: Planned[], refused: { path: string; reason: string }[]): Promise<boolean> {
  const lines = planned.map((p) => {
    const who = whenAndWho({ time: p.target.revision.time, item: p.target.revision });
    const line = p.exists ? vscode.l10n.t('{0} — revision of {1}', shown(p.uri), who) : vscode.l10n.t('{0} — revision of {1} (created: it does not exist)', shown(p.uri), who);
    const way = p.way!;
    if (way.kind === 'text') return line;
    return p.exists ? vscode.l10n.t('{0}; written to disk byte for byte at once ({1}): Undo cannot bring the current file back', line, way.reason) : vscode.l10n.t('{0}; created on disk byte for byte ({1})', line, way.reason);
  });
  const skipped = refused.map((r) => vscode.l10n.t('Not restored: {0}', r.reason));
  // One line per file, each made inert on its own (a line break between inert lines links nothing).
  const detail = [...lines, ...(skipped.length ? ['', ...skipped] : []), '', vscode.l10n.t('Unsaved changes in these files are replaced too; one Undo brings everything back.')].map((l) => plain(l)).join('\n') as MessageText;
  const button = planned.length === 1 ? vscode.l10n.t('Restore 1 File') : vscode.l10n.t('Restore {0} Files', planned.length);
  const title = planned.length === 1 ? message('Restore 1 file to the checked revision?') : message('Restore {0} files to the checked revisions?', planned.length);
  const pick = await showWarning(title, { modal: true, detail }, button);
  return pick === button;
}

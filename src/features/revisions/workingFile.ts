// The working-file policy of the revision commands: where a revision's working file is (the
// site's mapped folder, asked for once, joined with the path safely), whether it is there, and
// the one edit that restores a revision into it.
import * as vscode from 'vscode';
import type { Log } from '../../workbench/log';
import { alert, plain } from '../../workbench/messages';
import { displayText } from '../../core/util/text';
import { FolderMapping } from './mapping';
import type { RevisionRef } from './nodes';
import { notDone, type Outcome } from './outcome';

/**
 * The working file of a revision: asks for the site's folder once, then joins the path safely.
 * A path that could leave the folder (or a symbolic link inside it that leads out), and for a
 * restore a path into `.git` or `.vscode`, is refused with a message naming the path; a folder
 * not chosen is `cancelled`.
 */
export async function workingFileOf(mapping: FolderMapping, log: Log, ref: RevisionRef, purpose: 'compare' | 'restore'): Promise<{ uri: vscode.Uri; folder: vscode.Uri } | Outcome> {
  const name = displayText(ref.site.name);
  const ask =
    purpose === 'compare'
      ? vscode.l10n.t('Choose the local folder of “{0}” to compare with its working file.', name)
      : vscode.l10n.t('Choose the local folder of “{0}” to restore the revision into its working file.', name);
  const folder = await mapping.ensure(ref.site, ask);
  if (!folder) return notDone('cancelled');
  const w = purpose === 'restore' ? FolderMapping.resolveRestoreTarget(folder, ref.path) : FolderMapping.resolveWorkingFile(folder, ref.path);
  if (!w.ok) {
    log.warn(`Refused a revision path: ${w.reason}`);
    alert(plain(w.reason));
    return notDone('refused', w.reason);
  }
  return { uri: w.uri, folder: w.folder };
}

/** The file's stat, or undefined when there is nothing at `uri`. */
export async function statOf(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
  try {
    return await vscode.workspace.fs.stat(uri);
  } catch {
    return undefined;
  }
}

/**
 * Adds a restore to `edit`: the whole text of an existing file replaced, or the file created
 * (never over one that appeared since it was looked at: the edit then fails) with the text.
 */
export async function addRestoreEdit(edit: vscode.WorkspaceEdit, uri: vscode.Uri, exists: boolean, text: string): Promise<void> {
  if (exists) {
    const doc = await vscode.workspace.openTextDocument(uri);
    edit.replace(uri, new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end), text);
  } else {
    edit.createFile(uri, { ignoreIfExists: false, overwrite: false });
    edit.insert(uri, new vscode.Position(0, 0), text);
  }
}

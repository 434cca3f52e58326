// The diff editor's size limit: a compare whose side is over `diffEditor.maxFileSize` is refused
// before it is opened (VS Code would show an empty diff), with the way out offered.
import * as vscode from 'vscode';
import type { Log } from '../../workbench/log';
import { message, plain, showWarning } from '../../workbench/messages';
import { background } from '../../core/util/background';
import type { RevisionRef } from './nodes';

/** A size as a person reads it: bytes, KB or MB. */
export function formatBytes(n: number): string {
  if (n < 1024) return vscode.l10n.t('{0} bytes', n);
  if (n < 1024 * 1024) return vscode.l10n.t('{0} KB', (n / 1024).toFixed(1));
  return vscode.l10n.t('{0} MB', (n / 1024 / 1024).toFixed(1));
}

/**
 * The length of a document's text in UTF-16 units (what `getText().length` gives) without copying
 * the text: `getText()` joins every line into one string on the extension host's thread — 75 to
 * 180 ms for a 20 MB document of 234,000 lines — where the offset of its end comes from the line
 * starts the document keeps (built once per version of the document). Only asked of a document
 * with unsaved edits: a clean one is the file on disk, whose size says it.
 */
export function documentLength(doc: Pick<vscode.TextDocument, 'lineCount' | 'lineAt' | 'offsetAt'>): number {
  return doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end);
}

/** `diffEditor.maxFileSize` in bytes (MB in the setting, default 50, 0 = no limit). */
export function diffLimitBytes(): number | undefined {
  const mb = vscode.workspace.getConfiguration('diffEditor').get<number>('maxFileSize', 50);
  return typeof mb === 'number' && mb > 0 ? mb * 1024 * 1024 : undefined;
}

/**
 * True when every side fits the diff editor. Otherwise says which side is over the limit and
 * offers to open the revisions in `openable` read-only or to change the limit; false.
 */
export function fitsDiff(log: Log, sides: { name: string; bytes: number }[], openable: RevisionRef[]): boolean {
  const limit = diffLimitBytes();
  const over = limit === undefined ? undefined : sides.find((s) => s.bytes > limit);
  if (!over || limit === undefined) return true;
  const msg = message("{0} is {1}, over the diff editor's limit of {2} (setting {3}), so it is not compared.", plain(over.name), plain(formatBytes(over.bytes)), plain(formatBytes(limit)), plain('diffEditor.maxFileSize'));
  log.info(msg);
  const open = vscode.l10n.t('Open Read-Only');
  const settings = vscode.l10n.t('Change the Limit');
  // What the user picks runs as that command would: its failure is shown like every other.
  background(
    'The message about a diff over the size limit',
    showWarning(msg, open, settings).then(async (pick) => {
      if (pick === open) for (const r of openable) await vscode.commands.executeCommand('siteRevisions.openRevision', r);
      else if (pick === settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'diffEditor.maxFileSize');
    }),
  );
  return false;
}

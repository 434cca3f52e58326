// The working-file policy of the revision commands: where a revision's working file is (the
// site's mapped folder, asked for once, joined with the path safely), whether it is there, and
// how a revision is restored into it — every restore (one file, Restore Checked, a site as it
// was, Restore Newest Revision of the source control) goes through restoreWay() and
// addRestoreEdit():
// - the text way: the revision's text put into the document by an edit (unsaved, one Undo reverts
//   it), chosen only when saving that document gives back the revision's bytes exactly: its bytes
//   are text in the document's encoding and come back the same from it (a byte-order mark, or
//   none, as the document will save it), its line ends are all one kind (the edit sets the
//   document's to it), and no save setting of the file reshapes it (a final newline added,
//   trailing whitespace or final newlines trimmed);
// - the byte way, otherwise: the revision's bytes are written as they are — a new file created
//   with them by the same edit (Undo removes it), an existing one written through the file system
//   once the edit is applied (Undo cannot bring the previous file back: the confirmation says so
//   first, and the message after); an existing file with unsaved changes is refused (they would
//   be lost) rather than written. docs/decisions.md "A restore gives back the revision's bytes".
import * as vscode from 'vscode';
import type { Log } from '../../workbench/log';
import { alert, plain, showInfo, type MessageText } from '../../workbench/messages';
import { background } from '../../core/util/background';
import { sameBytes } from '../../core/util/bytes';
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

/** How a revision is put into its working file (see the header). */
export type RestoreWay =
  | { kind: 'text'; text: string; eol: vscode.EndOfLine | undefined }
  | {
      kind: 'bytes';
      /** Why the editor would not give back the bytes (for the confirmation and the message). */
      reason: string;
    };

const BOM = [0xef, 0xbb, 0xbf];
/** UTF-8 that refuses what is not (the editor would put U+FFFD for it, and save other bytes). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function startsWithBom(b: Uint8Array): boolean {
  return b.byteLength >= 3 && b[0] === BOM[0] && b[1] === BOM[1] && b[2] === BOM[2];
}

/** The document of `uri` when it is open (nothing is opened). */
export function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = uri.toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

/**
 * How to restore `bytes` into `uri` (see the header). `encoding`: the encoding the working file
 * would open with when it is not open (a plan made without opening every file); without it, an
 * existing file is opened as a document to learn its encoding.
 */
export async function restoreWay(uri: vscode.Uri, exists: boolean, bytes: Uint8Array, encoding?: string): Promise<RestoreWay> {
  const bytesWay = (reason: string): RestoreWay => ({ kind: 'bytes', reason });
  let doc = exists ? openDocument(uri) : undefined;
  if (exists && !doc && !encoding) {
    try {
      doc = await vscode.workspace.openTextDocument(uri);
    } catch {
      return bytesWay(vscode.l10n.t('VS Code does not open the working file as text'));
    }
  }
  const enc = doc?.encoding ?? encoding ?? vscode.workspace.getConfiguration('files', uri).get<string>('encoding') ?? 'utf8';
  const notText = () => bytesWay(vscode.l10n.t('its bytes are not text in the encoding the editor saves it with ({0})', enc));
  let text: string;
  if (enc === 'utf8' || enc === 'utf8bom') {
    // Decoded here (the common case): VS Code's decode and encode are a round trip to the workbench.
    const bom = startsWithBom(bytes);
    if (bom && enc === 'utf8') return bytesWay(vscode.l10n.t('it starts with a byte-order mark, which the editor would drop'));
    if (!bom && enc === 'utf8bom') return bytesWay(vscode.l10n.t('it has no byte-order mark, and the editor would add one'));
    try {
      text = strictUtf8.decode(bom ? bytes.subarray(3) : bytes);
    } catch {
      return notText();
    }
  } else {
    let back: Uint8Array;
    try {
      text = await vscode.workspace.decode(bytes, { encoding: enc });
      back = await vscode.workspace.encode(text, { encoding: enc });
    } catch {
      return bytesWay(vscode.l10n.t('VS Code takes it for binary'));
    }
    if (!sameBytes(back, bytes)) return notText();
  }
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = (text.match(/\n/g)?.length ?? 0) - crlf;
  const cr = (text.match(/\r/g)?.length ?? 0) - crlf;
  if (cr) return bytesWay(vscode.l10n.t('it has line ends the editor cannot hold (a carriage return alone)'));
  if (crlf && lf) return bytesWay(vscode.l10n.t('it mixes CRLF and LF line ends, which the editor would make one kind'));
  const files = vscode.workspace.getConfiguration('files', doc ? { uri, languageId: doc.languageId } : uri);
  const setting = (name: string) => files.get<boolean>(name) === true;
  if (setting('insertFinalNewline') && text !== '' && !text.endsWith('\n')) return bytesWay(vscode.l10n.t('it has no final newline, and the setting {0} would add one on save', 'files.insertFinalNewline'));
  if (setting('trimFinalNewlines') && /\n\r?\n$/.test(text)) return bytesWay(vscode.l10n.t('it ends with empty lines, which the setting {0} would remove on save', 'files.trimFinalNewlines'));
  if (setting('trimTrailingWhitespace') && /[ \t](\r?\n|$)/.test(text)) return bytesWay(vscode.l10n.t('it has trailing whitespace, which the setting {0} would remove on save', 'files.trimTrailingWhitespace'));
  return { kind: 'text', text, eol: crlf ? vscode.EndOfLine.CRLF : lf ? vscode.EndOfLine.LF : undefined };
}

/** Why an existing file cannot take the byte way now (its unsaved changes would be lost), else undefined. */
export function bytesRefusal(uri: vscode.Uri, exists: boolean, way: RestoreWay): string | undefined {
  if (way.kind !== 'bytes' || !exists || !openDocument(uri)?.isDirty) return undefined;
  return vscode.l10n.t('{0} has unsaved changes: save or revert them first. Its revision is written to disk as it is ({1}), which would discard them.', uri.scheme === 'file' ? uri.fsPath : uri.toString(true), way.reason);
}

/**
 * Adds a restore to `edit`: by the text way, the whole text of an existing file replaced, or the
 * file created (never over one that appeared since it was looked at: the edit then fails) with
 * the text and the revision's line ends; by the byte way, a new file created with the bytes. An
 * existing file by the byte way gets nothing here: writeRestoredBytes() after the edit. An
 * existing document whose line ends must change gets them first, from setLineEnds() (in one edit,
 * VS Code would record the text's change before the line ends change and undo it at the wrong
 * offsets). False when nothing was added.
 */
export async function addRestoreEdit(edit: vscode.WorkspaceEdit, uri: vscode.Uri, exists: boolean, way: RestoreWay, bytes: Uint8Array): Promise<boolean> {
  if (way.kind === 'bytes') {
    if (!exists) edit.createFile(uri, { ignoreIfExists: false, overwrite: false, contents: bytes });
    return !exists;
  }
  if (exists) {
    const doc = await vscode.workspace.openTextDocument(uri);
    edit.replace(uri, wholeText(doc), way.text);
  } else {
    edit.createFile(uri, { ignoreIfExists: false, overwrite: false });
    edit.set(uri, [vscode.TextEdit.insert(new vscode.Position(0, 0), way.text), ...(way.eol !== undefined ? [vscode.TextEdit.setEndOfLine(way.eol)] : [])]);
  }
  return true;
}

const wholeText = (doc: vscode.TextDocument) => new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);

/** The line ends an existing document must be given by the text way (undefined: it has them). */
async function lineEndsFor(uri: vscode.Uri, exists: boolean, way: RestoreWay): Promise<vscode.EndOfLine | undefined> {
  if (!exists || way.kind !== 'text' || way.eol === undefined) return undefined;
  const doc = await vscode.workspace.openTextDocument(uri);
  return doc.eol !== way.eol ? way.eol : undefined;
}

/**
 * Gives the existing documents of a restore of several files the revision's line ends, in one
 * edit before the restore's own (a second Undo brings them back). Returns how many it changed.
 */
export async function setLineEnds(files: readonly { uri: vscode.Uri; exists: boolean; way: RestoreWay }[]): Promise<number> {
  const edit = new vscode.WorkspaceEdit();
  let n = 0;
  for (const f of files) {
    const eol = await lineEndsFor(f.uri, f.exists, f.way);
    if (eol === undefined) continue;
    edit.set(f.uri, [vscode.TextEdit.setEndOfLine(eol)]);
    n++;
  }
  if (n && !(await vscode.workspace.applyEdit(edit))) throw new Error(vscode.l10n.t('VS Code did not change the line ends of the files to restore; nothing was restored.'));
  return n;
}

/**
 * One file by the text way through its editor, in ONE undo step even when its line ends change:
 * between two undo stops its text is deleted (recorded with the old line ends), the line ends are
 * set, and the revision's text is inserted (recorded with the new ones), so that Undo and Redo
 * both replay at the right offsets. Undefined when its line ends need no change (the caller's
 * WorkspaceEdit does it); false when VS Code did not apply it.
 */
export async function restoreInEditor(uri: vscode.Uri, exists: boolean, way: RestoreWay): Promise<boolean | undefined> {
  const eol = await lineEndsFor(uri, exists, way);
  if (eol === undefined || way.kind !== 'text') return undefined;
  const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
  if (!(await editor.edit((b) => b.delete(wholeText(editor.document)), { undoStopBefore: true, undoStopAfter: false }))) return false;
  if (!(await editor.edit((b) => b.setEndOfLine(eol), { undoStopBefore: false, undoStopAfter: false }))) return false;
  return editor.edit((b) => b.insert(new vscode.Position(0, 0), way.text), { undoStopBefore: false, undoStopAfter: true });
}

/** Writes the revision's bytes over an existing working file (the byte way, after the edit). */
export async function writeRestoredBytes(uri: vscode.Uri, bytes: Uint8Array): Promise<void> {
  await vscode.workspace.fs.writeFile(uri, bytes);
}

/**
 * The message after a restore of several files, with "Save Them": the documents it edited are
 * saved (File > Save All saves only the documents open in an editor; these are not).
 */
export function informRestored(text: MessageText, edited: readonly vscode.Uri[]): void {
  const save = vscode.l10n.t('Save Them');
  background(
    'Offering to save the restored files',
    Promise.resolve(edited.length ? showInfo(text, save) : showInfo(text)).then(async (picked) => {
      if (picked !== save) return;
      for (const uri of edited) {
        const doc = openDocument(uri);
        if (doc?.isDirty) await doc.save();
      }
    }),
  );
}

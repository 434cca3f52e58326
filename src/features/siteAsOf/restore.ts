// "Restore Into Local Folder…": the site (or folder) as of the moment written into the site's
// mapped folder as ONE undoable WorkspaceEdit, after ONE confirmation — a pick of the files that
// counts those replaced (the working file differs), created (it is not there) and "not there
// yet" (it did not exist at that moment: left alone unless ticked, then deleted). Working files
// already as they were are not touched. The safety is the single restore's
// (FolderMapping.resolveRestoreTarget: safe segments, strictly inside the folder, no symbolic link
// leading out, nothing into .git or .vscode); a refused path is said, and never written.
// As Restore Checked does (src/features/history/restore.ts), existence is looked at again after the
// confirmation, and a file that appeared or went meanwhile asks again; nothing is saved.
// The plan the confirmation waits on holds no content (a site of 200 files of 1 MB added 201 MB
// to the host's heap until it was answered): each file's path, revision, SHA-256 and size, and
// how it will be written. The contents are read again when the restore is applied, from the
// store's caches (the run filled them), each checked against its digest. Each file gets the
// revision's bytes (../revisions/workingFile.ts): through the editor where it keeps them, else
// written as they are, which its row in the confirmation says.
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { AsOfFile, AsOfProgress, NotYetFile } from '../../core/asof';
import { FolderMapping } from '../revisions/mapping';
import { addRestoreEdit, bytesRefusal, informRestored, openDocument, restoreWay, setLineEnds, statOf, writeRestoredBytes, type RestoreWay } from '../revisions/workingFile';
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
  /** Existing working files written byte for byte through the file system (the editor would not have kept their bytes; no Undo). */
  written: vscode.Uri[];
  refused: { path: string; reason: string }[];
  cancelled: boolean;
}

/** One file of the plan: no content (see the header). */
interface Planned {
  file: AsOfFile;
  uri: vscode.Uri;
  exists: boolean;
  /** SHA-256 (hex) and length of the revision's bytes. */
  digest: string;
  size: number;
  /** How it will be written: 'text' (the editor keeps the bytes), else why not. */
  way: { kind: 'text' } | { kind: 'bytes'; reason: string };
}

interface Gone {
  file: NotYetFile;
  uri: vscode.Uri;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The encoding a working file that is not open would open with, as far as the settings and its bytes say (undefined: open it to know). */
function likelyEncoding(uri: vscode.Uri, working: Uint8Array | undefined): string | undefined {
  if (openDocument(uri)) return undefined;
  const files = vscode.workspace.getConfiguration('files', uri);
  if (files.get<boolean>('autoGuessEncoding')) return undefined;
  if (working && working[0] === 0xef && working[1] === 0xbb && working[2] === 0xbf) return 'utf8bom';
  return files.get<string>('encoding') || 'utf8';
}

const wayOf = (w: RestoreWay): Planned['way'] => (w.kind === 'text' ? { kind: 'text' } : { kind: 'bytes', reason: w.reason });

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
  const outcome: AsOfRestoreOutcome = { replaced: [], created: [], deleted: [], unchanged: 0, written: [], refused: [], cancelled: false };
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
        if (working && sameBytes(working, bytes)) return void outcome.unchanged++;
        const exists = kind === true;
        const way = await restoreWay(uri, exists, bytes, exists ? likelyEncoding(uri, working) : undefined);
        planned.push({ file: f, uri, exists, digest: sha256(bytes), size: bytes.byteLength, way: wayOf(way) });
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
  // What the user confirms is what happens: looked at again after the confirmation (each file's
  // existence, and how it must be written, from its content read again).
  let chosen: { planned: Planned[]; gone: Gone[] } | undefined;
  let applied: { edit: vscode.WorkspaceEdit; edits: number; write: { uri: vscode.Uri; bytes: Uint8Array }[]; lineEnds: number } | undefined;
  /** Files refused after the confirmation (unsaved changes a byte-for-byte write would discard). */
  const late: AsOfRestoreOutcome['refused'] = [];
  for (let asked = 0; !applied; asked++) {
    if (asked >= 3) throw new Error(vscode.l10n.t('The working files keep appearing and disappearing; nothing was restored.'));
    chosen = await confirm(run, folder, planned, gone, outcome.unchanged);
    if (!chosen) return { ...outcome, cancelled: true };
    const picked = chosen;
    const built = await withRunProgress(AS_OF_VIEW, vscode.l10n.t('Restoring {0} as of {1}', scopeText(run.scope), run.moment.label), abort, (report) => build(picked, abort.signal, report));
    if (abort.signal.aborted) return { ...outcome, cancelled: true };
    outcome.refused.push(...built.refused);
    late.push(...built.refused);
    if (built.moved) {
      gone.splice(0, gone.length, ...(await Promise.all(gone.map(async (g) => ((await isFile(g.uri)) === true ? g : undefined)))).filter((g): g is Gone => !!g));
      continue;
    }
    applied = built;
  }
  /** The edit of the chosen files, their contents read again; `moved` when a file must be asked about again. */
  async function build(c: { planned: Planned[]; gone: Gone[] }, signal: AbortSignal, report: (p: AsOfProgress) => void) {
    const edit = new vscode.WorkspaceEdit();
    const write: { uri: vscode.Uri; bytes: Uint8Array }[] = [];
    const refused: AsOfRestoreOutcome['refused'] = [];
    let moved = false;
    let edits = 0;
    const ways: { uri: vscode.Uri; exists: boolean; way: RestoreWay }[] = [];
    const progress: AsOfProgress = { phase: 'reading', done: 0, total: c.planned.length, failed: 0 };
    for (const p of [...c.planned]) {
      report({ ...progress });
      const now = await isFile(p.uri);
      if (now === 'folder') throw new Error(vscode.l10n.t('{0} is a folder, not a file.', shown(p.uri)));
      const bytes = await revisions.store.content(site.id, p.file.revision.id, { signal });
      if (sha256(bytes) !== p.digest) throw new Error(vscode.l10n.t('The content of revision {0} of {1} is not the one read before the confirmation; nothing was restored.', p.file.revision.id, p.file.path));
      const way = await restoreWay(p.uri, now, bytes);
      const dirty = bytesRefusal(p.uri, now, way);
      if (dirty) {
        refused.push({ path: p.file.path, reason: dirty });
        c.planned.splice(c.planned.indexOf(p), 1);
        planned.splice(planned.indexOf(p), 1);
        continue;
      }
      if (now !== p.exists || way.kind !== p.way.kind) {
        [moved, p.exists, p.way] = [true, now, wayOf(way)];
        continue;
      }
      ways.push({ uri: p.uri, exists: p.exists, way });
      if (await addRestoreEdit(edit, p.uri, p.exists, way, bytes)) edits++;
      if (way.kind === 'bytes' && p.exists) write.push({ uri: p.uri, bytes });
      progress.done++;
    }
    for (const g of c.gone) if ((await isFile(g.uri)) !== true) moved = true;
    let lineEnds = 0;
    if (!moved) {
      for (const g of c.gone) edit.deleteFile(g.uri, { ignoreIfNotExists: true });
      edits += c.gone.length;
      // Before the edit (its text changes recorded after a change of line ends would be undone at the wrong offsets).
      lineEnds = await setLineEnds(ways);
    }
    return { edit, edits, write, refused, moved, lineEnds };
  }
  if (applied.edits && !(await vscode.workspace.applyEdit(applied.edit))) throw new Error(vscode.l10n.t('VS Code did not apply the restore; nothing was changed.'));
  if (applied.lineEnds) inform(message('The line ends of {0} restored files were changed to their revisions’ first: a second Undo brings those back.', applied.lineEnds));
  for (const w of applied.write) await writeRestoredBytes(w.uri, w.bytes);
  chosen = chosen!;
  outcome.replaced = chosen.planned.filter((p) => p.exists).map((p) => p.uri);
  outcome.created = chosen.planned.filter((p) => !p.exists).map((p) => p.uri);
  outcome.deleted = chosen.gone.map((g) => g.uri);
  outcome.written = applied.write.map((w) => w.uri);
  const written = chosen.planned.filter((p) => p.exists && p.way.kind === 'bytes');
  log.info(`Restored ${scopeText(run.scope)} as of ${run.moment.label} in one edit: ${outcome.replaced.length} replaced (${written.length} written byte for byte), ${outcome.created.length} created, ${outcome.deleted.length} deleted, ${outcome.unchanged} already so`);
  if (late.length) inform(message('{0} paths of the site are not restored: {1}', late.length, plain(late.map((x) => x.reason).join(' '))));
  const edited = chosen.planned.filter((p) => p.way.kind === 'text').map((p) => p.uri);
  if (!written.length) informRestored(message('Restored {0} files in one edit ({1} deleted), not saved yet: Save Them keeps them; one Undo reverts them all.', outcome.replaced.length + outcome.created.length, outcome.deleted.length), edited);
  else informRestored(message('Restored {0} files in one edit ({1} deleted); {2} of them written to disk byte for byte, as the editor would not have kept them: {3}. Save Them keeps the others; one Undo reverts those.', outcome.replaced.length + outcome.created.length, outcome.deleted.length, written.length, plain(written.map((p) => `${p.file.rel} (${(p.way as { reason: string }).reason})`).join(', '))), edited);
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
    replaced.map((p) => row(p.file.rel, p.way.kind === 'bytes' ? vscode.l10n.t('replaced on disk at once, byte for byte ({0}): no Undo', p.way.reason) : vscode.l10n.t('replaced'), { p, picked: true })),
  );
  group(
    vscode.l10n.t('Created ({0}): not in the local folder', created.length),
    created.map((p) => row(p.file.rel, p.way.kind === 'bytes' ? vscode.l10n.t('created on disk, byte for byte ({0})', p.way.reason) : vscode.l10n.t('created'), { p, picked: true })),
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

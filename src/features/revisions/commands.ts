// The revision commands: open, compare (with the working file, the previous revision, a
// selected revision, two selected revisions), restore, copy, map folder, load more, and
// "Revisions of Active File" (activeFile.ts). They accept a tree node, a `site-revision:` URI
// (editor title menus) or nothing (the active editor) — see args.ts — and return what happened
// (outcome.ts). The working file's policy is in workingFile.ts, the diff size guard in diffGuard.ts.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { Log } from '../../workbench/log';
import { alert, inform, message, plain, showInfo, showWarning, type MessageText } from '../../workbench/messages';
import { background } from '../../core/util/background';
import { UnavailableOffline, type Notifier } from '../../workbench/notify';
import { isOffline } from '../sites/viewState';
import { ActiveFileRevisions, type RevisionActions } from './activeFile';
import { refOf, siteOf } from './args';
import type { RevisionsController } from './controller';
import { RETRY_COMMAND, type RevisionCommand } from './names';
import { documentLength, fitsDiff, formatBytes } from './diffGuard';
import { notAvailableOffline, revisionDocumentUri } from './fileSystem';
import { exactDate, fileName, LoadMoreNode, RevisionNode, revisionLabel, revisionTitle, whenAndWho, type RevisionRef } from './nodes';
import { notDone, ok, shownUri, type Outcome } from './outcome';
import { addRestoreEdit, bytesRefusal, restoreInEditor, restoreWay, statOf, workingFileOf, writeRestoredBytes, type RestoreWay } from './workingFile';

const decoder = new TextDecoder('utf-8');

export interface RevisionCommandDeps {
  ctl: RevisionsController;
  notifier: Notifier;
  log: Log;
}

export class RevisionCommands implements RevisionActions {
  private readonly activeFile: ActiveFileRevisions;

  constructor(private readonly deps: RevisionCommandDeps) {
    this.activeFile = new ActiveFileRevisions(deps.ctl, this);
  }

  private get ctl(): RevisionsController {
    return this.deps.ctl;
  }

  /** Each command's handler by id (./register.ts registers them at activation and calls these once loaded). */
  handlers(): Record<RevisionCommand, (...args: unknown[]) => unknown> {
    const cmd = (id: string, title: MessageText, fn: (...args: unknown[]) => Promise<Outcome | void> | Outcome | void) => async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        this.deps.notifier.error(title, e, () => vscode.commands.executeCommand(id, ...args));
        return notDone('failed', e instanceof Error ? e.message : String(e));
      }
    };
    return {
      'siteRevisions.openRevision': cmd('siteRevisions.openRevision', message('Open Revision'), async (a) => this.withRef(a, (r) => this.open(r))),
      'siteRevisions.compareWithWorking': cmd('siteRevisions.compareWithWorking', message('Compare with Working File'), async (a) => this.withRef(a, (r) => this.compareWithWorking(r))),
      'siteRevisions.compareWithPrevious': cmd('siteRevisions.compareWithPrevious', message('Compare with Previous Revision'), async (a) => this.withRef(a, (r) => this.compareWithPrevious(r))),
      'siteRevisions.selectForCompare': cmd('siteRevisions.selectForCompare', message('Select for Compare'), async (a) => this.withRef(a, (r) => this.selectForCompare(r))),
      'siteRevisions.compareWithSelected': cmd('siteRevisions.compareWithSelected', message('Compare with Selected'), async (a) => this.withRef(a, (r) => this.compareWithSelected(r))),
      'siteRevisions.compareSelectedRevisions': cmd('siteRevisions.compareSelectedRevisions', message('Compare Selected Revisions'), async (a, all) => this.compareSelected(a, all)),
      'siteRevisions.restoreRevision': cmd('siteRevisions.restoreRevision', message('Restore Revision'), async (a) => this.withRef(a, (r) => this.restore(r))),
      'siteRevisions.copyRevisionContent': cmd('siteRevisions.copyRevisionContent', message('Copy Revision Content'), async (a) => this.withRef(a, (r) => this.copy(r))),
      'siteRevisions.mapFolder': cmd('siteRevisions.mapFolder', message('Map Site to Local Folder'), async (a, folder) => this.mapFolder(a, folder)),
      'siteRevisions.loadMoreRevisions': cmd('siteRevisions.loadMoreRevisions', message('Load More Revisions'), (a) => {
        if (a instanceof LoadMoreNode) this.ctl.loadMore(a);
      }),
      'siteRevisions.revisionsOfActiveFile': cmd('siteRevisions.revisionsOfActiveFile', message('Revisions of Active File'), async (a) => this.activeFile.run(a)),
      [RETRY_COMMAND]: (node?: unknown) => this.ctl.retry(node as never),
    };
  }

  // ---- arguments

  private async withRef(arg: unknown, fn: (ref: RevisionRef) => Promise<Outcome>): Promise<Outcome> {
    const ref = await refOf(this.ctl, arg);
    if (!ref) {
      inform(message('Choose a revision in the Sites view, open a revision, or use “{0}”.', message('Revisions of Active File…')));
      return notDone('none');
    }
    return fn(ref);
  }

  private uriOf(ref: RevisionRef): vscode.Uri {
    return revisionDocumentUri(ref);
  }

  private async previousOf(ref: RevisionRef): Promise<RevisionRef | undefined> {
    const list = await this.ctl.progress(this.ctl.store.revisions(ref.site.id, ref.path), !!this.ctl.store.peekRevisions(ref.site.id, ref.path));
    const i = list.items.findIndex((d) => d.item.id === ref.item.id);
    const p = i >= 0 ? list.items[i + 1] : undefined;
    return p && { site: ref.site, path: ref.path, item: p.item, time: p.time };
  }

  /** A revision's content; while the service cannot be reached, one that is not cached says so (not the transport's error). */
  private content(ref: RevisionRef): Promise<Uint8Array> {
    return this.ctl.progress(this.ctl.store.content(ref.site.id, ref.item.id), !!this.ctl.store.peekContent(ref.site.id, ref.item.id)).catch((e: unknown) => {
      throw isOffline(e) ? new UnavailableOffline(notAvailableOffline(ref.item.id, ref.path), { cause: e }) : e;
    });
  }

  // ---- actions

  /** `show`: where the editor puts the cursor (e.g. a search match), besides `preview`. */
  async open(ref: RevisionRef, show: vscode.TextDocumentShowOptions = {}): Promise<Outcome> {
    await this.content(ref); // one request, progress on the view, errors as a message
    const uri = this.uriOf(ref);
    await vscode.commands.executeCommand('vscode.open', uri, { preview: true, ...show });
    return ok({ uri });
  }

  async compareWithWorking(ref: RevisionRef, show: vscode.TextDocumentShowOptions = {}): Promise<Outcome> {
    const w = await workingFileOf(this.ctl.mapping, this.deps.log, ref, 'compare');
    if ('done' in w) return w;
    const st = await statOf(w.uri);
    if (!st || !(st.type & vscode.FileType.File)) {
      const open = vscode.l10n.t('Open Revision');
      const restore = vscode.l10n.t('Restore Revision…');
      const msg = message('The working file {0} does not exist, so there is nothing to compare with.', plain(shownUri(w.uri)));
      // What the user picks runs as that command would: its failure is shown like every other.
      background(
        'The message about a missing working file',
        showInfo(msg, open, restore).then((pick) => {
          if (pick === open) return vscode.commands.executeCommand('siteRevisions.openRevision', ref);
          if (pick === restore) return vscode.commands.executeCommand('siteRevisions.restoreRevision', ref);
          return undefined;
        }),
      );
      return notDone('missing', msg);
    }
    const bytes = await this.content(ref);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === w.uri.toString());
    // A document without unsaved edits is the file on disk: its size is the truth, and measuring
    // the document's text (its line starts, for 20 MB over a million lines) is not needed.
    const workingBytes = Math.max(st.size, doc?.isDirty ? documentLength(doc) : 0);
    if (!fitsDiff(this.deps.log, [{ name: revisionTitle(ref), bytes: bytes.byteLength }, { name: vscode.l10n.t('The working file {0}', fileName(ref.path)), bytes: workingBytes }], [ref])) return notDone('too-large');
    const left = this.uriOf(ref);
    await vscode.commands.executeCommand('vscode.diff', left, w.uri, vscode.l10n.t('{0} ↔ working file', revisionTitle(ref)), { preview: true, ...show });
    return ok({ left, right: w.uri });
  }

  async compareWithPrevious(ref: RevisionRef): Promise<Outcome> {
    const prev = await this.previousOf(ref);
    if (!prev) {
      const msg = message('This is the oldest revision of {0}: there is no previous revision to compare with.', plain(fileName(ref.path)));
      inform(msg);
      return notDone('none', msg);
    }
    return this.compareTwo(prev, ref);
  }

  /** Diffs two revisions, the older on the left; `show.selection` is in the newer one. */
  async compareTwo(a: RevisionRef, b: RevisionRef, show: vscode.TextDocumentShowOptions = {}): Promise<Outcome> {
    const older = (x: RevisionRef, y: RevisionRef) => (x.time !== undefined && y.time !== undefined && x.time !== y.time ? x.time < y.time : Number(x.item.id) < Number(y.item.id));
    const [l, r] = older(a, b) ? [a, b] : [b, a];
    const [lb, rb] = await Promise.all([this.content(l), this.content(r)]);
    if (!fitsDiff(this.deps.log, [{ name: revisionTitle(l), bytes: lb.byteLength }, { name: revisionTitle(r), bytes: rb.byteLength }], [l, r])) return notDone('too-large');
    const sameFile = l.site.id === r.site.id && l.path === r.path;
    const title = sameFile ? `${revisionTitle(l)} ↔ (${revisionLabel(r).when})` : `${revisionTitle(l)} ↔ ${revisionTitle(r)}`;
    const left = this.uriOf(l);
    const right = this.uriOf(r);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, ...show });
    return ok({ left, right });
  }

  selectForCompare(ref: RevisionRef): Promise<Outcome> {
    this.ctl.select(ref);
    vscode.window.setStatusBarMessage(`$(pass-filled) ${vscode.l10n.t('{0} selected for compare', revisionTitle(ref))}`, 4000);
    return Promise.resolve(ok());
  }

  async compareWithSelected(ref: RevisionRef): Promise<Outcome> {
    const sel = this.ctl.selected;
    if (!sel) {
      inform(message('First use “{0}” on a revision.', message('Select for Compare')));
      return notDone('none');
    }
    if (this.ctl.isSelectedForCompare(ref)) {
      inform(message('This is the revision selected for compare: choose another one.'));
      return notDone('none');
    }
    return this.compareTwo(sel, ref);
  }

  async compareSelected(arg: unknown, all: unknown): Promise<Outcome> {
    const nodes = (Array.isArray(all) ? all : [arg]).filter((n): n is RevisionNode => n instanceof RevisionNode);
    if (nodes.length !== 2) {
      inform(message('Select exactly two revisions in the Sites view (Ctrl/Cmd+click), then choose “{0}”.', message('Compare Selected Revisions')));
      return notDone('none');
    }
    return this.compareTwo(nodes[0]!.ref, nodes[1]!.ref);
  }

  async restore(ref: RevisionRef): Promise<Outcome> {
    const w = await workingFileOf(this.ctl.mapping, this.deps.log, ref, 'restore');
    if ('done' in w) return w;
    const bytes = await this.content(ref);
    // What the user confirms is what happens: the file is looked at again after the confirmation,
    // and if it appeared (or went) meanwhile, or must now be written otherwise, the user is asked
    // again with the new consequence.
    let confirmed: string | undefined;
    let way: RestoreWay;
    let exists: boolean;
    for (let asked = 0; ; asked++) {
      const st = await statOf(w.uri);
      if (st && !(st.type & vscode.FileType.File)) {
        const msg = message('{0} is a folder, not a file: the revision cannot be restored there.', plain(shownUri(w.uri)));
        alert(msg);
        return notDone('refused', msg);
      }
      exists = !!st;
      way = await restoreWay(w.uri, exists, bytes);
      const refused = bytesRefusal(w.uri, exists, way);
      if (refused) {
        alert(plain(refused));
        return notDone('refused', refused);
      }
      const state = `${exists}:${way.kind}`;
      if (confirmed !== state) {
        if (asked >= 3) throw new Error(vscode.l10n.t('{0} keeps appearing and disappearing; the revision was not restored.', shownUri(w.uri)));
        if (!(await this.confirmRestore(ref, w.uri, exists, way))) return notDone('cancelled');
        confirmed = state;
        continue;
      }
      if (await this.applyRestore(w.uri, exists, way, bytes)) break;
      // Not applied: unless the file appeared or went in between, VS Code refused the edit.
      if (!!(await statOf(w.uri)) === exists) throw new Error(vscode.l10n.t('VS Code did not apply the restore to {0}.', shownUri(w.uri)));
    }
    const doc = await vscode.workspace.openTextDocument(w.uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    this.deps.log.info(`Restored revision ${ref.item.id} of site ${ref.site.id} into ${shownUri(w.uri)}${way.kind === 'bytes' ? ` byte for byte (${way.reason})` : ''}`);
    if (way.kind === 'text') inform(message('Restored {0} to the revision of {1}. Save to keep it; Undo reverts it.', plain(fileName(ref.path)), plain(whenAndWho(ref))));
    else if (exists) inform(message('Restored {0} to the revision of {1}: written to disk byte for byte, as the editor would not have kept them ({2}).', plain(fileName(ref.path)), plain(whenAndWho(ref)), plain(way.reason)));
    else inform(message('Restored {0} to the revision of {1}: created on disk byte for byte, as the editor would not have kept them ({2}). Undo removes it.', plain(fileName(ref.path)), plain(whenAndWho(ref)), plain(way.reason)));
    this.ctl.tree.changed();
    return ok({ uri: w.uri });
  }

  private async confirmRestore(ref: RevisionRef, uri: vscode.Uri, exists: boolean, way: RestoreWay): Promise<boolean> {
    const detail =
      way.kind === 'bytes'
        ? exists
          ? message('{0} will be written with the bytes of revision {1} ({2}) at once, not through the editor: {3}. Undo cannot bring the current file back.', plain(shownUri(uri)), plain(ref.item.id), plain(exactDate(ref)), plain(way.reason))
          : message('{0} does not exist: it will be created on disk with the bytes of revision {1} ({2}), not through the editor: {3}. Undo removes it.', plain(shownUri(uri)), plain(ref.item.id), plain(exactDate(ref)), plain(way.reason))
        : exists
          ? message('{0} will get the content of revision {1} ({2}). Unsaved changes in it are replaced too; Undo in the editor brings everything back.', plain(shownUri(uri)), plain(ref.item.id), plain(exactDate(ref)))
          : message('{0} does not exist: it will be created with the content of revision {1} ({2}).', plain(shownUri(uri)), plain(ref.item.id), plain(exactDate(ref)));
    const restoreButton = vscode.l10n.t('Restore');
    return (await showWarning(message('Restore {0} to the revision of {1}?', plain(fileName(ref.path)), plain(whenAndWho(ref))), { modal: true, detail }, restoreButton)) === restoreButton;
  }

  /**
   * One undoable edit: the whole text replaced, or the file created (never over one that
   * appeared since it was looked at: the edit then fails) with the text or the bytes; an
   * existing file by the byte way is written after it. False when VS Code did not apply it.
   */
  private async applyRestore(uri: vscode.Uri, exists: boolean, way: RestoreWay, bytes: Uint8Array): Promise<boolean> {
    const inEditor = await restoreInEditor(uri, exists, way);
    if (inEditor !== undefined) return inEditor;
    const edit = new vscode.WorkspaceEdit();
    if ((await addRestoreEdit(edit, uri, exists, way, bytes)) && !(await vscode.workspace.applyEdit(edit))) return false;
    if (way.kind === 'bytes' && exists) await writeRestoredBytes(uri, bytes);
    return true;
  }

  async copy(ref: RevisionRef): Promise<Outcome> {
    const text = decoder.decode(await this.content(ref));
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`$(clippy) ${vscode.l10n.t('Copied {0} ({1})', revisionTitle(ref), formatBytes(text.length))}`, 4000);
    return ok();
  }

  async mapFolder(arg: unknown, folder: unknown): Promise<Outcome> {
    // From the Sites view with several sites selected, VS Code passes the selection: one folder
    // cannot be the working folder of several sites, so nothing is done (and the user is told).
    if (Array.isArray(folder) && folder.length > 1) {
      inform(message('“{0}” works on one site at a time: select a single site.', plain(vscode.l10n.t('Map Site to Local Folder'))));
      return notDone('none');
    }
    const site = await this.siteOf(arg, vscode.l10n.t('Site to map to a local folder'));
    if (!site) return notDone('cancelled');
    let chosen: vscode.Uri | undefined;
    if (folder instanceof vscode.Uri) {
      await this.ctl.mapping.set(site.id, folder);
      chosen = folder;
    } else chosen = await this.ctl.mapping.ask(site);
    if (!chosen) return notDone('cancelled');
    this.deps.log.info(`Site ${site.id} mapped to ${shownUri(chosen)}`);
    return ok({ uri: chosen });
  }

  // ---- for other features

  /** The sites (deepest mapped folder first) that list a revision path for a local file. */
  findFile(uri: vscode.Uri): Promise<'unmapped' | { site: Site; path: string }[]> {
    return this.activeFile.findFile(uri);
  }

  /** The site of a tree node or id, else the user picks one of the visible sites (undefined: cancelled). */
  siteOf(arg: unknown, placeHolder: string): Promise<Site | undefined> {
    return siteOf(this.ctl, arg, placeHolder);
  }
}

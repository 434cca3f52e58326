// The revision commands: open, compare (with the working file, the previous revision, a
// selected revision, two selected revisions), restore, copy, map folder, load more, and
// "Revisions of Active File". They accept a tree node, a `site-revision:` URI (editor title
// menus) or nothing (the active editor), and return what happened (for tests and scripts).
import * as vscode from 'vscode';
import type { Site } from '../api/types';
import { translate } from '../l10n';
import type { Log } from '../log';
import { SiteNode } from '../sites/sitesTree';
import { alert, inform, message, plain, showInfo, showWarning, type MessageText } from '../ui/messages';
import { background } from '../util/background';
import type { Notifier } from '../ui/notify';
import type { RevisionsController } from './controller';
import { RETRY_COMMAND } from './controller';
import { displayText } from '../util/text';
import { parseRevisionUri, revisionDocumentUri } from './fileSystem';
import { FolderMapping } from './mapping';
import { exactDate, fileName, LoadMoreNode, MappingNode, RevisionNode, revisionLabel, whenAndWho, type RevisionRef } from './nodes';
import { locateSiteFiles } from './locate';
import { relativeTime } from './time';
import type { RevisionAddress } from './uri';

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

/** What a command did; returned to callers (tests) — the user sees messages and editors. */
export type Outcome =
  | { done: true; uri?: vscode.Uri; left?: vscode.Uri; right?: vscode.Uri }
  | { done: false; reason: 'cancelled' | 'refused' | 'missing' | 'too-large' | 'none' | 'failed'; message?: string };

const decoder = new TextDecoder('utf-8');

function ok(extra: { uri?: vscode.Uri; left?: vscode.Uri; right?: vscode.Uri } = {}): Outcome {
  return { done: true, ...extra };
}
function notDone(reason: Exclude<Outcome, { done: true }>['reason'], message?: string): Outcome {
  return message === undefined ? { done: false, reason } : { done: false, reason, message };
}

function shownUri(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString(true);
}

function formatBytes(n: number): string {
  if (n < 1024) return vscode.l10n.t('{0} bytes', n);
  if (n < 1024 * 1024) return vscode.l10n.t('{0} KB', (n / 1024).toFixed(1));
  return vscode.l10n.t('{0} MB', (n / 1024 / 1024).toFixed(1));
}

/** `diffEditor.maxFileSize` in bytes (MB in the setting, default 50, 0 = no limit). */
export function diffLimitBytes(): number | undefined {
  const mb = vscode.workspace.getConfiguration('diffEditor').get<number>('maxFileSize', 50);
  return typeof mb === 'number' && mb > 0 ? mb * 1024 * 1024 : undefined;
}

export interface RevisionCommandDeps {
  ctl: RevisionsController;
  notifier: Notifier;
  log: Log;
}

/** The QuickPick of "Revisions of Active File" while it is open (tests drive it). */
export const picks: { current?: vscode.QuickPick<vscode.QuickPickItem> } = {};

type PickItem = vscode.QuickPickItem & { ref?: RevisionRef; action?: string };

export class RevisionCommands {
  constructor(private readonly deps: RevisionCommandDeps) {}

  private get ctl(): RevisionsController {
    return this.deps.ctl;
  }

  register(): vscode.Disposable[] {
    const cmd = (id: string, title: MessageText, fn: (...args: unknown[]) => Promise<Outcome | void> | Outcome | void) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (e) {
          this.deps.notifier.error(title, e, () => vscode.commands.executeCommand(id, ...args));
          return notDone('failed', e instanceof Error ? e.message : String(e));
        }
      });
    return [
      cmd('siteRevisions.openRevision', message('Open Revision'), async (a) => this.withRef(a, (r) => this.open(r))),
      cmd('siteRevisions.compareWithWorking', message('Compare with Working File'), async (a) => this.withRef(a, (r) => this.compareWithWorking(r))),
      cmd('siteRevisions.compareWithPrevious', message('Compare with Previous Revision'), async (a) => this.withRef(a, (r) => this.compareWithPrevious(r))),
      cmd('siteRevisions.selectForCompare', message('Select for Compare'), async (a) => this.withRef(a, (r) => this.selectForCompare(r))),
      cmd('siteRevisions.compareWithSelected', message('Compare with Selected'), async (a) => this.withRef(a, (r) => this.compareWithSelected(r))),
      cmd('siteRevisions.compareSelectedRevisions', message('Compare Selected Revisions'), async (a, all) => this.compareSelected(a, all)),
      cmd('siteRevisions.restoreRevision', message('Restore Revision'), async (a) => this.withRef(a, (r) => this.restore(r))),
      cmd('siteRevisions.copyRevisionContent', message('Copy Revision Content'), async (a) => this.withRef(a, (r) => this.copy(r))),
      cmd('siteRevisions.mapFolder', message('Map Site to Local Folder'), async (a, folder) => this.mapFolder(a, folder)),
      cmd('siteRevisions.loadMoreRevisions', message('Load More Revisions'), (a) => {
        if (a instanceof LoadMoreNode) this.ctl.loadMore(a);
      }),
      cmd('siteRevisions.revisionsOfActiveFile', message('Revisions of Active File'), async (a) => this.revisionsOfActiveFile(a)),
      vscode.commands.registerCommand(RETRY_COMMAND, (node?: unknown) => this.ctl.retry(node as never)),
    ];
  }

  // ---- arguments

  private async withRef(arg: unknown, fn: (ref: RevisionRef) => Promise<Outcome>): Promise<Outcome> {
    const ref = await this.refOf(arg);
    if (!ref) {
      inform(message('Choose a revision in the Sites view, open a revision, or use “{0}”.', message('Revisions of Active File…')));
      return notDone('none');
    }
    return fn(ref);
  }

  /** A revision from a tree node, a revision URI or address, or the active revision editor. */
  async refOf(arg: unknown): Promise<RevisionRef | undefined> {
    if (arg instanceof RevisionNode) return arg.ref;
    if (arg && typeof arg === 'object' && 'site' in arg && 'item' in arg && 'path' in arg) return arg as RevisionRef;
    let address: RevisionAddress | undefined;
    if (arg instanceof vscode.Uri) address = parseRevisionUri(arg);
    else if (arg && typeof arg === 'object' && 'siteId' in arg && 'revisionId' in arg && 'path' in arg) address = arg as RevisionAddress;
    else {
      const active = vscode.window.activeTextEditor?.document.uri;
      address = active && parseRevisionUri(active);
    }
    return address && this.refFromAddress(address);
  }

  private async refFromAddress(a: RevisionAddress): Promise<RevisionRef | undefined> {
    const site = await this.ctl.site(a.siteId);
    if (!site) throw new Error(vscode.l10n.t('Site {0} is not among the sites of this account.', a.siteId));
    const list = await this.ctl.store.revisions(a.siteId, a.path).catch(() => undefined);
    const d = list?.items.find((x) => x.item.id === a.revisionId);
    return { site, path: a.path, item: d?.item ?? { id: a.revisionId, date: '', author: '' }, time: d?.time };
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

  private content(ref: RevisionRef): Promise<Uint8Array> {
    return this.ctl.progress(this.ctl.store.content(ref.site.id, ref.item.id), !!this.ctl.store.peekContent(ref.site.id, ref.item.id));
  }

  /** `index.php (2024-05-01 15:45, alice)`: as the revision's own tab is titled. */
  private title(ref: RevisionRef): string {
    return `${fileName(ref.path)} (${revisionLabel(ref).when})`;
  }

  // ---- working file

  /**
   * The working file of a revision: asks for the site's folder once, then joins the path safely.
   * A path that could leave the folder (or a symbolic link inside it that leads out) is refused
   * with a message naming the path.
   */
  private async working(ref: RevisionRef, purpose: 'compare' | 'restore'): Promise<{ uri: vscode.Uri; folder: vscode.Uri } | Outcome> {
    const name = displayText(ref.site.name);
    const ask =
      purpose === 'compare'
        ? vscode.l10n.t('Choose the local folder of “{0}” to compare with its working file.', name)
        : vscode.l10n.t('Choose the local folder of “{0}” to restore the revision into its working file.', name);
    const folder = await this.ctl.mapping.ensure(ref.site, ask);
    if (!folder) return notDone('cancelled');
    const w = FolderMapping.resolveWorkingFile(folder, ref.path);
    if (!w.ok) {
      this.deps.log.warn(`Refused a revision path: ${w.reason}`);
      alert(plain(w.reason));
      return notDone('refused', w.reason);
    }
    return { uri: w.uri, folder: w.folder };
  }

  private async statOf(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
    try {
      return await vscode.workspace.fs.stat(uri);
    } catch {
      return undefined;
    }
  }

  /** Refuses a diff over the diff editor's size limit, offering to open the revision read-only. */
  private async fitsDiff(sides: { name: string; bytes: number }[], openable: RevisionRef[]): Promise<boolean> {
    const limit = diffLimitBytes();
    const over = limit === undefined ? undefined : sides.find((s) => s.bytes > limit);
    if (!over || limit === undefined) return true;
    const msg = message("{0} is {1}, over the diff editor's limit of {2} (setting {3}), so it is not compared.", plain(over.name), plain(formatBytes(over.bytes)), plain(formatBytes(limit)), plain('diffEditor.maxFileSize'));
    this.deps.log.info(msg);
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

  // ---- actions

  /** `show`: where the editor puts the cursor (e.g. a search match), besides `preview`. */
  async open(ref: RevisionRef, show: vscode.TextDocumentShowOptions = {}): Promise<Outcome> {
    await this.content(ref); // one request, progress on the view, errors as a message
    const uri = this.uriOf(ref);
    await vscode.commands.executeCommand('vscode.open', uri, { preview: true, ...show });
    return ok({ uri });
  }

  async compareWithWorking(ref: RevisionRef, show: vscode.TextDocumentShowOptions = {}): Promise<Outcome> {
    const w = await this.working(ref, 'compare');
    if ('done' in w) return w;
    const st = await this.statOf(w.uri);
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
    const workingBytes = Math.max(st.size, doc ? doc.getText().length : 0);
    if (!(await this.fitsDiff([{ name: this.title(ref), bytes: bytes.byteLength }, { name: vscode.l10n.t('The working file {0}', fileName(ref.path)), bytes: workingBytes }], [ref]))) return notDone('too-large');
    const left = this.uriOf(ref);
    await vscode.commands.executeCommand('vscode.diff', left, w.uri, vscode.l10n.t('{0} ↔ working file', this.title(ref)), { preview: true, ...show });
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
    if (!(await this.fitsDiff([{ name: this.title(l), bytes: lb.byteLength }, { name: this.title(r), bytes: rb.byteLength }], [l, r]))) return notDone('too-large');
    const sameFile = l.site.id === r.site.id && l.path === r.path;
    const title = sameFile ? `${this.title(l)} ↔ (${revisionLabel(r).when})` : `${this.title(l)} ↔ ${this.title(r)}`;
    const left = this.uriOf(l);
    const right = this.uriOf(r);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, ...show });
    return ok({ left, right });
  }

  selectForCompare(ref: RevisionRef): Promise<Outcome> {
    this.ctl.select(ref);
    vscode.window.setStatusBarMessage(`$(pass-filled) ${vscode.l10n.t('{0} selected for compare', this.title(ref))}`, 4000);
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
    const w = await this.working(ref, 'restore');
    if ('done' in w) return w;
    const text = decoder.decode(await this.content(ref));
    // What the user confirms is what happens: the file is looked at again after the confirmation,
    // and if it appeared (or went) meanwhile, the user is asked again with the new consequence.
    let confirmed: boolean | undefined;
    for (let asked = 0; ; asked++) {
      const st = await this.statOf(w.uri);
      if (st && !(st.type & vscode.FileType.File)) {
        const msg = message('{0} is a folder, not a file: the revision cannot be restored there.', plain(shownUri(w.uri)));
        alert(msg);
        return notDone('refused', msg);
      }
      const exists = !!st;
      if (confirmed !== exists) {
        if (asked >= 3) throw new Error(vscode.l10n.t('{0} keeps appearing and disappearing; the revision was not restored.', shownUri(w.uri)));
        if (!(await this.confirmRestore(ref, w.uri, exists))) return notDone('cancelled');
        confirmed = exists;
        continue;
      }
      if (await this.applyRestore(w.uri, exists, text)) break;
      // Not applied: unless the file appeared or went in between, VS Code refused the edit.
      if (!!(await this.statOf(w.uri)) === exists) throw new Error(vscode.l10n.t('VS Code did not apply the restore to {0}.', shownUri(w.uri)));
    }
    const doc = await vscode.workspace.openTextDocument(w.uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    this.deps.log.info(`Restored revision ${ref.item.id} of site ${ref.site.id} into ${shownUri(w.uri)}`);
    inform(message('Restored {0} to the revision of {1}. Save to keep it; Undo reverts it.', plain(fileName(ref.path)), plain(whenAndWho(ref))));
    this.ctl.tree.changed();
    return ok({ uri: w.uri });
  }

  private async confirmRestore(ref: RevisionRef, uri: vscode.Uri, exists: boolean): Promise<boolean> {
    const detail = exists
      ? message('{0} will get the content of revision {1} ({2}). Unsaved changes in it are replaced too; Undo in the editor brings everything back.', plain(shownUri(uri)), plain(ref.item.id), plain(exactDate(ref)))
      : message('{0} does not exist: it will be created with the content of revision {1} ({2}).', plain(shownUri(uri)), plain(ref.item.id), plain(exactDate(ref)));
    const restoreButton = vscode.l10n.t('Restore');
    return (await showWarning(message('Restore {0} to the revision of {1}?', plain(fileName(ref.path)), plain(whenAndWho(ref))), { modal: true, detail }, restoreButton)) === restoreButton;
  }

  /**
   * One undoable edit: the whole text replaced, or the file created (never over one that
   * appeared since it was looked at: the edit then fails) with the text. False when VS Code did
   * not apply it.
   */
  private async applyRestore(uri: vscode.Uri, exists: boolean, text: string): Promise<boolean> {
    const edit = new vscode.WorkspaceEdit();
    await addRestoreEdit(edit, uri, exists, text);
    return vscode.workspace.applyEdit(edit);
  }

  async copy(ref: RevisionRef): Promise<Outcome> {
    const text = decoder.decode(await this.content(ref));
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`$(clippy) ${vscode.l10n.t('Copied {0} ({1})', this.title(ref), formatBytes(text.length))}`, 4000);
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

  /** The site of a tree node or id, else the user picks one of the visible sites (undefined: cancelled). */
  async siteOf(arg: unknown, placeHolder: string): Promise<Site | undefined> {
    if (arg instanceof SiteNode || arg instanceof MappingNode) return arg.site;
    if (typeof arg === 'string') return this.ctl.site(arg);
    if (arg && typeof arg === 'object' && 'site' in arg && (arg as { site: Site }).site?.id) return (arg as { site: Site }).site;
    const sites = await this.ctl.model.visibleSites();
    const pick = await vscode.window.showQuickPick(
      sites.map((s) => {
        const f = this.ctl.mapping.get(s.id);
        return { label: displayText(s.name), description: [s.server_type, s.domain].filter(Boolean).join(' · '), detail: f ? vscode.l10n.t('Mapped to {0}', shownUri(f)) : undefined, site: s };
      }),
      { placeHolder, matchOnDescription: true },
    );
    return pick?.site;
  }

  // ---- Revisions of Active File

  async revisionsOfActiveFile(arg: unknown): Promise<Outcome> {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri) {
      inform(message('Open a file of a mapped site first.'));
      return notDone('none');
    }
    const rev = parseRevisionUri(uri);
    if (rev) {
      const site = await this.ctl.site(rev.siteId);
      if (!site) return notDone('none');
      return this.pickRevision(site, rev.path);
    }
    let found = await this.findFile(uri);
    if (found === 'unmapped') {
      const map = vscode.l10n.t('Map a Site…');
      const pick = await showInfo(message('{0} is not inside a folder mapped to a site.', plain(shownUri(uri))), map);
      if (pick !== map) return notDone('none');
      const site = await this.siteOf(undefined, vscode.l10n.t('Which site does this file belong to?'));
      if (!site || !(await this.ctl.mapping.ask(site))) return notDone('cancelled');
      found = await this.findFile(uri);
      if (found === 'unmapped') {
        inform(message('{0} is not inside the folder you chose.', plain(shownUri(uri))));
        return notDone('none');
      }
    }
    if (!found.length) {
      const msg = message('No revisions of {0} are stored on the mapped site.', plain(fileName(uri.path)));
      inform(msg);
      return notDone('none', msg);
    }
    let target = found[0]!;
    if (found.length > 1) {
      const pick = await vscode.window.showQuickPick(
        found.map((f) => ({ label: displayText(f.site.name), description: f.path, f })),
        { placeHolder: vscode.l10n.t('This file has revisions on several sites: choose one') },
      );
      if (!pick) return notDone('cancelled');
      target = pick.f;
    }
    return this.pickRevision(target.site, target.path);
  }

  /** The sites (deepest mapped folder first) that list a revision path for a local file. */
  async findFile(uri: vscode.Uri): Promise<'unmapped' | { site: Site; path: string }[]> {
    const found = await locateSiteFiles(uri, this.ctl.mapping, (siteId) => this.ctl.progress(this.ctl.store.siteFiles(siteId), !!this.ctl.store.peekSiteFiles(siteId)));
    if (found === 'unmapped') return found;
    const out: { site: Site; path: string }[] = [];
    for (const f of found) {
      const site = await this.ctl.site(f.siteId);
      if (site) out.push({ site, path: f.path });
    }
    return out;
  }

  /** A QuickPick of a file's revisions (newest first); accepting offers the actions. */
  private async pickRevision(site: Site, path: string): Promise<Outcome> {
    const qp = vscode.window.createQuickPick<PickItem>();
    picks.current = qp;
    qp.title = vscode.l10n.t('Revisions of {0} — {1}', fileName(path), displayText(site.name));
    qp.placeholder = vscode.l10n.t('Choose a revision (the buttons open it, compare it with the previous one, restore it or copy it)');
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.busy = true;
    qp.show();
    const buttons: (vscode.QuickInputButton & { action: string })[] = [
      { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: vscode.l10n.t('Open Revision'), action: 'open' },
      { iconPath: new vscode.ThemeIcon('diff'), tooltip: vscode.l10n.t('Compare with Previous Revision'), action: 'previous' },
      { iconPath: new vscode.ThemeIcon('discard'), tooltip: vscode.l10n.t('Restore Revision…'), action: 'restore' },
      { iconPath: new vscode.ThemeIcon('clippy'), tooltip: vscode.l10n.t('Copy Revision Content'), action: 'copy' },
    ];
    const chosen = new Promise<{ ref: RevisionRef; action?: string } | undefined>((resolve) => {
      qp.onDidTriggerItemButton((e) => {
        const b = e.button as (typeof buttons)[number];
        if (!e.item.ref) return;
        // Runs as the command: its failure is shown like every other (the pick stays open).
        if (b.action === 'copy') background('Copy Revision Content', vscode.commands.executeCommand('siteRevisions.copyRevisionContent', e.item.ref));
        else resolve({ ref: e.item.ref, action: b.action });
      });
      qp.onDidAccept(() => resolve(qp.selectedItems[0]?.ref ? { ref: qp.selectedItems[0].ref } : undefined));
      qp.onDidHide(() => resolve(undefined));
    });
    try {
      const list = await this.ctl.progress(this.ctl.store.revisions(site.id, path));
      const now = Date.now();
      qp.items = list.items.map((d) => {
        const ref: RevisionRef = { site, path, item: d.item, time: d.time };
        return {
          label: `$(history) ${d.time === undefined ? displayText(d.item.date) || vscode.l10n.t('unknown date') : relativeTime(d.time, now, translate, vscode.env.language)}`,
          description: displayText(d.item.author),
          detail: `${exactDate(ref)} · ${vscode.l10n.t('revision {0}', displayText(d.item.id))}`,
          buttons,
          ref,
        };
      });
      if (!list.items.length) qp.placeholder = vscode.l10n.t('No revisions are stored for this file.');
    } catch (e) {
      qp.hide();
      throw e;
    } finally {
      qp.busy = false;
    }
    const result = await chosen;
    qp.hide();
    qp.dispose();
    if (picks.current === qp) picks.current = undefined;
    if (!result) return notDone('cancelled');
    const action = result.action ?? (await this.pickAction(result.ref));
    if (!action) return notDone('cancelled');
    return this.run(action, result.ref);
  }

  private async pickAction(ref: RevisionRef): Promise<string | undefined> {
    const working = await this.ctl.workingFileState(ref.site, ref.path);
    const items: PickItem[] = [
      { label: `$(compare-changes) ${vscode.l10n.t('Compare with Working File')}`, action: 'working', description: working.exists ? undefined : vscode.l10n.t('no working file yet') },
      { label: `$(go-to-file) ${vscode.l10n.t('Open Revision')}`, action: 'open' },
      { label: `$(diff) ${vscode.l10n.t('Compare with Previous Revision')}`, action: 'previous' },
      { label: `$(pass-filled) ${vscode.l10n.t('Select for Compare')}`, action: 'select' },
      ...(this.ctl.selected && !this.ctl.isSelectedForCompare(ref) ? [{ label: `$(diff-multiple) ${vscode.l10n.t('Compare with Selected')}`, action: 'selected', description: this.title(this.ctl.selected) }] : []),
      { label: `$(discard) ${vscode.l10n.t('Restore Revision…')}`, action: 'restore' },
      { label: `$(clippy) ${vscode.l10n.t('Copy Revision Content')}`, action: 'copy' },
    ];
    if (!working.exists) items.push(items.shift()!);
    const qp = vscode.window.createQuickPick<PickItem>();
    picks.current = qp;
    qp.title = this.title(ref);
    qp.placeholder = vscode.l10n.t('What to do with this revision');
    qp.items = items;
    const action = await new Promise<string | undefined>((resolve) => {
      qp.onDidAccept(() => resolve(qp.selectedItems[0]?.action));
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
    qp.hide();
    qp.dispose();
    if (picks.current === qp) picks.current = undefined;
    return action;
  }

  private run(action: string, ref: RevisionRef): Promise<Outcome> {
    switch (action) {
      case 'working':
        return this.compareWithWorking(ref);
      case 'open':
        return this.open(ref);
      case 'previous':
        return this.compareWithPrevious(ref);
      case 'select':
        return this.selectForCompare(ref);
      case 'selected':
        return this.compareWithSelected(ref);
      case 'restore':
        return this.restore(ref);
      case 'copy':
        return this.copy(ref);
      default:
        return Promise.resolve(notDone('none'));
    }
  }
}


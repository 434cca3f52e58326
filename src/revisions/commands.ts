// The revision commands: open, compare (with the working file, the previous revision, a
// selected revision, two selected revisions), restore, copy, map folder, load more, and
// "Revisions of Active File". They accept a tree node, a `site-revision:` URI (editor title
// menus) or nothing (the active editor), and return what happened (for tests and scripts).
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Site } from '../api/types';
import { translate } from '../l10n';
import type { Log } from '../log';
import { SiteNode } from '../sites/sitesTree';
import type { Notifier } from '../ui/notify';
import type { RevisionsController } from './controller';
import { RETRY_COMMAND } from './controller';
import { displayText } from './folders';
import { parseRevisionUri, revisionDocumentUri } from './fileSystem';
import { FolderMapping } from './mapping';
import { exactDate, fileName, LoadMoreNode, MappingNode, RevisionNode, revisionLabel, whenAndWho, type RevisionRef } from './nodes';
import { isInside, quotePath, safeSegments } from './safePath';
import { relativeTime } from './time';
import type { RevisionAddress } from './uri';

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
    const cmd = (id: string, title: string, fn: (...args: unknown[]) => Promise<Outcome | void> | Outcome | void) =>
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (e) {
          void this.deps.notifier.error(title, e, () => vscode.commands.executeCommand(id, ...args));
          return notDone('failed', e instanceof Error ? e.message : String(e));
        }
      });
    return [
      cmd('siteRevisions.openRevision', vscode.l10n.t('Open Revision'), async (a) => this.withRef(a, (r) => this.open(r))),
      cmd('siteRevisions.compareWithWorking', vscode.l10n.t('Compare with Working File'), async (a) => this.withRef(a, (r) => this.compareWithWorking(r))),
      cmd('siteRevisions.compareWithPrevious', vscode.l10n.t('Compare with Previous Revision'), async (a) => this.withRef(a, (r) => this.compareWithPrevious(r))),
      cmd('siteRevisions.selectForCompare', vscode.l10n.t('Select for Compare'), async (a) => this.withRef(a, (r) => this.selectForCompare(r))),
      cmd('siteRevisions.compareWithSelected', vscode.l10n.t('Compare with Selected'), async (a) => this.withRef(a, (r) => this.compareWithSelected(r))),
      cmd('siteRevisions.compareSelectedRevisions', vscode.l10n.t('Compare Selected Revisions'), async (a, all) => this.compareSelected(a, all)),
      cmd('siteRevisions.restoreRevision', vscode.l10n.t('Restore Revision'), async (a) => this.withRef(a, (r) => this.restore(r))),
      cmd('siteRevisions.copyRevisionContent', vscode.l10n.t('Copy Revision Content'), async (a) => this.withRef(a, (r) => this.copy(r))),
      cmd('siteRevisions.mapFolder', vscode.l10n.t('Map Site to Local Folder'), async (a, folder) => this.mapFolder(a, folder)),
      cmd('siteRevisions.loadMoreRevisions', vscode.l10n.t('Load More Revisions'), (a) => {
        if (a instanceof LoadMoreNode) this.ctl.loadMore(a);
      }),
      cmd('siteRevisions.revisionsOfActiveFile', vscode.l10n.t('Revisions of Active File'), async (a) => this.revisionsOfActiveFile(a)),
      vscode.commands.registerCommand(RETRY_COMMAND, (node?: unknown) => this.ctl.retry(node as never)),
    ];
  }

  // ---- arguments

  private async withRef(arg: unknown, fn: (ref: RevisionRef) => Promise<Outcome>): Promise<Outcome> {
    const ref = await this.refOf(arg);
    if (!ref) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Choose a revision in the Sites view, open a revision, or use “{0}”.', vscode.l10n.t('Revisions of Active File…')));
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
    const w = FolderMapping.resolve(folder, ref.path);
    let reason = w.ok ? undefined : w.reason;
    if (w.ok && !this.realPathInside(w.folder, w.uri)) {
      reason = vscode.l10n.t('The revision path {0} leads outside the local folder through a symbolic link, so it is refused.', quotePath(ref.path));
    }
    if (reason || !w.ok) {
      this.deps.log.warn(`Refused a revision path: ${reason}`);
      void vscode.window.showErrorMessage(reason ?? vscode.l10n.t('The revision path is refused.'));
      return notDone('refused', reason);
    }
    return { uri: w.uri, folder: w.folder };
  }

  /** For local files: the deepest existing ancestor, with links resolved, is still inside the folder. */
  private realPathInside(folder: vscode.Uri, uri: vscode.Uri): boolean {
    if (folder.scheme !== 'file' || uri.scheme !== 'file') return true;
    try {
      const root = fs.realpathSync.native(folder.fsPath).replace(/\\/g, '/');
      let p = uri.fsPath;
      for (;;) {
        try {
          const real = fs.realpathSync.native(p).replace(/\\/g, '/');
          return real === root || isInside(root, real, process.platform === 'win32' || process.platform === 'darwin');
        } catch {
          const parent = p.replace(/[\\/][^\\/]*$/, '');
          if (!parent || parent === p) return false;
          p = parent;
        }
      }
    } catch {
      return true; // the folder itself is missing: nothing can be followed out of it
    }
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
    const msg = vscode.l10n.t("{0} is {1}, over the diff editor's limit of {2} (setting {3}), so it is not compared.", over.name, formatBytes(over.bytes), formatBytes(limit), 'diffEditor.maxFileSize');
    this.deps.log.info(msg);
    const open = vscode.l10n.t('Open Read-Only');
    const settings = vscode.l10n.t('Change the Limit');
    void vscode.window.showWarningMessage(msg, open, settings).then(async (pick) => {
      if (pick === open) for (const r of openable) await this.open(r);
      else if (pick === settings) void vscode.commands.executeCommand('workbench.action.openSettings', 'diffEditor.maxFileSize');
    });
    return false;
  }

  // ---- actions

  async open(ref: RevisionRef): Promise<Outcome> {
    await this.content(ref); // one request, progress on the view, errors as a message
    const uri = this.uriOf(ref);
    await vscode.commands.executeCommand('vscode.open', uri, { preview: true });
    return ok({ uri });
  }

  async compareWithWorking(ref: RevisionRef): Promise<Outcome> {
    const w = await this.working(ref, 'compare');
    if ('done' in w) return w;
    const st = await this.statOf(w.uri);
    if (!st || !(st.type & vscode.FileType.File)) {
      const open = vscode.l10n.t('Open Revision');
      const restore = vscode.l10n.t('Restore Revision…');
      const msg = vscode.l10n.t('The working file {0} does not exist, so there is nothing to compare with.', shownUri(w.uri));
      void vscode.window.showInformationMessage(msg, open, restore).then((pick) => {
        if (pick === open) void this.open(ref);
        else if (pick === restore) void this.restore(ref);
      });
      return notDone('missing', msg);
    }
    const bytes = await this.content(ref);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === w.uri.toString());
    const workingBytes = Math.max(st.size, doc ? doc.getText().length : 0);
    if (!(await this.fitsDiff([{ name: this.title(ref), bytes: bytes.byteLength }, { name: vscode.l10n.t('The working file {0}', fileName(ref.path)), bytes: workingBytes }], [ref]))) return notDone('too-large');
    const left = this.uriOf(ref);
    await vscode.commands.executeCommand('vscode.diff', left, w.uri, vscode.l10n.t('{0} ↔ working file', this.title(ref)), { preview: true });
    return ok({ left, right: w.uri });
  }

  async compareWithPrevious(ref: RevisionRef): Promise<Outcome> {
    const prev = await this.previousOf(ref);
    if (!prev) {
      const msg = vscode.l10n.t('This is the oldest revision of {0}: there is no previous revision to compare with.', fileName(ref.path));
      void vscode.window.showInformationMessage(msg);
      return notDone('none', msg);
    }
    return this.compareTwo(prev, ref);
  }

  /** Diffs two revisions, the older on the left. */
  async compareTwo(a: RevisionRef, b: RevisionRef): Promise<Outcome> {
    const older = (x: RevisionRef, y: RevisionRef) => (x.time !== undefined && y.time !== undefined && x.time !== y.time ? x.time < y.time : Number(x.item.id) < Number(y.item.id));
    const [l, r] = older(a, b) ? [a, b] : [b, a];
    const [lb, rb] = await Promise.all([this.content(l), this.content(r)]);
    if (!(await this.fitsDiff([{ name: this.title(l), bytes: lb.byteLength }, { name: this.title(r), bytes: rb.byteLength }], [l, r]))) return notDone('too-large');
    const sameFile = l.site.id === r.site.id && l.path === r.path;
    const title = sameFile ? `${this.title(l)} ↔ (${revisionLabel(r).when})` : `${this.title(l)} ↔ ${this.title(r)}`;
    const left = this.uriOf(l);
    const right = this.uriOf(r);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
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
      void vscode.window.showInformationMessage(vscode.l10n.t('First use “{0}” on a revision.', vscode.l10n.t('Select for Compare')));
      return notDone('none');
    }
    if (this.ctl.isSelectedForCompare(ref)) {
      void vscode.window.showInformationMessage(vscode.l10n.t('This is the revision selected for compare: choose another one.'));
      return notDone('none');
    }
    return this.compareTwo(sel, ref);
  }

  async compareSelected(arg: unknown, all: unknown): Promise<Outcome> {
    const nodes = (Array.isArray(all) ? all : [arg]).filter((n): n is RevisionNode => n instanceof RevisionNode);
    if (nodes.length !== 2) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Select exactly two revisions in the Sites view (Ctrl/Cmd+click), then choose “{0}”.', vscode.l10n.t('Compare Selected Revisions')));
      return notDone('none');
    }
    return this.compareTwo(nodes[0]!.ref, nodes[1]!.ref);
  }

  async restore(ref: RevisionRef): Promise<Outcome> {
    const w = await this.working(ref, 'restore');
    if ('done' in w) return w;
    const text = decoder.decode(await this.content(ref));
    const st = await this.statOf(w.uri);
    if (st && !(st.type & vscode.FileType.File)) {
      const msg = vscode.l10n.t('{0} is a folder, not a file: the revision cannot be restored there.', shownUri(w.uri));
      void vscode.window.showErrorMessage(msg);
      return notDone('refused', msg);
    }
    const exists = !!st;
    const detail = exists
      ? vscode.l10n.t('{0} will get the content of revision {1} ({2}). Unsaved changes in it are replaced too; Undo in the editor brings everything back.', shownUri(w.uri), ref.item.id, exactDate(ref))
      : vscode.l10n.t('{0} does not exist: it will be created with the content of revision {1} ({2}).', shownUri(w.uri), ref.item.id, exactDate(ref));
    const restoreButton = vscode.l10n.t('Restore');
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Restore {0} to the revision of {1}?', fileName(ref.path), whenAndWho(ref)), { modal: true, detail }, restoreButton);
    if (choice !== restoreButton) return notDone('cancelled');
    const edit = new vscode.WorkspaceEdit();
    if (exists) {
      const doc = await vscode.workspace.openTextDocument(w.uri);
      edit.replace(w.uri, new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end), text);
    } else {
      edit.createFile(w.uri, { ignoreIfExists: true });
      edit.insert(w.uri, new vscode.Position(0, 0), text);
    }
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(vscode.l10n.t('VS Code did not apply the restore to {0}.', shownUri(w.uri)));
    const doc = await vscode.workspace.openTextDocument(w.uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    this.deps.log.info(`Restored revision ${ref.item.id} of site ${ref.site.id} into ${shownUri(w.uri)}`);
    void vscode.window.showInformationMessage(vscode.l10n.t('Restored {0} to the revision of {1}. Save to keep it; Undo reverts it.', fileName(ref.path), whenAndWho(ref)));
    this.ctl.tree.changed();
    return ok({ uri: w.uri });
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
      void vscode.window.showInformationMessage(vscode.l10n.t('“{0}” works on one site at a time: select a single site.', vscode.l10n.t('Map Site to Local Folder')));
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

  private async siteOf(arg: unknown, placeHolder: string): Promise<Site | undefined> {
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
      void vscode.window.showInformationMessage(vscode.l10n.t('Open a file of a mapped site first.'));
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
      const pick = await vscode.window.showInformationMessage(vscode.l10n.t('{0} is not inside a folder mapped to a site.', shownUri(uri)), map);
      if (pick !== map) return notDone('none');
      const site = await this.siteOf(undefined, vscode.l10n.t('Which site does this file belong to?'));
      if (!site || !(await this.ctl.mapping.ask(site))) return notDone('cancelled');
      found = await this.findFile(uri);
      if (found === 'unmapped') {
        void vscode.window.showInformationMessage(vscode.l10n.t('{0} is not inside the folder you chose.', shownUri(uri)));
        return notDone('none');
      }
    }
    if (!found.length) {
      const msg = vscode.l10n.t('No revisions of {0} are stored on the mapped site.', fileName(uri.path));
      void vscode.window.showInformationMessage(msg);
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
  private async findFile(uri: vscode.Uri): Promise<'unmapped' | { site: Site; path: string }[]> {
    const matches = this.ctl.mapping.sitesContaining(uri);
    if (!matches.length) return 'unmapped';
    const out: { site: Site; path: string }[] = [];
    for (const m of matches) {
      const site = await this.ctl.site(m.siteId);
      if (!site) continue;
      const files = await this.ctl.progress(this.ctl.store.siteFiles(site.id), !!this.ctl.store.peekSiteFiles(site.id));
      const want = m.segments.join('/');
      const ci = uri.scheme === 'file' && (process.platform === 'win32' || process.platform === 'darwin');
      for (const f of files.files) {
        const s = safeSegments(f.path);
        if (!s.ok) continue;
        const got = s.segments.join('/');
        if (got === want || (ci && got.toLowerCase() === want.toLowerCase())) out.push({ site, path: f.path });
      }
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
        if (b.action === 'copy') void this.copy(e.item.ref);
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


// The source controls of the mapped folders (one per folder: ./folderControl.ts, whose header says
// how each stays current): made and disposed to match the mapped folders, the session and the
// settings, labelled with their sites' names, fed the editors' saves, edits and closes, and asked
// again at the newer-revision alert's interval.
//
// Keyed by account, site and folder, as the revision store and the folder mappings are: site ids
// are only unique within one account, so another account that maps a site with the same id to the
// same folder gets a control of its own — nothing of the previous account's status (paths,
// newest revisions, authors, digests, its snapshot folder) is kept, and its first pass reads again.
//
// A site the account no longer lists (a pass could not read its file list, or the Sites view's
// fresh list does not have it, and Get Sites confirms: src/features/revisions/goneSites.ts) is
// treated as blame treats it: its control goes (groups, badge, status-bar item, letters) and the
// mapping is offered to be forgotten.
import * as vscode from 'vscode';
import { readSettings } from '../../workbench/config';
import { FolderMapping } from '../revisions/mapping';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import { FolderControl, type ControlsDeps } from './folderControl';

/** A control's key: the account, the site and the folder (site ids are only unique within an account). */
function keyOf(account: string, siteId: string, folder: vscode.Uri): string {
  return `${account}\n${siteId}\n${folder.toString()}`;
}

/** The source controls of every mapped folder of the signed-in account. */
export class SiteControls implements vscode.Disposable {
  private readonly controls = new Map<string, FolderControl>();
  private interval: { timer: ReturnType<typeof setInterval>; ms: number } | undefined;
  /** Whether the status was on at the last look at the settings. */
  private statusOn = readSettings().scmStatus;
  /** Site names as the disk cache listed them (for controls made before the Sites model has them); the signed-in account's only. */
  private readonly cachedNames = new Map<string, string>();
  /** Bumped when the session changes: names read for another account are dropped. */
  private namesGeneration = 0;
  /** Sites not in the Sites view's list already asked about (`account#siteId` → the list's fetch time). */
  private readonly goneAsked = new Map<string, number>();
  private readonly subs: vscode.Disposable[] = [];
  private readonly deps: ControlsDeps;

  constructor(deps: ControlsDeps) {
    this.deps = { ...deps, listFailed: (c, e) => this.checkGone(c.siteId, e) };
    this.subs.push(
      vscode.workspace.onDidSaveTextDocument((d) => this.forDocument(d, 'saved')),
      vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length && this.forDocument(e.document, 'edited')),
      vscode.workspace.onDidCloseTextDocument((d) => this.forDocument(d, 'closed')),
      // Back in the window (a file changed in another program's terminal): each folder looks for what the watcher missed.
      vscode.window.onDidChangeWindowState((w) => {
        if (w.focused) for (const c of this.controls.values()) background('Looking for changes the file watcher missed', c.sweep());
      }),
    );
  }

  /** Every control (tests, the language-model tool). */
  all(): FolderControl[] {
    return [...this.controls.values()];
  }

  /** Creates and disposes controls to match the mapped folders and the session. */
  update(): void {
    const want = new Map<string, { siteId: string; folder: vscode.Uri }>();
    const s = readSettings();
    const account = this.deps.account();
    if (account !== undefined && this.deps.session.state === 'signedIn' && (s.scmStatus || s.quickDiff)) {
      for (const m of this.deps.folders.mapped()) {
        if (this.deps.folders.gone?.isGone(m.siteId)) continue;
        this.askIfGone(m.siteId);
        want.set(keyOf(account, m.siteId, m.folder), m);
      }
    }
    for (const [k, c] of this.controls) {
      // A site renamed: the label is fixed at creation, so the control is made again (its state kept).
      const name = this.nameOf(c.siteId);
      const renamed = name !== undefined && displayText(name) !== c.label;
      if (want.has(k) && !renamed) continue;
      c.dispose();
      this.controls.delete(k);
      if (!want.has(k)) continue;
      const again = new FolderControl(c.siteId, c.folder, this.labelOf(c.siteId), this.deps, c.account, c);
      this.controls.set(k, again);
      // What the one before was still reading (its scan ended with it): from the caches, then the rest.
      background('Reading the status of a mapped folder', again.load('open'));
    }
    let unnamed = false;
    for (const [k, m] of want) {
      if (this.controls.has(k)) continue;
      unnamed ||= this.nameOf(m.siteId) === undefined;
      const c = new FolderControl(m.siteId, m.folder, this.labelOf(m.siteId), this.deps, account!);
      this.controls.set(k, c);
      background('Reading the status of a mapped folder', c.load('open'));
    }
    // A control is labelled with its site's name: one made before the Sites model has the site
    // (the Sites view may never have been shown) takes it from the disk cache's list of the
    // sites — no request — and is made again with it; or later, when the model reads the sites
    // (update's callers).
    if (unnamed) {
      const gen = this.namesGeneration;
      background(
        'Reading the cached sites for the source controls',
        this.deps.cachedSites().then((sites) => {
          if (gen !== this.namesGeneration || !sites?.length) return;
          for (const s of sites) this.cachedNames.set(s.id, s.name);
          this.update();
        }),
      );
    }
    this.schedule();
  }

  /**
   * The Sites view's fresh list does not have a mapped site: whether the account still lists it
   * is asked (once per list).
   */
  private askIfGone(siteId: string): void {
    if (!readSettings().scmStatus) return;
    const m = this.deps.model;
    const at = m.fetchedAt;
    if (m.state !== 'ready' || at === undefined || m.find(siteId)) return;
    const k = `${this.deps.account()}#${siteId}`;
    if (this.goneAsked.get(k) === at) return;
    this.goneAsked.set(k, at);
    this.checkGone(siteId, undefined);
  }

  /** After a failure about a site (or its absence from the Sites view): if the account no longer lists it, its controls go and the mapping is offered to be forgotten. */
  private checkGone(siteId: string, failure: unknown): void {
    const gone = this.deps.folders.gone;
    if (!gone || !readSettings().scmStatus) return;
    const account = this.deps.account();
    background(
      'Checking whether a mapped site is gone',
      gone.confirmGone(siteId, failure).then((isGone) => {
        if (!isGone || account !== this.deps.account()) return;
        const folder = this.deps.folders.get(siteId);
        if (folder) gone.skipped(siteId, folder);
        this.update();
      }),
    );
  }

  /** The session changed (signed in, out, another account): the names of before go; the controls follow. */
  sessionChanged(): void {
    this.namesGeneration++;
    this.cachedNames.clear();
    this.update();
  }

  /** A site's name: as the Sites model has it, else as the disk cache listed it. */
  private nameOf(siteId: string): string | undefined {
    return this.deps.model.find(siteId)?.name ?? this.cachedNames.get(siteId);
  }

  private labelOf(siteId: string): string {
    const name = this.nameOf(siteId);
    return name ? displayText(name) : vscode.l10n.t('Site {0}', siteId);
  }

  /** Asks the service for the lists again: one control (the view's title button) or all. */
  async refresh(sc?: unknown): Promise<void> {
    const which = this.all().filter((c) => !sc || c.sc === sc || (sc instanceof Object && 'rootUri' in sc && (sc as vscode.SourceControl).rootUri?.toString() === c.folder.toString()));
    await Promise.all(which.map((c) => c.load('refresh')));
  }

  /** The alert's interval: the lists asked again while the window has the focus. */
  private schedule(): void {
    const ms = this.controls.size && readSettings().scmStatus ? readSettings().alertThrottleMs : 0;
    if (this.interval?.ms === ms) return;
    if (this.interval) clearInterval(this.interval.timer);
    this.interval = undefined;
    if (!ms) return;
    const timer = setInterval(() => {
      if (vscode.window.state.focused) background('Checking the mapped folders again', this.refresh());
    }, ms);
    this.interval = { timer, ms };
  }

  /** A setting of the status, the count or the quick diff, or the alert's interval, changed. */
  settingsChanged(): void {
    const on = readSettings().scmStatus;
    const turnedOn = on && !this.statusOn;
    this.statusOn = on;
    this.update();
    for (const c of this.controls.values()) {
      c.applyQuickDiff();
      // Turned on: read again (from the caches first: what changed while it was off); else drawn again (nothing, when off).
      if (turnedOn) background('Reading the status of a mapped folder', c.load('open'));
      else c.render();
    }
    this.schedule();
  }

  /** The control whose folder holds `uri` (the deepest), if any. */
  controlOf(uri: vscode.Uri): FolderControl | undefined {
    let best: FolderControl | undefined;
    for (const c of this.controls.values()) if (FolderMapping.contains(c.folder, uri) && (!best || c.folder.path.length > best.folder.path.length)) best = c;
    return best;
  }

  private forDocument(doc: vscode.TextDocument, how: 'saved' | 'edited' | 'closed'): void {
    if (doc.uri.scheme === 'site-revision') return;
    for (const c of this.controls.values()) c.documentChanged(doc, how);
  }

  dispose(): void {
    if (this.interval) clearInterval(this.interval.timer);
    for (const c of this.controls.values()) c.dispose();
    this.controls.clear();
    this.subs.forEach((d) => d.dispose());
  }
}

// One mapped folder as a source control in the Source Control view, labelled with its site, with
// three groups — Changed Locally, Newer on the Service, Only on the Service (src/core/status says
// which) — a count badge, and the quick diff of its working files (src/features/editor/quickDiff.ts).
//
// How it stays current:
//   - a folder's control shows the cached state at once (memory and disk: no request), then asks
//     the service, at background priority, for what is not cached (a cold folder costs one Get
//     Revisions per file: src/core/status/scan.ts);
//   - a save, an edit (the editor's text), or a file created, changed or deleted outside VS Code
//     updates that file alone, from the cached newest revision's digest: no request (when that
//     digest was not needed before — the file was not there — it is read then, once). Each look
//     at a file from disk is numbered: a read that a later look overtook is dropped, whether it
//     is an earlier look's or a scan's, so the newest look at the disk always wins;
//   - Refresh (the view's title button), the Sites view's Refresh and the newer-revision alert's
//     interval (`siteRevisions.newerRevisionAlert.throttleMinutes`, while the window has the
//     focus) ask the service for the lists again, at background priority;
//   - when the service cannot be reached, the last known state stays, and the groups and the
//     status-bar item say "offline".
// `siteRevisions.sourceControl.enabled` off: no status is read or drawn (the source control stays
// for the quick diff while that is on).
//
// A control belongs to the account it was made for (src/features/scm/controls.ts keys them by
// account): its status, digests and snapshot folder are that account's, and once disposed it
// draws nothing more — not a group, not a letter (the decorations drop what it had).
// A working file larger than the largest revision the client can read, or one that cannot be
// read, is in the group Not Compared (src/core/status/working.ts); so is a file whose newest
// revision's content was refused as too large (never asked for again).
import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import type { SiteQuickDiff } from '../editor/quickDiff';
import { readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import { FolderMapping } from '../revisions/mapping';
import { ignoresCase } from '../revisions/locate';
import { whenAndWho, type RevisionRef } from '../revisions/nodes';
import { digest, type RevisionStore } from '../../core/model/revisionStore';
import { formatShortLocal } from '../../core/model/time';
import type { SitesModel } from '../sites/sitesModel';
import { FolderStatus, GROUPS, stateOf, type GroupId, type StatusEntry, type WorkingFile } from '../../core/status';
import { MAX_REPLY_BYTES } from '../../core/api/limits';
import { formatBytes } from '../revisions/diffGuard';
import { changedOnDisk, scanStatus, storeSource, type StatusMode } from '../../core/status/scan';
import { readSnapshot, restoreSnapshot, snapshotOf, snapshotSource, writeSnapshot } from '../../core/status/snapshot';
import { DigestCache, nodeWorkingFs, readWorking, type WorkingFs } from '../../core/status/working';
import { background } from '../../core/util/background';
import type { StatusDecorations } from './decorations';
import { SCM_ID } from './names';
import { vscodeWorkingFs } from './workingFs';

/** Local files walked at most for the count of those with no revision. */
const WALK_MAX = 20_000;
/** An edit is hashed once typing pauses this long. */
const EDIT_DEBOUNCE_MS = 300;
/** Files created or deleted outside VS Code: the folder is counted again this long after the last. */
const RECOUNT_DEBOUNCE_MS = 2000;
/** Files that came back from disk without their newest revision's digest known: read this long after the last. */
const DIGESTS_DEBOUNCE_MS = 200;
/**
 * Every working file's size and time looked at (a stat each, nothing read) this often while the
 * window has the focus, and when it gets it: what VS Code's file watcher missed. 2 ms per file,
 * at least 3 s: 4 s for 2,000 files, 40 s for 20,000.
 */
const SWEEP_MIN_MS = 3000;
const SWEEP_MS_PER_FILE = 2;
/** The snapshot is written this long after the last change of the status. */
const SNAPSHOT_DEBOUNCE_MS = 3000;

const encoder = new TextEncoder();

/** A resource of a group, with what its commands need. */
export interface StatusResource extends vscode.SourceControlResourceState {
  readonly group: GroupId;
  readonly ref: RevisionRef;
  /** Why it is not compared (Not Compared only): also the letter's tooltip. */
  readonly why?: string;
}

export interface ControlsDeps {
  session: Session;
  model: SitesModel;
  store: RevisionStore;
  folders: FolderMapping;
  quickDiff: SiteQuickDiff;
  decorations: StatusDecorations;
  log: Log;
  /** Where the signed-in account's status snapshots are kept (undefined: nowhere). */
  snapshotDir: () => string | undefined;
  /** The signed-in account (src/features/revisions/register.ts accountKey); undefined when signed out. */
  account: () => string | undefined;
  /** A pass could not read the site's file list (not offline): the site may be gone (controls.ts asks). */
  listFailed?: (control: FolderControl, failure: unknown) => void;
  /** The sites as the account's disk cache last listed them (no request; undefined: none cached). */
  cachedSites: () => Promise<readonly { id: string; name: string }[] | undefined>;
}

/** The groups' labels (translated when drawn). */
function groupLabel(g: GroupId): string {
  switch (g) {
    case 'changedLocally':
      return vscode.l10n.t('Changed Locally');
    case 'newerOnService':
      return vscode.l10n.t('Newer on the Service');
    case 'notCompared':
      return vscode.l10n.t('Not Compared');
    default:
      return vscode.l10n.t('Only on the Service');
  }
}

/** Why an entry of Not Compared is not compared (its tooltip). */
function notComparedReason(e: StatusEntry): string {
  const w = e.working;
  if (w?.notCompared === 'tooLarge') return vscode.l10n.t('Not compared: the working file is {0}, larger than the largest revision the extension can read ({1}).', formatBytes(w.size), formatBytes(MAX_REPLY_BYTES));
  if (w?.notCompared === 'unreadable') return vscode.l10n.t('Not compared: the working file could not be read ({0}).', w.why ?? '?');
  return vscode.l10n.t('Not compared: the newest revision is larger than the largest reply the extension reads ({0}); it is not downloaded.', formatBytes(MAX_REPLY_BYTES));
}

/** One mapped folder's source control. */
export class FolderControl implements vscode.Disposable {
  readonly status: FolderStatus;
  readonly sc: vscode.SourceControl;
  private readonly groups: Record<GroupId, vscode.SourceControlResourceGroup>;
  private readonly digests = new DigestCache();
  private readonly fs: WorkingFs;
  /** The scan under way (a newer one replaces it). */
  private running: { abort: AbortController; done: Promise<void> } | undefined;
  private offline = false;
  private checkedAt: number | undefined;
  private failure: string | undefined;
  /** The working files with unsaved edits: their state is the editor's text. */
  private readonly edited = new Map<string, WorkingFile>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** What each group shows now (see render). */
  private readonly drawn = new Map<GroupId, string>();
  private recount: ReturnType<typeof setTimeout> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Each working file's looks from disk, numbered: a read overtaken by a later look is dropped. */
  private readonly looks = new Map<string, number>();
  /** Site paths whose working file came back while their newest revision's digest was not known. */
  private readonly digestsWanted = new Set<string>();
  private digestsTimer: ReturnType<typeof setTimeout> | undefined;
  private sweepTimer: ReturnType<typeof setTimeout> | undefined;
  private sweeping = false;
  /** Aborted at dispose: every read of the control ends with it. */
  private readonly life = new AbortController();
  /** The account's folder of status snapshots, as it was when the control was made. */
  private readonly snapshotDir: string | undefined;
  private disposed = false;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    readonly siteId: string,
    readonly folder: vscode.Uri,
    readonly label: string,
    private readonly deps: ControlsDeps,
    /** The account it was made for: its status, caches and snapshot are that account's. */
    readonly account: string,
    previous?: FolderControl,
  ) {
    if (previous && previous.account !== account) throw new Error('A source control keeps the state of its own account only.');
    this.snapshotDir = deps.snapshotDir();
    this.status = previous?.status ?? new FolderStatus(ignoresCase(folder));
    this.sc = vscode.scm.createSourceControl(SCM_ID, label, folder);
    this.sc.inputBox.visible = false;
    this.groups = {
      changedLocally: this.sc.createResourceGroup('changedLocally', groupLabel('changedLocally')),
      newerOnService: this.sc.createResourceGroup('newerOnService', groupLabel('newerOnService')),
      onlyOnService: this.sc.createResourceGroup('onlyOnService', groupLabel('onlyOnService')),
      notCompared: this.sc.createResourceGroup('notCompared', groupLabel('notCompared')),
    };
    for (const g of GROUPS) this.groups[g].hideWhenEmpty = true;
    this.fs = folder.scheme === 'file' ? nodeWorkingFs(folder.fsPath) : vscodeWorkingFs(folder);
    deps.decorations.register(this, folder.path.replace(/\/+$/, '').split('/').length, (uri) => {
      const relative = this.relativeOf(uri);
      return relative !== undefined && this.status.entriesOf(relative).length > 0;
    });
    this.applyQuickDiff();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*'));
    this.subs.push(
      watcher,
      watcher.onDidCreate((uri) => this.onDisk(uri, true)),
      watcher.onDidChange((uri) => this.onDisk(uri, false)),
      watcher.onDidDelete((uri) => this.onDisk(uri, true)),
    );
    if (previous) {
      this.offline = previous.offline;
      this.checkedAt = previous.checkedAt;
      for (const [k, v] of previous.looks) this.looks.set(k, v);
      for (const [k, v] of previous.edited) this.edited.set(k, v);
      this.render();
    }
    this.sweepSoon();
  }

  /** Whether the control is still the signed-in account's and not disposed (else it touches nothing more). */
  private get live(): boolean {
    return !this.disposed && this.deps.account() === this.account;
  }

  applyQuickDiff(): void {
    this.sc.quickDiffProvider = this.deps.quickDiff.provider(this.folder);
  }

  /** The working file of a path inside the folder, relative to it (undefined: not inside). */
  relativeOf(uri: vscode.Uri): string | undefined {
    if (!FolderMapping.contains(this.folder, uri)) return undefined;
    const base = this.folder.path.replace(/\/+$/, '');
    return uri.path.slice(base.length + 1);
  }

  /** Shows the cached state, then asks the service for what is missing (`refresh`: for every list again). */
  load(mode: 'open' | 'refresh'): Promise<void> {
    this.running?.abort.abort();
    if (!this.live) return Promise.resolve();
    if (!readSettings().scmStatus) {
      this.running = undefined;
      this.render();
      return Promise.resolve();
    }
    const abort = new AbortController();
    const end = () => abort.abort();
    this.life.signal.addEventListener('abort', end, { once: true });
    const done = (async () => {
      this.failure = undefined;
      this.render(true);
      if (mode === 'open') {
        // After a window reload: the last known status at once, its working files checked by size and time.
        await this.fromSnapshot(abort.signal);
        const listed = await this.scan('cached', abort.signal);
        this.render(true);
        // Nothing cached: the whole folder (walked too); else what the cache could not say.
        if (!abort.signal.aborted) await this.scan('complete', abort.signal, listed ? this.unknownPaths() : undefined, !listed);
      } else await this.scan('refresh', abort.signal);
    })().finally(() => {
      this.life.signal.removeEventListener('abort', end);
      if (this.running?.abort === abort) this.running = undefined;
      if (!abort.signal.aborted && this.live) {
        this.render();
        this.saveSoon();
      }
    });
    this.running = { abort, done };
    return done;
  }

  /** The snapshot of the folder's last known status, when there is one and nothing is known yet. */
  private async fromSnapshot(signal: AbortSignal): Promise<void> {
    const dir = this.snapshotDir;
    if (!dir || this.status.all().length) return;
    const snap = await readSnapshot(dir, this.siteId, this.folder.toString());
    if (!snap || signal.aborted || !this.live) return;
    restoreSnapshot(this.status, snap, this.digests);
    // Revisions this account's service refused as too large are not asked for again, by any read.
    for (const e of this.status.all()) if (e.newest?.tooLarge) this.deps.store.markTooLarge(this.siteId, e.newest.id);
    await scanStatus(this.status, snapshotSource(this.status), this.fs, this.digests, { signal, override: (relative) => this.edited.get(relative), readWorking: (relative, s) => this.readLooked(relative, s) });
    if (!signal.aborted) this.render(true);
  }

  /** Writes the snapshot once the status has not changed for a moment (never after the control is gone: a sign-out deletes the folder). */
  private saveSoon(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      // Into the folder of the account it was made for, and only while that account is signed in.
      const dir = this.snapshotDir;
      if (!this.live || !dir) return;
      background('Writing the status snapshot', writeSnapshot(dir, snapshotOf(this.status, this.siteId, this.folder.toString())));
    }, SNAPSHOT_DEBOUNCE_MS);
  }

  /** The paths whose state is not known (what a complete pass after the cached one reads). */
  private unknownPaths(): string[] {
    return this.status
      .all()
      .filter((e) => stateOf(e) === 'unknown')
      .map((e) => e.path);
  }

  /** One pass of src/core/status/scan.ts (a complete pass walks the folder only with `walk`); whether the site's list was read. */
  private async scan(mode: StatusMode, signal: AbortSignal, paths?: string[], walk = mode !== 'complete'): Promise<boolean> {
    if (paths && !paths.length) return true;
    let drawn = Date.now();
    try {
      const r = await scanStatus(this.status, storeSource(this.deps.store, this.siteId, mode), this.fs, this.digests, {
        signal,
        ...(paths ? { paths } : {}),
        override: (relative) => this.edited.get(relative),
        readWorking: (relative, s) => this.readLooked(relative, s),
        walkMax: walk ? WALK_MAX : 0,
        onFile: () => {
          // Drawn a few times a second while a long scan goes on.
          if (signal.aborted || Date.now() - drawn < 250) return;
          drawn = Date.now();
          this.render(true);
        },
      });
      if (signal.aborted || r.noList) return !r.noList;
      if (mode !== 'cached') {
        this.offline = r.offline;
        if (!r.offline) this.checkedAt = Date.now();
      }
      if (r.failed) {
        const why = r.error instanceof Error ? r.error.message : String(r.error);
        this.failure = vscode.l10n.t('{0} files could not be checked: {1}', r.failed, why);
        this.deps.log.warn(`Source control of site ${this.siteId}: ${r.failed} files could not be checked (${why})`);
      }
      return true;
    } catch (e) {
      if (!signal.aborted) {
        this.failure = e instanceof Error ? e.message : String(e);
        this.deps.log.warn(`Source control of site ${this.siteId}: the status could not be read`, e);
        // The site's list could not be read: the account may no longer list the site.
        if (this.live) this.deps.listFailed?.(this, e);
      }
      return false;
    }
  }

  /**
   * A working file read from disk by a scan, numbered as a look: undefined (keep what the entry
   * has) when a look from disk started meanwhile — that newer look sets it.
   */
  private async readLooked(relative: string, signal?: AbortSignal): Promise<WorkingFile | null | undefined> {
    const n = this.looks.get(relative) ?? 0;
    const working = await readWorking(this.fs, relative, this.digests, signal ? { signal } : {});
    return (this.looks.get(relative) ?? 0) === n ? working : undefined;
  }

  /** Puts the status into the groups, the count and the status-bar item. */
  render(busy = this.running !== undefined): void {
    // Disposed (or another account's): it draws nothing more, and leaves no letter behind.
    if (!this.live) return;
    if (!readSettings().scmStatus) {
      for (const id of GROUPS) this.groups[id].resourceStates = [];
      this.drawn.clear();
      this.sc.count = 0;
      this.sc.statusBarCommands = [];
      this.deps.decorations.set(this, []);
      return;
    }
    const g = this.status.groups();
    const suffix = this.offline ? ` — ${vscode.l10n.t('offline, last known state')}` : '';
    const all: StatusResource[] = [];
    for (const id of GROUPS) {
      const label = groupLabel(id) + suffix;
      if (this.groups[id].label !== label) this.groups[id].label = label;
      // Drawn again only when something changed (a list drawn again loses a click under way).
      const drawn = g[id].map((e) => `${e.path}\u0000${e.newest?.id}\u0000${e.newest?.author}\u0000${e.newest?.date}`).join('\u0001');
      if (drawn !== this.drawn.get(id)) {
        this.drawn.set(id, drawn);
        this.groups[id].resourceStates = g[id].map((e) => this.resource(e, id)).filter((r): r is StatusResource => !!r);
      }
      all.push(...(this.groups[id].resourceStates as StatusResource[]));
    }
    const counted = readSettings().scmCountGroups;
    this.sc.count = GROUPS.reduce((n, id) => n + (counted.includes(id) ? g[id].length : 0), 0);
    this.deps.decorations.set(this, all);
    this.sc.statusBarCommands = [this.statusCommand(busy, g.unknown)];
  }

  private statusCommand(busy: boolean, unknown: number): vscode.Command {
    const local = this.status.localOnly;
    const lines = [
      vscode.l10n.t('Site Revisions: {0} in {1}', this.label, this.folder.scheme === 'file' ? this.folder.fsPath : this.folder.toString()),
      local.complete
        ? vscode.l10n.t('{0} local files have no revision on the site: they are not listed.', local.count)
        : vscode.l10n.t('More than {0} local files have no revision on the site: they are not listed.', local.count),
    ];
    if (unknown) lines.push(vscode.l10n.t('{0} files not checked yet.', unknown));
    if (this.checkedAt !== undefined) lines.push(vscode.l10n.t('Checked against the service at {0}.', formatShortLocal(this.checkedAt)));
    if (this.failure) lines.push(this.failure);
    lines.push(vscode.l10n.t('Click to check again.'));
    const title = busy
      ? `$(sync~spin) ${vscode.l10n.t('Checking…')}`
      : this.offline
        ? `$(cloud-offline) ${vscode.l10n.t('Offline')}`
        : this.failure
          ? `$(warning) ${this.label}`
          : `$(cloud) ${this.label}`;
    return { command: 'siteRevisions.scm.refresh', title, tooltip: lines.join('\n'), arguments: [this.sc] };
  }

  /** A group's resource for an entry (undefined when the path cannot name a file in the folder). */
  private resource(e: StatusEntry, group: GroupId): StatusResource | undefined {
    const w = FolderMapping.resolve(this.folder, e.path);
    if (!w.ok || !e.newest) return undefined;
    const site = this.deps.model.find(this.siteId) ?? { id: this.siteId, name: this.label };
    const ref = { site, path: e.path, item: { id: e.newest.id, date: e.newest.date, author: e.newest.author }, time: e.newest.time } as RevisionRef;
    const who = whenAndWho(ref);
    const why = group === 'notCompared' ? notComparedReason(e) : undefined;
    const tooltip =
      group === 'onlyOnService'
        ? vscode.l10n.t('Only on the service: no working file. Newest revision {0}', who)
        : why !== undefined
          ? `${why} ${vscode.l10n.t('Newest revision {0}', who)}`
          : vscode.l10n.t('{0} · newest revision {1}', groupLabel(group), who);
    return {
      resourceUri: w.uri,
      group,
      ref,
      ...(why !== undefined ? { why } : {}),
      contextValue: group,
      decorations: { strikeThrough: group === 'onlyOnService', faded: group === 'notCompared', tooltip },
      // Not compared: a click would only be refused (too large) or fail (unreadable); the tooltip says why.
      ...(group === 'notCompared'
        ? {}
        : {
            command:
              group === 'onlyOnService'
                ? { command: 'siteRevisions.openRevision', title: vscode.l10n.t('Open Revision'), arguments: [ref] }
                : { command: 'siteRevisions.compareWithWorking', title: vscode.l10n.t('Compare with Working File'), arguments: [ref] },
          }),
    };
  }

  /**
   * A document of the folder was saved, edited (its text is what counts while it has unsaved
   * changes), or closed (saved or not: the file on disk again). 0 requests.
   */
  documentChanged(doc: vscode.TextDocument, how: 'saved' | 'edited' | 'closed'): void {
    if (!this.live || !readSettings().scmStatus) return;
    const relative = this.relativeOf(doc.uri);
    if (relative === undefined || !this.status.entriesOf(relative).length) return;
    clearTimeout(this.timers.get(relative));
    this.timers.delete(relative);
    if (how === 'edited') {
      // Once typing pauses (the document's dirty state is only known after the change event).
      const timer = setTimeout(() => {
        this.timers.delete(relative);
        if (doc.isClosed) return;
        if (doc.isDirty) this.fromText(relative, doc.getText());
        else this.diskAgain(relative);
      }, EDIT_DEBOUNCE_MS);
      this.timers.set(relative, timer);
    } else this.diskAgain(relative);
  }

  /** A working file's unsaved text: its digest stands for the file until it is saved or closed. */
  private fromText(relative: string, text: string): void {
    const entry = this.status.entriesOf(relative)[0]!;
    const bytes = encoder.encode(text);
    let sum = digest(bytes);
    // The editor's text has no byte order mark; a file (and its revision) may start with one.
    const newest = entry.newest?.digest;
    if (newest && sum !== newest && digest(encoder.encode(`\ufeff${text}`)) === newest) sum = newest;
    const working = { size: bytes.byteLength, mtime: entry.working?.mtime ?? 0, digest: sum };
    this.edited.set(relative, working);
    this.apply(relative, working);
  }

  private diskAgain(relative: string): void {
    this.edited.delete(relative);
    background('Reading a saved working file', this.fromDisk(relative));
  }

  /** One working file read from disk again (0 requests, unless its newest revision's digest was not needed before). */
  async fromDisk(relative: string): Promise<void> {
    if (!this.live || this.edited.has(relative)) return;
    // This look is the newest: a read started before it (a scan's, an earlier look's) is dropped.
    const n = (this.looks.get(relative) ?? 0) + 1;
    this.looks.set(relative, n);
    let working: WorkingFile | null;
    try {
      working = await readWorking(this.fs, relative, this.digests, { signal: this.life.signal });
    } catch {
      return; // disposed
    }
    if (this.looks.get(relative) !== n || this.edited.has(relative)) return;
    this.apply(relative, working);
  }

  private apply(relative: string, working: WorkingFile | null): void {
    if (!this.live) return;
    if (this.status.updateWorking(relative, working).length) this.render();
    // A file that came back while its newest revision's digest was not needed (there was no file): read it now.
    for (const e of this.status.entriesOf(relative)) if (stateOf(e) === 'unknown' && e.newest && e.working && e.newest.digest === undefined) this.digestsWanted.add(e.path);
    if (this.digestsWanted.size) {
      clearTimeout(this.digestsTimer);
      this.digestsTimer = setTimeout(() => background('Reading the digests of files that came back', this.readDigests()), DIGESTS_DEBOUNCE_MS);
    }
    this.saveSoon();
  }

  /** The newest revisions' digests of the files that came back (at background priority). */
  private async readDigests(): Promise<void> {
    const paths = [...this.digestsWanted];
    this.digestsWanted.clear();
    if (!this.live || !readSettings().scmStatus) return;
    await this.scan('complete', this.life.signal, paths, false);
    if (this.live && !this.life.signal.aborted) {
      this.render();
      this.saveSoon();
    }
  }

  /** A file of the folder created, changed or deleted (also by VS Code's own save: then nothing changes). */
  private onDisk(uri: vscode.Uri, createdOrDeleted: boolean): void {
    if (!this.live || !readSettings().scmStatus) return;
    const relative = this.relativeOf(uri);
    if (relative === undefined) return;
    if (this.status.entriesOf(relative).length) background('Reading a changed working file', this.fromDisk(relative));
    else if (createdOrDeleted) {
      clearTimeout(this.recount);
      this.recount = setTimeout(() => background('Counting the local files', this.countLocal()), RECOUNT_DEBOUNCE_MS);
    }
  }

  private async countLocal(): Promise<void> {
    const local = await this.fs.list(WALK_MAX, this.life.signal);
    if (!this.live || this.life.signal.aborted) return;
    this.status.setLocalFiles(local.files, local.complete);
    this.render();
  }

  /** The next look for what the file watcher missed. */
  private sweepSoon(): void {
    clearTimeout(this.sweepTimer);
    if (!this.live) return;
    const ms = Math.max(SWEEP_MIN_MS, this.status.all().length * SWEEP_MS_PER_FILE);
    this.sweepTimer = setTimeout(() => background('Looking for changes the file watcher missed', this.sweep()), ms);
  }

  /**
   * Looks at every working file's size and time (no read), and reads again those that changed
   * without the file watcher saying so: while the window has the focus (now and then, and when it
   * gets it: a file deleted in another program's terminal).
   */
  async sweep(): Promise<void> {
    clearTimeout(this.sweepTimer);
    if (this.live && !this.sweeping && readSettings().scmStatus && vscode.window.state.focused) {
      this.sweeping = true;
      try {
        const changed = await changedOnDisk(this.status, this.fs, { signal: this.life.signal, skip: (relative) => this.edited.has(relative) });
        // Read again 8 at a time (a checkout may have changed thousands).
        let next = 0;
        await Promise.all(Array.from({ length: Math.min(8, changed.length) }, async () => {
          while (next < changed.length && this.live) await this.fromDisk(changed[next++]!);
        }));
      } finally {
        this.sweeping = false;
      }
    }
    this.sweepSoon();
  }

  /** Waits for the scan under way, if any (tests, the language-model tool). */
  async settled(): Promise<void> {
    while (this.running) await this.running.done.catch(() => undefined);
  }

  dispose(): void {
    this.disposed = true;
    this.life.abort();
    this.running?.abort.abort();
    clearTimeout(this.saveTimer);
    clearTimeout(this.digestsTimer);
    clearTimeout(this.sweepTimer);
    for (const t of this.timers.values()) clearTimeout(t);
    clearTimeout(this.recount);
    this.deps.decorations.retire(this);
    this.subs.forEach((d) => d.dispose());
    this.sc.dispose();
  }
}

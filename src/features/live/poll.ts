// How open editors and shown folders of a live server learn of a change made there by someone
// else (issue 34 §6). FTP, SFTP, WebDAV and S3 push nothing, so what is ON SCREEN is polled, by
// size and time (and etag), never by reading contents:
// - the `site-live:` resources VS Code watches (it calls the provider's watch() for open editors
//   and for the folders of a live workspace folder it shows);
// - the live files of the visible editors (whatever VS Code watches or not);
// - the Live Files folders expanded in the Sites view.
// Every `siteRevisions.live.pollSeconds` (default 10; 0 turns it off), only while the window has
// the focus (and once at once when it gets it back), one round at a time; a file is one stat, a
// folder one listing. A change fires onDidChangeFile (an open editor without unsaved edits then
// reloads; one with edits is caught by the guard when saved) and lists the folder again.
// Nothing is polled for a site that has nothing on screen. The temporary files of uploads under
// way (ours or another window's) are not changes.
import * as vscode from 'vscode';
import type { LiveEntry } from '../../core/live';
import { isTempName } from '../../core/transfer/local';
import { background } from '../../core/util/background';
import type { Log } from '../../workbench/log';
import { baseName, joinPath, LIVE_SCHEME, parentPath } from './address';

/** What a poll compares: size, the server's raw time, and the etag (the same values mean unchanged). */
export function signature(e: Pick<LiveEntry, 'type' | 'size' | 'mtimeRaw' | 'etag'> | undefined): string {
  return e ? JSON.stringify([e.type, e.size ?? null, e.mtimeRaw ?? null, e.etag ?? null]) : 'gone';
}

/** The seconds between two rounds (0: off). */
export function pollSeconds(): number {
  const v = vscode.workspace.getConfiguration('siteRevisions.live').get<unknown>('pollSeconds');
  return typeof v === 'number' && Number.isFinite(v) ? (v <= 0 ? 0 : Math.min(3600, Math.max(2, Math.round(v)))) : 10;
}

export interface PollTarget {
  uri: vscode.Uri;
  siteId: string;
  path: string;
  /** A folder (its listing is compared), a file (its stat), or not known yet (stat'ed first). */
  folder: boolean | undefined;
}

export interface PollDeps {
  /** The URI's site and path, or undefined (another account, not a live URI). */
  resolve(uri: vscode.Uri): { siteId: string; path: string } | undefined;
  /** The live file system of a site, only when it has an open connection or something on screen needs one. */
  stat(siteId: string, path: string, signal: AbortSignal): Promise<LiveEntry | undefined>;
  list(siteId: string, path: string, signal: AbortSignal): Promise<LiveEntry[]>;
  /** The folders expanded in the Sites view's Live Files (site id and path). */
  expanded(): { siteId: string; path: string; uri: vscode.Uri }[];
  /** A change was seen: fire the events, list the folder again. */
  changed(events: vscode.FileChangeEvent[], folders: { siteId: string; path: string }[]): void;
  log: Log;
}

export class LivePoll implements vscode.Disposable {
  /** What VS Code watches, by URI, with how many watchers. */
  private readonly watched = new Map<string, { target: PollTarget; count: number }>();
  /** The last signature seen of each target (a file's stat; a folder's entries). */
  private readonly last = new Map<string, string | Map<string, string>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly subs: vscode.Disposable[] = [];
  /** Rounds run (tests wait for one). */
  rounds = 0;
  private readonly roundListeners = new Set<() => void>();

  constructor(private readonly deps: PollDeps) {
    this.subs.push(
      vscode.window.onDidChangeWindowState((s) => {
        if (s.focused) this.soon(0);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('siteRevisions.live.pollSeconds')) this.soon();
      }),
    );
    this.soon();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.abort.abort();
    for (const d of this.subs) d.dispose();
    this.watched.clear();
  }

  /** VS Code watches a live resource (the provider's watch()). */
  watch(uri: vscode.Uri): vscode.Disposable {
    const a = this.deps.resolve(uri);
    if (!a) return new vscode.Disposable(() => undefined);
    const key = uri.toString();
    const have = this.watched.get(key);
    if (have) have.count++;
    else this.watched.set(key, { target: { uri, siteId: a.siteId, path: a.path, folder: a.path === '' ? true : undefined }, count: 1 });
    return new vscode.Disposable(() => {
      const w = this.watched.get(key);
      if (w && --w.count <= 0) this.watched.delete(key);
    });
  }

  /** What is polled now: watched resources, visible live editors, expanded Live Files folders (each once). */
  targets(): PollTarget[] {
    const out = new Map<string, PollTarget>();
    for (const { target } of this.watched.values()) out.set(target.uri.toString(), target);
    for (const e of vscode.window.visibleTextEditors) {
      const uri = e.document.uri;
      if (uri.scheme !== LIVE_SCHEME || out.has(uri.toString())) continue;
      const a = this.deps.resolve(uri);
      if (a && a.path) out.set(uri.toString(), { uri, siteId: a.siteId, path: a.path, folder: false });
    }
    for (const f of this.deps.expanded()) out.set(f.uri.toString(), { uri: f.uri, siteId: f.siteId, path: f.path, folder: true });
    return [...out.values()];
  }

  /** Records what a write left (so our own change is not reported as someone else's). */
  note(uri: vscode.Uri, e: LiveEntry | undefined): void {
    const key = uri.toString();
    if (this.last.has(key) && typeof this.last.get(key) === 'string') this.last.set(key, signature(e));
    const a = this.deps.resolve(uri);
    if (!a) return;
    // The folder's listing as known holds the file too.
    const parent = uri.with({ path: `/${parentPath(a.path)}` }).toString();
    const entries = this.last.get(parent);
    if (entries instanceof Map) {
      if (e) entries.set(baseName(a.path), signature(e));
      else entries.delete(baseName(a.path));
    }
  }

  /** Resolves after the next round ends (tests). */
  nextRound(): Promise<void> {
    return new Promise((resolve) => {
      const l = () => {
        this.roundListeners.delete(l);
        resolve();
      };
      this.roundListeners.add(l);
      this.soon(0);
    });
  }

  private soon(ms?: number): void {
    clearTimeout(this.timer);
    const s = pollSeconds();
    if (ms === undefined && s === 0) return;
    this.timer = setTimeout(() => this.round(), ms ?? s * 1000);
  }

  private round(): void {
    if (this.running) return;
    if (!vscode.window.state.focused && this.roundListeners.size === 0) {
      // Not polled while another window has the focus; the focus coming back polls at once.
      this.soon();
      return;
    }
    this.running = this.poll()
      .catch((e: unknown) => this.deps.log.debug(`Live poll: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        this.running = undefined;
        this.rounds++;
        for (const l of [...this.roundListeners]) l();
        this.soon();
      });
    background('Polling the live files on screen', this.running);
  }

  private async poll(): Promise<void> {
    const targets = this.targets();
    const keep = new Set(targets.map((t) => t.uri.toString()));
    for (const k of [...this.last.keys()]) if (!keep.has(k)) this.last.delete(k);
    const events: vscode.FileChangeEvent[] = [];
    const folders: { siteId: string; path: string }[] = [];
    // Sites one after the other, their targets one after the other: a poll is background work.
    for (const t of targets) {
      if (this.abort.signal.aborted) return;
      const key = t.uri.toString();
      try {
        if (t.folder === undefined) {
          // A watched resource of unknown kind: a folder is listed from the next round on.
          const e = await this.deps.stat(t.siteId, t.path, this.abort.signal);
          t.folder = e?.type === 'dir' || (e?.type === 'symlink' && e.link?.targetType === 'dir');
          if (!t.folder) this.last.set(key, signature(e));
          continue;
        }
        if (t.folder) {
          const entries = await this.deps.list(t.siteId, t.path, this.abort.signal);
          // An upload under way shows as a temporary file (renamed over its target when complete): not a change.
          const now = new Map(entries.filter((e) => !isTempName(e.name)).map((e) => [e.name, signature(e)]));
          const before = this.last.get(key);
          this.last.set(key, now);
          if (!(before instanceof Map)) continue;
          let changed = false;
          for (const [name, sig] of now) {
            const was = before.get(name);
            if (was === sig) continue;
            changed = true;
            events.push({ type: was === undefined ? vscode.FileChangeType.Created : vscode.FileChangeType.Changed, uri: t.uri.with({ path: `/${joinPath(t.path, name)}` }) });
          }
          for (const name of before.keys()) {
            if (now.has(name)) continue;
            changed = true;
            events.push({ type: vscode.FileChangeType.Deleted, uri: t.uri.with({ path: `/${joinPath(t.path, name)}` }) });
          }
          if (changed) folders.push({ siteId: t.siteId, path: t.path });
        } else {
          const e = await this.deps.stat(t.siteId, t.path, this.abort.signal);
          const sig = signature(e);
          const before = this.last.get(key);
          this.last.set(key, sig);
          if (typeof before !== 'string' || before === sig) continue;
          events.push({ type: e ? (before === 'gone' ? vscode.FileChangeType.Created : vscode.FileChangeType.Changed) : vscode.FileChangeType.Deleted, uri: t.uri });
          folders.push({ siteId: t.siteId, path: parentPath(t.path) });
        }
      } catch (e) {
        // A site that cannot be reached now is tried again next round (its editors keep what they show).
        this.deps.log.debug(`Live poll of ${t.siteId}:${t.path}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (events.length) this.deps.changed(events, folders);
  }
}

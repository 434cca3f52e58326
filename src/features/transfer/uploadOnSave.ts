// Upload on save, as the site says (issue 34 §5), the part a person sees: a save of a file of a
// mapped folder whose site has `upload_on_save` on (./flag.ts) is queued for upload through the
// guard (src/core/transfer/queue.ts: saves in a burst are one upload; offline, saves wait in a
// queue kept on disk and go once the server answers again). The first save of a site asks
// whether this computer should do it (the answer is remembered per site; "Upload on Save for a
// Site…" changes it). A status-bar item says what is happening — queued, uploading, uploaded,
// failed, a conflict, offline with n saves waiting — and its click lists the queue with Retry,
// Remove and Resolve… A failure leaves the save as it is on disk and says so, with Retry; a
// conflict is set aside in the Transfers view with the choice.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { UploadQueue, type QueueItem, type QueueSnapshot } from '../../core/transfer';
import { displayText } from '../../core/util/text';
import { background } from '../../core/util/background';
import type { Log } from '../../workbench/log';
import { message, plain, showError, showInfo, showWarning } from '../../workbench/messages';
import { saveFlag, setAnswer } from './flag';
import type { TransferSites } from './sites';

export interface UploadOnSaveDeps {
  sites: TransferSites;
  state: vscode.Memento;
  account: () => string | undefined;
  siteOf: (siteId: string) => Site | undefined;
  log: Log;
  /** A conflict of an upload on save: set it aside and offer the choice. */
  conflict(site: Site, folder: vscode.Uri, item: QueueItem): void;
  /** The kept copies may have changed. */
  copiesChanged(): void;
}

interface SiteQueue {
  site: Site;
  folder: vscode.Uri;
  queue: UploadQueue;
  last: Map<string, QueueItem['state']>;
  sub: { dispose(): void };
}

export class UploadOnSave implements vscode.Disposable {
  private readonly queues = new Map<string, Promise<SiteQueue>>();
  private readonly open = new Map<string, SiteQueue>();
  readonly item: vscode.StatusBarItem;
  /** A site's first-time question on screen now (saves meanwhile wait for its answer). */
  private readonly asking = new Map<string, Promise<boolean>>();
  /** The last upload that ended, for the status bar ("Uploaded index.php") until the next change. */
  private lastDone: { path: string; at: number } | undefined;
  private hideTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly snapshots = new Map<string, { site: Site; snap: QueueSnapshot }>();
  /** Every upload that ended, in order (tests read it). */
  readonly finished: { siteId: string; path: string; state: 'uploaded' | 'failed' | 'conflict' }[] = [];

  constructor(private readonly deps: UploadOnSaveDeps) {
    this.item = vscode.window.createStatusBarItem('siteRevisions.uploadOnSave', vscode.StatusBarAlignment.Left, 40);
    this.item.name = vscode.l10n.t('Site Revisions: Upload on Save');
    this.item.command = 'siteRevisions.uploadQueue';
  }

  dispose(): void {
    this.item.dispose();
    clearTimeout(this.hideTimer);
    background('Closing the upload queues', this.closeAll());
  }

  /** Closes the queues (another account: each queue stays on disk for the next session of that account). */
  async closeAll(): Promise<void> {
    const all = [...this.queues.values()];
    this.queues.clear();
    this.open.clear();
    this.snapshots.clear();
    for (const p of all) {
      const q = await p.catch(() => undefined);
      q?.sub.dispose();
      await q?.queue.dispose();
    }
    this.render();
  }

  /** The queue of a site (opened once: what a previous session left queued goes now). */
  queueOf(site: Site, folder: vscode.Uri): Promise<SiteQueue> {
    const key = `${site.id}\n${folder.toString()}`;
    let p = this.queues.get(key);
    if (!p) {
      p = (async () => {
        const cacheDir = this.deps.sites.cacheFolder();
        const last = new Map<string, QueueItem['state']>();
        const queue = await UploadQueue.open({
          siteId: site.id,
          file: UploadQueue.fileFor(cacheDir, site.id),
          upload: async (p, signal) => {
            const tx = await this.deps.sites.engine(this.deps.siteOf(site.id) ?? site, folder.fsPath);
            const out = await tx.uploadFile(p, { signal });
            if (out.action === 'uploaded' && out.kept) this.deps.copiesChanged();
            return out;
          },
          log: (level, text) => (level === 'warn' ? this.deps.log.warn(text) : this.deps.log.info(text)),
        });
        const sq: SiteQueue = { site, folder, queue, last, sub: { dispose: () => undefined } };
        sq.sub = queue.onDidChange((s) => this.changed(sq, s));
        this.changed(sq, queue.snapshot());
        return sq;
      })();
      this.queues.set(key, p);
      p.catch(() => this.queues.delete(key));
    }
    return p;
  }

  /** A save of a file of the site's mapped folder (`path` root-relative). */
  async saved(site: Site, folder: vscode.Uri, path: string): Promise<void> {
    const account = this.deps.account();
    if (!account) return;
    const flag = saveFlag(site, this.deps.state, account);
    if (!flag.on || flag.answer === 'no') return;
    if (flag.answer !== 'yes' && !(await this.ask(site, path, account))) return;
    const sq = await this.queueOf(site, folder);
    sq.queue.enqueue(path);
  }

  /** The first-time question of a site; true when the answer is to upload. */
  private ask(site: Site, path: string, account: string): Promise<boolean> {
    let p = this.asking.get(site.id);
    if (!p) {
      p = (async () => {
        const yes = vscode.l10n.t('Upload on Save');
        const no = vscode.l10n.t('Not on This Computer');
        const name = path.slice(path.lastIndexOf('/') + 1);
        const pick = await showInfo(
          message('“{0}” is set to upload on save: upload “{1}” to its server now, and each save of its files from now on? Every upload is checked first: a file changed on the server is never replaced without asking you, and what it replaces is kept.', plain(site.name || site.id), plain(name)),
          yes,
          no,
        );
        if (pick === yes || pick === no) await setAnswer(this.deps.state, account, site.id, pick === yes ? 'yes' : 'no');
        return pick === yes;
      })().finally(() => this.asking.delete(site.id));
      this.asking.set(site.id, p);
    }
    return p;
  }

  /** Every queue's items (the status bar's tooltip and the queue's list). */
  items(): { site: Site; folder: vscode.Uri; item: QueueItem; queue: UploadQueue }[] {
    const out: { site: Site; folder: vscode.Uri; item: QueueItem; queue: UploadQueue }[] = [];
    for (const [key, { site, snap }] of this.snapshots) {
      const q = this.open.get(key);
      if (!q) continue;
      for (const item of snap.items) out.push({ site, folder: q.folder, item, queue: q.queue });
    }
    return out;
  }

  private changed(sq: SiteQueue, s: QueueSnapshot): void {
    const key = `${sq.site.id}\n${sq.folder.toString()}`;
    this.open.set(key, sq);
    this.snapshots.set(key, { site: sq.site, snap: s });
    const now = new Map(s.items.map((i) => [i.path, i]));
    // What ended since the last snapshot: an upload gone from the queue is done; a new failure or conflict is said.
    for (const [p, was] of sq.last) {
      const it = now.get(p);
      if (!it && was === 'uploading') {
        this.lastDone = { path: p, at: Date.now() };
        this.finished.push({ siteId: sq.site.id, path: p, state: 'uploaded' });
      } else if (it && it.state !== was && it.state === 'failed') {
        this.finished.push({ siteId: sq.site.id, path: p, state: 'failed' });
        this.sayFailed(sq, it);
      } else if (it && it.state !== was && it.state === 'conflict') {
        this.finished.push({ siteId: sq.site.id, path: p, state: 'conflict' });
        this.deps.conflict(sq.site, sq.folder, it);
      }
    }
    sq.last.clear();
    for (const it of s.items) sq.last.set(it.path, it.state);
    this.render();
  }

  private sayFailed(sq: SiteQueue, it: QueueItem): void {
    const retry = vscode.l10n.t('Retry');
    const show = vscode.l10n.t('Show Upload Queue');
    background(
      'Saying an upload on save failed',
      Promise.resolve(
        showError(
          message('“{0}” was saved on this computer but not uploaded to “{1}”: {2} {3}', plain(it.path), plain(sq.site.name || sq.site.id), plain(it.error?.message ?? ''), plain(it.error?.next ?? '')),
          retry,
          show,
        ),
      ).then(async (pick) => {
        if (pick === retry) sq.queue.retry(it.path);
        else if (pick === show) await vscode.commands.executeCommand('siteRevisions.uploadQueue');
      }),
    );
  }

  /** The status bar item: what is happening now, the queue in its tooltip. */
  render(): void {
    const all = this.items();
    const by = (st: QueueItem['state']) => all.filter((x) => x.item.state === st);
    const uploading = by('uploading');
    const queued = by('queued');
    const failed = by('failed');
    const conflict = by('conflict');
    const offline = by('offline');
    const name = (x: { item: QueueItem }) => displayText(x.item.path.slice(x.item.path.lastIndexOf('/') + 1));
    clearTimeout(this.hideTimer);
    this.item.backgroundColor = undefined;
    if (failed.length) {
      this.item.text = failed.length === 1 ? `$(error) ${vscode.l10n.t('Not uploaded: {0}', name(failed[0]!))}` : `$(error) ${vscode.l10n.t('{0} saves not uploaded', failed.length)}`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (conflict.length) {
      this.item.text = conflict.length === 1 ? `$(warning) ${vscode.l10n.t('Conflict: {0}', name(conflict[0]!))}` : `$(warning) ${vscode.l10n.t('{0} upload conflicts', conflict.length)}`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    } else if (offline.length) {
      this.item.text = `$(cloud-offline) ${offline.length === 1 ? vscode.l10n.t('1 save waiting to upload') : vscode.l10n.t('{0} saves waiting to upload', offline.length)}`;
    } else if (uploading.length) {
      this.item.text = `$(sync~spin) ${uploading.length === 1 ? vscode.l10n.t('Uploading {0}', name(uploading[0]!)) : vscode.l10n.t('Uploading {0} files', uploading.length)}`;
    } else if (queued.length) {
      this.item.text = `$(cloud-upload) ${queued.length === 1 ? vscode.l10n.t('Upload queued: {0}', name(queued[0]!)) : vscode.l10n.t('{0} uploads queued', queued.length)}`;
    } else if (this.lastDone && Date.now() - this.lastDone.at < 10_000) {
      this.item.text = `$(check) ${vscode.l10n.t('Uploaded {0}', displayText(this.lastDone.path.slice(this.lastDone.path.lastIndexOf('/') + 1)))}`;
      this.hideTimer = setTimeout(() => this.render(), 10_000 - (Date.now() - this.lastDone.at));
    } else {
      this.item.hide();
      return;
    }
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = false;
    md.appendMarkdown(`**${vscode.l10n.t('Upload on save')}**\n\n`);
    if (!all.length) md.appendText(vscode.l10n.t('Nothing waiting.'));
    for (const x of all) {
      md.appendMarkdown('- ');
      md.appendText(`${x.item.path} · ${displayText(x.site.name)} · ${stateText(x.item)}${x.item.error ? ` · ${x.item.error.message}` : ''}`);
      md.appendMarkdown('\n');
    }
    md.appendMarkdown(`\n\n${vscode.l10n.t('Click for the queue: Retry, Remove, Resolve…')}`);
    this.item.tooltip = md;
    this.item.accessibilityInformation = { label: `${this.item.text.replace(/\$\([^)]*\)\s*/g, '')}. ${vscode.l10n.t('Click for the upload queue.')}` };
    this.item.show();
  }

  /** The queue as a list (the status bar item's command): Retry, Remove, Resolve… per file; Retry All. */
  async showQueue(resolve: (x: { site: Site; folder: vscode.Uri; item: QueueItem }) => Promise<unknown>): Promise<void> {
    const all = this.items();
    if (!all.length) {
      await showInfo(message('No save is waiting to upload.'));
      return;
    }
    type Pick = vscode.QuickPickItem & { x?: (typeof all)[number]; retryAll?: boolean };
    const picks: Pick[] = [];
    if (all.some((x) => x.item.state === 'failed' || x.item.state === 'offline')) picks.push({ label: `$(refresh) ${vscode.l10n.t('Retry All')}`, retryAll: true });
    for (const x of all) picks.push({ label: `${stateIcon(x.item)} ${displayText(x.item.path)}`, description: `${displayText(x.site.name)} · ${stateText(x.item)}`, detail: x.item.error ? displayText(`${x.item.error.message} ${x.item.error.next}`) : undefined, x });
    const pick = await vscode.window.showQuickPick(picks, { title: vscode.l10n.t('Upload on save'), placeHolder: vscode.l10n.t('Choose a file to retry, remove or resolve') });
    if (!pick) return;
    if (pick.retryAll) {
      for (const q of new Set(all.map((x) => x.queue))) q.retry();
      return;
    }
    const x = pick.x!;
    const retry = vscode.l10n.t('Retry');
    const remove = vscode.l10n.t('Remove from the Queue (the save stays on this computer)');
    const res = vscode.l10n.t('Resolve…');
    const actions = x.item.state === 'conflict' ? [res, remove] : x.item.state === 'failed' || x.item.state === 'offline' ? [retry, remove] : [remove];
    const a = await vscode.window.showQuickPick(actions, { title: displayText(x.item.path) });
    if (a === retry) x.queue.retry(x.item.path);
    else if (a === remove) x.queue.remove(x.item.path);
    else if (a === res) await resolve(x);
  }

  /** Changes this computer's answer for a site (the command "Upload on Save for a Site…"). */
  async chooseFor(site: Site): Promise<'yes' | 'no' | undefined> {
    const account = this.deps.account();
    if (!account) return undefined;
    const flag = saveFlag(site, this.deps.state, account);
    const yes = { label: `$(cloud-upload) ${vscode.l10n.t('Upload on save')}`, description: flag.answer === 'yes' ? vscode.l10n.t('current') : '', v: 'yes' as const };
    const no = { label: `$(circle-slash) ${vscode.l10n.t('Not on this computer')}`, description: flag.answer === 'no' ? vscode.l10n.t('current') : '', v: 'no' as const };
    const site_ = displayText(site.name || site.id);
    const says = flag.on ? (flag.from === 'imported' ? vscode.l10n.t('The site says to upload on save (kept from its import).') : vscode.l10n.t('The site says to upload on save.')) : vscode.l10n.t('The site does not say to upload on save ({0}): saves stay on this computer whatever you choose here.', flag.raw ? displayText(flag.raw) : vscode.l10n.t('not set'));
    const pick = await vscode.window.showQuickPick([yes, no], { title: vscode.l10n.t('Upload on save for “{0}”', site_), placeHolder: says });
    if (!pick) return undefined;
    await setAnswer(this.deps.state, account, site.id, pick.v);
    if (pick.v === 'no') await showWarning(message('Saves of “{0}” stay on this computer.', plain(site.name || site.id)));
    return pick.v;
  }
}

function stateText(i: QueueItem): string {
  switch (i.state) {
    case 'queued':
      return vscode.l10n.t('queued');
    case 'uploading':
      return vscode.l10n.t('uploading');
    case 'failed':
      return vscode.l10n.t('not uploaded');
    case 'conflict':
      return vscode.l10n.t('changed on the server: choose');
    case 'offline':
      return vscode.l10n.t('waiting for the server');
  }
}

function stateIcon(i: QueueItem): string {
  return { queued: '$(cloud-upload)', uploading: '$(sync~spin)', failed: '$(error)', conflict: '$(warning)', offline: '$(cloud-offline)' }[i.state];
}

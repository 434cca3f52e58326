// The newer-revision alert: when a working file of a mapped site is opened or focused and the
// service's newest revision of it is newer than the file on disk (its mtime) and differs from it,
// a status-bar item says "Changed on the service · {author} · {2 hours ago}"; clicking it compares
// the working file with that revision, its × dismisses it (until an even newer one comes).
//
// Checks are throttled per file (`siteRevisions.newerRevisionAlert.throttleMinutes`, default 5:
// focusing a file again within that time sends nothing) and made at background priority. A
// file's first check reads through the store (the history blame and quick diff share: no request
// when they have it); a later one asks the service for the list again (no content), and for the
// newest revision's content only when the store does not have it. Signed out, expired, offline,
// or any failure: no alert and no message (the Sites view says what is wrong).
import * as vscode from 'vscode';
import type { ListReply, RevisionSummary } from '../../core/api/types';
import { readSettings } from '../../workbench/config';
import { translate } from '../../workbench/l10n';
import type { Log } from '../../workbench/log';
import { exactDate, fileName, revisionTitle } from '../revisions/nodes';
import { sortNewestFirst } from '../../core/model/ordering';
import { digest } from '../../core/model/revisionStore';
import { relativeTime } from '../../core/model/time';
import { appendData } from '../../workbench/markdown';

/** Server strings in a trusted hover: no autolinks either. */
const INERT = { noAutolinks: true };
import { InFlight } from '../../core/util/inflight';
import { displayText } from '../../core/util/text';
import type { Listed, Target, WorkingFiles } from './workingFiles';

const COMPARE = 'siteRevisions.newerRevision.compare';
const DISMISS = 'siteRevisions.newerRevision.dismiss';

/** The service's reads a later check makes itself (the store would answer from its cache). */
export interface FreshReads {
  revisions(siteId: string, path: string): Promise<ListReply<RevisionSummary>>;
  content(siteId: string, revisionId: string): Promise<string>;
}

interface Newer {
  target: Target;
  listed: Listed;
}

export type CheckResult = 'throttled' | 'skipped' | 'none' | 'alert';

const key = (uri: vscode.Uri) => uri.toString();
const encoder = new TextEncoder();

export class NewerRevisionAlert implements vscode.Disposable {
  /** The two status-bar items, made when an alert is first shown (activation makes none). */
  private items: { item: vscode.StatusBarItem; dismissItem: vscode.StatusBarItem } | undefined;
  /** When each file was last checked (epoch ms). */
  private readonly lastCheck = new Map<string, number>();
  /** Files checked once in this session (a later check asks the service again). */
  private readonly checkedOnce = new Set<string>();
  /** The newer revision found for each file. */
  private readonly newer = new Map<string, Newer>();
  /** The revision id the user dismissed for each file. */
  private readonly dismissed = new Map<string, string>();
  private readonly inflight = new InFlight();
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly files: WorkingFiles,
    private readonly fresh: FreshReads,
    private readonly log: Log,
  ) {
    this.subs.push(
      vscode.commands.registerCommand(COMPARE, () => this.compare()),
      vscode.commands.registerCommand(DISMISS, () => this.dismiss()),
      vscode.window.onDidChangeActiveTextEditor((e) => this.focused(e)),
    );
  }

  /** The active editor changed (a file opened or focused): shows what is known, checks when due. */
  focused(editor: vscode.TextEditor | undefined): void {
    this.show();
    const uri = editor?.document.uri;
    if (!uri || editor.document.isUntitled || !this.files.isMapped(uri)) return;
    this.check(uri).then(
      () => this.show(),
      (e: unknown) => this.log.debug('Newer-revision check failed', e),
    );
  }

  /** Checks one working file, unless it was checked within the throttle time (a check under way is shared). */
  check(uri: vscode.Uri): Promise<CheckResult> {
    return this.inflight.run(key(uri), () => this.checkNow(uri));
  }

  private async checkNow(uri: vscode.Uri): Promise<CheckResult> {
    const k = key(uri);
    const now = Date.now();
    const last = this.lastCheck.get(k);
    if (last !== undefined && now - last < readSettings().alertThrottleMs) return 'throttled';
    if (!this.files.signedIn()) return 'skipped';
    this.lastCheck.set(k, now);
    try {
      const found = await this.newerOf(uri);
      if (found) this.newer.set(k, found);
      else this.newer.delete(k);
      return found ? 'alert' : 'none';
    } catch (e) {
      this.log.debug('Newer-revision check: no answer', e);
      return 'skipped';
    }
  }

  /** The service's newest revision of a working file when it is newer than the file on disk and differs from it. */
  private async newerOf(uri: vscode.Uri): Promise<Newer | undefined> {
    const target = await this.files.target(uri);
    if (!target) return undefined;
    const k = key(uri);
    let listed: Listed | undefined;
    let content: Uint8Array | undefined;
    if (!this.checkedOnce.has(k)) {
      const newest = await this.files.newest(target, { priority: 'background' });
      this.checkedOnce.add(k);
      listed = newest?.listed;
      content = newest?.content;
    } else {
      listed = sortNewestFirst(await this.fresh.revisions(target.siteId, target.path))[0];
    }
    if (!listed || listed.time === undefined) return undefined;
    const stat = await vscode.workspace.fs.stat(uri);
    if (listed.time <= stat.mtime) return undefined;
    content ??= this.files.store.peekContent(target.siteId, listed.item.id) ?? encoder.encode(await this.fresh.content(target.siteId, listed.item.id));
    const disk = await vscode.workspace.fs.readFile(uri);
    if (digest(disk) === digest(content)) return undefined;
    return { target, listed };
  }

  /** The alert of the active editor's file, when there is one the user did not dismiss. */
  private current(): { uri: vscode.Uri; found: Newer } | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const found = uri && this.newer.get(key(uri));
    if (!uri || !found || this.dismissed.get(key(uri)) === found.listed.item.id) return undefined;
    return { uri, found };
  }

  private statusItems(): { item: vscode.StatusBarItem; dismissItem: vscode.StatusBarItem } {
    if (!this.items) {
      const item = vscode.window.createStatusBarItem('siteRevisions.newerRevision', vscode.StatusBarAlignment.Left, 100);
      const dismissItem = vscode.window.createStatusBarItem('siteRevisions.newerRevision.dismiss', vscode.StatusBarAlignment.Left, 99.9);
      item.name = vscode.l10n.t('Site Revisions: changed on the service');
      dismissItem.name = vscode.l10n.t('Site Revisions: dismiss “changed on the service”');
      dismissItem.text = '$(close)';
      dismissItem.tooltip = vscode.l10n.t('Dismiss');
      dismissItem.command = { command: DISMISS, title: vscode.l10n.t('Dismiss') };
      this.items = { item, dismissItem };
      this.subs.push(item, dismissItem);
    }
    return this.items;
  }

  private show(): void {
    const c = this.current();
    if (!c) {
      this.items?.item.hide();
      this.items?.dismissItem.hide();
      return;
    }
    const { item: bar, dismissItem } = this.statusItems();
    const { item, time } = c.found.listed;
    const when = relativeTime(time, Date.now(), translate, vscode.env.language);
    // `$(` would draw an icon: the author is data.
    const who = displayText(item.author).trim().replace(/\$\(/g, '$\u200b(');
    bar.text = `$(cloud-download) ${who ? vscode.l10n.t('Changed on the service · {0} · {1}', who, when) : vscode.l10n.t('Changed on the service · {0}', when)}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [COMPARE, DISMISS] };
    md.supportHtml = false;
    appendData(md, vscode.l10n.t('A newer revision of {0} is on the service ({1}{2}); it differs from the file on disk.', fileName(c.found.target.path), exactDate(c.found.listed), who ? `, ${who}` : ''), INERT);
    md.appendMarkdown(`\n\n[${vscode.l10n.t('Compare')}](command:${COMPARE}) · [${vscode.l10n.t('Dismiss')}](command:${DISMISS})`);
    bar.tooltip = md;
    bar.command = { command: COMPARE, title: vscode.l10n.t('Compare') };
    bar.show();
    dismissItem.show();
  }

  /** The working file ↔ the newer revision. */
  async compare(): Promise<void> {
    const c = this.current();
    if (!c) return;
    const left = this.files.documentUri(c.found.target, c.found.listed);
    const title = revisionTitle(this.files.ref(c.found.target, c.found.listed));
    await vscode.commands.executeCommand('vscode.diff', left, c.uri, vscode.l10n.t('{0} ↔ working file', title), { preview: true });
  }

  dismiss(): void {
    const c = this.current();
    if (c) this.dismissed.set(key(c.uri), c.found.listed.item.id);
    this.show();
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
  }
}

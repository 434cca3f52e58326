// "Revisions of Active File": from a local file (or a revision's editor) to the file on its
// site, a QuickPick of its revisions, newest first, then a QuickPick of what to do with the one
// chosen. The actions are the revision commands'.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { translate } from '../../workbench/l10n';
import { inform, message, plain, showInfo } from '../../workbench/messages';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import { siteOf } from './args';
import type { RevisionsController } from './controller';
import { parseRevisionUri } from './fileSystem';
import { locateSiteFiles } from './locate';
import { exactDate, fileName, revisionTitle, type RevisionRef } from './nodes';
import { notDone, shownUri, type Outcome } from './outcome';
import { relativeTime } from '../../core/model/time';

/** The QuickPick of "Revisions of Active File" while it is open (tests drive it). */
export const picks: { current?: vscode.QuickPick<vscode.QuickPickItem> } = {};

type PickItem = vscode.QuickPickItem & { ref?: RevisionRef; action?: string };

/** What the pick can do with a revision: the revision commands' actions. */
export interface RevisionActions {
  open(ref: RevisionRef): Promise<Outcome>;
  compareWithWorking(ref: RevisionRef): Promise<Outcome>;
  compareWithPrevious(ref: RevisionRef): Promise<Outcome>;
  selectForCompare(ref: RevisionRef): Promise<Outcome>;
  compareWithSelected(ref: RevisionRef): Promise<Outcome>;
  restore(ref: RevisionRef): Promise<Outcome>;
  copy(ref: RevisionRef): Promise<Outcome>;
}

export class ActiveFileRevisions {
  constructor(
    private readonly ctl: RevisionsController,
    private readonly actions: RevisionActions,
  ) {}

  async run(arg: unknown): Promise<Outcome> {
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
      const site = await siteOf(this.ctl, undefined, vscode.l10n.t('Which site does this file belong to?'));
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
    return this.act(action, result.ref);
  }

  private async pickAction(ref: RevisionRef): Promise<string | undefined> {
    const working = await this.ctl.workingFileState(ref.site, ref.path);
    const items: PickItem[] = [
      { label: `$(compare-changes) ${vscode.l10n.t('Compare with Working File')}`, action: 'working', description: working.exists ? undefined : vscode.l10n.t('no working file yet') },
      { label: `$(go-to-file) ${vscode.l10n.t('Open Revision')}`, action: 'open' },
      { label: `$(diff) ${vscode.l10n.t('Compare with Previous Revision')}`, action: 'previous' },
      { label: `$(pass-filled) ${vscode.l10n.t('Select for Compare')}`, action: 'select' },
      ...(this.ctl.selected && !this.ctl.isSelectedForCompare(ref) ? [{ label: `$(diff-multiple) ${vscode.l10n.t('Compare with Selected')}`, action: 'selected', description: revisionTitle(this.ctl.selected) }] : []),
      { label: `$(discard) ${vscode.l10n.t('Restore Revision…')}`, action: 'restore' },
      { label: `$(clippy) ${vscode.l10n.t('Copy Revision Content')}`, action: 'copy' },
    ];
    if (!working.exists) items.push(items.shift()!);
    const qp = vscode.window.createQuickPick<PickItem>();
    picks.current = qp;
    qp.title = revisionTitle(ref);
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

  private act(action: string, ref: RevisionRef): Promise<Outcome> {
    const a = this.actions;
    switch (action) {
      case 'working':
        return a.compareWithWorking(ref);
      case 'open':
        return a.open(ref);
      case 'previous':
        return a.compareWithPrevious(ref);
      case 'select':
        return a.selectForCompare(ref);
      case 'selected':
        return a.compareWithSelected(ref);
      case 'restore':
        return a.restore(ref);
      case 'copy':
        return a.copy(ref);
      default:
        return Promise.resolve(notDone('none'));
    }
  }
}


// The conflict choice (issue 34 §2): the guard found that the live file changed since its base
// (or that a download would replace edits not uploaded), and wrote nothing. The person sees the
// three diffs and chooses Overwrite, Take Theirs or Cancel.
//
// The surface is a quick pick that stays open while the diffs are (docs/decisions.md, "The
// conflict choice"): a modal dialog closes as soon as a diff opens, so it could not show the
// diffs and the choice together. Its first rows open the three diffs beside it without taking
// the keyboard from it (live ↔ working file, newest revision ↔ live, newest revision ↔ working
// file); the last three rows are the choices, each saying what it writes and what it keeps.
// Arrows and Enter drive it; Escape leaves the conflict listed in the Transfers view to decide
// later (nothing is written); Cancel writes nothing and drops it.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { Conflict } from '../../core/transfer';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import type { RevisionsApi } from '../revisions';
import { keptUri, newestUri } from './uris';

export type Choice = 'overwrite' | 'theirs' | 'cancel';

/** What the conflict's diffs show as "yours": the working file, or (a save of the live folder) the editor being saved. */
export interface ConflictSides {
  site: Site;
  /** The working file (an upload or download), or the live document being saved (a save of the live folder). */
  yours: vscode.Uri | undefined;
  /** The live file as a `site-live:` URI (when its bytes were not held for the diff). */
  live: vscode.Uri;
  /**
   * What is being written: a transfer of a working file; a save of the live folder (Take Theirs
   * drops the edit and shows the live file); a kept copy put back (no Take Theirs: Cancel leaves
   * the live file as it is).
   */
  kind: 'transfer' | 'save' | 'put-back';
}

interface Item extends vscode.QuickPickItem {
  run: 'diff-live-working' | 'diff-newest-live' | 'diff-newest-working' | 'info' | Choice;
}

function fileName(p: string): string {
  return displayText(p.slice(p.lastIndexOf('/') + 1));
}

/** The reason of a conflict, in a sentence of ours (the core's message names the path in quotes). */
export function reasonText(c: Conflict): string {
  switch (c.reason) {
    case 'live-changed':
      return c.base.from === 'newest-revision'
        ? vscode.l10n.t('It changed on the server since its newest revision, outside this editor.')
        : vscode.l10n.t('It changed on the server since this computer last transferred it.');
    case 'no-base':
      return vscode.l10n.t('It differs on the server; never transferred from here, no revision says which is newer.');
    case 'working-changed':
      return vscode.l10n.t('Your working file has edits that were not uploaded.');
    case 'unsaved':
      return vscode.l10n.t('Your working file has unsaved edits in the editor.');
    case 'both-changed':
      return vscode.l10n.t('It changed both in your folder and on the server since the last transfer.');
    case 'deleted-live':
      return vscode.l10n.t('You changed it, and it was deleted on the server since the last transfer.');
    case 'deleted-local':
      return vscode.l10n.t('You deleted it, and it changed on the server since the last transfer.');
  }
}

/** The reason of a conflict in a few words (a row's description). */
export function shortReason(c: Conflict): string {
  switch (c.reason) {
    case 'live-changed':
      return vscode.l10n.t('changed on the server');
    case 'no-base':
      return vscode.l10n.t('differs, never transferred');
    case 'working-changed':
      return vscode.l10n.t('edits not uploaded');
    case 'unsaved':
      return vscode.l10n.t('unsaved edits');
    case 'both-changed':
      return vscode.l10n.t('changed on both sides');
    case 'deleted-live':
      return vscode.l10n.t('changed here, deleted on the server');
    case 'deleted-local':
      return vscode.l10n.t('deleted here, changed on the server');
  }
}

export class ConflictChoice {
  /** The quick pick on screen now (tests and a second conflict read it). */
  current: { conflict: Conflict; pick: vscode.QuickPick<Item> } | undefined;
  /** The diffs a choice opened, by their two sides: the conflict they show (their title bar offers Overwrite and Take Theirs). */
  private readonly opened = new Map<string, Conflict>();

  /** The conflict a diff (opened by a choice) shows. */
  conflictOfDiff(original: vscode.Uri, modified: vscode.Uri): Conflict | undefined {
    return this.opened.get(`${original.toString()}\n${modified.toString()}`);
  }

  constructor(
    private readonly revisions: RevisionsApi,
    private readonly account: () => string,
  ) {}

  /** The three diffs' sides, as far as they exist. */
  diffs(c: Conflict, s: ConflictSides): { liveWorking?: [vscode.Uri, vscode.Uri]; newestLive?: [vscode.Uri, vscode.Uri]; newestWorking?: [vscode.Uri, vscode.Uri] } {
    const live = c.live.exists ? (c.live.copy ? keptUri(c.live.copy, this.account(), vscode.l10n.t('live, as checked')) : s.live) : undefined;
    const newest = c.newest ? newestUri(this.revisions, s.site, c.path, c.newest.revisionId) : undefined;
    const yours = s.kind !== 'transfer' ? s.yours : c.working.exists ? s.yours : undefined;
    return {
      ...(live && yours ? { liveWorking: [live, yours] as [vscode.Uri, vscode.Uri] } : {}),
      ...(newest && live ? { newestLive: [newest, live] as [vscode.Uri, vscode.Uri] } : {}),
      ...(newest && yours ? { newestWorking: [newest, yours] as [vscode.Uri, vscode.Uri] } : {}),
    };
  }

  /**
   * Shows the choice and resolves with what was chosen, or undefined when it was dismissed
   * (Escape: decide later).
   */
  choose(c: Conflict, s: ConflictSides): Promise<Choice | undefined> {
    this.current?.pick.hide();
    const name = fileName(c.path);
    const site = displayText(s.site.name || s.site.id);
    const d = this.diffs(c, s);
    const yoursWord = s.kind === 'save' ? vscode.l10n.t('your edit') : s.kind === 'put-back' ? vscode.l10n.t('kept copy') : vscode.l10n.t('working file');
    const items: Item[] = [];
    const sep = (label: string): Item => ({ label, kind: vscode.QuickPickItemKind.Separator, run: 'info' });
    items.push(sep(vscode.l10n.t('Compare (opens beside, this stays open)')));
    if (d.liveWorking) items.push({ run: 'diff-live-working', label: `$(diff) ${vscode.l10n.t('Live ↔ {0}', yoursWord)}`, description: vscode.l10n.t('what the server has now, against yours') });
    if (d.newestLive) items.push({ run: 'diff-newest-live', label: `$(diff) ${vscode.l10n.t('Newest revision ↔ live')}`, description: vscode.l10n.t('what was changed on the server outside this editor') });
    if (d.newestWorking) items.push({ run: 'diff-newest-working', label: `$(diff) ${vscode.l10n.t('Newest revision ↔ {0}', yoursWord)}`, description: vscode.l10n.t('your changes') });
    if (!d.newestLive && !d.newestWorking) items.push({ run: 'info', label: `$(info) ${vscode.l10n.t('No revision of this file on the service: only live ↔ yours can be compared')}`, alwaysShow: true, description: '' });
    items.push(sep(vscode.l10n.t('Choose')));
    const liveGone = !c.live.exists;
    const mineGone = s.kind === 'transfer' && !c.working.exists;
    // One line each (the pick stays over the diffs: the shorter, the more of them shows).
    const kept = (what: string, note: string) => `${what} · ${note}`;
    items.push({
      run: 'overwrite',
      label: `$(cloud-upload) ${vscode.l10n.t('Overwrite')}`,
      description: liveGone
        ? vscode.l10n.t('upload yours (the live file is gone)')
        : kept(
            mineGone ? vscode.l10n.t('delete the live file too') : s.kind === 'save' ? vscode.l10n.t('save your edit to the server') : s.kind === 'put-back' ? vscode.l10n.t('put the kept copy back over the live file') : vscode.l10n.t('upload yours over the live file'),
            vscode.l10n.t('the live bytes are kept first'),
          ),
    });
    if (s.kind !== 'put-back') {
      items.push({
        run: 'theirs',
        label: `$(cloud-download) ${vscode.l10n.t('Take Theirs')}`,
        description: kept(
          s.kind === 'save' ? vscode.l10n.t('drop your edit, show the live file') : liveGone ? vscode.l10n.t('delete your working file too') : vscode.l10n.t('download the live file over yours'),
          s.kind === 'save' ? vscode.l10n.t('your edit is kept first') : vscode.l10n.t('yours is kept first'),
        ),
      });
    }
    items.push({
      run: 'cancel',
      label: `$(close) ${vscode.l10n.t('Cancel')}`,
      description: s.kind === 'save' ? vscode.l10n.t('write nothing · your edit stays in the editor, not saved') : vscode.l10n.t('write nothing on either side · Escape: decide later, from Transfers'),
    });

    const pick = vscode.window.createQuickPick<Item>();
    pick.title = vscode.l10n.t('Conflict: {0} · {1}', name, site);
    pick.placeholder = reasonText(c);
    pick.items = items;
    pick.ignoreFocusOut = true;
    pick.matchOnDescription = true;
    const first = items.find((i) => i.kind !== vscode.QuickPickItemKind.Separator && i.run.startsWith('diff'));
    if (first) pick.activeItems = [first];
    this.current = { conflict: c, pick };
    return new Promise((resolve) => {
      let chosen: Choice | undefined;
      pick.onDidAccept(() => {
        const it = pick.selectedItems[0] ?? pick.activeItems[0];
        if (!it) return;
        const open = (pair: [vscode.Uri, vscode.Uri] | undefined, title: string) => {
          if (pair) this.opened.set(`${pair[0].toString()}\n${pair[1].toString()}`, c);
          if (this.opened.size > 200) this.opened.delete(this.opened.keys().next().value!);
          if (pair) background('Opening a diff of a conflict', vscode.commands.executeCommand('vscode.diff', pair[0], pair[1], title, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.Active }));
        };
        switch (it.run) {
          case 'diff-live-working':
            return open(d.liveWorking, vscode.l10n.t('{0} (live ↔ {1})', name, yoursWord));
          case 'diff-newest-live':
            return open(d.newestLive, vscode.l10n.t('{0} (newest revision ↔ live)', name));
          case 'diff-newest-working':
            return open(d.newestWorking, vscode.l10n.t('{0} (newest revision ↔ {1})', name, yoursWord));
          case 'info':
            return;
          default:
            chosen = it.run;
            pick.hide();
        }
      });
      pick.onDidHide(() => {
        if (this.current?.pick === pick) this.current = undefined;
        pick.dispose();
        resolve(chosen);
      });
      pick.show();
    });
  }
}

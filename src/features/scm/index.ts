// The working copy at a glance (issue 28): each mapped folder as a source control in the Source
// Control view (./controls.ts; one folder's: ./folderControl.ts), the letter and colour of its
// files' states wherever VS Code draws a file (./decorations.ts), and the history of the selected
// lines (./lineHistory.ts). Loaded on first use by ./register.ts, which registers the commands at
// activation.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { onDidChangeSettings } from '../../workbench/config';
import { translate } from '../../workbench/l10n';
import { fileName, type RevisionRef } from '../revisions/nodes';
import { relativeTime } from '../../core/model/time';
import { inform, message } from '../../workbench/messages';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import { accountKey } from '../revisions/register';
import { SiteControls } from './controls';
import type { StatusResource } from './folderControl';
import { StatusDecorations } from './decorations';
import { LineHistoryView } from './lineHistory';
import type { ScmCommand } from './names';
import type { ScmDeps } from './register';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

/** Handles for tests (ExtensionApi.scm); not a public API. */
export interface ScmApi {
  controls: SiteControls;
  decorations: StatusDecorations;
  lineHistory: LineHistoryView;
}

/** The resources a resource command acts on: the one clicked, or the selection VS Code passes with it. */
function resourcesOf(args: unknown[]): StatusResource[] {
  const flat = args.flatMap((a) => (Array.isArray(a) ? a : [a]));
  const out: StatusResource[] = [];
  for (const a of flat) if (a && typeof a === 'object' && 'ref' in a && 'group' in a && !out.includes(a as StatusResource)) out.push(a as StatusResource);
  return out;
}

export async function activateScm(deps: ScmDeps): Promise<{ api: ScmApi; commands: Record<ScmCommand, (...args: unknown[]) => unknown>; disposables: vscode.Disposable[] }> {
  const editor = await deps.editor();
  const decorations = new StatusDecorations();
  const snapshotDir = () => (deps.cache.folder ? path.join(deps.cache.folder, 'status') : undefined);
  const cachedSites = async () => (await (await deps.cache.current())?.peek({ kind: 'sites' }))?.value;
  const controls = new SiteControls({
    session: deps.session,
    model: deps.model,
    store: deps.revisions.store,
    folders: deps.revisions.folders,
    quickDiff: editor.quickDiff,
    decorations,
    log: deps.log,
    snapshotDir,
    cachedSites,
    account: () => accountKey(deps.session),
  });
  const lineHistory = new LineHistoryView(editor.files);

  /** "Compare with Revision…": a pick of the file's revisions, the one chosen against the working file. */
  const compareWithRevision = async (r: StatusResource) => {
    const list = await deps.revisions.store.revisions(r.ref.site.id, r.ref.path);
    const now = Date.now();
    const pick = await vscode.window.showQuickPick(
      list.items.map((d) => ({
        label: `$(history) ${d.time === undefined ? displayText(d.item.date) || vscode.l10n.t('unknown date') : relativeTime(d.time, now, translate, vscode.env.language)}`,
        description: displayText(d.item.author),
        detail: vscode.l10n.t('revision {0}', displayText(d.item.id)),
        ref: { ...r.ref, item: d.item, time: d.time } as RevisionRef,
      })),
      { title: vscode.l10n.t('Compare {0} with a revision', fileName(r.ref.path)), placeHolder: vscode.l10n.t('Choose the revision to compare the working file with'), matchOnDescription: true, matchOnDetail: true },
    );
    return pick ? vscode.commands.executeCommand('siteRevisions.compareWithWorking', pick.ref) : undefined;
  };

  const commands: Record<ScmCommand, (...args: unknown[]) => unknown> = {
    'siteRevisions.scm.refresh': (sc) => controls.refresh(sc),
    'siteRevisions.scm.restoreNewest': async (...args) => {
      const rs = resourcesOf(args);
      if (!rs.length) inform(message('Choose a file in the Source Control view first.'));
      // One at a time: each restore asks, and is one edit that Undo reverts.
      for (const r of rs) await vscode.commands.executeCommand('siteRevisions.restoreRevision', r.ref);
    },
    'siteRevisions.scm.compareWithRevision': async (...args) => {
      const [r] = resourcesOf(args);
      if (r) await compareWithRevision(r);
    },
    'siteRevisions.scm.openFile': async (...args) => {
      for (const r of resourcesOf(args)) if (r.group !== 'onlyOnService') await vscode.commands.executeCommand('vscode.open', r.resourceUri, { preview: false });
    },
    'siteRevisions.showLineHistory': (arg) => lineHistory.show(arg),
    'siteRevisions.openLineHistoryEntry': (node) => lineHistory.open(node),
    'siteRevisions.clearLineHistory': () => lineHistory.clear(),
  };

  const disposables: vscode.Disposable[] = [
    controls,
    decorations,
    lineHistory,
    deps.revisions.folders.onDidChange(() => controls.update()),
    deps.session.onDidChange(() => controls.sessionChanged()),
    deps.model.onDidChange(() => controls.update()),
    // The sites read (a name the controls did not have, a site renamed).
    deps.model.onDidChangeState(() => controls.update()),
    // The Sites view's Refresh: the store forgot its lists; the folders ask for them again.
    deps.model.onDidRefresh(() => {
      if (deps.session.state === 'signedIn') background('Checking the mapped folders again', controls.refresh());
    }),
    // Clear Cache: the snapshots go too (the folders are checked again: see onDidRefresh).
    deps.cache.onDidClear(() => {
      const dir = snapshotDir();
      if (dir) background('Deleting the status snapshots', fsp.rm(dir, { recursive: true, force: true }));
    }),
    onDidChangeSettings((e) => {
      if (['sourceControl', 'quickDiff', 'newerRevisionAlert'].some((s) => e.affectsConfiguration(`siteRevisions.${s}`))) controls.settingsChanged();
    }),
  ];
  controls.update();
  return { api: { controls, decorations, lineHistory }, commands, disposables };
}

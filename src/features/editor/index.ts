// The editor side of revision history (issue 14): revision blame, gutter changes against the
// service (quick diff: the provider of each mapped folder's source control, which src/features/scm makes),
// the newer-revision alert and "Compare with the Same File on Another Site…". Each is its own
// file; they share WorkingFiles, which reads through the revisions feature's RevisionStore and
// folder mapping.
import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import { onDidChangeSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import type { RevisionsApi } from '../revisions';
import type { SitesModel } from '../sites/sitesModel';
import { message, type MessageText } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';
import type { CommandHandler } from '../history/names';
import { NewerRevisionAlert } from './alert';
import { RevisionBlame } from './blame';
import { OtherSiteCompare } from './otherSite';
import { SiteQuickDiff } from './quickDiff';
import { WorkingFiles } from './workingFiles';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface BlameViewDeps {
  session: Session;
  model: SitesModel;
  revisions: Pick<RevisionsApi, 'store' | 'folders'>;
  log: Log;
  notifier: Notifier;
}

/** Handles for tests (ExtensionApi.blameView); not a public API. */
export interface BlameViewApi {
  files: WorkingFiles;
  blame: RevisionBlame;
  quickDiff: SiteQuickDiff;
  alert: NewerRevisionAlert;
}

/**
 * `focusActiveEditor`: whether the file in the active editor counts as just opened (the alert
 * checks it) — when the code is loaded as the session becomes usable, as it was at activation;
 * not when a command or a newly mapped folder loads it, which would check a file nobody just
 * opened (a request the user did not cause).
 */
export function registerBlameView(deps: BlameViewDeps, o: { focusActiveEditor: boolean }): { api: BlameViewApi; disposables: vscode.Disposable[]; commands: Record<string, CommandHandler> } {
  const { session, model, revisions, log, notifier } = deps;
  const files = new WorkingFiles(revisions.store, revisions.folders, (id) => model.find(id), () => session.state === 'signedIn');
  const blame = new RevisionBlame(files, log);
  const quickDiff = new SiteQuickDiff(files, log);
  const alert = new NewerRevisionAlert(
    files,
    {
      revisions: (siteId, path) => session.call((c) => c.getRevisions(siteId, path, { priority: 'background' })),
      content: async (siteId, revisionId) => (await session.call((c) => c.getRevision(siteId, revisionId, { priority: 'background' }))).content,
    },
    log,
  );
  const other = new OtherSiteCompare(files, model);

  /** A command's handler (registered at activation: ./register.ts): its failure is shown with Retry. */
  const command = (id: string, title: MessageText, fn: (...args: unknown[]) => Promise<unknown>) => async (...args: unknown[]) => {
    try {
      return await fn(...args);
    } catch (e) {
      notifier.error(title, e, () => vscode.commands.executeCommand(id, ...args));
      return undefined;
    }
  };

  const disposables: vscode.Disposable[] = [
    blame,
    alert,
    session.onDidChange((state) => {
      if (state === 'signedIn') alert.focused(vscode.window.activeTextEditor);
    }),
    model.onDidRefresh(() => background('Reading the blamed files again', blame.reload())),
    onDidChangeSettings((e) => {
      if (e.affectsConfiguration('siteRevisions.blame')) blame.renderAll();
    }),
  ];
  // A file already open when the session became usable counts as opened.
  if (o.focusActiveEditor) alert.focused(vscode.window.activeTextEditor);
  const commands: Record<string, CommandHandler> = {
    'siteRevisions.toggleBlame': command('siteRevisions.toggleBlame', message('Toggle Revision Blame'), (uri) => blame.toggle(uri)),
    'siteRevisions.compareWithOtherSite': command('siteRevisions.compareWithOtherSite', message('Compare with the Same File on Another Site'), (uri, site) => other.run(uri, site)),
  };
  return { api: { files, blame, quickDiff, alert }, disposables, commands };
}

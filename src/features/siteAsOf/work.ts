// What the commands of the feature share: the progress of a run (its view and a notification
// with Cancel), one multi-file diff editor, and a working file's bytes.
import * as vscode from 'vscode';
import { siteAsOf, type AsOfProgress, type AsOfReads, type AsOfResult, type ContentSink } from '../../core/asof';
import { background } from '../../core/util/background';
import { progressText, type AsOfRun, type Run } from './views';

/** The site (or folder) of a run as of its moment, read again (from the caches the run filled), its contents handed to `contents`. */
export function readAsOf(run: Pick<AsOfRun, 'scope' | 'moment'>, reads: AsOfReads, signal: AbortSignal, onProgress: (p: AsOfProgress) => void, contents?: ContentSink): Promise<AsOfResult> {
  return siteAsOf({ reads, siteId: run.scope.site.id, ...(run.scope.folder ? { folder: run.scope.folder } : {}), moment: run.moment.time, signal, onProgress, ...(contents ? { contents } : {}) });
}

/** A multi-file diff: [label, left, right] per file (a side undefined: added or removed). */
export type DiffResources = [label: vscode.Uri, left: vscode.Uri | undefined, right: vscode.Uri | undefined][];

export interface DiffOutcome {
  how: 'multiDiff' | 'oneByOne' | 'none';
  resources: DiffResources;
}

/** Whether `vscode.changes` exists here (looked up once). */
let multiDiff: boolean | undefined;

/** Every file in ONE multi-file diff editor (`vscode.changes`), or one diff after another where that command does not exist. */
export async function openDiffs(title: string, resources: DiffResources): Promise<DiffOutcome> {
  if (!resources.length) return { how: 'none', resources };
  multiDiff ??= (await vscode.commands.getCommands(true)).includes('vscode.changes');
  if (multiDiff) {
    await vscode.commands.executeCommand('vscode.changes', title, resources);
    return { how: 'multiDiff', resources };
  }
  for (const [, left, right] of resources) {
    if (left && right) await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false });
    else await vscode.commands.executeCommand('vscode.open', left ?? right, { preview: false });
  }
  return { how: 'oneByOne', resources };
}

/**
 * Runs `work` with its progress in the view (its progress bar) and in a notification whose Cancel
 * aborts `abort`; `report` takes the progress.
 */
export function withRunProgress<T>(viewId: string, title: string, abort: AbortController, work: (report: (p: Run['progress']) => void) => Promise<T>): Promise<T> {
  let text: ((m: string) => void) | undefined;
  const done = work((p) => text?.(progressText(p)));
  const settled = done.then(
    () => undefined,
    () => undefined,
  );
  background('Showing the progress in the view', vscode.window.withProgress({ location: { viewId } }, () => settled));
  background(
    'Showing the progress',
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
      token.onCancellationRequested(() => abort.abort());
      text = (m) => progress.report({ message: m });
      return settled;
    }),
  );
  return done;
}

/** A working file's bytes (its unsaved text when it is open), or undefined when there is none. */
export async function workingBytes(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return new TextEncoder().encode(open.getText());
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch {
    return undefined;
  }
}

export { sameBytes } from '../../core/util/bytes';

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

/** A run shorter than this shows no progress notification (the view's progress bar only). */
export const NOTIFY_AFTER_MS = 1000;
/**
 * How long VS Code keeps a progress notification once shown, however soon its work ends (800 ms
 * in its ProgressService; with room for the message to reach the workbench).
 */
const SHOWN_AT_LEAST_MS = 1000;

/**
 * Runs `work` with its progress in the view (its progress bar) and, once it has run for
 * NOTIFY_AFTER_MS, in a notification whose Cancel aborts `abort`; `report` takes the progress.
 * It resolves once that notification is gone, so that the message a command shows next never
 * stands beside a progress that looks unfinished ("Exporting … 0 / 9 files" beside "Exported 7
 * files": the work ended within VS Code's minimum display time, before its last count arrived).
 */
export async function withRunProgress<T>(viewId: string, title: string, abort: AbortController, work: (report: (p: Run['progress']) => void) => Promise<T>): Promise<T> {
  let text: ((m: string) => void) | undefined;
  let last: string | undefined;
  const done = work((p) => {
    last = progressText(p);
    text?.(last);
  });
  const settled = done.then(
    () => undefined,
    () => undefined,
  );
  background('Showing the progress in the view', vscode.window.withProgress({ location: { viewId } }, () => settled));
  let shownAt: number | undefined;
  const timer = setTimeout(() => {
    shownAt = performance.now();
    background(
      'Showing the progress',
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        text = (m) => progress.report({ message: m });
        if (last) text(last);
        return settled;
      }),
    );
  }, NOTIFY_AFTER_MS);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
    if (shownAt !== undefined) {
      const left = shownAt + SHOWN_AT_LEAST_MS - performance.now();
      if (left > 0) await new Promise((r) => setTimeout(r, left));
    }
  }
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

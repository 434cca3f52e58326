// What the commands of both views share: a command that reports its failure as a notification,
// and the progress of a scan — the view's progress bar, and a notification with Cancel that shows
// "132 / 1,840 files" — until the scan has ended.
import * as vscode from 'vscode';
import { translate } from '../../workbench/l10n';
import { progressLabel, QueryError, type ScanProgress } from '../../core/search';
import { plain } from '../../workbench/messages';
import { describeError, type Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';

export type RunState = 'running' | 'done' | 'cancelled' | 'failed';

/** What a view keeps of a scan while and after it runs. */
export interface ScanRun {
  progress: ScanProgress | undefined;
  state: RunState;
  /** Why it failed (the view shows it). */
  error?: string;
  readonly abort: AbortController;
}

export interface FollowOptions<S> {
  viewId: string;
  /** The title of a cancellable progress notification; undefined: the view's progress only. */
  notification: string | undefined;
  /** Redraws the view (`urgent`: at once, else soon). */
  redraw: (urgent?: boolean) => void;
  /** Starts the scan, with the progress listener to give it. */
  start: (onProgress: (p: ScanProgress) => void) => Promise<S>;
  done: (summary: S) => void;
  /** The scan failed (not cancelled); the run already says why. */
  failed: (e: unknown) => void;
}

/**
 * Runs a scan for a view: its progress goes to the run, the view and the notification; its end
 * sets the run's state ('done', 'cancelled', or 'failed' with the reason). Resolves when it ended.
 */
export async function followScan<S extends { cancelled: boolean }>(run: ScanRun, o: FollowOptions<S>): Promise<void> {
  // Set once the scan has started (its first progress report is synchronous).
  const text: { report?: (text: string) => void } = {};
  const scan = o.start((p) => {
    run.progress = p;
    text.report?.(progressLabel(p, translate, vscode.env.language));
    o.redraw();
  });
  const ended = scan.then(
    (summary) => {
      run.state = summary.cancelled ? 'cancelled' : 'done';
      o.done(summary);
    },
    (e: unknown) => {
      if (run.abort.signal.aborted) {
        run.state = 'cancelled';
        return;
      }
      run.state = 'failed';
      run.error = e instanceof QueryError ? e.message : describeError(e).message;
      o.failed(e);
    },
  );
  text.report = showScanProgress(o.viewId, o.notification, run.abort, ended);
  await ended;
  o.redraw(true);
}

/** A command handler whose failure becomes a notification (and an undefined result). */
export function guarded<A extends unknown[]>(notifier: Notifier, title: string, fn: (...a: A) => unknown): (...a: A) => Promise<unknown> {
  return async (...a: A) => {
    try {
      return await fn(...a);
    } catch (e) {
      notifier.error(plain(title), e);
      return undefined;
    }
  };
}

/**
 * Shows a scan's progress until `ended` settles: on the view, and — when `notification` gives its
 * title — as a notification whose Cancel aborts `abort`. Returns where the progress text goes.
 */
function showScanProgress(viewId: string, notification: string | undefined, abort: AbortController, ended: Promise<unknown>): (text: string) => void {
  let report: ((text: string) => void) | undefined;
  background('Showing the progress of a scan in its view', vscode.window.withProgress({ location: { viewId } }, () => ended));
  if (notification !== undefined) {
    background(
      'Showing the progress of a scan',
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: notification, cancellable: true }, (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        report = (text) => progress.report({ message: text });
        return ended;
      }),
    );
  }
  return (text) => report?.(text);
}

// Pure (no `vscode`): work that is started and not waited for — a context key, a progress bar, a
// notification nobody answers yet. Its failure is never silent: it goes to the sink the
// extension sets at activation (the log). Failures a person must see go through the Notifier.

export type FailureSink = (what: string, error: unknown) => void;

let sink: FailureSink | undefined;

/** Where failures of background work go from now on (undefined: nowhere). Returns the previous sink. */
export function setBackgroundSink(next: FailureSink | undefined): FailureSink | undefined {
  const previous = sink;
  sink = next;
  return previous;
}

/** Lets `work` run without waiting for it; if it fails, `what` and the error go to the sink. */
export function background(what: string, work: PromiseLike<unknown>): void {
  work.then(undefined, (error: unknown) => {
    try {
      sink?.(what, error);
    } catch {
      // a failing sink must not turn into an unhandled rejection
    }
  });
}

// User-facing errors: a specific message with a next step, and at most one notification per
// failure kind on screen at a time (a burst of failing requests is one message, not a storm).
import * as vscode from 'vscode';
import { isApiError, type ApiError } from '../core/api/errors';
import type { Log } from './log';
import { background } from '../core/util/background';
import { message, plain, showError, type MessageText } from './messages';
import { asSentence } from '../core/util/l10n';
import { offerReload, UpdatedWhileOpenError, updatedText } from './feature';

export type NextStep = 'retry' | 'signIn' | 'settings' | 'log';

export interface Described {
  kind: string;
  message: string;
  next: NextStep[];
}

/**
 * A failure whose message says all there is to say, with Retry as its next step: what cannot be
 * had while the service cannot be reached (a revision that is not cached), instead of the
 * transport's error.
 */
export class UnavailableOffline extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnavailableOffline';
  }
}

export function describeError(e: unknown): Described {
  // A file of the extension went missing under this window (src/workbench/feature.ts): only a reload helps.
  if (e instanceof UpdatedWhileOpenError || (e instanceof Error && e.cause instanceof UpdatedWhileOpenError)) return { kind: 'updated', message: updatedText(), next: [] };
  if (e instanceof UnavailableOffline) return { kind: 'offline', message: e.message, next: ['retry'] };
  if (!isApiError(e)) {
    return { kind: 'other', message: e instanceof Error ? e.message : String(e), next: ['log'] };
  }
  const err = e as ApiError;
  switch (err.kind) {
    case 'auth':
      return { kind: err.kind, message: err.message, next: ['signIn'] };
    case 'network':
    case 'timeout':
      return { kind: err.kind, message: vscode.l10n.t('{0} Check your connection, proxy and the service URL.', asSentence(err.message)), next: ['retry', 'settings'] };
    case 'http':
    case 'invalid-reply':
      return { kind: err.kind, message: err.message, next: ['retry', 'log'] };
    case 'insecure':
    case 'redirect':
      return { kind: err.kind, message: err.message, next: ['settings'] };
    default:
      return { kind: err.kind, message: err.message, next: ['log'] };
  }
}

/** The button of each next step (translated when shown: not at load, before the bundle is read). */
function actions(): Record<NextStep, string> {
  return { retry: vscode.l10n.t('Retry'), signIn: vscode.l10n.t('Sign In…'), settings: vscode.l10n.t('Open Settings'), log: vscode.l10n.t('Show Log') };
}

export class Notifier {
  private readonly showing = new Set<string>();

  constructor(private readonly log: Log) {}

  /**
   * Logs the error and shows it once per kind while a message of that kind is on screen (the
   * message is not waited for). Cancellations are silent; auth failures are left to the
   * session's single sign-in prompt. `retry` runs when the user picks Retry.
   */
  error(context: MessageText, e: unknown, retry?: () => unknown): void {
    if (isApiError(e) && e.kind === 'cancelled') return;
    const d = describeError(e);
    this.log.error(`${context}: ${d.message}`);
    if (d.kind === 'auth') return;
    // One message for it, whatever failed: the window offers to reload (src/workbench/feature.ts).
    if (d.kind === 'updated') return offerReload();
    if (this.showing.has(d.kind)) return;
    this.showing.add(d.kind);
    background(`Showing the error "${context}"`, this.show(message('{0}: {1}', context, plain(d.message)), d, retry));
  }

  /** Shows the message; once it is closed, another of its kind may show, and the picked step runs. */
  private async show(text: MessageText, d: Described, retry: (() => unknown) | undefined): Promise<void> {
    const labels = actions();
    const items = d.next.filter((n) => n !== 'retry' || retry).map((n) => labels[n]);
    let pick: string | undefined;
    try {
      pick = await showError(text, ...items);
    } finally {
      this.showing.delete(d.kind);
    }
    if (pick === labels.retry) await retry?.();
    else if (pick === labels.signIn) await vscode.commands.executeCommand('siteRevisions.signIn');
    else if (pick === labels.settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'siteRevisions');
    else if (pick === labels.log) this.log.show();
  }
}

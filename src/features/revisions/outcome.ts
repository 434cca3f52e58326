// What a revision command did, returned to its callers (tests, scripts, other views): the user
// sees messages and editors; a caller reads this.
import type * as vscode from 'vscode';

export type Outcome =
  | { done: true; uri?: vscode.Uri; left?: vscode.Uri; right?: vscode.Uri }
  | { done: false; reason: 'cancelled' | 'refused' | 'missing' | 'too-large' | 'none' | 'failed'; message?: string };

export function ok(extra: { uri?: vscode.Uri; left?: vscode.Uri; right?: vscode.Uri } = {}): Outcome {
  return { done: true, ...extra };
}

export function notDone(reason: Exclude<Outcome, { done: true }>['reason'], message?: string): Outcome {
  return message === undefined ? { done: false, reason } : { done: false, reason, message };
}

/** A URI as a person reads it in a message: a file's path, else the URI without escapes. */
export function shownUri(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString(true);
}

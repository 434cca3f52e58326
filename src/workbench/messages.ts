// The one door to VS Code's notifications and message dialogs. A lint rule (eslint.config.mjs)
// forbids vscode.window.show{Information,Warning,Error}Message everywhere else.
//
// Why: a non-modal notification renders `[text](https://…)`, `[text](command:…)` and
// `[text](file:…)` as live links. A site name, a file path, an author or an error text from the
// service is written by someone else — another user who shares a site, a compromised service —
// and must never become a link (or a command) in this user's notification. So a message is typed:
// the functions below take only `MessageText`, which is either our own translated text with every
// interpolated value made inert (`message(template, plain(value)…)`), or an inert value itself.

import * as vscode from 'vscode';
import { background } from '../core/util/background';
import { displayText } from '../core/util/text';

declare const inert: unique symbol;

/** Text that shows as it reads in a notification: no link, no line break, no bidi control. */
export type MessageText = string & { readonly [inert]: true };

/** `[a](b` → `[a] (b`: the notification renderer only makes a link of `](` with nothing between. */
function breakLinks(s: string): string {
  return s.includes('](') ? s.replace(/\]\(/g, '] (') : s;
}

/**
 * A value written by someone else (a site name, a path, an author, a message from the service or
 * an error) as inert text for a message: unsafe characters become U+FFFD (displayText) and no
 * markdown link can form.
 */
export function plain(value: string | number): MessageText {
  return (typeof value === 'number' ? String(value) : breakLinks(displayText(value))) as MessageText;
}

/**
 * Our own message, translated with `vscode.l10n.t` (scripts/l10n-bundle.mjs collects the
 * literal `template` of every `message(…)` call), with inert values filled in. The result is
 * checked once more, so two values side by side cannot form a link either.
 */
export function message(template: string, ...args: (MessageText | number)[]): MessageText {
  return breakLinks(vscode.l10n.t(template, ...args)) as MessageText;
}

/** Options of a message: `detail` (modal dialogs) is shown as text too. */
export interface MessageOptions {
  modal?: boolean;
  detail?: MessageText;
}

/** One of the window's three message functions, untyped: its items are strings (the buttons). */
type Raw = (...args: unknown[]) => Thenable<unknown>;
type Window = Record<'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage', Raw>;

function show<T extends string>(fn: Raw, text: MessageText, rest: (MessageOptions | T)[]): Thenable<T | undefined> {
  const [first, ...items] = rest;
  if (first !== undefined && typeof first === 'object') {
    const options: vscode.MessageOptions = { modal: first.modal === true, ...(first.detail !== undefined ? { detail: first.detail } : {}) };
    return fn(text, options, ...items) as Thenable<T | undefined>;
  }
  return fn(text, ...rest) as Thenable<T | undefined>;
}

// The window functions are looked up on every call (not captured at load), so what a test
// installs on vscode.window is what runs.
const win = (): Window => vscode.window as unknown as Window;

export function showInfo<T extends string>(text: MessageText, ...items: T[]): Thenable<T | undefined>;
export function showInfo<T extends string>(text: MessageText, options: MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showInfo<T extends string>(text: MessageText, ...rest: (MessageOptions | T)[]): Thenable<T | undefined> {
  return show<T>((...a) => win().showInformationMessage(...a), text, rest);
}

export function showWarning<T extends string>(text: MessageText, ...items: T[]): Thenable<T | undefined>;
export function showWarning<T extends string>(text: MessageText, options: MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showWarning<T extends string>(text: MessageText, ...rest: (MessageOptions | T)[]): Thenable<T | undefined> {
  return show<T>((...a) => win().showWarningMessage(...a), text, rest);
}

export function showError<T extends string>(text: MessageText, ...items: T[]): Thenable<T | undefined>;
export function showError<T extends string>(text: MessageText, options: MessageOptions, ...items: T[]): Thenable<T | undefined>;
export function showError<T extends string>(text: MessageText, ...rest: (MessageOptions | T)[]): Thenable<T | undefined> {
  return show<T>((...a) => win().showErrorMessage(...a), text, rest);
}

/** Shows an information message without buttons, not waited for (a failure to show it is logged). */
export function inform(text: MessageText): void {
  background('Showing a message', showInfo(text));
}

/** Shows an error message without buttons, not waited for (a failure to show it is logged). */
export function alert(text: MessageText): void {
  background('Showing an error message', showError(text));
}

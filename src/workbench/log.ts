// One LogOutputChannel for the extension; everything written to it goes through the redactor:
// the session's secrets (added by src/features/auth/session.ts) in every encoded form, and the values of
// secret-looking fields, whoever they belong to (src/core/util/redact.ts, the client's mechanism too).
import * as vscode from 'vscode';
import { Secrets } from '../core/util/redact';
import { Disposable } from '../core/util/disposable';

export class Log extends Disposable {
  readonly channel: vscode.LogOutputChannel;
  readonly redactor = new Secrets({ fields: true });

  constructor() {
    super();
    this.channel = this.own(vscode.window.createOutputChannel('Site Revisions', { log: true }));
  }

  private text(message: string, args: unknown[]): string {
    const parts = [message, ...args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : typeof a === 'string' ? a : safeJson(a)))];
    return this.redactor.redact(parts.join(' '));
  }

  trace(message: string, ...args: unknown[]): void {
    this.channel.trace(this.text(message, args));
  }
  debug(message: string, ...args: unknown[]): void {
    this.channel.debug(this.text(message, args));
  }
  info(message: string, ...args: unknown[]): void {
    this.channel.info(this.text(message, args));
  }
  warn(message: string, ...args: unknown[]): void {
    this.channel.warn(this.text(message, args));
  }
  error(message: string, ...args: unknown[]): void {
    this.channel.error(this.text(message, args));
  }
  show(): void {
    this.channel.show(true);
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

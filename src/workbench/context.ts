// Context keys (the `when` clauses of package.json read them).
import * as vscode from 'vscode';
import { background } from '../core/util/background';

export function setContext(key: string, value: unknown): void {
  background(`Setting the context key ${key}`, vscode.commands.executeCommand('setContext', key, value));
}

// The translator handed to the pure modules (see src/core/util/l10n.ts): `vscode.l10n.t`, which looks
// the English message up in the bundle of VS Code's display language (package.json "l10n").
import * as vscode from 'vscode';
import type { Translate } from '../core/util/l10n';

export const translate: Translate = (message, ...args) => vscode.l10n.t(message, ...args);

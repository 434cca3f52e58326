// Language-model tools: the service's history for VS Code's agents (chat, Copilot and others),
// read-only. Each tool is declared in package.json (`languageModelTools`, shown only while signed
// in) and registered here. They read through the same session, request path and caches as the
// views, so an answer the tree already loaded costs no request; they honor the cancellation
// token; signed out, they answer so (no sign-in prompt: the agent tells the user).
//
// The machinery every tool shares is ./kit.ts; the tools, by group: the reads of one site or file
// (./readTools.ts), the scans (./scanTools.ts), the working copy (./workingCopyTools.ts), the
// whole-site reads (./wholeSiteTools.ts).
import type * as vscode from 'vscode';
import { ToolKit } from './kit';
import { readTools } from './readTools';
import { scanTools } from './scanTools';
import { wholeSiteTools } from './wholeSiteTools';
import { workingCopyTools } from './workingCopyTools';

import { TOOL_NAMES } from '../history/names';
export { TOOL_NAMES };

export class HistoryTools extends ToolKit {
  /** Each tool by name, as VS Code calls it (src/features/history/register.ts registers them at activation). */
  tools(): Map<string, vscode.LanguageModelTool<object>> {
    return new Map([...readTools(this), ...scanTools(this), ...workingCopyTools(this), ...wholeSiteTools(this)]);
  }
}

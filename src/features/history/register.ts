// What activation registers for History Search, Site Changes and the language-model tools: each
// command and tool, whose code (./feature.ts) is imported on first use; the views are made then too
// (until then VS Code shows their welcome content, whose buttons are these commands).
import * as vscode from 'vscode';
import { feature, lazyCommand } from '../../workbench/feature';
import type { HistoryDeps, HistoryFeatures } from './feature';
import type { Revisions } from '../revisions/register';
import { HISTORY_COMMANDS, TOOL_NAMES } from './names';

/** Registers the commands and tools; `features()` loads the code (once) and gives its handles. */
export function registerHistory(deps: Omit<HistoryDeps, 'revisions'> & { revisions: Revisions }, subscriptions: vscode.Disposable[]): { features: () => Promise<HistoryFeatures> } {
  const features = feature(async () => {
    const [m, revisions] = await Promise.all([import('./feature.js'), deps.revisions.load()]);
    return m.activateHistory({ ...deps, revisions }, subscriptions);
  });
  const tool = async (name: string): Promise<vscode.LanguageModelTool<object>> => (await features()).tools.get(name)!;
  subscriptions.push(
    ...HISTORY_COMMANDS.map((id) => lazyCommand(id, features, (f, ...args) => (f.commands[id] as (...a: unknown[]) => unknown)(...args))),
    ...Object.values(TOOL_NAMES).map((name) =>
      vscode.lm.registerTool<object>(name, {
        prepareInvocation: async (o, token) => (await tool(name)).prepareInvocation?.(o, token),
        invoke: async (o, token) => (await tool(name)).invoke(o, token),
      }),
    ),
  );
  return { features };
}

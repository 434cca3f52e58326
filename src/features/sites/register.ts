// What activation registers for the Sites view's commands: refresh and the filter (here: they
// only touch the model), every other command and the serializer of the site editor, whose code
// (./commands.ts) is imported on first use.
import * as vscode from 'vscode';
import { feature, lazyCommand } from '../../workbench/feature';
import { registerSiteEditorSerializer } from './editorLoad';
import type { SiteCommandDeps } from './commands';

/** The commands whose code is loaded on first use (package.json contributes them). */
export const SITE_COMMANDS = [
  'siteRevisions.createSite',
  'siteRevisions.editSite',
  'siteRevisions.duplicateSite',
  'siteRevisions.deleteSite',
  'siteRevisions.openWebUrl',
  'siteRevisions.copySiteDetails',
] as const;

export type SiteCommand = (typeof SITE_COMMANDS)[number];

export function registerSiteCommands(deps: SiteCommandDeps): vscode.Disposable[] {
  const { model } = deps;
  const load = feature(async () => (await import('./commands.js')).siteCommands(deps));
  return [
    registerSiteEditorSerializer(async (panel, state) => (await load()).restoreEditor(panel, state)),
    vscode.commands.registerCommand('siteRevisions.refresh', () => model.refresh()),
    vscode.commands.registerCommand('siteRevisions.filterSites', async (value?: string) => {
      const f = typeof value === 'string' ? value : await vscode.window.showInputBox({
        title: vscode.l10n.t('Filter Sites'),
        prompt: vscode.l10n.t('Show sites whose name, host, type, directory or web URL contains…'),
        value: model.filter,
      });
      if (f !== undefined) model.setFilter(f);
    }),
    vscode.commands.registerCommand('siteRevisions.clearFilter', () => model.setFilter('')),
    ...SITE_COMMANDS.map((id) => lazyCommand(id, load, (m, ...args) => m.handlers[id](...args))),
  ];
}

// What activation registers for importing and exporting site definitions (./index.ts, loaded on
// first use with the readers and their parsers): the two commands, and the Sites view's drop
// target (files dropped on the view are previewed for import).
import * as vscode from 'vscode';
import { feature, lazyCommand } from '../../workbench/feature';
import { background } from '../../core/util/background';
import type { SiteImportDeps } from './index';
import { SITE_IMPORT_COMMANDS } from './names';

export type SiteImportFeature = Awaited<ReturnType<typeof import('./index.js')['siteImportCommands']>>;

/**
 * Files dropped on the Sites view (from the Explorer or the operating system): their URIs
 * (`text/uri-list`) go to Import Sites…, which shows its preview first.
 */
export class SiteFileDrop implements vscode.TreeDragAndDropController<unknown> {
  readonly dropMimeTypes = ['text/uri-list'];
  readonly dragMimeTypes: string[] = [];

  async handleDrop(_target: unknown, data: vscode.DataTransfer): Promise<void> {
    const text = await data.get('text/uri-list')?.asString();
    if (!text) return;
    const uris: vscode.Uri[] = [];
    for (const line of text.split(/\r?\n/)) {
      const l = line.trim();
      if (!l || l.startsWith('#')) continue;
      try {
        uris.push(vscode.Uri.parse(l, true));
      } catch {
        // not a URI: ignored
      }
    }
    if (uris.length) background('Importing dropped files', Promise.resolve(vscode.commands.executeCommand('siteRevisions.importSites', uris)));
  }
}

export function registerSiteImport(deps: SiteImportDeps, subscriptions: vscode.Disposable[]): { features: () => Promise<SiteImportFeature> } {
  const load = feature(async () => (await import('./index.js')).siteImportCommands(deps));
  subscriptions.push(...SITE_IMPORT_COMMANDS.map((id) => lazyCommand(id, load, (m, ...args) => m[id](...args))));
  return { features: load };
}

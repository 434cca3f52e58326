// The site editor's host side (./siteEditor, with the form's fields ./formFields, their texts
// ./formTexts, its rules ./siteForm and the message protocol ./protocol) is imported when a form first opens (a chunk of its own in the build:
// esbuild.mjs). What activation needs of it is here: the serializer that gives a form back after
// a window reload (it loads the rest when VS Code hands a panel over).
import * as vscode from 'vscode';
import { feature } from '../../workbench/feature';
import { SITE_EDITOR_VIEW_TYPE } from './editorType';
import type { EditorState } from './protocol';

export type SiteEditorModule = typeof import('./siteEditor');

/** Test hook: the last editor opened by a command. */
export const editors: { last?: import('./siteEditor').SiteEditorHandle } = {};

export const loadSiteEditor: () => Promise<SiteEditorModule> = feature(() => import('./siteEditor.js'));

/**
 * Brings site editors back after a window reload: VS Code hands each panel it restores to
 * `restore` with the state its webview kept, checked first (undefined when unusable: the panel is
 * then closed). The extension is activated for it by `onWebviewPanel:siteRevisions.siteEditor`.
 */
export function registerSiteEditorSerializer(restore: (panel: vscode.WebviewPanel, state: EditorState) => Promise<void>): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(SITE_EDITOR_VIEW_TYPE, {
    async deserializeWebviewPanel(panel: vscode.WebviewPanel, raw: unknown) {
      const state = (await loadSiteEditor()).parseEditorState(raw);
      if (!state) {
        panel.dispose();
        return;
      }
      await restore(panel, state);
    },
  });
}

// The site editor's webview panels' type: the chunk that opens them (./siteEditor.ts) and the
// serializer registered at activation (./editorLoad.ts) both name it, and so does package.json's
// `onWebviewPanel:` activation event.
export const SITE_EDITOR_VIEW_TYPE = 'siteRevisions.siteEditor';

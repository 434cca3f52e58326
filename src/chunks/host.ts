// The extension's modules that the chunks loaded on first use (dist/history.js, dist/blameView.js,
// dist/siteEditorHost.js) import, handed to a chunk when it loads (./load.ts): one instance of
// each, so a tree node, an error class or a context key is the same on both sides. The build (esbuild.mjs) stops with the
// name of any module a chunk imports that is missing here. Keys: the module's path under src/,
// without extension.
import * as vscode from 'vscode';
import * as apiErrors from '../api/errors';
import * as apiTypes from '../api/types';
import * as apiUserinfo from '../api/userinfo';
import * as asof from '../asof';
import * as blameLoad from '../blame/load';
import * as config from '../config';
import * as l10n from '../l10n';
import * as revisions from '../revisions';
import * as revisionsFileSystem from '../revisions/fileSystem';
import * as revisionsFolders from '../revisions/folders';
import * as revisionsLocate from '../revisions/locate';
import * as revisionsMapping from '../revisions/mapping';
import * as revisionsNodes from '../revisions/nodes';
import * as revisionsOrdering from '../revisions/ordering';
import * as revisionsSafePath from '../revisions/safePath';
import * as revisionsStore from '../revisions/store';
import * as revisionsTime from '../revisions/time';
import * as revisionsWorkingFile from '../revisions/workingFile';
import * as sitesEditorType from '../sites/editorType';
import * as sitesTree from '../sites/sitesTree';
import * as store from '../store';
import * as treeMessage from '../tree/message';
import * as treeNode from '../tree/node';
import * as uiContext from '../ui/context';
import * as uiMarkdown from '../ui/markdown';
import * as uiMessages from '../ui/messages';
import * as uiNotify from '../ui/notify';
import * as utilBackground from '../util/background';
import * as utilDisposable from '../util/disposable';
import * as utilInflight from '../util/inflight';
import * as utilL10n from '../util/l10n';
import * as utilText from '../util/text';
import * as historyNames from '../history/names';

export const HOST_MODULES: Record<string, unknown> = {
  vscode,
  'api/errors': apiErrors,
  'api/types': apiTypes,
  'api/userinfo': apiUserinfo,
  asof,
  'blame/load': blameLoad,
  config,
  'history/names': historyNames,
  l10n,
  revisions,
  'revisions/fileSystem': revisionsFileSystem,
  'revisions/folders': revisionsFolders,
  'revisions/locate': revisionsLocate,
  'revisions/mapping': revisionsMapping,
  'revisions/nodes': revisionsNodes,
  'revisions/ordering': revisionsOrdering,
  'revisions/safePath': revisionsSafePath,
  'revisions/store': revisionsStore,
  'revisions/time': revisionsTime,
  'revisions/workingFile': revisionsWorkingFile,
  'sites/editorType': sitesEditorType,
  'sites/sitesTree': sitesTree,
  store,
  'tree/message': treeMessage,
  'tree/node': treeNode,
  'ui/context': uiContext,
  'ui/markdown': uiMarkdown,
  'ui/messages': uiMessages,
  'ui/notify': uiNotify,
  'util/background': utilBackground,
  'util/disposable': utilDisposable,
  'util/inflight': utilInflight,
  'util/l10n': utilL10n,
  'util/text': utilText,
};

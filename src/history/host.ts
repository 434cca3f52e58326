// The extension's modules the history chunk (./chunk.ts) imports, handed to it when it loads
// (./load.ts): one instance of each, so a tree node, an error class or a context key is the same
// on both sides. The build (esbuild.mjs) stops with the name of any module the chunk imports that
// is missing here. Keys: the module's path under src/, without extension.
import * as vscode from 'vscode';
import * as apiErrors from '../api/errors';
import * as config from '../config';
import * as l10n from '../l10n';
import * as revisions from '../revisions';
import * as revisionsFolders from '../revisions/folders';
import * as revisionsMapping from '../revisions/mapping';
import * as revisionsNodes from '../revisions/nodes';
import * as revisionsOrdering from '../revisions/ordering';
import * as revisionsTime from '../revisions/time';
import * as revisionsWorkingFile from '../revisions/workingFile';
import * as sitesTree from '../sites/sitesTree';
import * as store from '../store';
import * as treeMessage from '../tree/message';
import * as treeNode from '../tree/node';
import * as uiContext from '../ui/context';
import * as uiMarkdown from '../ui/markdown';
import * as uiMessages from '../ui/messages';
import * as uiNotify from '../ui/notify';
import * as utilBackground from '../util/background';
import * as utilL10n from '../util/l10n';
import * as utilText from '../util/text';
import * as names from './names';

export const HOST_MODULES: Record<string, unknown> = {
  vscode,
  'api/errors': apiErrors,
  config,
  'history/names': names,
  l10n,
  revisions,
  'revisions/folders': revisionsFolders,
  'revisions/mapping': revisionsMapping,
  'revisions/nodes': revisionsNodes,
  'revisions/ordering': revisionsOrdering,
  'revisions/time': revisionsTime,
  'revisions/workingFile': revisionsWorkingFile,
  'sites/sitesTree': sitesTree,
  store,
  'tree/message': treeMessage,
  'tree/node': treeNode,
  'ui/context': uiContext,
  'ui/markdown': uiMarkdown,
  'ui/messages': uiMessages,
  'ui/notify': uiNotify,
  'util/background': utilBackground,
  'util/l10n': utilL10n,
  'util/text': utilText,
};

// The revisions feature: what is under each site of the Sites view, revision documents
// (`site-revision:` read-only file system), the folder each site maps to, and the commands.
// Loaded on first use by what activation registers (./register.ts).
import * as vscode from 'vscode';
import { isOffline } from '../sites/viewState';
import { onDidChangeSettings, readSettings } from '../../workbench/config';
import { picks } from './activeFile';
import { RevisionCommands } from './commands';
import { RevisionsController } from './controller';
import { followRevisionAccount } from './account';
import { RevisionFileSystem, parseRevisionUri, revisionDocumentUri, revisionUri } from './fileSystem';
import type { FolderMapping } from './mapping';
import type { RevisionCommand } from './names';
import { accountKey, type RevisionsDeps } from './register';
import { RevisionStore, type ListUpdate } from '../../core/model/revisionStore';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export { accountKey, type RevisionsDeps };

/** Handles for the features built on it and for tests (ExtensionApi.revisions); not a public API. */
export interface RevisionsApi {
  store: RevisionStore;
  /** The content LRU (bytes). */
  cache: RevisionStore['cache'];
  folders: FolderMapping;
  provider: RevisionFileSystem;
  controller: RevisionsController;
  commands: RevisionCommands;
  /** Each command's handler by id (what ./register.ts registered calls). */
  handlers: Record<RevisionCommand, (...args: unknown[]) => unknown>;
  picks: typeof picks;
  revisionUri: typeof revisionUri;
  /** The document URI the commands open for a listed revision (titled with its date and author). */
  revisionDocumentUri: typeof revisionDocumentUri;
  parseRevisionUri: typeof parseRevisionUri;
  /** A site was deleted: the revision selected for compare on it is forgotten (./register.ts forgets the rest). */
  forgetSelection(siteId: string): void;
}

/** Makes the store, the Sites view's rows under each site, the revision documents' provider and the commands' handlers. */
export function activateRevisions(deps: RevisionsDeps, folders: FolderMapping, subscriptions: vscode.Disposable[]): RevisionsApi {
  const { session, model, tree, log, notifier, whenReady, cache, view } = deps;
  // The account whose revision documents are made and read (./account.ts).
  followRevisionAccount(() => accountKey(session));
  // The store tells the controller (made below) which list a refresh behind replaced.
  const hooks: { updated?: (u: ListUpdate) => void } = {};
  const store = new RevisionStore((fn) => session.call(fn), readSettings().cacheSizeBytes, log, {
    disk: () => cache.current(),
    isOffline,
    onDidUpdate: (u) => hooks.updated?.(u),
  });
  const provider = new RevisionFileSystem(store, whenReady);
  const controller = new RevisionsController(store, folders, model, tree, log, view);
  hooks.updated = (u) => controller.updated(u);
  const commands = new RevisionCommands({ ctl: controller, notifier, log });

  let account = accountKey(session);
  subscriptions.push(
    provider,
    // Closing the last tab of a revision that is still loading aborts its load.
    vscode.window.tabGroups.onDidChangeTabs((e) => provider.tabsClosed(e.closed)),
    controller,
    session.onDidChange(() => {
      const now = accountKey(session);
      if (now !== account) {
        // Another account (or none): nothing of the previous one may show.
        account = now;
        store.clear();
        controller.select(undefined);
      }
    }),
    onDidChangeSettings((e) => {
      if (e.affectsConfiguration('siteRevisions.revisions.cacheSizeMB')) store.cache.setMaxBytes(readSettings().cacheSizeBytes);
    }),
    // Clear Cache: the memory goes too, and what is shown is fetched again.
    cache.onDidClear(() => {
      store.clear();
      tree.changed();
    }),
  );

  return {
    store,
    cache: store.cache,
    folders,
    provider,
    controller,
    commands,
    handlers: commands.handlers(),
    picks,
    revisionUri,
    revisionDocumentUri,
    parseRevisionUri,
    forgetSelection: (siteId) => {
      if (controller.selected?.site.id === siteId) controller.select(undefined);
    },
  };
}

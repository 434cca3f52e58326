// The live feature (issue 33), loaded on first use by what activation registers (./register.ts):
// the connections to the sites' live servers (./connections.ts) with VS Code's trust prompts and
// secrets (./trust.ts, ./secrets.ts), the `site-live:` file system (./fileSystem.ts), the Live Files
// rows (./liveTree.ts), Test Connection (./testCommand.ts), the compares of a live file with its
// working file and newest revision, Compare Live with Local and Live Drift (./compare.ts), and the
// language-model tool (../tools/liveTool.ts).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { displayText } from '../../core/util/text';
import type { Log } from '../../workbench/log';
import { inform, message, plain, showWarning } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import type { Session } from '../auth/session';
import type { AccountCache } from '../auth/accountCache';
import type { RevisionsApi } from '../revisions';
import { FolderMapping } from '../revisions/mapping';
import { revisionDocumentUri } from '../revisions/fileSystem';
import { fileName } from '../revisions/nodes';
import { SiteNode, type SitesTreeProvider } from '../sites/sitesTree';
import type { SitesModel } from '../sites/sitesModel';
import { parentPath } from './address';
import { absoluteKeyPath, LiveConnections } from './connections';
import { LiveFileSystem, liveUri, parseLiveUri } from './fileSystem';
import { Listings } from './listing';
import { LiveDirNode, LiveFileNode, LiveTree } from './liveTree';
import { LIVE_COMMANDS_INTERNAL, type LiveCommand, type LiveFolderNode } from './names';
import { LivePoll } from './poll';
import type { TreeNode } from '../../workbench/tree/node';
import { forgetRemembered } from './secrets';
import { formTest, testSite, TEST_REPORT_SCHEME, TestReports } from './testCommand';
import { LiveCompare } from './compare';
import { liveTool } from '../tools/liveTool';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface LiveFeatureDeps {
  context: vscode.ExtensionContext;
  session: Session;
  model: SitesModel;
  log: Log;
  notifier: Notifier;
  tree: SitesTreeProvider;
  /** The revisions feature (loaded with this one: its store, the folder mappings, revision documents). */
  revisions: { load(): Promise<RevisionsApi>; folders: FolderMapping };
  whenReady: () => Promise<unknown>;
  /** The account's disk cache (the live files' last-seen state lives in its folder). */
  cache: AccountCache;
  /** The Sites view (its expanded Live Files folders are polled for changes). */
  view?: vscode.TreeView<TreeNode>;
}

export interface LiveFeature {
  connections: LiveConnections;
  listings: Listings;
  fs: LiveFileSystem;
  /** The poll of the live files and folders on screen. */
  poll: LivePoll;
  tree: LiveTree;
  compare: LiveCompare;
  reports: TestReports;
  tool: vscode.LanguageModelTool<object>;
  handlers: Record<LiveCommand, (...args: unknown[]) => unknown>;
  /** The site form's Test Connection (src/features/sites/siteEditor.ts). */
  formTest: typeof formTest extends (c: LiveConnections, ...a: infer A) => infer R ? (...a: A) => R : never;
}

/** A live entry a command was given: a Live Files row, a live URI, or undefined. */
export interface LiveTarget {
  site: Site;
  path: string;
  isFolder: boolean;
}

export function activateLive(deps: LiveFeatureDeps, subscriptions: vscode.Disposable[]): LiveFeature {
  const { session, model, log, tree: sitesTree } = deps;
  const connections = new LiveConnections(deps);
  const listings = new Listings();
  const fs = new LiveFileSystem(connections, listings, model, deps.whenReady);
  const tree = new LiveTree(connections, listings, sitesTree);
  const reports = new TestReports();
  const compare = new LiveCompare({ ...deps, connections }, subscriptions);
  // The Live Files folders expanded in the Sites view (polled while shown).
  const expanded = new Map<string, { site: Site; path: string }>();
  const folderOf = (n: unknown): { site: Site; path: string } | undefined => {
    const x = n as Partial<LiveFolderNode> | undefined;
    return (n instanceof LiveDirNode || (x && typeof x === 'object' && 'siteNode' in x)) && x?.site && typeof x.path === 'string' ? { site: x.site, path: x.path } : undefined;
  };
  const poll = new LivePoll({
    resolve: (uri) => {
      const a = parseLiveUri(uri);
      return a && a.account === connections.account() ? { siteId: a.siteId, path: a.path } : undefined;
    },
    stat: (siteId, path, signal) => connections.fsFor(siteFor(siteId)).stat(path, { signal }),
    list: (siteId, path, signal) => connections.fsFor(siteFor(siteId)).listAll(path, { signal }),
    expanded: () => [...expanded.values()].map((f) => ({ siteId: f.site.id, path: f.path, uri: uriOf(f.site, f.path) })),
    changed: (events, folders) => {
      for (const f of folders) {
        listings.forget(f.siteId, f.path);
        if (tree.node(f.siteId, f.path)) tree.refresh(f.siteId, f.path);
      }
      fs.fire(events);
    },
    log,
  });
  fs.poll = poll;
  const siteFor = (siteId: string): Site => {
    const site = model.find(siteId) ?? connections.siteOf(siteId);
    if (!site) throw new Error(`site ${siteId} is not listed`);
    return site;
  };
  if (deps.view) {
    subscriptions.push(
      deps.view.onDidExpandElement((e) => {
        const f = folderOf(e.element);
        if (f) expanded.set(`${f.site.id}\n${f.path}`, f);
      }),
      deps.view.onDidCollapseElement((e) => {
        const f = folderOf(e.element);
        if (f) for (const k of [...expanded.keys()]) if (k === `${f.site.id}\n${f.path}` || (k.startsWith(`${f.site.id}\n`) && (f.path === '' || k.slice(f.site.id.length + 1).startsWith(`${f.path}/`)))) expanded.delete(k);
      }),
    );
  }

  subscriptions.push(
    connections,
    fs,
    poll,
    // The sites listed anew (another account signed in, or back): documents that read as another
    // account's are read again.
    model.onDidChange(() => fs.retryRefused()),
    session.onDidChange(() => fs.retryRefused()),
    vscode.workspace.registerTextDocumentContentProvider(TEST_REPORT_SCHEME, reports),
    // Another account (or none): nothing listed for the previous one is kept.
    session.onDidChange(() => {
      if (connections.account() === undefined || connections.account() !== lastAccount) {
        lastAccount = connections.account();
        listings.clear();
        tree.reset();
        expanded.clear();
      }
    }),
    connections.onDidClose((siteId) => (siteId === undefined ? listings.clear() : listings.forget(siteId))),
  );
  let lastAccount = connections.account();

  /** The site a command names: a Sites view row, a site id, or a pick. */
  const siteOf = async (arg: unknown, placeHolder: string): Promise<Site | undefined> => {
    if (arg instanceof SiteNode) return arg.site;
    const t = targetOf(arg);
    if (t) return t.site;
    if (typeof arg === 'string') return model.find(arg) ?? (await model.all()).find((s) => s.id === arg);
    const sites = await model.visibleSites();
    const pick = await vscode.window.showQuickPick(
      sites.map((s) => ({ label: s.name, description: s.server_type, site: s })),
      { placeHolder, matchOnDescription: true },
    );
    return pick?.site;
  };

  /** A live entry from a Live Files row or a `site-live:` URI. */
  const targetOf = (arg: unknown): LiveTarget | undefined => {
    const node = arg as Partial<LiveFolderNode> | undefined;
    if (arg instanceof LiveFileNode) return { site: arg.site, path: arg.path, isFolder: false };
    if (arg instanceof LiveDirNode) return { site: arg.site, path: arg.path, isFolder: true };
    if (node && typeof node === 'object' && node.site && typeof node.path === 'string' && 'siteNode' in node) return { site: node.site, path: node.path, isFolder: true };
    if (arg instanceof vscode.Uri) {
      const a = parseLiveUri(arg);
      const site = a && (model.find(a.siteId) ?? connections.siteOf(a.siteId));
      if (a && site) return { site, path: a.path, isFolder: false };
    }
    return undefined;
  };

  /** The live file of a command: its row, its URI, or the active editor's live file. */
  const liveFileOf = (arg: unknown): LiveTarget | undefined => {
    const t = targetOf(arg) ?? targetOf(vscode.window.activeTextEditor?.document.uri);
    if (!t || t.isFolder) {
      inform(message('Choose a live file first: in the Sites view\'s Live Files, or open one.'));
      return undefined;
    }
    return t;
  };

  const uriOf = (site: Site, path: string) => liveUri({ siteId: site.id, account: connections.account() ?? '', path }, site.name);

  const handlers: Record<LiveCommand, (...args: unknown[]) => unknown> = {
    'siteRevisions.testConnection': async (arg: unknown) => {
      const site = await siteOf(arg, vscode.l10n.t('Site whose connection to test'));
      return site && testSite(connections, reports, log, site);
    },
    'siteRevisions.openLiveFolderAsWorkspace': async (arg: unknown) => {
      const t = targetOf(arg) ?? (await (async () => {
        const site = await siteOf(arg, vscode.l10n.t('Site whose live folder to open'));
        return site && { site, path: '', isFolder: true };
      })());
      if (!t) return false;
      const path = t.isFolder ? t.path : parentPath(t.path);
      const uri = uriOf(t.site, path);
      const name = path ? vscode.l10n.t('{0} — {1} (live)', fileName(path), displayText(t.site.name)) : vscode.l10n.t('{0} (live)', displayText(t.site.name));
      const folders = vscode.workspace.workspaceFolders ?? [];
      if (folders.some((f) => f.uri.toString() === uri.toString())) return true;
      // Adding a folder to a window without one (or replacing the first) restarts the extension
      // host: VS Code then opens the folder itself, and our provider answers it after activation.
      return vscode.workspace.updateWorkspaceFolders(folders.length, 0, { uri, name });
    },
    'siteRevisions.refreshLive': (arg: unknown) => {
      const t = targetOf(arg);
      if (!t) {
        listings.clear();
        sitesTree.changed();
        return;
      }
      const path = t.isFolder ? t.path : parentPath(t.path);
      tree.refresh(t.site.id, path);
      fs.changed(uriOf(t.site, path));
    },
    'siteRevisions.liveCompareWithWorking': async (arg: unknown) => {
      const t = liveFileOf(arg);
      if (!t) return undefined;
      const revisions = await deps.revisions.load();
      const folder = await revisions.folders.ensure(t.site, vscode.l10n.t('Choose the local folder of “{0}” to compare the live file with its working file.', displayText(t.site.name)));
      if (!folder) return undefined;
      const w = FolderMapping.resolveWorkingFile(folder, t.path);
      if (!w.ok) {
        inform(plain(w.reason));
        return undefined;
      }
      const title = vscode.l10n.t('{0} (live ↔ working file)', fileName(t.path));
      await vscode.commands.executeCommand('vscode.diff', uriOf(t.site, t.path), w.uri, title, { preview: true });
      return { left: uriOf(t.site, t.path), right: w.uri };
    },
    'siteRevisions.liveCompareWithNewest': async (arg: unknown) => {
      const t = liveFileOf(arg);
      if (!t) return undefined;
      const revisions = await deps.revisions.load();
      const list = await revisions.store.revisions(t.site.id, t.path, { priority: 'user' } as never);
      const newest = list.items[0];
      if (!newest) {
        inform(message('“{0}” has no revision on the service.', plain(t.path)));
        return undefined;
      }
      const rev = revisionDocumentUri({ site: t.site, path: t.path, item: newest.item, time: newest.time });
      const title = vscode.l10n.t('{0} (newest revision ↔ live)', fileName(t.path));
      await vscode.commands.executeCommand('vscode.diff', rev, uriOf(t.site, t.path), title, { preview: true });
      return { left: rev, right: uriOf(t.site, t.path) };
    },
    'siteRevisions.compareLiveWithLocal': (arg: unknown) => compare.run('local', arg, siteOf, targetOf),
    'siteRevisions.liveDrift': (arg: unknown) => compare.run('drift', arg, siteOf, targetOf),
    'siteRevisions.liveCompareOpenGroup': (arg: unknown) => compare.openGroup(arg),
    'siteRevisions.liveCompareCancel': () => compare.cancel(),
    'siteRevisions.liveCompareClear': () => compare.clear(),
    'siteRevisions.chooseKeyFile': async (arg: unknown) => {
      const site = await siteOf(arg, vscode.l10n.t('SFTP site whose key file to choose'));
      if (!site) return undefined;
      const current = connections.keyFile(site.id);
      const picked = await vscode.window.showOpenDialog({
        title: vscode.l10n.t('Private key file for “{0}”', displayText(site.name)),
        canSelectMany: false,
        openLabel: vscode.l10n.t('Use This Key'),
        ...(current ? { defaultUri: vscode.Uri.file(current) } : {}),
      });
      if (!picked?.[0]) return undefined;
      const file = absoluteKeyPath(picked[0].fsPath);
      await connections.setKeyFile(site.id, file);
      inform(message('“{0}” signs in with the key file {1} on this computer.', plain(site.name), plain(file)));
      return file;
    },
    'siteRevisions.forgetTrust': async () => {
      const entries = connections.trustStore.entries();
      if (!entries.length) {
        inform(message('No host key or certificate is stored on this computer.'));
        return false;
      }
      const pick = await vscode.window.showQuickPick(
        entries.map((e) => ({ label: e.hostPort, description: e.kind === 'hostKey' ? vscode.l10n.t('SSH host key {0} {1}', e.type ?? '', e.fingerprint) : vscode.l10n.t('certificate SHA-256 {0}', e.fingerprint), e })),
        { placeHolder: vscode.l10n.t('The host key or certificate to forget (the next connection asks again)') },
      );
      if (!pick) return false;
      const forget = vscode.l10n.t('Forget');
      const ok = await showWarning(
        message('Forget the stored {0} of {1}?', plain(pick.e.kind === 'hostKey' ? vscode.l10n.t('host key') : vscode.l10n.t('certificate')), plain(pick.e.hostPort)),
        { modal: true, detail: message('Do this only if you know why the server\'s key or certificate changed (a reinstalled server, a renewed certificate). The next connection shows the new fingerprint and asks you to trust it; keys in ~/.ssh/known_hosts are not changed.') },
        forget,
      );
      if (ok !== forget) return false;
      await connections.trustStore.forget(pick.e.kind, pick.e.hostPort);
      connections.closeAll();
      return true;
    },
    'siteRevisions.forgetLivePassword': async (arg: unknown) => {
      const site = await siteOf(arg, vscode.l10n.t('Site whose remembered server password to forget'));
      const acc = connections.account();
      if (!site || !acc) return false;
      await forgetRemembered(deps.context.secrets, acc, site.id);
      connections.close(site.id);
      inform(message('The server password of “{0}” is no longer remembered on this computer.', plain(site.name)));
      return true;
    },
    [LIVE_COMMANDS_INTERNAL.cancelListing]: (siteId: unknown, path: unknown) => {
      if (typeof siteId === 'string' && typeof path === 'string') tree.cancel(siteId, path);
    },
    [LIVE_COMMANDS_INTERNAL.retryListing]: (siteId: unknown, path: unknown) => {
      if (typeof siteId === 'string' && typeof path === 'string') tree.refresh(siteId, path);
    },
  };

  const tool = liveTool({ session, model, log, compare, folderOf: (s) => deps.revisions.folders.get(s.id) });
  return { connections, listings, fs, poll, tree, compare, reports, tool, handlers, formTest: (...a) => formTest(connections, ...a) };
}

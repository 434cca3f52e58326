// A second copy of the extension in the running host, for what can only be seen at activation
// (VS Code activates an extension once per host): the build (dist/extension.mjs and its chunks)
// copied into a new folder and imported there, on the real `vscode` API, except that command ids,
// the file system scheme, the webview panel serializer's view type and the log channel's name get
// a suffix (they must be unique), the tree view is a stub (a second view with the same id would
// take over the real one) and language-model tools are not registered. Each copy's files end in a
// comment of their own, so V8 compiles them anew, as at a start. Used by the activation benchmark
// and by the suites that check activation itself.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import { EXTENSION_ID } from './util';

/** The entry point the running extension was loaded from (package.json's "main"). */
export function runningBundle(): string {
  return path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'extension.mjs');
}

export interface CopyExports {
  activate(context: unknown): ExtensionApi | undefined;
}

const COPY_APIS = Symbol.for('siteRevisions.copyApis');

/**
 * Copies the build next to `entry` (its .mjs files) into a new folder, each file ending in a
 * comment with `tag`, its `vscode` import going to a module of this copy's own API (copyVscode);
 * `omit` leaves files out (a chunk missing, as after an update under a running window). Gives the
 * copy's entry point, for `importCopy`.
 */
export function prepareCopy(entry: string, tag: string, omit: (file: string) => boolean = () => false): string {
  const dist = path.dirname(entry);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-copy-'));
  for (const name of fs.readdirSync(dist)) {
    if (!name.endsWith('.mjs') || omit(name)) continue;
    const source = fs.readFileSync(path.join(dist, name), 'utf8').replace(/from\s*"vscode"/g, 'from"./vscode-api.mjs"');
    fs.writeFileSync(path.join(dir, name), `${source}\n// ${tag}\n`);
  }
  const apis = ((globalThis as Record<symbol, unknown>)[COPY_APIS] ??= new Map<string, unknown>()) as Map<string, unknown>;
  apis.set(tag, copyVscode(tag));
  // A module of named exports, as the host's own `vscode` module for an extension is.
  const names = Object.getOwnPropertyNames(vscode).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
  const shim = [`const api = globalThis[Symbol.for(${JSON.stringify(COPY_APIS.description)})].get(${JSON.stringify(tag)});`, ...names.map((k) => `export const ${k} = api[${JSON.stringify(k)}];`)].join('\n');
  fs.writeFileSync(path.join(dir, 'vscode-api.mjs'), shim);
  return path.join(dir, path.basename(entry));
}

/** Imports a copy made by prepareCopy (loads and evaluates it: what VS Code does before activate()). */
export async function importCopy(entry: string): Promise<CopyExports> {
  return (await import(pathToFileURL(entry).href)) as CopyExports;
}

/** A new copy of the extension built at `entry` (not activated yet): its exports. */
export function loadFreshCopy(entry: string, tag: string): Promise<CopyExports> {
  return importCopy(prepareCopy(entry, tag));
}

/** Disposes what a copy put in its context's subscriptions (never failing the caller). */
export function disposeCopy(context: Record<string, unknown>): void {
  for (const d of (context.subscriptions as vscode.Disposable[]).reverse()) {
    try {
      d.dispose();
    } catch {
      /* disposing a copy must not fail the run */
    }
  }
}

/** The real vscode API for a second copy of the extension: unique command ids and scheme, a stub tree view. */
function copyVscode(tag: string): unknown {
  const real = vscode as unknown as Record<string, unknown>;
  const api: Record<string, unknown> = {};
  // Own properties, like the real API object (the bundle copies them when it imports `vscode`).
  for (const k of Object.getOwnPropertyNames(real)) Object.defineProperty(api, k, { get: () => real[k], enumerable: true, configurable: true });
  const override = (ns: string, members: Record<string, unknown>) => {
    const o = Object.create(real[ns] as object) as Record<string, unknown>;
    for (const [k, v] of Object.entries(members)) Object.defineProperty(o, k, { value: v, enumerable: true });
    Object.defineProperty(api, ns, { value: o, enumerable: true, configurable: true });
  };
  override('commands', {
    registerCommand: (id: string, fn: (...a: unknown[]) => unknown, thisArg?: unknown) => vscode.commands.registerCommand(`${id}.${tag}`, fn, thisArg),
  });
  override('workspace', {
    registerFileSystemProvider: (scheme: string, p: vscode.FileSystemProvider, o?: { isCaseSensitive?: boolean; isReadonly?: boolean | vscode.MarkdownString }) =>
      vscode.workspace.registerFileSystemProvider(`${scheme}-${tag}`, p, o),
  });
  // Language-model tools are registered by name, once per host: a copy's would replace (and, disposed, remove) the running extension's.
  override('lm', {
    registerTool: () => new vscode.Disposable(() => undefined),
  });
  override('window', {
    createTreeView: () => stubTreeView(),
    // A log channel of its own: the extension's channel of the same name is shared, and the copy disposes its own.
    createOutputChannel: (name: string, options: { log: true }) => vscode.window.createOutputChannel(`${name} (${tag})`, options),
    registerWebviewPanelSerializer: (viewType: string, serializer: vscode.WebviewPanelSerializer) => vscode.window.registerWebviewPanelSerializer(`${viewType}-${tag}`, serializer),
  });
  // Tool names are declared once in package.json and registered once per host: a copy's tools
  // are not registered (registering them again fails, and disposing the copy would unregister the
  // running extension's tools).
  override('lm', { registerTool: () => new vscode.Disposable(() => undefined) });
  return api;
}

function stubTreeView(): vscode.TreeView<unknown> {
  const none = () => new vscode.Disposable(() => undefined);
  return {
    message: undefined,
    description: undefined,
    title: undefined,
    badge: undefined,
    visible: false,
    selection: [],
    onDidChangeSelection: none,
    onDidChangeVisibility: none,
    onDidExpandElement: none,
    onDidCollapseElement: none,
    onDidChangeCheckboxState: none,
    reveal: () => Promise.resolve(),
    dispose: () => undefined,
  } as unknown as vscode.TreeView<unknown>;
}

/**
 * A new ExtensionContext, in memory, signed in to `serviceUrl` as `email` (the password in its
 * secret storage). `secrets` replaces members of the secret storage (e.g. a failing `get`).
 */
export function freshContext(serviceUrl: string, email: string, password: string, secrets: Partial<vscode.SecretStorage> = {}, storage?: vscode.Uri): Record<string, unknown> {
  const memento = (init: Record<string, unknown> = {}) => {
    const data = new Map(Object.entries(init));
    return {
      keys: () => [...data.keys()],
      get: (k: string, d?: unknown) => (data.has(k) ? data.get(k) : d),
      update: (k: string, v: unknown) => {
        if (v === undefined) data.delete(k);
        else data.set(k, v);
        return Promise.resolve();
      },
      setKeysForSync: () => undefined,
    };
  };
  const stored = new Map<string, string>([[`siteRevisions:${new URL(serviceUrl).origin}:${email.toLowerCase()}:password`, password]]);
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
  return {
    subscriptions: [],
    globalState: memento({ 'siteRevisions.account': { serviceUrl, email } }),
    workspaceState: memento(),
    secrets: {
      get: (k: string) => Promise.resolve(stored.get(k)),
      store: (k: string, v: string) => Promise.resolve(void stored.set(k, v)),
      delete: (k: string) => Promise.resolve(void stored.delete(k)),
      keys: () => Promise.resolve([...stored.keys()]),
      onDidChange: () => new vscode.Disposable(() => undefined),
      ...secrets,
    },
    extensionUri: ext.extensionUri,
    extensionPath: ext.extensionPath,
    extension: ext,
    // A storage folder of its own (its disk cache); a test that reopens the running extension's cache passes that folder instead.
    globalStorageUri: storage ?? vscode.Uri.file(fs.mkdtempSync(path.join(os.tmpdir(), 'sr-copy-storage-'))),
  };
}

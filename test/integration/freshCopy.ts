// A second copy of the extension in the running host, for what can only be seen at activation
// (VS Code activates an extension once per host): dist/extension.js loaded again next to the
// running one, on the real `vscode` API, except that command ids, the file system scheme, the
// webview panel serializer's view type and the log channel's name get a suffix (they must be
// unique), the tree view is a stub (a second view with the same id would take over the real one)
// and language-model tools are not registered. Each copy is compiled from a distinct source string (a trailing
// comment) so V8's in-memory compilation cache cannot make it look cheaper. Used by the
// activation benchmark and by the suites that check activation itself.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import Module from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import { checkedCache, codeCacheName } from '../../src/boot/codeCache';
import type { ExtensionApi } from '../../src/extension';
import { EXTENSION_ID } from './util';

/** The bundle the running extension was loaded from. */
export function runningBundle(): string {
  return path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'extension.js');
}

/** Loads a new copy of `bundle` (not activated yet): its exports. */
export function loadFreshCopy(bundle: string, tag: string, chunks?: CopyChunks): { activate(context: unknown): ExtensionApi | undefined } {
  const source = fs.readFileSync(bundle, 'utf8');
  const m = new Module(bundle, module) as Module & { _compile(src: string, file: string): void; require(id: string): unknown; paths: string[] };
  m.filename = bundle;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(bundle));
  const shim = copyVscode(tag);
  const requireOriginal = m.require.bind(m);
  m.require = (id: string) => (id === 'vscode' ? shim : chunks && id === './undici.js' ? chunks.load(path.join(path.dirname(bundle), 'undici.js'), tag) : requireOriginal(id));
  m._compile(`${source}\n// ${tag}\n`, bundle);
  return m.exports as { activate(context: unknown): ExtensionApi | undefined };
}

/**
 * Loads a new copy of `bundle` as dist/boot.js does (src/boot/codeCache.ts: the source read and
 * hashed to name its cache, the cache file read and its checksum checked, the module wrapper
 * compiled by vm.Script with the cache handed in), so that the activation benchmark can measure
 * a start that takes its compiled code from the cache in the real host. Copies must differ (V8's
 * in-memory compilation cache would answer an identical source, which no real start meets), and
 * a cache is valid only for its source: so each copy's source ends in a comment of the same
 * length (`tag` of a fixed length), and the cache made from one copy serves every other —
 * comments produce no code, and V8 checks a source's length. `writeCopyCache` writes that cache
 * from the copy whose script it is, in the loader's format.
 */
export function loadFreshCopyCached(bundle: string, tag: string, cacheFile?: string, chunks?: CopyChunks): { exports: { activate(context: unknown): ExtensionApi | undefined }; script: vm.Script; rejected: boolean } {
  const raw = Buffer.concat([fs.readFileSync(bundle), Buffer.from(`\n// ${tag}\n`)]);
  codeCacheName(bundle, raw); // the loader names the cache after the source's hash: its cost is part of a start
  const cachedData = cacheFile ? checkedCache(fs.readFileSync(cacheFile)) : undefined;
  if (cacheFile && !cachedData) throw new Error(`${cacheFile}: damaged`);
  const script = new vm.Script(Module.wrap(raw.toString('latin1')), { filename: bundle, cachedData });
  const shim = copyVscode(tag);
  const requireOriginal = Module.createRequire(bundle);
  const req = Object.assign((id: string) => (id === 'vscode' ? shim : chunks && id === './undici.js' ? chunks.load(path.join(path.dirname(bundle), 'undici.js'), tag) : requireOriginal(id)), requireOriginal);
  const m = new Module(bundle, module);
  m.filename = bundle;
  const wrapper = script.runInThisContext() as (e: unknown, r: unknown, m: unknown, f: string, d: string) => void;
  wrapper.call(m.exports, m.exports, req, m, bundle, path.dirname(bundle));
  return { exports: m.exports as { activate(context: unknown): ExtensionApi | undefined }, script, rejected: cachedData !== undefined && script.cachedDataRejected === true };
}

/**
 * How a copy of the CommonJS bundle loads dist/undici.js on its first request: a copy of its own
 * (tagged like the bundle), compiled from source or, with `cacheFile`, from V8's code cache as
 * dist/boot.js hands it over. `scripts` keeps each copy's script (to write a cache from one).
 */
export class CopyChunks {
  readonly scripts = new Map<string, vm.Script>();
  constructor(private readonly cacheFile?: string) {}
  load(file: string, tag: string): unknown {
    const loaded = loadFreshCopyCached(file, tag, this.cacheFile && fs.existsSync(this.cacheFile) ? this.cacheFile : undefined);
    this.scripts.set(tag, loaded.script);
    return loaded.exports;
  }
}

/**
 * Copies the ES-module build (`dist`'s extension.mjs and its chunks) into a new folder, each file
 * ending in a comment with `tag` (so that V8 compiles it anew), its `vscode` import going to
 * a module of this copy's own API (copyVscode): the entry point to import, for `importEsmCopy`.
 */
export function prepareEsmCopy(dist: string, tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-esm-copy-'));
  for (const name of fs.readdirSync(dist)) {
    if (!name.endsWith('.mjs')) continue;
    const source = fs.readFileSync(path.join(dist, name), 'utf8').replace(/from\s*"vscode"/g, 'from"./vscode-api.mjs"');
    fs.writeFileSync(path.join(dir, name), `${source}\n// ${tag}\n`);
  }
  const apis = ((globalThis as Record<symbol, unknown>)[COPY_APIS] ??= new Map<string, unknown>()) as Map<string, unknown>;
  apis.set(tag, copyVscode(tag));
  const names = Object.getOwnPropertyNames(vscode).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
  const shim = [`const api = globalThis[Symbol.for(${JSON.stringify(COPY_APIS.description)})].get(${JSON.stringify(tag)});`, ...names.map((k) => `export const ${k} = api[${JSON.stringify(k)}];`)].join('\n');
  fs.writeFileSync(path.join(dir, 'vscode-api.mjs'), shim);
  return path.join(dir, 'extension.mjs');
}

const COPY_APIS = Symbol.for('siteRevisions.copyApis');

/** Imports a copy made by prepareEsmCopy: its exports. */
export async function importEsmCopy(entry: string): Promise<{ activate(context: unknown): ExtensionApi | undefined }> {
  return (await import(pathToFileURL(entry).href)) as { activate(context: unknown): ExtensionApi | undefined };
}

/** Writes the code cache of a copy's script to `file` as the loader does (its SHA-256, then the data): its size. */
export function writeCopyCache(script: vm.Script, file: string): number {
  const data = script.createCachedData();
  fs.writeFileSync(file, Buffer.concat([crypto.createHash('sha256').update(data).digest(), data]));
  return data.length;
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

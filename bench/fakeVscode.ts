// A minimal stand-in for the `vscode` module, only for timing the bundle's load and activate()
// in plain Node (bench/activationChild.ts, test/unit/bundle.test.ts). Whatever activation touches exists and does nothing:
// commands register into nothing, settings return their defaults, events never fire. The
// values activation reads (settings, stored account, secrets) are real, so the code takes the
// same paths as in VS Code. Never used by the extension or the tests.

import * as fs from 'node:fs';
import * as path from 'node:path';

type AnyFn = (...args: unknown[]) => unknown;

/**
 * The names `vscode` exports, from @types/vscode. The build imports them as an ES module's named
 * exports (as the host gives them to an extension): every name must exist up front.
 */
function vscodeApiNames(): string[] {
  try {
    const dts = fs.readFileSync(path.join(require.resolve('@types/vscode/package.json'), '..', 'index.d.ts'), 'utf8');
    const names = new Set<string>();
    for (const m of dts.matchAll(/^\t?export (?:declare )?(?:class|enum|namespace|const|let|function|var) (\w+)/gm)) names.add(m[1]!);
    return [...names];
  } catch {
    return [];
  }
}

const disposable = (): { dispose(): void } => ({ dispose: () => undefined });

/**
 * Anything: callable, constructible, every property another such value; `then` is absent (so
 * awaiting it does not hang) and it turns into '' / NaN when used as a primitive.
 */
function anything(name: string): unknown {
  const cache = new Map<PropertyKey, unknown>();
  const target = function () {
    /* stand-in */
  };
  const proxy: unknown = new Proxy(target, {
    get(_t, prop) {
      if (prop === 'then') return undefined;
      if (prop === Symbol.toPrimitive) return () => '';
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'toString' || prop === 'toJSON') return () => `[fake ${name}]`;
      if (prop === 'dispose') return () => undefined;
      if (!cache.has(prop)) cache.set(prop, anything(`${name}.${String(prop)}`));
      return cache.get(prop);
    },
    set(_t, prop, value) {
      cache.set(prop, value);
      return true;
    },
    apply() {
      return anything(`${name}()`);
    },
    construct(_t, _args, newTarget) {
      // `new X()` gets a fresh stand-in; a subclass (`class A extends vscode.X`) gets its own prototype.
      if (newTarget === proxy) return anything(`new ${name}`) as object;
      return Object.create((newTarget as { prototype: object }).prototype) as object;
    },
  });
  return proxy;
}

class EventEmitter<T> {
  private readonly listeners = new Set<(e: T) => unknown>();
  readonly event = (listener: (e: T) => unknown): { dispose(): void } => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

class Disposable {
  constructor(private readonly fn: () => unknown) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
  ) {}
  static parse(value: string): Uri {
    const u = new URL(value);
    return new Uri(u.protocol.replace(/:$/, ''), u.host, decodeURIComponent(u.pathname), u.search.replace(/^\?/, ''), u.hash.replace(/^#/, ''));
  }
  static file(p: string): Uri {
    return new Uri('file', '', p, '', '');
  }
  static from(c: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '', c.query ?? '', c.fragment ?? '');
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, base.authority, [base.path.replace(/\/+$/, ''), ...parts].join('/'), base.query, base.fragment);
  }
  get fsPath(): string {
    return this.path;
  }
  with(c: Partial<{ scheme: string; authority: string; path: string; query: string; fragment: string }>): Uri {
    return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, authority: this.authority, path: this.path, query: this.query, fragment: this.fragment };
  }
}

class Memento {
  private readonly data = new Map<string, unknown>();
  constructor(initial: Record<string, unknown> = {}) {
    for (const [k, v] of Object.entries(initial)) this.data.set(k, v);
  }
  keys(): readonly string[] {
    return [...this.data.keys()];
  }
  get<T>(key: string, dflt?: T): T | undefined {
    return this.data.has(key) ? (this.data.get(key) as T) : dflt;
  }
  update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.data.delete(key);
    else this.data.set(key, value);
    return Promise.resolve();
  }
  setKeysForSync(): void {}
}

class SecretStorage {
  private readonly data = new Map<string, string>();
  private readonly emitter = new EventEmitter<{ key: string }>();
  readonly onDidChange = this.emitter.event;
  constructor(initial: Record<string, string> = {}) {
    for (const [k, v] of Object.entries(initial)) this.data.set(k, v);
  }
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.data.get(key));
  }
  store(key: string, value: string): Promise<void> {
    this.data.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.data.delete(key);
    return Promise.resolve();
  }
  keys(): Promise<string[]> {
    return Promise.resolve([...this.data.keys()]);
  }
}

export interface FakeVscode {
  /** The module's exports (what `require('vscode')` returns). */
  api: Record<string, unknown>;
  /** Commands registered, by id. */
  commands: Map<string, AnyFn>;
  /** Calls to executeCommand (e.g. setContext), in order. */
  executed: string[];
}

export function createFakeVscode(): FakeVscode {
  const commands = new Map<string, AnyFn>();
  const executed: string[] = [];
  const configuration = {
    get: <T>(_key: string, dflt?: T): T | undefined => dflt,
    has: () => false,
    inspect: () => undefined,
    update: () => Promise.resolve(),
  };
  const enumLike = (names: string[]) => Object.fromEntries(names.map((n, i) => [n, i]));
  const api: Record<string, unknown> = {
    version: '1.101.0',
    EventEmitter,
    Disposable,
    Uri,
    TreeItemCollapsibleState: enumLike(['None', 'Collapsed', 'Expanded']),
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
    FilePermission: { Readonly: 1 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    commands: {
      registerCommand: (id: string, fn: AnyFn) => {
        if (commands.has(id)) throw new Error(`command '${id}' already exists`);
        commands.set(id, fn);
        return { dispose: () => commands.delete(id) };
      },
      executeCommand: (id: string) => {
        executed.push(id);
        return Promise.resolve(undefined);
      },
      getCommands: () => Promise.resolve([...commands.keys()]),
    },
    workspace: {
      getConfiguration: () => configuration,
      onDidChangeConfiguration: () => disposable(),
      onDidChangeWorkspaceFolders: () => disposable(),
      onDidCloseTextDocument: () => disposable(),
      onDidOpenTextDocument: () => disposable(),
      onDidSaveTextDocument: () => disposable(),
      registerFileSystemProvider: () => disposable(),
      registerTextDocumentContentProvider: () => disposable(),
      workspaceFolders: undefined,
      textDocuments: [],
      fs: anything('workspace.fs'),
      isTrusted: true,
    },
    window: {
      createOutputChannel: () => anything('LogOutputChannel'),
      createTreeView: () => anything('TreeView'),
      registerTreeDataProvider: () => disposable(),
      registerWebviewPanelSerializer: () => disposable(),
      onDidChangeActiveTextEditor: () => disposable(),
      onDidChangeVisibleTextEditors: () => disposable(),
      activeTextEditor: undefined,
      visibleTextEditors: [],
      tabGroups: anything('tabGroups'),
      withProgress: (_o: unknown, task: (p: unknown, t: unknown) => unknown) => Promise.resolve(task(anything('progress'), anything('token'))),
      setStatusBarMessage: () => disposable(),
      showInformationMessage: () => Promise.resolve(undefined),
      showWarningMessage: () => Promise.resolve(undefined),
      showErrorMessage: () => Promise.resolve(undefined),
    },
    env: { appName: 'Fake', language: 'en', machineId: 'bench', uriScheme: 'vscode', clipboard: anything('clipboard'), openExternal: () => Promise.resolve(true) },
  };
  // Everything else `vscode` exports (classes such as TreeItem, ThemeIcon, MarkdownString…): a
  // stand-in. The build imports each as a named export of the module.
  for (const name of vscodeApiNames()) if (!(name in api)) api[name] = anything(name);
  return { api, commands, executed };
}

/** An ExtensionContext with in-memory state: signed in as `email` at `serviceUrl` when both are given; its global storage folder is `storage` (else one inside `extensionPath`). */
export function fakeContext(extensionPath: string, account?: { serviceUrl: string; email: string; password: string; secretKey: string }, storage?: string): Record<string, unknown> {
  const globalState = new Memento(account ? { 'siteRevisions.account': { serviceUrl: account.serviceUrl, email: account.email } } : {});
  const secrets = new SecretStorage(account ? { [account.secretKey]: account.password } : {});
  return {
    subscriptions: [] as { dispose(): unknown }[],
    globalState,
    workspaceState: new Memento(),
    secrets,
    extensionPath,
    extensionUri: Uri.file(extensionPath),
    extensionMode: 1,
    storageUri: undefined,
    globalStorageUri: Uri.file(storage ?? `${extensionPath}/.bench-global`),
    logUri: Uri.file(`${extensionPath}/.bench-log`),
    asAbsolutePath: (p: string) => `${extensionPath}/${p}`,
    environmentVariableCollection: anything('environmentVariableCollection'),
    extension: anything('extension'),
  };
}

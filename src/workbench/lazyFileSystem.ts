// File systems registered at activation whose calls are answered by code loaded on first use (a
// feature's chunk): each call loads it (once) and hands the call on. The revision documents
// (`site-revision:`) are read-only: every write is refused. The live servers (`site-live:`) are
// writable since issue 34: their reads and watches go to the live feature, their writes to the
// transfer feature (through the guard), each loaded by the first call that needs it.
import * as vscode from 'vscode';

/** What the loaded code answers. */
export type FileSystemReads = Pick<vscode.FileSystemProvider, 'stat' | 'readFile' | 'readDirectory'> & {
  onDidChangeFile?: vscode.Event<vscode.FileChangeEvent[]>;
  /** Called when VS Code watches a resource (an open editor, a folder shown); the poll of what is on screen. */
  watch?(uri: vscode.Uri, options: { readonly recursive: boolean; readonly excludes: readonly string[] }): vscode.Disposable;
};

/** The writes of a writable file system, answered by code loaded on first use. */
export type FileSystemWrites = Pick<vscode.FileSystemProvider, 'writeFile' | 'createDirectory' | 'delete' | 'rename'>;

export class LazyReadonlyFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private hooked = false;
  private loaded: FileSystemReads | undefined;

  constructor(private readonly provider: () => Promise<FileSystemReads>) {}

  /** Watches asked for before the code was loaded: started once it is. */
  private readonly pending = new Set<() => void>();

  /** The loaded code, its change events passed on once it is there. */
  protected async reads(): Promise<FileSystemReads> {
    const p = await this.provider();
    if (!this.loaded) {
      this.loaded = p;
      for (const start of [...this.pending]) start();
      this.pending.clear();
    }
    if (!this.hooked && p.onDidChangeFile) {
      this.hooked = true;
      p.onDidChangeFile((e) => this.emitter.fire(e));
    }
    return p;
  }
  /** Tells VS Code to read these documents again (what they show changed without the loaded code knowing: another account signed in). */
  changed(uris: readonly vscode.Uri[]): void {
    if (uris.length) this.emitter.fire(uris.map((uri) => ({ type: vscode.FileChangeType.Changed, uri })));
  }

  dispose(): void {
    this.emitter.dispose();
  }

  /** A watch is handed on once the code is loaded (a watch never loads it by itself: the read that follows does). */
  watch(uri: vscode.Uri, options: { readonly recursive: boolean; readonly excludes: readonly string[] }): vscode.Disposable {
    let inner: vscode.Disposable | undefined;
    let disposed = false;
    const start = () => {
      if (!disposed && this.loaded?.watch) inner = this.loaded.watch(uri, options);
    };
    if (this.loaded) start();
    else this.pending.add(start);
    return new vscode.Disposable(() => {
      disposed = true;
      this.pending.delete(start);
      inner?.dispose();
    });
  }
  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    return (await this.reads()).stat(uri);
  }
  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return (await this.reads()).readFile(uri);
  }
  async readDirectory(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
    return (await this.reads()).readDirectory(uri);
  }
  createDirectory(uri: vscode.Uri): void | Thenable<void> {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  writeFile(uri: vscode.Uri, _content: Uint8Array, _options: { readonly create: boolean; readonly overwrite: boolean }): void | Thenable<void> {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  delete(uri: vscode.Uri, _options: { readonly recursive: boolean }): void | Thenable<void> {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  rename(uri: vscode.Uri, _newUri: vscode.Uri, _options: { readonly overwrite: boolean }): void | Thenable<void> {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

/** A writable file system: reads and watches as above, writes answered by `writes` (loaded on the first write). */
export class LazyFileSystem extends LazyReadonlyFileSystem {
  constructor(
    reads: () => Promise<FileSystemReads>,
    private readonly writes: () => Promise<FileSystemWrites>,
  ) {
    super(reads);
  }
  override async createDirectory(uri: vscode.Uri): Promise<void> {
    await (await this.writes()).createDirectory(uri);
  }
  override async writeFile(uri: vscode.Uri, content: Uint8Array, options: { readonly create: boolean; readonly overwrite: boolean }): Promise<void> {
    await (await this.writes()).writeFile(uri, content, options);
  }
  override async delete(uri: vscode.Uri, options: { readonly recursive: boolean }): Promise<void> {
    await (await this.writes()).delete(uri, options);
  }
  override async rename(uri: vscode.Uri, newUri: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
    await (await this.writes()).rename(uri, newUri, options);
  }
}

/** The documents of `scheme` VS Code holds: those it has read (open or not) and those of the tabs (a diff shows two). */
export function heldDocuments(scheme: string): vscode.Uri[] {
  const uris = new Map<string, vscode.Uri>();
  const add = (u: vscode.Uri | undefined) => {
    if (u?.scheme === scheme) uris.set(u.toString(), u);
  };
  for (const d of vscode.workspace.textDocuments) add(d.uri);
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const i = tab.input;
      if (i instanceof vscode.TabInputText) add(i.uri);
      else if (i instanceof vscode.TabInputTextDiff) {
        add(i.original);
        add(i.modified);
      }
    }
  }
  return [...uris.values()];
}

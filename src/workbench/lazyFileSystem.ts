// A read-only file system registered at activation whose reads are answered by code loaded on
// first use (a feature's chunk): each read loads it (once) and hands the call on; every write is
// refused. The revision documents (`site-revision:`) and the live servers (`site-live:`, read-only
// until issue 34 makes it writable) are registered so.
import * as vscode from 'vscode';

/** What the loaded code answers. */
export type FileSystemReads = Pick<vscode.FileSystemProvider, 'stat' | 'readFile' | 'readDirectory'> & { onDidChangeFile?: vscode.Event<vscode.FileChangeEvent[]> };

export class LazyReadonlyFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;
  private hooked = false;

  constructor(private readonly provider: () => Promise<FileSystemReads>) {}

  /** The loaded code, its change events passed on once it is there. */
  private async reads(): Promise<FileSystemReads> {
    const p = await this.provider();
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

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
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
  createDirectory(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  writeFile(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  delete(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
  rename(uri: vscode.Uri): never {
    throw vscode.FileSystemError.NoPermissions(uri);
  }
}

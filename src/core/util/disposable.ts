// Pure (no `vscode`): the one lifecycle idiom of the extension. A class that owns listeners,
// emitters or other disposables extends `Disposable` and registers each with `this.own(…)` where
// it makes it; its dispose() then disposes them all, once. Code that is not a class (a webview
// panel's handlers) keeps them in a `DisposableStore`. `vscode.Disposable`, `EventEmitter` and
// every VS Code registration fit `IDisposable`.

export interface IDisposable {
  dispose(): unknown;
}

/** Disposables owned together: disposed once, the last added first; one added later is disposed at once. */
export class DisposableStore implements IDisposable {
  private items: IDisposable[] = [];
  private disposed = false;

  /** Whether dispose() has run. */
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Owns `d` (returned, so that `const x = store.add(make())` reads naturally). */
  add<T extends IDisposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.items.push(d);
    return d;
  }

  /** Disposes every item, even when one throws; the first error is thrown after all are disposed. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = this.items.reverse();
    this.items = [];
    let failure: { error: unknown } | undefined;
    for (const d of items) {
      try {
        d.dispose();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}

/** Base of the classes that own disposables: `this.own(x)` registers, dispose() disposes them all. */
export abstract class Disposable implements IDisposable {
  private readonly owned = new DisposableStore();

  /** Disposes `d` with this object. */
  protected own<T extends IDisposable>(d: T): T {
    return this.owned.add(d);
  }

  dispose(): void {
    this.owned.dispose();
  }
}

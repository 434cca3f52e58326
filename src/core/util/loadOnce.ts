// Something loaded on first use and then kept (a part of the extension in a file of its own:
// undici, the blame code, History Search, the editor features, the site editor). A load that
// fails is not kept: the next call tries again. No `vscode`: src/core/api uses it.

/**
 * A file of the extension that is loaded on first use is not there: VS Code updated the
 * extension in the background while this window still runs the old version, whose files it
 * removed. Only reloading the window helps (src/workbench/feature.ts says so on screen).
 */
export class UpdatedWhileOpenError extends Error {
  constructor(readonly missing: string) {
    super(`A file of the extension is missing (${missing}): it was updated while this window was open. Reload the window.`);
    this.name = 'UpdatedWhileOpenError';
  }
}

/** A module that cannot be found (an ES-module import, a require or a worker thread's script of a missing file). */
export function missingModule(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const m = /Cannot find (?:module|package) '([^']+)'/.exec((e as Error).message);
  return m?.[1] ?? (e as Error).message;
}

/**
 * A function that starts `load` on its first call and returns the same promise afterwards. A
 * missing file rejects with UpdatedWhileOpenError.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (!loading) {
      const l = load().catch((e: unknown) => {
        const missing = missingModule(e);
        throw missing !== undefined ? new UpdatedWhileOpenError(missing) : e;
      });
      loading = l;
      l.catch(() => {
        if (loading === l) loading = undefined;
      });
    }
    return loading;
  };
}

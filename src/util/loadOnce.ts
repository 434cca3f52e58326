// Something loaded on first use and then kept (a module the bundle keeps apart: undici, the blame
// code). A load that fails is not kept: the next call tries again. No `vscode`: src/api uses it.

/** A function that starts `load` on its first call and returns the same promise afterwards. */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (!loading) {
      const l = load();
      loading = l;
      l.catch(() => {
        if (loading === l) loading = undefined;
      });
    }
    return loading;
  };
}

// Loads the blame module (./index) on first use. In the extension's bundle the import below
// becomes `require('./blame.js')` of a chunk of its own (esbuild.mjs), like undici: activation
// neither parses nor evaluates the blame code or its diff package. Plain Node (tests, bench)
// loads ./index from out/ the same way.
export type BlameModule = typeof import('./index');

let loading: Promise<BlameModule> | undefined;

/** The blame module, loaded once. */
export function loadBlame(): Promise<BlameModule> {
  if (!loading) {
    const l = import('./index.js').then((m) => {
      // A native import of a CommonJS module (out/): named exports, with module.exports as `default`.
      const mod = m as BlameModule & { default?: BlameModule };
      return typeof mod.BlameHistory === 'function' ? mod : (mod.default as BlameModule);
    });
    loading = l;
    l.catch(() => {
      if (loading === l) loading = undefined;
    });
  }
  return loading;
}

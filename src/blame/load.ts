// Loads the blame module (./index) on first use. In the extension's bundle the import below
// becomes `require('./blame.js')` of a chunk of its own (esbuild.mjs), like undici: activation
// neither parses nor evaluates the blame code or its diff package. Plain Node (tests, bench)
// loads ./index from out/ the same way.
import { loadOnce } from '../util/loadOnce';

export type BlameModule = typeof import('./index');

/** The blame module, loaded once (a failed load is tried again on the next call). */
export const loadBlame: () => Promise<BlameModule> = loadOnce(() =>
  import('./index.js').then((m) => {
    // A native import of a CommonJS module (out/): named exports, with module.exports as `default`.
    const mod = m as BlameModule & { default?: BlameModule };
    return typeof mod.BlameHistory === 'function' ? mod : (mod.default as BlameModule);
  }),
);

// Loads the blame module (./index) on first use. In the extension's build the import below is a
// chunk of its own (esbuild.mjs), like undici: activation neither parses nor evaluates the blame
// code or its diff package. Plain Node (tests, bench) imports ./index from out/ (CommonJS).
import { loadOnce } from '../util/loadOnce';

export type BlameModule = typeof import('./index');

/** The blame module, loaded once (a failed load is tried again on the next call). */
export const loadBlame: () => Promise<BlameModule> = loadOnce(() => import('./index.js'));

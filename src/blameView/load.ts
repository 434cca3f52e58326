// Loads the editor features (./index) on first use: in the extension's bundle the import below
// becomes `require('./blameView.js')` (esbuild.mjs), a chunk that shares the extension's modules
// (src/chunks/). Plain Node and unbundled runs load ./index from out/ as any module.
import { chunkModule } from '../chunks/load';

export type BlameViewChunk = typeof import('./index');

export async function loadBlameViewChunk(): Promise<BlameViewChunk> {
  return chunkModule<BlameViewChunk>(await import('./index.js'), 'registerBlameView');
}

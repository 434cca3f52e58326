// Loads ./chunk on first use: in the extension's bundle the import below becomes
// `require('./history.js')` (esbuild.mjs), a chunk that shares the extension's modules
// (src/chunks/). Plain Node and unbundled runs load ./chunk from out/ as any module.
import { chunkModule } from '../chunks/load';

export type HistoryChunk = typeof import('./chunk');

export async function loadHistoryChunk(): Promise<HistoryChunk> {
  return chunkModule<HistoryChunk>(await import('./chunk.js'), 'activateHistory');
}

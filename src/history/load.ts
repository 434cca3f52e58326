// Loads ./chunk on first use. In the extension's bundle the import below becomes
// `require('./history.js')` (esbuild.mjs), a chunk built as a function of the extension's own
// modules (./host.ts), so that it shares their classes and state instead of carrying copies.
// Plain Node and unbundled runs load ./chunk from out/ as any module.
import { HOST_MODULES } from './host';

export type HistoryChunk = typeof import('./chunk');

export async function loadHistoryChunk(): Promise<HistoryChunk> {
  const m = (await import('./chunk.js')) as HistoryChunk & { default?: unknown };
  if (typeof m.activateHistory === 'function') return m;
  if (typeof m.default === 'function') return (m.default as (host: Record<string, unknown>) => HistoryChunk)(HOST_MODULES);
  return m.default as HistoryChunk;
}

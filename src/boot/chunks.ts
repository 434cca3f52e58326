// How the bundle loads a file of its own later, on first use (dist/undici.js on the first
// request): through the loader dist/boot.js hands over, which takes the compiled code from V8's
// code cache as it does for the bundle (./codeCache.ts); without one — unbundled in the unit
// tests, or a copy of the bundle loaded by a test — through the caller's own import. Imports
// nothing, so src/api can use it in plain Node.

/** Loads `file` (a name next to the bundle) and gives its module.exports. */
export type ChunkLoader = (file: string) => unknown;

let loader: ChunkLoader | undefined;

/** Set by src/extension.ts when dist/boot.js loaded the bundle; undefined again when it is deactivated. */
export function setChunkLoader(l: ChunkLoader | undefined): void {
  loader = l;
}

/** `file` through the loader when there is one, else `fallback()` (which imports it as usual). */
export function loadChunk<T>(file: string, fallback: () => Promise<T>): Promise<T> {
  const l = loader;
  return l ? new Promise<T>((resolve) => resolve(l(file) as T)) : fallback();
}

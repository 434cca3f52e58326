// What a chunk's loader (src/history/load.ts, src/blameView/load.ts) gets from its `import()`:
// unbundled (plain Node, out/), the module itself; in the extension's bundle, where the import
// becomes `require('./<chunk>.js')` (esbuild.mjs), a function of the extension's own modules,
// called here with them (./host.ts).
import { HOST_MODULES } from './host';

/** The chunk's module; `probe` names one of its functions (present when it is the module itself). */
export function chunkModule<T extends object>(imported: unknown, probe: keyof T): T {
  const m = imported as T & { default?: unknown };
  if (typeof m[probe] === 'function') return m;
  if (typeof m.default === 'function') return (m.default as (host: Record<string, unknown>) => T)(HOST_MODULES);
  return m.default as T;
}

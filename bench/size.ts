// Size figures: the production bundle and the .vsix, and the biggest modules of the bundle
// according to esbuild's metafile. The .vsix is read with test/host/zip.ts, so that the bundle
// measured elsewhere is exactly the one that ships.
import * as fs from 'node:fs';

interface Metafile {
  inputs: Record<string, { bytes: number }>;
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

export interface ModuleSize {
  path: string;
  bytes: number;
  /** The output file it is in (dist/extension.js, dist/undici.js). */
  output?: string;
}

export interface BundleAnalysis {
  /** Bytes of each JavaScript output. */
  outputs: ModuleSize[];
  /** Bytes of dist/extension.js according to the metafile. */
  outputBytes: number;
  modules: number;
  /** The biggest modules over all outputs. */
  top: ModuleSize[];
  /** Bytes in the outputs per package (node_modules/<name>) or `src`. */
  byPackage: ModuleSize[];
}

/** The biggest inputs of the build, by the bytes they take in its outputs. */
export function analyseMetafile(file: string, main = 'dist/extension.js', topN = 10): BundleAnalysis {
  const meta = JSON.parse(fs.readFileSync(file, 'utf8')) as Metafile;
  const outputs = Object.entries(meta.outputs).filter(([name]) => name.endsWith('.js'));
  if (!outputs.length) throw new Error(`${file} has no JavaScript output`);
  // Paths are relative to where the build ran; through a symlinked node_modules they may start
  // with ../…: keep them from src/ or node_modules/ on.
  const tidy = (p: string) => /(?:^|\/)((?:src|node_modules)\/.*)$/.exec(p)?.[1] ?? p;
  const mods = outputs.flatMap(([output, o]) => Object.entries(o.inputs).map(([path, v]) => ({ path: tidy(path), bytes: v.bytesInOutput, output })));
  mods.sort((a, b) => b.bytes - a.bytes);
  const pk = new Map<string, number>();
  for (const m of mods) {
    const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(m.path);
    const key = nm ? nm[1]! : m.path.split('/')[0]!;
    pk.set(key, (pk.get(key) ?? 0) + m.bytes);
  }
  const byPackage = [...pk].map(([path, bytes]) => ({ path, bytes })).sort((a, b) => b.bytes - a.bytes);
  return {
    outputs: outputs.map(([path, o]) => ({ path, bytes: o.bytes })),
    outputBytes: meta.outputs[main]?.bytes ?? outputs[0]![1].bytes,
    modules: mods.length,
    top: mods.slice(0, topN),
    byPackage,
  };
}

// Size figures: the production bundle and the .vsix, and the biggest modules of the bundle
// according to esbuild's metafile. The .vsix is read with test/host/zip.ts, so that the bundle
// measured elsewhere is exactly the one that ships.
import * as fs from 'node:fs';

interface Metafile {
  inputs: Record<string, { bytes: number }>;
  outputs: Record<string, { bytes: number; entryPoint?: string; imports?: { path: string; kind: string; external?: boolean }[]; inputs: Record<string, { bytesInOutput: number }> }>;
}

export interface ModuleSize {
  path: string;
  bytes: number;
  /** The output file it is in (dist/extension.mjs, dist/chunk-….mjs). */
  output?: string;
  /** For an output: the module a dynamic `import()` of which it was split for (src/features/history/feature.ts, undici…), if any. */
  entryPoint?: string;
  /** For an output: whether activation loads it (the entry point and what it imports statically). */
  atActivation?: boolean;
}

export interface BundleAnalysis {
  /** Bytes of each JavaScript output. */
  outputs: ModuleSize[];
  /** Bytes of dist/extension.mjs according to the metafile. */
  outputBytes: number;
  /** Bytes of the files activation loads: the entry point and the chunks it imports statically. */
  activationBytes: number;
  /** The modules activation evaluates (in those files). */
  activationInputs: string[];
  modules: number;
  /** The biggest modules over all outputs. */
  top: ModuleSize[];
  /** Bytes in the outputs per package (node_modules/<name>) or `src`. */
  byPackage: ModuleSize[];
}

/** The biggest inputs of the build, by the bytes they take in its outputs. */
export function analyseMetafile(file: string, main = 'dist/extension.mjs', topN = 10): BundleAnalysis {
  const meta = JSON.parse(fs.readFileSync(file, 'utf8')) as Metafile;
  const outputs = Object.entries(meta.outputs).filter(([name]) => /\.m?js$/.test(name));
  // What activation loads: the entry point and, transitively, the chunks it imports statically.
  const atActivation = new Set<string>();
  const visit = (name: string) => {
    if (atActivation.has(name) || !meta.outputs[name]) return;
    atActivation.add(name);
    for (const i of meta.outputs[name].imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(main);
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
    outputs: outputs.map(([path, o]) => ({ path, bytes: o.bytes, ...(o.entryPoint ? { entryPoint: tidy(o.entryPoint) } : {}), atActivation: atActivation.has(path) })),
    outputBytes: meta.outputs[main]?.bytes ?? outputs[0]![1].bytes,
    activationBytes: [...atActivation].reduce((n, o) => n + meta.outputs[o]!.bytes, 0),
    activationInputs: [...atActivation].flatMap((o) => Object.keys(meta.outputs[o]!.inputs).map(tidy)).sort(),
    modules: mods.length,
    top: mods.slice(0, topN),
    byPackage,
  };
}

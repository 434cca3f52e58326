// The connection layer (src/core/live) built with the extension's own esbuild options
// (esbuild.mjs: ES modules, code splitting, minified): what importing src/core/live loads, and
// what each protocol's first connection loads on top (its chunk imported with import(), and the
// chunks that chunk imports). Used by test/unit/live.bundle.test.ts (the checks) and by the
// bench's `live` step (the bytes per chunk).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions, Metafile } from 'esbuild';

const repoRoot = path.resolve(__dirname, '..', '..');

export const LIVE_PROTOCOLS = ['ftp', 'sftp', 'webdav', 's3'] as const;

export interface LiveBuild {
  /** Bytes of the files importing src/core/live/index.ts loads (the entry and its static imports). */
  indexBytes: number;
  /** Modules of those files that belong to a protocol (basic-ftp, ssh2, undici, a protocol module): must be none. */
  indexProtocolModules: string[];
  protocols: {
    protocol: (typeof LIVE_PROTOCOLS)[number];
    /** Whether a chunk was split for it and is reached by a dynamic import(). */
    chunk: boolean;
    dynamic: boolean;
    /** What its first connection loads: its chunk and the chunks it imports, less what the index has loaded. */
    bytes: number;
    files: number;
  }[];
  /** Every module of the build (tidied: from src/ or node_modules/ on). */
  modules: string[];
  /** Imports left to Node at run time (ssh2's native parts must be among them, not bundled). */
  externals: string[];
}

const tidy = (p: string) => /(?:^|\/)((?:src|node_modules)\/.*)$/.exec(p)?.[1] ?? p;

/** Builds src/core/live/index.ts into a temporary folder and describes the output. */
export async function buildLive(): Promise<LiveBuild> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-live-build-'));
  try {
    const esbuild = await import('esbuild');
    const { options } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { options: BuildOptions };
    const cwd = process.cwd();
    process.chdir(repoRoot);
    let meta: Metafile;
    try {
      meta = (await esbuild.build({ ...options, entryPoints: { live: 'src/core/live/index.ts' }, outdir: dir, sourcemap: false, minify: true, logLevel: 'silent' })).metafile!;
    } finally {
      process.chdir(cwd);
    }
    return describe(meta);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function describe(meta: Metafile): LiveBuild {
  const outs = Object.entries(meta.outputs).map(([k, o]) => ({ name: path.basename(k), inputs: Object.keys(o.inputs).map(tidy), entry: o.entryPoint ? tidy(o.entryPoint) : undefined, imports: o.imports, bytes: o.bytes }));
  const byName = new Map(outs.map((o) => [o.name, o]));
  const closure = (start: string, skip: ReadonlySet<string>): Set<string> => {
    const seen = new Set<string>();
    const visit = (n: string) => {
      if (seen.has(n) || skip.has(n) || !byName.has(n)) return;
      seen.add(n);
      for (const i of byName.get(n)!.imports) if (i.kind === 'import-statement' && !i.external) visit(path.basename(i.path));
    };
    visit(start);
    return seen;
  };
  const index = closure('live.mjs', new Set());
  const bytesOf = (files: Iterable<string>) => [...files].reduce((n, f) => n + byName.get(f)!.bytes, 0);
  const loaded = [...index].flatMap((n) => byName.get(n)!.inputs);
  return {
    indexBytes: bytesOf(index),
    indexProtocolModules: loaded.filter((i) => /node_modules\/(basic-ftp|ssh2|undici|asn1|bcrypt-pbkdf)\/|src\/core\/live\/(ftp|sftp|webdav|s3|http|sigv4|xml)\.ts$/.test(i)),
    protocols: LIVE_PROTOCOLS.map((protocol) => {
      const chunk = outs.find((o) => o.entry === `src/core/live/${protocol}.ts`);
      if (!chunk) return { protocol, chunk: false, dynamic: false, bytes: 0, files: 0 };
      const mine = closure(chunk.name, index);
      return {
        protocol,
        chunk: true,
        dynamic: outs.some((o) => o.imports.some((i) => path.basename(i.path) === chunk.name && i.kind === 'dynamic-import')),
        bytes: bytesOf(mine),
        files: mine.size,
      };
    }),
    modules: [...new Set(outs.flatMap((o) => o.inputs))],
    externals: [...new Set(outs.flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path)))],
  };
}

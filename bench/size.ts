// Size figures: the production bundle and the .vsix, and the biggest modules of the bundle
// according to esbuild's metafile. Includes a small reader of .zip files (a .vsix is one) so
// that the bundle measured elsewhere is exactly the one that ships.
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** The entries of a .zip file (central directory). */
export function zipEntries(buf: Buffer): ZipEntry[] {
  // End of central directory: the last 0x06054b50 within the final 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const localHeaderOffset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    out.push({ name, method, compressedSize, size, localHeaderOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** The bytes of one entry. */
export function zipRead(buf: Buffer, e: ZipEntry): Buffer {
  const p = e.localHeaderOffset;
  if (buf.readUInt32LE(p) !== 0x04034b50) throw new Error(`corrupt zip local header of ${e.name}`);
  const start = p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
  const data = buf.subarray(start, start + e.compressedSize);
  if (e.method === 0) return Buffer.from(data);
  if (e.method === 8) return zlib.inflateRawSync(data);
  throw new Error(`zip method ${e.method} of ${e.name} is not supported`);
}

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

// Loads a CommonJS file through V8's code cache, kept in a folder of the extension's own
// (plain Node: no `vscode` import; src/boot/main.ts hands it the folder).
//
// Why: most of what activation costs is V8 compiling the bundle (parsing 150 KB of JavaScript,
// then compiling the functions activation runs). VS Code caches its own code this way; its
// extension host does not cache extensions' code, so the bundle is compiled from source at
// every start. With the cache, V8 takes the bytecode it made at an earlier start instead.
//
// How a cache is kept correct:
// - Its name holds a SHA-256 of the source and the V8 version: V8 itself checks only the
//   source's length (and its own version and flags), so a changed bundle of the same length
//   would otherwise run the bytecode of the old one.
// - Its first 32 bytes are a SHA-256 of the rest: a file cut short or damaged is never handed to
//   V8 (whose own checksum is checked only in its debug builds). Such a file is ignored and
//   replaced.
// - V8 may still reject a cache (other flags): the source is compiled as usual, and `save()`
//   writes a new one.
// - Written to a temporary file and renamed into place: a window closing mid-write, or two
//   windows writing at once, leave a whole file or none. Caches of other versions are removed.
// Nothing here may stop the extension from starting: any failure to read, check or write the
// cache means the file is compiled from source, as without one.
import buffer = require('node:buffer');
import crypto = require('node:crypto');
import fs = require('node:fs');
import path = require('node:path');
import vm = require('node:vm');
import Module = require('node:module');

/** What became of the cache at this load. */
export type CodeCacheState =
  /** V8 took its compiled code from the cache. */
  | 'used'
  /** There was no cache for this source and V8 version (the first start after an install or update). */
  | 'absent'
  /** A cache file was there but damaged (its checksum did not match): ignored. */
  | 'damaged'
  /** V8 rejected the cache (e.g. other V8 flags). */
  | 'rejected'
  /** No folder to keep a cache in, or the folder could not be read: compiled as usual. */
  | 'off';

export interface CodeCacheReport {
  state: CodeCacheState;
  /** Time spent reading and checking the cache, and compiling (not running) the file. */
  ms: number;
  /** Bytes of the cache that was read (0 when none was used). */
  bytes: number;
  /**
   * Writes the cache for this source, with the code V8 has compiled by now (call it once
   * activation and the first work are done, so that their functions are in it). Does nothing when
   * the cache was used. Never throws: the outcome is returned.
   */
  save(): Promise<{ outcome: 'written' | 'kept' | 'failed'; bytes?: number; error?: string }>;
}

export interface CodeCacheLoad<T> {
  exports: T;
  report: CodeCacheReport;
}

const HASH_BYTES = 32;
/** A temporary file older than this was left by a window that closed while writing. */
const STALE_TMP_MS = 10 * 60_000;
const sha256 = (data: string | Uint8Array): Buffer => crypto.createHash('sha256').update(data).digest();

/** The cache file's name for `file` with this `source`: the file's name, then a hash of the source and the V8 version. */
export function codeCacheName(file: string, source: Uint8Array): string {
  const key = crypto.createHash('sha256').update(source).update('\0').update(process.versions.v8).update('\0').update(process.arch).digest('hex').slice(0, 32);
  return `${path.basename(file, '.js')}-${key}.v8cache`;
}

/** The cache's contents from its file's bytes, or undefined when its checksum does not match. */
export function checkedCache(bytes: Buffer): Buffer | undefined {
  if (bytes.length <= HASH_BYTES) return undefined;
  const data = bytes.subarray(HASH_BYTES);
  return sha256(data).equals(bytes.subarray(0, HASH_BYTES)) ? data : undefined;
}

/**
 * Loads `file` (a CommonJS module) as Node's `require` would, its compiled code taken from a cache
 * in `cacheDir` when there is a good one. Its `require` resolves from `file` (so `./chunk.js` is
 * found next to it, and the host's `vscode` is handed to it as to any module of the extension).
 * Without `cacheDir` it is plainly required.
 */
export function loadWithCodeCache<T>(file: string, cacheDir: string | undefined): CodeCacheLoad<T> {
  const t0 = performance.now();
  let state: CodeCacheState = 'off';
  let source: Buffer | undefined;
  let cacheFile: string | undefined;
  let cached: Buffer | undefined;
  if (cacheDir) {
    try {
      // Hashed as read (hashing the decoded string costs ten times more: it is encoded again).
      source = fs.readFileSync(file);
      cacheFile = path.join(cacheDir, codeCacheName(file, source));
      cached = checkedCache(fs.readFileSync(cacheFile));
      state = cached ? 'used' : 'damaged';
    } catch (e) {
      state = source !== undefined && (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'off';
    }
  }
  if (source === undefined || cacheFile === undefined || state === 'off') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exports = require(file) as T;
    return { exports, report: { state: 'off', ms: performance.now() - t0, bytes: 0, save: () => Promise.resolve({ outcome: 'kept' }) } };
  }
  const script = new vm.Script(Module.wrap(decode(source)), { filename: file, cachedData: cached });
  if (cached && script.cachedDataRejected) state = 'rejected';
  const ms = performance.now() - t0;
  const exports = run<T>(script, file);
  const target = cacheFile;
  let saved = false;
  const report: CodeCacheReport = {
    state,
    ms,
    bytes: state === 'used' ? cached!.length : 0,
    save: async () => {
      if (state === 'used' || saved) return { outcome: 'kept' };
      saved = true;
      try {
        const data = script.createCachedData();
        await writeCache(target, data);
        return { outcome: 'written', bytes: data.length };
      } catch (e) {
        return { outcome: 'failed', error: e instanceof Error ? e.message : String(e) };
      }
    },
  };
  return { exports, report };
}

/**
 * The file's text. The bundles are ASCII (test/unit/package.test.ts checks it): read as Latin-1 it
 * is the same text, decoded four times faster than as UTF-8.
 */
function decode(source: Buffer): string {
  return typeof buffer.isAscii === 'function' && buffer.isAscii(source) ? source.toString('latin1') : source.toString('utf8');
}

/** Runs the compiled module wrapper as Node would: its own `module`, `exports`, `require`, `__filename`, `__dirname`. */
function run<T>(script: vm.Script, file: string): T {
  const wrapper = script.runInThisContext({ displayErrors: true }) as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  const m = new Module(file, module);
  m.filename = file;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
  const req = Module.createRequire(file);
  wrapper.call(m.exports, m.exports, req, m, file, path.dirname(file));
  m.loaded = true;
  return m.exports as T;
}

/** Writes `data` with its checksum to `file` through a temporary file, then removes the other caches of the same file. */
async function writeCache(file: string, data: Buffer): Promise<void> {
  const dir = path.dirname(file);
  await fs.promises.mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.promises.writeFile(tmp, Buffer.concat([sha256(data), data]));
    await fs.promises.rename(tmp, file);
  } catch (e) {
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  // Caches of earlier versions of this file go, and temporary files a closed window left behind.
  const base = path.basename(file);
  const prefix = `${base.replace(/-[0-9a-f]+\.v8cache$/, '')}-`;
  for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix) || name === base) continue;
    const other = path.join(dir, name);
    if (name.endsWith('.v8cache')) await fs.promises.rm(other, { force: true }).catch(() => undefined);
    else if (name.endsWith('.tmp')) {
      const stat = await fs.promises.stat(other).catch(() => undefined);
      // Another window may be writing its own right now.
      if (stat && Date.now() - stat.mtimeMs > STALE_TMP_MS) await fs.promises.rm(other, { force: true }).catch(() => undefined);
    }
  }
}


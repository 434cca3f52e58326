// File-system helpers of the disk store (plain Node): private folders and files, atomic writes
// (a temporary file renamed into place), the clean-up of temporary files that a killed process
// left behind, and the lock file that compaction of the index runs under (catalog.ts).
import { randomBytes } from 'node:crypto';
// fs.promises is read where it is used, so that activating does not load it (see esbuild.mjs).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/** Folders: readable by the user only. */
export const DIR_MODE = 0o700;
/** Files: readable and writable by the user only. */
export const FILE_MODE = 0o600;

/** Creates a folder (and its parents) readable by the user only; an existing one is narrowed to 0700. */
export async function privateDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: DIR_MODE });
  if (process.platform !== 'win32') await fsp.chmod(dir, DIR_MODE);
}

/** A file name that says which process made it: `<prefix><pid>-<random><suffix>`. */
export function ownedName(prefix: string, suffix: string): string {
  return `${prefix}${process.pid}-${randomBytes(6).toString('hex')}${suffix}`;
}

/** A temporary file in `tmpDir`: `<pid>-<random>.tmp`. */
export function tempName(tmpDir: string): string {
  return path.join(tmpDir, ownedName('', '.tmp'));
}

/**
 * Writes `data` to `dest` atomically: to a temporary file first (mode 0600), then renamed over
 * `dest`. A crash leaves either the old file or the new one, never a torn one; the temporary file
 * of a killed process is removed by cleanTemp() later.
 */
export async function writeAtomic(tmpDir: string, dest: string, data: Uint8Array | string): Promise<void> {
  const tmp = tempName(tmpDir);
  try {
    await fsp.writeFile(tmp, data, { mode: FILE_MODE, flag: 'wx' });
    await fsp.rename(tmp, dest);
  } catch (e) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** Whether a process with this id runs on this machine (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process id a store file name starts with (`<pid>-…`), or NaN. */
export function ownerPid(name: string): number {
  const m = /^(?:j-)?(\d+)-/.exec(name);
  return m ? Number(m[1]) : NaN;
}

/**
 * Removes temporary files left by processes that no longer run (or older than `maxAgeMs`, in
 * case a process id was reused). Files of live processes stay: they may be mid-write.
 */
export async function cleanTemp(tmpDir: string, maxAgeMs = 3600_000): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await fsp.readdir(tmpDir);
  } catch {
    return 0;
  }
  const now = Date.now();
  for (const name of names) {
    const file = path.join(tmpDir, name);
    try {
      const old = now - (await fsp.stat(file)).mtimeMs > maxAgeMs;
      if (old || !processAlive(ownerPid(name))) {
        await fsp.rm(file, { force: true, recursive: true });
        removed++;
      }
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}

/** True for "the file is not there" errors. */
export function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A lock older than this is taken over even if its process seems alive (a reused pid). */
const STALE_LOCK_MS = 5 * 60_000;

/** Creates the lock file exclusively; takes over a lock whose process is gone or that is too old. */
export async function takeLock(lock: string): Promise<boolean> {
  for (let tries = 0; tries < 2; tries++) {
    try {
      await fsp.writeFile(lock, String(process.pid), { flag: 'wx', mode: FILE_MODE });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      const [text, st] = await Promise.all([fsp.readFile(lock, 'utf8'), fsp.stat(lock)]);
      const pid = Number(text.trim());
      if (processAlive(pid) && Date.now() - st.mtimeMs < STALE_LOCK_MS) return false;
      await fsp.rm(lock, { force: true });
    } catch (e) {
      if (!isMissing(e)) throw e;
    }
  }
  return false;
}

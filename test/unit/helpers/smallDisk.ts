// A small real disk for the tests of what a full disk leaves behind: a tmpfs of `bytes` mounted on a
// fresh folder (Linux, as root: CI runs as root). Elsewhere, or where mounting is not allowed (a
// container without the capability), `reason` says why there is none and the test skips.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Unmounts the disk and removes its folder. */
  remove(): void;
}

export function smallDisk(bytes: number): SmallDisk | { reason: string } {
  if (process.platform !== 'linux') return { reason: `a tmpfs is mounted on Linux only (this is ${process.platform})` };
  if (process.getuid?.() !== 0) return { reason: 'mounting a 1 MB tmpfs needs root (CI runs as root)' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    fs.rmdirSync(dir);
    return { reason: `mount -t tmpfs failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}` };
  }
  return {
    dir,
    remove() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      fs.rmdirSync(dir);
    },
  };
}

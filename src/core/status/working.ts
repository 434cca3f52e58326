// The working files of a mapped folder as status reads them (plain Node; no `vscode`): a file's
// size, modification time and SHA-256, and the list of the folder's files for the count of local
// files with no revision. `nodeWorkingFs` reads a local folder with node:fs; src/features/scm gives the
// same interface over vscode.workspace.fs for a folder of another file system.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { digest as sha256 } from '../model/revisionStore';
import type { WorkingFile } from './index';

export interface WorkingStat {
  size: number;
  mtime: number;
}

/** A mapped folder's files, by path relative to it (segments joined with `/`). */
export interface WorkingFs {
  /** The file's size and modification time; undefined when there is no file there (nothing, or a folder). */
  stat(relative: string): Promise<WorkingStat | undefined>;
  read(relative: string): Promise<Uint8Array>;
  /**
   * The folder's files, at most `max` (`complete` false when there were more). Folders named
   * `.git` are left out, and so are symbolic links to folders (never followed).
   */
  list(max: number, signal?: AbortSignal): Promise<{ files: string[]; complete: boolean }>;
}

/** The folder at `root` on the local disk. */
export function nodeWorkingFs(root: string): WorkingFs {
  const abs = (relative: string) => path.join(root, ...relative.split('/'));
  return {
    async stat(relative) {
      try {
        const st = await fsp.stat(abs(relative));
        return st.isFile() ? { size: st.size, mtime: st.mtimeMs } : undefined;
      } catch {
        return undefined;
      }
    },
    read: (relative) => fsp.readFile(abs(relative)),
    async list(max, signal) {
      const files: string[] = [];
      const pending: string[] = [''];
      while (pending.length) {
        if (signal?.aborted) break;
        const dir = pending.pop()!;
        let entries: import('node:fs').Dirent[];
        try {
          entries = await fsp.readdir(dir ? abs(dir) : root, { withFileTypes: true });
        } catch {
          continue; // unreadable: what it holds is not counted
        }
        for (const e of entries) {
          const rel = dir ? `${dir}/${e.name}` : e.name;
          if (e.isDirectory()) {
            if (e.name !== '.git') pending.push(rel);
          } else if (e.isFile() || e.isSymbolicLink()) {
            if (e.isSymbolicLink() && !(await isFileLink(abs(rel)))) continue;
            if (files.length >= max) return { files, complete: false };
            files.push(rel);
          }
        }
      }
      return { files, complete: !signal?.aborted };
    },
  };
}

async function isFileLink(p: string): Promise<boolean> {
  try {
    return (await fsp.stat(p)).isFile();
  } catch {
    return false;
  }
}

/**
 * Digests of working files by size and modification time: a file not touched since it was
 * hashed is not read again (as Git's index does with its stat data).
 */
export class DigestCache {
  private readonly known = new Map<string, { size: number; mtime: number; digest: string }>();

  get(relative: string, st: WorkingStat): string | undefined {
    const k = this.known.get(relative);
    return k && k.size === st.size && k.mtime === st.mtime ? k.digest : undefined;
  }

  set(relative: string, st: WorkingStat, digest: string): void {
    this.known.set(relative, { size: st.size, mtime: st.mtime, digest });
  }
}

/** A working file's size, time and digest (read and hashed unless `digests` knows it); null when there is none. */
export async function readWorking(fs: WorkingFs, relative: string, digests: DigestCache): Promise<WorkingFile | null> {
  const st = await fs.stat(relative);
  if (!st) return null;
  let digest = digests.get(relative, st);
  if (digest === undefined) {
    let bytes: Uint8Array;
    try {
      bytes = await fs.read(relative);
    } catch {
      return null; // gone between the two looks
    }
    digest = sha256(bytes);
    // Hashed as it was read: a write in between gives another size or time at the next look.
    digests.set(relative, st, digest);
  }
  return { size: st.size, mtime: st.mtime, digest };
}

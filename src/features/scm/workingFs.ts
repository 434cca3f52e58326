// A mapped folder that is not on the local disk (a remote or virtual file system) as status reads
// it: the WorkingFs of src/core/status/working.ts over vscode.workspace.fs. Its API reads a file
// whole: such a file takes its whole size of the budget of bytes in flight while it is read and
// hashed (in slices); status never reads one over MAX_COMPARED_BYTES.
import * as vscode from 'vscode';
import { sha256Sliced } from '../../core/store/slices';
import { READ_BUDGET, shareOf, type WorkingFs } from '../../core/status/working';

export function vscodeWorkingFs(folder: vscode.Uri): WorkingFs {
  const at = (relative: string) => vscode.Uri.joinPath(folder, ...relative.split('/'));
  return {
    async stat(relative) {
      try {
        const st = await vscode.workspace.fs.stat(at(relative));
        return st.type & vscode.FileType.File ? { size: st.size, mtime: st.mtime } : undefined;
      } catch {
        return undefined;
      }
    },
    async hash(relative, o) {
      const st = await vscode.workspace.fs.stat(at(relative));
      const release = await (o?.budget ?? READ_BUDGET).acquire(Math.max(shareOf(st.size), st.size), o?.signal);
      try {
        return await sha256Sliced(await vscode.workspace.fs.readFile(at(relative)));
      } finally {
        release();
      }
    },
    async list(max, signal) {
      const files: string[] = [];
      const pending = [''];
      while (pending.length && !signal?.aborted) {
        const dir = pending.pop()!;
        let entries: [string, vscode.FileType][];
        try {
          entries = await vscode.workspace.fs.readDirectory(dir ? at(dir) : folder);
        } catch {
          continue;
        }
        for (const [name, type] of entries) {
          const rel = dir ? `${dir}/${name}` : name;
          if (type & vscode.FileType.SymbolicLink && type & vscode.FileType.Directory) continue;
          if (type & vscode.FileType.Directory) {
            if (name !== '.git') pending.push(rel);
          } else if (type & vscode.FileType.File) {
            if (files.length >= max) return { files, complete: false };
            files.push(rel);
          }
        }
      }
      return { files, complete: !signal?.aborted };
    },
  };
}

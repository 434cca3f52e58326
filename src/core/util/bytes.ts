// Pure (no `vscode`): a number of bytes as people read it.

/** Bytes as MB with one decimal (KB below 1 MB). */
export function mb(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// Gutter changes against the service: the quick diff of a mapped folder's source control (src/features/scm
// makes one per mapped folder) gives as the original of a working file the newest revision on the
// service (a `site-revision:` document), so the gutter and the overview ruler show what differs
// from it. It sits next to Git's (VS Code shows every quick diff); `siteRevisions.quickDiff.enabled`
// turns it off. Reads go through WorkingFiles at background priority: the site's file list and the
// file's history (one Get Revisions with content, shared with blame and the alert) — cached, so the
// original of a file costs at most one list and one content read, once. A newest revision over
// the diff editor's limit (`diffEditor.maxFileSize`) gives no original, as Compare refuses it
// (src/features/revisions/diffGuard.ts): the workbench would read it whole and hand its text to
// every extension host, holding this one for a few hundred milliseconds on a 20 MB revision.
import type * as vscode from 'vscode';
import { readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import { FolderMapping } from '../revisions/mapping';
import { diffLimitBytes } from '../revisions/diffGuard';
import type { WorkingFiles } from './workingFiles';

export class SiteQuickDiff {
  constructor(
    private readonly files: WorkingFiles,
    private readonly log: Log,
  ) {}

  /** The quick diff of the source control of `folder`; undefined when the setting turns it off. */
  provider(folder: vscode.Uri): vscode.QuickDiffProvider | undefined {
    return readSettings().quickDiff ? { provideOriginalResource: (uri, token) => this.original(folder, uri, token) } : undefined;
  }

  /** The newest revision of a working file inside `folder`, or undefined (no revision, offline…). */
  async original(folder: vscode.Uri, uri: vscode.Uri, token?: vscode.CancellationToken): Promise<vscode.Uri | undefined> {
    if (!FolderMapping.contains(folder, uri) || !this.files.signedIn()) return undefined;
    try {
      const t = await this.files.target(uri);
      if (!t || token?.isCancellationRequested) return undefined;
      const newest = await this.files.newest(t, { priority: 'background' });
      if (!newest || token?.isCancellationRequested) return undefined;
      const limit = diffLimitBytes();
      if (limit !== undefined && newest.content.byteLength > limit) {
        this.log.debug(`Quick diff: the newest revision of ${t.path} is ${newest.content.byteLength} bytes, over diffEditor.maxFileSize: no gutter for it`);
        return undefined;
      }
      return this.files.documentUri(t, newest.listed);
    } catch (e) {
      // Offline, signed out, expired: no gutter, and nothing to tell (the view says so).
      this.log.debug('Quick diff: no original for a working file', e);
      return undefined;
    }
  }
}

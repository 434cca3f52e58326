// Gutter changes against the service: one source control "Site Revisions" per mapped folder
// whose quick diff original of a working file is the newest revision on the service (a
// `site-revision:` document), so the gutter and the overview ruler show what differs from it. It
// sits next to Git's (VS Code shows every quick diff); `siteRevisions.quickDiff.enabled` turns it
// off. Reads go through WorkingFiles at background priority: the site's file list and the file's
// history (one Get Revisions with content, shared with blame and the alert) — cached, so the
// original of a file costs at most one list and one content read, once.
import * as vscode from 'vscode';
import { readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import { FolderMapping } from '../revisions/mapping';
import type { WorkingFiles } from './workingFiles';

export class SiteQuickDiff implements vscode.Disposable {
  /** The source controls, by mapped folder. */
  private readonly controls = new Map<string, vscode.SourceControl>();

  constructor(
    private readonly files: WorkingFiles,
    private readonly log: Log,
  ) {}

  /** Creates and disposes source controls to match the mapped folders and the setting. */
  update(): void {
    const want = new Map<string, vscode.Uri>();
    if (readSettings().quickDiff) for (const { folder } of this.files.folders.mapped()) want.set(folder.toString(), folder);
    for (const [k, sc] of this.controls) {
      if (want.has(k)) continue;
      sc.dispose();
      this.controls.delete(k);
    }
    for (const [k, folder] of want) {
      if (this.controls.has(k)) continue;
      const sc = vscode.scm.createSourceControl('siteRevisions', vscode.l10n.t('Site Revisions'), folder);
      sc.inputBox.visible = false;
      sc.quickDiffProvider = { provideOriginalResource: (uri, token) => this.original(folder, uri, token) };
      this.controls.set(k, sc);
    }
  }

  /** Folders with a source control (for tests and the log). */
  get folders(): string[] {
    return [...this.controls.keys()];
  }

  /** The newest revision of a working file inside `folder`, or undefined (no revision, offline…). */
  async original(folder: vscode.Uri, uri: vscode.Uri, token?: vscode.CancellationToken): Promise<vscode.Uri | undefined> {
    if (!FolderMapping.contains(folder, uri) || !this.files.signedIn()) return undefined;
    try {
      const t = await this.files.target(uri);
      if (!t || token?.isCancellationRequested) return undefined;
      const newest = await this.files.newest(t, { priority: 'background' });
      return newest && !token?.isCancellationRequested ? this.files.documentUri(t, newest.listed) : undefined;
    } catch (e) {
      // Offline, signed out, expired: no gutter, and nothing to tell (the view says so).
      this.log.debug('Quick diff: no original for a working file', e);
      return undefined;
    }
  }

  dispose(): void {
    for (const sc of this.controls.values()) sc.dispose();
    this.controls.clear();
  }
}

// "Compare with the Same File on Another Site…": from a working file of a mapped site (or a
// revision of one), pick another site; the newest revision of the same path there is compared
// with this revision or the working file. A site that has no revisions of that path says so.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { withoutUserinfo } from '../../core/api/userinfo';
import { parseRevisionUri, revisionDocumentUri } from '../revisions/fileSystem';
import { ignoresCase, pathsOf } from '../revisions/locate';
import { revisionTitle } from '../revisions/nodes';
import { safeSegments } from '../../core/model/safePath';
import type { SitesModel } from '../sites/sitesModel';
import { inform, message, plain } from '../../workbench/messages';
import { displayText } from '../../core/util/text';
import type { WorkingFiles } from './workingFiles';

export type OtherSiteOutcome = { done: true; left: vscode.Uri; right: vscode.Uri } | { done: false; reason: 'none' | 'cancelled' | 'missing' };

export class OtherSiteCompare {
  constructor(
    private readonly files: WorkingFiles,
    private readonly model: SitesModel,
  ) {}

  /** `arg`: a working file or revision URI (the active editor's by default); `pickSite` chooses for tests and scripts. */
  async run(arg?: unknown, pickSite?: unknown): Promise<OtherSiteOutcome> {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    const here = uri && this.whereIs(uri);
    if (!uri || !here) {
      inform(message('Open a file of a mapped site, or a revision, first.'));
      return { done: false, reason: 'none' };
    }
    const others = (await this.model.visibleSites()).filter((s) => s.id !== here.siteId);
    if (!others.length) {
      inform(message('There is no other site to compare with.'));
      return { done: false, reason: 'none' };
    }
    const other = typeof pickSite === 'string' ? others.find((s) => s.id === pickSite) : await this.pick(others, here.segments.join('/'));
    if (!other) return { done: false, reason: 'cancelled' };
    const found = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Looking for the file on “{0}”', displayText(other.name)) }, async () => {
      const paths = pathsOf(await this.files.store.siteFiles(other.id), here.segments, ignoresCase(uri));
      for (const path of paths) {
        const newest = (await this.files.store.revisions(other.id, path)).items[0];
        if (newest) return { path, newest };
      }
      return undefined;
    });
    if (!found) {
      inform(message('“{0}” has no revisions of {1}.', plain(other.name), plain(here.segments.join('/'))));
      return { done: false, reason: 'missing' };
    }
    const ref = { site: other, path: found.path, item: found.newest.item, time: found.newest.time };
    const left = revisionDocumentUri(ref);
    const name = revisionTitle(ref);
    const thisSide = here.revision ? vscode.l10n.t('this revision') : vscode.l10n.t('working file');
    await vscode.commands.executeCommand('vscode.diff', left, uri, vscode.l10n.t('{0} on “{1}” ↔ {2}', name, displayText(other.name), thisSide), { preview: true });
    return { done: true, left, right: uri };
  }

  /** The site and path segments of a revision document or a working file in a mapped folder. */
  private whereIs(uri: vscode.Uri): { siteId: string; segments: string[]; revision: boolean } | undefined {
    const rev = parseRevisionUri(uri);
    if (rev) {
      const s = safeSegments(rev.path);
      return s.ok ? { siteId: rev.siteId, segments: s.segments, revision: true } : undefined;
    }
    const m = this.files.folders.sitesContaining(uri)[0];
    return m && { siteId: m.siteId, segments: m.segments, revision: false };
  }

  private async pick(sites: Site[], path: string): Promise<Site | undefined> {
    const chosen = await vscode.window.showQuickPick(
      sites.map((s) => ({ label: displayText(s.name), description: [s.server_type, withoutUserinfo(s.domain)].map((x) => displayText(x)).filter(Boolean).join(' · '), site: s })),
      { title: vscode.l10n.t('Compare {0} with the same file on another site', displayText(path)), placeHolder: vscode.l10n.t('The site whose newest revision of this path to compare with'), matchOnDescription: true },
    );
    return chosen?.site;
  }
}

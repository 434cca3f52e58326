// What the revision commands accept as their argument, made into a revision or a site: a tree
// node, a `site-revision:` URI or address (editor title menus, links), a site id, or nothing
// (the active editor; for a site, a pick of the visible sites).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { withoutUserinfo } from '../../core/api/userinfo';
import { SiteNode } from '../sites/sitesTree';
import { displayText } from '../../core/util/text';
import type { RevisionsController } from './controller';
import { parseRevisionUri } from './fileSystem';
import { MappingNode, RevisionNode, type RevisionRef } from './nodes';
import { shownUri } from './outcome';
import type { RevisionAddress } from '../../core/model/uri';

/** A revision from a tree node, a revision URI or address, or the active revision editor. */
export async function refOf(ctl: RevisionsController, arg: unknown): Promise<RevisionRef | undefined> {
  if (arg instanceof RevisionNode) return arg.ref;
  if (arg && typeof arg === 'object' && 'site' in arg && 'item' in arg && 'path' in arg) return arg as RevisionRef;
  let address: RevisionAddress | undefined;
  if (arg instanceof vscode.Uri) address = parseRevisionUri(arg);
  else if (arg && typeof arg === 'object' && 'siteId' in arg && 'revisionId' in arg && 'path' in arg) address = arg as RevisionAddress;
  else {
    const active = vscode.window.activeTextEditor?.document.uri;
    address = active && parseRevisionUri(active);
  }
  return address && refFromAddress(ctl, address);
}

/** The revision at an address, with its date and author when the file's list has it. */
async function refFromAddress(ctl: RevisionsController, a: RevisionAddress): Promise<RevisionRef | undefined> {
  const site = await ctl.site(a.siteId);
  if (!site) throw new Error(vscode.l10n.t('Site {0} is not among the sites of this account.', a.siteId));
  const list = await ctl.store.revisions(a.siteId, a.path).catch(() => undefined);
  const d = list?.items.find((x) => x.item.id === a.revisionId);
  return { site, path: a.path, item: d?.item ?? { id: a.revisionId, date: '', author: '' }, time: d?.time };
}

/** The site of a tree node or id, else the user picks one of the visible sites (undefined: cancelled). */
export async function siteOf(ctl: RevisionsController, arg: unknown, placeHolder: string): Promise<Site | undefined> {
  if (arg instanceof SiteNode || arg instanceof MappingNode) return arg.site;
  if (typeof arg === 'string') return ctl.site(arg);
  if (arg && typeof arg === 'object' && 'site' in arg && (arg as { site: Site }).site?.id) return (arg as { site: Site }).site;
  const sites = await ctl.model.visibleSites();
  const pick = await vscode.window.showQuickPick(
    sites.map((s) => {
      const f = ctl.mapping.get(s.id);
      return { label: displayText(s.name), description: [s.server_type, withoutUserinfo(s.domain)].filter(Boolean).join(' · '), detail: f ? vscode.l10n.t('Mapped to {0}', shownUri(f)) : undefined, site: s };
    }),
    { placeHolder, matchOnDescription: true },
  );
  return pick?.site;
}

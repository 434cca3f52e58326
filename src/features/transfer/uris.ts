// The documents a transfer's diffs open: a kept copy (`site-kept:`, read-only, the bytes of a live
// or working file as they were kept), the newest revision of a path on the service, the live file
// and the working file.
//
//   site-kept://kept/<root-relative path>?{"i":<copy id>,"a":<account tag>,"w":<label>}
//
// The path gives the tab its name and the editor its language; the id names the copy in the
// account's store (src/core/transfer/copies.ts); the account tag keeps a URI of one account from
// opening in another; `w` is the label's "(kept …)" part. No credential, no host.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { KeptCopy } from '../../core/transfer';
import { labelText } from '../../core/model/uri';
import { formatShortLocal } from '../../core/model/time';
import type { RevisionsApi } from '../revisions';
import { revisionDocumentUri, revisionUri } from '../revisions/fileSystem';
import { KEPT_SCHEME } from './names';

export const KEPT_AUTHORITY = 'kept';

/** The words of why a copy was kept, for a label (short). */
export function whyText(c: Pick<KeptCopy, 'why' | 'side'>): string {
  switch (c.why) {
    case 'upload':
    case 'sync-upload':
      return vscode.l10n.t('replaced by an upload');
    case 'sync-delete':
      return c.side === 'live' ? vscode.l10n.t('deleted on the server by a sync') : vscode.l10n.t('deleted locally by a sync');
    case 'delete':
      return vscode.l10n.t('deleted on the server');
    case 'rename':
      return vscode.l10n.t('replaced by a rename on the server');
    case 'put-back':
      return vscode.l10n.t('replaced by a put-back');
    case 'save':
      return vscode.l10n.t('replaced by a save of the live file');
    case 'take-theirs':
      return vscode.l10n.t('your file, replaced by Take Theirs');
    case 'download':
      return vscode.l10n.t('your file, replaced by a download');
  }
}

export function keptUri(c: KeptCopy, account: string, label?: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: KEPT_SCHEME,
    authority: KEPT_AUTHORITY,
    path: `/${c.path}`,
    query: JSON.stringify({ i: c.id, a: account, w: labelText(label ?? vscode.l10n.t('kept {0}', formatShortLocal(c.at))) }),
  });
}

export function parseKeptUri(uri: vscode.Uri): { id: string; account: string; path: string } | undefined {
  if (uri.scheme !== KEPT_SCHEME || uri.authority !== KEPT_AUTHORITY) return undefined;
  try {
    const q = JSON.parse(uri.query) as { i?: unknown; a?: unknown };
    if (typeof q.i !== 'string' || !/^[0-9a-f]{8,32}$/.test(q.i) || typeof q.a !== 'string') return undefined;
    return { id: q.i, account: q.a, path: uri.path.replace(/^\/+/, '') };
  } catch {
    return undefined;
  }
}

/** The document of the newest revision of a path: titled with its date and author when its list is cached. */
export function newestUri(revisions: RevisionsApi, site: Site, path: string, revisionId: string): vscode.Uri {
  const list = revisions.store.peekRevisions(site.id, path) ?? revisions.store.peekRevisions(site.id, `/${path}`);
  const top = list?.items.find((i) => i.item.id === revisionId);
  if (list && top) return revisionDocumentUri({ site, path: list.path, item: top.item, time: top.time });
  return revisionUri({ siteId: site.id, revisionId, path });
}

// The Live Files rows of the Sites view: the site's live server rooted at its `dir`, each folder
// listed when it is expanded. A big folder appears progressively: the rows that have arrived
// are drawn as batches come in (at most four redraws a second) under a "Loading… n so far"
// row whose click cancels the listing; a cancelled or failed listing says so, with what to do
// next, and a click lists it again. A file opens read-only (`site-live:` URI, ./fileSystem.ts);
// a symbolic link is shown as a link, and followed only within the root.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { naturalCompare } from '../../core/model/folders';
import { formatShortLocal } from '../../core/model/time';
import { LiveError, type LiveEntry } from '../../core/live';
import { displayText } from '../../core/util/text';
import { MessageNode } from '../../workbench/tree/message';
import { TreeNode } from '../../workbench/tree/node';
import type { SitesTreeProvider } from '../sites/sitesTree';
import { joinPath } from './address';
import { UnreachableSite, type LiveConnections } from './connections';
import { liveUri } from './fileSystem';
import type { Listing, Listings } from './listing';
import { LIVE_COMMANDS_INTERNAL, type LiveFolderNode } from './names';

/** A size as people read it: 512 B, 12.3 KB, 4.5 MB. */
export function sizeText(n: number | undefined): string {
  if (n === undefined) return '';
  if (n < 1024) return vscode.l10n.t('{0} B', n);
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toLocaleString(vscode.env.language, { maximumFractionDigits: v < 10 ? 1 : 0 })} ${units[u]}`;
}

/** A folder's rows, as the Sites view keeps them (the same objects each time, so that a redraw keeps what is expanded). */
class FolderRows {
  readonly nodes = new Map<string, TreeNode>();
  unsubscribe: (() => void) | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  listing: Listing | undefined;
}

/** A row of a live entry: its site, the entry as listed, and the tree that drew it. */
abstract class LiveEntryNode extends TreeNode {
  constructor(
    parent: TreeNode,
    readonly site: Site,
    readonly entry: LiveEntry,
    protected readonly tree: LiveTree,
  ) {
    super(parent);
  }
  get path(): string {
    return this.entry.path;
  }
}

export class LiveDirNode extends LiveEntryNode implements LiveFolderNode {
  getTreeItem(): vscode.TreeItem {
    const e = this.entry;
    const item = new vscode.TreeItem(e.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `live:${JSON.stringify([this.site.id, e.path])}`;
    item.resourceUri = liveUri({ siteId: this.site.id, account: this.tree.account(), path: e.path }, this.site.name);
    const link = e.type === 'symlink';
    item.iconPath = new vscode.ThemeIcon(link ? 'file-symlink-directory' : 'folder');
    item.description = link ? `→ ${displayText(e.link?.target ?? '')}` : e.mtime !== undefined ? formatShortLocal(e.mtime) : undefined;
    item.tooltip = link ? vscode.l10n.t('{0}\nsymbolic link to {1}', e.path, displayText(e.link?.target ?? '')) : e.path;
    item.contextValue = 'liveFolder';
    return item;
  }
  getChildren(): TreeNode[] {
    return this.tree.children(this);
  }
}

export class LiveFileNode extends LiveEntryNode {
  getTreeItem(): vscode.TreeItem {
    const e = this.entry;
    const item = new vscode.TreeItem(e.name, vscode.TreeItemCollapsibleState.None);
    item.id = `live:${JSON.stringify([this.site.id, e.path])}`;
    const uri = liveUri({ siteId: this.site.id, account: this.tree.account(), path: e.path }, this.site.name);
    item.resourceUri = uri;
    const when = e.mtime !== undefined ? formatShortLocal(e.mtime) : e.mtimeRaw ? displayText(e.mtimeRaw) : '';
    if (e.type === 'symlink') {
      const t = e.link?.targetType;
      const inside = t === 'file' || t === 'dir' || t === 'other';
      item.iconPath = new vscode.ThemeIcon('file-symlink-file');
      const where = t === 'outside' ? vscode.l10n.t('outside the site\'s folder: not followed') : t === 'missing' ? vscode.l10n.t('missing') : '';
      item.description = [`→ ${displayText(e.link?.target ?? '')}`, where].filter(Boolean).join(' · ');
      item.tooltip = vscode.l10n.t('{0}\nsymbolic link to {1}', e.path, displayText(e.link?.target ?? '')) + (where ? `\n${where}` : '');
      if (inside) item.command = { command: 'vscode.open', title: vscode.l10n.t('Open Live File'), arguments: [uri, { preview: true }] };
      item.contextValue = inside ? 'liveFile.link' : 'liveLink.broken';
      return item;
    }
    item.iconPath = vscode.ThemeIcon.File;
    item.description = [sizeText(e.size), when].filter(Boolean).join(' · ');
    item.tooltip = [e.path, sizeText(e.size), when, e.mtimeRaw && e.mtime === undefined ? vscode.l10n.t('time as the server lists it (no exact time)') : ''].filter(Boolean).join('\n');
    item.command = { command: 'vscode.open', title: vscode.l10n.t('Open Live File'), arguments: [uri, { preview: true }] };
    item.contextValue = e.type === 'file' ? 'liveFile' : 'liveOther';
    item.accessibilityInformation = { label: vscode.l10n.t('{0}, live file, {1}', e.name, item.description) };
    return item;
  }
}

function isFolderish(e: LiveEntry): boolean {
  return e.type === 'dir' || (e.type === 'symlink' && e.link?.targetType === 'dir');
}

/** How a listing failure reads in a row: its message, and its next step in the tooltip. */
export function failureText(e: unknown): { label: string; tooltip: string } {
  if (e instanceof LiveError) return { label: e.message, tooltip: [e.message, e.next, e.detail ? vscode.l10n.t('The server said: {0}', displayText(e.detail)) : ''].filter(Boolean).join('\n') };
  if (e instanceof UnreachableSite) return { label: e.message, tooltip: e.message };
  const m = e instanceof Error ? e.message : String(e);
  return { label: m, tooltip: m };
}

export class LiveTree {
  private readonly rows = new WeakMap<TreeNode, FolderRows>();
  /** The folder rows last drawn, by site id and path (the state rows' commands name them so). */
  private readonly shown = new Map<string, LiveFolderNode & TreeNode>();

  constructor(
    private readonly live: LiveConnections,
    private readonly listings: Listings,
    private readonly view: SitesTreeProvider,
  ) {}

  account(): string {
    return this.live.account() ?? '';
  }

  private rowsOf(node: LiveFolderNode & TreeNode): FolderRows {
    let r = this.rows.get(node);
    if (!r) this.rows.set(node, (r = new FolderRows()));
    return r;
  }

  /** The rows under a live folder: what has arrived so far, then a state row. */
  children(node: LiveFolderNode & TreeNode): TreeNode[] {
    const r = this.rowsOf(node);
    this.shown.set(`${node.site.id}\n${node.path}`, node);
    let listing: Listing;
    try {
      listing = this.listings.get(node.site.id, node.path, this.live.fsFor(node.site));
    } catch (e) {
      const f = failureText(e);
      return [new MessageNode(node, f.label, { icon: 'error', color: 'list.errorForeground', tooltip: f.tooltip, id: `live:${JSON.stringify([node.site.id, 'unreachable'])}` })];
    }
    if (r.listing !== listing) {
      r.unsubscribe?.();
      r.listing = listing;
      // At most four redraws a second while batches arrive; at once at the end.
      r.unsubscribe = listing.onChange(() => {
        if (listing.state !== 'loading') {
          if (r.timer) clearTimeout(r.timer);
          r.timer = undefined;
          this.view.changed(node);
          return;
        }
        r.timer ??= setTimeout(() => {
          r.timer = undefined;
          this.view.changed(node);
        }, 250);
      });
    }
    const entries = [...listing.entries].sort((a, b) => {
      const fa = isFolderish(a);
      const fb = isFolderish(b);
      return fa === fb ? naturalCompare(a.name, b.name) : fa ? -1 : 1;
    });
    const out: TreeNode[] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      const kind = isFolderish(e) ? 'd' : 'f';
      const key = `${kind}\n${e.path}`;
      seen.add(key);
      let n = r.nodes.get(key);
      if (!n || (n as LiveDirNode | LiveFileNode).entry !== e) {
        n = kind === 'd' ? new LiveDirNode(node, node.site, e, this) : new LiveFileNode(node, node.site, e, this);
        r.nodes.set(key, n);
      }
      out.push(n);
    }
    for (const k of r.nodes.keys()) if (!seen.has(k)) r.nodes.delete(k);
    // The state row goes first: under a folder of thousands of rows, the last one is out of sight.
    const rows = out.splice(0);
    const n = listing.entries.length.toLocaleString(vscode.env.language);
    const id = (what: string) => `live:${JSON.stringify([node.site.id, node.path, what])}`;
    const args = [node.site.id, node.path];
    if (listing.state === 'loading') {
      out.push(
        new MessageNode(node, listing.entries.length ? vscode.l10n.t('Loading… {0} so far', n) : vscode.l10n.t('Loading…'), {
          icon: 'loading~spin',
          description: vscode.l10n.t('click to cancel'),
          tooltip: vscode.l10n.t('The folder is being listed; its entries appear as they arrive. Click to stop.'),
          command: { command: LIVE_COMMANDS_INTERNAL.cancelListing, title: vscode.l10n.t('Cancel'), arguments: args },
          contextValue: 'liveLoading',
          id: id('loading'),
        }),
      );
    } else if (listing.state === 'cancelled') {
      out.push(
        new MessageNode(node, vscode.l10n.t('Listing cancelled: {0} entries shown', n), {
          icon: 'debug-pause',
          description: vscode.l10n.t('click to list again'),
          command: { command: LIVE_COMMANDS_INTERNAL.retryListing, title: vscode.l10n.t('List Again'), arguments: args },
          contextValue: 'liveCancelled',
          id: id('cancelled'),
        }),
      );
    } else if (listing.state === 'failed') {
      const f = failureText(listing.error);
      out.push(
        new MessageNode(node, f.label, {
          icon: 'error',
          color: 'list.errorForeground',
          description: vscode.l10n.t('click to try again'),
          tooltip: f.tooltip,
          command: { command: LIVE_COMMANDS_INTERNAL.retryListing, title: vscode.l10n.t('Try Again'), arguments: args },
          contextValue: 'liveFailed',
          id: id('failed'),
        }),
      );
    } else if (!listing.entries.length) {
      out.push(new MessageNode(node, vscode.l10n.t('Empty folder'), { icon: 'info', id: id('empty') }));
    }
    return [...out, ...rows];
  }

  /** Stops a listing under way (the "Loading…" row's click). */
  cancel(siteId: string, path: string): void {
    this.listings.peek(siteId, path)?.cancel();
  }

  /** Lists a folder again (its rows are redrawn). */
  refresh(siteId: string, path: string): void {
    this.listings.forget(siteId, path);
    this.view.changed(this.shown.get(`${siteId}\n${path}`));
  }

  /** A folder row as last drawn. */
  node(siteId: string, path: string): (LiveFolderNode & TreeNode) | undefined {
    return this.shown.get(`${siteId}\n${path}`);
  }

  /** Forgets what was drawn (another account, a site's connection closed). */
  reset(): void {
    this.shown.clear();
  }

  /** The path of a child entry (for commands). */
  static childPath(dir: string, name: string): string {
    return joinPath(dir, name);
  }
}

// The Sites view: one node per site; what is under a site (its revision history) is supplied
// by the revisions feature through `setSiteChildren`.
import * as vscode from 'vscode';
import type { Site, ServerType } from '../../core/api/types';
import { withoutSiteUserinfo, withoutUserinfo } from '../../core/api/userinfo';
import { skippedNode } from '../../workbench/tree/message';
import { TreeNode } from '../../workbench/tree/node';
import { LostExpansions } from '../../workbench/tree/lostExpansions';
import { appendData, dataTooltip } from '../../workbench/markdown';
import { background } from '../../core/util/background';
import type { SitesModel } from './sitesModel';
import { Disposable } from '../../core/util/disposable';

export const SITES_VIEW = 'siteRevisions.sites';

const ICONS: Record<ServerType, string> = {
  None: 'circle-large-outline',
  FTP: 'server',
  SFTP: 'server-process',
  Dropbox: 'package',
  GDrive: 'cloud',
  GDriveLimited: 'cloud',
  WebDAV: 'globe',
  AmazonS3: 'database',
  AJAX: 'code',
};

export function siteIcon(site: Site): vscode.ThemeIcon {
  // Own keys only: a server_type of "constructor" or "__proto__" must not pick up Object.prototype members.
  const id = Object.hasOwn(ICONS, site.server_type) ? ICONS[site.server_type as ServerType] : 'question';
  return site.shared ? new vscode.ThemeIcon(id, new vscode.ThemeColor('charts.blue')) : new vscode.ThemeIcon(id);
}

/** `server_type · domain`, plus "shared by <owner>" (or "shared") for sites other users share with you. */
export function siteDescription(site: Site): string {
  const parts = [site.server_type || 'None', withoutUserinfo(site.domain)].filter(Boolean).join(' · ');
  if (!site.shared) return parts;
  const owner = site.user.trim();
  return owner ? vscode.l10n.t('{0} · shared by {1}', parts, owner) : vscode.l10n.t('{0} · shared', parts);
}

/**
 * The useful fields of a site as label/value pairs, empty values included: the one list behind
 * the tooltip and Copy Site Details. Never a password, not even one inside a URL.
 */
export function siteDetailRows(full: Site): [string, string][] {
  // Hosts and URLs without user:password@ (the disk cache, the tools and the quick picks do the same).
  const site = withoutSiteUserinfo(full);
  const yes = vscode.l10n.t('yes');
  return [
    [vscode.l10n.t('Type'), site.server_type],
    [vscode.l10n.t('Host'), site.domain],
    [vscode.l10n.t('Port'), site.port],
    [vscode.l10n.t('User'), site.ftp_user],
    [vscode.l10n.t('Key authentication'), site.logon_type === 'key' ? yes : ''],
    [vscode.l10n.t('Directory'), site.dir],
    [vscode.l10n.t('Web URL'), site.web_url],
    [vscode.l10n.t('Encoding'), site.encoding],
    [vscode.l10n.t('Passive mode'), site.pasv === '1' ? yes : ''],
    [vscode.l10n.t('Encryption'), site.encryption === '1' ? yes : ''],
    [vscode.l10n.t('Database user'), site.db_username],
    [vscode.l10n.t('Database admin'), site.db_phpmyadmin],
    [vscode.l10n.t('Shared'), site.shared ? yes : ''],
    [vscode.l10n.t('Status'), site.status],
    [vscode.l10n.t('Site id'), site.id],
  ];
}

/** Tooltip with the useful fields; never a password. Every value goes in as text (escaped). */
export function siteTooltip(site: Site): vscode.MarkdownString {
  const md = dataTooltip();
  md.appendMarkdown('**');
  appendData(md, site.name || vscode.l10n.t('(unnamed)')).appendMarkdown('**');
  if (site.shared) {
    md.appendMarkdown(' — ');
    const owner = site.user.trim();
    if (owner) appendData(md, vscode.l10n.t('shared with you by {0}', owner));
    else md.appendText(vscode.l10n.t('shared with you'));
    md.appendMarkdown('  \n').appendText(vscode.l10n.t('You can view it and its revisions; only its owner can change or delete it.'));
  }
  md.appendMarkdown('\n\n');
  const rows = siteDetailRows(site);
  for (const [k, v] of rows) {
    if (!v) continue;
    appendData(md.appendMarkdown(`${k}: `), v).appendMarkdown('  \n');
  }
  return md;
}

export class SiteNode extends TreeNode {
  /**
   * @param duplicate for the 2nd, 3rd… site of a list that share an id (a service bug): its
   * occurrence number. The tree item then gets an id of its own (VS Code requires unique ids) and
   * no children (they would repeat the first site's, under the same ids).
   */
  constructor(
    readonly site: Site,
    private readonly children: ((node: SiteNode) => Promise<TreeNode[]>) | undefined,
    readonly duplicate?: number,
  ) {
    super(undefined);
  }

  /** The tree item id: `site:<id>`, or for a duplicate `site-duplicate:<n>:<id>` (never equal to another site's). */
  get itemId(): string {
    return this.duplicate ? `site-duplicate:${this.duplicate}:${this.site.id}` : `site:${this.site.id}`;
  }

  getTreeItem(): vscode.TreeItem {
    const children = this.duplicate ? undefined : this.children;
    const item = new vscode.TreeItem(this.site.name || vscode.l10n.t('(unnamed)'), children ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = this.itemId;
    item.description = siteDescription(this.site);
    item.tooltip = siteTooltip(this.site);
    item.iconPath = siteIcon(this.site);
    item.contextValue = ['site', this.site.shared ? 'shared' : 'own', this.site.web_url ? 'web' : ''].filter(Boolean).join('.');
    item.accessibilityInformation = { label: `${this.site.name}, ${siteDescription(this.site)}` };
    return item;
  }

  getChildren(): Promise<TreeNode[]> | TreeNode[] {
    return this.children && !this.duplicate ? this.children(this) : [];
  }
}

export class SitesTreeProvider extends Disposable implements vscode.TreeDataProvider<TreeNode> {
  private readonly _onDidChangeTreeData = this.own(new vscode.EventEmitter<TreeNode | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private siteChildren: ((node: SiteNode) => Promise<TreeNode[]>) | undefined;
  /** The last root nodes handed to the view (tests and commands look sites up here). */
  roots: SiteNode[] = [];
  /** The duplicate ids last warned about (one warning per distinct list, not per render). */
  private warnedDuplicates = '';
  /** Rows expanded while VS Code redraws the tree, expanded again if the redraw folds them (watched by the view: sitesView.ts). */
  readonly expansions = this.own(new LostExpansions());

  /** @param log where a service bug (sites sharing an id) is reported. */
  constructor(
    private readonly model: SitesModel,
    private readonly log: { warn(message: string): void },
  ) {
    super();
    this.own(model.onDidChange(() => this._onDidChangeTreeData.fire(undefined)));
  }

  setSiteChildren(fn: (node: SiteNode) => Promise<TreeNode[]>): void {
    this.siteChildren = fn;
    this._onDidChangeTreeData.fire(undefined);
  }

  /** Rows another feature puts under a site (the live feature's Live Files): after its local folder's row, before its history. */
  private readonly siteRows: ((node: SiteNode) => TreeNode[])[] = [];
  addSiteRows(fn: (node: SiteNode) => TreeNode[]): void {
    this.siteRows.push(fn);
    this._onDidChangeTreeData.fire(undefined);
  }

  /** A site's rows: its local folder's row (the revisions feature's first), the other features' rows, then its history. */
  private readonly composedChildren = async (node: SiteNode): Promise<TreeNode[]> => {
    const history = this.siteChildren ? await this.siteChildren(node) : [];
    const extra = this.siteRows.flatMap((f) => f(node));
    if (!extra.length || !history.length) return [...extra, ...history];
    const first = await history[0]!.getTreeItem();
    const at = first.contextValue?.startsWith('revisionMapping') ? 1 : 0;
    return [...history.slice(0, at), ...extra, ...history.slice(at)];
  };

  /** Re-renders a node (or everything) without refetching. */
  changed(node?: TreeNode): void {
    this._onDidChangeTreeData.fire(node);
  }

  /** Draws a row expanded when it was expanded before (set by the revisions feature: ExpandedRows). */
  private restore: (item: vscode.TreeItem) => vscode.TreeItem = (item) => item;
  restoreExpansion(fn: (item: vscode.TreeItem) => vscode.TreeItem): void {
    this.restore = fn;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    const item = node.getTreeItem();
    return item instanceof Promise ? item.then(this.restore) : this.restore(item);
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  getChildren(node?: TreeNode): Promise<TreeNode[]> {
    return this.expansions.loading(node, node ? Promise.resolve(node.getChildren()) : this.loadRoots());
  }

  private async loadRoots(): Promise<TreeNode[]> {
    const load = this.model.visibleSites();
    background('Showing progress in the Sites view', vscode.window.withProgress({ location: { viewId: SITES_VIEW } }, () => load.catch(() => undefined)));
    try {
      this.roots = this.nodesFor(await load);
    } catch {
      // The model recorded the failure: with no rows, the view draws the welcome content of its
      // state (explanation and buttons, package.json viewsWelcome).
      this.roots = [];
      return [];
    }
    const skipped = this.model.issues?.skipped;
    return skipped ? [...this.roots, skippedNode(undefined, 'sites', skipped, JSON.stringify(['skipped-sites']))] : this.roots;
  }

  /** One node per site; sites repeating an id already listed become duplicates (see SiteNode). */
  private nodesFor(sites: readonly Site[]): SiteNode[] {
    const seen = new Map<string, number>();
    const nodes = sites.map((s) => {
      const n = (seen.get(s.id) ?? 0) + 1;
      seen.set(s.id, n);
      return new SiteNode(s, this.siteChildren || this.siteRows.length ? this.composedChildren : undefined, n > 1 ? n : undefined);
    });
    const dups = [...seen].filter(([, n]) => n > 1);
    const key = JSON.stringify(dups);
    if (dups.length && key !== this.warnedDuplicates) {
      const list = dups.slice(0, 5).map(([id, n]) => `${JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id)} (${n} times)`).join(', ');
      this.log.warn(`The service listed several sites with the same id: ${list}${dups.length > 5 ? ', …' : ''}. All are shown; only the first of each can be expanded.`);
    }
    this.warnedDuplicates = key;
    return nodes;
  }
}

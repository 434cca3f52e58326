// The Sites view: one node per site; what is under a site (its revision history) is supplied
// by the revisions feature through `setSiteChildren`.
import * as vscode from 'vscode';
import type { Site, ServerType } from '../api/types';
import { TreeNode } from '../tree/node';
import type { SitesModel } from './sitesModel';

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
  const id = ICONS[site.server_type as ServerType] ?? 'question';
  return site.shared ? new vscode.ThemeIcon(id, new vscode.ThemeColor('charts.blue')) : new vscode.ThemeIcon(id);
}

/** `server_type · domain`, plus "shared" for sites other users share. */
export function siteDescription(site: Site): string {
  const parts = [site.server_type || 'None', site.domain].filter(Boolean);
  return parts.join(' · ') + (site.shared ? ' · shared' : '');
}

/** Tooltip with the useful fields; never a password. Every value goes in as text (escaped). */
export function siteTooltip(site: Site): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendMarkdown('**').appendText(site.name || '(unnamed)').appendMarkdown('**');
  if (site.shared) md.appendMarkdown(' — shared with you');
  md.appendMarkdown('\n\n');
  const rows: [string, string][] = [
    ['Type', site.server_type],
    ['Host', site.domain],
    ['Port', site.port],
    ['User', site.ftp_user],
    ['Key authentication', site.logon_type === 'key' ? 'yes' : ''],
    ['Directory', site.dir],
    ['Web URL', site.web_url],
    ['Encoding', site.encoding],
    ['Database user', site.db_username],
    ['Status', site.status],
    ['Site id', site.id],
  ];
  for (const [k, v] of rows) {
    if (!v) continue;
    md.appendMarkdown(`${k}: `).appendText(v).appendMarkdown('  \n');
  }
  return md;
}

export class SiteNode extends TreeNode {
  constructor(
    readonly site: Site,
    private readonly children: ((node: SiteNode) => Promise<TreeNode[]>) | undefined,
  ) {
    super(undefined);
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.site.name || '(unnamed)', this.children ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `site:${this.site.id}`;
    item.description = siteDescription(this.site);
    item.tooltip = siteTooltip(this.site);
    item.iconPath = siteIcon(this.site);
    item.contextValue = ['site', this.site.shared ? 'shared' : 'own', this.site.web_url ? 'web' : ''].filter(Boolean).join('.');
    item.accessibilityInformation = { label: `${this.site.name}, ${siteDescription(this.site)}` };
    return item;
  }

  getChildren(): Promise<TreeNode[]> | TreeNode[] {
    return this.children ? this.children(this) : [];
  }
}

export class SitesTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private siteChildren: ((node: SiteNode) => Promise<TreeNode[]>) | undefined;
  private readonly subs: vscode.Disposable[] = [];
  /** The last root nodes handed to the view (tests and commands look sites up here). */
  roots: SiteNode[] = [];

  constructor(private readonly model: SitesModel) {
    this.subs.push(model.onDidChange(() => this._onDidChangeTreeData.fire(undefined)));
  }

  setSiteChildren(fn: (node: SiteNode) => Promise<TreeNode[]>): void {
    this.siteChildren = fn;
    this._onDidChangeTreeData.fire(undefined);
  }

  /** Re-renders a node (or everything) without refetching. */
  changed(node?: TreeNode): void {
    this._onDidChangeTreeData.fire(node);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    return node.getTreeItem();
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    if (node) return node.getChildren();
    const load = this.model.visibleSites();
    void vscode.window.withProgress({ location: { viewId: SITES_VIEW } }, () => load.catch(() => undefined));
    try {
      this.roots = (await load).map((s) => new SiteNode(s, this.siteChildren));
    } catch {
      // The model recorded the error; the view shows it with a next step (message + welcome view).
      this.roots = [];
    }
    return this.roots;
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    this._onDidChangeTreeData.dispose();
  }
}

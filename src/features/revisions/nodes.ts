// The nodes the revisions feature puts under each site of the Sites view: the local folder of
// the site, folders, files, revisions, "Load more…", and state messages (empty, error + retry).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { translate } from '../../workbench/l10n';
import { TreeNode } from '../../workbench/tree/node';
import { appendData, dataTooltip } from '../../workbench/markdown';
import type { FileEntry, FolderEntry } from '../../core/model/folders';
import { displayText } from '../../core/util/text';
import type { RevisionItem } from '../../core/model/revisionStore';
import { formatLocal, formatShortLocal, formatUtc, relativeTime } from '../../core/model/time';
import type { RevisionLabel } from '../../core/model/uri';

/** A revision with everything the commands need. */
export interface RevisionRef {
  site: Site;
  /** The exact path the service sent. */
  path: string;
  item: RevisionItem;
  /** Epoch ms, undefined when the date could not be read. */
  time: number | undefined;
}

/** What the nodes ask of the feature (implemented by RevisionsController). */
export interface NodeHost {
  folderChildren(node: FolderNode | TreeNode, site: Site, folder: FolderEntry): TreeNode[];
  fileChildren(node: FileNode): Promise<TreeNode[]>;
  isSelectedForCompare(ref: RevisionRef): boolean;
}

const id = (...parts: string[]) => JSON.stringify(parts);

/** The file name of a raw path, for titles and messages. */
export function fileName(path: string): string {
  const segs = path.split('/').filter(Boolean);
  return displayText(segs[segs.length - 1] ?? path) || vscode.l10n.t('(empty name)');
}

/** `3 days ago, alice` (the author is left out when the service sent none). */
export function whenAndWho(ref: Pick<RevisionRef, 'time' | 'item'>, now = Date.now()): string {
  const when = ref.time === undefined ? displayText(ref.item.date) || vscode.l10n.t('unknown date') : relativeTime(ref.time, now, translate, vscode.env.language);
  const who = displayText(ref.item.author).trim();
  return who ? `${when}, ${who}` : when;
}

/**
 * What names a revision in its tab and tooltips (see uri.ts): `2024-05-01 15:45, alice` — the
 * local date to the minute, or the date as sent when it is not one — and `Acme Corporate,
 * revision 1003: `. Absolute, unlike the tree's "6 days ago": a tab outlives the moment, and a
 * reloaded window restores it from its URI.
 */
export function revisionLabel(ref: Pick<RevisionRef, 'time' | 'item' | 'site'>): RevisionLabel {
  const when = ref.time === undefined ? displayText(ref.item.date) || vscode.l10n.t('revision {0}', displayText(ref.item.id)) : formatShortLocal(ref.time);
  const who = displayText(ref.item.author).trim();
  return { when: who ? `${when}, ${who}` : when, of: vscode.l10n.t('{0}, revision {1}: ', displayText(ref.site.name) || vscode.l10n.t('(unnamed)'), displayText(ref.item.id)) };
}

/** `index.php (2024-05-01 15:45, alice)`: a revision as its own tab and the diff titles name it. */
export function revisionTitle(ref: Pick<RevisionRef, 'time' | 'item' | 'site' | 'path'>): string {
  return `${fileName(ref.path)} (${revisionLabel(ref).when})`;
}

/** The exact date, UTC and local (or the text as sent when it is not a date). */
export function exactDate(ref: Pick<RevisionRef, 'time' | 'item'>): string {
  if (ref.time === undefined) return vscode.l10n.t('{0} (not a date)', displayText(ref.item.date) || vscode.l10n.t('no date'));
  return localIsUtc(ref.time) ? formatUtc(ref.time) : vscode.l10n.t('{0} · {1} local', formatUtc(ref.time), formatLocal(ref.time));
}

/** Whether this machine's time zone is UTC at that moment (then the local date adds nothing). */
function localIsUtc(time: number): boolean {
  return new Date(time).getTimezoneOffset() === 0;
}

/** Tooltip of a revision; every server string goes in as data (appendData: cleaned, escaped). */
export function revisionTooltip(ref: RevisionRef, now = Date.now()): vscode.MarkdownString {
  const md = dataTooltip(true);
  md.appendMarkdown('**');
  appendData(md, fileName(ref.path)).appendMarkdown('** — ');
  appendData(md, vscode.l10n.t('revision {0}', ref.item.id)).appendMarkdown('\n\n');
  md.appendMarkdown('$(history) ').appendText(relativeTime(ref.time, now, translate, vscode.env.language));
  if (ref.item.author) appendData(md.appendMarkdown(' · $(person) '), ref.item.author);
  md.appendMarkdown('\n\n');
  if (ref.time === undefined) appendData(md, vscode.l10n.t('Date as sent: {0}', ref.item.date || vscode.l10n.t('(none)'))).appendMarkdown('\n\n');
  else {
    md.appendText(formatUtc(ref.time)).appendMarkdown(localIsUtc(ref.time) ? '\n\n' : '  \n');
    if (!localIsUtc(ref.time)) md.appendText(vscode.l10n.t('{0} local time', formatLocal(ref.time))).appendMarkdown('\n\n');
  }
  appendData(md, vscode.l10n.t('Path: {0}', ref.path));
  return md;
}

export { MessageNode, type MessageOptions } from '../../workbench/tree/message';

/** The site's local folder (or an invitation to choose one). */
export class MappingNode extends TreeNode {
  constructor(
    parent: TreeNode,
    readonly site: Site,
    readonly folder: vscode.Uri | undefined,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const f = this.folder;
    const item = new vscode.TreeItem(f ? vscode.l10n.t('Local folder') : vscode.l10n.t('Map to a local folder…'), vscode.TreeItemCollapsibleState.None);
    item.id = id('map', this.site.id);
    item.iconPath = new vscode.ThemeIcon(f ? 'folder-library' : 'folder-opened');
    if (f) item.description = f.scheme === 'file' ? f.fsPath : f.toString();
    item.tooltip = f
      ? vscode.l10n.t('Working files of this site are read from {0}. Click to change.', f.scheme === 'file' ? f.fsPath : f.toString())
      : vscode.l10n.t('Choose the local folder that holds the working files of this site: needed to compare revisions with them and to restore revisions.');
    item.command = { command: 'siteRevisions.mapFolder', title: vscode.l10n.t('Map Site to Local Folder…'), arguments: [this.site.id] };
    item.contextValue = f ? 'revisionMapping.mapped' : 'revisionMapping';
    return item;
  }
}

export class FolderNode extends TreeNode {
  constructor(
    parent: TreeNode,
    private readonly host: NodeHost,
    readonly site: Site,
    readonly folder: FolderEntry,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.folder.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = id('d', this.site.id, this.folder.key);
    item.iconPath = vscode.ThemeIcon.Folder;
    // A resource URI lets the file icon theme pick the folder icon; the label stays ours.
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${this.folder.name}` });
    const n = this.folder.fileCount;
    item.tooltip = `${this.folder.key}\n${n === 1 ? vscode.l10n.t('{0} file with revisions', n) : vscode.l10n.t('{0} files with revisions', n)}`;
    item.contextValue = 'revisionFolder';
    return item;
  }
  getChildren(): TreeNode[] {
    return this.host.folderChildren(this, this.site, this.folder);
  }
}

export class FileNode extends TreeNode {
  constructor(
    parent: TreeNode,
    private readonly host: NodeHost,
    readonly site: Site,
    readonly file: FileEntry,
    readonly flat: boolean,
  ) {
    super(parent);
  }
  get path(): string {
    return this.file.path;
  }
  getTreeItem(): vscode.TreeItem {
    const f = this.file;
    const item = new vscode.TreeItem(this.flat ? f.displayPath : f.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = id('f', this.site.id, f.path);
    item.iconPath = vscode.ThemeIcon.File;
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${f.name}` });
    // Two raw paths shown alike (`a.php`, `/a.php`): the exact path tells them apart.
    if (f.ambiguous) item.description = JSON.stringify(f.path);
    item.tooltip = vscode.l10n.t('Path as stored: {0}', JSON.stringify(f.path));
    item.contextValue = 'revisionFile';
    return item;
  }
  getChildren(): Promise<TreeNode[]> {
    return this.host.fileChildren(this);
  }
}

export class RevisionNode extends TreeNode {
  constructor(
    parent: FileNode | TreeNode | undefined,
    private readonly host: NodeHost,
    readonly ref: RevisionRef,
    readonly hasPrevious: boolean,
    /** The default click: compare with the working file when it exists, else open. */
    readonly workingExists: boolean,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const r = this.ref;
    const now = Date.now();
    const label = r.time === undefined ? displayText(r.item.date) || vscode.l10n.t('unknown date') : relativeTime(r.time, now, translate, vscode.env.language);
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = id('r', r.site.id, r.path, r.item.id);
    const selected = this.host.isSelectedForCompare(r);
    const author = displayText(r.item.author);
    item.description = !selected ? author : author ? vscode.l10n.t('{0} · selected for compare', author) : vscode.l10n.t('selected for compare');
    item.tooltip = revisionTooltip(r, now);
    item.iconPath = new vscode.ThemeIcon(selected ? 'pass-filled' : 'history');
    item.contextValue = ['revision', this.hasPrevious ? 'hasPrevious' : '', this.workingExists ? 'working' : ''].filter(Boolean).join('.');
    item.command = this.workingExists
      ? { command: 'siteRevisions.compareWithWorking', title: vscode.l10n.t('Compare with Working File'), arguments: [this] }
      : { command: 'siteRevisions.openRevision', title: vscode.l10n.t('Open Revision'), arguments: [this] };
    item.accessibilityInformation = { label: vscode.l10n.t('Revision {0}, {1}', r.item.id, whenAndWho(r, now)) };
    return item;
  }
}

export class LoadMoreNode extends TreeNode {
  constructor(
    readonly parentFile: FileNode,
    readonly remaining: number,
    readonly next: number,
  ) {
    super(parentFile);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Load more…'), vscode.TreeItemCollapsibleState.None);
    item.id = id('more', this.parentFile.site.id, this.parentFile.path);
    item.description = vscode.l10n.t('{0} more of {1} not shown', this.next, this.remaining);
    item.iconPath = new vscode.ThemeIcon('more');
    item.contextValue = 'revisionLoadMore';
    item.command = { command: 'siteRevisions.loadMoreRevisions', title: vscode.l10n.t('Load More Revisions'), arguments: [this] };
    return item;
  }
}

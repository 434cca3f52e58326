// The two views of the feature, in the Site Revisions container (shown once first used):
// - "Site As It Was": the site (or folder) as of the moment, read-only — its folders and files,
//   each file its revision of then (a click opens that revision document), the files that did not
//   exist yet apart; the view's description names the site, the moment and its time zone;
// - "Compare Sites": the files that differ (a click opens their diff), those on one side only,
//   and how many are the same.
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { zoneText, type AsOfFile, type AsOfProgress, type AsOfResult, type CompareResult, type NotYetFile } from '../../core/asof';
import { revisionDocumentUri, revisionUri } from '../revisions/fileSystem';
import { sidePath } from '../../core/model/uri';
import { naturalCompare } from '../../core/model/folders';
import { revisionLabel, type RevisionRef } from '../revisions/nodes';
import { formatShortLocal } from '../../core/model/time';
import { MessageNode } from '../../workbench/tree/message';
import { TreeNode } from '../../workbench/tree/node';
import { displayText } from '../../core/util/text';
import type { ChosenMoment } from './moment';

export const AS_OF_VIEW = 'siteRevisions.asOfView';
export const COMPARE_VIEW = 'siteRevisions.compareView';

export interface AsOfScope {
  site: Site;
  /** A folder of the site (the revisions tree's key); absent: the whole site. */
  folder?: string;
}

export interface Run {
  state: 'running' | 'done' | 'cancelled' | 'failed';
  error?: string;
  progress?: Pick<AsOfProgress, 'done' | 'total' | 'failed'>;
  readonly abort: AbortController;
}

export interface AsOfRun extends Run {
  readonly scope: AsOfScope;
  readonly moment: ChosenMoment;
  result?: AsOfResult;
}

export interface CompareRun extends Run {
  readonly a: AsOfScope;
  readonly b: AsOfScope;
  /** Both sides as of this moment; undefined: their newest revisions. */
  readonly moment: ChosenMoment | undefined;
  result?: CompareResult;
}

/** `Marketing Drive`, `campaigns/autumn — Marketing Drive`. */
export function scopeText(s: AsOfScope): string {
  const site = displayText(s.site.name) || s.site.id;
  return s.folder ? vscode.l10n.t('{0} — {1}', displayText(s.folder), site) : site;
}

/** `132 / 1,840 files` */
export function progressText(p: Run['progress']): string {
  if (!p || p.total === undefined) return vscode.l10n.t('listing the files…');
  const n = (x: number) => x.toLocaleString(vscode.env.language);
  return p.failed ? vscode.l10n.t('{0} / {1} files, {2} could not be read', n(p.done), n(p.total), n(p.failed)) : vscode.l10n.t('{0} / {1} files', n(p.done), n(p.total));
}

/** The revision of a file as the revision commands take it. */
export function refOf(site: Site, path: string, r: AsOfFile['revision']): RevisionRef {
  return { site, path, item: { id: r.id, date: r.date, author: r.author }, time: r.time };
}

function fileName(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1) || rel;
}

function folderOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

/** `2025-06-01 14:00 · alice` */
function when(r: AsOfFile['revision']): string {
  const date = r.time === undefined ? displayText(r.date) : formatShortLocal(r.time);
  const who = displayText(r.author).trim();
  return who ? `${date} · ${who}` : date;
}

/** A folder of relative paths: its sub-folders and its entries. */
interface Dir<T> {
  name: string;
  key: string;
  dirs: Map<string, Dir<T>>;
  items: T[];
}

function dirsOf<T extends { rel: string }>(items: readonly T[]): Dir<T> {
  const root: Dir<T> = { name: '', key: '', dirs: new Map(), items: [] };
  for (const item of items) {
    let d = root;
    const segments = item.rel.split('/');
    for (const seg of segments.slice(0, -1)) {
      let next = d.dirs.get(seg);
      if (!next) d.dirs.set(seg, (next = { name: seg, key: d.key ? `${d.key}/${seg}` : seg, dirs: new Map(), items: [] }));
      d = next;
    }
    d.items.push(item);
  }
  return root;
}

class DirNode<T extends { rel: string }> extends TreeNode {
  constructor(
    parent: TreeNode | undefined,
    private readonly dir: Dir<T>,
    private readonly id: string,
    private readonly make: (parent: TreeNode | undefined, item: T) => TreeNode,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.dir.name, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `${this.id}/${this.dir.key}`;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${this.dir.name}` });
    item.tooltip = this.dir.key;
    return item;
  }
  getChildren(): TreeNode[] {
    return childrenOf(this, this.dir, this.id, this.make);
  }
}

function childrenOf<T extends { rel: string }>(parent: TreeNode | undefined, dir: Dir<T>, id: string, make: (parent: TreeNode | undefined, item: T) => TreeNode): TreeNode[] {
  return [
    ...[...dir.dirs.values()].sort((a, b) => naturalCompare(a.name, b.name)).map((d) => new DirNode(parent, d, id, make)),
    ...[...dir.items].sort((a, b) => naturalCompare(fileName(a.rel), fileName(b.rel))).map((i) => make(parent, i)),
  ];
}

class AsOfFileNode extends TreeNode {
  constructor(
    parent: TreeNode | undefined,
    readonly site: Site,
    readonly file: AsOfFile,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const f = this.file;
    const name = fileName(f.rel);
    const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
    item.id = JSON.stringify(['asOf', this.site.id, f.path]);
    item.description = when(f.revision);
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${name}` });
    item.iconPath = vscode.ThemeIcon.File;
    item.tooltip = vscode.l10n.t('{0}\nrevision {1} of {2} (UTC), by {3}', JSON.stringify(f.path), displayText(f.revision.id), displayText(f.revision.date), displayText(f.revision.author));
    item.contextValue = 'siteAsOf.file';
    const ref = refOf(this.site, f.path, f.revision);
    item.command = { command: 'vscode.open', title: vscode.l10n.t('Open Revision'), arguments: [revisionDocumentUri(ref), { preview: true }] };
    return item;
  }
}

class NotYetGroupNode extends TreeNode {
  constructor(
    private readonly site: Site,
    private readonly files: NotYetFile[],
  ) {
    super(undefined);
  }
  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(vscode.l10n.t('Did not exist yet'), vscode.TreeItemCollapsibleState.Collapsed);
    item.id = 'asOf:notYet';
    item.description = this.files.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', this.files.length);
    item.tooltip = vscode.l10n.t('Files whose first revision is later than the moment: not part of the site then. A restore leaves them alone unless you tick them (they are then deleted).');
    item.iconPath = new vscode.ThemeIcon('circle-slash');
    return item;
  }
  getChildren(): TreeNode[] {
    return this.files.map((f) => new NotYetNode(this, this.site, f));
  }
}

class NotYetNode extends TreeNode {
  constructor(
    parent: TreeNode,
    private readonly site: Site,
    readonly file: NotYetFile,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const f = this.file;
    const item = new vscode.TreeItem(fileName(f.rel), vscode.TreeItemCollapsibleState.None);
    item.id = JSON.stringify(['notYet', this.site.id, f.path]);
    item.description = [displayText(folderOf(f.rel)), vscode.l10n.t('first revision {0}', when(f.first))].filter(Boolean).join(' · ');
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${fileName(f.rel)}` });
    item.iconPath = vscode.ThemeIcon.File;
    item.command = { command: 'vscode.open', title: vscode.l10n.t('Open Revision'), arguments: [revisionDocumentUri(refOf(this.site, f.path, f.first)), { preview: true }] };
    return item;
  }
}

/** What both views share: one run at a time, a description, a message for the empty tree. */
export abstract class RunView<R extends Run> implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.emitter.event;
  run: R | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private view: vscode.TreeView<TreeNode> | undefined;

  attach(view: vscode.TreeView<TreeNode>): void {
    this.view = view;
  }

  start(run: R): void {
    this.run?.abort.abort();
    this.run = run;
    this.changed(true);
  }

  clear(): void {
    this.run?.abort.abort();
    this.run = undefined;
    this.changed(true);
  }

  /** Redraws (progress at most 4 times a second). */
  changed(now = false): void {
    if (!now) {
      this.timer ??= setTimeout(() => this.changed(true), 250);
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const r = this.run;
    if (this.view) {
      this.view.description = r ? this.describe(r) : undefined;
      this.view.message = this.message(r);
    }
    this.emitter.fire();
  }

  private message(r: R | undefined): string | undefined {
    return r?.state === 'failed' ? vscode.l10n.t('It stopped: {0}', r.error ?? '') : r?.state === 'cancelled' ? vscode.l10n.t('Cancelled.') : r?.state === 'done' ? this.emptyMessage(r) : undefined;
  }

  protected abstract describe(r: R): string;
  protected abstract emptyMessage(r: R): string | undefined;
  protected abstract roots(r: R): TreeNode[];

  getTreeItem(node: TreeNode): vscode.TreeItem | Promise<vscode.TreeItem> {
    return node.getTreeItem();
  }

  getChildren(node?: TreeNode): TreeNode[] | Promise<TreeNode[]> {
    if (node) return node.getChildren();
    const r = this.run;
    return r?.state === 'done' ? this.roots(r) : [];
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node.parent;
  }

  dispose(): void {
    this.run?.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    this.emitter.dispose();
  }
}

export class AsOfView extends RunView<AsOfRun> {
  protected describe(r: AsOfRun): string {
    const head = vscode.l10n.t('{0} · as of {1} ({2})', scopeText(r.scope), r.moment.label, zoneText(r.moment.time));
    if (r.state === 'running') return `${head} · ${progressText(r.progress)}`;
    const n = r.result?.files.length ?? 0;
    return r.result ? `${head} · ${n === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', n)}` : head;
  }

  protected emptyMessage(r: AsOfRun): string | undefined {
    return r.result && !r.result.files.length ? vscode.l10n.t('No file of this scope existed at that moment.') : undefined;
  }

  protected roots(r: AsOfRun): TreeNode[] {
    const res = r.result!;
    const site = r.scope.site;
    const nodes = childrenOf(undefined, dirsOf(res.files), `asOf:${site.id}`, (parent, f) => new AsOfFileNode(parent, site, f));
    if (res.notYet.length) nodes.push(new NotYetGroupNode(site, res.notYet));
    if (res.failures.length) nodes.push(failuresNode(res.failures));
    if (res.undated) nodes.push(new MessageNode(undefined, vscode.l10n.t('{0} files have no revision with a readable date: left out', res.undated), { icon: 'warning', id: 'asOf:undated' }));
    return nodes;
  }
}

function failuresNode(failures: { path: string; error: unknown }[]): MessageNode {
  return new MessageNode(undefined, failures.length === 1 ? vscode.l10n.t('1 file could not be read') : vscode.l10n.t('{0} files could not be read', failures.length), {
    icon: 'warning',
    color: 'list.warningForeground',
    id: 'failures',
    tooltip: failures
      .slice(0, 20)
      .map((f) => `${JSON.stringify(f.path)}: ${f.error instanceof Error ? f.error.message : String(f.error)}`)
      .join('\n'),
  });
}

type Side = 'a' | 'b';

class CompareGroupNode extends TreeNode {
  constructor(
    private readonly run: CompareRun,
    readonly kind: 'differ' | Side,
  ) {
    super(undefined);
  }
  private get count(): number {
    const r = this.run.result!;
    return (this.kind === 'differ' ? r.differ : this.kind === 'a' ? r.onlyA : r.onlyB).length;
  }
  getTreeItem(): vscode.TreeItem {
    const name = (s: AsOfScope) => displayText(s.site.name) || s.site.id;
    const label = this.kind === 'differ' ? vscode.l10n.t('Different') : vscode.l10n.t('Only on {0}', name(this.kind === 'a' ? this.run.a : this.run.b));
    const item = new vscode.TreeItem(label, this.kind === 'differ' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `compare:${this.kind}`;
    const n = this.count;
    item.description = n === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', n);
    item.iconPath = new vscode.ThemeIcon(this.kind === 'differ' ? 'diff' : 'diff-single');
    return item;
  }
  getChildren(): TreeNode[] {
    const r = this.run.result!;
    if (this.kind === 'differ') return childrenOf(this, dirsOf(r.differ), 'compare:differ', (p, e) => new CompareFileNode(p, this.run, e.rel, e.a, e.b));
    const side = this.kind;
    return childrenOf(this, dirsOf(side === 'a' ? r.onlyA : r.onlyB), `compare:${side}`, (p, f) => new CompareFileNode(p, this.run, f.rel, side === 'a' ? f : undefined, side === 'b' ? f : undefined));
  }
}

/** The revision documents of a pair (either side may be missing) and the title of their diff. */
export function pairUris(run: CompareRun, rel: string, a: AsOfFile | undefined, b: AsOfFile | undefined): { left?: vscode.Uri; right?: vscode.Uri; title: string } {
  // Each side under its site's name (the diff's headers name both; src/core/model/uri.ts).
  const side = (scope: AsOfScope, f: AsOfFile) => revisionUri({ siteId: scope.site.id, revisionId: f.revision.id, path: f.path, shown: sidePath(displayText(scope.site.name) || scope.site.id, rel) }, revisionLabel(refOf(scope.site, f.path, f.revision)));
  const left = a && side(run.a, a);
  const right = b && side(run.b, b);
  const named = (s: AsOfScope, f: AsOfFile | undefined) => [displayText(s.site.name) || s.site.id, ...(f ? [when(f.revision)] : [])].join(', ');
  return { ...(left ? { left } : {}), ...(right ? { right } : {}), title: vscode.l10n.t('{0} ({1}) ↔ ({2})', displayText(fileName(rel)), named(run.a, a), named(run.b, b)) };
}

class CompareFileNode extends TreeNode {
  constructor(
    parent: TreeNode | undefined,
    private readonly run: CompareRun,
    readonly rel: string,
    readonly a: AsOfFile | undefined,
    readonly b: AsOfFile | undefined,
  ) {
    super(parent);
  }
  getTreeItem(): vscode.TreeItem {
    const name = fileName(this.rel);
    const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
    item.id = JSON.stringify(['compare', this.a ? 'a' : '', this.b ? 'b' : '', this.rel]);
    item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${name}` });
    item.iconPath = vscode.ThemeIcon.File;
    const one = this.a ?? this.b!;
    item.description = this.a && this.b ? `${when(this.a.revision)} ↔ ${when(this.b.revision)}` : when(one.revision);
    item.tooltip = this.rel;
    const u = pairUris(this.run, this.rel, this.a, this.b);
    item.command =
      u.left && u.right
        ? { command: 'vscode.diff', title: vscode.l10n.t('Compare'), arguments: [u.left, u.right, u.title, { preview: true }] }
        : { command: 'vscode.open', title: vscode.l10n.t('Open Revision'), arguments: [u.left ?? u.right, { preview: true }] };
    return item;
  }
}

export class CompareView extends RunView<CompareRun> {
  protected describe(r: CompareRun): string {
    const how = r.moment ? vscode.l10n.t('as of {0} ({1})', r.moment.label, zoneText(r.moment.time)) : vscode.l10n.t('newest revisions');
    const head = `${scopeText(r.a)} ↔ ${scopeText(r.b)} · ${how}`;
    return r.state === 'running' ? `${head} · ${progressText(r.progress)}` : head;
  }

  protected emptyMessage(r: CompareRun): string | undefined {
    const c = r.result;
    return c && !c.differ.length && !c.onlyA.length && !c.onlyB.length ? vscode.l10n.t('The two are the same: {0} files, none differs.', c.same) : undefined;
  }

  protected roots(r: CompareRun): TreeNode[] {
    const c = r.result!;
    const nodes: TreeNode[] = [];
    if (c.differ.length) nodes.push(new CompareGroupNode(r, 'differ'));
    if (c.onlyA.length) nodes.push(new CompareGroupNode(r, 'a'));
    if (c.onlyB.length) nodes.push(new CompareGroupNode(r, 'b'));
    if (c.same) nodes.push(new MessageNode(undefined, c.same === 1 ? vscode.l10n.t('1 file is the same') : vscode.l10n.t('{0} files are the same', c.same), { icon: 'check', id: 'compare:same' }));
    if (c.failures.length) nodes.push(failuresNode(c.failures));
    return nodes;
  }
}

// What the two views share: a file's row, the set of checked files (for "Restore Checked…", with
// a context key that shows the action), and a refresh that draws streaming results a few times a
// second rather than once per file.
import * as vscode from 'vscode';
import { fileName } from '../revisions/nodes';
import type { TreeNode } from '../../workbench/tree/node';
import { displayText } from '../../core/util/text';

/**
 * A file's row in either view: its name with the file's icon (by its extension), its folder and
 * how many revisions are listed under it (and `extra`, e.g. "new"), the path as stored in the
 * tooltip, and its checkbox.
 */
export function fileRow(o: { id: string; path: string; revisions: number; extra?: string; contextValue: string; checked: boolean }): vscode.TreeItem {
  const item = new vscode.TreeItem(fileName(o.path), vscode.TreeItemCollapsibleState.Expanded);
  item.id = o.id;
  item.resourceUri = vscode.Uri.from({ scheme: 'site-revision-tree', path: `/${fileName(o.path)}` });
  item.iconPath = vscode.ThemeIcon.File;
  const dir = displayText(o.path).split('/').slice(0, -1).join('/');
  const n = o.revisions === 1 ? vscode.l10n.t('1 revision') : vscode.l10n.t('{0} revisions', o.revisions);
  item.description = [dir, n, o.extra ?? ''].filter(Boolean).join(' · ');
  item.tooltip = vscode.l10n.t('Path as stored: {0}', JSON.stringify(o.path));
  item.contextValue = o.contextValue;
  item.checkboxState = o.checked ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked;
  return item;
}

/** Keys of the checked file rows; fires when the set changes. */
export class CheckedFiles {
  private readonly keys = new Set<string>();
  private readonly _onDidChange = new vscode.EventEmitter<number>();
  /** Fires with the number of checked files. */
  readonly onDidChange = this._onDidChange.event;

  has(key: string): boolean {
    return this.keys.has(key);
  }

  set(key: string, checked: boolean): void {
    if (checked === this.keys.has(key)) return;
    if (checked) this.keys.add(key);
    else this.keys.delete(key);
    this._onDidChange.fire(this.keys.size);
  }

  get size(): number {
    return this.keys.size;
  }

  forget(which: (key: string) => boolean): void {
    const before = this.keys.size;
    for (const k of [...this.keys]) if (which(k)) this.keys.delete(k);
    if (this.keys.size !== before) this._onDidChange.fire(this.keys.size);
  }

  clear(): void {
    this.forget(() => true);
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}

/** How often streaming results are drawn at most. */
const REFRESH_MS = 250;

/** Coalesces tree refreshes: `soon()` draws within REFRESH_MS, `now()` at once. */
export class RefreshThrottle implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined | void>();
  readonly event = this.emitter.event;
  private timer: ReturnType<typeof setTimeout> | undefined;

  soon(): void {
    this.timer ??= setTimeout(() => this.now(), REFRESH_MS);
  }

  now(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.emitter.fire();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.emitter.dispose();
  }
}

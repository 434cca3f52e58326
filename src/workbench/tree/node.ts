// The node contract shared by every tree in the extension: a node makes its own TreeItem and
// knows its children, so feature folders (sites, revisions) add node kinds without touching
// the provider.
import type * as vscode from 'vscode';

export abstract class TreeNode {
  constructor(readonly parent: TreeNode | undefined) {}
  abstract getTreeItem(): vscode.TreeItem | Promise<vscode.TreeItem>;
  getChildren(): TreeNode[] | Promise<TreeNode[]> {
    return [];
  }
}

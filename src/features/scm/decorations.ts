// The letter and colour of a working file's state against the service, drawn by VS Code wherever
// it draws a file (Explorer, editor tabs, the Source Control view, Quick Open), as Git's are:
//   L  Changed Locally         siteRevisions.changedLocallyForeground
//   N  Newer on the Service    siteRevisions.newerOnServiceForeground
//   S  Only on the Service     siteRevisions.onlyOnServiceForeground (no working file: the Source
//                              Control view and a tab of a deleted file show it)
//   ?  Not Compared            siteRevisions.notComparedForeground (too large, or unreadable)
// A folder holding a changed or newer file gets its colour (no letter), as with Git.
//
// One state: what is drawn is what the live source controls' groups hold. A control sets its
// files each time it draws its groups; a disposed one is retired — its files go at once, and
// nothing it sets afterwards (a read that ends after it was disposed) is taken.
import * as vscode from 'vscode';
import type { GroupId } from '../../core/status';

const STYLE: Record<GroupId, { badge: string; color: string }> = {
  changedLocally: { badge: 'L', color: 'siteRevisions.changedLocallyForeground' },
  newerOnService: { badge: 'N', color: 'siteRevisions.newerOnServiceForeground' },
  onlyOnService: { badge: 'S', color: 'siteRevisions.onlyOnServiceForeground' },
  notCompared: { badge: '?', color: 'siteRevisions.notComparedForeground' },
};

function tooltipOf(g: GroupId): string {
  switch (g) {
    case 'changedLocally':
      return vscode.l10n.t('Changed locally (Site Revisions)');
    case 'newerOnService':
      return vscode.l10n.t('Newer on the service (Site Revisions)');
    case 'notCompared':
      return vscode.l10n.t('Not compared with the service (Site Revisions)');
    default:
      return vscode.l10n.t('Only on the service (Site Revisions)');
  }
}

export class StatusDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  /** Each control's decorated files (a folder mapped to two sites: the first control that has the file wins). */
  private readonly byOwner = new Map<object, Map<string, { uri: vscode.Uri; group: GroupId }>>();
  /** Controls disposed: what they set is not taken any more. */
  private readonly retired = new WeakSet<object>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri[]>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.window.registerFileDecorationProvider(this);
  }

  /** The decorated files of one source control (replacing what it had). */
  set(owner: object, files: readonly { resourceUri: vscode.Uri; group: GroupId }[]): void {
    if (this.retired.has(owner)) return;
    const before = this.byOwner.get(owner) ?? new Map<string, { uri: vscode.Uri; group: GroupId }>();
    const after = new Map(files.map((f) => [f.resourceUri.toString(), { uri: f.resourceUri, group: f.group }]));
    if (after.size) this.byOwner.set(owner, after);
    else this.byOwner.delete(owner);
    const fired: vscode.Uri[] = [];
    for (const [k, v] of before) if (after.get(k)?.group !== v.group) fired.push(v.uri);
    for (const [k, v] of after) if (!before.has(k)) fired.push(v.uri);
    if (fired.length) this.changed.fire(fired);
  }

  /** A control is disposed: its files go, and it sets none again. */
  retire(owner: object): void {
    this.set(owner, []);
    this.retired.add(owner);
  }

  /** The group a file is drawn with (undefined: none). */
  groupOf(uri: vscode.Uri): GroupId | undefined {
    const k = uri.toString();
    for (const files of this.byOwner.values()) {
      const f = files.get(k);
      if (f) return f.group;
    }
    return undefined;
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const g = this.groupOf(uri);
    if (!g) return undefined;
    const d = new vscode.FileDecoration(STYLE[g].badge, tooltipOf(g), new vscode.ThemeColor(STYLE[g].color));
    d.propagate = g === 'changedLocally' || g === 'newerOnService';
    return d;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

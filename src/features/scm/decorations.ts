// The letter and colour of a working file's state against the service, drawn by VS Code wherever
// it draws a file (Explorer, editor tabs, the Source Control view, Quick Open), as Git's are:
//   L  Changed Locally         siteRevisions.changedLocallyForeground
//   N  Newer on the Service    siteRevisions.newerOnServiceForeground
//   S  Only on the Service     siteRevisions.onlyOnServiceForeground (no working file: the Source
//                              Control view and a tab of a deleted file show it)
//   ?  Not Compared            siteRevisions.notComparedForeground (too large, or unreadable)
// A folder holding a changed or newer file gets its colour (no letter), as with Git.
//
// One state: a file's letter is what the one source control that lists it (the deepest folder's,
// else the first made) has for it — no letter when that control has it in no group, whatever
// another control mapped to the same folder says — so the letter and the Source Control view's
// groups of that control agree. A control sets its files each time it draws its groups; a disposed
// one is retired: its files go at once, and nothing it sets afterwards (a read that ends after it
// was disposed) is taken.
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

/** What a source control tells the decorations. */
interface Owner {
  /** Its folder's depth: of two controls that list a file, the one of the deeper folder decides. */
  readonly rank: number;
  /** Whether it lists the file (in a group or not). */
  readonly knows: (uri: vscode.Uri) => boolean;
  /** Its files in a group, by URI (with why, for one not compared). */
  grouped: Map<string, { uri: vscode.Uri; group: GroupId; why?: string }>;
}

export class StatusDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  /** The live controls, in the order they were made (of two at the same depth, the first decides). */
  private readonly owners = new Map<object, Owner>();
  /** Controls disposed: what they set is not taken any more. */
  private readonly retired = new WeakSet<object>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri[]>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.window.registerFileDecorationProvider(this);
  }

  /** A control made: `knows` says which files it lists; `rank` is its folder's depth. */
  register(owner: object, rank: number, knows: (uri: vscode.Uri) => boolean): void {
    if (!this.retired.has(owner) && !this.owners.has(owner)) this.owners.set(owner, { rank, knows, grouped: new Map() });
  }

  /** The files of one source control in a group (replacing what it had); ignored once it is retired. */
  set(owner: object, files: readonly { resourceUri: vscode.Uri; group: GroupId; why?: string }[]): void {
    const o = this.owners.get(owner);
    if (!o) return;
    const before = o.grouped;
    const after = new Map(files.map((f) => [f.resourceUri.toString(), { uri: f.resourceUri, group: f.group, ...(f.why !== undefined ? { why: f.why } : {}) }]));
    o.grouped = after;
    const fired: vscode.Uri[] = [];
    for (const [k, v] of before) if (after.get(k)?.group !== v.group || after.get(k)?.why !== v.why) fired.push(v.uri);
    for (const [k, v] of after) if (!before.has(k)) fired.push(v.uri);
    if (fired.length) this.changed.fire(fired);
  }

  /** A control is disposed: its files go, and it sets none again. */
  retire(owner: object): void {
    const o = this.owners.get(owner);
    this.retired.add(owner);
    if (!o) return;
    this.owners.delete(owner);
    const fired = [...o.grouped.values()].map((v) => v.uri);
    if (fired.length) this.changed.fire(fired);
  }

  /**
   * The group a file is drawn with (undefined: none): that of the one control that lists it —
   * the deepest folder's, else the first made — whether or not it has it in a group, as the
   * Source Control view draws that control's groups. Never a letter from another control.
   */
  groupOf(uri: vscode.Uri): GroupId | undefined {
    return this.drawn(uri)?.group;
  }

  private drawn(uri: vscode.Uri): { group: GroupId; why?: string } | undefined {
    let best: Owner | undefined;
    for (const o of this.owners.values()) if ((!best || o.rank > best.rank) && o.knows(uri)) best = o;
    return best?.grouped.get(uri.toString());
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const f = this.drawn(uri);
    if (!f) return undefined;
    const g = f.group;
    const d = new vscode.FileDecoration(STYLE[g].badge, f.why ?? tooltipOf(g), new vscode.ThemeColor(STYLE[g].color));
    d.propagate = g === 'changedLocally' || g === 'newerOnService';
    return d;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

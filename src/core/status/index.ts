// The status of a folder mapped to a site (plain Node; no `vscode`): how each working file stands
// against the service's newest revision of it. What the Source Control view (src/features/scm) and the
// language-model tool show, from data given to it — nothing is requested or read here.
//
//   changedLocally   the working file differs from the newest revision, and is not older than it;
//   newerOnService   the newest revision is newer than the working file (its modification time)
//                    and differs from it: the newer-revision alert's rule (src/features/editor/alert.ts),
//                    for every file;
//   onlyOnService    a path with revisions and no working file;
//   notCompared      not compared, and never taken for absent: the working file is larger than the
//                    largest revision the client can read (src/core/status/working.ts), or could
//                    not be read; or the newest revision's content was refused as too large;
//   same             the working file is the newest revision, byte for byte (SHA-256);
//   unknown          not known yet: the newest revision, its content's digest, or the working
//                    file's, has not been read.
// A local file with no revision is in no group; the folder's count of them is kept
// (`localOnly`). A revision path that cannot name a file in the folder (safeSegments: `..`, an
// absolute path…) is in no group either: it is listed in `refused`.
//
// Paths: each site path (the exact raw path the service sent) names the working file at its
// safe segments joined with `/` (`relative`); on a file system that ignores case, a local file
// and a site path match whatever their case (`ignoreCase`). Several raw paths may name one file
// (`a/b.php`, `a//b.php`): each is its own entry.
//
// Incremental: `updateWorking` takes one working file's new digest (after a save or an edit)
// and says which entries changed state: 0 requests, no other file looked at (src/core/status/scan.ts
// reads the folder and the store for the whole).
import { safeSegments } from '../model/safePath';

/** Natural order of paths ("file2" before "file10"). */
const NATURAL = new Intl.Collator(undefined, { numeric: true });

export type FileState = 'changedLocally' | 'newerOnService' | 'onlyOnService' | 'notCompared' | 'same' | 'unknown';

/** The groups a state puts an entry in (the others are in none). */
export const GROUPS = ['changedLocally', 'newerOnService', 'onlyOnService', 'notCompared'] as const;
export type GroupId = (typeof GROUPS)[number];

/** A working file as status needs it. */
export interface WorkingFile {
  size: number;
  /** Modification time, epoch ms. */
  mtime: number;
  /** SHA-256 (hex) of its bytes (or of the editor's unsaved text, as UTF-8); undefined until read. */
  digest: string | undefined;
  /**
   * Why it is not compared (no digest): larger than the largest revision the client can read, or
   * it could not be read (`why` then says how). Such a file is there: it is never taken for absent.
   */
  notCompared?: 'tooLarge' | 'unreadable';
  why?: string;
}

/** A file's newest revision as status needs it. */
export interface NewestRevision {
  id: string;
  date: string;
  author: string;
  /** Epoch ms; undefined when the date could not be read (then it is never "newer"). */
  time: number | undefined;
  /** SHA-256 (hex) of its content as UTF-8; undefined until known. */
  digest: string | undefined;
  /** Its content was refused as larger than the largest reply the client reads (never asked for again). */
  tooLarge?: boolean;
}

/** One site path of the folder and what is known about it. */
export interface StatusEntry {
  /** The exact path the service sent. */
  readonly path: string;
  /** The working file's path in the folder: safe segments joined with `/`. */
  readonly relative: string;
  /** undefined: not known yet; null: the file has no revision (its list is empty). */
  newest: NewestRevision | null | undefined;
  /** undefined: not looked at yet; null: there is no working file. */
  working: WorkingFile | null | undefined;
}

/** How an entry stands (see the header). An entry with no revision counts as `same`: it is in no group. */
export function stateOf(e: Pick<StatusEntry, 'newest' | 'working'>): FileState {
  const { newest, working } = e;
  if (newest === undefined || working === undefined) return 'unknown';
  if (newest === null) return 'same';
  if (working === null) return 'onlyOnService';
  if (working.notCompared || newest.tooLarge) return 'notCompared';
  if (newest.digest === undefined || working.digest === undefined) return 'unknown';
  if (newest.digest === working.digest) return 'same';
  return newest.time !== undefined && newest.time > working.mtime ? 'newerOnService' : 'changedLocally';
}

/** An entry whose state changed. */
export interface StateChange {
  entry: StatusEntry;
  before: FileState;
  after: FileState;
}

export class FolderStatus {
  private readonly entries = new Map<string, StatusEntry>();
  /** The entries of each working file, by its key (relative, lower-cased when case is ignored). */
  private readonly byKey = new Map<string, StatusEntry[]>();
  private refusedPaths: string[] = [];
  private local = { count: 0, complete: true };

  constructor(readonly ignoreCase: boolean) {}

  private key(relative: string): string {
    return this.ignoreCase ? relative.toLowerCase() : relative;
  }

  /**
   * The site's file list: entries of paths no longer listed go, new ones come (not known yet),
   * the others keep what is known of them.
   */
  setSiteFiles(paths: Iterable<string>): void {
    const old = new Map(this.entries);
    this.entries.clear();
    this.byKey.clear();
    this.refusedPaths = [];
    for (const path of paths) {
      if (this.entries.has(path)) continue;
      let e = old.get(path);
      if (!e) {
        const s = safeSegments(path);
        if (!s.ok) {
          this.refusedPaths.push(path);
          continue;
        }
        e = { path, relative: s.segments.join('/'), newest: undefined, working: undefined };
      }
      this.entries.set(path, e);
      const k = this.key(e.relative);
      const list = this.byKey.get(k);
      if (list) list.push(e);
      else this.byKey.set(k, [e]);
    }
  }

  /** Every entry, in the order of the site's list. */
  all(): StatusEntry[] {
    return [...this.entries.values()];
  }

  get(path: string): StatusEntry | undefined {
    return this.entries.get(path);
  }

  /** Revision paths that name no file in the folder (refused by safeSegments). */
  get refused(): readonly string[] {
    return this.refusedPaths;
  }

  /** The entries that name the working file at `relative` (none: a local file with no revision). */
  entriesOf(relative: string): readonly StatusEntry[] {
    return this.byKey.get(this.key(relative)) ?? [];
  }

  /** One working file looked at again (saved, edited, created, deleted): the entries whose state changed. */
  updateWorking(relative: string, working: WorkingFile | null): StateChange[] {
    const out: StateChange[] = [];
    for (const entry of this.entriesOf(relative)) {
      const before = stateOf(entry);
      entry.working = working;
      const after = stateOf(entry);
      if (before !== after) out.push({ entry, before, after });
    }
    return out;
  }

  /**
   * The local files of the folder (relative paths, `complete` when the walk saw all of them):
   * those that name no entry are counted as local files with no revision.
   */
  setLocalFiles(relatives: Iterable<string>, complete: boolean): void {
    let count = 0;
    for (const r of relatives) if (!this.byKey.has(this.key(r))) count++;
    this.local = { count, complete };
  }

  /** The count of local files with no revision as known before (a snapshot), until the folder is walked again. */
  setLocalCount(count: number, complete: boolean): void {
    this.local = { count, complete };
  }

  /** Local files with no revision; `complete` false: at least that many (the walk stopped at its bound). */
  get localOnly(): { count: number; complete: boolean } {
    return this.local;
  }

  /** The entries of each group, by relative path, and how many are not known yet. */
  groups(): Record<GroupId, StatusEntry[]> & { unknown: number } {
    const out: Record<GroupId, StatusEntry[]> & { unknown: number } = { changedLocally: [], newerOnService: [], onlyOnService: [], notCompared: [], unknown: 0 };
    for (const e of this.entries.values()) {
      const s = stateOf(e);
      if (s === 'unknown') out.unknown++;
      else if (s !== 'same') out[s].push(e);
    }
    for (const g of GROUPS) out[g].sort((a, b) => NATURAL.compare(a.relative, b.relative) || (a.path < b.path ? -1 : 1));
    return out;
  }
}

// Pure (no `vscode`): the folder model of a site's revision files, built from the `/`-separated
// paths returned by Get Revision Files. Paths are data from the service: they are only split on
// `/` for display — never resolved (`..` is a folder literally named "..", a backslash is part of
// a name) — and every file keeps its exact raw path, which is what the service is asked about.
import { displayText, hasUnsafeChars } from '../util/text';

export interface FileEntry {
  readonly kind: 'file';
  /** The exact path the service sent (the identifier used in requests). */
  readonly path: string;
  /** Last display segment (what the tree shows). */
  readonly name: string;
  /** Display segments joined with `/` (what the flat list shows). */
  readonly displayPath: string;
  /** True when another raw path is shown with the same display path (e.g. `a.php` and `/a.php`). */
  ambiguous: boolean;
}

/**
 * A folder of the model. Its children are sorted on first access (when the folder is shown), so
 * building the model stays linear and a site with 100,000 files pays only for what is expanded.
 */
export class FolderEntry {
  readonly kind = 'folder' as const;
  /** @internal children in arrival order until first read */
  _folders: FolderEntry[] | undefined;
  /** @internal */
  _files: FileEntry[] | undefined;
  private sorted = false;
  private count: number | undefined;

  constructor(
    readonly name: string,
    /** Display segments joined with `/`; unique within a site (segments never contain `/`). */
    readonly key: string,
  ) {}

  private sort(): void {
    if (this.sorted) return;
    this.sorted = true;
    if (this._folders && this._folders.length > 1) this._folders.sort(cmpFolder);
    if (this._files && this._files.length > 1) this._files.sort(cmpFile);
  }

  /** Number of files below this folder (all levels). */
  get fileCount(): number {
    if (this.count === undefined) {
      let n = this._files?.length ?? 0;
      for (const f of this._folders ?? NONE) n += f.fileCount;
      this.count = n;
    }
    return this.count;
  }

  /** Sub-folders in natural order. */
  get folders(): readonly FolderEntry[] {
    this.sort();
    return this._folders ?? NONE;
  }

  /** Files in natural order (by name, then raw path). */
  get files(): readonly FileEntry[] {
    this.sort();
    return this._files ?? NONE;
  }
}

const NONE: readonly never[] = Object.freeze([]);

export interface FolderModel {
  readonly root: FolderEntry;
  /** Every distinct file, in the order the service sent them (duplicates removed). */
  readonly files: readonly FileEntry[];
  /** Raw path → entry. */
  readonly byPath: ReadonlyMap<string, FileEntry>;
  /** Values that were not strings and were skipped. */
  readonly skipped: number;
}

/** Shown for a path made only of separators (or empty). */
export const EMPTY_NAME = '(empty name)';

const foldCache = new Map<number, number>();

/** Case and accent folding of one UTF-16 unit (ASCII inline, others computed once and cached). */
function fold(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  let f = foldCache.get(c);
  if (f === undefined) {
    const base = String.fromCharCode(c).toLowerCase().normalize('NFD');
    f = base.length === 1 || (base.length > 1 && base.charCodeAt(0) < 0xd800) ? base.charCodeAt(0) : c;
    foldCache.set(c, f);
  }
  return f;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Natural order without allocating: runs of digits compare by value ("file2" before "file10"),
 * letters case- and accent-insensitively; names equal that way fall back to code-unit order,
 * so the order is total and deterministic.
 */
function compareNatural(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  let i = 0;
  let j = 0;
  while (i < la && j < lb) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let si = i;
      while (si < la && a.charCodeAt(si) === 48) si++;
      let sj = j;
      while (sj < lb && b.charCodeAt(sj) === 48) sj++;
      let ei = si;
      while (ei < la && isDigit(a.charCodeAt(ei))) ei++;
      let ej = sj;
      while (ej < lb && isDigit(b.charCodeAt(ej))) ej++;
      if (ei - si !== ej - sj) return ei - si - (ej - sj);
      for (let k = 0; k < ei - si; k++) {
        const d = a.charCodeAt(si + k) - b.charCodeAt(sj + k);
        if (d) return d;
      }
      i = ei;
      j = ej;
      continue;
    }
    if (ca !== cb) {
      const fa = fold(ca);
      const fb = fold(cb);
      if (fa !== fb) return fa - fb;
    }
    i++;
    j++;
  }
  if (la - i !== lb - j) return la - i - (lb - j);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Natural order ("file2" before "file10", case-insensitive), with a deterministic tie-break. */
export function naturalCompare(a: string, b: string): number {
  return a === b ? 0 : compareNatural(a, b);
}

/** A raw path whose display path is itself: not empty, no empty segment, no unsafe character. */
function isClean(raw: string): boolean {
  return raw !== '' && raw.charCodeAt(0) !== 47 && raw.charCodeAt(raw.length - 1) !== 47 && !raw.includes('//') && !hasUnsafeChars(raw);
}

/** The display segments of a raw path: split on `/`, empty segments dropped, nothing resolved. */
export function displaySegments(raw: string): string[] {
  if (isClean(raw)) return raw.split('/');
  const out = displayText(raw)
    .split('/')
    .filter((p) => p !== '');
  return out.length ? out : [EMPTY_NAME];
}


/** The display path of a raw path: its display segments joined with `/` (the raw path itself when clean). */
export function displayPath(raw: string): string {
  return isClean(raw) ? raw : displaySegments(raw).join('/');
}

function cmpFolder(a: FolderEntry, b: FolderEntry): number {
  return naturalCompare(a.name, b.name);
}
function cmpFile(a: FileEntry, b: FileEntry): number {
  return naturalCompare(a.name, b.name) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/**
 * Builds the folders: in each folder, sub-folders first then files, each in natural order. A
 * name can be both a folder and a file (`a` and `a/b`): both are shown. Duplicate raw paths are
 * shown once; non-string values are skipped (counted in `skipped`). Linear: one map lookup per
 * path (its folder, by display key); each folder sorts its children when first read.
 */
export function buildFolderModel(paths: readonly unknown[]): FolderModel {
  const root = new FolderEntry('', '');
  const folders = new Map<string, FolderEntry>();
  const folderFor = (key: string): FolderEntry => {
    let f = folders.get(key);
    if (f) return f;
    const cut = key.lastIndexOf('/');
    const parent = cut < 0 ? root : folderFor(key.slice(0, cut));
    f = new FolderEntry(cut < 0 ? key : key.slice(cut + 1), key);
    (parent._folders ??= []).push(f);
    folders.set(key, f);
    return f;
  };
  const byPath = new Map<string, FileEntry>();
  const files: FileEntry[] = [];
  // Raw paths whose display path differs from the raw path: only these can be ambiguous.
  const unclean: FileEntry[] = [];
  let skipped = 0;
  for (const raw of paths) {
    if (typeof raw !== 'string') {
      skipped++;
      continue;
    }
    if (byPath.has(raw)) continue;
    let entry: FileEntry;
    let folder: FolderEntry;
    if (isClean(raw)) {
      // Display path = raw path: the folder key is the part before the last `/`.
      const cut = raw.lastIndexOf('/');
      folder = cut < 0 ? root : folderFor(raw.slice(0, cut));
      entry = { kind: 'file', path: raw, name: cut < 0 ? raw : raw.slice(cut + 1), displayPath: raw, ambiguous: false };
    } else {
      const segs = displaySegments(raw);
      const name = segs.pop()!;
      folder = segs.length ? folderFor(segs.join('/')) : root;
      entry = { kind: 'file', path: raw, name, displayPath: segs.length ? `${folder.key}/${name}` : name, ambiguous: false };
      unclean.push(entry);
    }
    byPath.set(raw, entry);
    files.push(entry);
    (folder._files ??= []).push(entry);
  }
  if (unclean.length) {
    const seen = new Map<string, FileEntry>();
    for (const e of unclean) {
      const other = seen.get(e.displayPath) ?? byPath.get(e.displayPath);
      if (other && other !== e) {
        other.ambiguous = true;
        e.ambiguous = true;
      }
      seen.set(e.displayPath, e);
    }
  }
  return { root, files, byPath, skipped };
}

/** The flat layout: every file by display path in natural order, compared segment by segment (computed once per model). */
export function flatFiles(model: FolderModel): readonly FileEntry[] {
  let flat = flatCache.get(model);
  if (!flat) {
    // Depth-first through the (sorted) folders, merging each folder's files and sub-folders by
    // name: the same order as comparing whole display paths segment by segment, without the
    // cost of comparing long common prefixes again and again.
    const out: FileEntry[] = [];
    const walk = (f: FolderEntry) => {
      const ds = f.folders;
      const fs = f.files;
      let i = 0;
      let j = 0;
      while (i < ds.length || j < fs.length) {
        if (j < fs.length && (i >= ds.length || naturalCompare(fs[j]!.name, ds[i]!.name) <= 0)) out.push(fs[j++]!);
        else walk(ds[i++]!);
      }
    };
    walk(model.root);
    flat = out;
    flatCache.set(model, flat);
  }
  return flat;
}

const flatCache = new WeakMap<FolderModel, FileEntry[]>();

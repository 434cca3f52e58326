// Pure (no `vscode`): writing a site as of a moment into a folder the user chose, or into a
// `.zip` file (a small writer of our own: the format's four records, node:zlib's deflate and
// CRC-32), for recovery when no working copy exists.
//
// Nothing outside the chosen folder is ever written, and a cancelled or failed export leaves nothing:
// - every revision path goes through the single restore's checks (src/core/model/safePath.ts:
//   relative segments only, no `..`, no drive or stream, no name Windows would change, nothing
//   into `.git` or `.vscode`); a refused path is reported, never "cleaned up";
// - folders are made one segment at a time below the chosen folder's real path, and a segment
//   that exists as a symbolic link (or as anything but a folder) is refused; files are opened
//   with O_NOFOLLOW and O_EXCL, so a link put in the way is never followed;
// - a new file is written in place; a file that exists already (an export into a non-empty
//   folder, which the user agreed to) is written beside it under a temporary name and renamed
//   over it by commit(), so until then it is untouched;
// - every file and folder is recorded for clean-up the moment it is created (not once its write
//   succeeded: a full disk leaves a partial file and empty ones), and abort() first stops the
//   writes in flight (their signal) and waits for every add() under way to settle, then removes
//   what was recorded: after a cancel or a failure has settled, nothing of the export appears;
// - on a disk that does not tell `A.php` from `a.php` (macOS, Windows; looked at by a probe file,
//   not assumed from the platform), paths that differ only in case or in how an accent is encoded
//   are found before anything is written (clashes()) and refused, naming them; a second path onto
//   a name already written is refused too, never renamed over the first;
// - a `.zip` is written to a temporary file beside the chosen name and renamed to it by commit().
// Paths inside the export are the site's own (relative to the site's root), so an export of a
// folder can be copied back in place.
import { randomBytes } from 'node:crypto';
import { constants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { restoreRefusal, safeSegments } from '../model/safePath';
import { english, type Translate } from '../util/l10n';

/** A revision path that cannot be exported (why: the message names it). */
export class ExportPathError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'ExportPathError';
  }
}

/** The safe segments of a revision path for an export, or an ExportPathError. */
export function exportSegments(raw: string, t: Translate = english): string[] {
  const safe = safeSegments(raw, t);
  if (!safe.ok) throw new ExportPathError(raw, safe.reason);
  const refused = restoreRefusal(raw, safe.segments, t);
  if (refused) throw new ExportPathError(raw, refused);
  return safe.segments;
}

export interface ExportSummary {
  files: number;
  bytes: number;
  /** Files that existed in the folder and were replaced. */
  replaced: number;
}

export interface ExportWriter {
  /** The folder or `.zip` file written. */
  readonly target: string;
  /** Adds one file (`raw`: the revision path; `time`: its revision's date, for a zip). Throws ExportPathError for a path it refuses. */
  add(raw: string, bytes: Uint8Array, time?: number): Promise<void>;
  /** Makes what was added the export. */
  commit(): Promise<ExportSummary>;
  /** Stops the writes in flight, waits for every add() under way, then removes everything the export made. */
  abort(): Promise<void>;
  /**
   * Groups of `paths` that would name the same file on this disk although they differ (in case,
   * or in Unicode normalization, on a disk that ignores it); [] where the disk tells them apart.
   * Sorted, each group in the order of `paths`. Nothing is written.
   */
  clashes(paths: readonly string[]): string[][];
}

/** How the disk of an export compares file names. */
export interface NameRule {
  ignoreCase: boolean;
  ignoreNormalization: boolean;
}

/** What is in the folder an export is about to go into. */
export async function folderState(dir: string): Promise<'missing' | 'empty' | 'notEmpty' | 'notFolder'> {
  try {
    const st = await fsp.stat(dir);
    if (!st.isDirectory()) return 'notFolder';
    return (await fsp.readdir(dir)).length ? 'notEmpty' : 'empty';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Creates `file` (never over anything: O_EXCL, O_NOFOLLOW) and writes `bytes`; `created` hears of
 * the file as soon as it exists, before a byte is written. The signal stops the write between
 * chunks (the file is then left for the caller's clean-up).
 */
async function writeNew(file: string, bytes: Uint8Array, signal: AbortSignal, created: (file: string) => void): Promise<void> {
  signal.throwIfAborted();
  const fh = await fsp.open(file, CREATE_NEW, 0o666);
  created(file);
  try {
    await fh.writeFile(bytes, { signal });
  } finally {
    await fh.close();
  }
}

/**
 * How the disk under `root` compares names: a probe file with a lower-case name and a composed
 * accent is made, looked up under its upper-case and decomposed names, and removed.
 */
export async function nameRule(root: string): Promise<NameRule> {
  const name = `.sr-probe-\u00e9-${randomBytes(6).toString('hex')}`;
  const probe = path.join(root, name);
  const fh = await fsp.open(probe, CREATE_NEW, 0o600);
  await fh.close();
  try {
    const same = async (other: string) => {
      try {
        const [a, b] = await Promise.all([fsp.lstat(probe, { bigint: true }), fsp.lstat(path.join(root, other), { bigint: true })]);
        return a.ino === b.ino && a.dev === b.dev;
      } catch (e) {
        if (code(e) === 'ENOENT') return false;
        throw e;
      }
    };
    return { ignoreCase: await same(name.toUpperCase()), ignoreNormalization: await same(name.normalize('NFD')) };
  } finally {
    await fsp.rm(probe, { force: true });
  }
}

/** The key under which a disk with `rule` finds `p`. */
function nameKey(p: string, rule: NameRule): string {
  const n = rule.ignoreNormalization ? p.normalize('NFC') : p;
  return rule.ignoreCase ? n.toLowerCase() : n;
}

/** An export into a folder (created when missing; its parent must exist). `names`: how its disk compares names (default: looked at with a probe file). */
export async function folderWriter(dir: string, t: Translate = english, o: { names?: NameRule } = {}): Promise<ExportWriter> {
  const chosen = path.resolve(dir);
  const created: string[] = []; // folders, in the order they were made
  let madeRoot = false;
  try {
    await fsp.mkdir(chosen);
    madeRoot = true;
  } catch (e) {
    if (code(e) !== 'EEXIST') throw e;
  }
  let root: string;
  let rule: NameRule;
  try {
    root = await fsp.realpath(chosen);
    if (!(await fsp.lstat(root)).isDirectory()) throw new Error(t('{0} is not a folder.', chosen));
    rule = o.names ?? (await nameRule(root));
  } catch (e) {
    if (madeRoot) await fsp.rmdir(chosen).catch(() => undefined);
    throw e;
  }
  const folders = new Map<string, Promise<void>>([['', Promise.resolve()]]);
  const made = new Set<string>(); // every file the export created (new files and temporary ones), from the moment it exists
  const written: string[] = []; // new files, complete
  const pending: { temp: string; final: string }[] = []; // files that existed, renamed over at commit
  const targets = new Map<string, { raw: string; name: string }>(); // name key of a target → the revision path that took it, and its name
  const stop = new AbortController();
  const underWay = new Set<Promise<void>>();
  let bytes = 0;
  let closed = false;
  const record = (f: string) => made.add(f);

  /** The folder of `segments` below the root, made one level at a time; never through a link. */
  const folder = (raw: string, segments: readonly string[]): Promise<void> => {
    const key = segments.join('/');
    let p = folders.get(key);
    if (!p) {
      p = folder(raw, segments.slice(0, -1)).then(async () => {
        stop.signal.throwIfAborted();
        const at = path.join(root, ...segments);
        try {
          await fsp.mkdir(at);
          created.push(at);
          return;
        } catch (e) {
          if (code(e) !== 'EEXIST') throw e;
        }
        const st = await fsp.lstat(at);
        if (st.isSymbolicLink() || !st.isDirectory()) {
          throw new ExportPathError(raw, t('The revision path {0} goes through {1}, which is {2} in the folder, so it is not exported.', JSON.stringify(raw), JSON.stringify(key), st.isSymbolicLink() ? t('a symbolic link') : t('a file')));
        }
      });
      p.catch(() => undefined);
      folders.set(key, p);
    }
    return p;
  };

  const add = async (raw: string, content: Uint8Array): Promise<void> => {
    const segments = exportSegments(raw, t);
    const name = segments.join('/');
    const final = path.join(root, ...segments);
    const key = nameKey(name, rule);
    const taken = targets.get(key);
    if (taken) throw new ExportPathError(raw, taken.name === name ? t('The revision path {0} names a file another path of the site already names, so it is not exported.', JSON.stringify(raw)) : clashText([taken.raw, raw], t));
    targets.set(key, { raw, name });
    await folder(raw, segments.slice(0, -1));
    try {
      await writeNew(final, content, stop.signal, record);
      written.push(final);
    } catch (e) {
      if (code(e) !== 'EEXIST' && code(e) !== 'ELOOP') throw e;
      const st = await fsp.lstat(final);
      if (st.isSymbolicLink() || !st.isFile()) {
        throw new ExportPathError(raw, t('{0} is {1} in the folder, so the revision path {2} is not exported.', JSON.stringify(segments.join('/')), st.isSymbolicLink() ? t('a symbolic link') : t('a folder'), JSON.stringify(raw)));
      }
      const temp = path.join(path.dirname(final), `.${path.basename(final)}.${randomBytes(6).toString('hex')}.sr-export`);
      await writeNew(temp, content, stop.signal, record);
      pending.push({ temp, final });
    }
    bytes += content.byteLength;
  };

  return {
    target: chosen,
    add(raw, content) {
      if (closed) return Promise.reject(new Error('The export is closed.'));
      const p = add(raw, content);
      const tracked: Promise<void> = p.then(
        () => void underWay.delete(tracked),
        () => void underWay.delete(tracked),
      );
      underWay.add(tracked);
      return p;
    },
    clashes(paths) {
      return clashesOf(paths, rule, t);
    },
    async commit() {
      closed = true;
      await Promise.all(underWay);
      for (const p of pending) await fsp.rename(p.temp, p.final);
      return { files: written.length + pending.length, bytes, replaced: pending.length };
    },
    async abort() {
      closed = true;
      stop.abort();
      await Promise.all(underWay);
      await Promise.all([...made].map((f) => fsp.rm(f, { force: true })));
      for (const d of [...created].reverse()) await fsp.rmdir(d).catch(() => undefined);
      if (madeRoot) await fsp.rmdir(chosen).catch(() => undefined);
    },
  };
}

/** The message of paths that name one file on this disk. */
function clashText(paths: readonly string[], t: Translate): string {
  return t('The revision paths {0} differ only in case or in how an accent is encoded, and the disk of the folder does not tell them apart: neither is exported into it (a .zip keeps them all).', paths.map((p) => JSON.stringify(p)).join(t(' and ')));
}

/** See ExportWriter.clashes. Paths the export refuses anyway are left out. */
function clashesOf(paths: readonly string[], rule: NameRule, t: Translate): string[][] {
  if (!rule.ignoreCase && !rule.ignoreNormalization) return [];
  const byKey = new Map<string, string[]>();
  const exact = new Set<string>();
  for (const p of paths) {
    let segments: string[];
    try {
      segments = exportSegments(p, t);
    } catch {
      continue;
    }
    const name = segments.join('/');
    if (exact.has(name)) continue; // the same file under two spellings of the path: the second is refused as such
    exact.add(name);
    const key = nameKey(name, rule);
    const group = byKey.get(key);
    if (group) group.push(p);
    else byKey.set(key, [p]);
  }
  return [...byKey.values()].filter((g) => g.length > 1).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}

/** The message of a clash group (for a path refused before anything is written). */
export function clashMessage(group: readonly string[], t: Translate = english): string {
  return clashText(group, t);
}

// ---- .zip (PKWARE APPNOTE 4.3: local headers, data, central directory, end record; no ZIP64)

const ZIP_MAX = 0xffffffff;
const ZIP_MAX_ENTRIES = 0xffff;

/** MS-DOS date and time (local time, 2-second steps), as zip stores them. */
function dosTime(time: number | undefined): { date: number; time: number } {
  const d = new Date(time ?? Date.now());
  if (d.getFullYear() < 1980) return { date: (1 << 5) | 1, time: 0 };
  return { date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(), time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1) };
}

/** An export into one `.zip` file (replaced when it exists: the save dialog asked). */
export async function zipWriter(file: string, t: Translate = english): Promise<ExportWriter> {
  const zlib = await import('node:zlib');
  const deflate = (b: Uint8Array) => new Promise<Buffer>((resolve, reject) => zlib.deflateRaw(b, (e, out) => (e ? reject(e) : resolve(out))));
  const target = path.resolve(file);
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.sr-export`);
  const fh = await fsp.open(temp, CREATE_NEW, 0o666);
  const central: Buffer[] = [];
  const names = new Set<string>();
  let offset = 0;
  let entries = 0;
  let bytes = 0;
  let closed = false;
  // One write at a time, in order (the files' contents are compressed meanwhile, concurrently).
  let tail: Promise<void> = Promise.resolve();
  const tooLarge = () => new Error(t('The export is larger than a .zip file without ZIP64 can hold (4 GB, 65,535 files): export into a folder instead.'));

  return {
    target,
    async add(raw, content, time) {
      if (closed) throw new Error('The export is closed.');
      const name = exportSegments(raw, t).join('/');
      if (names.has(name)) throw new ExportPathError(raw, t('The revision path {0} names a file another path of the site already names, so it is not exported.', JSON.stringify(raw)));
      names.add(name);
      const crc = zlib.crc32(content);
      const packed = await deflate(content);
      const stored = packed.length >= content.byteLength;
      const data = stored ? content : packed;
      const nameBytes = Buffer.from(name, 'utf8');
      const when = dosTime(time);
      const method = stored ? 0 : 8;
      const write = async () => {
        if (closed) return;
        if (++entries > ZIP_MAX_ENTRIES || offset + 30 + nameBytes.length + data.byteLength > ZIP_MAX || content.byteLength > ZIP_MAX) throw tooLarge();
        const local = Buffer.alloc(30);
        local.writeUInt32LE(0x04034b50, 0);
        local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
        local.writeUInt16LE(0x0800, 6); // names are UTF-8
        local.writeUInt16LE(method, 8);
        local.writeUInt16LE(when.time, 10);
        local.writeUInt16LE(when.date, 12);
        local.writeUInt32LE(crc, 14);
        local.writeUInt32LE(data.byteLength, 18);
        local.writeUInt32LE(content.byteLength, 22);
        local.writeUInt16LE(nameBytes.length, 26);
        const entry = Buffer.alloc(46);
        entry.writeUInt32LE(0x02014b50, 0);
        entry.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0 (the file mode below is read)
        local.copy(entry, 6, 4, 30); // version needed … name length: the same fields
        entry.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
        entry.writeUInt32LE(offset, 42);
        central.push(entry, nameBytes);
        await fh.write(Buffer.concat([local, nameBytes]), 0, 30 + nameBytes.length, offset);
        await fh.write(data, 0, data.byteLength, offset + 30 + nameBytes.length);
        offset += 30 + nameBytes.length + data.byteLength;
        bytes += content.byteLength;
      };
      const done = tail.then(write);
      tail = done.catch(() => undefined);
      await done;
    },
    clashes() {
      return []; // a .zip keeps every name; the unzipping tool decides on its disk
    },
    async commit() {
      await tail;
      closed = true;
      const dir = Buffer.concat(central);
      if (offset + dir.length > ZIP_MAX) throw tooLarge();
      const end = Buffer.alloc(22);
      end.writeUInt32LE(0x06054b50, 0);
      end.writeUInt16LE(entries, 8);
      end.writeUInt16LE(entries, 10);
      end.writeUInt32LE(dir.length, 12);
      end.writeUInt32LE(offset, 16);
      await fh.write(Buffer.concat([dir, end]), 0, dir.length + 22, offset);
      await fh.close();
      await fsp.rename(temp, target);
      return { files: entries, bytes, replaced: 0 };
    },
    async abort() {
      closed = true;
      await tail;
      await fh.close().catch(() => undefined);
      await fsp.rm(temp, { force: true });
    },
  };
}

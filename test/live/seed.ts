// The data every live server of the tests serves (test/live/servers.ts), as a manifest and a
// writer. Deterministic: the same names, bytes and modification times on every run and server,
// so a test computes what it expects from here or from the server's own folder on disk.
//
// The small seed: the special names (spaces, non-ASCII, `#`, `%`), symbolic links (inside the
// root, outside it, dangling), an empty folder, a binary file, known modification times (some far
// in the past) and the same-size pair (SAME_SIZE). The large seed adds LARGE: a tree of 10,000
// files in 1,000 folders, one folder of 10,000 files, and a 200 MB file of real (pseudo-random,
// never repeating) content.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export type SeedKind = 'small' | 'large';

export interface SeedEntry {
  /** Relative to the served root, '/'-separated, no leading slash. */
  path: string;
  kind: 'file' | 'dir' | 'symlink';
  /** Files: the byte count. */
  size?: number;
  /** Files and folders: the modification time set on disk (whole seconds, UTC). Links keep theirs. */
  mtimeMs?: number;
  /** Symbolic links: the target as stored in the link (relative). */
  target?: string;
  /** Symbolic links: where the target lies. */
  link?: 'inside' | 'outside' | 'dangling';
}

/** Seconds → ms, to keep the times below readable. */
const at = (iso: string): number => Date.parse(iso);

/**
 * A file whose content differs from the "newest revision" a test stores on the service, with the
 * same byte count (and the same modification time on the server as any other seed file): a
 * comparison that trusts size and time alone misses it. The server holds `liveContent`.
 */
export const SAME_SIZE = {
  path: 'same-size.txt',
  revisionContent: Buffer.from('<?php echo "version A, reviewed"; ?>\n', 'utf8'),
  liveContent: Buffer.from('<?php echo "version B, tampered"; ?>\n', 'utf8'),
  mtimeMs: at('2024-05-06T07:08:09Z'),
} as const;

/** The file outside each server's root that `link-outside.txt` points to (one level up from the data folder). */
export const OUTSIDE_FILE = { name: 'outside.txt', content: Buffer.from('OUTSIDE THE ROOT: must never be served\n', 'utf8') } as const;

interface SmallFile {
  path: string;
  content: Buffer;
  mtimeMs: number;
}

/** A deterministic binary block (bytes 0–255 in a scrambled order, repeated): not text, not UTF-8. */
function binaryBlock(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 167 + 13) & 0xff;
  return b;
}

const SMALL_FILES: SmallFile[] = [
  { path: 'index.html', content: Buffer.from('<!doctype html>\n<title>Live seed</title>\n<p>Hello from the live server.</p>\n'), mtimeMs: at('2024-01-02T03:04:05Z') },
  { path: 'ünï cödé.txt', content: Buffer.from('Ünïcödé näme, ünïcödé cöntent: 日本語 ✓\n', 'utf8'), mtimeMs: at('2023-12-24T18:30:00Z') },
  { path: 'with space/a b.txt', content: Buffer.from('a file with a space in its name, in a folder with a space\n'), mtimeMs: at('2022-02-22T22:22:22Z') },
  { path: 'hash#name.txt', content: Buffer.from('a # in the name\n'), mtimeMs: at('2021-06-15T12:00:00Z') },
  { path: 'pct%20name.txt', content: Buffer.from('a literal %20 in the name (not a space)\n'), mtimeMs: at('2021-06-15T12:00:01Z') },
  { path: 'percent%.txt', content: Buffer.from('a lone % in the name\n'), mtimeMs: at('2021-06-15T12:00:02Z') },
  { path: 'sub/deeper/style.css', content: Buffer.from('body { color: #174a8c; }\n'), mtimeMs: at('2020-02-29T00:00:00Z') },
  { path: 'sub/readme.md', content: Buffer.from('# sub\n\nA nested folder.\n'), mtimeMs: at('2019-07-04T09:10:11Z') },
  { path: 'old.txt', content: Buffer.from('modified long ago (2001-09-09, Unix time 1,000,000,000)\n'), mtimeMs: 1_000_000_000_000 },
  { path: 'bin/blob.bin', content: binaryBlock(64 * 1024 + 7), mtimeMs: at('2024-02-03T04:05:06Z') },
  { path: '.htaccess', content: Buffer.from('# a dot file, as web hosts have\nOptions -Indexes\n'), mtimeMs: at('2024-01-01T00:00:00Z') },
  { path: 'empty.txt', content: Buffer.alloc(0), mtimeMs: at('2024-01-01T00:00:01Z') },
  { path: SAME_SIZE.path, content: Buffer.from(SAME_SIZE.liveContent), mtimeMs: SAME_SIZE.mtimeMs },
];

const SMALL_DIRS: { path: string; mtimeMs: number }[] = [
  { path: 'with space', mtimeMs: at('2022-02-22T22:22:22Z') },
  { path: 'sub', mtimeMs: at('2020-03-01T00:00:00Z') },
  { path: 'sub/deeper', mtimeMs: at('2020-02-29T00:00:00Z') },
  { path: 'bin', mtimeMs: at('2024-02-03T04:05:06Z') },
  { path: 'empty', mtimeMs: at('2018-01-01T00:00:00Z') },
];

const SMALL_LINKS: SeedEntry[] = [
  { path: 'link-inside.html', kind: 'symlink', target: 'index.html', link: 'inside' },
  { path: 'link-dir', kind: 'symlink', target: 'sub', link: 'inside' },
  { path: 'link-outside.txt', kind: 'symlink', target: `../${OUTSIDE_FILE.name}`, link: 'outside' },
  { path: 'link-dangling.txt', kind: 'symlink', target: 'does-not-exist.txt', link: 'dangling' },
];

/** The large seed's additions. */
export const LARGE = {
  /** 1,000 folders × 10 files: the bench's "10,000-file tree (1,000 folders)". */
  treeDir: 'tree',
  treeFolders: 1000,
  filesPerFolder: 10,
  /** One folder of 10,000 files (a listing that must appear progressively). */
  flatDir: 'flat',
  flatFiles: 10_000,
  /** 200 MB of pseudo-random content, never repeating at any block boundary. */
  bigFile: 'big/200mb.bin',
  bigSize: 200 * 1024 * 1024,
  mtimeMs: at('2023-03-03T03:03:03Z'),
} as const;

const pad = (n: number, w: number): string => String(n).padStart(w, '0');
const treeFile = (d: number, f: number): string => `${LARGE.treeDir}/d${pad(d, 4)}/f${f}.txt`;
const flatFile = (i: number): string => `${LARGE.flatDir}/file-${pad(i, 5)}.txt`;
const treeContent = (d: number, f: number): Buffer => Buffer.from(`tree file ${d}/${f}\n${'x'.repeat((d * 7 + f) % 50)}\n`);
const flatContent = (i: number): Buffer => Buffer.from(`flat file ${i}\n`);

/** Everything a seed holds, files first by path; folders implied by files are listed too. */
export function seedManifest(seed: SeedKind = 'small'): SeedEntry[] {
  const out: SeedEntry[] = [];
  for (const f of SMALL_FILES) out.push({ path: f.path, kind: 'file', size: f.content.length, mtimeMs: f.mtimeMs });
  for (const d of SMALL_DIRS) out.push({ path: d.path, kind: 'dir', mtimeMs: d.mtimeMs });
  out.push(...SMALL_LINKS.map((l) => ({ ...l })));
  if (seed === 'large') {
    out.push({ path: LARGE.treeDir, kind: 'dir', mtimeMs: LARGE.mtimeMs }, { path: LARGE.flatDir, kind: 'dir', mtimeMs: LARGE.mtimeMs }, { path: 'big', kind: 'dir', mtimeMs: LARGE.mtimeMs });
    for (let d = 0; d < LARGE.treeFolders; d++) {
      out.push({ path: `${LARGE.treeDir}/d${pad(d, 4)}`, kind: 'dir', mtimeMs: LARGE.mtimeMs });
      for (let f = 0; f < LARGE.filesPerFolder; f++) out.push({ path: treeFile(d, f), kind: 'file', size: treeContent(d, f).length, mtimeMs: LARGE.mtimeMs });
    }
    for (let i = 0; i < LARGE.flatFiles; i++) out.push({ path: flatFile(i), kind: 'file', size: flatContent(i).length, mtimeMs: LARGE.mtimeMs });
    out.push({ path: LARGE.bigFile, kind: 'file', size: LARGE.bigSize, mtimeMs: LARGE.mtimeMs });
  }
  return out;
}

/** The files of the small seed with their content (the large seed's are generated: read them from a server's dataDir). */
export const SMALL_SEED_FILES: readonly { path: string; content: Buffer; mtimeMs: number }[] = SMALL_FILES.map((f) => ({ ...f, content: Buffer.from(f.content) }));

/** Modification times of the small seed's files and folders (path → ms since the epoch, UTC, whole seconds). */
export const MTIMES: Readonly<Record<string, number>> = Object.fromEntries([...SMALL_FILES, ...SMALL_DIRS].map((e) => [e.path, e.mtimeMs]));

/**
 * The 200 MB file's bytes, in 1 MiB blocks: one pseudo-random block (a SHA-256 counter stream)
 * with the block's number and offset stamped every 4 KiB, so no two blocks and no two 4 KiB pages
 * are equal and a wrong offset or a repeated block changes the hash. Written at disk speed.
 */
function writeBigFile(file: string, size: number): void {
  const BLOCK = 1024 * 1024;
  const fd = fs.openSync(file, 'w', 0o644);
  try {
    const base = Buffer.alloc(BLOCK);
    for (let i = 0; i < BLOCK / 32; i++) createHash('sha256').update(`site-revisions live seed ${i}`).digest().copy(base, i * 32);
    const block = Buffer.alloc(BLOCK);
    for (let off = 0, n = 0; off < size; off += BLOCK, n++) {
      base.copy(block);
      for (let p = 0; p < BLOCK; p += 4096) block.writeUInt32BE((n * 2654435761 + p) >>> 0, p);
      const len = Math.min(BLOCK, size - off);
      fs.writeSync(fd, block, 0, len);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function writeFile(root: string, rel: string, content: Buffer, mtimeMs: number): void {
  const p = path.join(root, rel);
  fs.writeFileSync(p, content, { mode: 0o644 });
  const t = mtimeMs / 1000;
  fs.utimesSync(p, t, t);
}

/**
 * Writes a seed into `dataDir` (created; must not exist or be empty) and OUTSIDE_FILE next to it.
 * Folder times are set last (writing into a folder changes its time).
 */
export function writeSeed(dataDir: string, seed: SeedKind = 'small'): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  fs.writeFileSync(path.join(path.dirname(dataDir), OUTSIDE_FILE.name), OUTSIDE_FILE.content, { mode: 0o644 });
  for (const d of SMALL_DIRS) fs.mkdirSync(path.join(dataDir, d.path), { recursive: true, mode: 0o755 });
  for (const f of SMALL_FILES) writeFile(dataDir, f.path, f.content, f.mtimeMs);
  for (const l of SMALL_LINKS) fs.symlinkSync(l.target!, path.join(dataDir, l.path));
  const dirTimes: { path: string; mtimeMs: number }[] = [...SMALL_DIRS];
  if (seed === 'large') {
    for (const d of [LARGE.treeDir, LARGE.flatDir, 'big']) fs.mkdirSync(path.join(dataDir, d), { mode: 0o755 });
    for (let d = 0; d < LARGE.treeFolders; d++) {
      const dir = `${LARGE.treeDir}/d${pad(d, 4)}`;
      fs.mkdirSync(path.join(dataDir, dir), { mode: 0o755 });
      for (let f = 0; f < LARGE.filesPerFolder; f++) writeFile(dataDir, treeFile(d, f), treeContent(d, f), LARGE.mtimeMs);
      dirTimes.push({ path: dir, mtimeMs: LARGE.mtimeMs });
    }
    for (let i = 0; i < LARGE.flatFiles; i++) writeFile(dataDir, flatFile(i), flatContent(i), LARGE.mtimeMs);
    writeBigFile(path.join(dataDir, LARGE.bigFile), LARGE.bigSize);
    const t = LARGE.mtimeMs / 1000;
    fs.utimesSync(path.join(dataDir, LARGE.bigFile), t, t);
    dirTimes.push({ path: LARGE.treeDir, mtimeMs: LARGE.mtimeMs }, { path: LARGE.flatDir, mtimeMs: LARGE.mtimeMs }, { path: 'big', mtimeMs: LARGE.mtimeMs });
  }
  // Deepest first, so setting a child's time does not disturb its parent's afterwards.
  for (const d of dirTimes.sort((a, b) => b.path.split('/').length - a.path.split('/').length)) {
    const t = d.mtimeMs / 1000;
    fs.utimesSync(path.join(dataDir, d.path), t, t);
  }
}

/**
 * The regular files under `dir` (links not followed), '/'-separated relative paths, sorted: what
 * a test lists from a server's own folder to compare with what a client saw. S3 serves exactly these.
 */
export function listFilesOnDisk(dir: string, opts: { withDirs?: boolean; withLinks?: boolean } = {}): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (opts.withDirs) out.push(`${p}/`);
        walk(p);
      } else if (e.isFile() || (e.isSymbolicLink() && opts.withLinks)) out.push(p);
    }
  };
  walk('');
  return out.sort();
}

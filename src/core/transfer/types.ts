// Transfers guarded by the history (issue 34): the types the VS Code side drives and reads.
// Plain Node, no `vscode` (lint-enforced). Nothing here holds a secret: paths, sizes, hashes,
// the server's raw times, messages with a next step.
//
// Paths are ROOT-RELATIVE as in the live layer (src/core/live/types.ts): segments joined with
// `/`, '' the root. The same path names the live file (under the site's `dir`) and the working
// file (under the mapped folder).
import { LiveError, type LiveEntry, type LiveErrorKind } from '../live/types';

// ---------------------------------------------------------------------------------------------
// Errors

export type TransferErrorKind =
  | LiveErrorKind
  /** Reading or writing the mapped folder failed (permissions, a full disk…). */
  | 'local-io'
  /** A live path that cannot be a file of the mapped folder (the restore's rules: `..`, `:`, `.git`, `.vscode`…). */
  | 'refused-path'
  /** The live file's bytes could not be kept before replacing it (larger than the store's bound, or the disk failed): nothing was written. */
  | 'cannot-keep'
  /** A kept copy does not match its hash any more: it is not used. */
  | 'damaged-copy'
  /** The working file to upload is not there. */
  | 'no-working-file';

/** A failure of a transfer: what kind, which side, and one sentence a person can act on. Never holds a secret. */
export class TransferError extends Error {
  readonly kind: TransferErrorKind;
  readonly next: string;
  /** Which side failed. */
  readonly side: 'live' | 'local' | 'store';
  readonly path?: string;
  constructor(kind: TransferErrorKind, side: 'live' | 'local' | 'store', message: string, o: { next: string; path?: string; cause?: unknown }) {
    super(message, o.cause !== undefined ? { cause: o.cause } : undefined);
    this.name = 'TransferError';
    this.kind = kind;
    this.side = side;
    this.next = o.next;
    if (o.path !== undefined) this.path = o.path;
  }

  /** Any failure as a TransferError (a LiveError keeps its kind and next step). */
  static from(e: unknown, path?: string): TransferError {
    if (e instanceof TransferError) return e;
    if (e instanceof LiveError) return new TransferError(e.kind, 'live', e.message, { next: e.next, ...(path !== undefined ? { path } : {}), cause: e });
    const code = (e as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code === 'string') {
      const why = code === 'ENOSPC' ? 'the disk is full' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'the disk is read-only' : code;
      return new TransferError('local-io', 'local', `A file of the mapped folder could not be read or written (${why})${path ? `: ${path}` : ''}.`, {
        next: code === 'ENOSPC' ? 'Free some disk space and try again.' : 'Check the permissions of the mapped folder and try again.',
        ...(path !== undefined ? { path } : {}),
        cause: e,
      });
    }
    return new TransferError('local-io', 'local', e instanceof Error ? e.message : String(e), { next: 'Try again; if it keeps failing, see the log.', ...(path !== undefined ? { path } : {}), cause: e });
  }

  get cancelled(): boolean {
    return this.kind === 'cancelled';
  }
}

// ---------------------------------------------------------------------------------------------
// The base: what a file was when this computer last saw it

/**
 * What a file is compared with to know whether it changed: what this computer last downloaded or
 * uploaded for the path (the last-seen record), else the newest revision on the service, else
 * nothing.
 */
export type BaseInfo =
  | { from: 'last-seen'; sha256: string; size: number; mtimeRaw: string; etag?: string; at: number; by: 'read' | 'download' | 'upload' }
  | { from: 'newest-revision'; sha256: string; size?: number; revisionId: string }
  | { from: 'none' };

// ---------------------------------------------------------------------------------------------
// Kept copies (the "Overwritten on the server" store, copies.ts)

/**
 * Why a copy was kept: the live file was replaced by an upload, a sync, a put-back or a save of
 * the live folder, or deleted; or a working file was replaced by Take Theirs or a download.
 */
export type KeepReason = 'upload' | 'sync-upload' | 'sync-delete' | 'delete' | 'rename' | 'put-back' | 'save' | 'take-theirs' | 'download';

/** A copy of a file's bytes kept on this computer, as the list shows it. */
export interface KeptCopy {
  id: string;
  siteId: string;
  path: string;
  /** When it was kept, epoch ms (this computer's clock). */
  at: number;
  size: number;
  sha256: string;
  why: KeepReason;
  /** Whose bytes: the live file's (before it was replaced or deleted) or a working file's. */
  side: 'live' | 'local';
  /** The live file as the server reported it when kept (for the list: "size, server time"). */
  live?: { mtimeRaw?: string; mtime?: number };
  /** The file on disk holding the bytes (read-only; open it for a diff). */
  file: string;
}

// ---------------------------------------------------------------------------------------------
// Progress and outcomes

export interface TransferProgress {
  phase: 'listing' | 'checking' | 'transferring' | 'done';
  files: { done: number; total: number };
  bytes: { done: number; total: number };
  conflicts: number;
  failed: number;
  skipped: number;
  /** A path being transferred now (for a status line). */
  current?: string;
}

export interface TransferOptions {
  signal?: AbortSignal;
  /** Called at most every 100 ms or so, and once at the end. */
  onProgress?: (p: TransferProgress) => void;
}

/** Why a file was left alone without being a failure. */
export type SkipReason =
  | 'excluded' // an exclusion pattern (or .git / .vscode) matched
  | 'link-outside' // a symbolic link whose target is outside the root (never followed)
  | 'link-to-folder' // a symbolic link to a folder (not followed, on either side)
  | 'refused-path' // cannot be a file of the mapped folder (the restore's rules)
  | 'not-a-file' // a special file (socket, device…)
  | 'deleted-live' // sync: gone from the server since the base, deleting is off
  | 'deleted-local'; // sync: gone from the mapped folder since the base, deleting is off

export type FileOutcome =
  | {
      path: string;
      action: 'uploaded' | 'downloaded';
      bytes: number;
      sha256: string;
      /** The live file as the server reports it after the transfer (stat). */
      entry?: LiveEntry;
      /** The bytes that were replaced, kept (an upload over a live file; Take Theirs over a working file). */
      kept?: KeptCopy;
      /** What the protocol did not do ('mode', 'mtime', 'atomic': see docs/decisions.md). */
      notDone?: string[];
    }
  /** Both sides already hold the same bytes: nothing was written (the last-seen record is updated). */
  | { path: string; action: 'identical'; sha256: string }
  | { path: string; action: 'conflict'; conflict: Conflict }
  | { path: string; action: 'failed'; error: TransferError }
  | { path: string; action: 'skipped'; reason: SkipReason; detail: string }
  | { path: string; action: 'deleted'; side: 'live' | 'local'; kept?: KeptCopy };

export interface FolderResult {
  /** One outcome per file, in path order. */
  files: FileOutcome[];
  /** The conflicts set aside (each with its choices). */
  conflicts: Conflict[];
  counts: { uploaded: number; downloaded: number; identical: number; conflicts: number; failed: number; skipped: number; deleted: number };
  /** Bytes transferred. */
  bytes: number;
  /** Stopped by the signal: what is listed was done, nothing else was written. */
  cancelled: boolean;
}

// ---------------------------------------------------------------------------------------------
// Conflicts

export type ConflictReason =
  /** Upload: the live file changed since its base. */
  | 'live-changed'
  /** Upload or download: both files exist and differ, and there is no base to say which changed. */
  | 'no-base'
  /** Download: the working file has edits that were not uploaded (it differs from its base). */
  | 'working-changed'
  /** Download: the editor has unsaved edits of the working file. */
  | 'unsaved'
  /** Sync: both changed since the base, differently. */
  | 'both-changed'
  /** Sync: changed in the mapped folder, deleted on the server since the base. */
  | 'deleted-live'
  /** Sync: deleted from the mapped folder, changed on the server since the base. */
  | 'deleted-local';

/**
 * A file that was not transferred because one side changed behind the other. It carries what the
 * three diffs need — live ↔ working (`live.copy.file` and `working.file`), live ↔ newest revision
 * and working ↔ newest revision (`newest.revisionId`) — and the three choices, each a function that
 * does exactly that:
 * - overwriteLive(): upload the working file over the live one ("Overwrite" on an upload), after
 *   checking that the live file is still the one shown; its bytes are kept first;
 * - overwriteWorking(): download the live file over the working one ("Take Theirs" on an upload,
 *   "Overwrite" on a download), after checking that both files are still the ones shown; the
 *   working file's bytes are kept first;
 * - cancel(): nothing is written; the copy held for the diff is released.
 * A choice made after a side changed again writes nothing and returns the new conflict.
 */
export interface Conflict {
  readonly direction: 'upload' | 'download' | 'sync';
  readonly siteId: string;
  readonly path: string;
  readonly reason: ConflictReason;
  /** One sentence for the person (no secret; the path is data). */
  readonly message: string;
  /** The live file as shown. `copy`: its bytes as shown, held on disk for the diffs (absent when it has no bytes to show). */
  readonly live: { exists: boolean; size?: number; mtimeRaw?: string; mtime?: number; etag?: string; sha256?: string; copy?: KeptCopy };
  /** The working file as shown (`file`: its absolute path). */
  readonly working: { exists: boolean; file: string; size?: number; sha256?: string; unsaved?: boolean };
  readonly base: BaseInfo;
  /** The newest revision of the path on the service, when there is one. */
  readonly newest?: { revisionId: string; sha256?: string };
  overwriteLive(o?: TransferOptions): Promise<Resolution>;
  overwriteWorking(o?: TransferOptions): Promise<Resolution>;
  cancel(): Promise<Resolution>;
}

export type Resolution =
  | { outcome: 'done'; file: FileOutcome }
  /** A side changed since the conflict was shown: nothing was written; here is the conflict as it is now (or the file's outcome when there is none any more). */
  | { outcome: 'changed'; conflict?: Conflict; file?: FileOutcome }
  | { outcome: 'cancelled' }
  | { outcome: 'failed'; error: TransferError };

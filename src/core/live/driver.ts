// What a protocol module (ftp.ts, sftp.ts, webdav.ts, s3.ts: each a chunk loaded on first use)
// gives the shared LiveFs (fs.ts): operations on ROOT-RELATIVE paths already checked, with a
// signal that carries both the caller's cancel and the timeout. The driver owns its connections
// (pool, idle close) and reports what each connection step found.
import type { LiveEndpoint, LiveEntry, LiveOptions, StageReport } from './types';
import type { PersonTime } from './util';

export interface DriverContext {
  endpoint: LiveEndpoint;
  options: LiveOptions;
  /** Reports a connection step (to options.onStage). */
  stage(r: StageReport): void;
  /**
   * The password for a login: `refused` after the server refused the previous one (`why`: its words). Throws
   * LiveError 'password-needed' when none is given. A prompt is timed by `person` (the connection's
   * silence timers pause meanwhile); a password known already is not a question.
   */
  password(refused: boolean, why?: string, person?: PersonTime): Promise<string>;
  /** Asks for a key file's passphrase (LiveSecrets.passphrase), timed by `person`. */
  passphrase(q: { keyFile: string; reason: 'login' | 'refused' }, person?: PersonTime): Promise<string | undefined>;
  /** Fingerprints trusted for this LiveFs only, and sites whose clear text was allowed once. */
  once: Set<string>;
}

export interface DriverRead {
  stream: AsyncIterable<Uint8Array>;
  size: number | undefined;
  destroy(): void;
}

/** What a protocol can do is fs.ts's CAPS (one table, known before any connection). */
export interface Driver {
  /** The root as an absolute server path ('/' for FTP's chroot…), known once connected; for resolving link targets. */
  rootAbs(): string;
  /** Connects now (Test Connection), if not connected. */
  connect(signal: AbortSignal): Promise<void>;
  /** Lists a folder, handing batches to `emit` (entries with root-relative paths; links with `link.target` raw). */
  list(path: string, emit: (entries: LiveEntry[]) => void, signal: AbortSignal): Promise<void>;
  /** The entry at path without following a link; undefined when there is none. */
  stat(path: string, signal: AbortSignal): Promise<LiveEntry | undefined>;
  /** `knownSize`: ReadOptions.size (a listing's size; FTP skips its SIZE). */
  read(path: string, start: number, signal: AbortSignal, knownSize?: number): Promise<DriverRead>;
  /** Writes `source` to exactly `path` (fs.ts does the temporary name and rename). */
  write(path: string, source: AsyncIterable<Uint8Array>, size: number | undefined, signal: AbortSignal, onBytes: (n: number) => void): Promise<void>;
  mkdir(path: string, signal: AbortSignal): Promise<void>;
  /** Removes a file or link (`dir` false) or an empty folder. */
  remove(path: string, dir: boolean, signal: AbortSignal): Promise<void>;
  /**
   * Renames, replacing an existing target. Resolves `false` when the target was replaced in two
   * steps (removed, then renamed: SFTP without posix-rename, WebDAV's MOVE with Overwrite): a
   * reader may see no file for a moment, and a failure between the steps leaves none.
   */
  rename(from: string, to: string, signal: AbortSignal): Promise<boolean | void>;
  setTime?(path: string, mtime: number, signal: AbortSignal): Promise<void>;
  chmod?(path: string, mode: number, signal: AbortSignal): Promise<void>;
  /** Work that will use up to `n` connections at once is starting (a walk): open them now, once it is safe to. */
  warm?(n: number): void;
  close(): Promise<void>;
}

export type CreateDriver = (ctx: DriverContext) => Driver;

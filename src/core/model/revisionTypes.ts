// What the revision store (revisionStore.ts) reads, gives and is given: plain types, no logic.
import type { ListReply, RequestPriority, Revision, RevisionSummary } from '../api/types';
import type { DiskStore } from '../store';
import type { FolderModel } from './folders';
import type { Dated } from './ordering';

/** How a read is made: cancellable, and at the user's or at background priority (the scheduler's). */
export interface ReadOptions {
  signal?: AbortSignal;
  priority?: RequestPriority;
}

/** A list read: `fresh` asks the service now, whatever is cached (the disk's copy only when it cannot be reached). */
export type ListOptions = ReadOptions & { fresh?: boolean };

/** The three reads the store needs (the service client has them). */
export interface RevisionSource {
  getRevisionFiles(siteId: string, o?: ReadOptions): Promise<ListReply<string>>;
  getRevisions(siteId: string, file: string, o?: ReadOptions & { withContent?: boolean; maxResponseBytes?: number }): Promise<ListReply<RevisionSummary>>;
  getRevision(siteId: string, revisionId: string, o?: ReadOptions): Promise<Revision>;
}

/** A revision with its content (undefined when the service could not give it). */
export interface RevisionWithContent extends RevisionItem {
  content: string | undefined;
}

/** Runs a call with the current client (Session.call: handles "signed out" once). */
export type Caller = <T>(fn: (source: RevisionSource) => Promise<T>) => Promise<T>;

/** A revision as listed, without its content. */
export type RevisionItem = Omit<RevisionSummary, 'content'>;

/** Where a list shown came from, when not from a request just made. */
export interface ListOrigin {
  /** When it was fetched from the service (epoch ms); set when it came from the disk cache. */
  fetchedAt?: number;
  /** Shown from the disk cache because the service could not be reached. */
  offline?: boolean;
}

export interface RevisionList extends ListOrigin {
  siteId: string;
  path: string;
  /** Newest first. */
  items: Dated<RevisionItem>[];
  /** Entries of the reply that could not be used (see ListReply). */
  skipped?: number;
}

/** A site's files as folders, and where they came from. */
export type SiteFiles = FolderModel & ListOrigin;

/** A list that a refresh behind (or a fetch after an offline spell) replaced with something else. */
export type ListUpdate = { kind: 'files'; siteId: string } | { kind: 'revisions'; siteId: string; path: string };

export interface RevisionStoreOptions {
  /** The signed-in account's disk store, when there is one (one that is not `enabled` is skipped). */
  disk?: () => Promise<DiskStore | undefined>;
  /** Whether an error means the service cannot be reached: lists then come from the disk. */
  isOffline?: (e: unknown) => boolean;
  /** A list shown changed after a refresh behind. */
  onDidUpdate?: (u: ListUpdate) => void;
  /** Bytes (estimated) of the file and revision lists kept in memory; default 64 MiB. */
  listBytes?: number;
  /**
   * The most bytes (UTF-8) of one file's history that allContents() holds in memory at once;
   * default: the content cache's bound (`revisions.cacheSizeMB`), read at each call.
   */
  historyBytes?: number;
}

export interface StoreLog {
  debug(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
}

/** Requests sent by the store, per operation, and contents read from disk (for the log and tests). */
export interface StoreRequests {
  files: number;
  revisions: number;
  content: number;
  fromDisk: number;
}

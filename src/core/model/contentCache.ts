// The revision store's contents in memory (no `vscode`): a byte-bounded LRU of UTF-8 contents,
// beside it the last contents too large for the whole of it, and the SHA-256 of every content
// seen. Revisions never change, so nothing here is ever refreshed: only evicted, or cleared when
// the account changes.
import { createHash } from 'node:crypto';
import { ByteLru } from './lru';

const encoder = new TextEncoder();

export function contentKey(siteId: string, revisionId: string): string {
  return `${siteId}\u0000${revisionId}`;
}

/** SHA-256 of bytes, hex. */
export function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Contents larger than the whole LRU kept beside it (the two sides of a compare). */
const LARGE_SLOTS = 2;

/** Most digests kept (about 100 bytes each): enough for every revision a person looks at. */
const MAX_DIGESTS = 200_000;

export class ContentCache {
  /** Revision contents (UTF-8 bytes), bounded by `revisions.cacheSizeMB` (RevisionStore.cache). */
  readonly lru: ByteLru<string, Uint8Array>;
  /**
   * The last contents fetched that are larger than the whole LRU: kept (two, the older replaced
   * by the next) so that opening one — `stat`, then `readFile`, then Compare with Working File —
   * costs one request, not one per call, and a compare of two such revisions keeps both.
   */
  private large: { key: string; bytes: Uint8Array }[] = [];
  /** Content digests outlive the cache (a revision's content never changes). */
  private readonly digests = new Map<string, string>();

  constructor(bytes: number) {
    this.lru = new ByteLru<string, Uint8Array>(bytes, (b) => b.byteLength);
  }

  /** A content in memory, without changing the LRU's order. */
  peek(siteId: string, revisionId: string): Uint8Array | undefined {
    const key = contentKey(siteId, revisionId);
    return this.lru.peek(key) ?? this.large.find((l) => l.key === key)?.bytes;
  }

  /** Marks a content in the LRU as the most recently used. */
  touch(key: string): void {
    this.lru.get(key);
  }

  /** Whether the digest of a content is known (then it need not be computed again). */
  hasDigest(key: string): boolean {
    return this.digests.has(key);
  }

  /** The SHA-256 of a revision's content when it has been seen (even if evicted since). */
  digestOf(siteId: string, revisionId: string): string | undefined {
    return this.digests.get(contentKey(siteId, revisionId));
  }

  /** Keeps a content given as text; its UTF-8 bytes. */
  put(siteId: string, revisionId: string, content: string): Uint8Array {
    const bytes = encoder.encode(content);
    this.keep(contentKey(siteId, revisionId), bytes);
    return bytes;
  }

  /** Into the LRU (or, larger than all of it, the one large slot), with its digest (`known`: already computed). */
  keep(key: string, bytes: Uint8Array, known?: string): void {
    if (!this.lru.set(key, bytes) && !this.large.some((l) => l.key === key)) this.large = [...this.large.slice(-(LARGE_SLOTS - 1)), { key, bytes }];
    if (!this.digests.has(key)) {
      if (this.digests.size >= MAX_DIGESTS) this.digests.delete(this.digests.keys().next().value as string);
      this.digests.set(key, known ?? digest(bytes));
    }
  }

  /** Forgets every content and digest. */
  clear(): void {
    this.lru.clear();
    this.large = [];
    this.digests.clear();
  }
}

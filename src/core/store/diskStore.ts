// The disk store: revision contents and the three lists of one account, kept on disk between
// sessions (plain Node: no `vscode` import). See index.ts for how the extension uses it.
//
// Keys: a revision's content (site id, revision id); the sites list; a site's file list; a
// file's revision list. Each names a blob of BlobStore (blobStore.ts: the files, the index, the
// LRU bound, the lifecycle, and what a disk problem becomes: a miss or a skipped write). Secrets
// never get here: sites are cut to an allow-list first (lists.ts), contents and paths are not
// secrets.
import { BlobStore } from './blobStore';
import { encodeSliced } from './slices';
import { cachedFiles, cachedRevisions, cachedSites, decodeFiles, encodeFiles, type CachedRevision, type CachedSite } from './lists';

/** The lists the store keeps. */
export type ListKey = { kind: 'sites' } | { kind: 'files'; siteId: string } | { kind: 'revisions'; siteId: string; path: string };

/** What a list holds: sites without secrets, file paths, revisions without content. */
export type ListValue<K extends ListKey> = K extends { kind: 'sites' } ? CachedSite[] : K extends { kind: 'files' } ? string[] : CachedRevision[];

/** What put() accepts for a list: the client's values (sites with passwords, revisions with content) are fine, they are cut down first. */
export type ListInput<K extends ListKey> = K extends { kind: 'sites' } ? readonly object[] : K extends { kind: 'files' } ? readonly string[] : readonly { id: string; date: string; author: string }[];

export interface Cached<T> {
  value: T;
  /** When the value was fetched from the service (epoch ms), as given to put(). */
  fetchedAt: number;
}

export class DiskStore extends BlobStore {
  // ---- revision contents

  /** A revision's content as stored (checked against its hash), or undefined: not stored, or dropped as corrupt. */
  async getContent(siteId: string, revisionId: string): Promise<Uint8Array | undefined> {
    return this.read(contentKey(siteId, revisionId));
  }

  /** Whether the index names this content (as of the last look at the other windows' journals; see refresh()). */
  hasContent(siteId: string, revisionId: string): boolean {
    return this.enabled && this.catalog.get(contentKey(siteId, revisionId)) !== undefined;
  }

  /** The size in bytes of a stored content, from the index (without reading it). */
  contentBytes(siteId: string, revisionId: string): number | undefined {
    return this.enabled ? this.catalog.get(contentKey(siteId, revisionId))?.size : undefined;
  }

  /** SHA-256 (hex) of a stored content's UTF-8 bytes, without reading it. */
  digestOf(siteId: string, revisionId: string): string | undefined {
    return this.enabled ? this.catalog.get(contentKey(siteId, revisionId))?.hash : undefined;
  }

  /** Stores a revision's content (strings as UTF-8). False when not stored: off, larger than the bound, or a disk error. */
  async putContent(siteId: string, revisionId: string, content: string | Uint8Array): Promise<boolean> {
    const key = contentKey(siteId, revisionId);
    if (!(await this.usable())) return false;
    // A revision never changes: stored once is enough.
    if (this.catalog.get(key)) return true;
    const bytes = typeof content === 'string' ? await encodeSliced(content, true) : content;
    return this.write(key, bytes, Date.now());
  }

  // ---- lists

  /** A list as last stored, with the time it was fetched; undefined when there is none. */
  async peek<K extends ListKey>(key: K): Promise<Cached<ListValue<K>> | undefined> {
    const k = listKey(key);
    const entry = await this.entryOf(k);
    if (!entry) return undefined;
    const bytes = await this.readEntry(k, entry);
    if (!bytes) return undefined;
    let value: CachedSite[] | string[] | CachedRevision[];
    try {
      const text = bytes.toString('utf8');
      value = key.kind === 'files' ? decodeFiles(text) : key.kind === 'sites' ? cachedSites(JSON.parse(text)) : cachedRevisions(JSON.parse(text));
    } catch {
      await this.exclusive(() => this.dropKey(k, entry.hash));
      return undefined;
    }
    return { value: value as ListValue<K>, fetchedAt: entry.stamp };
  }

  /**
   * Stores a list fetched at `fetchedAt` (default now). Sites lose every field that is not on
   * the allow-list (lists.ts) before anything is written; revisions lose their content.
   */
  async put<K extends ListKey>(key: K, value: ListInput<K>, fetchedAt = Date.now()): Promise<boolean> {
    if (!(await this.usable())) return false;
    const text = key.kind === 'files' ? encodeFiles(cachedFiles(value)) : JSON.stringify(key.kind === 'sites' ? cachedSites(value) : cachedRevisions(value));
    return this.write(listKey(key), Buffer.from(text, 'utf8'), fetchedAt);
  }

  // ---- a deleted site

  /** Forgets everything stored for a site (it was deleted): its lists and its revisions' contents. */
  async forgetSite(siteId: string): Promise<void> {
    if (!(await this.usable())) return;
    const prefixes = ['c', 'f', 'r'].map((kind) => JSON.stringify([kind, siteId]).slice(0, -1));
    await this.exclusive(async () => {
      await this.catalog.refresh();
      for (const key of [...this.catalog.entries.keys()]) {
        if (prefixes.some((p) => key.startsWith(p) && (key[p.length] === ',' || key[p.length] === ']'))) await this.unlinkFreed(this.catalog.drop(key));
      }
      await this.catalog.flush();
    });
  }
}

function contentKey(siteId: string, revisionId: string): string {
  return JSON.stringify(['c', String(siteId), String(revisionId)]);
}

function listKey(key: ListKey): string {
  switch (key.kind) {
    case 'sites':
      return JSON.stringify(['s']);
    case 'files':
      return JSON.stringify(['f', String(key.siteId)]);
    case 'revisions':
      return JSON.stringify(['r', String(key.siteId), String(key.path)]);
    default:
      throw new TypeError('Unknown list kind.');
  }
}

// Pure (no `vscode`): a least-recently-used map bounded by the total size of its values in bytes.
// Revision contents never change, so entries are only ever evicted for space, never refreshed.

export class ByteLru<K, V> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  private readonly map = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    private max: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  /** Bytes currently held. */
  get bytes(): number {
    return this.total;
  }
  get size(): number {
    return this.map.size;
  }
  get maxBytes(): number {
    return this.max;
  }

  /** Changes the bound; evicts at once when the cache is now over it. */
  setMaxBytes(max: number): void {
    this.max = Math.max(0, max);
    this.evict();
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** The value, marking it most recently used. */
  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  /** Looks without changing the order. */
  peek(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  /**
   * Stores a value as the most recently used, evicting the least recently used until the total
   * fits. A value larger than the whole bound is not stored (returns false).
   */
  set(key: K, value: V): boolean {
    const bytes = Math.max(0, this.sizeOf(value));
    this.delete(key);
    if (bytes > this.max) return false;
    this.map.set(key, { value, bytes });
    this.total += bytes;
    this.evict();
    return true;
  }

  delete(key: K): boolean {
    const e = this.map.get(key);
    if (!e) return false;
    this.map.delete(key);
    this.total -= e.bytes;
    return true;
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  keys(): K[] {
    return [...this.map.keys()];
  }

  /** The values, least recently used first, without changing the order. */
  *values(): IterableIterator<V> {
    for (const e of this.map.values()) yield e.value;
  }

  private evict(): void {
    for (const [k, e] of this.map) {
      if (this.total <= this.max) break;
      this.map.delete(k);
      this.total -= e.bytes;
    }
  }
}

// Pure (no `vscode`): how much of a long revision list the view shows.

export interface Page<T> {
  /** The items to show now. */
  items: T[];
  /** How many are not shown yet (a "Load more…" node appears when > 0). */
  remaining: number;
  /** How many the next "Load more…" adds. */
  next: number;
}

/**
 * The first `shown` items (at least one page, never more than there are). `shown` grows by
 * `pageSize` each time the user asks for more.
 */
export function pageOf<T>(all: readonly T[], shown: number, pageSize: number): Page<T> {
  const size = Math.max(1, Math.floor(pageSize) || 1);
  const count = Math.min(all.length, Math.max(size, Math.floor(shown) || 0));
  const remaining = all.length - count;
  return { items: all.slice(0, count), remaining, next: Math.min(size, remaining) };
}

/** The new `shown` after one "Load more…". */
export function loadMore(shown: number, pageSize: number, total: number): number {
  const size = Math.max(1, Math.floor(pageSize) || 1);
  return Math.min(total, Math.max(size, Math.floor(shown) || 0) + size);
}

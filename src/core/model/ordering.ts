// Pure (no `vscode`): the order of a file's revisions. The service promises no order (the local
// service answers oldest first), so the list is always sorted here: newest first by date, then
// by numeric id (ids grow with time); revisions whose date cannot be read come last.
import type { RevisionSummary } from '../api/types';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]00:?00)?$/;

/**
 * Parses a revision date, `YYYY-MM-DD HH:MM:SS` in UTC (the project's decision; a `T`, a
 * fraction and an explicit `Z`/`+00:00` are tolerated). Returns epoch milliseconds, or
 * undefined when the text is not such a date or names an impossible day or time.
 */
export function parseRevisionDate(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = DATE_RE.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(ms);
  // Rejects 2023-02-30 and the like (Date.UTC would roll them over into the next month).
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  return ms;
}

/**
 * Compares two revision ids so that the larger number sorts first. Decimal ids compare by value
 * (any length, no precision loss); other ids come after decimal ones, in code-unit order.
 */
export function compareIdsDescending(a: string, b: string): number {
  const na = /^\d+$/.test(a);
  const nb = /^\d+$/.test(b);
  if (na && nb) {
    const x = a.replace(/^0+(?=\d)/, '');
    const y = b.replace(/^0+(?=\d)/, '');
    if (x.length !== y.length) return y.length - x.length;
    return x < y ? 1 : x > y ? -1 : 0;
  }
  if (na !== nb) return na ? -1 : 1;
  return a < b ? 1 : a > b ? -1 : 0;
}

export interface Dated<T> {
  item: T;
  /** Epoch ms, or undefined when the date could not be read. */
  time: number | undefined;
}

/** Newest first: by date, then by id (larger first); unparsable dates last (by id among themselves). */
export function compareNewestFirst(a: Dated<{ id: string }>, b: Dated<{ id: string }>): number {
  if (a.time !== undefined && b.time !== undefined) {
    if (a.time !== b.time) return b.time - a.time;
  } else if (a.time !== undefined) return -1;
  else if (b.time !== undefined) return 1;
  return compareIdsDescending(a.item.id, b.item.id);
}

/** A sorted copy, newest first, whatever order the service used. The input is not modified. */
export function sortNewestFirst<T extends Pick<RevisionSummary, 'id' | 'date'>>(revisions: readonly T[]): Dated<T>[] {
  return revisions.map((item) => ({ item, time: parseRevisionDate(item.date) })).sort(compareNewestFirst);
}

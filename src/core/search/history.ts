// Pure (no `vscode`): History Search over the revisions of ONE file, given their contents.
//
// - mode 'changes' (the default, like `git log -S`): the revisions whose number of matches
//   differs from the revision before (oldest first; the oldest compares against nothing, so its
//   matches count as added). Each says how many were added or removed.
// - mode 'contains': every revision that has a match.
//
// The revisions are put oldest → newest first (by date, then id: src/core/model/ordering.ts; the
// service promises no order), each content is searched and dropped at once (a content given as
// UTF-8 bytes is decoded only while it is searched), and only the counts and previews of the
// reported revisions are kept. A revision listed twice counts once; one whose content is missing
// or not text is skipped (counted in `skipped`), not the whole file.
import type { RevisionSummary } from '../api/types';
import { compareNewestFirst, parseRevisionDate } from '../model/ordering';
import type { Matcher, MatchPreview } from './query';

export type SearchMode = 'changes' | 'contains';

/** A revision with its content, as the store hands it over (bytes are UTF-8). */
export interface RevisionText {
  id: string;
  date: string;
  author: string;
  content?: string | Uint8Array;
}

/** One revision in the results. */
export interface RevisionHit {
  id: string;
  /** As sent (`YYYY-MM-DD HH:MM:SS`, UTC). */
  date: string;
  /** Epoch ms, undefined when the date cannot be read. */
  time: number | undefined;
  author: string;
  /** Matches in this revision. */
  count: number;
  /** Matches more than in the revision before (0 when fewer). */
  added: number;
  /** Matches fewer than in the revision before (0 when more). */
  removed: number;
  /**
   * The first match: in this revision, or — when this revision has none left (everything was
   * removed) — in the revision before, so the user sees what went away.
   */
  preview: MatchPreview | undefined;
  /** Which revision `preview` is in: this one, or the one before (`previousId`). */
  previewIn: 'revision' | 'previous';
  /** The revision before (older) this one, undefined for the oldest. */
  previousId: string | undefined;
}

export interface FileSearchResult {
  siteId: string;
  path: string;
  /** The reported revisions, newest first. Empty when nothing matched. */
  hits: RevisionHit[];
  /** Revisions searched. */
  revisions: number;
  /** Revisions left out: no content, or listed twice. */
  skipped: number;
  /** Sum of `added` over the hits (changes) / of `count` (contains). */
  matches: number;
}

const decoder = new TextDecoder('utf-8');

function textOf(content: RevisionText['content']): string | undefined {
  if (typeof content === 'string') return content;
  if (content instanceof Uint8Array) return decoder.decode(content);
  return undefined;
}

/** Oldest first (the reverse of the view's newest-first order), duplicates once. */
export function oldestFirst<T extends Pick<RevisionSummary, 'id' | 'date'>>(revisions: readonly T[]): { items: { item: T; time: number | undefined }[]; duplicates: number } {
  const seen = new Set<string>();
  const items: { item: T; time: number | undefined }[] = [];
  for (const r of revisions) {
    if (!r || typeof r.id !== 'string' || seen.has(r.id)) continue;
    seen.add(r.id);
    items.push({ item: r, time: parseRevisionDate(r.date) });
  }
  items.sort((a, b) => compareNewestFirst(b, a));
  return { items, duplicates: revisions.length - items.length };
}

/**
 * Searches the revisions of one file. `revisions` in any order; the array is not kept, and each
 * content is searched then let go. `onRevision` is told of each revision before its content is
 * searched (the search thread records which one it is in, for the message when it takes too long).
 */
export function searchRevisions(siteId: string, path: string, revisions: readonly RevisionText[], matcher: Matcher, mode: SearchMode = 'changes', onRevision?: (revision: RevisionText) => void): FileSearchResult {
  const { items, duplicates } = oldestFirst(revisions);
  const hits: RevisionHit[] = [];
  let skipped = duplicates;
  let searched = 0;
  let matches = 0;
  let prevCount = 0;
  let prevPreview: MatchPreview | undefined;
  let prevId: string | undefined;
  for (const { item, time } of items) {
    const text = textOf(item.content);
    if (text === undefined) {
      skipped++;
      continue;
    }
    searched++;
    onRevision?.(item);
    const { count, first } = matcher.scan(text, true);
    const delta = count - prevCount;
    const report = mode === 'changes' ? delta !== 0 : count > 0;
    if (report) {
      const fromPrevious = count === 0;
      hits.push({
        id: item.id,
        date: item.date,
        time,
        author: item.author,
        count,
        added: delta > 0 ? delta : 0,
        removed: delta < 0 ? -delta : 0,
        preview: fromPrevious ? prevPreview : first,
        previewIn: fromPrevious ? 'previous' : 'revision',
        previousId: prevId,
      });
      matches += mode === 'changes' ? Math.max(delta, 0) : count;
    }
    prevCount = count;
    prevPreview = first;
    prevId = item.id;
  }
  hits.reverse();
  return { siteId, path, hits, revisions: searched, skipped, matches };
}

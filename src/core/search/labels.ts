// Pure (no `vscode`): the words the History Search and Site Changes views show, so that they are
// the same everywhere and translated (`t`, see src/core/util/l10n.ts). Numbers use the display
// language's grouping ("1,840"), days its date format.
import { english, type Translate } from '../util/l10n';
import type { RevisionHit, SearchMode } from './history';
import type { ScanProgress } from './scan';
import { parseDay, type Period, type Zone } from './siteChanges';

function count(n: number, locale: string): string {
  try {
    return n.toLocaleString(locale);
  } catch {
    return n.toLocaleString('en');
  }
}

/** "added 2", "removed 1" (changes); "3 matches", "1 match" (contains). */
export function hitLabel(hit: Pick<RevisionHit, 'count' | 'added' | 'removed'>, mode: SearchMode, t: Translate = english, locale = 'en'): string {
  if (mode === 'contains') return hit.count === 1 ? t('1 match') : t('{0} matches', count(hit.count, locale));
  if (hit.removed > 0) return t('removed {0}', count(hit.removed, locale));
  return t('added {0}', count(hit.added, locale));
}

/** "Listing files…", "132 / 1,840 files", and what the end says. */
export function progressLabel(p: ScanProgress, t: Translate = english, locale = 'en'): string {
  if (p.phase === 'listing' || p.total === undefined) return t('Listing files…');
  const done = t('{0} / {1} files', count(p.done, locale), count(p.total, locale));
  if (p.phase === 'cancelled') return t('Cancelled after {0}', done);
  return p.failed ? t('{0} ({1} could not be read)', done, count(p.failed, locale)) : done;
}

/** "Today", "Last 7 days", "Since 2026-03-01". */
export function periodLabel(period: Period, t: Translate = english): string {
  switch (period.kind) {
    case 'today':
      return t('Today');
    case 'days':
      return period.days === 1 ? t('Today') : t('Last {0} days', period.days);
    case 'since':
      return t('Since {0}', period.date);
  }
}

/** A day group's title: "Today", "Yesterday", else the date in the display language (e.g. "Monday, March 9, 2026"). */
export function dayLabel(day: string, now: number, zone: Zone, t: Translate = english, locale = 'en'): string {
  if (day === zone.dayOf(now)) return t('Today');
  if (day === zone.dayOf(zone.startOfDay(now, -1))) return t('Yesterday');
  const d = parseDay(day);
  if (!d) return day;
  const noonUtc = Date.UTC(d.y, d.m - 1, d.d, 12);
  const options: Intl.DateTimeFormatOptions = { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' };
  try {
    return new Intl.DateTimeFormat(locale, options).format(noonUtc);
  } catch {
    return new Intl.DateTimeFormat('en', options).format(noonUtc);
  }
}

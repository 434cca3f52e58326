// Pure (no `vscode`): how revision dates are shown — relative ("3 days ago") in labels, exact
// (UTC and local) in tooltips and pickers.

import { english, type Translate } from '../util/l10n';

type Unit = 'year' | 'month' | 'week' | 'day' | 'hour' | 'minute';

const UNITS: [unit: Unit, ms: number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

const formatters = new Map<string, Intl.RelativeTimeFormat>();

/** The platform's relative-time wording (with the language's plural rules); English when the locale is unknown. */
function formatter(locale: string): Intl.RelativeTimeFormat {
  let f = formatters.get(locale);
  if (!f) {
    try {
      f = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
    } catch {
      f = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
    }
    formatters.set(locale, f);
  }
  return f;
}

/**
 * "just now", "5 minutes ago", "3 days ago", "1 year ago": the largest unit reached, counted
 * down (59 minutes stay "59 minutes", 60 are "1 hour"). Under 45 seconds either way (clock skew)
 * is "just now"; a date further ahead says "in …". The wording of the units comes from
 * `Intl.RelativeTimeFormat` in `locale` (VS Code's display language); `t` translates the rest.
 */
export function relativeTime(time: number | undefined, now: number, t: Translate = english, locale = 'en'): string {
  if (time === undefined || !Number.isFinite(time)) return t('unknown date');
  const diff = now - time;
  const abs = Math.abs(diff);
  if (abs < 45_000) return t('just now');
  let unit: Unit = 'minute';
  let n = 1;
  for (const [u, ms] of UNITS) {
    if (abs >= ms) {
      unit = u;
      n = Math.floor(abs / ms);
      break;
    }
  }
  return formatter(locale).format(diff >= 0 ? -n : n, unit);
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** `2024-05-01 13:45:07 UTC`. */
export function formatUtc(time: number): string {
  const d = new Date(time);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/** `2024-05-01 15:45:07 (UTC+02:00)` in the given or the machine's time zone offset. */
export function formatLocal(time: number, offsetMinutes = -new Date(time).getTimezoneOffset()): string {
  const d = new Date(time + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const off = Math.abs(offsetMinutes);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} (UTC${sign}${pad(Math.floor(off / 60))}:${pad(off % 60)})`;
}

/** `2024-05-01 15:45`: the local date to the minute, in the given or the machine's time zone offset. */
export function formatShortLocal(time: number, offsetMinutes = -new Date(time).getTimezoneOffset()): string {
  const d = new Date(time + offsetMinutes * 60_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

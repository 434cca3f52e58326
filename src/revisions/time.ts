// Pure (no `vscode`): how revision dates are shown — relative ("3 days ago") in labels, exact
// (UTC and local) in tooltips and pickers.

const UNITS: [unit: string, ms: number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/**
 * "just now", "5 minutes ago", "3 days ago", "1 year ago": the largest unit reached, counted
 * down (59 minutes stay "59 minutes", 60 are "1 hour"). Under 45 seconds either way (clock skew)
 * is "just now"; a date further ahead says "in …".
 */
export function relativeTime(time: number | undefined, now: number): string {
  if (time === undefined || !Number.isFinite(time)) return 'unknown date';
  const diff = now - time;
  const abs = Math.abs(diff);
  if (abs < 45_000) return 'just now';
  let text = '1 minute';
  for (const [unit, ms] of UNITS) {
    if (abs >= ms) {
      const n = Math.floor(abs / ms);
      text = `${n} ${unit}${n === 1 ? '' : 's'}`;
      break;
    }
  }
  return diff >= 0 ? `${text} ago` : `in ${text}`;
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

// Pure (no `vscode`): the moment a site is shown as of, from what a person (or an agent) types.
//
// Time zones: the service's revision dates are UTC (src/core/model/ordering.ts); what a person
// types is read in this machine's time zone, the zone Site Changes counts its days in
// (src/core/search/siteChanges.ts), unless it ends with `UTC` (or `Z`). The language-model tools read
// every moment in UTC (`utc: true`), as they give every date.
//
// Forms (English words, any case):
//   2025-06-01 14:00   2025-06-01 14:00:30   2025-06-01T14:00   2025-06-01 (its start, 00:00)
//   2025-06-01 14:00 UTC
//   14:00 (today)   today   today 09:30   yesterday   yesterday 14:00
//   tuesday 14:00 (the latest Tuesday, today included)   last tuesday 14:00 (before today)
//   now   30 minutes ago   2 hours ago   2 days ago   2 days ago 14:00   1 week ago   3 months ago
// A day without a time is its start (00:00). "N days ago" keeps the clock time (or takes the one
// given). A moment more than a minute ahead of now is refused: the site "as of" then is its
// newest revisions, which the compare offers itself.
import { english, type Translate } from '../util/l10n';

export interface MomentOptions {
  /** The current time (epoch ms): a parameter so tests are exact. */
  now: number;
  /** Read in UTC instead of this machine's time zone (a trailing `UTC` or `Z` does it too). */
  utc?: boolean;
  t?: Translate;
}

export class MomentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MomentError';
  }
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const UNITS: Record<string, 'minute' | 'hour' | 'day' | 'week' | 'month'> = { minute: 'minute', min: 'minute', hour: 'hour', h: 'hour', day: 'day', d: 'day', week: 'week', w: 'week', month: 'month' };

/** Calendar arithmetic in local time or in UTC (DST-correct: JavaScript's Date does it). */
function calendar(utc: boolean) {
  const parts = (time: number) => {
    const d = new Date(time);
    return utc
      ? { y: d.getUTCFullYear(), m: d.getUTCMonth(), d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds(), wd: d.getUTCDay() }
      : { y: d.getFullYear(), m: d.getMonth(), d: d.getDate(), h: d.getHours(), mi: d.getMinutes(), s: d.getSeconds(), wd: d.getDay() };
  };
  /** The instant of a wall-clock time; `m` is 0-based and may overflow (Date carries it). */
  const at = (y: number, m: number, d: number, h = 0, mi = 0, s = 0) => (utc ? Date.UTC(y, m, d, h, mi, s) : new Date(y, m, d, h, mi, s).getTime());
  return { parts, at };
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
}

/**
 * The instant (epoch ms) `text` names, or a MomentError saying what is accepted. `now` is the
 * reference of the relative forms.
 */
export function parseMoment(text: string, o: MomentOptions): number {
  const t = o.t ?? english;
  const examples = t('Enter a date and time as YYYY-MM-DD HH:MM (e.g. {0}), or e.g. “yesterday 14:00”, “2 days ago”, “3 hours ago”.', momentText(o.now - 86_400_000, !!o.utc));
  let s = (typeof text === 'string' ? text : '').trim().toLowerCase().replace(/\s+/g, ' ');
  let utc = !!o.utc;
  const zone = / ?(utc|z)$/.exec(s);
  if (zone && /\d/.test(s)) {
    utc = true;
    s = s.slice(0, zone.index).trim();
  }
  if (!s) throw new MomentError(examples);
  const { parts, at } = calendar(utc);
  const now = parts(o.now);
  const bad = () => new MomentError(t('“{0}” is not a moment. {1}', text.trim(), examples));
  /** A clock time `HH:MM[:SS]` (undefined: none given), checked. */
  const clock = (h?: string, mi?: string, sec?: string): [number, number, number] | undefined => {
    if (h === undefined) return undefined;
    const v: [number, number, number] = [Number(h), Number(mi), Number(sec ?? 0)];
    if (v[0] > 23 || v[1] > 59 || v[2] > 59) throw new MomentError(t('“{0}” is not a time of day (00:00 to 23:59).', `${h}:${mi}${sec !== undefined ? `:${sec}` : ''}`));
    return v;
  };
  const TIME = '(?: (?:at )?(\\d{1,2}):(\\d{2})(?::(\\d{2}))?)?';
  let time: number;
  let m: RegExpExecArray | null;
  if (s === 'now') time = o.now;
  else if ((m = new RegExp(`^(\\d{4})-(\\d{1,2})-(\\d{1,2})(?:(?:t| )(\\d{1,2}):(\\d{2})(?::(\\d{2}))?)?$`).exec(s))) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo - 1)) throw new MomentError(t('{0} is not a day of the calendar.', `${m[1]}-${m[2]}-${m[3]}`));
    const c = clock(m[4], m[5], m[6]) ?? [0, 0, 0];
    time = at(y, mo - 1, d, ...c);
  } else if ((m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(s))) {
    time = at(now.y, now.m, now.d, ...clock(m[1], m[2], m[3])!);
  } else if ((m = new RegExp(`^(today|yesterday)${TIME}$`).exec(s))) {
    time = at(now.y, now.m, now.d - (m[1] === 'yesterday' ? 1 : 0), ...(clock(m[2], m[3], m[4]) ?? [0, 0, 0]));
  } else if ((m = new RegExp(`^(last )?(${WEEKDAYS.join('|')})${TIME}$`).exec(s))) {
    const c = clock(m[3], m[4], m[5]) ?? [0, 0, 0];
    let back = (now.wd - WEEKDAYS.indexOf(m[2]!) + 7) % 7;
    if (back === 0 && (m[1] || at(now.y, now.m, now.d, ...c) > o.now)) back = 7;
    time = at(now.y, now.m, now.d - back, ...c);
  } else if ((m = new RegExp(`^(\\d{1,5}) ?(${Object.keys(UNITS).join('|')})s? ago${TIME}$`).exec(s))) {
    const n = Number(m[1]);
    const unit = UNITS[m[2]!]!;
    const c = clock(m[3], m[4], m[5]);
    if (c && (unit === 'minute' || unit === 'hour')) throw bad();
    if (unit === 'minute' || unit === 'hour') time = o.now - n * (unit === 'minute' ? 60_000 : 3_600_000);
    else {
      let { y, m: mo, d } = now;
      if (unit === 'month') {
        mo -= n;
        y += Math.floor(mo / 12);
        mo = ((mo % 12) + 12) % 12;
        d = Math.min(d, daysInMonth(y, mo));
      } else d -= n * (unit === 'week' ? 7 : 1);
      time = at(y, mo, d, ...(c ?? [now.h, now.mi, now.s]));
    }
  } else throw bad();
  if (!Number.isFinite(time)) throw bad();
  if (time > o.now + 60_000) throw new MomentError(t('{0} is in the future: as of now, a site is its newest revisions.', momentText(time, utc)));
  return time;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** `2025-06-01 14:00` (`:SS` when not 0) in this machine's time zone, or in UTC. */
export function momentText(time: number, utc = false): string {
  const { parts } = calendar(utc);
  const p = parts(time);
  return `${pad(p.y, 4)}-${pad(p.m + 1)}-${pad(p.d)} ${pad(p.h)}:${pad(p.mi)}${p.s ? `:${pad(p.s)}` : ''}`;
}

/** This machine's time zone: `Europe/Berlin, UTC+02:00` at `time`. */
export function zoneText(time: number): string {
  let name = '';
  try {
    name = Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    // no Intl time zone data: the offset says enough
  }
  const off = -new Date(time).getTimezoneOffset();
  const offset = `UTC${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return name && name !== 'UTC' ? `${name}, ${offset}` : offset;
}

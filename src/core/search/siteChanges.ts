// Pure (no `vscode`): Site Changes — what changed on a site (or a folder of it) in a period,
// optionally by some authors, grouped by day → file → revisions, newest first, built file by
// file as a scan lists each file's revisions (no content needed).
//
// Time: revision dates are `YYYY-MM-DD HH:MM:SS` in UTC (src/core/model/ordering.ts); days, and
// so "today" and "last 7 days", are calendar days in the user's time zone, an IANA name such as
// "Europe/Berlin" (default: this process's zone), so that a change at 23:30 local time is under
// that day wherever UTC's midnight falls. Periods:
// - today: since local midnight;
// - last N days: today and the N−1 days before it (from local midnight N−1 days ago);
// - since a date: from local midnight of that day (`YYYY-MM-DD`).
// A period has no end: revisions dated after `now` (clocks differ) are in it.
//
// For "Open Changes", each file has a pair: its last revision before the period (any author;
// undefined = the file is new in the period) and its newest revision in the period (any author):
// the difference between them is what the period did to the file. Revisions whose date cannot
// be read cannot be placed in a day: they are left out and counted (`undated`).
import type { RevisionSummary } from '../api/types';
import { compareNewestFirst, parseRevisionDate } from '../model/ordering';
import { english, type Translate } from '../util/l10n';

export type Period =
  | { kind: 'today' }
  /** Today and the `days` − 1 calendar days before it (7 and 30 in the UI). */
  | { kind: 'days'; days: number }
  /** From the start of this local day, `YYYY-MM-DD`. */
  | { kind: 'since'; date: string };

export interface ChangesFilter {
  period: Period;
  /** Only revisions by these authors (compared without case and surrounding spaces); all when empty or absent. */
  authors?: readonly string[];
  /** The current time (epoch ms); a parameter so tests are exact. */
  now: number;
  /** IANA time zone of the days, e.g. "Europe/Berlin"; default the process's own. */
  timeZone?: string;
}

/** A revision as listed (no content), with its parsed time. */
export interface DatedRevision {
  id: string;
  date: string;
  author: string;
  /** Epoch ms. */
  time: number;
}

/** One file's part of one day. */
export interface DayFile {
  path: string;
  /** This file's revisions of that day that pass the filter, newest first. */
  revisions: DatedRevision[];
}

export interface ChangesDay {
  /** The local calendar day, `YYYY-MM-DD`. */
  day: string;
  /** Start of that day, epoch ms (for "today" / "yesterday" labels). */
  start: number;
  /** Files by their newest revision that day, newest first (then by path). */
  files: DayFile[];
}

/** One file over the whole period. */
export interface FileChanges {
  path: string;
  /** Its revisions in the period that pass the filter, newest first. */
  revisions: DatedRevision[];
  /** "Open Changes": the newest revision before the period (any author); undefined = new in the period. */
  before: DatedRevision | undefined;
  /** "Open Changes": the newest revision in the period (any author). */
  newest: DatedRevision;
}

export class ZoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZoneError';
  }
}

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Reads a `YYYY-MM-DD` day; undefined when it is not one (or names an impossible day). */
export function parseDay(text: string): { y: number; m: number; d: number } | undefined {
  const m = DAY_RE.exec(typeof text === 'string' ? text.trim() : '');
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  return { y, m: mo, d };
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/**
 * Calendar days in one time zone. Offsets are looked up per quarter hour and remembered, so
 * placing 100,000 revisions costs a few thousand `Intl` calls at most.
 */
export class Zone {
  readonly name: string;
  private readonly format: Intl.DateTimeFormat;
  private readonly offsets = new Map<number, number>();

  constructor(timeZone?: string, t: Translate = english) {
    try {
      this.format = new Intl.DateTimeFormat('en-US', {
        timeZone: timeZone || undefined,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new ZoneError(t('Unknown time zone: {0}', String(timeZone)));
    }
    this.name = this.format.resolvedOptions().timeZone;
  }

  /** Minutes to add to UTC for local time at `time` (e.g. +120 for Berlin in summer). */
  offsetMinutes(time: number): number {
    const key = Math.floor(time / 900_000);
    let off = this.offsets.get(key);
    if (off === undefined) {
      const p: Record<string, number> = {};
      for (const part of this.format.formatToParts(key * 900_000)) if (part.type !== 'literal') p[part.type] = Number(part.value);
      const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
      off = Math.round((asUtc - key * 900_000) / 60_000);
      this.offsets.set(key, off);
    }
    return off;
  }

  /** The local calendar day of `time`, `YYYY-MM-DD`. */
  dayOf(time: number): string {
    const d = new Date(time + this.offsetMinutes(time) * 60_000);
    return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  }

  /** The first instant (epoch ms) of a local calendar day (DST-safe: where midnight is skipped, the day's first hour). */
  startOf(day: { y: number; m: number; d: number }): number {
    const wall = Date.UTC(day.y, day.m - 1, day.d);
    let t = wall - this.offsetMinutes(wall) * 60_000;
    t = wall - this.offsetMinutes(t) * 60_000;
    const key = `${pad(day.y, 4)}-${pad(day.m)}-${pad(day.d)}`;
    // Where the offset changes around midnight the guess can land on either side of it.
    while (this.dayOf(t) < key) t += 900_000;
    while (this.dayOf(t - 900_000) === key) t -= 900_000;
    return t;
  }

  /** Start of the local day `days` days after the one holding `time` (negative: before). */
  startOfDay(time: number, days = 0): number {
    const d = new Date(time + this.offsetMinutes(time) * 60_000);
    const shifted = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days));
    return this.startOf({ y: shifted.getUTCFullYear(), m: shifted.getUTCMonth() + 1, d: shifted.getUTCDate() });
  }
}

export class PeriodError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PeriodError';
  }
}

/** The first instant (epoch ms) of the period. Throws PeriodError for a period that makes no sense. */
export function periodStart(period: Period, now: number, zone: Zone, t: Translate = english): number {
  switch (period?.kind) {
    case 'today':
      return zone.startOfDay(now);
    case 'days': {
      const n = period.days;
      if (!Number.isInteger(n) || n < 1 || n > 36_500) throw new PeriodError(t('The number of days must be a whole number from 1 to 36500.'));
      return zone.startOfDay(now, -(n - 1));
    }
    case 'since': {
      const day = parseDay(period.date);
      if (!day) throw new PeriodError(t('Enter a date as YYYY-MM-DD, e.g. {0}.', zone.dayOf(now)));
      return zone.startOf(day);
    }
    default:
      throw new PeriodError(t('Unknown period.'));
  }
}

function byNewest(a: DatedRevision, b: DatedRevision): number {
  return compareNewestFirst({ item: a, time: a.time }, { item: b, time: b.time });
}

function normalizeAuthor(a: string): string {
  return a.trim().toLowerCase();
}

/**
 * Collects Site Changes as the files' revision lists arrive (`add`), and gives the grouping at
 * any moment (`days`, `files`). Adding a file again replaces what it gave before.
 */
export class SiteChangesBuilder {
  readonly zone: Zone;
  /** First instant of the period (epoch ms). */
  readonly start: number;
  private readonly authorSet: ReadonlySet<string> | undefined;
  private readonly byFile = new Map<string, FileChanges>();
  private readonly authorsSeen = new Map<string, string>();
  /** Revisions whose date could not be read (not placed). */
  undated = 0;

  constructor(
    readonly filter: ChangesFilter,
    t: Translate = english,
  ) {
    this.zone = new Zone(filter.timeZone, t);
    this.start = periodStart(filter.period, filter.now, this.zone, t);
    const authors = (filter.authors ?? []).map(normalizeAuthor).filter((a) => a !== '');
    this.authorSet = authors.length ? new Set(authors) : undefined;
  }

  /**
   * Adds one file's revisions (any order, content ignored). Returns what the file contributes,
   * or undefined when it has no revision in the period that passes the filter.
   */
  add(path: string, revisions: readonly Pick<RevisionSummary, 'id' | 'date' | 'author'>[]): FileChanges | undefined {
    this.byFile.delete(path);
    let before: DatedRevision | undefined;
    let newest: DatedRevision | undefined;
    const shown: DatedRevision[] = [];
    const seen = new Set<string>();
    for (const r of revisions) {
      if (!r || typeof r.id !== 'string' || seen.has(r.id)) continue;
      seen.add(r.id);
      const time = parseRevisionDate(r.date);
      if (time === undefined) {
        this.undated++;
        continue;
      }
      const author = typeof r.author === 'string' ? r.author : '';
      const rev: DatedRevision = { id: r.id, date: r.date, author, time };
      if (time < this.start) {
        if (!before || byNewest(rev, before) < 0) before = rev;
        continue;
      }
      if (!newest || byNewest(rev, newest) < 0) newest = rev;
      const key = normalizeAuthor(author);
      if (!this.authorsSeen.has(key)) this.authorsSeen.set(key, author);
      if (this.authorSet && !this.authorSet.has(key)) continue;
      shown.push(rev);
    }
    if (!newest || !shown.length) return undefined;
    shown.sort(byNewest);
    const file: FileChanges = { path, revisions: shown, before, newest };
    this.byFile.set(path, file);
    return file;
  }

  /** Files with changes, by their newest shown revision, newest first (then by path). */
  files(): FileChanges[] {
    return [...this.byFile.values()].sort((a, b) => byNewest(a.revisions[0]!, b.revisions[0]!) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Days, newest first; in each, files by their newest revision that day; revisions newest first. */
  days(): ChangesDay[] {
    const days = new Map<string, Map<string, DatedRevision[]>>();
    for (const f of this.byFile.values()) {
      for (const r of f.revisions) {
        const day = this.zone.dayOf(r.time);
        let files = days.get(day);
        if (!files) days.set(day, (files = new Map()));
        let list = files.get(f.path);
        if (!list) files.set(f.path, (list = []));
        list.push(r); // already newest first
      }
    }
    return [...days.entries()]
      .sort((a, b) => (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0))
      .map(([day, files]) => ({
        day,
        start: this.zone.startOf(parseDay(day)!),
        files: [...files.entries()]
          .map(([path, revisions]) => ({ path, revisions }))
          .sort((a, b) => byNewest(a.revisions[0]!, b.revisions[0]!) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      }));
  }

  /** Everyone who changed a file in the period (before the author filter), for a picker; sorted. */
  authors(): string[] {
    return [...this.authorsSeen.values()].sort((a, b) => a.localeCompare(b));
  }

  /** Revisions in the period that pass the filter. */
  get revisionCount(): number {
    let n = 0;
    for (const f of this.byFile.values()) n += f.revisions.length;
    return n;
  }
}

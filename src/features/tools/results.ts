// Pure (no `vscode`): what the language-model tools return to an agent, and how their input is
// read. Results are one line of plain text that says what the data is, then JSON: server strings
// stay data (quoted), never instructions or markup, and an agent can read every field exactly.
// Nothing here ever carries a secret: sites are reduced to a fixed list of non-secret fields.
import type { Site } from '../../core/api/types';
import { withoutSiteUserinfo } from '../../core/api/userinfo';
import type { Period } from '../../core/search';

/** Caps (an agent's context is small; a tool result must not flood it). */
export const LIMITS = {
  files: { default: 200, max: 2000 },
  revisions: { default: 50, max: 500 },
  contentChars: { default: 20_000, max: 200_000 },
  /** Files with matching revisions in a history search's result. */
  searchFiles: { default: 50, max: 500 },
  /** Changed files in a Site Changes result. */
  changedFiles: { default: 100, max: 1000 },
  /** Files of a site as of a moment, and of each list of a compare of two sites. */
  asOfFiles: { default: 200, max: 2000 },
  /** Revisions listed per file in a search or changes result. */
  hitsPerFile: 20,
  revisionsPerFile: 20,
  /** Files listed per group of a folder's status. */
  statusFiles: { default: 100, max: 1000 },
  /** Revisions in a line history. */
  lineHistory: { default: 20, max: 200 },
  /** Lines of one revision quoted in a line history (its range may be longer). */
  linesPerRevision: 200,
} as const;

/**
 * The fields of a site an agent gets: never `ftp_pass`, `db_password` or any other field, and
 * the host and web URL without user:password@ (as the Sites view and the disk cache have them).
 */
export interface SiteSummary {
  id: string;
  name: string;
  serverType: string;
  host: string;
  directory: string;
  webUrl: string;
  shared: boolean;
}

export function siteSummary(full: Site): SiteSummary {
  const site = withoutSiteUserinfo(full);
  return {
    id: site.id,
    name: site.name,
    serverType: site.server_type || 'None',
    host: site.domain,
    directory: site.dir,
    webUrl: site.web_url,
    shared: site.shared,
  };
}

/** A whole number from the input within [1, max], or the default. */
export function limitOf(value: unknown, cap: { default: number; max: number }): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) return cap.default;
  return Math.min(cap.max, Math.max(1, Math.floor(n)));
}

/** A non-empty trimmed string from the input, or undefined. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export class ToolInputError extends Error {}

/**
 * The site an agent names: by id, else by name (exact, ignoring case), else the one site whose
 * name contains the text. Ambiguity and absence are errors that list what to use instead.
 */
export function findSite(sites: readonly Site[], ref: string): Site {
  const byId = sites.find((s) => s.id === ref);
  if (byId) return byId;
  const lower = ref.toLowerCase();
  const exact = sites.filter((s) => s.name.toLowerCase() === lower);
  if (exact.length === 1) return exact[0]!;
  const partial = exact.length > 1 ? exact : sites.filter((s) => s.name.toLowerCase().includes(lower));
  if (partial.length === 1) return partial[0]!;
  const candidates = (partial.length ? partial : sites).slice(0, 20).map((s) => ({ id: s.id, name: s.name }));
  throw new ToolInputError(
    partial.length > 1
      ? `Several sites match ${JSON.stringify(ref)}; call again with one of these ids: ${JSON.stringify(candidates)}`
      : `No site matches ${JSON.stringify(ref)}. Sites (id and name): ${JSON.stringify(candidates)}${sites.length > 20 ? ` and ${sites.length - 20} more` : ''}`,
  );
}

/** One line saying what follows, then the data as JSON. */
export function result(summary: string, data: unknown): string {
  return `${summary}\n${JSON.stringify(data)}`;
}

/**
 * At most `max` characters of a revision's content, cut on a line boundary when one is near, and
 * whether it was cut (the result says so: an agent must not take a prefix for the whole file).
 */
export function capContent(content: string, max: number): { text: string; truncated: boolean } {
  if (content.length <= max) return { text: content, truncated: false };
  let cut = content.lastIndexOf('\n', max);
  if (cut < max * 0.8) cut = max;
  // Never split a surrogate pair.
  const code = content.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return { text: content.slice(0, cut), truncated: true };
}

/** A folder an agent names (`wp-content/themes/`, `/docs`) as the scan's folder key; undefined = the whole site. */
export function folderOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const f = value.trim().replace(/^\/+|\/+$/g, '');
  return f === '' ? undefined : f;
}

/** The period an agent asks for: today, last7days (default), last30days, or since a YYYY-MM-DD date. */
export function periodOf(period: unknown, since: unknown): Period {
  const p = typeof period === 'string' ? period.trim().toLowerCase() : '';
  if (p === 'today') return { kind: 'today' };
  if (p === 'last30days') return { kind: 'days', days: 30 };
  if (p === 'since' || (p === '' && typeof since === 'string' && since.trim())) {
    const date = typeof since === 'string' ? since.trim() : '';
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new ToolInputError('With period "since", give the first day as "since" in the form YYYY-MM-DD.');
    return { kind: 'since', date };
  }
  if (p === '' || p === 'last7days') return { kind: 'days', days: 7 };
  throw new ToolInputError('"period" is one of: today, last7days, last30days, since (with "since": YYYY-MM-DD).');
}

// ---- Each tool's input, read once: what VS Code's preparation (the confirmation) and the
// invocation (the run) both work from, so that what is asked is what runs.

/** What a history scan reads: one file by its exact path, or a folder (undefined: the whole site). */
export type ScanScope = { file: string; folder?: undefined } | { file?: undefined; folder: string | undefined };

export interface ListSitesInput {
  filter: string | undefined;
}
export interface ListFilesInput {
  site: string | undefined;
  pathPrefix: string | undefined;
  limit: number;
}
export interface ListRevisionsInput {
  site: string | undefined;
  path: string | undefined;
  limit: number;
}
export interface GetRevisionInput {
  site: string | undefined;
  revisionId: string | undefined;
  path: string | undefined;
  maxChars: number;
}
export interface SearchHistoryInput {
  site: string | undefined;
  scope: ScanScope;
  pattern: string;
  isRegExp: boolean;
  matchCase: boolean;
  wholeWord: boolean;
  mode: 'contains' | 'changes';
  limit: number;
}
export interface SiteChangesInput {
  site: string | undefined;
  scope: ScanScope;
  period: unknown;
  since: unknown;
  authors: string[];
  limit: number;
}

export interface SiteAsOfInput {
  site: string | undefined;
  scope: { folder: string | undefined };
  /** As the agent wrote it (read in UTC by the tool); undefined when not given. */
  moment: string | undefined;
  limit: number;
}
export interface CompareSitesInput {
  site: string | undefined;
  other: string | undefined;
  scope: { folder: string | undefined };
  otherScope: { folder: string | undefined };
  /** Both sites as of this moment; undefined: their newest revisions. */
  moment: string | undefined;
  limit: number;
}

type Raw = Record<string, unknown>;
const raw = (input: unknown): Raw => (input && typeof input === 'object' && !Array.isArray(input) ? (input as Raw) : {});
/** A path as the agent gave it (paths are exact: not trimmed); undefined unless a non-empty string. */
const pathOf = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function listSitesInput(input: unknown): ListSitesInput {
  return { filter: textOf(raw(input).filter)?.toLowerCase() };
}

export function listFilesInput(input: unknown): ListFilesInput {
  const r = raw(input);
  return { site: textOf(r.site), pathPrefix: textOf(r.pathPrefix)?.replace(/^\/+/, ''), limit: limitOf(r.limit, LIMITS.files) };
}

export function listRevisionsInput(input: unknown): ListRevisionsInput {
  const r = raw(input);
  return { site: textOf(r.site), path: pathOf(r.path), limit: limitOf(r.limit, LIMITS.revisions) };
}

export function getRevisionInput(input: unknown): GetRevisionInput {
  const r = raw(input);
  return { site: textOf(r.site), revisionId: textOf(r.revisionId), path: pathOf(r.path), maxChars: limitOf(r.maxChars, LIMITS.contentChars) };
}

/**
 * A history search's input. `path` narrows it to one file only when it is a non-empty string;
 * anything else (`""`, a number, null) leaves the folder, or the whole site, to be scanned.
 */
export function searchHistoryInput(input: unknown): SearchHistoryInput {
  const r = raw(input);
  const file = pathOf(r.path);
  return {
    site: textOf(r.site),
    scope: file !== undefined ? { file } : { folder: folderOf(r.folder) },
    pattern: typeof r.query === 'string' ? r.query : '',
    isRegExp: r.isRegExp === true,
    matchCase: r.matchCase === true,
    wholeWord: r.wholeWord === true,
    mode: r.mode === 'contains' ? 'contains' : 'changes',
    limit: limitOf(r.limit, LIMITS.searchFiles),
  };
}

/** Site Changes' input. It has no `path`: whatever an agent passes there, the scope is the folder or the whole site. */
export function siteChangesInput(input: unknown): SiteChangesInput {
  const r = raw(input);
  const authors = Array.isArray(r.authors) ? r.authors.filter((a): a is string => typeof a === 'string' && a.trim() !== '') : typeof r.authors === 'string' && r.authors.trim() ? [r.authors] : [];
  return { site: textOf(r.site), scope: { folder: folderOf(r.folder) }, period: r.period, since: r.since, authors, limit: limitOf(r.limit, LIMITS.changedFiles) };
}

export interface FolderStatusInput {
  /** A mapped folder, or a file or folder inside it, as the agent gave it. */
  folder: string | undefined;
  site: string | undefined;
  limit: number;
}

export function folderStatusInput(input: unknown): FolderStatusInput {
  const r = raw(input);
  return { folder: pathOf(r.folder), site: textOf(r.site), limit: limitOf(r.limit, LIMITS.statusFiles) };
}

export interface LineHistoryInput {
  /** A working file (with no `site`), or the file's path on the site (with `site`). */
  path: string | undefined;
  site: string | undefined;
  /** With `site`: the revision whose lines are meant (default: the newest). */
  revisionId: string | undefined;
  /** 1-based, inclusive; undefined when not a whole number ≥ 1. */
  startLine: number | undefined;
  endLine: number | undefined;
  limit: number;
}

/** A 1-based line number from the input, or undefined. */
function lineOf(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** Line history's input: `endLine` defaults to `startLine`; a range given backwards is turned round. */
export function lineHistoryInput(input: unknown): LineHistoryInput {
  const r = raw(input);
  const a = lineOf(r.startLine);
  const b = lineOf(r.endLine) ?? a;
  const [startLine, endLine] = a !== undefined && b !== undefined && b < a ? [b, a] : [a, b];
  return { path: pathOf(r.path), site: textOf(r.site), revisionId: textOf(r.revisionId), startLine, endLine, limit: limitOf(r.limit, LIMITS.lineHistory) };
}

/** A site as of a moment: the site, a folder (none: the whole site), the moment. */
export function siteAsOfInput(input: unknown): SiteAsOfInput {
  const r = raw(input);
  return { site: textOf(r.site), scope: { folder: folderOf(r.folder) }, moment: textOf(r.moment), limit: limitOf(r.limit, LIMITS.asOfFiles) };
}

/** Two sites compared: each with its folder; both by their newest revisions, or as of one moment. */
export function compareSitesInput(input: unknown): CompareSitesInput {
  const r = raw(input);
  return { site: textOf(r.site), other: textOf(r.otherSite), scope: { folder: folderOf(r.folder) }, otherScope: { folder: folderOf(r.otherFolder) }, moment: textOf(r.moment), limit: limitOf(r.limit, LIMITS.asOfFiles) };
}

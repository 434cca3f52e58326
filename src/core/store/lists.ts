// What the disk store keeps of the three lists, and how it reads them back (plain Node).
//
// Sites are cut down to an allow-list BEFORE anything reaches the disk: every field the spec
// describes except the secret ones (SITE_SECRET_FIELDS: `ftp_pass`, `db_password`); fields the
// service may add later are dropped unless they are added here; `save_password` is kept only as
// a 0/1 flag; and user:password@ is removed from the fields that hold URLs (a token in a git URL
// is a password too). Reading is tolerant: an odd entry costs that entry, not the list.
import { SITE_SECRET_FIELDS, SITE_STRING_FIELDS, type Site, type SiteSecretField, type SiteStringField } from '../api/types';
import { SITE_URL_FIELDS, withoutUserinfo } from '../api/userinfo';

/** A site as the disk store keeps it: no secret field. */
export type CachedSite = Omit<Site, SiteSecretField>;

/** A revision as listed (no content). */
export interface CachedRevision {
  id: string;
  date: string;
  author: string;
}

const SECRET: ReadonlySet<string> = new Set(SITE_SECRET_FIELDS);

/** The string fields a cached site keeps (the allow-list). */
export const CACHED_SITE_FIELDS: readonly Exclude<SiteStringField, SiteSecretField>[] = SITE_STRING_FIELDS.filter(
  (f): f is Exclude<SiteStringField, SiteSecretField> => !SECRET.has(f),
);

/** Fields that hold URLs or hosts: their user:password@ part is never stored. */
const URL_FIELDS: ReadonlySet<string> = new Set(SITE_URL_FIELDS);

/** Flags whose name suggests a secret: kept only as 0, 1 or empty. */
const FLAG_ONLY: ReadonlySet<string> = new Set(['save_password']);

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  return undefined;
}

/** The site as it may be stored: allow-listed fields as strings, `shared` as a boolean; undefined without an id. */
export function cachedSite(v: unknown): CachedSite | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  const id = text(r.id);
  if (!id) return undefined;
  const out = {} as Record<string, string | boolean>;
  for (const f of CACHED_SITE_FIELDS) {
    let s = text(r[f]) ?? '';
    if (URL_FIELDS.has(f)) s = withoutUserinfo(s);
    else if (FLAG_ONLY.has(f) && s !== '0' && s !== '1') s = '';
    out[f] = s;
  }
  out.shared = r.shared === true || r.shared === 1 || r.shared === '1' || r.shared === 'true';
  return out as unknown as CachedSite;
}

/** Every site that can be kept, in order. */
export function cachedSites(list: unknown): CachedSite[] {
  if (!Array.isArray(list)) return [];
  const out: CachedSite[] = [];
  for (const v of list) {
    const s = cachedSite(v);
    if (s) out.push(s);
  }
  return out;
}

/** File paths: the non-empty strings, in order. */
export function cachedFiles(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  // The common case (every entry a non-empty string) keeps the array as it is.
  let ok = true;
  for (let i = 0; i < list.length; i++) {
    const p: unknown = list[i];
    if (typeof p !== 'string' || p === '') {
      ok = false;
      break;
    }
  }
  return ok ? (list as string[]) : list.filter((p): p is string => typeof p === 'string' && p !== '');
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A file list as stored. One path per line after a `F1` line: parsed about four times faster than
 * a JSON array of 100,000 paths. A list with a path that holds a line break or an unpaired
 * surrogate (which UTF-8 cannot carry) is stored as JSON instead; decodeFiles() reads both.
 */
export function encodeFiles(paths: readonly string[]): string {
  for (const p of paths) if (p.includes('\n') || LONE_SURROGATE.test(p)) return JSON.stringify(paths);
  return `F1\n${paths.join('\n')}`;
}

/** The paths of a stored file list (either form); tolerant like cachedFiles(). */
export function decodeFiles(text: string): string[] {
  if (text.startsWith('F1\n')) return cachedFiles(text.length > 3 ? text.slice(3).split('\n') : []);
  return cachedFiles(JSON.parse(text));
}

/** Revisions without content: entries with an id; date and author as strings ('' when odd). */
export function cachedRevisions(list: unknown): CachedRevision[] {
  if (!Array.isArray(list)) return [];
  const out: CachedRevision[] = [];
  for (const v of list) {
    if (!v || typeof v !== 'object') continue;
    const r = v as Record<string, unknown>;
    const id = text(r.id);
    if (!id) continue;
    out.push({ id, date: text(r.date) ?? '', author: text(r.author) ?? '' });
  }
  return out;
}

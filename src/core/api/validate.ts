// Runtime validation of the service's replies into the typed model of ./types.ts.
// Pure functions: no I/O, no vscode. Every problem becomes an InvalidReplyError whose message
// names the offending field and carries a short, sanitized excerpt (never a secret).

import { AuthError, InvalidReplyError, ServiceError } from './errors';
import { SITE_SECRET_FIELDS, type ListIssues, type ListReply, type Revision, type RevisionSummary, type SaveSiteResult, type Site, type SiteStringField } from './types';
import { hiddenKeys, hideDumpedSecrets, hideSecretFields, noRedaction, type Redactor } from '../util/redact';

// Redaction itself is src/core/util/redact.ts (shared with the log); the validators take a Redactor.
export { noRedaction, type Redactor };

/** At most `max` characters of `text`, control characters replaced, whitespace collapsed, secrets hidden. */
export function excerpt(text: string, redact: Redactor = noRedaction, max = 120, hideKeyValues = true): string {
  // Work on a bounded prefix: replies may be megabytes long.
  let t = text.slice(0, max * 4);
  t = t.replace(/^\uFEFF/, '');
  // JSON escapes read as what they stand for first, so that `"ftp\u005fpass"` is seen as the
  // field it is (text that is not JSON; a JSON body is excerpted from its value: bodyExcerpt).
  if (hideKeyValues) t = hideSecretFields(t.replace(/\\u([0-9a-fA-F]{4})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))));
  // The service's own words (`key=value` there may be prose) still lose a PHP dump's secrets.
  else t = hideDumpedSecrets(t);
  t = redact(t);
  // Bidirectional controls (U+202E…) could make a message read differently from what it says.
  t = t.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
  t = t.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').replace(/\s+/g, ' ').trim();
  if (t.length > max || text.length > max * 4) t = `${t.slice(0, max).trimEnd()}…`;
  return t;
}

/**
 * An excerpt of a reply's body: of its parsed JSON value with the fields whose names say they
 * hold a secret left out (names compared after JSON decoding: `"ftp\u005fpass"` is `ftp_pass`,
 * which a look at the raw text would miss), or, when the body is not JSON (or is cut off), of its
 * text with secret-looking fields hidden.
 */
export function bodyExcerpt(text: string, redact: Redactor = noRedaction, max = 120): string {
  const json = parseJson(text);
  return json.ok ? valueExcerpt(json.value, redact, false, max) : excerpt(text, redact, max);
}

/** `text` parsed as JSON (a leading BOM allowed). */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) };
  } catch {
    return { ok: false };
  }
}

/**
 * Whether a `{success:false, error}` message means "not signed in / bad credentials" rather than a
 * failure of the operation itself.
 */
export const AUTH_MESSAGE =
  /invalid (e-?mail|password|api[ _-]?key|login|credentials|token)|(wrong|incorrect|bad) (e-?mail|password|api[ _-]?key|credentials)|not (logged|signed) in|log ?in (failed|required)|sign ?in required|authentication (failed|required)|unauthori[sz]ed|api[ _-]?key (is )?required|session (has )?expired/i;

function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'text';
  return `a ${typeof value}`;
}

function valueExcerpt(value: unknown, redact: Redactor, secret = false, max = 60): string {
  if (secret) return '';
  return excerpt(preview(value, max * 4), redact, max);
}

/**
 * JSON text of `value`, cut after about `limit` characters, without the fields whose names say
 * they hold a secret, and the values beside a field that names one (hiddenKeys). Unlike JSON.stringify / String it never walks more of the
 * value than it shows: a reply can nest arrays 100,000 deep (which makes both throw RangeError)
 * or hold megabytes.
 */
function preview(value: unknown, limit: number): string {
  let out = '';
  // Each helper returns true once the text is long enough (stop).
  const add = (s: string): boolean => (out += s).length > limit;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return add(JSON.stringify(v.length > limit ? v.slice(0, limit) : v));
    if (v === null || typeof v !== 'object') return add(typeof v === 'number' && !Number.isFinite(v) ? 'null' : String(v));
    if (Array.isArray(v)) {
      if (add('[')) return true;
      for (let i = 0; i < v.length; i++) if ((i > 0 && add(',')) || walk(v[i])) return true;
      return add(']');
    }
    if (add('{')) return true;
    let first = true;
    const hidden = hiddenKeys(v as Record<string, unknown>);
    for (const k of Object.keys(v)) {
      if (hidden(k)) continue;
      if ((!first && add(',')) || add(`${JSON.stringify(k.length > limit ? k.slice(0, limit) : k)}:`) || walk((v as Record<string, unknown>)[k])) return true;
      first = false;
    }
    return add('}');
  };
  walk(value);
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The field each read answers with, as the spec shows it (see parseEnvelope). */
export const READ_PAYLOADS = { getSites: 'sites', getRevisionFiles: 'files', getRevisions: 'revisions', getRevision: 'content' } as const;

/** `success` values that mean yes: `true`, `1`, `"1"`, `"true"` (any case, trimmed). */
export function isTrueLike(v: unknown): boolean {
  if (v === true || v === 1) return true;
  return typeof v === 'string' && /^\s*(1|true)\s*$/i.test(v);
}

/** `success` values that mean no: `false`, `0`, `"0"`, `"false"` (any case, trimmed). */
export function isFalseLike(v: unknown): boolean {
  if (v === false || v === 0) return true;
  return typeof v === 'string' && /^\s*(0|false)\s*$/i.test(v);
}

/** The service's own error: AuthError when it says the credentials were refused, else ServiceError. */
function serviceFailure(operation: string, json: Record<string, unknown>, redact: Redactor): never {
  const raw = json.error ?? json.message;
  const message = typeof raw === 'string' && raw.trim() !== '' ? excerpt(raw, redact, 200, false) : 'no reason given';
  if (AUTH_MESSAGE.test(message)) throw new AuthError(operation, message);
  throw new ServiceError(operation, message);
}

/**
 * Parses a 2xx body and checks the envelope.
 *
 * `payload` names the field a read answers with (`sites`, `files`, `revisions`, `content`); it is
 * undefined for a write. The spec shows the four reads without `success` and the two writes with
 * it, and the real service adds it to every reply, so:
 * - a false-like `success` (`false`, `0`, `"0"`, `"false"`) is the service's error (AuthError when
 *   it says the credentials were refused, else ServiceError), for reads and writes;
 * - a write needs a true-like `success` (`true`, `1`, `"1"`, `"true"`): without one nothing says
 *   the change was made;
 * - a read with a true-like or no `success` goes on to its payload check, except that a read
 *   without `success` that has an `error` and no payload is the service's error;
 * - any other `success` value is an unexpected reply.
 */
export function parseEnvelope(operation: string, body: string, contentType: string | undefined, redact: Redactor, payload?: string): Record<string, unknown> {
  const text = body.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new InvalidReplyError(operation, 'empty reply', '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const ct = contentType ? contentType.split(';')[0]!.trim().toLowerCase() : '';
    const problem = ct && ct !== 'application/json' ? `not JSON but ${excerpt(ct, redact, 40)}` : 'not valid JSON, possibly cut off';
    throw new InvalidReplyError(operation, problem, excerpt(text, redact));
  }
  // Excerpts of the parsed value, without its secret fields.
  const shown = () => valueExcerpt(json, redact, false, 120);
  if (!isObject(json)) throw new InvalidReplyError(operation, `expected a JSON object, got ${describeValue(json)}`, shown());
  if ('success' in json) {
    const s = json.success;
    if (isTrueLike(s)) return json;
    if (isFalseLike(s)) serviceFailure(operation, json, redact);
    throw new InvalidReplyError(operation, `"success" is ${describeValue(s)}, not true or false`, shown());
  }
  if (payload === undefined) throw new InvalidReplyError(operation, 'no "success" field', shown());
  if (json[payload] === undefined && json.error !== undefined) serviceFailure(operation, json, redact);
  return json;
}

/** Strict: a value of a field the extension uses. Objects and lists make the entry unusable. */
function toSiteString(operation: string, path: string, value: unknown, redact: Redactor, secret: boolean): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  throw new InvalidReplyError(operation, `${path} is ${describeValue(value)}, expected text`, valueExcerpt(value, redact, secret));
}

function toShared(operation: string, path: string, value: unknown, redact: Redactor): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (value === true || value === 1) return true;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === '1' || v === 'true') return true;
    if (v === '0' || v === 'false') return false;
  }
  throw new InvalidReplyError(operation, `${path} is ${describeValue(value)}, expected true or false`, valueExcerpt(value, redact));
}

function toId(operation: string, path: string, value: unknown, redact: Redactor): string {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new InvalidReplyError(operation, `${path} is ${value === '' ? 'empty' : describeValue(value)}, expected an id`, valueExcerpt(value, redact));
}

function listField(operation: string, json: Record<string, unknown>, field: string, redact: Redactor): unknown[] {
  const list = json[field];
  if (!Array.isArray(list)) {
    throw new InvalidReplyError(operation, list === undefined ? `no "${field}" list` : `"${field}" is ${describeValue(list)}, expected a list`, valueExcerpt(list, redact));
  }
  return list;
}

/** Problems and dropped fields kept in ListIssues (the count of skipped entries is exact). */
const MAX_ISSUE_TEXTS = 20;

/** What one list read collects while it validates its entries. */
class IssueCollector {
  private issues: ListIssues | undefined;

  private get(): ListIssues {
    return (this.issues ??= { skipped: 0, problems: [], dropped: [] });
  }

  /** An entry left out: `e` is the InvalidReplyError that names its field. */
  skip(e: unknown): void {
    if (!(e instanceof InvalidReplyError)) throw e;
    const issues = this.get();
    issues.skipped++;
    if (issues.problems.length < MAX_ISSUE_TEXTS) issues.problems.push(e.excerpt ? `${e.problem}: ${e.excerpt}` : e.problem);
  }

  /** A value of a field the extension does not use, dropped: `path` names it (never the value). */
  drop(path: string): void {
    const issues = this.get();
    if (issues.dropped.length < MAX_ISSUE_TEXTS) issues.dropped.push(path);
  }

  /** The list, with `issues` attached (non-enumerable) when there were any. */
  finish<T>(items: T[]): ListReply<T> {
    if (this.issues) Object.defineProperty(items, 'issues', { value: this.issues, enumerable: false });
    return items;
  }
}

const SECRET_SITE_FIELDS: ReadonlySet<string> = new Set(SITE_SECRET_FIELDS);

/** The state of one Get Sites validation, passed to the field readers (no closure per site). */
interface SiteContext {
  operation: string;
  redact: Redactor;
  issues: IssueCollector;
  /** The index of the site being read. */
  i: number;
}

/** A field the extension uses (shown, edited or sent back): anything but text, a number, a boolean or null makes the site unusable. */
function used(c: SiteContext, value: unknown, field: SiteStringField): string {
  return typeof value === 'string' ? value : toSiteString(c.operation, `sites[${c.i}].${field}`, value, c.redact, SECRET_SITE_FIELDS.has(field));
}

/** A field the extension does not use: numbers and booleans become text, null or missing ''; anything else is dropped (''), and named in `issues.dropped`. */
function kept(c: SiteContext, value: unknown, field: SiteStringField): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  c.issues.drop(`sites[${c.i}].${field}`);
  return '';
}

/**
 * Get Sites: `{sites: Site[]}`. Numbers and booleans become strings, null or missing becomes '',
 * extra fields are dropped. Strict only where the extension relies on a value — the id, `shared`,
 * and the fields it shows, edits or sends back on save (`used`): a site with an object or a list
 * there is left out and counted in `issues`, and the rest of the list loads. In the fields it does
 * not use (`kept`) such a value is dropped and named in `issues.dropped`.
 *
 * Written out field by field, in the spec's order (the order the checks run in): an object literal
 * of fixed shape with named reads is about ten times faster than a loop over SITE_STRING_FIELDS
 * with computed keys, and the type checker still insists on every field of `Site` and no other.
 * The readers are plain functions given one context object (no closure made per site), and field
 * paths for messages (`sites[3].port`) are only built when a value is not text.
 */
export function toSites(operation: string, json: Record<string, unknown>, redact: Redactor): ListReply<Site> {
  const list = listField(operation, json, 'sites', redact);
  const issues = new IssueCollector();
  const c: SiteContext = { operation, redact, issues, i: 0 };
  const sites: Site[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    c.i = i;
    try {
      // Never excerpt a whole site: it holds the site's passwords.
      if (!isObject(item)) throw new InvalidReplyError(operation, `sites[${i}] is ${describeValue(item)}, expected an object`, '');
      sites.push(toSite(c, item));
    } catch (e) {
      issues.skip(e);
    }
  }
  return issues.finish(sites);
}

function toSite(c: SiteContext, item: Record<string, unknown>): Site {
  const { id, shared } = item;
  return {
    id: typeof id === 'string' && id.trim() !== '' ? id : toId(c.operation, `sites[${c.i}].id`, id, c.redact),
    user: kept(c, item.user, 'user'),
    name: used(c, item.name, 'name'),
    server_type: used(c, item.server_type, 'server_type'),
    domain: used(c, item.domain, 'domain'),
    logon_type: used(c, item.logon_type, 'logon_type'),
    ftp_user: used(c, item.ftp_user, 'ftp_user'),
    ftp_pass: used(c, item.ftp_pass, 'ftp_pass'),
    dir: used(c, item.dir, 'dir'),
    dir_id: kept(c, item.dir_id, 'dir_id'),
    port: used(c, item.port, 'port'),
    pasv: used(c, item.pasv, 'pasv'),
    encryption: used(c, item.encryption, 'encryption'),
    s3_public: used(c, item.s3_public, 's3_public'),
    check_out: used(c, item.check_out, 'check_out'),
    encoding: used(c, item.encoding, 'encoding'),
    web_url: used(c, item.web_url, 'web_url'),
    db_username: used(c, item.db_username, 'db_username'),
    db_password: used(c, item.db_password, 'db_password'),
    db_phpmyadmin: used(c, item.db_phpmyadmin, 'db_phpmyadmin'),
    save_password: kept(c, item.save_password, 'save_password'),
    timeout: kept(c, item.timeout, 'timeout'),
    upload_on_save: kept(c, item.upload_on_save, 'upload_on_save'),
    turbo: kept(c, item.turbo, 'turbo'),
    revisions: kept(c, item.revisions, 'revisions'),
    ac_wordpress: kept(c, item.ac_wordpress, 'ac_wordpress'),
    ac_bootstrap: kept(c, item.ac_bootstrap, 'ac_bootstrap'),
    ac_custom: kept(c, item.ac_custom, 'ac_custom'),
    stack: kept(c, item.stack, 'stack'),
    container_id: kept(c, item.container_id, 'container_id'),
    status: kept(c, item.status, 'status'),
    status_key: kept(c, item.status_key, 'status_key'),
    git_url: kept(c, item.git_url, 'git_url'),
    shared: typeof shared === 'boolean' ? shared : toShared(c.operation, `sites[${c.i}].shared`, shared, c.redact),
  };
}

/** Get Revision Files: `{files: string[]}`. An entry that is not text is left out (counted in `issues`). */
export function toFiles(operation: string, json: Record<string, unknown>, redact: Redactor): ListReply<string> {
  const list = listField(operation, json, 'files', redact);
  const issues = new IssueCollector();
  const files: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const f = list[i];
    if (typeof f === 'string') files.push(f);
    else issues.skip(new InvalidReplyError(operation, `files[${i}] is ${describeValue(f)}, expected a path`, valueExcerpt(f, redact)));
  }
  return issues.finish(files);
}

/**
 * Get Revisions: `{revisions: [{id, date, author, content?}]}`. Content is kept when present. A
 * revision without a usable id or date (text), or with an author that is not text, a number or
 * null, is left out and counted in `issues`; content that is not text is dropped (the revision is
 * fetched with Get Revision when opened).
 */
export function toRevisions(operation: string, json: Record<string, unknown>, redact: Redactor): ListReply<RevisionSummary> {
  const list = listField(operation, json, 'revisions', redact);
  const issues = new IssueCollector();
  const out: RevisionSummary[] = [];
  for (let i = 0; i < list.length; i++) {
    try {
      out.push(toRevisionSummary(operation, i, list[i], redact, issues));
    } catch (e) {
      issues.skip(e);
    }
  }
  return issues.finish(out);
}

function toRevisionSummary(operation: string, i: number, item: unknown, redact: Redactor, issues: IssueCollector): RevisionSummary {
  const path = `revisions[${i}]`;
  if (!isObject(item)) throw new InvalidReplyError(operation, `${path} is ${describeValue(item)}, expected an object`, '');
  const id = toId(operation, `${path}.id`, item.id, redact);
  if (typeof item.date !== 'string') {
    throw new InvalidReplyError(operation, `${path}.date is ${describeValue(item.date)}, expected a date`, valueExcerpt(item.date, redact));
  }
  let author = '';
  if (typeof item.author === 'string') author = item.author;
  else if (typeof item.author === 'number') author = String(item.author);
  else if (item.author !== undefined && item.author !== null) {
    throw new InvalidReplyError(operation, `${path}.author is ${describeValue(item.author)}, expected text`, valueExcerpt(item.author, redact));
  }
  const rev: RevisionSummary = { id, date: item.date, author };
  if (typeof item.content === 'string') rev.content = item.content;
  else if (item.content !== undefined && item.content !== null) issues.drop(`${path}.content`);
  return rev;
}

/** Get Revision: `{id, content}`. */
export function toRevision(operation: string, json: Record<string, unknown>, redact: Redactor): Revision {
  const id = toId(operation, 'id', json.id, redact);
  if (typeof json.content !== 'string') {
    throw new InvalidReplyError(operation, json.content === undefined ? 'no "content"' : `"content" is ${describeValue(json.content)}, expected text`, '');
  }
  return { id, content: json.content };
}

/** Save Site: `{site: <int or string>}`; when `site` is absent the fallback id is used ('' on create). */
export function toSaveResult(operation: string, json: Record<string, unknown>, fallbackId: string, redact: Redactor): SaveSiteResult {
  if (json.site === undefined || json.site === null) return { siteId: fallbackId };
  return { siteId: toId(operation, 'site', json.site, redact) };
}

/**
 * Parses a Retry-After header: delay-seconds or an HTTP date. Returns milliseconds from `now`
 * (never negative), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date names its weekday and month; anything else (e.g. "-3") is unreadable.
  if (!/^[a-z]{3},? /i.test(v)) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now);
}

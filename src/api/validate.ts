// Runtime validation of the service's replies into the typed model of ./types.ts.
// Pure functions: no I/O, no vscode. Every problem becomes an InvalidReplyError whose message
// names the offending field and carries a short, sanitised excerpt (never a secret).

import { AuthError, InvalidReplyError, ServiceError } from './errors';
import { SITE_SECRET_FIELDS, type Revision, type RevisionSummary, type SaveSiteResult, type Site, type SiteStringField } from './types';
import { hideSecretFields, noRedaction, type Redactor } from '../util/redact';

// Redaction itself is src/util/redact.ts (shared with the log); the validators take a Redactor.
export { noRedaction, type Redactor };

/** At most `max` characters of `text`, control characters replaced, whitespace collapsed, secrets hidden. */
export function excerpt(text: string, redact: Redactor = noRedaction, max = 120, hideKeyValues = true): string {
  // Work on a bounded prefix: replies may be megabytes long.
  let t = text.slice(0, max * 4);
  t = t.replace(/^\uFEFF/, '');
  if (hideKeyValues) t = hideSecretFields(t);
  t = redact(t);
  // Bidirectional controls (U+202E…) could make a message read differently from what it says.
  t = t.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
  t = t.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').replace(/\s+/g, ' ').trim();
  if (t.length > max || text.length > max * 4) t = `${t.slice(0, max).trimEnd()}…`;
  return t;
}

/**
 * Whether a `{success:false, error}` message means "not signed in / bad credentials" rather than a
 * failure of the operation itself.
 */
export const AUTH_MESSAGE =
  /invalid (e-?mail|password|api[ _-]?key|login|credentials|token)|(wrong|incorrect|bad) (e-?mail|password|api[ _-]?key|credentials)|not (logged|signed) in|log ?in (failed|required)|sign ?in required|authentication (failed|required)|unauthori[sz]ed|api[ _-]?key (is )?required|session (has )?expired/i;

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'text';
  return `a ${typeof value}`;
}

function valueExcerpt(value: unknown, redact: Redactor, secret = false): string {
  if (secret) return '';
  const max = 60;
  return excerpt(preview(value, max * 4), redact, max);
}

/**
 * JSON text of `value`, cut after about `limit` characters. Unlike JSON.stringify / String it
 * never walks more of the value than it shows: a reply can nest arrays 100,000 deep (which makes
 * both throw RangeError) or hold megabytes.
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
    for (const k of Object.keys(v)) {
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

/**
 * Parses a 2xx body and checks the envelope: a JSON object whose `success` is `true`.
 * `success:false` becomes AuthError (credentials refused / signed out) or ServiceError.
 */
export function parseEnvelope(operation: string, body: string, contentType: string | undefined, redact: Redactor): Record<string, unknown> {
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
  if (!isObject(json)) throw new InvalidReplyError(operation, `expected a JSON object, got ${describeValue(json)}`, excerpt(text, redact));
  if (!('success' in json)) throw new InvalidReplyError(operation, 'no "success" field', excerpt(text, redact));
  if (json.success === true) return json;
  if (json.success === false) {
    const raw = json.error ?? json.message;
    const message = typeof raw === 'string' && raw.trim() !== '' ? excerpt(raw, redact, 200, false) : 'no reason given';
    if (AUTH_MESSAGE.test(message)) throw new AuthError(operation, message);
    throw new ServiceError(operation, message);
  }
  throw new InvalidReplyError(operation, `"success" is ${describeValue(json.success)}, not true or false`, excerpt(text, redact));
}

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

const SECRET_SITE_FIELDS: ReadonlySet<string> = new Set(SITE_SECRET_FIELDS);

/**
 * Get Sites: `{sites: Site[]}`. Numbers become strings, null/missing becomes '', extra fields are dropped.
 *
 * Written out field by field, in the spec's order (the order the checks run in): an object literal
 * of fixed shape with named reads is about ten times faster than a loop over SITE_STRING_FIELDS
 * with computed keys, and the type checker still insists on every field of `Site` and no other.
 * Field paths for messages (`sites[3].port`) are only built on the error path.
 */
export function toSites(operation: string, json: Record<string, unknown>, redact: Redactor): Site[] {
  const list = listField(operation, json, 'sites', redact);
  const sites = new Array<Site>(list.length);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    // Never excerpt a whole site: it holds the site's passwords.
    if (!isObject(item)) throw new InvalidReplyError(operation, `sites[${i}] is ${describeValue(item)}, expected an object`, '');
    sites[i] = toSite(operation, i, item, redact);
  }
  return sites;
}

function toSite(operation: string, i: number, item: Record<string, unknown>, redact: Redactor): Site {
  /** A string field: strings as they are; anything else through toSiteString (which may throw). */
  const text = (value: unknown, field: SiteStringField): string =>
    typeof value === 'string' ? value : toSiteString(operation, `sites[${i}].${field}`, value, redact, SECRET_SITE_FIELDS.has(field));
  const { id, shared } = item;
  return {
    id: typeof id === 'string' && id.trim() !== '' ? id : toId(operation, `sites[${i}].id`, id, redact),
    user: text(item.user, 'user'),
    name: text(item.name, 'name'),
    server_type: text(item.server_type, 'server_type'),
    domain: text(item.domain, 'domain'),
    logon_type: text(item.logon_type, 'logon_type'),
    ftp_user: text(item.ftp_user, 'ftp_user'),
    ftp_pass: text(item.ftp_pass, 'ftp_pass'),
    dir: text(item.dir, 'dir'),
    dir_id: text(item.dir_id, 'dir_id'),
    port: text(item.port, 'port'),
    pasv: text(item.pasv, 'pasv'),
    encryption: text(item.encryption, 'encryption'),
    s3_public: text(item.s3_public, 's3_public'),
    check_out: text(item.check_out, 'check_out'),
    encoding: text(item.encoding, 'encoding'),
    web_url: text(item.web_url, 'web_url'),
    db_username: text(item.db_username, 'db_username'),
    db_password: text(item.db_password, 'db_password'),
    db_phpmyadmin: text(item.db_phpmyadmin, 'db_phpmyadmin'),
    save_password: text(item.save_password, 'save_password'),
    timeout: text(item.timeout, 'timeout'),
    upload_on_save: text(item.upload_on_save, 'upload_on_save'),
    turbo: text(item.turbo, 'turbo'),
    revisions: text(item.revisions, 'revisions'),
    ac_wordpress: text(item.ac_wordpress, 'ac_wordpress'),
    ac_bootstrap: text(item.ac_bootstrap, 'ac_bootstrap'),
    ac_custom: text(item.ac_custom, 'ac_custom'),
    stack: text(item.stack, 'stack'),
    container_id: text(item.container_id, 'container_id'),
    status: text(item.status, 'status'),
    status_key: text(item.status_key, 'status_key'),
    git_url: text(item.git_url, 'git_url'),
    shared: typeof shared === 'boolean' ? shared : toShared(operation, `sites[${i}].shared`, shared, redact),
  };
}

/** Get Revision Files: `{files: string[]}`. */
export function toFiles(operation: string, json: Record<string, unknown>, redact: Redactor): string[] {
  const list = listField(operation, json, 'files', redact);
  return list.map((f, i) => {
    if (typeof f !== 'string') throw new InvalidReplyError(operation, `files[${i}] is ${describeValue(f)}, expected a path`, valueExcerpt(f, redact));
    return f;
  });
}

/** Get Revisions: `{revisions: [{id, date, author, content?}]}`. Content is kept when present. */
export function toRevisions(operation: string, json: Record<string, unknown>, redact: Redactor): RevisionSummary[] {
  const list = listField(operation, json, 'revisions', redact);
  return list.map((item, i) => {
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
    else if (item.content !== undefined && item.content !== null) {
      throw new InvalidReplyError(operation, `${path}.content is ${describeValue(item.content)}, expected text`, '');
    }
    return rev;
  });
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

// What every reader shares: a row under construction, the bounds checked on every value, and
// the paths and names as the service's fields hold them.
import type { Translate } from '../util/l10n';
import { IMPORT_LIMITS, type ImportedFields, type ImportedSite, type LeftOut } from './types';

/** The longest name the service takes (the site form's NAME_MAX_LENGTH). */
export const NAME_MAX = 255;

// C0/C1 controls and DEL, line/paragraph separators, bidirectional controls, lone surrogates.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u061c\u200e\u200f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The field names as the preview says them (English source messages, translated by `t`). */
function fieldLabel(f: keyof ImportedFields, t: Translate): string {
  switch (f) {
    case 'name':
      return t('name');
    case 'domain':
      return t('host');
    case 'ftp_user':
      return t('user');
    case 'ftp_pass':
      return t('password');
    case 'dir':
      return t('home directory');
    case 'web_url':
      return t('web URL');
    default:
      return f;
  }
}

/** Collects the rows of one file and the entries left out. */
export class Rows {
  readonly sites: ImportedSite[] = [];
  readonly leftOut: LeftOut[] = [];
  constructor(private readonly t: Translate) {}

  /**
   * Adds a site after the checks every value passes: no control characters (but in a password,
   * which is never shown), none longer than IMPORT_LIMITS.value; a name longer than the service
   * takes is shortened (said in notCarried), an empty one becomes the host.
   */
  add(site: ImportedSite): void {
    const t = this.t;
    const f = site.fields;
    for (const [k, v] of Object.entries(f) as [keyof ImportedFields, string | undefined][]) {
      if (v === undefined) continue;
      if (v.length > IMPORT_LIMITS.value) return this.leave(f.name, site.source, t('its {0} is {1} characters long (at most {2} are read)', fieldLabel(k, t), v.length, IMPORT_LIMITS.value));
      if (k !== 'ftp_pass' && CONTROL.test(v)) return this.leave(f.name, site.source, t('its {0} holds control characters', fieldLabel(k, t)));
    }
    f.name = f.name.trim() || (f.domain ?? '').trim() || site.source;
    if ([...f.name].length > NAME_MAX) {
      f.name = [...f.name].slice(0, NAME_MAX - 1).join('') + '…';
      site.notCarried.push(t('the name, shortened to {0} characters', NAME_MAX));
    }
    if (this.sites.length >= IMPORT_LIMITS.sites) return this.leave(f.name, site.source, t('the file holds more than {0} sites', IMPORT_LIMITS.sites));
    this.sites.push(site);
  }

  leave(name: string, source: string, reason: string): void {
    if (this.leftOut.length < IMPORT_LIMITS.sites) this.leftOut.push({ name: CONTROL.test(name) || name.length > NAME_MAX ? '' : name, source, reason });
  }
}

/** A "0"/"1" flag from the many ways files write a boolean; undefined when it says nothing. */
export function flag(v: unknown): '0' | '1' | undefined {
  if (v === true || v === 1) return '1';
  if (v === false || v === 0) return '0';
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return '1';
  if (['0', 'false', 'no', 'off'].includes(s)) return '0';
  return undefined;
}

/** A port as text when it is one (1–65535), else undefined. */
export function port(v: unknown): string | undefined {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  return /^[0-9]{1,5}$/.test(s) && Number(s) >= 1 && Number(s) <= 65535 ? String(Number(s)) : undefined;
}

/** An S3 path (`/bucket/prefix/…`) as the service's AmazonS3 site holds it: the bucket is the host, the rest the folder. */
export function s3Parts(path: string): { bucket: string; prefix: string } {
  const segs = path.split('/').filter(Boolean);
  return { bucket: segs[0] ?? '', prefix: segs.slice(1).join('/') };
}

/**
 * An S3 site as the service holds it: AmazonS3, the bucket (the path's first segment) as the host,
 * the rest as the folder; an endpoint that is not Amazon's, or no bucket, is said.
 */
export function toS3(fields: ImportedFields, endpoint: string, path: string, notCarried: string[], t: Translate): void {
  fields.server_type = 'AmazonS3';
  if (!isAmazonS3Host(endpoint)) notCarried.push(t('the S3 endpoint {0} (the service’s Amazon S3 sites reach Amazon)', endpoint));
  const { bucket, prefix } = s3Parts(path);
  fields.domain = bucket;
  fields.dir = prefix;
  if (!bucket) notCarried.push(t('the bucket: the file names none'));
}

/** The notes of one site being read: what it cannot carry, and why no password came (one of them). */
export function siteNotes(): { notCarried: string[]; noPassword: (why: string) => void; passwordNote: () => { passwordNote?: string } } {
  const notCarried: string[] = [];
  let note: string | undefined;
  return {
    notCarried,
    noPassword: (why) => {
      notCarried.push(why);
      note = why;
    },
    passwordNote: () => (note ? { passwordNote: note } : {}),
  };
}

/** Whether an S3 endpoint is Amazon's own (the service's AmazonS3 type reaches Amazon). */
export function isAmazonS3Host(host: string): boolean {
  const h = host.trim().toLowerCase();
  return h === '' || h === 's3.amazonaws.com' || /^s3[.-][a-z0-9-]+\.amazonaws\.com$/.test(h) || /\.s3\.amazonaws\.com$/.test(h);
}

/** A WebDAV server as the site form wants it: a URL (`https://host/`) built from a host, the scheme from `secure`. */
export function davUrl(host: string, secure: boolean): string {
  const h = host.trim();
  if (/^https?:\/\//i.test(h)) return h;
  return `${secure ? 'https' : 'http'}://${h}${h.endsWith('/') ? '' : '/'}`;
}

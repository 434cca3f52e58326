// The site form's values: validation of what the user typed, and the conversions Site -> form
// values -> Save Site fields. Pure logic, no `vscode` import and no Node built-ins: it is
// unit-tested in plain Node, and the site editor's webview script
// (src/features/sites/webview/main.ts) is bundled with it, so both sides validate with this code.
// Which fields each server type shows, with their rules, is ./formFields.ts.

import {
  SAVE_SITE_FIELDS,
  SAVE_SITE_FLAG_FIELDS,
  SERVER_TYPES,
  SITE_SECRET_FIELDS,
  type SaveSiteField,
  type ServerType,
  type Site,
  type SiteFields,
  type SiteSecretField,
} from '../../core/api/types';
import { english, type Translate } from '../../core/util/l10n';
import { NAME_MAX_LENGTH, fieldSpecs, isServerType, visibleFields, type FieldSpec } from './formFields';

/** What the form holds: every Save Site field, as a string. */
export type FormValues = Record<SaveSiteField, string>;

export const FORM_MODES = ['create', 'edit', 'duplicate'] as const;
export type FormMode = (typeof FORM_MODES)[number];

/** Whether the user edited each password field (an unedited password is not sent). */
export type PasswordEdited = Record<SiteSecretField, boolean>;

export interface ValidationError {
  field: SaveSiteField;
  message: string;
}

// ---- Validation (run by the extension and, bundled, by the webview) ----

/** Whether `value` is an absolute http(s) URL with a host. */
export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return false;
  }
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
}

/** Checks one value against a field's rules; returns the first failing rule's message. */
export function checkField(field: FieldSpec, raw: string): string | undefined {
  const value = field.kind === 'password' ? raw : raw.trim();
  for (const rule of field.rules) {
    switch (rule.kind) {
      case 'required':
        if (value === '') return rule.message;
        break;
      case 'maxLength':
        if (value.length > rule.max) return rule.message;
        break;
      case 'oneOf':
        if (!rule.values.includes(value)) return rule.message;
        break;
      case 'pattern':
        if (value !== '' && !new RegExp(rule.source).test(value)) return rule.message;
        break;
      case 'integer':
        if (value !== '' && (!/^[0-9]+$/.test(value) || Number(value) < rule.min || Number(value) > rule.max)) return rule.message;
        break;
      case 'httpUrl':
        if (value !== '' && !isHttpUrl(value)) return rule.message;
        break;
    }
  }
  return undefined;
}

/**
 * Validates the fields shown for `values.server_type` (hidden fields are not sent, so they are
 * not checked). The rules are the same whether a site is created, edited or duplicated.
 */
export function validate(values: FormValues): ValidationError[] {
  return validateWith(fieldSpecs(values.server_type ?? ''), values);
}

/** Validates `values` against the given field specs (the webview's are translated), in their order. */
export function validateWith(specs: readonly FieldSpec[], values: FormValues): ValidationError[] {
  const errors: ValidationError[] = [];
  for (const s of specs) {
    const message = checkField(s, values[s.field] ?? '');
    if (message !== undefined) errors.push({ field: s.field, message });
  }
  return errors;
}

// ---- Conversions ----

/** A form with every field empty. */
export function emptyValues(): FormValues {
  const out = {} as FormValues;
  for (const f of SAVE_SITE_FIELDS) out[f] = '';
  return out;
}

/** Default values of a new site of the given type. */
export function defaultValues(serverType: ServerType = 'FTP'): FormValues {
  const out = emptyValues();
  for (const s of fieldSpecs(serverType)) out[s.field] = s.defaultValue;
  out.server_type = serverType;
  return out;
}

/** Per type: the default value of each shown field that has one (used when the type changes). */
export function defaultsByType(): Record<ServerType, Partial<FormValues>> {
  const out = {} as Record<ServerType, Partial<FormValues>>;
  for (const t of SERVER_TYPES) {
    const d: Partial<FormValues> = {};
    for (const s of fieldSpecs(t)) if (s.defaultValue !== '' && s.field !== 'server_type') d[s.field] = s.defaultValue;
    out[t] = d;
  }
  return out;
}

const FLAG_SET: readonly string[] = SAVE_SITE_FLAG_FIELDS;
const SECRET_SET: readonly string[] = SITE_SECRET_FIELDS;

function normalizeFlag(v: string): string {
  const t = v.trim().toLowerCase();
  return t === '1' || t === 'true' || t === 'yes' || t === 'on' ? '1' : '0';
}

/**
 * The form values of a stored site. Secrets are NOT copied (password fields are empty; whether
 * a stored password exists is known separately, see `storedPasswords`). Flags become '0'/'1',
 * a port of 0 becomes empty, server_type gets its canonical spelling when it matches one.
 */
export function siteToForm(site: Site): FormValues {
  const out = emptyValues();
  for (const f of SAVE_SITE_FIELDS) {
    const raw = site[f];
    const v = typeof raw === 'string' ? raw : raw == null ? '' : String(raw);
    if (SECRET_SET.includes(f)) out[f] = '';
    else if (FLAG_SET.includes(f)) out[f] = normalizeFlag(v);
    else out[f] = v;
  }
  const port = out.port.trim();
  out.port = /^0*$/.test(port) ? '' : port;
  out.logon_type = out.logon_type.trim().toLowerCase() === 'key' ? 'key' : '';
  const canonical = SERVER_TYPES.find((t) => t.toLowerCase() === out.server_type.trim().toLowerCase());
  if (canonical) out.server_type = canonical;
  return out;
}

/** Whether the stored site has each password (sent to the webview instead of the values). */
export function storedPasswords(site: Site | undefined): PasswordEdited {
  return { ftp_pass: !!site && (site.ftp_pass ?? '') !== '', db_password: !!site && (site.db_password ?? '') !== '' };
}

/** "Copy of <name>" (translated by `t`), cut to the name length limit. */
export function duplicateName(name: string, t: Translate = english): string {
  return t('Copy of {0}', name.trim()).slice(0, NAME_MAX_LENGTH);
}

/** The values a form opens with; `t` translates the name of a duplicate. */
export function initialValues(mode: FormMode, site?: Site, t: Translate = english): FormValues {
  if (mode === 'create' || !site) return defaultValues('FTP');
  const v = siteToForm(site);
  if (mode === 'duplicate') v.name = duplicateName(site.name, t);
  return v;
}

export interface ToFieldsOptions {
  mode: FormMode;
  passwordEdited: PasswordEdited;
  /** The chosen server type; defaults to `values.server_type`. Decides which fields are sent. */
  serverType?: string;
  /** Duplicate mode: the original's name, used for "Copy of <name>" when the name is left empty. */
  originalName?: string;
  /** Translates "Copy of <name>" (default: English). */
  t?: Translate;
}

/**
 * Save Site fields from (validated) form values: only the fields shown for the chosen type plus
 * the common ones; ports and flags as numbers; text trimmed (passwords kept as typed); passwords
 * sent only when edited (on update the service then keeps the stored value). On create and
 * duplicate, empty optional text is left out; on edit it is sent as '' so a field can be cleared.
 * An empty port is never sent.
 */
export function formToFields(values: FormValues, opts: ToFieldsOptions): SiteFields {
  const type = opts.serverType ?? values.server_type;
  let name = (values.name ?? '').trim();
  if (name === '' && opts.mode === 'duplicate' && opts.originalName !== undefined) name = duplicateName(opts.originalName, opts.t);
  const out: SiteFields = { name };
  const sendEmpty = opts.mode === 'edit';
  const text = (f: SaveSiteField): string | undefined => {
    const v = (values[f] ?? '').trim();
    return v === '' && !sendEmpty ? undefined : v;
  };
  for (const f of visibleFields(type)) {
    const raw = values[f] ?? '';
    switch (f) {
      case 'name':
        break;
      case 'server_type':
        if (isServerType(type)) out.server_type = type;
        break;
      case 'port': {
        const p = raw.trim();
        if (p !== '') out.port = Number(p);
        break;
      }
      case 'pasv':
      case 'encryption':
      case 's3_public':
      case 'check_out':
        out[f] = raw.trim() === '1' ? 1 : 0;
        break;
      case 'logon_type':
        out.logon_type = raw.trim() === 'key' ? 'key' : '';
        break;
      case 'ftp_pass':
      case 'db_password':
        if (opts.passwordEdited[f]) out[f] = raw;
        break;
      case 'domain':
      case 'ftp_user':
      case 'dir':
      case 'encoding':
      case 'web_url':
      case 'db_username':
      case 'db_phpmyadmin': {
        const v = text(f);
        if (v !== undefined) out[f] = v;
        break;
      }
    }
  }
  return out;
}

/**
 * Duplicate mode: adds the original's stored passwords (never shown in the form) to the fields
 * for each password the user did not edit and that is relevant to the chosen type.
 */
export function withCopiedSecrets(fields: SiteFields, original: Site, passwordEdited: PasswordEdited, serverType: string): SiteFields {
  const out: SiteFields = { ...fields };
  const shown = visibleFields(serverType);
  for (const f of SITE_SECRET_FIELDS) {
    const stored = original[f] ?? '';
    if (!passwordEdited[f] && shown.includes(f) && stored !== '') out[f] = stored;
  }
  return out;
}

/**
 * Edit mode: every Save Site field, so that a service which replaces the whole record with what
 * it receives loses nothing (the spec does not say that omitted fields are kept). A field the
 * user changed — shown for the chosen type, its value different from the one the form opened
 * with, or a password the user edited — is sent as the form gives it (`formToFields`: trimmed,
 * numbers, '' for a cleared value); every other field is sent exactly as Get Sites returned it,
 * passwords included (they never reach the webview: they are taken from `site` here).
 */
export function updateFields(site: Site, values: FormValues, opened: FormValues, passwordEdited: PasswordEdited, t: Translate = english): SiteFields {
  const type = values.server_type;
  const fromForm = formToFields(values, { mode: 'edit', passwordEdited, serverType: type, originalName: site.name, t }) as Record<string, unknown>;
  const shown = new Set<string>(visibleFields(type));
  const out: Record<string, unknown> = { name: fromForm.name };
  for (const f of SAVE_SITE_FIELDS) {
    if (f === 'name') continue;
    const changed = shown.has(f) && (SECRET_SET.includes(f) ? passwordEdited[f as SiteSecretField] : values[f] !== opened[f]);
    out[f] = changed ? (fromForm[f] ?? '') : (site[f] ?? '');
  }
  return out as SiteFields;
}

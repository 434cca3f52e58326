// The site form's model: field metadata, per-server-type visibility, validation and the
// conversions Site -> form values -> Save Site fields. Pure logic, no `vscode` import and no
// Node built-ins: it is unit-tested in plain Node, and the site editor's webview script
// (src/features/sites/webview/main.ts) is bundled with it, so both sides validate with this code. The field
// specs (with their declarative rules, translated) reach the webview in the init message.

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

/** What the form holds: every Save Site field, as a string. */
export type FormValues = Record<SaveSiteField, string>;

export const FORM_MODES = ['create', 'edit', 'duplicate'] as const;
export type FormMode = (typeof FORM_MODES)[number];

/** Whether the user edited each password field (an unedited password is not sent). */
export type PasswordEdited = Record<SiteSecretField, boolean>;

export type FieldKind = 'text' | 'password' | 'number' | 'select' | 'flag' | 'url';

export const FIELD_GROUPS = ['site', 'connection', 'website', 'database', 'advanced'] as const;
export type FieldGroup = (typeof FIELD_GROUPS)[number];

/**
 * A declarative validation rule. The specs travel to the webview in a message, so they must stay
 * plain JSON. Semantics (checkField):
 * - the value checked is trimmed, except for password fields;
 * - `required` fails on an empty value; `maxLength` counts UTF-16 code units;
 * - `oneOf` applies to empty values too (list '' to allow it);
 * - `pattern`, `integer` and `httpUrl` are skipped for an empty value;
 * - the first failing rule gives the field's message.
 */
export type FieldRule =
  | { kind: 'required'; message: string }
  | { kind: 'maxLength'; max: number; message: string }
  | { kind: 'oneOf'; values: string[]; message: string }
  | { kind: 'pattern'; source: string; message: string }
  | { kind: 'integer'; min: number; max: number; message: string }
  | { kind: 'httpUrl'; message: string };

export interface FieldOption {
  value: string;
  label: string;
}

/** One field as shown for one server type (labels differ by type: "Host", "Bucket", ...). */
export interface FieldSpec {
  field: SaveSiteField;
  group: FieldGroup;
  kind: FieldKind;
  label: string;
  help: string;
  placeholder: string;
  /** Value a new form starts with for this type ('' for none). */
  defaultValue: string;
  required: boolean;
  options?: FieldOption[];
  /** `autocomplete` attribute for the input. */
  autocomplete: string;
  rules: FieldRule[];
}

export interface ValidationError {
  field: SaveSiteField;
  message: string;
}

export const GROUP_LABELS: Record<FieldGroup, string> = {
  site: 'Site',
  connection: 'Connection',
  website: 'Website',
  database: 'Database',
  advanced: 'Advanced',
};

export interface ServerTypeInfo {
  /** Shown in the server type list. */
  label: string;
  /** Legend of the connection group. */
  connectionTitle: string;
  /** Shown above the connection fields. */
  note: string;
}

export const SERVER_TYPE_INFO: Record<ServerType, ServerTypeInfo> = {
  None: {
    label: 'None (no remote server)',
    connectionTitle: 'Connection',
    note: 'This site has no remote server: there are no connection settings.',
  },
  FTP: { label: 'FTP', connectionTitle: 'FTP server', note: '' },
  SFTP: { label: 'SFTP (SSH)', connectionTitle: 'SFTP server', note: '' },
  Dropbox: {
    label: 'Dropbox',
    connectionTitle: 'Dropbox',
    note: 'Access to your Dropbox is authorized through the service, not here: only the folder is set in this form.',
  },
  GDrive: {
    label: 'Google Drive',
    connectionTitle: 'Google Drive',
    note: 'Access to your Google Drive is authorized through the service, not here: only the folder is set in this form.',
  },
  GDriveLimited: {
    label: 'Google Drive (limited access)',
    connectionTitle: 'Google Drive (limited access)',
    note: 'Access to your Google Drive is authorized through the service, not here: only the folder is set in this form.',
  },
  WebDAV: { label: 'WebDAV', connectionTitle: 'WebDAV server', note: '' },
  AmazonS3: { label: 'Amazon S3', connectionTitle: 'Amazon S3 bucket', note: '' },
  AJAX: { label: 'AJAX (HTTP endpoint)', connectionTitle: 'AJAX endpoint', note: '' },
};

export const NAME_MAX_LENGTH = 255;
const SHORT_MAX = 255;
const LONG_MAX = 2048;
const SECRET_MAX = 1024;
const ENCODING_MAX = 64;

const PORT_RULE: FieldRule = { kind: 'integer', min: 1, max: 65535, message: 'Port must be a whole number from 1 to 65535.' };
const NO_SPACES = '^\\S+$';
const NO_SCHEME = '^(?![A-Za-z][A-Za-z0-9+.-]*://)';
const ENCODING_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]*$';

function maxLen(label: string, max: number): FieldRule {
  return { kind: 'maxLength', max, message: `${label} must be at most ${max} characters long.` };
}

interface SpecInput {
  field: SaveSiteField;
  group: FieldGroup;
  kind: FieldKind;
  label: string;
  help: string;
  placeholder?: string;
  defaultValue?: string;
  required?: boolean;
  options?: FieldOption[];
  autocomplete?: string;
  /** Length limit (text, url and password fields; flags, selects and ports have their own bounds). */
  max?: number;
  /** Rules checked after `required` and `maxLength`. */
  extra?: FieldRule[];
  requiredMessage?: string;
}

function spec(i: SpecInput): FieldSpec {
  const rules: FieldRule[] = [];
  if (i.required) rules.push({ kind: 'required', message: i.requiredMessage ?? `${i.label} is required.` });
  if (i.max !== undefined) rules.push(maxLen(i.label, i.max));
  if (i.kind === 'flag') {
    rules.push({ kind: 'oneOf', values: ['0', '1'], message: `${i.label}: the value must be 0 (off) or 1 (on).` });
  }
  if (i.kind === 'url') {
    rules.push({ kind: 'httpUrl', message: `${i.label} must be a full address starting with http:// or https://.` });
  }
  if (i.kind === 'number' && i.field === 'port') rules.push(PORT_RULE);
  rules.push(...(i.extra ?? []));
  const out: FieldSpec = {
    field: i.field,
    group: i.group,
    kind: i.kind,
    label: i.label,
    help: i.help,
    placeholder: i.placeholder ?? '',
    defaultValue: i.defaultValue ?? (i.kind === 'flag' ? '0' : ''),
    required: i.required === true,
    autocomplete: i.autocomplete ?? 'off',
    rules,
  };
  if (i.options) out.options = i.options;
  return out;
}

// ---- Common fields ----

const NAME_SPEC = spec({
  field: 'name',
  group: 'site',
  kind: 'text',
  label: 'Site name',
  help: 'The name the site is listed under.',
  required: true,
  requiredMessage: 'Enter a name for the site.',
  max: NAME_MAX_LENGTH,
});

const SERVER_TYPE_SPEC = spec({
  field: 'server_type',
  group: 'site',
  kind: 'select',
  label: 'Server type',
  help: 'How the service reaches the files of this site. The connection settings below change with it.',
  required: true,
  requiredMessage: 'Choose a server type.',
  options: SERVER_TYPES.map((t) => ({ value: t, label: SERVER_TYPE_INFO[t].label })),
  extra: [{ kind: 'oneOf', values: [...SERVER_TYPES], message: 'Choose a server type from the list.' }],
});

const WEB_URL_SPEC = spec({
  field: 'web_url',
  group: 'website',
  kind: 'url',
  label: 'Website URL',
  help: 'The address where the home directory is published, for example https://www.example.com/. Used to open pages in a browser.',
  placeholder: 'https://www.example.com/',
  max: LONG_MAX,
});

const DB_USERNAME_SPEC = spec({
  field: 'db_username',
  group: 'database',
  kind: 'text',
  label: 'Database username',
  help: 'User name for the site’s database, if it has one.',
  max: SHORT_MAX,
});

const DB_PASSWORD_SPEC = spec({
  field: 'db_password',
  group: 'database',
  kind: 'password',
  label: 'Database password',
  help: 'Password of the database user.',
  autocomplete: 'new-password',
  max: SECRET_MAX,
});

const DB_ADMIN_SPEC = spec({
  field: 'db_phpmyadmin',
  group: 'database',
  kind: 'url',
  label: 'Database admin URL',
  help: 'Address of the database admin tool (for example phpMyAdmin).',
  placeholder: 'https://www.example.com/phpmyadmin/',
  max: LONG_MAX,
});

const ENCODING_SPEC = spec({
  field: 'encoding',
  group: 'advanced',
  kind: 'text',
  label: 'Character encoding',
  help: 'Encoding of the text files on the server, for example UTF-8 or ISO-8859-1.',
  placeholder: 'UTF-8',
  defaultValue: 'UTF-8',
  max: ENCODING_MAX,
  extra: [{ kind: 'pattern', source: ENCODING_PATTERN, message: 'Character encoding must be an encoding name such as UTF-8, without spaces.' }],
});

const CHECK_OUT_SPEC = spec({
  field: 'check_out',
  group: 'advanced',
  kind: 'flag',
  label: 'Enable check in / check out',
  help: 'Files are checked out to you while you edit them and checked in when you are done, so others do not overwrite your changes.',
});

// ---- Connection fields (labels per server type) ----

function hostSpec(label: string, help: string, placeholder: string): FieldSpec {
  return spec({
    field: 'domain',
    group: 'connection',
    kind: 'text',
    label,
    help,
    placeholder,
    required: true,
    max: SHORT_MAX,
    extra: [
      { kind: 'pattern', source: NO_SPACES, message: `${label} must not contain spaces.` },
      { kind: 'pattern', source: NO_SCHEME, message: `${label}: enter the host name only, without a prefix such as ftp://.` },
    ],
  });
}

function urlDomainSpec(label: string, help: string, placeholder: string): FieldSpec {
  return spec({
    field: 'domain',
    group: 'connection',
    kind: 'url',
    label,
    help,
    placeholder,
    required: true,
    max: LONG_MAX,
    extra: [{ kind: 'pattern', source: NO_SPACES, message: `${label} must not contain spaces.` }],
  });
}

function portSpec(defaultValue: string, help: string): FieldSpec {
  return spec({
    field: 'port',
    group: 'connection',
    kind: 'number',
    label: 'Port',
    help,
    placeholder: defaultValue,
    defaultValue,
  });
}

function userSpec(label: string, help: string): FieldSpec {
  return spec({ field: 'ftp_user', group: 'connection', kind: 'text', label, help, autocomplete: 'off', max: SHORT_MAX });
}

function passSpec(label: string, help: string): FieldSpec {
  return spec({ field: 'ftp_pass', group: 'connection', kind: 'password', label, help, autocomplete: 'new-password', max: SECRET_MAX });
}

function dirSpec(label: string, help: string, placeholder: string): FieldSpec {
  return spec({ field: 'dir', group: 'connection', kind: 'text', label, help, placeholder, max: LONG_MAX });
}

function flagSpec(field: 'pasv' | 'encryption' | 's3_public', label: string, help: string, defaultValue = '0'): FieldSpec {
  return spec({ field, group: 'connection', kind: 'flag', label, help, defaultValue });
}

const CLOUD_DIR_HELP = 'Folder to use as the site’s home directory; leave empty for the top folder.';

const CONNECTION_SPECS: Record<ServerType, FieldSpec[]> = {
  None: [],
  FTP: [
    hostSpec('Host', 'Host name or IP address of the FTP server.', 'ftp.example.com'),
    portSpec('21', 'Leave empty for the standard FTP port, 21.'),
    userSpec('Username', 'FTP user name.'),
    passSpec('Password', 'FTP password.'),
    dirSpec('Home directory', 'Directory on the server that holds the site’s files, for example /public_html.', '/public_html'),
    flagSpec('pasv', 'Passive mode', 'Use passive mode (recommended; needed behind most firewalls and NAT).', '1'),
    flagSpec('encryption', 'Use FTPS (FTP over TLS)', 'Encrypt the connection with TLS. The server must support FTPS.'),
  ],
  SFTP: [
    hostSpec('Host', 'Host name or IP address of the SSH server.', 'sftp.example.com'),
    portSpec('22', 'Leave empty for the standard SSH port, 22.'),
    spec({
      field: 'logon_type',
      group: 'connection',
      kind: 'select',
      label: 'Authentication',
      help: 'Sign in with a password, or with a key instead of a password.',
      options: [
        { value: '', label: 'Password' },
        { value: 'key', label: 'Key' },
      ],
      extra: [{ kind: 'oneOf', values: ['', 'key'], message: 'Authentication must be Password or Key.' }],
    }),
    userSpec('Username', 'SSH user name.'),
    passSpec('Password', 'SSH password (with key authentication: the key’s passphrase, if it has one).'),
    dirSpec('Home directory', 'Directory on the server that holds the site’s files, for example /var/www/html.', '/var/www/html'),
  ],
  Dropbox: [dirSpec('Folder', CLOUD_DIR_HELP, '/my-site')],
  GDrive: [dirSpec('Folder', CLOUD_DIR_HELP, '/my-site')],
  GDriveLimited: [dirSpec('Folder', CLOUD_DIR_HELP, '/my-site')],
  WebDAV: [
    urlDomainSpec('Server URL', 'Address of the WebDAV server, for example https://dav.example.com/.', 'https://dav.example.com/'),
    portSpec('', 'Leave empty to use the port of the server URL.'),
    userSpec('Username', 'WebDAV user name.'),
    passSpec('Password', 'WebDAV password.'),
    dirSpec('Home directory', 'Path on the server that holds the site’s files.', '/site'),
    flagSpec('encryption', 'Encrypted connection (HTTPS)', 'Connect over HTTPS.'),
  ],
  AmazonS3: [
    hostSpec('Bucket', 'Name of the S3 bucket, for example my-site-bucket.', 'my-site-bucket'),
    userSpec('Access key ID', 'ID of the AWS access key, for example AKIA….'),
    passSpec('Secret access key', 'Secret of the AWS access key.'),
    dirSpec('Prefix (folder)', 'Key prefix inside the bucket that holds the site’s files; leave empty for the whole bucket.', 'site/'),
    flagSpec('s3_public', 'Make saved files public', 'Save files with public read access, so they can be served directly from S3.'),
  ],
  AJAX: [
    urlDomainSpec('Endpoint URL', 'Address of the HTTP endpoint that serves the site’s files.', 'https://www.example.com/endpoint'),
    userSpec('Username', 'User name for the endpoint.'),
    passSpec('Password', 'Password for the endpoint.'),
  ],
};

const COMMON_BEFORE = [NAME_SPEC, SERVER_TYPE_SPEC];
const COMMON_AFTER = [WEB_URL_SPEC, DB_USERNAME_SPEC, DB_PASSWORD_SPEC, DB_ADMIN_SPEC, ENCODING_SPEC, CHECK_OUT_SPEC];

/** Fields every server type shows. */
export const COMMON_FIELDS: readonly SaveSiteField[] = [...COMMON_BEFORE, ...COMMON_AFTER].map((s) => s.field);

export function isServerType(value: unknown): value is ServerType {
  return typeof value === 'string' && (SERVER_TYPES as readonly string[]).includes(value);
}

function deepCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * The fields shown for a server type, in display order, with that type's labels and rules.
 * An unknown type (a stored site with a value outside the list) shows the common fields only.
 * Returns fresh copies: callers may mutate them.
 */
export function fieldSpecs(serverType: string): FieldSpec[] {
  const conn = isServerType(serverType) ? CONNECTION_SPECS[serverType] : [];
  return deepCopy([...COMMON_BEFORE, ...conn, ...COMMON_AFTER]);
}

/** Names of the fields shown (and sent) for a server type. */
export function visibleFields(serverType: string): SaveSiteField[] {
  return fieldSpecs(serverType).map((s) => s.field);
}

// ---- Translation ----
//
// The texts above are English source messages. The site editor (src/features/sites/siteEditor.ts) passes
// every one a person reads through `vscode.l10n.t` before they reach the webview, with the
// functions below; formTexts() lists the same texts for l10n/bundle.l10n.json
// (scripts/l10n-bundle.mjs). Placeholders are sample values (host names, paths) and stay as
// they are.

/** Translates one text of the form (an English source message; no placeholders). */
export type TextTranslator = (text: string) => string;

/** A field spec with its label, help, option labels and rule messages translated. */
export function localizeSpec(spec: FieldSpec, tr: TextTranslator): FieldSpec {
  const out: FieldSpec = {
    ...spec,
    label: tr(spec.label),
    help: spec.help && tr(spec.help),
    rules: spec.rules.map((r) => ({ ...r, message: tr(r.message) })),
  };
  if (spec.options) out.options = spec.options.map((o) => ({ ...o, label: tr(o.label) }));
  return out;
}

/** A server type's label, connection title and note, translated. */
export function localizeTypeInfo(info: ServerTypeInfo, tr: TextTranslator): ServerTypeInfo {
  return { label: tr(info.label), connectionTitle: tr(info.connectionTitle), note: info.note && tr(info.note) };
}

/** Every text localizeSpec and localizeTypeInfo translate, for every server type, and the group labels. */
export function formTexts(): string[] {
  const texts = new Set<string>();
  const collect: TextTranslator = (text) => {
    if (text) texts.add(text);
    return text;
  };
  for (const type of [...SERVER_TYPES, '']) for (const s of fieldSpecs(type)) localizeSpec(s, collect);
  for (const type of SERVER_TYPES) localizeTypeInfo(SERVER_TYPE_INFO[type], collect);
  for (const g of FIELD_GROUPS) collect(GROUP_LABELS[g]);
  return [...texts];
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

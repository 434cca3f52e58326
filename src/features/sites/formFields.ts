// The site form's fields: what each server type shows, in display order (labels, help,
// placeholders, defaults, groups) and each field's declarative rules. Pure data and the functions
// that pick from it: no `vscode` import and no Node built-ins, since the site editor's webview
// script (src/features/sites/webview/main.ts) is bundled with it (through ./siteForm.ts, whose
// validation reads these specs). The texts are English source messages, translated by
// ./formTexts.ts; the specs (translated) reach the webview in the init message.

import { SERVER_TYPES, type SaveSiteField, type ServerType } from '../../core/api/types';

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

// Typed model of the sites-and-revisions service (see ../shared/spec/site-revision-api.md).
// No `vscode` import anywhere under src/core/api: this layer runs and is tested in plain Node.

/** Values of `server_type` accepted on save. */
export const SERVER_TYPES = ['None', 'FTP', 'SFTP', 'Dropbox', 'GDrive', 'GDriveLimited', 'WebDAV', 'AmazonS3', 'AJAX'] as const;
export type ServerType = (typeof SERVER_TYPES)[number];

/** Every string field of a Site, in the order of the spec. `shared` is the only boolean. */
export const SITE_STRING_FIELDS = [
  'id', 'user', 'name', 'server_type', 'domain', 'logon_type', 'ftp_user', 'ftp_pass', 'dir', 'dir_id', 'port',
  'pasv', 'encryption', 's3_public', 'check_out', 'encoding', 'web_url', 'db_username', 'db_password',
  'db_phpmyadmin', 'save_password', 'timeout', 'upload_on_save', 'turbo', 'revisions', 'ac_wordpress',
  'ac_bootstrap', 'ac_custom', 'stack', 'container_id', 'status', 'status_key', 'git_url',
] as const;
export type SiteStringField = (typeof SITE_STRING_FIELDS)[number];

/** Fields of a Site that hold secrets: never logged, never shown, never sent to a webview. */
export const SITE_SECRET_FIELDS = ['ftp_pass', 'db_password'] as const;
export type SiteSecretField = (typeof SITE_SECRET_FIELDS)[number];

/** A site as returned by Get Sites. Missing string fields are normalized to '' and numbers to strings. */
export type Site = { [K in SiteStringField]: string } & { shared: boolean };

/** Fields Save Site accepts besides the authentication parameters, `new` and `site`. */
export const SAVE_SITE_FIELDS = [
  'name', 'server_type', 'domain', 'logon_type', 'ftp_user', 'ftp_pass', 'dir', 'port', 'pasv', 'encryption',
  's3_public', 'check_out', 'encoding', 'web_url', 'db_username', 'db_password', 'db_phpmyadmin',
] as const;
export type SaveSiteField = (typeof SAVE_SITE_FIELDS)[number];

/** Integer-typed Save Site fields (sent as decimal strings in the form body). */
export const SAVE_SITE_INT_FIELDS = ['port', 'pasv', 'encryption', 's3_public', 'check_out'] as const;
/** Save Site fields whose only allowed values are 0 and 1 (decision: `check_out` is a 0/1 flag too). */
export const SAVE_SITE_FLAG_FIELDS = ['pasv', 'encryption', 's3_public', 'check_out'] as const;

/**
 * Input of Save Site. `name` is required. A field left `undefined` is not sent: whether the
 * service then keeps the stored value is not shown by the spec, so the extension's updates send
 * every field (src/features/sites/siteForm.ts `updateFields`). Text where a number or type is expected is
 * a value as Get Sites returned it, sent back as it is.
 */
export type SiteFields = { name: string } & Partial<{
  server_type: ServerType | string;
  domain: string;
  logon_type: '' | 'key' | string;
  ftp_user: string;
  ftp_pass: string;
  dir: string;
  port: number | string;
  pasv: 0 | 1 | string;
  encryption: 0 | 1 | string;
  s3_public: 0 | 1 | string;
  check_out: 0 | 1 | string;
  encoding: string;
  web_url: string;
  db_username: string;
  db_password: string;
  db_phpmyadmin: string;
  /**
   * Not in the spec's Save Site list, but a Site field: sent only when set (the import carries
   * vscode-sftp's `uploadOnSave`; docs/decisions.md, "Import: upload_on_save").
   */
  upload_on_save: 0 | 1 | string;
}>;

/** Site fields sent by Save Site when given, though the spec's Save Site list leaves them out. */
export const SAVE_SITE_EXTRA_FIELDS = ['upload_on_save'] as const;

/** Result of Save Site: the id of the created or updated site (`site` in the reply). */
export interface SaveSiteResult {
  siteId: string;
}

/** One item of Get Revisions. `content` is undefined when the list was asked with no_content=1. */
export interface RevisionSummary {
  id: string;
  /** As sent: `YYYY-MM-DD HH:MM:SS`, UTC (decision, see README). */
  date: string;
  author: string;
  content?: string;
}

/** What a list reply held that could not be used as it was. Never holds a secret. */
export interface ListIssues {
  /** How many entries were left out (the rest of the list still loads). */
  skipped: number;
  /** Why, for the first few: each names the entry and field (`sites[3].name is a list, expected text`). */
  problems: string[];
  /** Fields the extension does not use whose value was dropped (an object where text was expected), first few. */
  dropped: string[];
}

/**
 * A list read (Get Sites, Get Revision Files, Get Revisions): the usable entries, and `issues`
 * (non-enumerable) when the reply had entries or values that could not be used.
 */
export type ListReply<T> = T[] & { readonly issues?: ListIssues };

/** Get Revision. */
export interface Revision {
  id: string;
  content: string;
}

export interface Credentials {
  email: string;
  password: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
}

export interface CallOptions {
  /** Cancels the request; the call rejects with CancelledError. */
  signal?: AbortSignal;
  /**
   * Overrides the client's default time-out for this call, in milliseconds: the whole call,
   * retries and the waits between them included, ends by then.
   */
  timeoutMs?: number;
  /**
   * With a scheduler (ClientOptions.scheduler): `user` (default) for what a person waits for,
   * `background` for refreshes, prefetching and scans. Without one: ignored.
   */
  priority?: RequestPriority;
  /** Overrides the client's maxResponseBytes for this call (a larger reply fails with InvalidReplyError "reply too large"). */
  maxResponseBytes?: number;
}

/** The priority of a request in the scheduler (src/core/scheduler). */
export type RequestPriority = 'user' | 'background';

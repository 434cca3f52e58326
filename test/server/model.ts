// Stored shapes of the local service and the defaults of site fields.

import { SITE_STRING_FIELDS, type SiteStringField } from '../../src/core/api/types';

export interface StoredUser {
  id: number;
  email: string;
  /** Random salt (hex) for the password hash. */
  salt: string;
  /** HMAC-SHA256(salt, password), hex. The password itself is never stored. */
  passwordHash: string;
  /** SHA-256 of the API key, hex, when the account requires one. */
  apiKeyHash?: string;
}

/** A site as stored: every string field of the spec, plus the ids of users it is shared with. */
export type StoredSite = { [K in SiteStringField]: string } & { sharedWith: number[] };

export interface StoredRevision {
  id: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  date: string;
  author: string;
  content: string;
}

export interface StoredFile {
  path: string;
  /** Oldest first. */
  revisions: StoredRevision[];
}

export interface StoredData {
  format: 'site-revisions-local-service';
  version: 1;
  seededAt: string;
  nextSiteId: number;
  nextRevisionId: number;
  users: StoredUser[];
  /** Ordered by id. */
  sites: StoredSite[];
  /** Site id → files in storage order. */
  files: Record<string, StoredFile[]>;
}

/** Default port stored for a new site of a server type when none is sent. */
export function defaultPort(serverType: string): string {
  switch (serverType) {
    case 'FTP':
      return '21';
    case 'SFTP':
      return '22';
    case 'WebDAV':
      return '443';
    default:
      return '';
  }
}

/** The values stored for fields a client did not send when creating a site. */
export function siteDefaults(id: number, owner: number, serverType = 'FTP'): StoredSite {
  const site = Object.fromEntries(SITE_STRING_FIELDS.map((f) => [f, ''])) as { [K in SiteStringField]: string };
  Object.assign(site, {
    id: String(id),
    user: String(owner),
    server_type: serverType,
    port: defaultPort(serverType),
    pasv: serverType === 'FTP' ? '1' : '0',
    encryption: '0',
    s3_public: '0',
    check_out: '0',
    encoding: 'UTF-8',
    save_password: '1',
    timeout: '30',
    upload_on_save: '0',
    turbo: '0',
    revisions: '1',
    ac_wordpress: '0',
    ac_bootstrap: '0',
    ac_custom: '',
    stack: '',
    container_id: '',
    status: '',
    status_key: '',
    git_url: '',
  });
  return { ...site, sharedWith: [] };
}

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

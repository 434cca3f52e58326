// What the site-file readers (FileZilla, WinSCP, Cyberduck, vscode-sftp, Dreamweaver) make of a
// file: one row per site, in the service's own fields, with what could not be carried over.
// Plain Node (no `vscode`): the feature src/features/siteImport shows and saves the rows.

/** The formats read. */
export const IMPORT_FORMATS = ['filezilla', 'winscp', 'cyberduck', 'vscode-sftp', 'dreamweaver'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** The tool's name, as shown (not translated: product names). */
export const FORMAT_LABELS: Record<ImportFormat, string> = {
  filezilla: 'FileZilla',
  winscp: 'WinSCP',
  cyberduck: 'Cyberduck',
  'vscode-sftp': 'vscode-sftp',
  dreamweaver: 'Dreamweaver',
};

/**
 * A site as read from a file, in Save Site's fields (all text, as the form holds them), plus
 * `upload_on_save` (a Site field the spec's Save Site list leaves out: docs/decisions.md,
 * "Import: upload_on_save"). A field the file does not give is left out.
 */
export interface ImportedFields {
  name: string;
  server_type: string;
  domain?: string;
  port?: string;
  logon_type?: '' | 'key';
  ftp_user?: string;
  ftp_pass?: string;
  dir?: string;
  pasv?: '0' | '1';
  encryption?: '0' | '1';
  s3_public?: '0' | '1';
  encoding?: string;
  web_url?: string;
  upload_on_save?: '0' | '1';
}

/** One site found in a file. Never logged as a whole: `fields.ftp_pass` may hold a password. */
export interface ImportedSite {
  fields: ImportedFields;
  /** Whether a password came with it (it is in `fields.ftp_pass`). */
  passwordIncluded: boolean;
  /** What the file held that the site cannot carry, in words (shown in the preview). */
  notCarried: string[];
  /** Why no password came with it, when the file says (also in notCarried): shown where the preview says whether one did. */
  passwordNote?: string;
  /** Where in the file: "Server 3", "[Sessions\\acme]", "profiles.staging"… */
  source: string;
  /** A local folder that goes with the site (vscode-sftp: the folder holding .vscode/sftp.json), when the file says. */
  localFolder?: string;
}

/** An entry of the file that is not offered for import, and why (shown in the preview, unticked and not tickable). */
export interface LeftOut {
  /** Its name as the file gives it ('' when it has none). */
  name: string;
  source: string;
  reason: string;
}

export interface ImportResult {
  format: ImportFormat;
  sites: ImportedSite[];
  leftOut: LeftOut[];
}

export type ImportErrorKind = 'too-large' | 'encoding' | 'malformed' | 'entities' | 'unknown-format' | 'empty' | 'too-many';

/** The file as a whole cannot be read: nothing of it is offered. Its message says why and what to do. */
export class ImportFileError extends Error {
  override readonly name = 'ImportFileError';
  constructor(
    readonly kind: ImportErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** Bounds of what a file may hold (docs/decisions.md, "Import: hostile files"). */
export const IMPORT_LIMITS = {
  /** Bytes read from one file; a larger file is refused before it is read whole. */
  fileBytes: 8 * 1024 * 1024,
  /** Sites in one file. */
  sites: 5000,
  /** Nesting of XML elements (folders in folders…). */
  depth: 64,
  /** Characters of one value read from a file (before the per-field limits of the form). */
  value: 4096,
} as const;

// Pure (no `vscode`): who the data belongs to. An account is a user of a service: its key is
// `serviceUrl|email` (the email lower-cased), and what carries it where others may read it — the
// URIs of revision documents and of live files, kept by VS Code in tabs, recent files and
// restored windows — carries only its tag: the first 12 hex digits of the key's SHA-256, which
// tells two accounts apart and names neither the user nor the service.
import { createHash } from 'node:crypto';

/** The key of an account: `serviceUrl|email`, the email lower-cased. */
export function accountKeyOf(serviceUrl: string, email: string): string {
  return `${serviceUrl}|${email.toLowerCase()}`;
}

/** The tag of an account key: 12 hex digits of its SHA-256, never the key itself. */
export function accountTag(accountKey: string): string {
  return createHash('sha256').update(accountKey).digest('hex').slice(0, 12);
}


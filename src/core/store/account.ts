// The folder of one account's disk store, below the folder the extension owns
// (context.globalStorageUri): named by a hash of the service and the email, so that neither
// appears in a path, and two accounts (or two services) never share a cache.
import { createHash } from 'node:crypto';
import { requireServiceUrl } from '../api/url';

/**
 * The folder name for an account: 32 hex digits of SHA-256 over the service's normalized base
 * URL (origin and path prefix, without credentials, query or fragment) and the email as typed
 * (trimmed). Throws TypeError for an unusable service URL.
 */
export function accountFolderName(serviceUrl: string, email: string): string {
  const service = requireServiceUrl(serviceUrl).base;
  return createHash('sha256').update(`site-revisions-store\n${service}\n${String(email).trim()}`).digest('hex').slice(0, 32);
}

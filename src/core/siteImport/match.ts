// "Already on the service": the same server type, host, port, user and home directory, compared
// as the service would reach them (docs/decisions.md, "Import: sites already on the service").
import type { Site } from '../api/types';

/** What two sites are compared on (an imported site's fields, or a site of the service). */
export type Comparable = { [K in 'server_type' | 'domain' | 'port' | 'ftp_user' | 'dir' | 'encryption']?: string };

function defaultPort(type: string, encryption: string | undefined, domain: string): string {
  switch (type) {
    case 'FTP':
      return '21';
    case 'SFTP':
      return '22';
    case 'WebDAV':
      return /^http:/i.test(domain) || (!/^https:/i.test(domain) && encryption === '0') ? '80' : '443';
    default:
      return '';
  }
}

function host(type: string, domain: string): string {
  let h = domain.trim().toLowerCase();
  if (type === 'WebDAV' || type === 'AJAX') h = h.replace(/\/+$/, '');
  return h.replace(/\.$/, '');
}

function dir(d: string): string {
  const s = d.trim();
  return s.length > 1 ? s.replace(/\/+$/, '') : s;
}

/** The key two sites share when they reach the same place as the same user. */
export function siteKey(s: Comparable): string {
  const type = (s.server_type ?? '').trim().toLowerCase();
  const canonical = ['FTP', 'SFTP', 'WebDAV', 'AmazonS3', 'Dropbox', 'GDrive', 'GDriveLimited', 'AJAX', 'None'].find((x) => x.toLowerCase() === type) ?? type;
  const domain = s.domain ?? '';
  const p = (s.port ?? '').trim().replace(/^0+(?=\d)/, '');
  return JSON.stringify([canonical, host(canonical, domain), p === '' || p === '0' ? defaultPort(canonical, s.encryption, domain) : p, (s.ftp_user ?? '').trim(), dir(s.dir ?? '')]);
}

/** Whether an imported site is one the service already has. */
export function sameSite(a: Comparable, b: Site | Comparable): boolean {
  return siteKey(a) === siteKey(b);
}

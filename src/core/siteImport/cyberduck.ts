// Cyberduck bookmarks (`.duck`): an XML property list, one bookmark per file. The password is in
// the operating system's keychain, never in the bookmark: the preview says so.
import { english, type Translate } from '../util/l10n';
import { Rows, davUrl, port, toS3 } from './rows';
import type { ImportedFields, ImportResult } from './types';
import { ImportFileError } from './types';
import { elements, textOf, type XmlElement } from './xml';

export type PlistValue = string | boolean | PlistValue[] | { [key: string]: PlistValue };

/** A property list value: dict, array, string, integer, real, date, data as text, true / false. */
export function plistValue(el: XmlElement): PlistValue {
  switch (el.name) {
    case 'dict': {
      const out: { [key: string]: PlistValue } = {};
      const items = elements(el);
      for (let i = 0; i + 1 < items.length; i += 2) if (items[i]!.name === 'key') out[textOf(items[i])] = plistValue(items[i + 1]!);
      return out;
    }
    case 'array':
      return elements(el).map(plistValue);
    case 'true':
      return true;
    case 'false':
      return false;
    default:
      return textOf(el);
  }
}

/** Reads one bookmark (the property list's root element already parsed). */
export function readCyberduck(root: XmlElement, source: string, t: Translate = english): ImportResult {
  const top = elements(root)[0];
  const dict = root.name === 'plist' && top?.name === 'dict' ? (plistValue(top) as Record<string, PlistValue>) : undefined;
  if (!dict) throw new ImportFileError('unknown-format', t('This property list is not a Cyberduck bookmark (no <dict> in <plist>).'));
  const rows = new Rows(t);
  const s = (key: string) => (typeof dict[key] === 'string' ? (dict[key] as string).trim() : '');
  const protocol = s('Protocol').toLowerCase();
  const host = s('Hostname');
  const name = s('Nickname') || host;
  const path = s('Path');
  const notCarried: string[] = [t('the password: Cyberduck keeps it in the system’s keychain, not in the bookmark')];
  const fields: ImportedFields = { name, server_type: 'FTP' };
  const p = port(s('Port'));
  switch (protocol) {
    case 'ftp':
    case 'ftps':
      fields.domain = host;
      fields.encryption = protocol === 'ftps' ? '1' : '0';
      fields.port = p ?? '21';
      fields.pasv = /^(active|port)$/i.test(s('FTP Connect Mode')) ? '0' : '1';
      break;
    case 'sftp':
      fields.server_type = 'SFTP';
      fields.domain = host;
      fields.port = p ?? '22';
      break;
    case 'dav':
    case 'davs':
      fields.server_type = 'WebDAV';
      fields.encryption = protocol === 'davs' ? '1' : '0';
      fields.domain = davUrl(host, protocol === 'davs');
      if (p) fields.port = p;
      break;
    case 's3':
      toS3(fields, host, path, notCarried, t);
      break;
    case 'dropbox':
    case 'googledrive':
      fields.server_type = protocol === 'dropbox' ? 'Dropbox' : 'GDrive';
      notCarried[0] = t('the sign-in: access is authorized through the service');
      break;
    default:
      rows.leave(name, source, protocol ? t('Cyberduck’s “{0}” has no server type on the service', protocol) : t('the bookmark names no protocol'));
      return { format: 'cyberduck', sites: rows.sites, leftOut: rows.leftOut };
  }
  if (fields.server_type !== 'AmazonS3' && path) fields.dir = path;
  if (s('Username')) fields.ftp_user = s('Username');
  if (s('Private Key File')) {
    if (fields.server_type === 'SFTP') fields.logon_type = 'key';
    notCarried.push(t('the key file {0} (it stays on this computer)', s('Private Key File')));
  }
  if (s('Encoding')) fields.encoding = s('Encoding');
  else if (fields.server_type === 'FTP' || fields.server_type === 'SFTP') fields.encoding = 'UTF-8';
  if (/^https?:\/\//i.test(s('Web URL'))) fields.web_url = s('Web URL');
  if (s('Comment')) notCarried.push(t('the comment'));
  if (s('Download Folder')) notCarried.push(t('the download folder {0}', s('Download Folder')));
  if (s('Timezone')) notCarried.push(t('the server’s time zone'));
  rows.add({ fields, passwordIncluded: false, notCarried, source, passwordNote: notCarried[0]! });
  return { format: 'cyberduck', sites: rows.sites, leftOut: rows.leftOut };
}

// FileZilla's site manager (`sitemanager.xml`) and its exports (`FileZilla.xml`): the same
// <FileZilla3><Servers> tree of <Server> and <Folder> elements. Protocol, logon type, passive
// mode and the remote folder's own encoding as FileZilla's source defines them
// (docs/decisions.md, "Import: FileZilla").
import { english, type Translate } from '../util/l10n';
import { Rows, davUrl, port, siteNotes, toS3 } from './rows';
import type { ImportedFields, ImportResult } from './types';
import { ImportFileError } from './types';
import { child, elements, textOf, type XmlElement } from './xml';

/** FileZilla's protocol numbers (its ServerProtocol enumeration). */
export const FILEZILLA_PROTOCOLS: Record<number, string> = {
  0: 'FTP',
  1: 'SFTP',
  2: 'HTTP',
  3: 'FTPS',
  4: 'FTPES',
  5: 'HTTPS',
  6: 'INSECURE_FTP',
  7: 'S3',
  8: 'STORJ',
  9: 'WEBDAV',
  10: 'AZURE_FILE',
  11: 'AZURE_BLOB',
  12: 'SWIFT',
  13: 'GOOGLE_CLOUD',
  14: 'GOOGLE_DRIVE',
  15: 'DROPBOX',
  16: 'ONEDRIVE',
  17: 'B2',
  18: 'BOX',
  19: 'INSECURE_WEBDAV',
  20: 'RACKSPACE',
  21: 'STORJ_GRANT',
  22: 'S3_SSO',
  23: 'GOOGLE_CLOUD_SVC_ACC',
  24: 'CLOUDFLARE_R2',
};

/** FileZilla's FTP protocols: encryption and default port. */
const FTP_KINDS: Record<string, ['0' | '1', string]> = { FTP: ['0', '21'], INSECURE_FTP: ['0', '21'], FTPES: ['1', '21'], FTPS: ['1', '990'] };

/**
 * FileZilla's "safe path" of RemoteDir: `<type> <prefix length> [<prefix> ]<length> <segment> …`
 * (lengths in characters, so a segment may hold spaces). `1 0 4 home 8 web site` is
 * `/home/web site`. Undefined when the text is not one; `kind` is FileZilla's server type (1 Unix,
 * 2 VMS, 3 DOS, 4 MVS…).
 */
export function decodeRemoteDir(safe: string): { path: string; kind: number } | undefined {
  const s = [...safe];
  let i = 0;
  const num = (): number | undefined => {
    const start = i;
    while (i < s.length && s[i]! >= '0' && s[i]! <= '9') i++;
    if (i === start || i - start > 9) return undefined;
    return Number(s.slice(start, i).join(''));
  };
  const space = (): boolean => s[i++] === ' ';
  const kind = num();
  if (kind === undefined || !space()) return undefined;
  const prefixLen = num();
  if (prefixLen === undefined) return undefined;
  if (i === s.length) return prefixLen === 0 ? { path: '/', kind } : undefined;
  if (!space()) return undefined;
  let prefix = '';
  if (prefixLen > 0) {
    if (i + prefixLen > s.length) return undefined;
    prefix = s.slice(i, i + prefixLen).join('');
    i += prefixLen;
    if (i < s.length && !space()) return undefined;
  }
  const segments: string[] = [];
  while (i < s.length) {
    const len = num();
    if (!len || !space() || i + len > s.length) return undefined;
    segments.push(s.slice(i, i + len).join(''));
    i += len;
    if (i < s.length && !space()) return undefined;
  }
  return { path: kind === 3 ? `${prefix}${segments.join('\\')}` : `${prefix}/${segments.join('/')}`, kind };
}

/** Reads a FileZilla XML document (its root element already parsed). */
export function readFileZilla(root: XmlElement, t: Translate = english): ImportResult {
  if (root.name !== 'FileZilla3') throw new ImportFileError('unknown-format', t('This is not a FileZilla site file: its root element is <{0}>.', root.name.slice(0, 40)));
  const rows = new Rows(t);
  const servers = child(root, 'Servers');
  if (!servers) throw new ImportFileError('empty', t('This FileZilla file holds no site manager entries (no <Servers>): export the sites from FileZilla’s Site Manager, or choose sitemanager.xml.'));
  let n = 0;
  const walk = (el: XmlElement, folders: string[]) => {
    for (const c of elements(el)) {
      if (c.name === 'Folder') {
        const name = c.children.filter((x): x is string => typeof x === 'string').join('').trim();
        walk(c, name ? [...folders, name] : folders);
      } else if (c.name === 'Server') {
        n++;
        readServer(c, folders, `Server ${n}`, rows, t);
      }
    }
  };
  walk(servers, []);
  return { format: 'filezilla', sites: rows.sites, leftOut: rows.leftOut };
}

function readServer(el: XmlElement, folders: string[], source: string, rows: Rows, t: Translate): void {
  const v = (name: string) => textOf(child(el, name)).trim();
  // <Name> since FileZilla 3.x; older files have the name as the Server's own text.
  const ownName = v('Name') || el.children.filter((x): x is string => typeof x === 'string').join('').trim();
  const name = [...folders, ownName].filter(Boolean).join('/');
  const protocolNumber = Number(v('Protocol') || '0');
  const protocol = FILEZILLA_PROTOCOLS[protocolNumber];
  const { notCarried, noPassword, passwordNote } = siteNotes();
  const host = v('Host');
  const fields: ImportedFields = { name, server_type: 'FTP' };
  let defaultPort = '';
  const ftp = protocol ? FTP_KINDS[protocol] : undefined;
  if (ftp) {
    [fields.encryption, defaultPort] = ftp;
    if (protocol === 'FTP') notCarried.push(t('FileZilla’s “TLS if available”: saved as plain FTP; turn on FTPS in the site if the server offers it'));
    if (protocol === 'FTPS') notCarried.push(t('implicit TLS: saved as FTPS on its port (the site has no implicit / explicit choice)'));
  }
  switch (ftp ? 'FTP-family' : protocol) {
    case 'FTP-family':
      break;
    case 'SFTP':
      fields.server_type = 'SFTP';
      defaultPort = '22';
      break;
    case 'WEBDAV':
    case 'INSECURE_WEBDAV':
      fields.server_type = 'WebDAV';
      fields.encryption = protocol === 'WEBDAV' ? '1' : '0';
      break;
    case 'S3':
      fields.server_type = 'AmazonS3';
      break;
    case 'GOOGLE_DRIVE':
    case 'DROPBOX':
      fields.server_type = protocol === 'DROPBOX' ? 'Dropbox' : 'GDrive';
      notCarried.push(t('the sign-in: access is authorized through the service'));
      break;
    default:
      return rows.leave(name, source, protocol ? t('FileZilla’s {0} has no server type on the service', protocol) : t('unknown FileZilla protocol {0}', v('Protocol')));
  }
  const remote = v('RemoteDir');
  let dir = '';
  if (remote) {
    const decoded = decodeRemoteDir(remote);
    if (!decoded) notCarried.push(t('the remote folder (not in FileZilla’s form)'));
    else if (decoded.kind === 2 || decoded.kind === 4) notCarried.push(t('the remote folder (a VMS or MVS path)'));
    else dir = decoded.path;
  }
  if (fields.server_type === 'AmazonS3') {
    toS3(fields, host, dir, notCarried, t);
  } else if (fields.server_type === 'Dropbox' || fields.server_type === 'GDrive') {
    fields.dir = dir;
  } else {
    fields.domain = fields.server_type === 'WebDAV' ? davUrl(host, fields.encryption === '1') : host;
    fields.dir = dir;
    const p = port(v('Port')) ?? (defaultPort || undefined);
    if (p) fields.port = p;
    if (fields.server_type === 'FTP') fields.pasv = v('PasvMode') === 'MODE_ACTIVE' ? '0' : '1';
  }
  // Logon types (FileZilla's LogonType): 0 anonymous, 1 normal, 2 ask, 3 interactive, 4 account, 5 key, 6 profile.
  const logon = Number(v('Logontype') || '1');
  const user = v('User');
  let passwordIncluded = false;
  if (logon === 0) {
    fields.ftp_user = 'anonymous';
  } else {
    if (user) fields.ftp_user = user;
    if (logon === 2 || logon === 3) noPassword(t('the password: FileZilla asks for it each time'));
    if (logon === 4 && v('Account')) notCarried.push(t('the FTP account {0}', v('Account')));
    if (logon === 5) {
      fields.logon_type = 'key';
      notCarried.push(v('Keyfile') ? t('the key file {0} (it stays on this computer)', v('Keyfile')) : t('the key file (it stays on this computer)'));
    }
    if (logon === 6) notCarried.push(t('the AWS profile sign-in'));
    const pass = child(el, 'Pass');
    if (pass && logon !== 2 && logon !== 3) {
      const enc = (pass.attrs.encoding ?? '').toLowerCase();
      const raw = textOf(pass);
      if (enc === 'crypt') noPassword(t('the password: encrypted with FileZilla’s master password, not imported'));
      else if (enc === 'base64') {
        const decoded = decodeBase64(raw.trim());
        if (decoded === undefined) noPassword(t('the password: it does not decode'));
        else if (decoded) {
          fields.ftp_pass = decoded;
          passwordIncluded = true;
        }
      } else if (enc === '' && raw) {
        fields.ftp_pass = raw;
        passwordIncluded = true;
      } else if (enc) noPassword(t('the password: stored in a way not read here ({0})', enc));
    }
  }
  const encodingType = v('EncodingType');
  if (encodingType === 'Custom' && v('CustomEncoding')) fields.encoding = v('CustomEncoding');
  else if (fields.server_type === 'FTP' || fields.server_type === 'SFTP') fields.encoding = 'UTF-8';
  if (v('LocalDir')) notCarried.push(t('the local folder {0}: map one with “Map Site to Local Folder…”', v('LocalDir')));
  if (v('Comments')) notCarried.push(t('the comments'));
  if (v('PostLoginCommands') || child(el, 'PostLoginCommands')?.children.length) notCarried.push(t('the commands after login'));
  if (v('BypassProxy') === '1') notCarried.push(t('“bypass proxy”'));
  if (v('TimezoneOffset') && v('TimezoneOffset') !== '0') notCarried.push(t('the server’s time zone offset'));
  if (v('MaximumMultipleConnections') && v('MaximumMultipleConnections') !== '0') notCarried.push(t('the limit of connections'));
  if (v('SyncBrowsing') === '1' || v('DirectoryComparison') === '1') notCarried.push(t('synchronized browsing and directory comparison'));
  rows.add({ fields, passwordIncluded, notCarried, source, ...passwordNote() });
}

/** Base64 → UTF-8 text; undefined when it is not base64 of UTF-8. */
export function decodeBase64(s: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 === 1) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(s, 'base64'));
  } catch {
    return undefined;
  }
}

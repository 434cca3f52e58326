// Dreamweaver site definitions (`.ste`): <site> with <localinfo> (the site's name, local folder,
// web address) and either one <remoteinfo> (before CS5) or a <serverlist> of <server> elements.
// Names are URL-encoded; attribute names come in either case. The password (`pw`) is obfuscated by
// a simple scheme (each character's code plus its position, in hex): decoded here.
import { english, type Translate } from '../util/l10n';
import { Rows, davUrl, flag, port, siteNotes } from './rows';
import type { ImportedFields, ImportResult } from './types';
import { ImportFileError } from './types';
import { attr, child, elements, type XmlElement } from './xml';

/** Dreamweaver's password obfuscation: hex pairs, each the character's code plus its index. Undefined when it is not one. */
export function decodeDreamweaverPassword(hex: string): string | undefined {
  if (!/^(?:[0-9A-Fa-f]{2})*$/.test(hex)) return undefined;
  let out = '';
  for (let i = 0; i < hex.length / 2; i++) {
    const code = parseInt(hex.slice(2 * i, 2 * i + 2), 16) - i;
    if (code < 0) return undefined;
    out += String.fromCharCode(code);
  }
  return out;
}

function urlDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Reads a .ste document (its root element already parsed). */
export function readDreamweaver(root: XmlElement, t: Translate = english): ImportResult {
  if (root.name.toLowerCase() !== 'site') throw new ImportFileError('unknown-format', t('This is not a Dreamweaver site definition: its root element is <{0}>.', root.name.slice(0, 40)));
  const local = elements(root).find((e) => e.name.toLowerCase() === 'localinfo');
  const siteName = urlDecoded(local ? (attr(local, 'sitename') ?? '') : '').trim();
  const web = local ? (attr(local, 'httpaddress') ?? '').trim() : '';
  const localRoot = local ? urlDecoded(attr(local, 'localroot') ?? '').trim() : '';
  const list = elements(root).find((e) => e.name.toLowerCase() === 'serverlist');
  const servers = list ? elements(list).filter((e) => e.name.toLowerCase() === 'server') : elements(root).filter((e) => e.name.toLowerCase() === 'remoteinfo');
  const rows = new Rows(t);
  if (!servers.length) throw new ImportFileError('empty', t('This Dreamweaver site has no server (no <remoteinfo> or <serverlist>).'));
  servers.forEach((s, i) => {
    const serverName = urlDecoded(attr(s, 'name') ?? '').trim();
    const name = servers.length > 1 && serverName ? `${siteName || serverName} (${serverName})` : siteName || serverName;
    readServer(s, name, list ? `server ${i + 1}` : 'remoteinfo', web, localRoot, rows, t);
  });
  return { format: 'dreamweaver', sites: rows.sites, leftOut: rows.leftOut };
}

function readServer(s: XmlElement, name: string, source: string, web: string, localRoot: string, rows: Rows, t: Translate): void {
  const a = (n: string) => (attr(s, n) ?? '').trim();
  const access = a('accesstype').toLowerCase();
  const { notCarried, noPassword, passwordNote } = siteNotes();
  let host = a('host');
  let p = port(a('port'));
  // Before CS5 a port was written after the host (`ftp.example.com:2121`).
  const hostPort = /^([^:/]+):([0-9]{1,5})$/.exec(host);
  if (hostPort && !/^https?:/i.test(host)) {
    host = hostPort[1]!;
    p = p ?? port(hostPort[2]);
  }
  const fields: ImportedFields = { name, server_type: 'FTP' };
  if (access === 'ftp' || access === 'sftp') {
    const sftp = access === 'sftp' || flag(a('usesftp')) === '1';
    fields.server_type = sftp ? 'SFTP' : 'FTP';
    fields.domain = host;
    fields.port = p ?? (sftp ? '22' : '21');
    if (!sftp) {
      fields.pasv = flag(a('usepasv')) ?? '1';
      fields.encryption = flag(a('useftps')) ?? '0';
    }
    fields.encoding = 'UTF-8';
    if (flag(a('usefirewall')) === '1') notCarried.push(t('the firewall (proxy) setting'));
  } else if (access === 'webdav') {
    fields.server_type = 'WebDAV';
    const secure = /^https:/i.test(host);
    fields.domain = davUrl(host, secure);
    fields.encryption = secure ? '1' : '0';
    if (p) fields.port = p;
  } else {
    return rows.leave(name, source, access === 'local' || access === 'network' ? t('a local or network folder, not a server') : t('Dreamweaver’s access type “{0}” has no server type on the service', access.slice(0, 40)));
  }
  if (a('remoteroot')) fields.dir = urlDecoded(a('remoteroot'));
  if (a('user')) fields.ftp_user = a('user');
  let passwordIncluded = false;
  const pw = a('pw');
  if (pw) {
    const decoded = decodeDreamweaverPassword(pw);
    if (decoded === undefined) noPassword(t('the password: it does not decode'));
    else {
      fields.ftp_pass = decoded;
      passwordIncluded = true;
    }
  } else if (flag(a('savepw')) === '0') noPassword(t('the password: Dreamweaver did not save it'));
  const url = a('weburl') || web;
  if (/^https?:\/\//i.test(url)) fields.web_url = url;
  if (localRoot) notCarried.push(t('the local folder {0}: map one with “Map Site to Local Folder…”', localRoot));
  if (child(s, 'checkout') || flag(a('checkoutfiles')) === '1') notCarried.push(t('Dreamweaver’s check in / check out'));
  rows.add({ fields, passwordIncluded, notCarried, source, ...passwordNote() });
}

// WinSCP's configuration file (`WinSCP.ini`): one `[Sessions\<name>]` section per site, the name
// URL-encoded (a `/` in it is a folder). FSProtocol in the current numbering (0 SCP, 1 SFTP with
// SCP fallback, 2 SFTP, 5 FTP, 6 WebDAV, 7 S3) and the old one of sessions that still carry
// `FtpEncryption` (6 FTPS, 7 HTTP, 8 HTTPS). Passwords are obfuscated, not encrypted, by
// WinSCP's documented scheme: decoded here, unless a master password encrypted them
// (docs/decisions.md, "Import: WinSCP").
import { english, type Translate } from '../util/l10n';
import { Rows, davUrl, port, siteNotes, toS3 } from './rows';
import type { ImportedFields, ImportResult } from './types';
import { ImportFileError } from './types';

/** An INI file's sections in order: name → keys (the first of a repeated key wins, as WinSCP reads). */
export function parseIni(text: string): { name: string; keys: Map<string, string> }[] {
  const out: { name: string; keys: Map<string, string> }[] = [];
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r\n|\n|\r/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const section = /^\[(.*)\]$/.exec(line);
    if (section) {
      current = new Map();
      out.push({ name: section[1]!, keys: current });
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || !current) continue;
    const key = line.slice(0, eq).trim();
    if (!current.has(key)) current.set(key, line.slice(eq + 1).trim());
  }
  return out;
}

/** WinSCP's escaping of session names (`%20` for a space, UTF-8 bytes); the text as it is when it is not. */
export function decodeSessionName(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const MAGIC = 0xa3;
const FLAG = 0xff;

/**
 * WinSCP's documented password obfuscation (PWALG_SIMPLE): hex pairs, each byte `~(b ^ 0xA3)`; a
 * flag (0xFF: versioned, then a version byte and the length in one or two bytes; else the flag is
 * the length), a count of random bytes to skip, then the bytes of `user + host + password`.
 * `external` when the value is encrypted with a master password (version 0x01).
 */
export function decodeWinScpPassword(hex: string, user: string, host: string): { ok: true; password: string } | { ok: false; external: boolean } {
  if (!/^(?:[0-9A-Fa-f]{2})+$/.test(hex)) return { ok: false, external: false };
  const bytes: number[] = [];
  for (let i = 0; i < hex.length; i += 2) bytes.push(~(parseInt(hex.slice(i, i + 2), 16) ^ MAGIC) & 0xff);
  let i = 0;
  const next = () => (i < bytes.length ? bytes[i++]! : -1);
  const flag = next();
  let length: number;
  if (flag === FLAG) {
    const version = next();
    if (version === 0x01) return { ok: false, external: true };
    if (version === 0x00) length = next();
    else if (version === 0x02) length = (next() << 8) + next();
    else return { ok: false, external: false };
  } else {
    length = flag;
  }
  const skip = next();
  if (length < 0 || skip < 0) return { ok: false, external: false };
  i += skip;
  if (i + length > bytes.length) return { ok: false, external: false };
  const raw = Buffer.from(bytes.slice(i, i + length));
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return { ok: false, external: false };
  }
  if (flag === FLAG) {
    const key = user + host;
    if (!text.startsWith(key)) return { ok: false, external: false };
    text = text.slice(key.length);
  }
  return { ok: true, password: text };
}

/** Reads WinSCP.ini text. */
export function readWinScp(text: string, t: Translate = english): ImportResult {
  const sections = parseIni(text);
  const sessions = sections.filter((s) => /^Sessions\\/i.test(s.name));
  if (!sessions.length) throw new ImportFileError('empty', t('This WinSCP file holds no stored sites (no [Sessions\\…] section). Export the configuration from WinSCP (Tools › Export/Backup Configuration) and choose that file.'));
  const security = sections.find((s) => s.name.toLowerCase() === 'configuration\\security');
  const masterPassword = security?.keys.get('UseMasterPassword') === '1';
  const rows = new Rows(t);
  for (const s of sessions) {
    const name = decodeSessionName(s.name.slice('Sessions\\'.length));
    if (name === 'Default Settings') continue;
    readSession(name, `[${s.name}]`, s.keys, masterPassword, rows, t);
  }
  return { format: 'winscp', sites: rows.sites, leftOut: rows.leftOut };
}

function readSession(name: string, source: string, k: Map<string, string>, masterPassword: boolean, rows: Rows, t: Translate): void {
  const v = (key: string) => k.get(key) ?? '';
  const { notCarried, noPassword, passwordNote } = siteNotes();
  const host = v('HostName');
  const user = decodeSessionName(v('UserName'));
  const fields: ImportedFields = { name, server_type: 'SFTP' };
  // Sessions written before the renumbering carry FtpEncryption instead of Ftps.
  const old = k.has('FtpEncryption') && !k.has('Ftps');
  const fs = Number(v('FSProtocol') || '1');
  const ftps = Number(old ? v('FtpEncryption') || '0' : v('Ftps') || '0');
  let kind: 'sftp' | 'ftp' | 'dav' | 's3';
  let secure = ftps !== 0;
  if (old && fs === 6) {
    kind = 'ftp';
    secure = true;
  } else if (old && (fs === 7 || fs === 8)) {
    kind = 'dav';
    secure = fs === 8;
  } else if (fs === 0 || fs === 1 || fs === 2 || fs === 3 || fs === 4) {
    kind = 'sftp';
    if (fs === 0) notCarried.push(t('SCP: saved as SFTP (the service has no SCP; SSH servers usually offer both)'));
  } else if (fs === 5) kind = 'ftp';
  else if (fs === 6) kind = 'dav';
  else if (fs === 7) kind = 's3';
  else return rows.leave(name, source, t('unknown WinSCP protocol {0}', v('FSProtocol')));
  const remote = decodeSessionName(v('RemoteDirectory'));
  const p = port(v('PortNumber'));
  switch (kind) {
    case 'sftp':
      fields.domain = host;
      fields.port = p ?? '22';
      break;
    case 'ftp':
      fields.server_type = 'FTP';
      fields.domain = host;
      fields.encryption = secure ? '1' : '0';
      fields.port = p ?? (ftps === 1 && !old ? '990' : '21');
      if (ftps === 1 && !old) notCarried.push(t('implicit TLS: saved as FTPS on its port (the site has no implicit / explicit choice)'));
      fields.pasv = v('FtpPasvMode') === '0' ? '0' : '1';
      break;
    case 'dav':
      fields.server_type = 'WebDAV';
      fields.encryption = secure ? '1' : '0';
      fields.domain = davUrl(host, secure);
      if (p) fields.port = p;
      break;
    case 's3':
      toS3(fields, host, remote, notCarried, t);
      break;
  }
  if (kind !== 's3' && remote) fields.dir = remote;
  if (user) fields.ftp_user = user;
  let passwordIncluded = false;
  const stored = v('Password');
  if (stored) {
    if (masterPassword) noPassword(t('the password: encrypted with WinSCP’s master password, not imported'));
    else {
      const r = decodeWinScpPassword(stored, user, host);
      if (r.ok) {
        if (r.password) {
          fields.ftp_pass = r.password;
          passwordIncluded = true;
        }
      } else noPassword(r.external ? t('the password: encrypted with WinSCP’s master password, not imported') : t('the password: it does not decode'));
    }
  }
  if (v('PublicKeyFile')) {
    if (kind === 'sftp') fields.logon_type = 'key';
    notCarried.push(t('the key file {0} (it stays on this computer)', decodeSessionName(v('PublicKeyFile'))));
  }
  if (kind === 'ftp' || kind === 'sftp') fields.encoding = 'UTF-8';
  if (v('LocalDirectory')) notCarried.push(t('the local folder {0}: map one with “Map Site to Local Folder…”', decodeSessionName(v('LocalDirectory'))));
  if (v('Note')) notCarried.push(t('the note'));
  if (v('ProxyMethod') && v('ProxyMethod') !== '0') notCarried.push(t('the proxy settings'));
  if (v('Tunnel') === '1') notCarried.push(t('the SSH tunnel'));
  rows.add({ fields, passwordIncluded, notCarried, source, ...passwordNote() });
}

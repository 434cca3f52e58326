// The service's sites → vscode-sftp's sftp.json or a FileZilla XML file, and the file written
// readable by its owner only (0600), atomically: a temporary file renamed into place, so a
// cancelled or failed write leaves no half-written file. Passwords only when asked for.
import * as path from 'node:path';
import type { Site } from '../api/types';
import { writeAtomic } from '../store/files';
import { english, type Translate } from '../util/l10n';

export interface ExportOptions {
  /** Write each site's password (`ftp_pass`) too. */
  includePasswords: boolean;
}

/** A written file's text, and the sites (or parts of them) it could not hold. */
export interface ExportResult {
  text: string;
  written: number;
  /** "“Name”: why" for each site or field left out. */
  notes: string[];
}

function defaultPortOf(s: Site): number | undefined {
  const p = Number((s.port ?? '').trim());
  return Number.isInteger(p) && p >= 1 && p <= 65535 ? p : undefined;
}

/**
 * vscode-sftp's configuration: one site → one object; several → one object whose `profiles`
 * hold each site (vscode-sftp merges the chosen profile over the object), the first one the
 * default. Only FTP and SFTP sites: vscode-sftp knows no other protocol.
 */
export function exportSftpJson(sites: readonly Site[], o: ExportOptions, t: Translate = english): ExportResult {
  const notes: string[] = [];
  const configs: [string, Record<string, unknown>][] = [];
  const used = new Set<string>();
  for (const s of sites) {
    const type = s.server_type.trim();
    if (type !== 'FTP' && type !== 'SFTP') {
      notes.push(t('“{0}”: a {1} site, which vscode-sftp cannot reach (FTP and SFTP only): left out', s.name, type || 'None'));
      continue;
    }
    const c: Record<string, unknown> = { name: s.name, protocol: type.toLowerCase(), host: s.domain.trim() };
    const p = defaultPortOf(s);
    c.port = p ?? (type === 'SFTP' ? 22 : 21);
    if (s.ftp_user) c.username = s.ftp_user;
    if (o.includePasswords && s.ftp_pass) c.password = s.ftp_pass;
    c.remotePath = s.dir.trim() || '/';
    if (type === 'FTP' && s.encryption.trim() === '1') c.secure = true;
    c.uploadOnSave = s.upload_on_save.trim() === '1';
    if (type === 'SFTP' && s.logon_type === 'key') notes.push(t('“{0}”: key sign-in; vscode-sftp needs the key file (privateKeyPath) added by hand', s.name));
    if (type === 'FTP' && s.pasv.trim() === '0') notes.push(t('“{0}”: active mode, which sftp.json cannot say', s.name));
    let key = s.name.trim() || s.domain;
    for (let i = 2; used.has(key); i++) key = `${s.name} (${i})`;
    used.add(key);
    configs.push([key, c]);
  }
  let value: unknown;
  if (configs.length === 1) value = configs[0]![1];
  else if (configs.length > 1) {
    const profiles: Record<string, unknown> = {};
    for (const [key, c] of configs) {
      const { name: _n, ...rest } = c;
      profiles[key] = rest;
    }
    value = { name: configs[0]![0], profiles, defaultProfile: configs[0]![0] };
  }
  return { text: value === undefined ? '' : `${JSON.stringify(value, null, 2)}\n`, written: configs.length, notes };
}

// XML 1.0 cannot hold these characters at all (even as references).
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function xmlText(s: string): string {
  return s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** An absolute Unix path in FileZilla's "safe path" form (`1 0 4 home 3 www`). */
export function encodeRemoteDir(dir: string): string {
  const segs = dir.split('/').filter(Boolean);
  return ['1', '0', ...segs.map((x) => `${[...x].length} ${x}`)].join(' ');
}

/**
 * A FileZilla site manager export (<FileZilla3><Servers>): names with `/` become folders, as the
 * import reads them. Passwords base64, as FileZilla writes them without a master password.
 */
export function exportFileZilla(sites: readonly Site[], o: ExportOptions, t: Translate = english): ExportResult {
  const notes: string[] = [];
  type Folder = { folders: Map<string, Folder>; servers: string[] };
  const top: Folder = { folders: new Map(), servers: [] };
  let written = 0;
  for (const s of sites) {
    const type = s.server_type.trim();
    const f: [string, string][] = [];
    let host = s.domain.trim();
    let p = defaultPortOf(s);
    let protocol: number;
    let dir = s.dir.trim();
    switch (type) {
      case 'FTP':
        protocol = s.encryption.trim() === '1' ? (p === 990 ? 3 : 4) : 0;
        p = p ?? 21;
        break;
      case 'SFTP':
        protocol = 1;
        p = p ?? 22;
        break;
      case 'WebDAV': {
        let u: URL | undefined;
        try {
          u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `${s.encryption.trim() === '0' ? 'http' : 'https'}://${host}`);
        } catch {
          u = undefined;
        }
        if (!u) {
          notes.push(t('“{0}”: its server URL does not read as one: left out', s.name));
          continue;
        }
        protocol = u.protocol === 'http:' ? 19 : 9;
        host = u.hostname;
        p = p ?? (u.port ? Number(u.port) : u.protocol === 'http:' ? 80 : 443);
        if (u.pathname !== '/' && !dir) dir = u.pathname;
        break;
      }
      case 'AmazonS3':
        protocol = 7;
        dir = `/${[host, dir].filter(Boolean).join('/')}`;
        host = 's3.amazonaws.com';
        p = 443;
        break;
      case 'Dropbox':
        protocol = 15;
        break;
      case 'GDrive':
      case 'GDriveLimited':
        protocol = 14;
        break;
      default:
        notes.push(t('“{0}”: a {1} site, which FileZilla cannot reach: left out', s.name, type || 'None'));
        continue;
    }
    if (host) f.push(['Host', host]);
    if (p) f.push(['Port', String(p)]);
    f.push(['Protocol', String(protocol)], ['Type', '0']);
    const user = s.ftp_user.trim();
    const pass = o.includePasswords ? s.ftp_pass : '';
    if (user) f.push(['User', user]);
    let logon = user ? (pass ? 1 : 2) : 0;
    if (type === 'SFTP' && s.logon_type === 'key') {
      logon = 5;
      notes.push(t('“{0}”: key sign-in; choose the key file in FileZilla', s.name));
    }
    let passXml = '';
    if (pass && logon === 1) passXml = `<Pass encoding="base64">${Buffer.from(pass, 'utf8').toString('base64')}</Pass>`;
    const segments = s.name.split('/').map((x) => x.trim()).filter(Boolean);
    const own = segments.pop() ?? s.name;
    const rest: [string, string][] = [['Logontype', String(logon)]];
    if (protocol === 0 || protocol === 3 || protocol === 4) rest.push(['PasvMode', s.pasv.trim() === '0' ? 'MODE_ACTIVE' : 'MODE_PASSIVE']);
    const enc = s.encoding.trim();
    if (enc && enc.toUpperCase() !== 'UTF-8') rest.push(['EncodingType', 'Custom'], ['CustomEncoding', enc]);
    else rest.push(['EncodingType', 'Auto']);
    rest.push(['BypassProxy', '0'], ['Name', own]);
    if (dir.startsWith('/')) rest.push(['RemoteDir', encodeRemoteDir(dir)]);
    else if (dir) notes.push(t('“{0}”: its home directory {1} is relative to the login folder, which FileZilla cannot say: left out', s.name, dir));
    rest.push(['SyncBrowsing', '0'], ['DirectoryComparison', '0']);
    const body = [...f.map(([k, v]) => `<${k}>${xmlText(v)}</${k}>`), ...(passXml ? [passXml] : []), ...rest.map(([k, v]) => `<${k}>${xmlText(v)}</${k}>`)];
    let folder = top;
    for (const seg of segments) {
      let next = folder.folders.get(seg);
      if (!next) folder.folders.set(seg, (next = { folders: new Map(), servers: [] }));
      folder = next;
    }
    folder.servers.push(body.join(''));
    written++;
  }
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', '<FileZilla3>', '  <Servers>'];
  const emit = (folder: Folder, indent: string) => {
    for (const [name, sub] of folder.folders) {
      lines.push(`${indent}<Folder expanded="1">${xmlText(name)}`);
      emit(sub, `${indent}  `);
      lines.push(`${indent}</Folder>`);
    }
    for (const s of folder.servers) lines.push(`${indent}<Server>${s}</Server>`);
  };
  emit(top, '    ');
  lines.push('  </Servers>', '</FileZilla3>', '');
  return { text: lines.join('\n'), written, notes };
}

/**
 * Writes `text` to `file` readable by its owner only (0600), atomically: nothing half-written is
 * left by a failure, and a file that was there is replaced whole (a rename: its old permissions
 * go with it).
 */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  await writeAtomic(path.dirname(file), file, text);
}

// vscode-sftp's `sftp.json` (also Natizyskunk's fork): one configuration object, an array of them
// (one per `context` folder), or an object with `profiles` (each profile merged over the object,
// as vscode-sftp does). JSON with comments, read with jsonc-parser (VS Code's own).
import * as path from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { english, type Translate } from '../util/l10n';
import { Rows, flag, port } from './rows';
import type { ImportedFields, ImportResult } from './types';
import { ImportFileError } from './types';

type Json = Record<string, unknown>;

/** What vscode-sftp's options are for (besides a site's connection): named once in the preview when a configuration has any. */
const OWN_OPTIONS = ['ignore', 'ignoreFile', 'watcher', 'syncOption', 'downloadOnOpen', 'remoteExplorer', 'concurrency', 'remoteTimeOffsetInHours', 'filePerm', 'dirPerm', 'connectTimeout', 'hop', 'algorithms', 'sshConfigPath', 'sshCustomParams', 'limitOpenFilesOnRemote', 'interactiveAuth'];

/**
 * The local folder a configuration belongs to: the folder that holds `.vscode/sftp.json` (or the
 * file's own folder), then its `context`, as vscode-sftp resolves it.
 */
export function configFolder(file: string, context: unknown): string {
  const dir = path.dirname(file);
  const root = path.basename(dir) === '.vscode' ? path.dirname(dir) : dir;
  return typeof context === 'string' && context.trim() ? path.resolve(root, context.trim()) : root;
}

/** Reads sftp.json text; `file` is where it was read from (for the folder that goes with each site). */
export function readVscodeSftp(text: string, file: string, t: Translate = english): ImportResult {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  if (errors.length) {
    const e = errors[0]!;
    const before = text.slice(0, e.offset);
    const line = before.split('\n').length;
    throw new ImportFileError('malformed', t('The file is not valid JSON (line {0}: {1}). It may be cut off; fix it or export it again.', line, printParseErrorCode(e.error)));
  }
  const configs: Json[] = Array.isArray(value) ? (value as unknown[]).filter(isObject) : isObject(value) ? [value] : [];
  if (!configs.length) throw new ImportFileError('empty', t('The file holds no vscode-sftp configuration (an object, or a list of them).'));
  const rows = new Rows(t);
  configs.forEach((c, i) => {
    const where = Array.isArray(value) ? `[${i}]` : '';
    const profiles = isObject(c.profiles) ? Object.entries(c.profiles).filter((e): e is [string, Json] => isObject(e[1])) : [];
    const { profiles: _p, ...base } = c;
    if (profiles.length) {
      for (const [profile, over] of profiles) {
        const merged = { ...base, ...over };
        const label = typeof base.name === 'string' && base.name.trim() ? `${base.name.trim()} (${profile})` : profile;
        readConfig(merged, label, `${where}profiles.${profile}`, file, rows, t);
      }
    } else {
      readConfig(base, typeof base.name === 'string' ? base.name.trim() : '', where || 'sftp.json', file, rows, t);
    }
  });
  return { format: 'vscode-sftp', sites: rows.sites, leftOut: rows.leftOut };
}

function isObject(v: unknown): v is Json {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function readConfig(c: Json, name: string, source: string, file: string, rows: Rows, t: Translate): void {
  const str = (k: string) => (typeof c[k] === 'string' ? (c[k] as string).trim() : typeof c[k] === 'number' ? String(c[k]) : '');
  const protocol = (str('protocol') || 'sftp').toLowerCase();
  const host = str('host');
  const notCarried: string[] = [];
  if (!host) return rows.leave(name, source, str('remote') ? t('it names an SSH config host ({0}) instead of a host', str('remote')) : t('it names no host'));
  const fields: ImportedFields = { name: name || host, server_type: 'SFTP', domain: host, encoding: 'UTF-8' };
  if (protocol === 'ftp') {
    fields.server_type = 'FTP';
    const secure = c.secure;
    fields.encryption = secure === true || secure === 'control' || secure === 'implicit' ? '1' : '0';
    if (secure === 'implicit') notCarried.push(t('implicit TLS: saved as FTPS on its port (the site has no implicit / explicit choice)'));
    if (secure === 'control') notCarried.push(t('TLS on the control connection only: saved as FTPS'));
    fields.port = port(c.port) ?? (secure === 'implicit' ? '990' : '21');
    fields.pasv = flag(c.passive) ?? '1';
  } else if (protocol === 'sftp') {
    fields.port = port(c.port) ?? '22';
  } else {
    return rows.leave(fields.name, source, t('vscode-sftp’s protocol “{0}” has no server type on the service', protocol.slice(0, 40)));
  }
  if (str('username')) fields.ftp_user = str('username');
  let passwordIncluded = false;
  if (typeof c.password === 'string' && c.password !== '') {
    fields.ftp_pass = c.password;
    passwordIncluded = true;
  }
  fields.dir = str('remotePath') || '/';
  const upload = flag(c.uploadOnSave);
  if (upload) fields.upload_on_save = upload;
  if (str('privateKeyPath')) {
    if (fields.server_type === 'SFTP') fields.logon_type = 'key';
    notCarried.push(t('the key file {0} (it stays on this computer)', str('privateKeyPath')));
  }
  if (c.passphrase !== undefined && c.passphrase !== '') notCarried.push(t('the key’s passphrase'));
  if (str('agent')) notCarried.push(t('the SSH agent setting'));
  const own = OWN_OPTIONS.filter((k) => c[k] !== undefined);
  if (own.length) notCarried.push(t('vscode-sftp’s own options ({0})', own.join(', ')));
  rows.add({ fields, passwordIncluded, notCarried, source, localFolder: configFolder(file, c.context) });
}

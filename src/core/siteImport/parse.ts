// A site file's text (or the file, read bounded) → its sites: the format told by what the file
// holds. Runs on the import's own thread in the extension (./siteImportWorker.ts, ./offThread.ts);
// plain calls in tests and the benchmark.
import * as path from 'node:path';
import { english, type Translate } from '../util/l10n';
import { readCyberduck } from './cyberduck';
import { readDreamweaver } from './dreamweaver';
import { readFileZilla } from './filezilla';
import { decodeImportText, readImportBytes } from './text';
import { ImportFileError, type ImportResult } from './types';
import { readVscodeSftp } from './vscodeSftp';
import { readWinScp } from './winscp';
import { parseXml } from './xml';

/**
 * The sites of a file's text. The format is told by what the file holds (its name only breaks a
 * tie): JSON → vscode-sftp; XML by its root element (FileZilla3, plist, site); INI with
 * `[Sessions\…]` → WinSCP.
 */
export function parseSiteText(text: string, file: string, t: Translate = english): ImportResult {
  const body = text.replace(/^\uFEFF/, '');
  const start = body.trimStart();
  if (!start) throw new ImportFileError('empty', t('The file is empty.'));
  const json = start[0] === '{' || start.startsWith('//') || start.startsWith('/*') || /^\[\s*[{\]]/.test(start);
  if (json) {
    return readVscodeSftp(body, file, t);
  }
  if (start[0] === '<') {
    const root = parseXml(body, t);
    if (root.name === 'FileZilla3') return readFileZilla(root, t);
    if (root.name === 'plist') return readCyberduck(root, path.basename(file), t);
    if (root.name.toLowerCase() === 'site') return readDreamweaver(root, t);
    throw new ImportFileError('unknown-format', t('This XML file is not a site file of a known tool (its root element is <{0}>). Choose FileZilla’s sitemanager.xml or an export, a Cyberduck .duck bookmark or a Dreamweaver .ste file.', root.name.slice(0, 40)));
  }
  if (/^\[/m.test(start)) return readWinScp(body, t);
  throw new ImportFileError('unknown-format', t('This is not a site file of a known tool. Choose FileZilla’s sitemanager.xml or an export, WinSCP.ini, a Cyberduck .duck bookmark, a vscode-sftp sftp.json or a Dreamweaver .ste file.'));
}

/** Reads a file (bounded) and parses it. */
export async function parseSiteFile(file: string, t: Translate = english): Promise<ImportResult> {
  const bytes = await readImportBytes(file, t);
  return parseSiteText(decodeImportText(bytes, t), file, t);
}

// Bytes of an import file → text: the size bounded before anything is read whole, UTF-8 (with or
// without a byte order mark), UTF-16 with a byte order mark, or ISO-8859-1 / Windows-1252 when an
// XML declaration names it. Anything else is refused with a message that says what to do.
import { promises as fsp } from 'node:fs';
import { english, type Translate } from '../util/l10n';
import { IMPORT_LIMITS, ImportFileError } from './types';

/** Reads at most `IMPORT_LIMITS.fileBytes` (+1 to know it is larger) of a file. */
export async function readImportBytes(file: string, t: Translate = english, limit: number = IMPORT_LIMITS.fileBytes): Promise<Uint8Array> {
  const handle = await fsp.open(file, 'r');
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new ImportFileError('malformed', t('This is not a file.'));
    if (st.size > limit) throw tooLarge(st.size, limit, t);
    // A file that grows while it is read (or reports no size) is still cut at the bound.
    const buf = Buffer.alloc(Math.min(limit + 1, Math.max(st.size, 64 * 1024) + 1));
    let n = 0;
    for (;;) {
      if (n === buf.length) break;
      const { bytesRead } = await handle.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > limit) throw tooLarge(n, limit, t);
    return buf.subarray(0, n);
  } finally {
    await handle.close();
  }
}

function tooLarge(size: number, limit: number, t: Translate): ImportFileError {
  const mb = (b: number) => (b / (1024 * 1024)).toFixed(1);
  return new ImportFileError('too-large', t('The file is {0} MB: site files are far smaller, and at most {1} MB is read. Choose the site manager’s own file or an export of it.', mb(size), mb(limit)));
}

const LATIN1 = /^(iso-8859-1|iso8859-1|latin-?1|windows-1252|cp1252|us-ascii|ascii)$/i;

/** The text of an import file's bytes, or an ImportFileError saying why it cannot be read. */
export function decodeImportText(bytes: Uint8Array, t: Translate = english): string {
  if (bytes.length > IMPORT_LIMITS.fileBytes) throw tooLarge(bytes.length, IMPORT_LIMITS.fileBytes, t);
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const body = bytes.subarray(2);
    if (body.length % 2 !== 0) throw new ImportFileError('encoding', t('The file is UTF-16 text cut off in the middle of a character: it is incomplete. Export it again.'));
    const le = bytes[0] === 0xff ? Buffer.from(body) : swapBytes(body);
    return strictDecode('utf-16le', le, t);
  }
  const utf8Bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = utf8Bom ? bytes.subarray(3) : bytes;
  if (body.includes(0)) {
    throw new ImportFileError('encoding', t('The file holds zero bytes: it is UTF-16 or UTF-32 text without a byte order mark, or not a text file. Save it as UTF-8 and try again.'));
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    // Not UTF-8: an XML declaration may name a single-byte encoding.
    const head = Buffer.from(body.subarray(0, 200)).toString('latin1');
    const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i.exec(head)?.[1];
    if (declared && LATIN1.test(declared)) return new TextDecoder('latin1').decode(body);
    throw new ImportFileError(
      'encoding',
      declared ? t('The file says it is “{0}”, which is not read here. Save it as UTF-8 and try again.', declared.slice(0, 40)) : t('The file is not UTF-8 text. Save it as UTF-8 (or UTF-16 with a byte order mark) and try again.'),
    );
  }
}

function swapBytes(b: Uint8Array): Buffer {
  const out = Buffer.alloc(b.length);
  for (let i = 0; i + 1 < b.length; i += 2) {
    out[i] = b[i + 1]!;
    out[i + 1] = b[i]!;
  }
  return out;
}

function strictDecode(encoding: 'utf-16le', bytes: Buffer, t: Translate): string {
  try {
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ImportFileError('encoding', t('The file says it is UTF-16 but holds bytes that are not UTF-16 text. Save it as UTF-8 and try again.'));
  }
}

// Extra CA certificates for a private service (setting siteRevisions.caFile).
import { readFileSync } from 'node:fs';
import type { Log } from '../log';

export function readCaFile(file: string, log: Log): string | undefined {
  if (!file) return undefined;
  try {
    const pem = readFileSync(file, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      log.warn(`siteRevisions.caFile (${file}) holds no PEM certificate; it is ignored.`);
      return undefined;
    }
    return pem;
  } catch (e) {
    log.warn(`siteRevisions.caFile (${file}) cannot be read; it is ignored.`, e);
    return undefined;
  }
}

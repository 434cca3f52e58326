// The certificates the extension trusts for https: Node's own, the operating system's store
// (setting siteRevisions.systemCertificates, default on) and a PEM file of extra CAs (setting
// siteRevisions.caFile). src/core/api/trust.ts builds the set on the first https request; this reads
// the file and says in the log, once per distinct set, which stores are in use.
import { readFileSync } from 'node:fs';

/** What these functions write to (the extension's log is one). */
interface TlsLog {
  info(message: string): void;
  warn(message: string, ...args: unknown[]): void;
}

export function readCaFile(file: string, log: TlsLog): string | undefined {
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

let lastLogged = '';

/** The client's onTrust: logs which certificate stores are trusted, once for each distinct set. */
export function trustLogger(log: TlsLog): (stores: readonly string[]) => void {
  return (stores) => {
    const text = `https trusts: ${stores.join('; ')} (settings siteRevisions.systemCertificates, siteRevisions.caFile)`;
    if (text === lastLogged) return;
    lastLogged = text;
    log.info(text);
  };
}

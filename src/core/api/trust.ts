// Which certificate authorities the client trusts: Node's own (its bundled CAs and
// NODE_EXTRA_CA_CERTS), the operating system's store when asked (Node's
// `tls.getCACertificates('system')`: the macOS keychain, the Windows store, and on Linux OpenSSL's
// default file and folder, which SSL_CERT_FILE / SSL_CERT_DIR override), and extra PEM
// certificates (the setting siteRevisions.caFile).
//
// `ca` replaces Node's trust store wholesale, so the set is built complete, de-duplicated, and
// compiled once into a TLS SecureContext that every connection of every client shares: parsing a
// few hundred certificates takes tens of milliseconds, too much to repeat per connection. Nothing
// is read before the first https request. No vscode.

import * as tls from 'node:tls';

export interface TrustOptions {
  /** Trust the operating system's store too. */
  systemCertificates?: boolean;
  /** Extra PEM certificate(s). */
  ca?: string;
}

export interface Trust {
  /** undefined: Node's defaults as they are (nothing was added). */
  secureContext?: tls.SecureContext;
  /** What is trusted, for the log, e.g. ["Node's bundled CAs (121)", "the system store (142)"]. */
  stores: string[];
}

type GetCA = (type: 'default' | 'system' | 'bundled' | 'extra') => string[];

const getCA = (tls as unknown as { getCACertificates?: GetCA }).getCACertificates;

const cache = new Map<string, Trust>();

/** The trust for these options, built on first use and shared afterwards. */
export function trustFor(o: TrustOptions): Trust {
  const key = `${o.systemCertificates ? 1 : 0}\n${o.ca ?? ''}`;
  let t = cache.get(key);
  if (!t) {
    t = build(o);
    cache.set(key, t);
  }
  return t;
}

function count(n: number): string {
  return `${n} certificate${n === 1 ? '' : 's'}`;
}

function build(o: TrustOptions): Trust {
  const stores: string[] = [];
  let base: string[];
  if (typeof getCA === 'function') {
    base = getCA('default');
    stores.push(`Node's bundled CAs (${count(getCA('bundled').length)})`);
    const extra = getCA('extra').length;
    if (extra) stores.push(`NODE_EXTRA_CA_CERTS (${count(extra)})`);
  } else {
    base = [...tls.rootCertificates];
    stores.push(`Node's bundled CAs (${count(base.length)})`);
  }
  const added: string[] = [];
  if (o.systemCertificates) {
    if (typeof getCA === 'function') {
      try {
        const system = getCA('system');
        added.push(...system);
        stores.push(`the system store (${count(system.length)})`);
      } catch (e) {
        stores.push(`not the system store (Node ${process.version} cannot read it: ${e instanceof Error ? e.message : String(e)})`);
      }
    } else {
      stores.push(`not the system store (Node ${process.version} cannot read it)`);
    }
  }
  if (o.ca) {
    const n = (o.ca.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
    added.push(o.ca);
    stores.push(`the CA file (${count(n)})`);
  }
  if (!added.length) return { stores };
  const ca = [...new Set([...base, ...added])];
  return { secureContext: tls.createSecureContext({ ca }), stores };
}

// What the connection layer (src/core/live) asks of VS Code about trust:
// - the TrustStore, in globalState (none of it is a secret): the SSH host keys and certificate
//   pins accepted on this computer, per host:port, and the sites whose clear-text password was
//   allowed, per account (a site id is only unique within one account);
// - the TrustDecider: modal dialogs — an unknown host key (its SHA256 fingerprint), a certificate
//   no trusted CA vouches for (its SHA-256 fingerprint, subject, issuer, validity), plain FTP or
//   http to a host that is not loopback. A changed key or an expired certificate is never asked:
//   the core refuses it, and "Forget a Stored Host Key or Certificate…" is the separate, explicit
//   way to accept a new one (ssh-keygen -R's counterpart).
// Every value from a server (names, subjects) is shown as inert text (workbench/messages.ts).
import * as vscode from 'vscode';
import type { CertificateInfo, HostKey, LiveProtocol, TrustDecider, TrustStore } from '../../core/live';
import { message, plain, showWarning } from '../../workbench/messages';

const STATE_KEY = 'siteRevisions.live.trust';

interface Stored {
  hostKeys: Record<string, HostKey[]>;
  pins: Record<string, string[]>;
  /** `<account tag>|<siteKey>` of the sites whose clear text was allowed. */
  cleartext: string[];
}

function hostPort(host: string, port: number): string {
  return `${host.toLowerCase()}:${port}`;
}

function isHostKey(k: unknown): k is HostKey {
  const o = k as Partial<HostKey> | undefined;
  return !!o && typeof o.type === 'string' && typeof o.key === 'string' && typeof o.fingerprint === 'string';
}

/** The store in globalState (not synced: what this computer accepted). */
export class GlobalTrustStore implements TrustStore {
  /** Writes one after another (two answers at once must not lose one). */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly state: vscode.Memento,
    /** The signed-in account's tag (clear-text consents are per account); undefined when signed out. */
    private readonly account: () => string | undefined,
  ) {}

  private read(): Stored {
    const raw = this.state.get<Partial<Stored>>(STATE_KEY) ?? {};
    const obj = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
    const hostKeys: Record<string, HostKey[]> = {};
    for (const [k, v] of Object.entries(obj(raw.hostKeys))) if (Array.isArray(v)) hostKeys[k] = v.filter(isHostKey);
    const pins: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(obj(raw.pins))) if (Array.isArray(v)) pins[k] = v.filter((p): p is string => typeof p === 'string');
    const cleartext = Array.isArray(raw.cleartext) ? raw.cleartext.filter((c): c is string => typeof c === 'string') : [];
    return { hostKeys, pins, cleartext };
  }

  private update(fn: (s: Stored) => void): Promise<void> {
    const next = this.chain.then(async () => {
      const s = this.read();
      fn(s);
      await this.state.update(STATE_KEY, s);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  async hostKeys(host: string, port: number): Promise<HostKey[]> {
    return this.read().hostKeys[hostPort(host, port)] ?? [];
  }

  addHostKey(host: string, port: number, key: HostKey): Promise<void> {
    return this.update((s) => {
      const list = (s.hostKeys[hostPort(host, port)] ??= []);
      if (!list.some((k) => k.type === key.type && k.key === key.key)) list.push({ type: key.type, key: key.key, fingerprint: key.fingerprint });
    });
  }

  async pins(host: string, port: number): Promise<string[]> {
    return this.read().pins[hostPort(host, port)] ?? [];
  }

  addPin(host: string, port: number, fingerprint256: string): Promise<void> {
    return this.update((s) => {
      const list = (s.pins[hostPort(host, port)] ??= []);
      const fp = fingerprint256.toUpperCase();
      if (!list.includes(fp)) list.push(fp);
    });
  }

  private consentKey(siteKey: string): string | undefined {
    const a = this.account();
    return a ? `${a}|${siteKey}` : undefined;
  }

  async cleartextAllowed(siteKey: string): Promise<boolean> {
    const k = this.consentKey(siteKey);
    return !!k && this.read().cleartext.includes(k);
  }

  allowCleartext(siteKey: string): Promise<void> {
    const k = this.consentKey(siteKey);
    if (!k) return Promise.resolve();
    return this.update((s) => {
      if (!s.cleartext.includes(k)) s.cleartext.push(k);
    });
  }

  /** Everything stored, for "Forget a Stored Host Key or Certificate…". */
  entries(): { kind: 'hostKey' | 'pin'; hostPort: string; fingerprint: string; type?: string }[] {
    const s = this.read();
    return [
      ...Object.entries(s.hostKeys).flatMap(([hp, keys]) => keys.map((k) => ({ kind: 'hostKey' as const, hostPort: hp, fingerprint: k.fingerprint, type: k.type }))),
      ...Object.entries(s.pins).flatMap(([hp, fps]) => fps.map((fp) => ({ kind: 'pin' as const, hostPort: hp, fingerprint: fp }))),
    ];
  }

  /** Forgets the host keys (or pins) of a host:port. */
  forget(kind: 'hostKey' | 'pin', hp: string): Promise<void> {
    return this.update((s) => {
      if (kind === 'hostKey') delete s.hostKeys[hp];
      else delete s.pins[hp];
    });
  }
}

const CLEARTEXT_NAMES: Record<LiveProtocol, string> = { ftp: 'FTP', sftp: 'SFTP', webdav: 'http (WebDAV)', s3: 'http (S3)' };

/** The answers of a modal dialog: its first button stores the answer, its second trusts once. */
async function ask(text: ReturnType<typeof message>, detail: ReturnType<typeof message>, always: string, once: string): Promise<'always' | 'once' | 'no'> {
  const pick = await showWarning(text, { modal: true, detail }, always, once);
  return pick === always ? 'always' : pick === once ? 'once' : 'no';
}

/** The dialogs. `shown` hears each question asked (tests and the log). */
export function trustDecider(onAsked?: (what: 'hostKey' | 'certificate' | 'cleartext', text: string) => void): TrustDecider {
  return {
    unknownHostKey: async ({ host, port, key, site }) => {
      const text = message('The SSH server of “{0}” ({1}) is not known on this computer. Its {2} host key fingerprint is {3}.', plain(site), plain(`${host}:${port}`), plain(key.type), plain(key.fingerprint));
      onAsked?.('hostKey', text);
      return ask(
        text,
        message('Compare the fingerprint with the one your hosting provider shows, or with what `ssh-keygen -lf` prints for the server\'s host key. “Trust and Connect” stores it on this computer; if the server later shows another key, the connection is refused.'),
        vscode.l10n.t('Trust and Connect'),
        vscode.l10n.t('Connect Once'),
      );
    },
    untrustedCertificate: async ({ cert, site }) => {
      const text = message('The certificate of “{0}” ({1}) is not vouched for by a certificate authority this computer trusts ({2}).', plain(site), plain(`${cert.host}:${cert.port}`), plain(certificateReason(cert)));
      onAsked?.('certificate', text);
      return ask(
        text,
        message(
          'SHA-256 fingerprint: {0}\nSubject: {1}\nIssuer: {2}\nValid from {3} to {4}\n\nCompare the fingerprint with the server\'s. “Trust This Certificate” pins this fingerprint for {5} on this computer: another certificate there is then refused.',
          plain(cert.fingerprint256),
          plain(cert.subject),
          plain(cert.issuer),
          plain(cert.validFrom),
          plain(cert.validTo),
          plain(`${cert.host}:${cert.port}`),
        ),
        vscode.l10n.t('Trust This Certificate'),
        vscode.l10n.t('Connect Once'),
      );
    },
    cleartext: async ({ host, port, protocol, site }) => {
      const text = message('“{0}” connects with {1} without encryption: the password crosses the network in clear to {2}.', plain(site), plain(CLEARTEXT_NAMES[protocol]), plain(`${host}:${port}`));
      onAsked?.('cleartext', text);
      return ask(
        text,
        message('Anyone on the way (a shared Wi-Fi, the provider\'s network) can read the password and the files. Prefer FTPS, SFTP or https if the server offers them (the site\'s host field, e.g. ftps://host). “Connect, and Don\'t Ask Again” remembers your answer for this site on this computer.'),
        vscode.l10n.t('Connect, and Don\'t Ask Again'),
        vscode.l10n.t('Connect Once'),
      );
    },
  };
}

/** OpenSSL's reason in words. */
export function certificateReason(cert: Pick<CertificateInfo, 'reason' | 'selfSigned'>): string {
  if (cert.selfSigned || /SELF_SIGNED/.test(cert.reason)) return vscode.l10n.t('self-signed');
  if (/ALTNAME/.test(cert.reason)) return vscode.l10n.t('issued for another name');
  if (/UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF/.test(cert.reason)) return vscode.l10n.t('issuer unknown');
  return cert.reason;
}

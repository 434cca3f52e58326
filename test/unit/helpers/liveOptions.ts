// What the live-layer tests give openLive / testConnection: the extension's trust store in
// memory (the VS Code side keeps it in globalState), deciders that answer for the person, the
// password, and a site's endpoint (siteEndpoint, with a short timeout).
import * as assert from 'node:assert/strict';
import { siteEndpoint, type HostKey, type LiveEndpoint, type LiveOptions, type TrustDecider, type TrustStore } from '../../../src/core/live';

/** The extension's trust store, in memory (the VS Code side keeps it in globalState). */
export function memoryStore(): TrustStore & { keys: Map<string, HostKey[]>; pinned: Map<string, string[]> } {
  const keys = new Map<string, HostKey[]>();
  const pinned = new Map<string, string[]>();
  const clear = new Set<string>();
  return {
    keys,
    pinned,
    hostKeys: async (h, p) => keys.get(`${h}:${p}`) ?? [],
    addHostKey: async (h, p, k) => void keys.set(`${h}:${p}`, [...(keys.get(`${h}:${p}`) ?? []), k]),
    pins: async (h, p) => pinned.get(`${h}:${p}`) ?? [],
    addPin: async (h, p, f) => void pinned.set(`${h}:${p}`, [...(pinned.get(`${h}:${p}`) ?? []), f]),
    cleartextAllowed: async (s) => clear.has(s),
    allowCleartext: async (s) => void clear.add(s),
  };
}

export interface Asked {
  hostKeys: string[];
  certs: string[];
}

export function options(password: string | undefined, o: { store?: TrustStore; decider?: TrustDecider; knownHostsFiles?: string[]; asked?: Asked; passphrase?: string } = {}): LiveOptions {
  const asked = o.asked;
  return {
    trust: {
      store: o.store ?? memoryStore(),
      knownHostsFiles: o.knownHostsFiles ?? [],
      decider: o.decider ?? {
        unknownHostKey: async (q) => {
          asked?.hostKeys.push(q.key.fingerprint);
          return 'once';
        },
        untrustedCertificate: async (q) => {
          asked?.certs.push(q.cert.fingerprint256);
          return 'once';
        },
      },
    },
    secrets: { password: async (q) => (q.reason === 'login' ? password : undefined), passphrase: async () => o.passphrase },
  };
}

export function ep(site: Parameters<typeof siteEndpoint>[0], local: Parameters<typeof siteEndpoint>[1] = {}): LiveEndpoint {
  const m = siteEndpoint({ timeout: '10', ...site }, local);
  assert.ok(m.ok, m.ok ? '' : m.reason);
  return m.endpoint;
}


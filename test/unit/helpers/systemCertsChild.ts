// Child process of systemCerts.test.ts: started with SSL_CERT_FILE / SSL_CERT_DIR pointing the
// operating system's store at a temporary CA (and without NODE_EXTRA_CA_CERTS), it asks the real
// client for Get Sites over https, direct and through a proxy, with and without
// systemCertificates, and prints one JSON line with the outcomes.
//   node systemCertsChild.js '{"url":"https://127.0.0.1:PORT","proxy":"http://127.0.0.1:PORT"}'
import * as tls from 'node:tls';
import { isApiError, SiteRevisionClient } from '../../../src/core/api';

interface Args {
  url: string;
  proxy: string;
}

async function attempt(args: Args, systemCertificates: boolean, viaProxy: boolean): Promise<{ ok: boolean; code?: string; kind?: string; stores: string[] }> {
  let stores: string[] = [];
  const c = new SiteRevisionClient({
    baseUrl: args.url,
    credentials: () => ({ email: 'a@example.com', password: 'pw-123' }),
    retries: 0,
    timeoutMs: 10_000,
    systemCertificates,
    onTrust: (s) => (stores = [...s]),
    // Through the proxy for every request (the extension's resolver sends loopback direct).
    ...(viaProxy ? { proxy: () => ({ url: args.proxy, strictSSL: true }) } : {}),
  });
  try {
    await c.getSites();
    return { ok: true, stores };
  } catch (e) {
    return { ok: false, kind: isApiError(e) ? e.kind : 'other', code: (e as { code?: string }).code, stores };
  } finally {
    await c.dispose();
  }
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as Args;
  const getCA = (tls as unknown as { getCACertificates?: (t: string) => string[] }).getCACertificates;
  const out = {
    systemStore: typeof getCA === 'function' ? getCA('system') : null,
    direct: { system: await attempt(args, true, false), withoutSystem: await attempt(args, false, false) },
    proxy: { system: await attempt(args, true, true), withoutSystem: await attempt(args, false, true) },
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

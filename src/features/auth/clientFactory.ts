// The service client of an account as the session makes it: the settings that shape it (time-out,
// CA file, system certificates, proxy) read now, every request through the extension's scheduler.
// Loaded by the session when it first needs a client (./session.ts), with the client's own code:
// activation does not pay for either.
import { SiteRevisionClient } from '../../core/api/client';
import type { Credentials } from '../../core/api/types';
import { readProxySettings, readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import { proxyResolver } from '../../core/net/proxy';
import { readCaFile, trustLogger } from '../../core/net/tls';
import type { RequestScheduler } from '../../core/scheduler';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export function makeClient(serviceUrl: string, creds: Credentials, log: Log, scheduler: RequestScheduler | undefined): SiteRevisionClient {
  const settings = readSettings();
  const ca = readCaFile(settings.caFile, log);
  return new SiteRevisionClient({
    baseUrl: serviceUrl,
    credentials: () => creds,
    timeoutMs: settings.requestTimeoutMs,
    ...(ca ? { ca } : {}),
    systemCertificates: settings.systemCertificates,
    onTrust: trustLogger(log),
    // VS Code's proxy settings and the proxy environment, read on every request.
    proxy: proxyResolver(readProxySettings, process.env, (text) => log.info(text)),
    onEvent: (e) => log.debug('request', e),
    ...(scheduler ? { scheduler } : {}),
  });
}

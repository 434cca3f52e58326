// The demo setup shared by `npm start` and the screenshot script: the local service with demo
// data, and code-server with this repository installed as an extension (a symlink in the
// throwaway extensions dir: code-server has no --extensionDevelopmentPath) whose extension host
// signs the demo user in (SITE_REVISIONS_AUTOSIGNIN).
import * as path from 'node:path';
import { DEMO } from '../server/demo';
import { startCodeServer, type CodeServer } from './codeServer';
import { Cleanup, EXTENSION_ID, extensionVersion, log, repoRoot, startService, writeJson, type Service } from './common';
import { startLiveDemo, type LiveDemo } from './liveDemo';

export interface Demo {
  service: Service;
  server: CodeServer;
  /** The JSON file {serviceUrl,email,password} named by SITE_REVISIONS_AUTOSIGNIN (mode 0600). */
  autoSignInFile: string;
  /** The demo site's live server (./liveDemo.ts), when the demo data has that site. */
  live: LiveDemo | undefined;
}

/** Writes the auto-sign-in file for the demo user (0600: it holds a password, if only a fixture's). */
export function writeAutoSignIn(runDir: string, serviceUrl: string): string {
  const file = path.join(runDir, 'autosignin.json');
  writeJson(file, { serviceUrl, email: DEMO.user.email, password: DEMO.user.password }, 0o600);
  return file;
}

export async function startDemo(opts: {
  runDir: string;
  cleanup: Cleanup;
  /** The service's data file (seeded with demo data when missing). */
  serviceDataFile: string;
  servicePort?: number;
  codeServerPort?: number;
  settings?: Record<string, unknown>;
  echo?: boolean;
}): Promise<Demo> {
  const service = await startService({
    dataFile: opts.serviceDataFile,
    port: opts.servicePort ?? 0,
    logFile: path.join(opts.runDir, 'service.log'),
    cleanup: opts.cleanup,
  });
  const autoSignInFile = writeAutoSignIn(opts.runDir, service.url);
  const live = await startLiveDemo({ runDir: opts.runDir, cleanup: opts.cleanup, serviceUrl: service.url, log });
  const server = await startCodeServer({
    runDir: opts.runDir,
    cleanup: opts.cleanup,
    ...(opts.codeServerPort ? { port: opts.codeServerPort } : {}),
    ...(opts.echo ? { echo: true } : {}),
    settings: { 'siteRevisions.serviceUrl': service.url, ...(opts.settings ?? {}) },
    linkExtensions: [{ id: EXTENSION_ID, version: extensionVersion(), path: repoRoot }],
    env: { SITE_REVISIONS_AUTOSIGNIN: autoSignInFile },
  });
  return { service, server, autoSignInFile, live };
}

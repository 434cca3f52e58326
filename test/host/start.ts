// `npm start`: the local service with demo data (kept in .service-data/service.json) and VS Code
// with this extension loaded, pointed at the service and signed in as the demo user.
//
//   node out/test/host/start.js [--port N] [--web] [--keep] [--data FILE]
//
// With desktop `code` on PATH (and no --web): `code --extensionDevelopmentPath=<repo>` in a
// throwaway profile. Otherwise code-server on http://127.0.0.1:<port> (default 8080, or a free
// one when taken): open the printed URL in a browser. Ctrl+C stops everything started here, and
// so do SIGTERM and SIGHUP (test/unit/signals.test.ts). --data: the service's data file (default
// .service-data/service.json, seeded with the demo data when missing).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SETTINGS } from './codeServer';
import { Cleanup, cleanEnv, freePort, killTree, listProcesses, log, makeRunDir, repoRoot, startService, writeJson } from './common';
import { startDemo, writeAutoSignIn } from './demo';
import { LIVE_DEMO, startLiveDemo } from './liveDemo';
import { ensureAll } from './install';
import { writeWorkspace } from './workspace';

let serviceDataFile = path.join(repoRoot, '.service-data', 'service.json');
const SERVICE_PORT = 8787;

function codeOnPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v code'], { encoding: 'utf8' });
  const p = r.status === 0 ? r.stdout.trim() : '';
  return p || undefined;
}

/** Keeps the process alive until a signal (the Cleanup handlers exit). */
function forever(): Promise<never> {
  return new Promise<never>(() => {
    setInterval(() => undefined, 1 << 30);
  });
}

async function startDesktop(code: string, runDir: string, cleanup: Cleanup): Promise<void> {
  const service = await startService({ dataFile: serviceDataFile, port: await freePort(SERVICE_PORT), logFile: path.join(runDir, 'service.log'), cleanup });
  const autoSignIn = writeAutoSignIn(runDir, service.url);
  await startLiveDemo({ runDir, cleanup, serviceUrl: service.url, log });
  const udd = path.join(runDir, 'udd');
  writeJson(path.join(udd, 'User', 'settings.json'), { ...DEFAULT_SETTINGS, 'siteRevisions.serviceUrl': service.url });
  const workspace = path.join(runDir, 'workspace');
  writeWorkspace(workspace);
  const args = [
    '--wait',
    '--new-window',
    `--extensionDevelopmentPath=${repoRoot}`,
    `--user-data-dir=${udd}`,
    `--extensions-dir=${path.join(runDir, 'exts')}`,
    '--disable-workspace-trust',
    '--skip-welcome',
    '--skip-release-notes',
    workspace,
  ];
  const child = spawn(code, args, { env: cleanEnv({ SITE_REVISIONS_AUTOSIGNIN: autoSignIn }), detached: true, stdio: 'inherit' });
  const pid = child.pid!;
  cleanup.trackGroup(pid);
  cleanup.add('VS Code', async () => {
    await killTree(pid);
    cleanup.untrackGroup(pid);
    // The `code` CLI hands over to an Electron main process outside its group: find the
    // instance by its (throwaway) user-data dir.
    for (const p of listProcesses()) if (p.cmd.includes(udd) && p.state !== 'Z') await killTree(p.pid);
  });
  console.log(`\nVS Code (${code}) starts with the extension from ${repoRoot}`);
  console.log(`Local service: ${service.url} (data: ${path.relative(process.cwd(), serviceDataFile)}); signed in as the demo user.`);
  console.log('Close the window or press Ctrl+C here to stop.\n');
  child.on('exit', () => {
    log('VS Code closed; stopping');
    cleanup.run().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

async function startWeb(runDir: string, cleanup: Cleanup, port: number | undefined): Promise<void> {
  ensureAll({ chromium: false });
  const want = port ?? 8080;
  const freeOrOther = await freePort(want);
  if (port !== undefined && freeOrOther !== port) log(`port ${port} is taken; using ${freeOrOther}`);
  const { service, server, live } = await startDemo({
    runDir,
    cleanup,
    serviceDataFile,
    servicePort: await freePort(SERVICE_PORT),
    codeServerPort: freeOrOther,
  });
  const workspace = path.join(runDir, 'workspace');
  writeWorkspace(workspace);
  const url = `${server.url}/?folder=${encodeURIComponent(workspace)}`;
  console.log(`
Site Revisions is running in code-server (the extension is loaded from ${repoRoot}).

  Open:     ${url}
  Service:  ${service.url}  (data: ${path.relative(process.cwd(), serviceDataFile)})
  Signed in as the demo user on first start; the Site Revisions view is in the activity bar.
  Live server: ${live ? `"${LIVE_DEMO.siteName}" is on sftp://127.0.0.1:${live.port} (host key ${live.fingerprint}): try Test Connection, Live Files and Live Drift on it` : 'none'}.
  After a rebuild (npm run bundle), reload the page to load the new build.

Press Ctrl+C to stop.
`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      web: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      data: { type: 'string' },
    },
    strict: true,
  });
  if (values.data) serviceDataFile = path.resolve(values.data);
  const port = values.port ? Number(values.port) : undefined;
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) throw new Error(`bad --port ${values.port}`);
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.mjs'))) throw new Error('dist/extension.mjs is missing: bundle first (node esbuild.mjs)');

  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  const runDir = makeRunDir('start');
  if (!values.keep) cleanup.add('run folder', () => fs.rmSync(runDir, { recursive: true, force: true }));
  try {
    const code = values.web ? undefined : codeOnPath();
    if (code) await startDesktop(code, runDir, cleanup);
    else await startWeb(runDir, cleanup, port);
  } catch (err) {
    await cleanup.run();
    throw err;
  }
  await forever();
}

main().catch((err) => {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
});

// Starts code-server headless on a loopback port with throwaway folders, in its own process
// group, and stops the whole group again.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cleanup, cleanEnv, freePort, killTree, log, makeTmpDir, onLines, sleep, Tail, writeJson } from './common';
import { ensureCodeServer, ensureNode24 } from './install';

export interface CodeServerOptions {
  /** The run folder (`<repo>/.test-runs/<id>`); code-server's folders go below it. */
  runDir: string;
  /** Preferred port; a free one is used when it is taken or not given. */
  port?: number;
  /** When true, only `port` is acceptable (fails when it is taken). */
  strictPort?: boolean;
  /** User settings added to the defaults (e.g. `workbench.colorTheme`, `siteRevisions.serviceUrl`). */
  settings?: Record<string, unknown>;
  /** Extra environment for code-server, which passes it on to the extension host. */
  env?: Record<string, string | undefined>;
  /** Folders linked into the extensions dir as installed extensions (`<publisher>.<name>-<version>`). */
  linkExtensions?: { id: string; version: string; path: string }[];
  cleanup?: Cleanup;
  /** Print code-server's output to stderr as well as to the log file. */
  echo?: boolean;
  healthTimeoutMs?: number;
}

export interface CodeServer {
  host: string;
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  pid: number;
  runDir: string;
  userDataDir: string;
  extensionsDir: string;
  settingsFile: string;
  logFile: string;
  /** Resolves (with the exit code or signal) if code-server ends before stop() is called. */
  crashed: Promise<string>;
  /** `vscode-remote://127.0.0.1:<port><absolute path>` — how the web client names server paths. */
  remoteUri(absPath: string): string;
  /** Rewrites the user settings (defaults + `settings`). The workbench picks changes up live. */
  writeSettings(settings: Record<string, unknown>): void;
  stop(): Promise<void>;
}

export const DEFAULT_SETTINGS: Record<string, unknown> = {
  'chat.disableAIFeatures': true,
  'workbench.startupEditor': 'none',
  // The browser build saves after a delay by default; tests check what is (not) saved by hand.
  'files.autoSave': 'off',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'window.commandCenter': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

/**
 * What the test runners add for the suites (not `npm start` or the screenshots): the status of a
 * mapped folder reads every file of its site in the background as soon as a folder is mapped,
 * which would change what the other suites count at the service and take the faults they queue;
 * the suite of the source controls turns it on (test/integration/scm.test.ts).
 */
export const SUITE_SETTINGS: Record<string, unknown> = { 'siteRevisions.sourceControl.enabled': false };

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

export async function startCodeServer(opts: CodeServerOptions): Promise<CodeServer> {
  const entry = ensureCodeServer();
  const nodeBin = ensureNode24();
  const host = '127.0.0.1';
  const runDir = opts.runDir;
  const dirs = {
    xdgConfig: path.join(runDir, 'xdg-config'),
    xdgData: path.join(runDir, 'xdg-data'),
    xdgCache: path.join(runDir, 'xdg-cache'),
    udd: path.join(runDir, 'udd'),
    exts: path.join(runDir, 'exts'),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const tmp = makeTmpDir(runDir);
  if (!tmp.startsWith(runDir)) opts.cleanup?.add('tmp dir', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const configFile = path.join(runDir, 'code-server.yaml');
  fs.writeFileSync(configFile, '');
  const settingsFile = path.join(dirs.udd, 'User', 'settings.json');
  const writeSettings = (s: Record<string, unknown>): void => writeJson(settingsFile, { ...DEFAULT_SETTINGS, ...(opts.settings ?? {}), ...s });
  writeSettings({});
  for (const e of opts.linkExtensions ?? []) {
    const link = path.join(dirs.exts, `${e.id}-${e.version}`);
    fs.rmSync(link, { force: true, recursive: true });
    fs.symlinkSync(e.path, link, 'dir');
  }
  const logFile = path.join(runDir, 'code-server.log');
  const env = cleanEnv({
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: dirs.xdgCache,
    XDG_RUNTIME_DIR: tmp,
    TMPDIR: tmp,
    // code-server reads these; keep an enclosing environment from changing the run.
    PASSWORD: undefined,
    HASHED_PASSWORD: undefined,
    CODE_SERVER_CONFIG: undefined,
    ...(opts.env ?? {}),
  });

  for (let attempt = 1; ; attempt++) {
    const port = opts.strictPort && opts.port ? opts.port : await freePort(attempt === 1 ? opts.port : undefined, host);
    const url = `http://${host}:${port}`;
    const args = [
      entry,
      '--config', configFile,
      '--bind-addr', `${host}:${port}`,
      '--auth', 'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir', dirs.udd,
      '--extensions-dir', dirs.exts,
      '--vscode-option', 'enable-smoke-test-driver',
    ];
    const logStream = fs.createWriteStream(logFile, { flags: 'a' });
    const child = spawn(nodeBin, args, { cwd: runDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid!;
    opts.cleanup?.trackGroup(pid);
    const tail = new Tail(60);
    const onLine = (line: string): void => {
      tail.push(line);
      logStream.write(line + '\n');
      if (opts.echo) process.stderr.write(`[code-server] ${line}\n`);
    };
    onLines(child.stdout, onLine);
    onLines(child.stderr, onLine);
    let exited: string | undefined;
    let stopped: Promise<void> | undefined;
    let crash!: (why: string) => void;
    const crashed = new Promise<string>((resolve) => (crash = resolve));
    child.on('exit', (code, sig) => {
      exited = String(sig ?? code);
      if (!stopped) crash(`code-server exited (${exited}); log ${logFile}`);
    });

    const stop = (): Promise<void> =>
      (stopped ??= (async () => {
        const left = await killTree(pid);
        opts.cleanup?.untrackGroup(pid);
        logStream.end();
        if (left.length) throw new Error(`code-server processes still running after SIGKILL: ${left.join('; ')}`);
      })());

    const t0 = Date.now();
    const timeout = opts.healthTimeoutMs ?? 60000;
    let ok = false;
    while (Date.now() - t0 < timeout && exited === undefined) {
      if (await healthy(url)) {
        ok = true;
        break;
      }
      await sleep(150);
    }
    if (!ok) {
      await stop().catch(() => undefined);
      const out = tail.toString();
      if (/EADDRINUSE/.test(out) && !opts.strictPort && attempt < 3) {
        log(`port ${port} was taken meanwhile; trying another one`);
        continue;
      }
      throw new Error(`code-server did not become healthy (${exited !== undefined ? `exited: ${exited}` : `no /healthz answer within ${timeout / 1000} s`}); log ${logFile}:\n${out}`);
    }
    opts.cleanup?.add('code-server', stop);
    return {
      host,
      port,
      url,
      pid,
      runDir,
      userDataDir: dirs.udd,
      extensionsDir: dirs.exts,
      settingsFile,
      logFile,
      crashed,
      remoteUri: (absPath: string) => `vscode-remote://${host}:${port}${absPath.split(path.sep).map(encodeURIComponent).join('/')}`,
      writeSettings,
      stop,
    };
  }
}

// Runs the same integration suites in desktop VS Code through @vscode/test-electron.
//
//   node out/test/host/desktop.js [--vscode-executable PATH] [--results FILE] [--grep PATTERN] [--no-service] [--keep]
//
// PATH (or env VSCODE_EXECUTABLE_PATH) is an installed VS Code's Electron binary, e.g.
// /usr/share/code/code, "/Applications/Visual Studio Code.app/Contents/MacOS/Electron" (older
// builds) or "…/MacOS/Code", or Code.exe. Without one, test-electron downloads the stable build
// into .cache/vscode-test (needs access to update.code.visualstudio.com).
// On Linux without a display, run it under xvfb-run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SETTINGS } from './codeServer';
import { Cleanup, cacheDir, integrationOutDir, log, makeRunDir, repoRoot, serviceAvailable, serviceMain, startService, finishRun, runMain, writeJson, type RunResults } from './common';
import { writeWorkspace } from './workspace';

type Results = RunResults;

async function main(): Promise<number> {
  const t0 = Date.now();
  const { values } = parseArgs({
    options: {
      'vscode-executable': { type: 'string' },
      results: { type: 'string' },
      grep: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'no-service': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const executable = values['vscode-executable'] || process.env.VSCODE_EXECUTABLE_PATH || undefined;
  if (executable && !fs.existsSync(executable)) throw new Error(`--vscode-executable ${executable} does not exist`);
  if (!fs.existsSync(path.join(integrationOutDir, 'index.js'))) throw new Error('out/test/integration/index.js is missing: compile first (npx tsc -p .)');
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'extension.mjs'))) throw new Error('dist/extension.mjs is missing: bundle first (node esbuild.mjs)');
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    log('no DISPLAY: desktop VS Code needs a display on Linux; run this under `xvfb-run -a` (Debian package xvfb) if it fails to start');
  }

  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  const runDir = makeRunDir('dt', { keepLast: 5 });
  const innerResults = path.join(runDir, 'results.json');
  let problem: string | undefined;

  try {
    let serviceUrl: string | undefined;
    if (!values['no-service'] && serviceAvailable()) {
      const service = await startService({ dataFile: path.join(runDir, 'service.json'), logFile: path.join(runDir, 'service.log'), cleanup });
      serviceUrl = service.url;
      log(`service: ${serviceUrl}`);
    } else if (!values['no-service']) {
      log(`${path.relative(repoRoot, serviceMain)} is missing: running without the local service`);
    }
    const workspace = path.join(runDir, 'workspace');
    writeWorkspace(workspace);
    const udd = path.join(runDir, 'udd');
    writeJson(path.join(udd, 'User', 'settings.json'), { ...DEFAULT_SETTINGS, 'window.titleBarStyle': 'custom', ...(serviceUrl ? { 'siteRevisions.serviceUrl': serviceUrl } : {}) });

    // The extension host inherits VS Code's environment; extensionTestsEnv adds ours.
    const { runTests } = await import('@vscode/test-electron');
    for (const k of Object.keys(process.env)) if (/^(VSCODE_|ELECTRON_)/.test(k)) delete process.env[k];
    try {
      await runTests({
        ...(executable ? { vscodeExecutablePath: executable } : { cachePath: path.join(cacheDir, 'vscode-test') }),
        extensionDevelopmentPath: repoRoot,
        extensionTestsPath: integrationOutDir,
        extensionTestsEnv: {
          SITE_REVISIONS_TEST_RESULTS: innerResults,
          SITE_REVISIONS_TEST_SERVICE_URL: serviceUrl,
          SITE_REVISIONS_TEST_GREP: values.grep,
          SITE_REVISIONS_TEST_WORKSPACE: workspace,
        },
        launchArgs: [
          workspace,
          `--user-data-dir=${udd}`,
          `--extensions-dir=${path.join(runDir, 'exts')}`,
          '--disable-extensions',
          '--disable-workspace-trust',
          '--skip-welcome',
          '--skip-release-notes',
          '--disable-telemetry',
          '--disable-gpu',
          '--no-sandbox',
        ],
      });
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      if (!executable && !fs.existsSync(innerResults)) {
        problem =
          `could not get VS Code: the download failed (${msg}).\n` +
          'This machine cannot reach the VS Code update servers. Point the runner at an installed VS Code instead:\n' +
          '  npm run test:desktop -- --vscode-executable /path/to/code   (or set VSCODE_EXECUTABLE_PATH)\n' +
          'Where code-server and Chromium can run, `npm run test:integration` runs the suites headless instead (CONTRIBUTING.md, Tests).';
      } else if (!fs.existsSync(innerResults)) {
        problem = `VS Code failed before the tests ran: ${msg}`;
      }
      // otherwise the tests ran and failed: the results file says which
    }
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
  } finally {
    await cleanup.run();
  }

  let results: Results = { passed: 0, failed: 0, tests: [] };
  try {
    results = JSON.parse(fs.readFileSync(innerResults, 'utf8')) as Results;
  } catch {
    /* none */
  }
  if (problem) {
    results.failed++;
    results.tests.push({ title: 'desktop run', fullTitle: 'desktop run', state: 'failed', durationMs: Date.now() - t0, error: problem });
    log(problem);
  } else if (results.passed + results.failed === 0) {
    results.failed++;
    results.tests.push({ title: 'desktop run', fullTitle: 'desktop run', state: 'failed', durationMs: 0, error: 'no test ran' });
    log('no test ran');
  }
  return finishRun({ results, t0, runDir, keep: !!values.keep, ...(values.results ? { resultsFile: path.resolve(values.results) } : {}) });
}

runMain(main);

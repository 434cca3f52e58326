// Runs the integration suites in a real VS Code extension host, headless: code-server +
// Debian Chromium (playwright-core), with the local service as a separate process.
//
//   node out/test/host/run.js --results FILE [--grep PATTERN] [--timeout SECONDS] [--keep] [--no-service] [--vsix FILE]
//
// Compile and bundle first (npm run test:integration does both). --vsix FILE tests that package
// instead of the repository: it is installed with `code-server --install-extension` and a code-less
// stub stands in as the extension under development (test/host/vsix.ts runs the Smoke suite so). Exits 0 only when at least one
// test ran and none failed. --keep keeps the run folder (.test-runs/it-*) even on success.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format, parseArgs } from 'node:util';
import { startCodeServer } from './codeServer';
import { startDriver } from './driver';
import { Cleanup, integrationOutDir, log, makeRunDir, repoRoot, serviceAvailable, serviceMain, startService, finishRun, runMain } from './common';
import { ensureAll } from './install';
import { installVsix, writeStubExtension } from './vsix';
import { openWorkbench } from './workbench';
import { writeWorkspace } from './workspace';

/**
 * The workbench logs the extension host's console without saying where it came from; the suite
 * entry (test/integration/index.ts) puts this in front of each console message so that only
 * those are printed here.
 */
const LOG_MARK = '\u241fsr-test\u241f';

interface TestResult {
  title: string;
  fullTitle: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number;
  error?: string;
}
interface Results {
  passed: number;
  failed: number;
  pending?: number;
  tests: TestResult[];
}

function readResults(file: string): Results | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as Results;
    if (typeof r.passed === 'number' && typeof r.failed === 'number' && Array.isArray(r.tests)) return r;
  } catch {
    /* missing or partial */
  }
  return undefined;
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const { values } = parseArgs({
    options: {
      results: { type: 'string' },
      grep: { type: 'string' },
      timeout: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'no-service': { type: 'boolean', default: false },
      echo: { type: 'boolean', default: false },
      vsix: { type: 'string' },
    },
    strict: true,
  });
  const vsix = values.vsix ? path.resolve(values.vsix) : undefined;
  if (vsix && !fs.existsSync(vsix)) throw new Error(`--vsix ${values.vsix}: no such file`);
  const timeoutMs = (values.timeout ? Number(values.timeout) : 600) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`bad --timeout ${values.timeout}`);
  const resultsOut = values.results ? path.resolve(values.results) : undefined;
  if (!fs.existsSync(path.join(integrationOutDir, 'index.js'))) throw new Error(`${path.relative(repoRoot, integrationOutDir)}/index.js is missing: compile first (npx tsc -p .)`);
  if (!vsix && !fs.existsSync(path.join(repoRoot, 'dist', 'extension.mjs'))) throw new Error('dist/extension.mjs is missing: bundle first (node esbuild.mjs)');

  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  const runDir = makeRunDir('it', { keepLast: 5 });
  const innerResults = path.join(runDir, 'results.json');
  let results: Results = { passed: 0, failed: 0, tests: [] };
  let problem: string | undefined;
  let exitCode: number | undefined;

  try {
    ensureAll({ chromium: true });
    const tSetup = Date.now();

    let serviceUrl: string | undefined;
    if (values['no-service']) {
      log('--no-service: running without the local service');
    } else if (!serviceAvailable()) {
      log(`${path.relative(repoRoot, serviceMain)} is missing: running without the local service`);
    } else {
      const service = await startService({ dataFile: path.join(runDir, 'service.json'), logFile: path.join(runDir, 'service.log'), cleanup });
      serviceUrl = service.url;
      log(`service: ${serviceUrl}`);
    }

    const workspace = path.join(runDir, 'workspace');
    writeWorkspace(workspace);
    let extensionDevelopmentPath = repoRoot;
    let installedPath: string | undefined;
    if (vsix) {
      const installed = installVsix(runDir, vsix);
      installedPath = installed.installedPath;
      extensionDevelopmentPath = writeStubExtension(path.join(runDir, 'stub-extension'));
      log(`installed ${path.basename(vsix)} into ${path.relative(repoRoot, installed.extensionsDir)}`);
    }
    // The suites read and click the workbench through this (test/integration/screen.ts).
    let page: import('playwright-core').Page | undefined = undefined;
    const driver = await startDriver(() => page);
    cleanup.add('screen driver', () => driver.close());
    const server = await startCodeServer({
      runDir,
      cleanup,
      echo: values.echo,
      settings: serviceUrl ? { 'siteRevisions.serviceUrl': serviceUrl } : {},
      env: {
        SITE_REVISIONS_TEST_RESULTS: innerResults,
        SITE_REVISIONS_TEST_SERVICE_URL: serviceUrl,
        SITE_REVISIONS_TEST_GREP: values.grep,
        SITE_REVISIONS_TEST_WORKSPACE: workspace,
        SITE_REVISIONS_TEST_LOG_MARK: LOG_MARK,
        SITE_REVISIONS_TEST_INSTALLED_PATH: installedPath,
        SITE_REVISIONS_TEST_DRIVER: driver.url,
      },
    });
    if (installedPath && path.dirname(installedPath) !== server.extensionsDir) throw new Error(`the .vsix was installed into ${path.dirname(installedPath)}, but code-server uses ${server.extensionsDir}`);
    log(`code-server: ${server.url} (pid ${server.pid})`);

    let printedAny = false;
    const wb = await openWorkbench({
      server,
      folder: workspace,
      runDir,
      cleanup,
      payload: { extensionDevelopmentPath, extensionTestsPath: integrationOutDir },
      onLog: (_level, args) => {
        // Only the extension host's console, which the suite entry tags with LOG_MARK.
        const first = args[0];
        if (typeof first !== 'string' || !first.startsWith(LOG_MARK)) return;
        printedAny = true;
        const text = first === LOG_MARK ? format(...args.slice(1)) : format(first.slice(LOG_MARK.length), ...args.slice(1));
        process.stdout.write(text.endsWith('\n') ? text : text + '\n');
      },
    });
    page = wb.page;
    log(`workbench open (${((Date.now() - tSetup) / 1000).toFixed(1)} s after setup); running the tests…`);

    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), timeoutMs)));
    const outcome = await Promise.race([wb.exit, hang, server.crashed.then((why) => ({ code: 1, error: why }))]);
    clearTimeout(timer);
    if (outcome === 'hang') problem = `the tests did not finish within ${timeoutMs / 1000} s`;
    else if (outcome.error) problem = outcome.error;
    else exitCode = outcome.code;
    if (!printedAny) log('(no test output arrived from the extension host)');

    results = readResults(innerResults) ?? { passed: 0, failed: 0, tests: [] };
    const ranSome = results.passed + results.failed > 0;
    if (!problem && exitCode !== 0 && results.failed === 0 && ranSome) problem = `the extension host reported exit code ${exitCode} (see ${path.relative(process.cwd(), runDir)}/workbench.log)`;
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
    results = readResults(innerResults) ?? results;
  } finally {
    await cleanup.run();
  }

  if (problem) {
    results.failed++;
    results.tests.push({ title: 'integration run', fullTitle: 'integration run', state: 'failed', durationMs: Date.now() - t0, error: problem });
    log(problem);
  }
  if (results.passed + results.failed === 0) {
    let why = values.grep ? `no test matches --grep "${values.grep}"` : 'no test ran';
    if (exitCode !== undefined && exitCode !== 0) why += ` (extension host exit code ${exitCode}; see ${path.relative(process.cwd(), runDir)}/workbench.log)`;
    log(why);
    results.failed++;
    results.tests.push({ title: 'integration run', fullTitle: 'integration run', state: 'failed', durationMs: 0, error: why });
  }
  return finishRun({ results, t0, runDir, keep: !!values.keep, ...(resultsOut ? { resultsFile: resultsOut } : {}) });
}

runMain(main);

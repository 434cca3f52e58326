// The one entry of the integration suites, for both runners (code-server in headless Chromium,
// and @vscode/test-electron): runs every *.test.js next to this file inside the extension host.
// Environment: SITE_REVISIONS_TEST_GREP (only matching tests), SITE_REVISIONS_TEST_RESULTS
// (write the JSON results there), SITE_REVISIONS_BENCH_OUT (run the benchmark suites
// bench/*.bench.js instead of the tests; they write their figures to that file).
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { failureReport } from './screen';

export interface TestResult {
  title: string;
  fullTitle: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number;
  error?: string;
}

export interface Results {
  passed: number;
  failed: number;
  pending: number;
  tests: TestResult[];
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

function writeResults(file: string | undefined, results: Results): void {
  if (!file) return;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  } catch (err) {
    console.error(`could not write the test results to ${file}: ${errorText(err)}`);
  }
}

type ConsoleMethod = 'log' | 'info' | 'warn' | 'error' | 'debug';

/**
 * Under the headless runner the workbench forwards the extension host's console among its own
 * log lines; a mark (env SITE_REVISIONS_TEST_LOG_MARK) in front of each message lets the runner
 * pick them out. Returns the function that restores the console.
 */
function markConsole(mark: string | undefined): () => void {
  if (!mark) return () => undefined;
  const methods: ConsoleMethod[] = ['log', 'info', 'warn', 'error', 'debug'];
  // VS Code installs its forwarders as getters with a no-op setter, so plain assignment is
  // ignored: redefine the properties instead (and put the original descriptors back after).
  const saved = methods.map((m) => [m, Object.getOwnPropertyDescriptor(console, m), console[m]] as const);
  for (const [m, , orig] of saved) {
    const marked = (...args: unknown[]): void => (typeof args[0] === 'string' ? orig.call(console, mark + args[0], ...args.slice(1)) : orig.call(console, mark, ...args));
    Object.defineProperty(console, m, { value: marked, writable: true, configurable: true, enumerable: true });
  }
  return () => {
    for (const [m, desc] of saved) if (desc) Object.defineProperty(console, m, desc);
  };
}

export function run(): Promise<void> {
  const restoreMarks = markConsole(process.env.SITE_REVISIONS_TEST_LOG_MARK || undefined);
  // Reporters print through Base.consoleLog, captured when mocha loaded: route it through the
  // console as it is now.
  const base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
  const savedConsoleLog = base.consoleLog;
  base.consoleLog = (...args: unknown[]) => console.log(...args);
  const restoreConsole = (): void => {
    base.consoleLog = savedConsoleLog;
    restoreMarks();
  };
  const grep = process.env.SITE_REVISIONS_TEST_GREP || undefined;
  const resultsFile = process.env.SITE_REVISIONS_TEST_RESULTS || undefined;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60000, reporter: 'spec', ...(grep ? { grep } : {}) });
  const results: Results = { passed: 0, failed: 0, pending: 0, tests: [] };

  const done = new Promise<void>((resolve, reject) => {
    try {
      // The benchmarks (npm run bench) set SITE_REVISIONS_BENCH_OUT: then only bench/*.bench.js run.
      const benchOut = process.env.SITE_REVISIONS_BENCH_OUT || undefined;
      const dir = benchOut ? path.join(__dirname, 'bench') : __dirname;
      const files = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(benchOut ? '.bench.js' : '.test.js'))
        .sort();
      for (const f of files) mocha.addFile(path.join(dir, f));
      // A failed test's screen goes into the log (and a screenshot next to the results file).
      mocha.suite.afterEach(async function () {
        const t = this.currentTest;
        if (t?.state !== 'failed') return;
        console.log(await failureReport(t.fullTitle(), resultsFile ? path.join(path.dirname(resultsFile), 'failures') : undefined));
      });
      const runner = mocha.run((failures) => {
        // A failure that never reached a test (e.g. in a hook before any test) still counts.
        if (failures > results.failed) results.failed = failures;
        writeResults(resultsFile, results);
        const total = results.passed + results.failed;
        if (results.failed > 0) reject(new Error(`${results.failed} of ${total} integration tests failed`));
        else if (total === 0) reject(new Error(grep ? `no integration test matches "${grep}"` : 'no integration test ran'));
        else resolve();
      });
      // The file is rewritten after every test, so a run that hangs still tells how far it got.
      runner.on('pass', (test) => {
        results.passed++;
        results.tests.push({ title: test.title, fullTitle: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 });
        writeResults(resultsFile, results);
      });
      runner.on('fail', (test, err) => {
        results.failed++;
        results.tests.push({ title: test.title, fullTitle: test.fullTitle(), state: 'failed', durationMs: test.duration ?? 0, error: errorText(err) });
        writeResults(resultsFile, results);
      });
      runner.on('pending', (test) => {
        results.pending++;
        results.tests.push({ title: test.title, fullTitle: test.fullTitle(), state: 'pending', durationMs: 0 });
        writeResults(resultsFile, results);
      });
    } catch (err) {
      // e.g. a suite file that throws while loading
      console.error(errorText(err));
      results.failed++;
      results.tests.push({ title: 'loading the suites', fullTitle: 'loading the suites', state: 'failed', durationMs: 0, error: errorText(err) });
      writeResults(resultsFile, results);
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
  return done.finally(restoreConsole);
}

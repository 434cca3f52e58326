#!/usr/bin/env node
// The project's task runner: every npm script of the public interface goes through here.
// It brings the Node the project needs (>= 22, like current VS Code) from the npm registry
// when the machine's Node is older, then runs the task with it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_MAJOR = 22;
const nodePrefix = path.join(root, '.cache', 'node24');
const nodeBinDir = path.join(nodePrefix, 'node_modules', 'node', 'bin');

function log(msg) {
  process.stderr.write(`[task] ${msg}\n`);
}

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function must(cmd, args, opts) {
  const status = sh(cmd, args, opts);
  if (status !== 0) {
    log(`${cmd} ${args.join(' ')} failed (exit ${status})`);
    process.exit(status);
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs a child that may run for long (the task under Node 24, `start`, `service`, `bench`,
 * `desktop`) and resolves with its exit status once it has exited (128 + the signal's number when
 * a signal ended it). SIGINT, SIGTERM and SIGHUP sent to this process are passed on to it, so a
 * process manager, `timeout`, `kill <pid>` or a closed terminal stops what it started too, and
 * this process waits for it (spawnSync would leave it running: a signal ends this process at
 * once, and does not reach a child when it is sent to this process alone). A terminal's Ctrl+C
 * reaches both: the child takes the copy passed on as the same signal (test/host/common.ts
 * Cleanup). With `orphanHangup` the loss of this process's parent (npm killed: it passes on
 * SIGINT and SIGTERM only) counts as SIGHUP.
 */
function run(cmd, args, opts = {}, { orphanHangup = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
    const pass = (sig) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    };
    const handlers = SIGNALS.map((sig) => [sig, () => pass(sig)]);
    for (const [sig, h] of handlers) process.on(sig, h);
    const parent = process.ppid;
    const watch = orphanHangup
      ? setInterval(() => {
          if (process.ppid === parent) return;
          clearInterval(watch);
          pass('SIGHUP');
        }, 500)
      : undefined;
    const done = () => {
      clearInterval(watch);
      for (const [sig, h] of handlers) process.off(sig, h);
    };
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (constants.signals[signal] ?? 0));
    });
  });
}

/** Re-executes this script under Node 24 (installed from the npm registry) when the running Node is too old. */
async function ensureNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NODE_MAJOR) return;
  const bin = path.join(nodeBinDir, 'node');
  if (!existsSync(bin)) {
    log(`Node ${process.versions.node} is older than ${NODE_MAJOR}; installing Node 24 from the npm registry into .cache/node24`);
    mkdirSync(nodePrefix, { recursive: true });
    must('npm', ['install', '--prefix', nodePrefix, '--no-save', '--no-audit', '--no-fund', 'node@24']);
  }
  const env = { ...process.env, PATH: `${nodeBinDir}${path.delimiter}${process.env.PATH ?? ''}` };
  process.exit(await run(bin, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { env, cwd: process.cwd() }, { orphanHangup: true }));
}

const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/**
 * Stops with the next step when node_modules lacks a package that package.json names (it was
 * installed before a pull added dependencies): tsc would otherwise fail with pages of "Cannot
 * find module" errors, and a test or the bench with a stack trace.
 */
function checkDependencies() {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const missing = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => !existsSync(path.join(root, 'node_modules', name, 'package.json')));
  if (!missing.length) return;
  log(`node_modules lacks ${missing.join(', ')}, which package.json names (installed before they were added?): run \`npm ci\` first`);
  process.exit(1);
}

function compile() {
  must(bin('tsc'), ['-p', '.']);
  removeOrphans(path.join(root, 'out'));
}

/**
 * Deletes what tsc wrote into out/ for a .ts file that no longer exists (tsc never deletes): a
 * test file removed or moved would otherwise still run from its old compiled copy.
 */
function removeOrphans(dir) {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      removeOrphans(p);
      continue;
    }
    const m = /^(.*)\.js(\.map)?$/.exec(e.name);
    if (!m) continue;
    const source = path.join(root, path.relative(path.join(root, 'out'), dir), `${m[1]}.ts`);
    if (!existsSync(source)) rmSync(p, { force: true });
  }
}
function bundle(production = false) {
  must(process.execPath, ['esbuild.mjs', ...(production ? ['--production'] : [])]);
}
function lint() {
  must(bin('eslint'), ['.']);
}

/** The newest modification time of the .ts files under `dirs` (0 when there are none). */
function newestSource(dirs) {
  let newest = 0;
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  for (const d of dirs) walk(path.join(root, d));
  return newest;
}

/** Compiles unless `output` (a file under out/) is newer than every source it is built from. */
function compileUnlessFresh(output, sourceDirs) {
  const out = path.join(root, output);
  if (existsSync(out) && statSync(out).mtimeMs >= newestSource(sourceDirs)) return;
  compile();
}

/**
 * `npm run watch`: esbuild rebuilding dist/ on every change and `tsc --watch` type-checking
 * everything (src, tests, bench) without writing, in one terminal, each line tagged with its
 * source. Ctrl+C stops both; when one ends, so does the other.
 */
function watch() {
  const children = [
    { tag: '[esbuild]', cmd: process.execPath, args: ['esbuild.mjs', '--watch'] },
    // Incremental: a later start checks only what changed (its own build info, next to out/'s).
    { tag: '[tsc]    ', cmd: process.execPath, args: [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--watch', '--noEmit', '--preserveWatchOutput', '--pretty', 'false', '--incremental', '--tsBuildInfoFile', path.join('out', '.tsbuildinfo-watch')] },
  ].map(({ tag, cmd, args }) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      let buf = '';
      stream.setEncoding('utf8');
      stream.on('data', (d) => {
        buf += d;
        const lines = buf.split(/\r?\n/);
        buf = lines.pop();
        for (const line of lines) if (line.trim()) process.stdout.write(`${tag} ${line}\n`);
      });
    }
    return child;
  });
  let exiting = false;
  const stop = (code) => {
    if (exiting) return;
    exiting = true;
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    process.exitCode = code;
  };
  for (const c of children) c.on('exit', (code, sig) => stop(code ?? (sig ? 1 : 0)));
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => stop(0));
}

/**
 * `npm run service -- [--autosignin FILE] [service flags]`: the local service (test/server),
 * compiled first unless out/ is fresh. With --autosignin, once the service is up FILE gets the
 * demo account's {serviceUrl,email,password} (mode 0600) for SITE_REVISIONS_AUTOSIGNIN, which
 * signs an Extension Development Host in (.vscode/launch.json).
 */
async function service(rest) {
  compileUnlessFresh('out/test/server/main.js', ['test/server', 'src/core/api']);
  const i = rest.indexOf('--autosignin');
  const autoSignIn = i >= 0 ? path.resolve(root, rest.splice(i, 2)[1] ?? '') : undefined;
  if (!autoSignIn) process.exit(await run(process.execPath, [path.join(root, 'out/test/server/main.js'), ...rest], {}, { orphanHangup: true }));
  const { DEMO } = await import(pathToFileURL(path.join(root, 'out', 'test', 'server', 'demo.js')).href).then((m) => m.default ?? m);
  const child = spawn(process.execPath, [path.join(root, 'out/test/server/main.js'), ...rest], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let pending = '';
  let written = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    // The file is written before the ready line is passed on, so whoever waits for it finds the file.
    pending += d;
    const m = written ? null : /^SERVICE_READY\s+(\S+)/m.exec(pending);
    if (m) {
      written = true;
      mkdirSync(path.dirname(autoSignIn), { recursive: true });
      writeFileSync(autoSignIn, `${JSON.stringify({ serviceUrl: m[1], email: DEMO.user.email, password: DEMO.user.password })}\n`, { mode: 0o600 });
      chmodSync(autoSignIn, 0o600);
      log(`demo sign-in for ${m[1]} written to ${path.relative(root, autoSignIn)}`);
    }
    const cut = pending.lastIndexOf('\n') + 1;
    process.stdout.write(pending.slice(0, cut));
    pending = pending.slice(cut);
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)));
}

function listTests(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTests(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

/** Runs compiled mocha suites in this process and returns { passed, failed }. */
async function mocha(dirs, { timeout = 20000, grep } = {}) {
  const { default: Mocha } = await import('mocha');
  const m = new Mocha({ reporter: 'spec', timeout, color: !process.env.CI, ...(grep ? { grep } : {}) });
  for (const d of dirs) for (const f of listTests(path.join(root, d))) m.addFile(f);
  await m.loadFilesAsync();
  return await new Promise((resolve) => {
    const runner = m.run(() => resolve({ passed: runner.stats.passes, failed: runner.stats.failures + (runner.stats.tests === 0 ? 1 : 0) }));
  });
}

function integration(extra = [], { script = 'out/test/host/run.js', results = 'integration-results.json', wrap = [] } = {}) {
  const resultFile = path.join(root, '.test-runs', results);
  rmSync(resultFile, { force: true });
  const [cmd, ...pre] = wrap.length ? wrap : [process.execPath];
  const status = sh(cmd, [...pre, ...(wrap.length ? [process.execPath] : []), path.join(root, script), '--results', resultFile, ...extra]);
  let counts = { passed: 0, failed: 1 };
  if (existsSync(resultFile)) {
    const r = JSON.parse(readFileSync(resultFile, 'utf8'));
    counts = { passed: r.passed, failed: r.failed + (status !== 0 && r.failed === 0 ? 1 : 0) };
  }
  return counts;
}

/** Whether the code-server harness can run here (test/host/install.ts --check sets it up if so). */
function harness() {
  const r = spawnSync(process.execPath, [path.join(root, 'out', 'test', 'host', 'install.js'), '--check'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    return { ok: false, reason: `the harness check failed (exit ${r.status})` };
  }
}

function banner(lines) {
  const width = Math.max(...lines.map((l) => l.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  console.log(['', rule, ...lines.map((l) => `| ${l.padEnd(width)} |`), rule, ''].join('\n'));
}

/**
 * The integration suites: in code-server + headless Chromium when that harness can run here,
 * otherwise in desktop VS Code through @vscode/test-electron (which downloads VS Code unless
 * --vscode-executable / VSCODE_EXECUTABLE_PATH names one), saying so. The tests that read the
 * screen need the harness's driver and skip under desktop VS Code.
 */
function integrationSuites(rest, h = harness()) {
  if (h.ok) return { harness: 'code-server', counts: integration(rest) };
  const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  const xvfb = headless && spawnSync('sh', ['-c', 'command -v xvfb-run']).status === 0;
  banner([
    'The code-server harness cannot run here:',
    `  ${h.reason.split('\n')[0]}`,
    'Running the integration suites in desktop VS Code with @vscode/test-electron instead',
    `(test/host/desktop.ts${xvfb ? ', under xvfb-run' : ''}). Tests that read the screen are skipped there,`,
    'and the packaged .vsix smoke run (code-server) is left out.',
  ]);
  return { harness: 'desktop', counts: integration(rest, { script: 'out/test/host/desktop.js', results: 'desktop-results.json', wrap: xvfb ? ['xvfb-run', '-a'] : [] }) };
}

function closing(label, c) {
  console.log(`\n${label}: ${c.passed} passed, ${c.failed} failed`);
}

async function main() {
  await ensureNode();
  checkDependencies();
  const [task, ...rest] = process.argv.slice(2);
  switch (task) {
    case 'unit': {
      compile();
      const c = await mocha(['out/test/unit'], { grep: rest[0] });
      closing('unit', c);
      process.exit(c.failed ? 1 : 0);
      break;
    }
    case 'fuzz': {
      compile();
      process.env.FUZZ_RUNS = process.env.FUZZ_RUNS ?? '10000';
      const c = await mocha(['out/test/unit'], { grep: 'fuzz', timeout: 600000 });
      closing('fuzz', c);
      process.exit(c.failed ? 1 : 0);
      break;
    }
    case 'integration': {
      compile();
      bundle();
      const { harness: where, counts: c } = integrationSuites(rest);
      closing(where === 'desktop' ? 'integration (desktop VS Code, @vscode/test-electron)' : 'integration', c);
      process.exit(c.failed ? 1 : 0);
      break;
    }
    case 'test': {
      compile();
      lint();
      bundle();
      // The harness first (on a fresh machine it installs code-server): the unit tests of
      // `npm start` (signals.test.ts) run the real thing where it is installed.
      const h = harness();
      const u = await mocha(['out/test/unit']);
      console.log(`\nunit: ${u.passed} passed, ${u.failed} failed`);
      const { harness: where, counts: i } = integrationSuites(rest, h);
      console.log(`integration${where === 'desktop' ? ' (desktop VS Code, @vscode/test-electron)' : ''}: ${i.passed} passed, ${i.failed} failed`);
      // The packaged .vsix installed into code-server, Smoke suite (test/host/vsix.ts; ~15-25 s).
      const v = where === 'desktop' ? { passed: 0, failed: 0 } : integration([], { script: 'out/test/host/vsix.js', results: 'vsix-results.json' });
      console.log(where === 'desktop' ? 'vsix smoke: skipped (it needs the code-server harness)' : `vsix smoke: ${v.passed} passed, ${v.failed} failed`);
      // Revision tabs across a window reload, which the in-host suites cannot survive (test/host/reload.ts; ~30 s).
      const r = where === 'desktop' ? { passed: 0, failed: 0 } : integration([], { script: 'out/test/host/reload.js', results: 'reload-results.json' });
      console.log(where === 'desktop' ? 'reload: skipped (it needs the code-server harness)' : `reload: ${r.passed} passed, ${r.failed} failed`);
      const all = { passed: u.passed + i.passed + v.passed + r.passed, failed: u.failed + i.failed + v.failed + r.failed };
      closing('total', all);
      process.exit(all.failed ? 1 : 0);
      break;
    }
    case 'desktop': {
      compile();
      bundle();
      process.exit(await run(process.execPath, [path.join(root, 'out/test/host/desktop.js'), ...rest]));
      break;
    }
    case 'service':
      await service(rest);
      break;
    case 'watch':
      watch();
      break;
    case 'start': {
      // The scripts it runs come from out/ (compiled unless fresh), the extension from dist/.
      compileUnlessFresh('out/test/host/start.js', ['src', 'test/host', 'test/server']);
      bundle();
      process.exit(await run(process.execPath, [path.join(root, 'out/test/host/start.js'), ...rest], {}, { orphanHangup: true }));
      break;
    }
    case 'bench': {
      compile();
      process.exit(await run(process.execPath, [path.join(root, 'out/bench/run.js'), ...rest]));
      break;
    }
    case 'package': {
      // `npm run package [OUT.vsix] [vsce options]`. The .vsix holds only what .vscodeignore lets
      // through (test/unit/package.test.ts checks it). It is built in a private copy of the
      // working tree with its own production bundle, so dist/ (the development bundle) is left
      // alone and a concurrent `node esbuild.mjs` cannot slip an unminified bundle into it.
      //
      // The details page in VS Code shows only images and links with http(s) URLs (a relative path
      // is dropped by its sanitizer, whether the file is in the .vsix or not). So the README's
      // relative images and links need a public location: package.json `repository` (vsce points
      // them at it), or `--baseContentUrl URL --baseImagesUrl URL`. Without one (no repository is
      // published yet: --allow-missing-repository), an image becomes its description and a link
      // to another file of the repository loses its link, keeping its text (packagedReadme in
      // readme-tables.mjs). The .vsix carries no screenshot: no viewer would read it from there.
      const out = path.resolve(root, rest[0] && !rest[0].startsWith('-') ? rest.shift() : 'site-revisions.vsix');
      const stage = mkdtempSync(path.join(tmpdir(), 'site-revisions-package-'));
      let status;
      try {
        const skip = new Set(['.git', 'node_modules', '.cache', '.test-runs', 'dist']);
        for (const name of readdirSync(root)) {
          if (skip.has(name) || name.endsWith('.vsix')) continue;
          cpSync(path.join(root, name), path.join(stage, name), { recursive: true, verbatimSymlinks: true });
        }
        const { repository } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
        const located = Boolean(repository) || (rest.some((a) => a.startsWith('--baseContentUrl')) && rest.some((a) => a.startsWith('--baseImagesUrl')));
        if (!located) {
          const { packagedReadme } = await import('./readme-tables.mjs');
          const readme = path.join(stage, 'README.md');
          writeFileSync(readme, packagedReadme(readFileSync(readme, 'utf8')));
        }
        // esbuild resolves the bundled dependencies from here; vsce ignores it (`**` in .vscodeignore).
        symlinkSync(path.join(root, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
        must(process.execPath, ['esbuild.mjs', '--production'], { cwd: stage });
        const vsce = ['package', '--no-dependencies', ...(repository ? [] : ['--allow-missing-repository']), ...(located ? [] : ['--no-rewrite-relative-links'])];
        status = sh(bin('vsce'), [...vsce, '-o', out, ...rest], { cwd: stage });
      } finally {
        rmSync(stage, { recursive: true, force: true });
      }
      process.exit(status);
      break;
    }
    default:
      log(`unknown task "${task}"; one of: test unit integration fuzz desktop watch service start bench package`);
      process.exit(2);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

#!/usr/bin/env node
// The project's task runner: every npm script of the public interface goes through here.
// It brings the Node the project needs (>= 22, like current VS Code) from the npm registry
// when the machine's Node is older, then runs the task with it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** Re-executes this script under Node 24 (installed from the npm registry) when the running Node is too old. */
function ensureNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NODE_MAJOR) return;
  const bin = path.join(nodeBinDir, 'node');
  if (!existsSync(bin)) {
    log(`Node ${process.versions.node} is older than ${NODE_MAJOR}; installing Node 24 from the npm registry into .cache/node24`);
    mkdirSync(nodePrefix, { recursive: true });
    must('npm', ['install', '--prefix', nodePrefix, '--no-save', '--no-audit', '--no-fund', 'node@24']);
  }
  const env = { ...process.env, PATH: `${nodeBinDir}${path.delimiter}${process.env.PATH ?? ''}` };
  const r = spawnSync(bin, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit', env });
  process.exit(r.status ?? 1);
}

const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function compile() {
  must(bin('tsc'), ['-p', '.']);
}
function bundle(production = false) {
  must(process.execPath, ['esbuild.mjs', ...(production ? ['--production'] : [])]);
}
function lint() {
  must(bin('eslint'), ['.']);
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

function integration(extra = [], { script = 'out/test/host/run.js', results = 'integration-results.json' } = {}) {
  const resultFile = path.join(root, '.test-runs', results);
  rmSync(resultFile, { force: true });
  const status = sh(process.execPath, [path.join(root, script), '--results', resultFile, ...extra]);
  let counts = { passed: 0, failed: 1 };
  if (existsSync(resultFile)) {
    const r = JSON.parse(readFileSync(resultFile, 'utf8'));
    counts = { passed: r.passed, failed: r.failed + (status !== 0 && r.failed === 0 ? 1 : 0) };
  }
  return counts;
}

function closing(label, c) {
  console.log(`\n${label}: ${c.passed} passed, ${c.failed} failed`);
}

async function main() {
  ensureNode();
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
      const c = integration(rest);
      closing('integration', c);
      process.exit(c.failed ? 1 : 0);
      break;
    }
    case 'test': {
      compile();
      lint();
      bundle();
      const u = await mocha(['out/test/unit']);
      console.log(`\nunit: ${u.passed} passed, ${u.failed} failed`);
      const i = integration(rest);
      console.log(`integration: ${i.passed} passed, ${i.failed} failed`);
      // The packaged .vsix installed into code-server, Smoke suite (test/host/vsix.ts; ~15-25 s).
      const v = integration([], { script: 'out/test/host/vsix.js', results: 'vsix-results.json' });
      console.log(`vsix smoke: ${v.passed} passed, ${v.failed} failed`);
      // Revision tabs across a window reload, which the in-host suites cannot survive (test/host/reload.ts; ~30 s).
      const r = integration([], { script: 'out/test/host/reload.js', results: 'reload-results.json' });
      console.log(`reload: ${r.passed} passed, ${r.failed} failed`);
      const all = { passed: u.passed + i.passed + v.passed + r.passed, failed: u.failed + i.failed + v.failed + r.failed };
      closing('total', all);
      process.exit(all.failed ? 1 : 0);
      break;
    }
    case 'desktop': {
      compile();
      bundle();
      process.exit(sh(process.execPath, [path.join(root, 'out/test/host/desktop.js'), ...rest]));
      break;
    }
    case 'service': {
      compile();
      process.exit(sh(process.execPath, [path.join(root, 'out/test/server/main.js'), ...rest]));
      break;
    }
    case 'start': {
      compile();
      bundle();
      process.exit(sh(process.execPath, [path.join(root, 'out/test/host/start.js'), ...rest]));
      break;
    }
    case 'bench': {
      compile();
      process.exit(sh(process.execPath, [path.join(root, 'out/bench/run.js'), ...rest]));
      break;
    }
    case 'package': {
      // `npm run package [OUT.vsix] [vsce options]`. The .vsix holds only what .vscodeignore lets
      // through (test/unit/package.test.ts checks it). It is built in a private copy of the
      // working tree with its own production bundle, so dist/ (the development bundle) is left
      // alone and a concurrent `node esbuild.mjs` cannot slip an unminified bundle into it.
      // No repository is published, hence --allow-missing-repository; relative links in the README
      // stay relative (the details page in VS Code resolves them inside the installed extension).
      const out = path.resolve(root, rest[0] && !rest[0].startsWith('-') ? rest.shift() : 'site-revisions.vsix');
      const stage = mkdtempSync(path.join(tmpdir(), 'site-revisions-package-'));
      let status;
      try {
        const skip = new Set(['.git', 'node_modules', '.cache', '.test-runs', 'dist']);
        for (const name of readdirSync(root)) {
          if (skip.has(name) || name.endsWith('.vsix')) continue;
          cpSync(path.join(root, name), path.join(stage, name), { recursive: true, verbatimSymlinks: true });
        }
        // esbuild resolves the bundled dependencies from here; vsce ignores it (`**` in .vscodeignore).
        symlinkSync(path.join(root, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
        must(process.execPath, ['esbuild.mjs', '--production'], { cwd: stage });
        status = sh(bin('vsce'), ['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '-o', out, ...rest], { cwd: stage });
      } finally {
        rmSync(stage, { recursive: true, force: true });
      }
      process.exit(status);
      break;
    }
    default:
      log(`unknown task "${task}"; one of: test unit integration fuzz desktop service start bench package`);
      process.exit(2);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

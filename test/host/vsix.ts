// Tests the packaged extension the way a user gets it: builds the .vsix (`npm run package`),
// installs it into a throwaway code-server with `code-server --install-extension`, and runs the
// Smoke suite (test/integration/smoke.test.ts) in that extension host against the *installed*
// copy, not the repository.
//
//   node out/test/host/vsix.js [--vsix FILE] [--results FILE] [--keep] [--echo] [--timeout SECONDS]
//
// Compile first (npx tsc -p .). Without --vsix (or env SITE_REVISIONS_VSIX) the package is built
// with the project's package task into .test-runs/package/ (and removed after the run). Exits 0 only when the smoke tests
// ran and passed.
//
// The extension-test API needs an extension in development mode; a stub extension (no code)
// plays that part, so the one under test is the one in the extensions folder.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { cleanEnv, EXTENSION_ID, extensionVersion, log, makeTmpDir, repoRoot, runMain, runsDir } from './common';
import { ensureCodeServer, ensureNode24 } from './install';

const packageDir = path.join(runsDir, 'package');

/** Runs the project's package task (`node scripts/task.mjs package OUT`): about a second. */
export function buildVsix(out: string): void {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'task.mjs'), 'package', out], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`the package task failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
}

export interface PackagedVsix {
  file: string;
  /** True when built here (remove it when done); false when SITE_REVISIONS_VSIX named it. */
  built: boolean;
  ms: number;
}

/** The .vsix to test: SITE_REVISIONS_VSIX when set, otherwise a fresh one in .test-runs/package/. */
export function packagedVsix(): PackagedVsix {
  const t0 = Date.now();
  const given = process.env.SITE_REVISIONS_VSIX;
  if (given) return { file: path.resolve(given), built: false, ms: 0 };
  fs.mkdirSync(packageDir, { recursive: true });
  // Leftovers of runs that were killed.
  for (const old of fs.readdirSync(packageDir)) {
    const p = path.join(packageDir, old);
    if (Date.now() - fs.statSync(p).mtimeMs > 60 * 60 * 1000) fs.rmSync(p, { recursive: true, force: true });
  }
  const file = path.join(packageDir, `site-revisions-${process.pid}-${Date.now().toString(36)}.vsix`);
  buildVsix(file);
  return { file, built: true, ms: Date.now() - t0 };
}

/**
 * Installs a .vsix with code-server's own CLI into `<runDir>/exts` (the folder test/host/codeServer.ts
 * gives code-server as --extensions-dir) before code-server starts. Returns where it landed.
 */
export function installVsix(runDir: string, vsix: string): { extensionsDir: string; installedPath: string } {
  const entry = ensureCodeServer();
  const nodeBin = ensureNode24();
  const extensionsDir = path.join(runDir, 'exts');
  const udd = path.join(runDir, 'udd');
  const dirs = { XDG_CONFIG_HOME: path.join(runDir, 'xdg-config'), XDG_DATA_HOME: path.join(runDir, 'xdg-data'), XDG_CACHE_HOME: path.join(runDir, 'xdg-cache') };
  for (const d of [extensionsDir, udd, ...Object.values(dirs)]) fs.mkdirSync(d, { recursive: true });
  const tmp = makeTmpDir(runDir);
  const config = path.join(runDir, 'code-server-install.yaml');
  fs.writeFileSync(config, '');
  const env = cleanEnv({ ...dirs, TMPDIR: tmp, PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`, PASSWORD: undefined, HASHED_PASSWORD: undefined, CODE_SERVER_CONFIG: undefined });
  const r = spawnSync(nodeBin, [entry, '--config', config, '--user-data-dir', udd, '--extensions-dir', extensionsDir, '--install-extension', vsix], { cwd: runDir, env, encoding: 'utf8', timeout: 120_000 });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  fs.writeFileSync(path.join(runDir, 'install-extension.log'), output);
  if (r.status !== 0 || !/successfully installed/i.test(output)) {
    throw new Error(`code-server --install-extension ${path.basename(vsix)} failed (exit ${r.status ?? r.signal}):\n${output.trim()}`);
  }
  // Where it went, as the extensions folder's index says (the .vsix may be another version than package.json).
  let installedPath = path.join(extensionsDir, `${EXTENSION_ID}-${extensionVersion()}`);
  try {
    const index = JSON.parse(fs.readFileSync(path.join(extensionsDir, 'extensions.json'), 'utf8')) as { identifier?: { id?: string }; relativeLocation?: string }[];
    const entry = index.find((e) => e.identifier?.id?.toLowerCase() === EXTENSION_ID && e.relativeLocation);
    if (entry?.relativeLocation) installedPath = path.join(extensionsDir, entry.relativeLocation);
  } catch {
    // older layouts have no index: keep <id>-<version>
  }
  if (!fs.existsSync(path.join(installedPath, 'package.json'))) throw new Error(`the .vsix did not install ${EXTENSION_ID} (nothing at ${installedPath}):\n${output.trim()}`);
  return { extensionsDir, installedPath };
}

/**
 * A code-less extension to stand in as the "extension under development" that VS Code requires
 * for running extension tests, so that the extension under test is the installed one.
 */
export function writeStubExtension(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const manifest = {
    name: 'site-revisions-test-host',
    displayName: 'Site Revisions test host (stub)',
    publisher: 'site-revisions-tests',
    version: '0.0.0',
    engines: { vscode: '*' },
    description: 'Stands in as the extension under development so that extension tests can run against an installed .vsix.',
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  return dir;
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const { values } = parseArgs({
    options: {
      vsix: { type: 'string' },
      results: { type: 'string' },
      timeout: { type: 'string' },
      keep: { type: 'boolean', default: false },
      echo: { type: 'boolean', default: false },
    },
    strict: true,
  });
  let vsix: string;
  let built = false;
  if (values.vsix) {
    vsix = path.resolve(values.vsix);
    if (!fs.existsSync(vsix)) throw new Error(`${vsix} does not exist`);
  } else {
    const p = packagedVsix();
    vsix = p.file;
    built = p.built;
    log(`${built ? 'built' : 'testing'} ${path.relative(process.cwd(), vsix)} (${(fs.statSync(vsix).size / 1024).toFixed(0)} KiB${built ? `, ${(p.ms / 1000).toFixed(1)} s` : ''})`);
  }
  const args = [path.join(__dirname, 'run.js'), '--vsix', vsix, '--grep', '^Smoke '];
  if (values.results) args.push('--results', path.resolve(values.results));
  if (values.timeout) args.push('--timeout', values.timeout);
  if (values.keep) args.push('--keep');
  if (values.echo) args.push('--echo');
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: repoRoot });
  if (built && !values.keep) fs.rmSync(vsix, { force: true });
  log(`vsix smoke run: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return r.status ?? 1;
}

if (require.main === module) runMain(main);

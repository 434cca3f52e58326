// Idempotent setup of what the host scripts need, into <repo>/.cache (git-ignored):
// Node 24 (code-server needs exactly 24), code-server, a Chromium or Chrome and playwright-core.
// Usage: node out/test/host/install.js [--no-chromium] [--check]
//   --check  say whether the code-server harness can run here (setting it up if it can), as one
//            JSON line {"ok":true} or {"ok":false,"reason":"…"}; exit 0 either way
//            (scripts/task.mjs falls back to @vscode/test-electron when it cannot).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheDir, log, repoRoot } from './common';

export const CODE_SERVER_VERSION = '4.139.1';
export const node24Prefix = path.join(cacheDir, 'node24');
export const node24BinDir = path.join(node24Prefix, 'node_modules', 'node', 'bin');
/** Headers shipped inside the `node` npm package (its platform package): node-gyp uses them instead of downloading. */
export const node24Headers = path.join(node24Prefix, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
export const codeServerPrefix = path.join(cacheDir, 'code-server');
export const codeServerPkg = path.join(codeServerPrefix, 'node_modules', 'code-server');
export const codeServerEntry = path.join(codeServerPkg, 'out', 'node', 'entry.js');
const codeServerMarker = path.join(codeServerPrefix, '.installed');

/** Debian packages code-server's native modules need to compile. */
export const BUILD_PACKAGES = ['build-essential', 'python3', 'pkg-config', 'libkrb5-dev'];

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv, capture = false): { status: number; output: string } {
  const r = spawnSync(cmd, args, { cwd: repoRoot, env: env ?? process.env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) return { status: 127, output: String(r.error) };
  return { status: r.status ?? 1, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function major(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Debian, Ubuntu and their derivatives (what apt-get install chromium is for). */
function isDebianLike(): boolean {
  if (process.platform !== 'linux') return false;
  if (fs.existsSync('/etc/debian_version')) return true;
  try {
    return /^ID(_LIKE)?=.*\b(debian|ubuntu)\b/m.test(fs.readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Debian packages

/** The packages of `names` that dpkg does not list as installed (empty when dpkg is absent). */
export function missingDebianPackages(names: string[]): string[] {
  if (run('sh', ['-c', 'command -v dpkg-query'], undefined, true).status !== 0) return [];
  return names.filter((n) => {
    const r = run('dpkg-query', ['-W', '-f=${Status}', n], undefined, true);
    return r.status !== 0 || !r.output.includes('install ok installed');
  });
}

/** Installs missing Debian packages when running as root; otherwise throws with the exact command. */
export function ensureDebianPackages(names: string[], why: string): void {
  const missing = missingDebianPackages(names);
  if (!missing.length) return;
  const cmd = `apt-get install -y ${missing.join(' ')}`;
  if (!isRoot() || run('sh', ['-c', 'command -v apt-get'], undefined, true).status !== 0) {
    throw new Error(`${why} needs the Debian packages: ${missing.join(' ')}\nInstall them with:  sudo apt-get update && sudo ${cmd}`);
  }
  log(`${why}: installing Debian packages ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Wait for dpkg's lock rather than fail: another test run on this machine may be installing too.
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  let r = run('apt-get', [...lock, 'install', '-y', '--no-install-recommends', ...missing], env);
  if (r.status !== 0) {
    log('apt-get install failed; running apt-get update and trying again');
    run('apt-get', [...lock, 'update'], env);
    r = run('apt-get', [...lock, 'install', '-y', '--no-install-recommends', ...missing], env);
  }
  const still = missingDebianPackages(missing);
  if (r.status !== 0 || still.length) throw new Error(`apt-get could not install: ${still.join(' ') || missing.join(' ')} (exit ${r.status})`);
}

// ---------------------------------------------------------------------------------------------
// Node 24

/** A Node 24 binary: the running one when it is 24, otherwise .cache/node24 (installed from the npm registry). */
export function ensureNode24(): string {
  if (major(process.version) === 24) return process.execPath;
  const bin = path.join(node24BinDir, 'node');
  if (fs.existsSync(bin)) {
    const v = run(bin, ['--version'], undefined, true);
    if (v.status === 0 && major(v.output.trim()) === 24) return bin;
  }
  log(`Node ${process.version} is not 24; installing Node 24 from the npm registry into ${path.relative(repoRoot, node24Prefix)}`);
  fs.mkdirSync(node24Prefix, { recursive: true });
  const r = run('npm', ['install', '--prefix', node24Prefix, '--no-save', '--no-audit', '--no-fund', 'node@24']);
  if (r.status !== 0 || !fs.existsSync(bin)) throw new Error(`npm install node@24 failed (exit ${r.status})`);
  return bin;
}

function node24HeadersDir(nodeBin: string): string {
  if (fs.existsSync(path.join(node24Headers, 'include', 'node', 'node.h'))) return node24Headers;
  // The running Node is 24 but did not come from .cache: fetch the npm package for its headers.
  if (nodeBin === process.execPath && fs.existsSync(path.join(path.dirname(path.dirname(nodeBin)), 'include', 'node', 'node.h'))) {
    return path.dirname(path.dirname(nodeBin));
  }
  log('installing the node@24 npm package for its C headers (node-gyp must not download them)');
  fs.mkdirSync(node24Prefix, { recursive: true });
  run('npm', ['install', '--prefix', node24Prefix, '--no-save', '--no-audit', '--no-fund', `node@${process.version.replace(/^v/, '')}`]);
  if (!fs.existsSync(path.join(node24Headers, 'include', 'node', 'node.h'))) throw new Error(`no Node 24 headers in ${node24Headers}`);
  return node24Headers;
}

// ---------------------------------------------------------------------------------------------
// code-server

function codeServerComplete(): boolean {
  const vscode = path.join(codeServerPkg, 'lib', 'vscode');
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(codeServerPkg, 'package.json'), 'utf8')) as { version: string };
    if (pkg.version !== CODE_SERVER_VERSION) return false;
  } catch {
    return false;
  }
  // The postinstall step installs lib/vscode's dependencies (native modules), then its
  // extensions' dependencies, and links bin/remote-cli/code-server in between.
  return [
    codeServerEntry,
    path.join(vscode, 'bin', 'remote-cli', 'code-server'),
    path.join(vscode, 'node_modules', '@vscode', 'spdlog', 'build', 'Release', 'spdlog.node'),
    path.join(vscode, 'node_modules', 'kerberos', 'build', 'Release', 'kerberos.node'),
    path.join(vscode, 'node_modules', 'node-pty'),
    path.join(vscode, 'extensions', 'node_modules'),
  ].every((p) => fs.existsSync(p));
}

function markerText(nodeBin: string): string {
  const v = nodeBin === process.execPath ? process.version : run(nodeBin, ['--version'], undefined, true).output.trim();
  return `code-server@${CODE_SERVER_VERSION} node-abi-major=${major(v)}\n`;
}

function explainBuildFailure(output: string): string {
  const hints: string[] = [];
  if (/gssapi\/gssapi\.h/.test(output)) hints.push('libkrb5-dev (gssapi/gssapi.h is missing)');
  if (/not found: (make|g\+\+|cc)|make: not found|g\+\+: not found|No such file or directory.*(make|g\+\+)/.test(output)) hints.push('build-essential (no compiler/make)');
  if (/find Python|python3?: not found|Could not find any Python/i.test(output)) hints.push('python3');
  if (/pkg-config: not found|pkg-config.*not found/.test(output)) hints.push('pkg-config');
  const missing = missingDebianPackages(BUILD_PACKAGES);
  const lines = [];
  if (hints.length) lines.push(`The build output points at: ${hints.join('; ')}.`);
  if (missing.length) lines.push(`Missing Debian packages: ${missing.join(' ')}\n  install with: sudo apt-get install -y ${missing.join(' ')}`);
  else lines.push(`The build packages (${BUILD_PACKAGES.join(' ')}) are installed; see the npm output above.`);
  if (/EAI_AGAIN|ENOTFOUND|ETIMEDOUT|ECONNREFUSED/.test(output)) lines.push('The npm output shows network errors: the npm registry must be reachable.');
  return lines.join('\n');
}

/** Installs code-server into .cache/code-server unless a finished install is already there. Returns entry.js. */
export function ensureCodeServer(): string {
  const nodeBin = ensureNode24();
  const want = markerText(nodeBin);
  if (fs.existsSync(codeServerMarker) && fs.readFileSync(codeServerMarker, 'utf8') === want && fs.existsSync(codeServerEntry)) return codeServerEntry;
  if (codeServerComplete()) {
    fs.writeFileSync(codeServerMarker, want);
    return codeServerEntry;
  }
  const missingBuild = missingDebianPackages(BUILD_PACKAGES);
  if (missingBuild.length) ensureDebianPackages(BUILD_PACKAGES, 'building code-server’s native modules');
  const headers = node24HeadersDir(nodeBin);
  log(`installing code-server ${CODE_SERVER_VERSION} into ${path.relative(repoRoot, codeServerPrefix)} (about 1–2 minutes, ~600 MB)`);
  fs.mkdirSync(codeServerPrefix, { recursive: true });
  fs.rmSync(codeServerMarker, { force: true });
  // Drop the npm_* variables of an outer `npm test`: npm reads them as its own configuration, and
  // code-server's postinstall checks the Node version named in npm_config_user_agent, which
  // would still name the Node that ran the outer npm.
  const outer = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const env: NodeJS.ProcessEnv = {
    ...outer,
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: headers,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  const t0 = Date.now();
  const r = run('npm', ['install', '--prefix', codeServerPrefix, '--no-audit', '--no-fund', '--foreground-scripts', `code-server@${CODE_SERVER_VERSION}`], env, true);
  process.stderr.write(r.output.split('\n').slice(-60).join('\n') + '\n');
  if (r.status !== 0 || !codeServerComplete()) {
    throw new Error(`installing code-server failed (npm exit ${r.status}).\n${explainBuildFailure(r.output)}`);
  }
  fs.writeFileSync(codeServerMarker, want);
  log(`code-server installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return codeServerEntry;
}

// ---------------------------------------------------------------------------------------------
// Chromium + playwright-core

/** The environment variable that names the Chromium or Chrome to use (wins over the search). */
export const CHROMIUM_ENV = 'SITE_REVISIONS_CHROMIUM';
/** Browser commands looked up on PATH, in this order. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** Where browsers are installed when they are not on PATH, per platform ('~' is the home folder). */
export const CHROMIUM_PATHS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/opt/google/chrome/chrome'],
  darwin: [
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '~/Applications/Chromium.app/Contents/MacOS/Chromium',
    '~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  ],
};

export interface ChromiumSearch {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  /** Whether an executable file is there. */
  isExecutable(file: string): boolean;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The Chromium or Chrome for the headless workbench: env SITE_REVISIONS_CHROMIUM (which must
 * exist), then the usual commands on PATH, then the usual install paths of the platform.
 * undefined when there is none. Throws when the variable names nothing usable.
 */
export function findChromium(s: ChromiumSearch = { env: process.env, platform: process.platform, home: process.env.HOME ?? '', isExecutable: executable }): string | undefined {
  const named = s.env[CHROMIUM_ENV]?.trim();
  if (named) {
    if (!s.isExecutable(named)) throw new Error(`${CHROMIUM_ENV}=${named}: no executable there`);
    return named;
  }
  const dirs = (s.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of CHROMIUM_NAMES) {
    for (const dir of dirs) {
      const p = path.join(dir, name);
      if (s.isExecutable(p)) return p;
    }
  }
  for (const p of CHROMIUM_PATHS[s.platform] ?? []) {
    const full = p.startsWith('~/') ? path.join(s.home, p.slice(2)) : p;
    if (s.isExecutable(full)) return full;
  }
  return undefined;
}

/** A Chromium or Chrome (see findChromium); on Debian-like Linux as root, Debian's is installed when none is found. */
export function ensureChromium(): string {
  const found = findChromium();
  if (found) return found;
  const how = `Install Chromium or Google Chrome, or set ${CHROMIUM_ENV} to its executable (looked for ${CHROMIUM_NAMES.join(', ')} on PATH and ${(CHROMIUM_PATHS[process.platform] ?? []).join(', ') || 'no known paths on this platform'}).`;
  if (!isDebianLike() || !isRoot()) throw new Error(`No Chromium or Chrome for the headless workbench. ${how}`);
  ensureDebianPackages(['chromium'], 'the headless workbench (Debian Chromium)');
  const installed = findChromium();
  if (!installed) throw new Error(`Chromium is still missing after installing the Debian package chromium. ${how}`);
  return installed;
}

export function ensurePlaywright(): void {
  try {
    require.resolve('playwright-core', { paths: [repoRoot] });
  } catch {
    throw new Error('playwright-core is not installed: run `npm install` (or `npm ci`) in the repository first');
  }
}

export interface Installed {
  node24: string;
  codeServerEntry: string;
  chromium?: string;
}

/** Everything the headless runs need; quick when already installed. */
export function ensureAll(opts: { chromium?: boolean } = {}): Installed {
  const t0 = Date.now();
  const node24 = ensureNode24();
  const entry = ensureCodeServer();
  let chromium: string | undefined;
  if (opts.chromium !== false) {
    chromium = ensureChromium();
    ensurePlaywright();
  }
  const ms = Date.now() - t0;
  if (ms > 1000) log(`setup took ${(ms / 1000).toFixed(1)} s`);
  return { node24, codeServerEntry: entry, ...(chromium ? { chromium } : {}) };
}

/**
 * Why the code-server harness (code-server + headless Chromium) cannot run here, or undefined
 * when it can (then everything it needs is installed). env SITE_REVISIONS_HARNESS=desktop
 * answers "cannot" without looking, to try the fallback.
 */
export function harnessProblem(): string | undefined {
  if (process.env.SITE_REVISIONS_HARNESS === 'desktop') return 'SITE_REVISIONS_HARNESS=desktop';
  if (process.platform === 'win32') return 'code-server does not run on Windows';
  try {
    ensureAll({ chromium: true });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

if (require.main === module) {
  if (process.argv.includes('--check')) {
    const reason = harnessProblem();
    process.stdout.write(`${JSON.stringify(reason === undefined ? { ok: true } : { ok: false, reason })}\n`);
    process.exit(0);
  }
  try {
    const r = ensureAll({ chromium: !process.argv.includes('--no-chromium') });
    log(`ready: node ${r.node24}; code-server ${r.codeServerEntry}${r.chromium ? `; chromium ${r.chromium}` : ''}`);
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}

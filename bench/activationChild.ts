// One sample of the activation figure, in a fresh Node process:
//   node out/bench/activationChild.js ENTRY [--preload net,tls,crypto] [--storage DIR [--wait-cache]]
// ENTRY is the manifest's "main" (dist/boot.js, which loads dist/extension.js through V8's code
// cache kept in the global storage folder DIR: src/boot/), or the bundle itself.
// Loads the production bundle with a minimal fake `vscode` module (bench/fakeVscode.ts,
// injected through Module._resolveFilename + require.cache for this process only), runs
// activate() as a returning user (an account and its password in the fake secret storage), and
// waits for the asynchronous part of activation (restoring the session). Then checks that no
// socket was opened, no DNS lookup was made and undici was not evaluated.
//
// How "undici was not evaluated" is seen from outside the minified bundle: undici's module
// lib/global.js reads (and then sets) globalThis[Symbol.for('undici.globalDispatcher.1')] when it
// is evaluated; accessors on both symbols record any access. The sample then makes one request
// through the activated extension's client (to a closed port, aborted) to prove that both
// detectors do fire when undici loads and a connection is attempted, and to time what loading
// undici adds to the first request (through V8's code cache too when ENTRY is dist/boot.js).
//
// --preload loads those built-in modules before the clock starts: the extension host has them
// loaded before any extension activates (the bench suite in the host checks it), a fresh Node
// process does not, and loading them costs more than the bundle itself.
//
// Prints one JSON line on stdout.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createFakeVscode, fakeContext } from './fakeVscode';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const Module = require('node:module') as {
  _resolveFilename: (request: string, parent: unknown, ...rest: unknown[]) => string;
  _load: (request: string, parent: unknown, isMain: boolean) => unknown;
  new (id: string, parent?: unknown): { filename: string; loaded: boolean; exports: unknown };
  builtinModules: string[];
};

const bundle = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', 'dist', 'boot.js'));
const preloadArg = process.argv.indexOf('--preload');
const storageArg = process.argv.indexOf('--storage');
const storage = storageArg > 0 ? path.resolve(process.argv[storageArg + 1]) : undefined;
/** Waits, after activation, until the extension has written its code cache (src/boot/save.ts). */
const waitCache = process.argv.includes('--wait-cache');
const preload = preloadArg > 0 ? (process.argv[preloadArg + 1] ?? '').split(',').filter(Boolean) : [];
// eslint-disable-next-line @typescript-eslint/no-require-imports
for (const m of preload) require(`node:${m}`);

// ---- detectors (installed before the bundle is loaded)
let undiciTouched = 0;
for (const key of [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')]) {
  let value: unknown;
  Object.defineProperty(globalThis, key, {
    configurable: true,
    enumerable: false,
    get() {
      undiciTouched++;
      return value;
    },
    set(v) {
      undiciTouched++;
      value = v;
    },
  });
}
let sockets = 0;
/** When the first socket after the first request's call connected (performance.now()). */
let firstConnectAt: number | undefined;
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  sockets++;
  firstConnectAt ??= performance.now();
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof connect;
let lookups = 0;
// The CommonJS object itself (an `import * as` namespace cannot be patched).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dns = require('node:dns') as { lookup: (...a: unknown[]) => unknown };
const lookup = dns.lookup;
dns.lookup = (...args: unknown[]) => {
  lookups++;
  return lookup(...args);
};
/** Built-in modules the bundle requires while it loads and activates. */
const builtins = new Set<string>();
const load = Module._load;
let tracking = false;
Module._load = function (request: string, parent: unknown, isMain: boolean) {
  if (tracking && (request.startsWith('node:') || Module.builtinModules.includes(request))) builtins.add(request.replace(/^node:/, ''));
  return load.call(this, request, parent, isMain);
};

// ---- the fake vscode module, for this process only
const fake = createFakeVscode();
const FAKE_PATH = path.join(__dirname, '__fake_vscode__.js');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request: string, parent: unknown, ...rest: unknown[]) {
  if (request === 'vscode') return FAKE_PATH;
  return resolve.call(this, request, parent, ...rest);
};
const fakeModule = new Module(FAKE_PATH);
fakeModule.filename = FAKE_PATH;
fakeModule.loaded = true;
fakeModule.exports = fake.api;
require.cache[FAKE_PATH] = fakeModule as unknown as NodeJS.Module;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  // A port nothing listens on (the first request's).
  const closedPort = await new Promise<number>((resolveP) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolveP(p));
    });
  });
  const socketsBefore = sockets;
  const lookupsBefore = lookups;
  const serviceUrl = `http://127.0.0.1:${closedPort}`;
  const email = 'bench@example.com';
  const ctx = fakeContext(path.dirname(path.dirname(bundle)), {
    serviceUrl,
    email,
    password: 'bench-password',
    secretKey: `siteRevisions:${new URL(serviceUrl).origin}:${email}:password`,
  }, storage);
  const bytes = fs.statSync(bundle).size;

  tracking = true;
  const t0 = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ext = require(bundle) as {
    activate(c: unknown): { ready: Promise<void>; session: { state: string; client: { getSites(o: { signal: AbortSignal }): Promise<unknown> } }; codeCache?: { state: string; ms: number; bytes: number } };
  };
  const t1 = performance.now();
  const api = ext.activate(ctx);
  const t2 = performance.now();
  await api.ready;
  const t3 = performance.now();
  tracking = false;
  // Anything activation scheduled for later gets its chance to run.
  await sleep(100);
  // What activation did (before the request below).
  const activationSockets = sockets - socketsBefore;
  const activationLookups = lookups - lookupsBefore;
  const activationUndici = undiciTouched > 0;

  // The first request (to a port nothing listens on, aborted once its socket connects): the time
  // from the call to the socket's connect is what loading and setting up undici adds to it; and
  // the positive control of the detectors (undici is evaluated, a socket is opened).
  const socketsAtCall = sockets;
  const t4 = performance.now();
  firstConnectAt = undefined;
  const ac = new AbortController();
  const call = api.session.client.getSites({ signal: ac.signal }).catch((e: unknown) => e);
  const until = Date.now() + 5000;
  while (Date.now() < until && (sockets === socketsAtCall || undiciTouched === 0)) await sleep(1);
  ac.abort();
  await call;
  const firstRequestMs = firstConnectAt !== undefined ? firstConnectAt - t4 : undefined;
  const controlResult = { undiciEvaluated: undiciTouched > 0, sockets: sockets - socketsAtCall };

  // With the loader (dist/boot.js): wait until the extension has written the code caches of the
  // bundle (after the session is restored) and of undici (after its first request).
  let cacheWritten: { bytes: number; undiciBytes: number; afterReadyMs: number } | undefined;
  if (waitCache && storage) {
    const dir = path.join(storage, 'code-cache');
    const deadline = Date.now() + 15_000;
    const find = (prefix: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.v8cache')) : undefined);
    while ((!find('extension-') || !find('undici-')) && Date.now() < deadline) await sleep(20);
    const bundleCache = find('extension-');
    const undiciCache = find('undici-');
    if (!bundleCache || !undiciCache) throw new Error(`the code caches were not written in ${dir}: ${fs.existsSync(dir) ? fs.readdirSync(dir).join(', ') : 'no folder'}`);
    cacheWritten = { bytes: fs.statSync(path.join(dir, bundleCache)).size, undiciBytes: fs.statSync(path.join(dir, undiciCache)).size, afterReadyMs: performance.now() - t3 };
  }

  const result: Record<string, unknown> = {
    bundleBytes: bytes,
    loadMs: t1 - t0,
    activateMs: t2 - t1,
    totalMs: t2 - t0,
    readyMs: t3 - t2,
    sessionState: api.session.state,
    codeCache: api.codeCache,
    cacheWritten,
    firstRequestMs,
    commands: fake.commands.size,
    sockets: activationSockets,
    dnsLookups: activationLookups,
    undiciEvaluated: activationUndici,
    builtins: [...builtins].sort(),
    preloaded: preload,
    control: controlResult,
  };
  for (const d of (ctx.subscriptions as { dispose(): unknown }[]).reverse()) {
    try {
      d.dispose();
    } catch {
      /* the fake does not care */
    }
  }
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
}

main().catch((e: unknown) => {
  process.stderr.write(`activationChild: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

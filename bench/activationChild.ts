// One sample of the activation figure, in a fresh Node process:
//   node out/bench/activationChild.js ENTRY [--preload net,tls,crypto]
// ENTRY is the manifest's "main" (dist/extension.mjs, which imports its chunks).
// Imports the production build with a minimal fake `vscode` module (bench/fakeVscode.ts, a module
// of named exports as the host gives an extension, resolved by a module hook of this process), runs
// activate() as a returning user (an account and its password in the fake secret storage), and
// waits for the asynchronous part of activation (restoring the session). Then checks that no
// socket was opened, no DNS lookup was made and undici was not evaluated.
//
// How "undici was not evaluated" is seen from outside the minified bundle: undici's module
// lib/core/diagnostics.js creates its diagnostics channels (`undici:client:connected` …) when it is
// evaluated, and every part of undici the client loads (src/core/api/undiciParts.ts) requires it;
// a wrapper around diagnostics_channel.channel() counts the names that start with `undici:`. The
// sample then makes one request through the activated extension's client (to a closed port,
// aborted) to prove that both detectors do fire when undici loads and a connection is attempted,
// and to time what loading undici adds to the first request (its chunk is imported and compiled then).
//
// --preload loads those built-in modules before the clock starts: the extension host has them
// loaded before any extension activates (the bench suite in the host checks it), a fresh Node
// process does not, and loading them costs more than the bundle itself.
//
// Prints one JSON line on stdout.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createFakeVscode, fakeContext } from './fakeVscode';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const Module = require('node:module') as {
  registerHooks(hooks: { resolve(specifier: string, context: unknown, next: (s: string, c: unknown) => unknown): unknown }): unknown;
  builtinModules: string[];
};

const bundle = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', 'dist', 'extension.mjs'));
const preloadArg = process.argv.indexOf('--preload');
const preload = preloadArg > 0 ? (process.argv[preloadArg + 1] ?? '').split(',').filter(Boolean) : [];
// eslint-disable-next-line @typescript-eslint/no-require-imports
for (const m of preload) require(`node:${m}`);

// ---- detectors (installed before the bundle is loaded)
let undiciTouched = 0;
// The CommonJS object itself, which the bundle's require() returns too.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const diagnostics = require('node:diagnostics_channel') as { channel: (name: string | symbol) => unknown };
const channel = diagnostics.channel;
diagnostics.channel = (name: string | symbol) => {
  if (typeof name === 'string' && name.startsWith('undici:')) undiciTouched++;
  return channel(name);
};
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
/** Built-in modules the build imports (or requires) while it loads and activates. */
const builtins = new Set<string>();
let tracking = false;

// ---- the fake vscode module, for this process only: named exports read from the fake API
const fake = createFakeVscode();
const FAKE = Symbol.for('siteRevisions.bench.fakeVscode');
(globalThis as Record<symbol, unknown>)[FAKE] = fake.api;
const fakeFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sr-fake-vscode-')), 'vscode.mjs');
const names = Object.keys(fake.api).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default');
fs.writeFileSync(fakeFile, [`const api = globalThis[Symbol.for(${JSON.stringify(FAKE.description)})];`, ...names.map((k) => `export const ${k} = api[${JSON.stringify(k)}];`)].join('\n'));
const fakeUrl = pathToFileURL(fakeFile).href;
Module.registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'vscode') return { url: fakeUrl, shortCircuit: true };
    if (tracking && (specifier.startsWith('node:') || Module.builtinModules.includes(specifier))) builtins.add(specifier.replace(/^node:/, ''));
    return next(specifier, context);
  },
});

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
  });
  const bytes = fs.statSync(bundle).size;
  // The module hooks' own first use is not the extension's: the fake is imported before the clock starts.
  await import(fakeUrl);

  tracking = true;
  const t0 = performance.now();
  const ext = (await import(pathToFileURL(bundle).href)) as {
    activate(c: unknown): { ready: Promise<void>; session: { state: string; getClient(): Promise<{ getSites(o: { signal: AbortSignal }): Promise<unknown> }> } };
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
  const call = api.session
    .getClient()
    .then((client) => client.getSites({ signal: ac.signal }))
    .catch((e: unknown) => e);
  const until = Date.now() + 5000;
  while (Date.now() < until && (sockets === socketsAtCall || undiciTouched === 0)) await sleep(1);
  ac.abort();
  await call;
  const firstRequestMs = firstConnectAt !== undefined ? firstConnectAt - t4 : undefined;
  const controlResult = { undiciEvaluated: undiciTouched > 0, sockets: sockets - socketsAtCall };

  const result: Record<string, unknown> = {
    bundleBytes: bytes,
    loadMs: t1 - t0,
    activateMs: t2 - t1,
    totalMs: t2 - t0,
    readyMs: t3 - t2,
    sessionState: api.session.state,
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

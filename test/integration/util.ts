// Helpers for the integration suites (they run inside the extension host).
import * as vscode from 'vscode';
import type { RunningService } from '../server';

export const EXTENSION_ID = 'site-revisions.site-revisions';

/**
 * The activated extension's test handles: what `activate` returns in a test build (the
 * development bundle). The installed .vsix returns nothing (see src/extension.ts).
 */
export async function ext<T = unknown>(): Promise<T> {
  const e = vscode.extensions.getExtension<T>(EXTENSION_ID);
  if (!e) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  const api = e.isActive ? e.exports : await e.activate();
  if (!api) throw new Error(`${EXTENSION_ID} returned no test handles: it is not a test build (node esbuild.mjs without --production)`);
  // The revisions feature loads on first use; the suites read its handles (api.revisions) directly.
  await (api as { loadRevisions?: () => Promise<unknown> }).loadRevisions?.();
  return api;
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Said in the error when the time is up. */
  message?: string;
}

/**
 * Polls `check` until it returns a truthy value (returned) or the time is up (throws, with the
 * last error `check` threw, if any).
 */
export async function waitFor<T>(check: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`${opts.message ?? 'condition not met'} within ${timeoutMs} ms${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Resolves on the first event of `event` that satisfies `filter`, or rejects after `timeoutMs`. */
export function nextEvent<T>(event: vscode.Event<T>, filter: (e: T) => boolean = () => true, timeoutMs = 10000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`no matching event within ${timeoutMs} ms`));
    }, timeoutMs);
    const sub = event((e) => {
      if (!filter(e)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}

export interface TestService {
  url: string;
  /** The service object when it runs in this process (fault injection, request log); otherwise undefined. */
  running?: RunningService;
  /** Stops the service when this process started it; a no-op for an external one. */
  stop(): Promise<void>;
}

let service: Promise<TestService> | undefined;

/**
 * The local service: the one the runner started (env SITE_REVISIONS_TEST_SERVICE_URL), otherwise
 * one started in this process from test/server with a fresh temp data file. Shared by all
 * suites of the run (do not stop it in a suite); the extension host's end closes it.
 */
export function testService(): Promise<TestService> {
  service ??= (async (): Promise<TestService> => {
    const fromEnv = process.env.SITE_REVISIONS_TEST_SERVICE_URL;
    if (fromEnv) return { url: fromEnv.replace(/\/+$/, ''), stop: async () => undefined };
    // Loaded lazily: suites that use the runner's service never load the server code.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startService } = require('../server') as typeof import('../server');
    const running = await startService({ port: 0, host: '127.0.0.1', quiet: true });
    return { url: running.url.replace(/\/+$/, ''), running, stop: () => running.close() };
  })();
  return service;
}

/** Shorthand: the service's base URL. */
export async function serviceUrl(): Promise<string> {
  return (await testService()).url;
}

/** The workspace folder the runner opened (env SITE_REVISIONS_TEST_WORKSPACE names the expected path). */
export function workspaceFolder(): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('no workspace folder is open');
  return f;
}

// Shared steps of the feature suites: the local service's control endpoints, demo sign-in,
// and stubbing a vscode.window prompt (modal dialogs cannot be clicked in a test).
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { DEMO } from '../server/demo';
import type { RequestRecord, RunningService } from '../server';
import type { ExtensionApi } from '../../src/extension';
import { ext, testService } from './util';
import { screen } from './screen';

export interface Stats {
  requests: RequestRecord[];
  counts: Record<string, number>;
  /** /api requests being answered right now (arrived, reply not sent yet). */
  inFlight: number;
  maxInFlight: number;
}

export async function control(url: string, op: 'stats'): Promise<Stats>;
export async function control(url: string, op: 'reseed' | 'reset-stats' | 'config' | 'add-revision' | 'site-fields', body?: unknown): Promise<unknown>;
export async function control(url: string, op: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}/__control/${op}`, {
    method: op === 'stats' ? 'GET' : 'POST',
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  if (!res.ok) throw new Error(`control ${op}: HTTP ${res.status}`);
  return res.json();
}

export async function signInDemo(url: string): Promise<void> {
  await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: DEMO.user.email, password: DEMO.user.password });
}

/** A suite's start: the local service reseeded, the extension's handles, signed in as the demo user. */
export async function reseededAndSignedIn(): Promise<{ url: string; api: ExtensionApi }> {
  const url = (await testService()).url;
  const api = await ext<ExtensionApi>();
  await api.ready;
  await control(url, 'reseed');
  await signInDemo(url);
  return { url, api };
}

/**
 * The start of a suite of two accounts whose sites share ids: the demo user signed in on the
 * reseeded local service (A), and a second local service started inside the host (B, seeded
 * alike: "Team Intranet" has the same id for the team user there). The suite closes `serviceB`.
 */
export async function twoAccounts(): Promise<{ api: ExtensionApi; urlA: string; serviceB: RunningService; urlB: string; teamSiteId: string }> {
  const { url: urlA, api } = await reseededAndSignedIn();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startService } = require('../server') as typeof import('../server');
  const serviceB = await startService({ port: 0, host: '127.0.0.1', quiet: true });
  api.model.refresh();
  const teamSiteId = (await api.model.all()).find((s) => s.name === 'Team Intranet')!.id;
  return { api, urlA, serviceB, urlB: serviceB.url.replace(/\/+$/, ''), teamSiteId };
}

/** Replaces a vscode.window function for the duration of a test; returns the restore function. */
export function stubWindow<K extends keyof typeof vscode.window>(name: K, impl: (...args: never[]) => unknown): () => void {
  const win = vscode.window as unknown as Record<string, unknown>;
  const orig = win[name];
  win[name] = impl;
  return () => {
    win[name] = orig;
  };
}

export interface ShownMessage {
  severity: 'info' | 'warning' | 'error';
  message: string;
  modal: boolean;
  detail?: string;
  items: string[];
}

/**
 * Records every message the extension shows through vscode.window. `answer` may pick a button
 * for it (a string, or a promise of one: the message is then not drawn). Otherwise a non-modal
 * message is passed on to VS Code, so the workbench draws it (read it with
 * screen().notifications()), and a modal dialog, which cannot be clicked from here, is
 * dismissed. `restore()` puts the window back.
 */
export function spyMessages(answer: (m: ShownMessage) => string | undefined | Promise<string | undefined> = () => undefined): { shown: ShownMessage[]; restore(): void } {
  const shown: ShownMessage[] = [];
  const names = { info: 'showInformationMessage', warning: 'showWarningMessage', error: 'showErrorMessage' } as const;
  const restores = (Object.keys(names) as (keyof typeof names)[]).map((severity) => {
    const original = vscode.window[names[severity]] as (...a: unknown[]) => Thenable<unknown>;
    return stubWindow(names[severity], ((message: string, ...rest: unknown[]) => {
      const options = rest[0] && typeof rest[0] === 'object' ? (rest[0] as vscode.MessageOptions) : undefined;
      const items = (options ? rest.slice(1) : rest).map((i) => (typeof i === 'string' ? i : String((i as { title?: unknown }).title)));
      const m: ShownMessage = { severity, message, modal: options?.modal === true, ...(options?.detail !== undefined ? { detail: options.detail } : {}), items };
      shown.push(m);
      const picked = answer(m);
      if (picked !== undefined || m.modal) return Promise.resolve(picked);
      return original.call(vscode.window, message, ...rest);
    }) as never);
  });
  return { shown, restore: () => restores.forEach((r) => r()) };
}

/** True once a webview panel has been closed (its webview throws when touched). */
export function isDisposed(panel: vscode.WebviewPanel): boolean {
  try {
    void panel.webview.html;
    return false;
  } catch {
    return true;
  }
}

/**
 * Waits until the extension has no request in flight or waiting to the service at `url` (a
 * refresh behind, started by an earlier step, would otherwise meet the faults a test queues).
 */
export async function settled(scheduler: { stats(origin: string): { active: number; queued: number } }, url: string, timeoutMs = 20_000): Promise<void> {
  const origin = new URL(url).origin;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = scheduler.stats(origin);
    if (s.active === 0 && s.queued === 0) return;
    if (Date.now() > deadline) throw new Error(`requests still under way after ${timeoutMs} ms: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A revision as the service lists it, with its date as a time. */
export interface ServiceRevision {
  id: string;
  date: string;
  author: string;
  content: string;
  time: number;
}

/** A file's revisions as the service lists them to the demo user (straight from it, not through the extension), oldest first. */
export async function serviceRevisions(url: string, siteId: string, path: string): Promise<ServiceRevision[]> {
  const res = await fetch(`${url}/api/revisions?site=${siteId}&file=${encodeURIComponent(path)}&no_content=0`, {
    method: 'POST',
    body: new URLSearchParams({ login: '1', email: DEMO.user.email, password: DEMO.user.password }),
  });
  const body = (await res.json()) as { revisions: { id: string; date: string; author: string; content: string }[] };
  return body.revisions.map((r) => ({ ...r, time: Date.parse(`${r.date.replace(' ', 'T')}Z`) })).sort((a, b) => a.time - b.time || Number(a.id) - Number(b.id));
}

/**
 * A suite that mapped a folder leaves nothing behind for the next ones: no edited document
 * (reverted, so closing asks nothing), no mapped folder (so no background check), no revision
 * added to the service, and none of the histories it read in the caches (other suites count
 * their requests).
 */
export async function leaveMappedFolder(api: ExtensionApi, url: string, siteId: string, dir: vscode.Uri): Promise<void> {
  for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty)) {
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await api.revisions.folders.set(siteId, undefined);
  fs.rmSync(dir.fsPath, { recursive: true, force: true });
  await settled(api.scheduler, url);
  await control(url, 'reseed');
  api.revisions.cache.clear();
  await (await api.cache.current())?.clear();
  await vscode.commands.executeCommand('siteRevisions.refresh');
}

/**
 * What a suite that showed a site as it was (or another view of the Site Revisions container)
 * leaves behind: the container shown with only the Sites view expanded, its rows drawn for the
 * suites after it. Nothing without a screen driver.
 */
export async function sitesViewOnly(): Promise<void> {
  const s = screen();
  if (!s) return;
  await vscode.commands.executeCommand('siteRevisions.sites.focus');
  for (const title of ['Sites', 'History Search', 'Site Changes', 'Site As It Was', 'Compare Sites']) await s.setPaneExpanded(title, title === 'Sites');
}

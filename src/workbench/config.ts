// The one typed entry point to the extension's settings.
import * as vscode from 'vscode';
import type { ProxySettings } from '../core/net/proxy';

export const SECTION = 'siteRevisions';

export interface Settings {
  /** {base_url} of the service; application scope so a workspace cannot redirect credentials. */
  serviceUrl: string;
  requestTimeoutMs: number;
  /** PEM file with extra CA certificates for a private service (machine scope). */
  caFile: string;
  /** Trust the operating system's certificate store besides Node's CAs (application scope). */
  systemCertificates: boolean;
  revisionLayout: 'tree' | 'flat';
  revisionPageSize: number;
  hideIdenticalRevisions: boolean;
  cacheSizeBytes: number;
  /** Bound of the disk cache (revision contents and lists) per account, in bytes; 0 turns it off. */
  diskCacheBytes: number;
  /** Requests in flight to the service at once (the one request scheduler). */
  requestConcurrency: number;
  /** Revision blame: the annotation on every line instead of the current line only. */
  blameAllLines: boolean;
  /** Gutter changes against the newest revision on the service (a quick diff per mapped folder). */
  quickDiff: boolean;
  /** The newer-revision alert checks a file at most once in this many ms (0: on every open or focus). */
  alertThrottleMs: number;
  /** What a History Search result opens against: the revision before it, or the working file. */
  searchCompareWith: 'previous' | 'workingFile';
}

function clamp(n: unknown, min: number, max: number, fallback: number): number {
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  return {
    serviceUrl: (c.get<string>('serviceUrl') ?? '').trim(),
    requestTimeoutMs: clamp(c.get('requestTimeoutSeconds'), 1, 600, 30) * 1000,
    caFile: (c.get<string>('caFile') ?? '').trim(),
    systemCertificates: c.get<unknown>('systemCertificates') !== false,
    revisionLayout: c.get('revisions.layout') === 'flat' ? 'flat' : 'tree',
    revisionPageSize: Math.round(clamp(c.get('revisions.pageSize'), 5, 1000, 50)),
    hideIdenticalRevisions: c.get<boolean>('revisions.hideIdenticalToWorkingFile') === true,
    cacheSizeBytes: clamp(c.get('revisions.cacheSizeMB'), 1, 1024, 64) * 1024 * 1024,
    diskCacheBytes: Math.round(clamp(c.get('cache.maxSizeMB'), 0, 65536, 512) * 1024 * 1024),
    requestConcurrency: Math.round(clamp(c.get('requestConcurrency'), 1, 32, 6)),
    blameAllLines: c.get<unknown>('blame.allLines') === true,
    quickDiff: c.get<unknown>('quickDiff.enabled') !== false,
    alertThrottleMs: clamp(c.get('newerRevisionAlert.throttleMinutes'), 0, 1440, 5) * 60_000,
    searchCompareWith: c.get('search.compareWith') === 'workingFile' ? 'workingFile' : 'previous',
  };
}

/**
 * VS Code's own proxy settings (section `http`), which the bundled undici does not see through
 * VS Code's patching; src/core/net/proxy.ts decides with them. Read on every request.
 */
export function readProxySettings(): ProxySettings {
  const c = vscode.workspace.getConfiguration('http');
  const noProxy = c.get<unknown>('noProxy');
  const authorization = c.get<unknown>('proxyAuthorization');
  return {
    proxy: String(c.get<unknown>('proxy') ?? '').trim(),
    noProxy: Array.isArray(noProxy) ? noProxy.filter((e): e is string => typeof e === 'string') : typeof noProxy === 'string' ? [noProxy] : [],
    strictSSL: c.get<unknown>('proxyStrictSSL') !== false,
    ...(typeof authorization === 'string' && authorization.trim() ? { authorization: authorization.trim() } : {}),
    support: String(c.get<unknown>('proxySupport') ?? 'override'),
  };
}

/** The settings the service client is built from: a change rebuilds it (Session.reconfigure). */
export const CLIENT_SETTINGS = ['requestTimeoutSeconds', 'caFile', 'systemCertificates'].map((s) => `${SECTION}.${s}`);

/** Whether a configuration change touches a setting the service client is built from. */
export function affectsClient(e: vscode.ConfigurationChangeEvent): boolean {
  return CLIENT_SETTINGS.some((s) => e.affectsConfiguration(s));
}

/** Calls `listener` when any of the extension's settings change. */
export function onDidChangeSettings(listener: (e: vscode.ConfigurationChangeEvent) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(SECTION)) listener(e);
  });
}

export async function setServiceUrl(url: string): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update('serviceUrl', url, vscode.ConfigurationTarget.Global);
}

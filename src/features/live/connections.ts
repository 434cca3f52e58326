// The live file systems of the signed-in account's sites: one LiveFs per site (its pool of
// connections), made from the site's definition, this computer's settings for it (key file,
// pool size, idle time, default timeout) and the trust and secrets providers of this folder.
// A site whose definition changed gets a new one (the old one is closed); signing out or
// another account closes them all and forgets the passwords typed in this window.
import * as path from 'node:path';
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { openLive, siteEndpoint, testConnection, type LiveFs, type LiveOptions, type LiveTrust, type LocalSiteSettings, type MappedSite, type SiteLike, type StageReport, type TestResult } from '../../core/live';
import { readCaFile } from '../../core/net/tls';
import { proxyResolver } from '../../core/net/proxy';
import { Disposable } from '../../core/util/disposable';
import { readProxySettings, readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import type { Session } from '../auth/session';
import { accountKey } from '../revisions/register';
import type { SitesModel } from '../sites/sitesModel';
import { accountTag } from '../../core/model/account';
import { forgetTyped, siteSecrets } from './secrets';
import { GlobalTrustStore, trustDecider } from './trust';

const KEY_FILES = 'siteRevisions.live.keyFiles';

/** This computer's live settings (package.json contributes them). */
export function liveSettings(): { ftpConnections: number; idleSeconds: number; timeoutSeconds: number; knownHostsFiles: string[] } {
  const c = vscode.workspace.getConfiguration('siteRevisions.live');
  const n = (v: unknown, lo: number, hi: number, d: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(hi, Math.max(lo, Math.round(v))) : d);
  const files = c.get<unknown>('knownHostsFiles');
  return {
    ftpConnections: n(c.get('ftpConnections'), 1, 8, 3),
    idleSeconds: n(c.get('idleSeconds'), 5, 3600, 60),
    timeoutSeconds: n(c.get('timeoutSeconds'), 1, 300, 30),
    knownHostsFiles: Array.isArray(files) ? files.filter((f): f is string => typeof f === 'string' && f.trim() !== '').map((f) => f.replace(/^~(?=$|[\\/])/, os.homedir())) : [],
  };
}

export interface LiveDeps {
  context: vscode.ExtensionContext;
  session: Session;
  model: SitesModel;
  log: Log;
}

/** A site that cannot be reached from here, or whose values make no connection: said with its reason. */
export class UnreachableSite extends Error {
  constructor(
    readonly kind: Extract<MappedSite, { ok: false }>['kind'],
    reason: string,
  ) {
    super(reason);
    this.name = 'UnreachableSite';
  }
}

export class LiveConnections extends Disposable {
  readonly trustStore: GlobalTrustStore;
  private readonly open = new Map<string, { key: string; fs: LiveFs; site: Site }>();
  private readonly _onDidClose = this.own(new vscode.EventEmitter<string | undefined>());
  /** A site's live file system was closed (its definition changed, or all of them: undefined). */
  readonly onDidClose = this._onDidClose.event;
  private lastAccount: string | undefined;
  /** Hears each trust question asked (tests read it). */
  asked: { what: 'hostKey' | 'certificate' | 'cleartext'; text: string }[] = [];

  constructor(private readonly deps: LiveDeps) {
    super();
    this.trustStore = new GlobalTrustStore(deps.context.globalState, () => this.account());
    this.lastAccount = this.account();
    this.own(
      deps.session.onDidChange(() => {
        const now = this.account();
        if (now === this.lastAccount) return;
        this.lastAccount = now;
        forgetTyped();
        this.closeAll();
      }),
    );
    this.own({ dispose: () => this.closeAll() });
  }

  /** The signed-in account's tag (address.ts), undefined when signed out. */
  account(): string | undefined {
    const k = accountKey(this.deps.session);
    return k ? accountTag(k) : undefined;
  }

  /** The key file chosen for a site on this computer. */
  keyFile(siteId: string): string | undefined {
    const acc = this.account();
    const all = this.deps.context.globalState.get<Record<string, string>>(KEY_FILES) ?? {};
    return acc ? all[`${acc}:${siteId}`] : undefined;
  }

  async setKeyFile(siteId: string, file: string | undefined): Promise<void> {
    const acc = this.account();
    if (!acc) return;
    const all = { ...(this.deps.context.globalState.get<Record<string, string>>(KEY_FILES) ?? {}) };
    if (file) all[`${acc}:${siteId}`] = file;
    else delete all[`${acc}:${siteId}`];
    await this.deps.context.globalState.update(KEY_FILES, all);
    this.close(siteId);
  }

  local(siteId: string): LocalSiteSettings {
    const s = liveSettings();
    const keyFile = siteId ? this.keyFile(siteId) : undefined;
    return { poolSize: s.ftpConnections, idleSeconds: s.idleSeconds, defaultTimeoutSeconds: s.timeoutSeconds, ...(keyFile ? { keyFile } : {}) };
  }

  /** A site (or the form's values) as a connection definition, or why it cannot be one. */
  map(site: SiteLike, keyFile?: string): MappedSite {
    const local = this.local(site.id ?? '');
    return siteEndpoint(site, keyFile ? { ...local, keyFile } : local);
  }

  trust(): LiveTrust {
    const settings = readSettings();
    const ca = readCaFile(settings.caFile, this.deps.log);
    const known = liveSettings().knownHostsFiles;
    return {
      store: this.trustStore,
      decider: trustDecider((what, text) => {
        this.asked.push({ what, text });
        this.deps.log.info(`Asked: ${text}`);
      }),
      ...(known.length ? { knownHostsFiles: known } : {}),
      ...(ca ? { ca } : {}),
      systemCertificates: settings.systemCertificates,
    };
  }

  /** What a connection of the site takes: trust, secrets (asking when needed), log, proxy. */
  options(site: { id: string; name: string }, mapped: Extract<MappedSite, { ok: true }>, o: { direct?: string; interactive?: boolean; onStage?: (s: StageReport) => void; formValues?: boolean } = {}): LiveOptions {
    const { log, context } = this.deps;
    const acc = this.account() ?? 'signed-out';
    return {
      trust: this.trust(),
      secrets: siteSecrets({
        secrets: context.secrets,
        log,
        account: acc,
        siteId: site.id || `form:${mapped.endpoint.host}`,
        siteName: site.name || mapped.endpoint.label,
        // The saved password as the service lists it now (a list read from the disk cache has none).
        stored: async () => {
          if (!site.id || o.formValues) return mapped.storedPassword;
          const fresh = await this.deps.model.freshSite(site.id).catch(() => undefined);
          const m = fresh ? this.map(fresh) : mapped;
          return m.ok ? m.storedPassword : undefined;
        },
        direct: o.direct,
        issue: mapped.passwordIssue,
        interactive: o.interactive !== false,
        secretKeyLabel: mapped.endpoint.protocol === 's3',
      }),
      log: (level, text) => (level === 'warn' ? log.warn(text) : level === 'info' ? log.info(text) : log.debug(text)),
      proxy: proxyResolver(readProxySettings, process.env),
      ...(o.onStage ? { onStage: o.onStage } : {}),
    };
  }

  /** The live file system of a saved site (made on first use; a changed definition gets a new one). */
  fsFor(site: Site): LiveFs {
    const mapped = this.map(site);
    if (!mapped.ok) throw new UnreachableSite(mapped.kind, mapped.reason);
    const key = JSON.stringify([mapped.endpoint, this.account()]);
    const have = this.open.get(site.id);
    if (have && have.key === key) return have.fs;
    if (have) this.close(site.id);
    const fs = openLive(mapped.endpoint, this.options(site, mapped));
    this.open.set(site.id, { key, fs, site });
    return fs;
  }

  /** The site a live file system belongs to, while it is open. */
  siteOf(siteId: string): Site | undefined {
    return this.open.get(siteId)?.site;
  }

  close(siteId: string): void {
    const have = this.open.get(siteId);
    if (!have) return;
    this.open.delete(siteId);
    have.fs.close().catch(() => undefined);
    this._onDidClose.fire(siteId);
  }

  closeAll(): void {
    const ids = [...this.open.keys()];
    for (const id of ids) this.close(id);
    if (ids.length) this._onDidClose.fire(undefined);
  }

  /**
   * Test Connection of a site or of the form's values (src/core/live/testConnection.ts): connects
   * with a connection of its own (nothing shared with the browsing ones), lists the root, and
   * reports each stage; the form's unsaved password is tried first.
   */
  async test(site: SiteLike & { id: string; name: string }, o: { password?: string; keyFile?: string; signal: AbortSignal; onStage?: (s: StageReport) => void; interactive?: boolean; formValues?: boolean }): Promise<TestResult | { unreachable: UnreachableSite }> {
    const mapped = this.map(site, o.keyFile);
    if (!mapped.ok) return { unreachable: new UnreachableSite(mapped.kind, mapped.reason) };
    return testConnection(mapped.endpoint, { ...this.options(site, mapped, { ...(o.onStage ? { onStage: o.onStage } : {}), interactive: o.interactive !== false, ...(o.formValues ? { formValues: true } : {}) }), signal: o.signal, ...(o.password !== undefined ? { password: o.password } : {}) });
  }
}

/** `~/x` and relative key paths as absolute paths. */
export function absoluteKeyPath(p: string): string {
  const t = p.trim().replace(/^~(?=$|[\\/])/, os.homedir());
  return path.resolve(t);
}

// The disk cache of the signed-in account (src/core/store's DiskStore), below the folder VS Code gives
// the extension (context.globalStorageUri): `store/<accountFolderName>` — a hash of the service
// and the email, so neither appears in a path — folders 0700, files 0600.
//
// - One store per account, opened when something first reads it while the session has an
//   account (its code is loaded then: activation does not pay for it), bounded by
//   `siteRevisions.cache.maxSizeMB` (0: off, and what it held is deleted).
// - Sign-out, or signing in as another account (or to another service), deletes the previous
//   account's folder; an expired session keeps it (the same account signs in again).
// - "Site Revisions: Clear Cache" deletes every account's folder after asking, and says how much
//   it freed; of the signed-in account's, the transfers' kept copies and state stay. The log says the cache's size when a store opens.
// fs.promises is read where it is used, so that activating does not load it (see esbuild.mjs).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Session } from './session';
import { onDidChangeSettings, readSettings } from '../../workbench/config';
import type { Log } from '../../workbench/log';
import type { DiskStore } from '../../core/store';
import { accountFolderName } from '../../core/store/account';
import { feature } from '../../workbench/feature';
import { message, plain, showInfo, showWarning } from '../../workbench/messages';
import { background } from '../../core/util/background';
import { mb } from '../../core/util/bytes';

interface Opened {
  key: string;
  folder: string;
  /** The store, once something asked for it (current()). */
  store?: Promise<DiskStore>;
}

/** What Clear Cache leaves in the signed-in account's folder: the transfers' kept copies and state (src/core/transfer). */
const KEPT_BY_CLEAR = ['overwritten', 'transfer'];

/** The disk store's code, loaded when the first store opens. */
const loadStore = feature(() => import('./diskStore.js'));

export class AccountCache implements vscode.Disposable {
  /** Where every account's folder is (undefined: the host gives no storage folder, so no disk cache). */
  readonly root: string | undefined;
  private opened: Opened | undefined;
  /** Deletions and openings happen one after another (a folder is never deleted while reopened). */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly subs: vscode.Disposable[] = [];
  private readonly _onDidClear = new vscode.EventEmitter<void>();
  /** Fires after Clear Cache (the memory caches drop too). */
  readonly onDidClear = this._onDidClear.event;

  constructor(
    context: vscode.ExtensionContext,
    private readonly session: Session,
    private readonly log: Log,
  ) {
    const storage = (context as Partial<vscode.ExtensionContext>).globalStorageUri;
    this.root = storage ? path.join(storage.fsPath, 'store') : undefined;
    this.subs.push(
      session.onDidChange(() => this.follow()),
      onDidChangeSettings((e) => {
        if (!e.affectsConfiguration('siteRevisions.cache.maxSizeMB')) return;
        const bytes = readSettings().diskCacheBytes;
        const o = this.opened;
        if (o?.store) background('Resizing the disk cache', o.store.then((s) => s.setMaxBytes(bytes)));
      }),
      vscode.commands.registerCommand('siteRevisions.clearCache', () => this.clearCommand()),
      this._onDidClear,
    );
    this.follow();
  }

  /** The store of the signed-in account, opened on first use; undefined when signed out. (Off: a store that is not `enabled`.) */
  current(): Promise<DiskStore | undefined> {
    const o = this.opened;
    if (!o) return Promise.resolve(undefined);
    return (o.store ??= this.open(o.folder));
  }

  /** The folder of the signed-in account's store (tests and the secrets scan read it). */
  get folder(): string | undefined {
    return this.opened?.folder;
  }

  /** Opens, switches or closes the store to match the session's account. */
  private follow(): void {
    const acc = this.session.state === 'signedOut' ? undefined : this.session.account;
    let key: string | undefined;
    if (acc) {
      try {
        key = accountFolderName(acc.serviceUrl, acc.email);
      } catch {
        key = undefined;
      }
    }
    if (key === this.opened?.key) return;
    const previous = this.opened;
    this.opened = undefined;
    if (previous) {
      // Signed out, or another account: the previous account's cache goes with it, whatever
      // happens to its last write (a full disk).
      this.chain = this.chain.then(async () => {
        const s = await previous.store?.catch(() => undefined);
        if (s) await s.destroy();
        await fsp.rm(previous.folder, { recursive: true, force: true });
        this.log.info('The disk cache of the previous account was deleted.');
      }).catch((e: unknown) => this.log.warn(`The disk cache of the previous account could not be deleted (${(e as Error).message}).`));
    }
    if (!key || !this.root) return;
    this.opened = { key, folder: path.join(this.root, key) };
  }

  /** Opens the store in `folder` (after the deletions and openings before it). */
  private open(folder: string): Promise<DiskStore> {
    const store = this.chain.then(async () => {
      const { DiskStore } = await loadStore();
      const s = new DiskStore(folder, { maxBytes: readSettings().diskCacheBytes, log: (m) => this.log.warn(m) });
      await s.ready;
      const st = s.stats();
      this.log.info(
        s.enabled ? `Disk cache: ${mb(st.bytes)} in ${st.entries} entries (bound ${mb(st.maxBytes)})` : st.maxBytes === 0 ? 'Disk cache: off (siteRevisions.cache.maxSizeMB is 0)' : 'Disk cache: not usable (see above)',
      );
      return s;
    });
    this.chain = store.catch(() => undefined);
    return store;
  }

  /** Deletes everything cached on disk, every account's; returns the bytes freed. */
  async clear(): Promise<number> {
    const root = this.root;
    if (!root) return 0;
    const run = this.chain.then(async () => {
      const freed = await folderBytes(root);
      const o = this.opened;
      const s = o?.store ? await o.store : undefined;
      // The open store deletes its own files (and stays usable); other folders are removed. The
      // signed-in account's kept copies and transfer state are not a cache of the service (the
      // copies protect uploads the service has no revision of; the queue holds saves not uploaded
      // yet): they stay (docs/decisions.md, "Clear Cache keeps what transfers kept").
      if (s) await s.clear();
      const names = await fsp.readdir(root).catch((): string[] => []);
      for (const n of names) {
        if (n !== o?.key) await fsp.rm(path.join(root, n), { recursive: true, force: true });
        else if (!s) for (const c of await fsp.readdir(path.join(root, n)).catch((): string[] => [])) if (!KEPT_BY_CLEAR.includes(c)) await fsp.rm(path.join(root, n, c), { recursive: true, force: true });
      }
      return freed - (await folderBytes(root));
    });
    this.chain = run.catch(() => undefined);
    const freed = await run;
    this.log.info(`Disk cache cleared: ${mb(freed)} freed.`);
    this._onDidClear.fire();
    return freed;
  }

  private async clearCommand(): Promise<number | undefined> {
    // What it would delete: not what it keeps (KEPT_BY_CLEAR of the signed-in account).
    const key = this.opened?.key;
    const kept = this.root && key ? (await Promise.all(KEPT_BY_CLEAR.map((c) => folderBytes(path.join(this.root!, key, c))))).reduce((a, b) => a + b, 0) : 0;
    const size = this.root ? (await folderBytes(this.root)) - kept : 0;
    const clear = vscode.l10n.t('Clear Cache');
    const choice = await showWarning(
      message('Delete the revisions and lists Site Revisions keeps on this computer ({0})?', plain(mb(size))),
      { modal: true, detail: message('They are fetched from the service again when needed. Nothing on the service is touched.') },
      clear,
    );
    if (choice !== clear) return undefined;
    const freed = await this.clear();
    background('The Clear Cache message', showInfo(message('Site Revisions: the cache was cleared ({0} freed).', plain(mb(freed)))));
    return freed;
  }

  dispose(): void {
    this.subs.forEach((d) => d.dispose());
    const o = this.opened;
    if (o?.store) background('Closing the disk cache', o.store.then((s) => s.dispose()));
  }
}

/** Bytes of the files below a folder (0 when it is not there). */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await folderBytes(p);
    else total += await fsp.stat(p).then((s) => s.size, () => 0);
  }
  return total;
}

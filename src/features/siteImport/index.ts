// Import Sites… and Export Sites…: other tools' site files → a preview (a multi-select quick pick:
// one row per site, those already on the service unticked and marked, those that cannot be
// imported shown and not tickable) → one Save Site per ticked site with progress and Cancel →
// a summary that offers Retry for the failed ones. Export writes sftp.json or a FileZilla XML
// file, 0600, passwords only when asked for. Loaded on first use (./register.ts), with the
// readers of src/core/siteImport and their parsers: a chunk of its own.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { background } from '../../core/util/background';
import { displayText } from '../../core/util/text';
import { sameSite } from '../../core/siteImport/match';
import { ImportCancelledError, parseOffThread } from '../../core/siteImport/offThread';
import { readImportBytes } from '../../core/siteImport/text';
import { ImportFileError, IMPORT_LIMITS, type ImportResult } from '../../core/siteImport/types';
import { previewRows, tickedAtFirst, type Preview, type PreviewRow } from './preview';
import { translate } from '../../workbench/l10n';
import type { Log } from '../../workbench/log';
import { message, plain, showError, showInfo, showWarning, type MessageText } from '../../workbench/messages';
import { describeError, type Notifier } from '../../workbench/notify';
import type { Session } from '../auth/session';
import type { FolderMapping } from '../revisions/mapping';
import type { SitesModel } from '../sites/sitesModel';
import { exportSites } from './exportSites';
import type { SiteImportCommand } from './names';
import { UploadOnSaveRecord } from './uploadOnSave';
export { formValues, previewRows, saveFields, tickedAtFirst, type Preview, type PreviewRow } from './preview';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export interface SiteImportDeps {
  session: Session;
  model: SitesModel;
  notifier: Notifier;
  log: Log;
  folders: FolderMapping;
  globalState: vscode.Memento;
  account: () => string | undefined;
}

/** The outcome of the saves. */
export interface ImportOutcome {
  saved: { row: PreviewRow; siteId: string }[];
  failed: { row: PreviewRow; error: unknown }[];
  /** Not attempted (cancelled before their turn). */
  notTried: PreviewRow[];
}

/** `$(` would draw an icon in a quick pick's label or description: broken up (as the alert does for authors). */
function shown(s: string): string {
  return displayText(s).replace(/\$\(/g, '$\u200b(');
}

type Item = vscode.QuickPickItem & { row?: PreviewRow; blocked?: boolean };

function rowItem(r: PreviewRow): Item {
  const f = r.site.fields;
  const host = f.domain ?? '';
  // A server URL (WebDAV) says its own port; a host gets `:port`.
  const where = [f.server_type, /^https?:\/\//i.test(host) ? [host, f.port ? vscode.l10n.t('port {0}', f.port) : ''].filter(Boolean).join(' · ') : host ? `${host}${f.port ? `:${f.port}` : ''}` : ''].filter(Boolean).join(' · ');
  const details = [
    f.ftp_user ? vscode.l10n.t('user {0}', f.ftp_user) : vscode.l10n.t('no user'),
    f.dir ? vscode.l10n.t('home {0}', f.dir) : vscode.l10n.t('home: the login folder'),
    r.site.passwordIncluded ? vscode.l10n.t('password included') : (r.site.passwordNote ?? vscode.l10n.t('no password')),
  ];
  const status = r.invalid
    ? vscode.l10n.t('Cannot be imported: {0}', r.invalid)
    : r.existing
      ? vscode.l10n.t('Already on the service as “{0}”', r.existing.name)
      : r.repeats
        ? vscode.l10n.t('The same site as “{0}” above', r.repeats)
        : '';
  const others = r.site.notCarried.filter((n) => n !== r.site.passwordNote);
  const notCarried = others.length ? vscode.l10n.t('Not carried over: {0}', others.join('; ')) : '';
  return {
    label: `${r.invalid ? '$(error) ' : r.existing || r.repeats ? '$(pass-filled) ' : ''}${shown(f.name)}`,
    description: shown(where),
    // What decides the tick first (a long line is cut at the end): the status, the sign-in, then what is not carried.
    detail: shown([status, details.join(' · '), notCarried].filter(Boolean).join(' — ')),
    picked: tickedAtFirst(r),
    row: r,
    blocked: !!r.invalid,
  };
}

/**
 * The preview: resolves with the ticked rows when the user confirms (Enter or OK), undefined when
 * it is closed. Rows that cannot be imported are listed but cannot stay ticked.
 */
export function showPreview(p: Preview, onShown?: (qp: vscode.QuickPick<Item>) => void): Promise<PreviewRow[] | undefined> {
  const qp = vscode.window.createQuickPick<Item>();
  qp.canSelectMany = true;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.ignoreFocusOut = true;
  const fresh = p.rows.filter((r) => !r.invalid && !r.existing && !r.repeats);
  const there = p.rows.filter((r) => !r.invalid && (r.existing || r.repeats));
  const invalid = p.rows.filter((r) => r.invalid);
  const items: Item[] = [];
  const section = (label: string, rows: PreviewRow[]) => {
    if (!rows.length) return;
    items.push({ label, kind: vscode.QuickPickItemKind.Separator });
    items.push(...rows.map(rowItem));
  };
  section(vscode.l10n.t('New sites'), fresh);
  section(vscode.l10n.t('Already on the service (unticked)'), there);
  section(vscode.l10n.t('Cannot be imported'), invalid);
  if (p.leftOut.length) {
    items.push({ label: vscode.l10n.t('Not sites the service can hold'), kind: vscode.QuickPickItemKind.Separator });
    items.push(...p.leftOut.map((l): Item => ({ label: `$(circle-slash) ${shown(l.name)}`, detail: shown(l.reason), blocked: true })));
  }
  qp.items = items;
  qp.selectedItems = items.filter((i) => i.picked);
  const fileNames = p.files.map((f) => path.basename(f)).join(', ');
  const title = () =>
    vscode.l10n.t('Import Sites from {0} ({1}): {2} of {3} ticked', p.formats.join(', '), shown(fileNames), qp.selectedItems.filter((i) => i.row).length, p.rows.length + p.leftOut.length);
  qp.title = title();
  qp.placeholder = vscode.l10n.t('Untick what not to import, then press Enter');
  return new Promise((resolve) => {
    let done = false;
    const finish = (v: PreviewRow[] | undefined) => {
      if (done) return;
      done = true;
      resolve(v);
      qp.dispose();
    };
    qp.onDidChangeSelection((sel) => {
      // What cannot be imported does not stay ticked.
      if (sel.some((i) => i.blocked)) qp.selectedItems = sel.filter((i) => !i.blocked);
      qp.title = title();
    });
    qp.onDidAccept(() => finish(qp.selectedItems.filter((i) => i.row && !i.blocked).map((i) => i.row!)));
    qp.onDidHide(() => finish(undefined));
    qp.show();
    onShown?.(qp);
  });
}

/** The handlers of the two commands. */
export function siteImportCommands(deps: SiteImportDeps): Record<SiteImportCommand, (...args: unknown[]) => unknown> & { readonly lastOutcome: ImportOutcome | undefined } {
  const { session, model, log, notifier } = deps;
  const uploads = new UploadOnSaveRecord(deps.globalState, deps.account);
  let lastOutcome: ImportOutcome | undefined;

  /**
   * Reads each file (bounded) and parses it on the import's own thread, under a progress
   * notification whose Cancel stops the thread; a file that cannot be read is said, the others
   * go on. Undefined when cancelled.
   */
  const readFiles = (uris: vscode.Uri[]): Thenable<{ file: string; result: ImportResult }[] | undefined> =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Reading site files'), cancellable: true }, async (progress, token) => {
      const out: { file: string; result: ImportResult }[] = [];
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        for (const uri of uris) {
          const name = uri.scheme === 'file' ? uri.fsPath : uri.toString(true);
          progress.report({ message: displayText(path.basename(name)) });
          try {
            let bytes: Uint8Array;
            if (uri.scheme === 'file') bytes = await readImportBytes(uri.fsPath, translate);
            else {
              const st = await vscode.workspace.fs.stat(uri);
              if (st.size > IMPORT_LIMITS.fileBytes) throw new ImportFileError('too-large', vscode.l10n.t('The file is larger than {0} MB: site files are far smaller.', IMPORT_LIMITS.fileBytes / (1024 * 1024)));
              bytes = await vscode.workspace.fs.readFile(uri);
            }
            out.push({ file: name, result: await parseOffThread(bytes, uri.scheme === 'file' ? uri.fsPath : uri.path, { signal: abort.signal, t: translate, ...(vscode.l10n.bundle ? { bundle: vscode.l10n.bundle } : {}) }) });
          } catch (e) {
            if (e instanceof ImportCancelledError) return undefined;
            const why = e instanceof Error ? e.message : String(e);
            log.warn(`Import: ${path.basename(name)} could not be read: ${why}`);
            background('Showing why a file cannot be imported', showError(message('“{0}” cannot be imported. {1}', plain(path.basename(name)), plain(why))));
          }
        }
      } finally {
        sub.dispose();
      }
      return out;
    });

  /** One Save Site per row, in order; a cancel stops before the next; a failure costs that row only. */
  const save = (rows: PreviewRow[]): Thenable<ImportOutcome> =>
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Importing sites'), cancellable: true }, async (progress, token) => {
      const outcome: ImportOutcome = { saved: [], failed: [], notTried: [] };
      // Cancel stops before the next save: the one under way is not aborted (a write cut off may
      // have been carried out all the same; its answer says which).
      for (const [i, row] of rows.entries()) {
        if (token.isCancellationRequested) {
          outcome.notTried.push(...rows.slice(i));
          break;
        }
        progress.report({ message: vscode.l10n.t('{0} ({1} of {2})', displayText(row.site.fields.name), i + 1, rows.length), increment: 100 / rows.length });
        try {
          const { siteId } = await session.call((c) => c.createSite(row.fields));
          outcome.saved.push({ row, siteId });
        } catch (e) {
          // Never logs the fields: a password may be among them.
          log.warn(`Import: “${row.site.fields.name}” was not saved: ${describeError(e).message}`);
          outcome.failed.push({ row, error: e });
        }
      }
      return outcome;
    });

  /** After the saves: the list again, upload_on_save compared, the folders of sftp.json offered. */
  const after = async (outcome: ImportOutcome): Promise<void> => {
    model.refresh();
    const sent = outcome.saved.filter((s) => s.row.site.fields.upload_on_save);
    if (sent.length) {
      const listed = await session.call((c) => c.getSites()).catch(() => undefined);
      for (const s of sent) {
        const want = s.row.site.fields.upload_on_save!;
        const have = listed?.find((x) => x.id === s.siteId)?.upload_on_save.trim();
        if (listed && have !== want) {
          await uploads.set(s.siteId, want);
          log.info(`Import: the service did not keep upload_on_save=${want} of site ${s.siteId}; kept in this editor`);
        }
      }
    }
    const withFolder = outcome.saved.filter((s) => s.row.site.localFolder && fs.existsSync(s.row.site.localFolder) && !deps.folders.get(s.siteId));
    if (withFolder.length) {
      const map = vscode.l10n.t('Map Folders');
      const list = withFolder.map((s) => `“${s.row.site.fields.name}” → ${s.row.site.localFolder}`).join('; ');
      const pick = await showInfo(
        withFolder.length === 1 ? message('Map “{0}” to the folder its sftp.json belongs to ({1})?', plain(withFolder[0]!.row.site.fields.name), plain(withFolder[0]!.row.site.localFolder!)) : message('Map the imported sites to the folders their sftp.json belongs to? {0}', plain(list)),
        map,
      );
      if (pick === map) for (const s of withFolder) await deps.folders.set(s.siteId, vscode.Uri.file(s.row.site.localFolder!));
    }
  };

  /** Saves, says how it went, and offers Retry for what failed (the list is checked first: a save whose answer was lost may have created the site). */
  const run = async (rows: PreviewRow[]): Promise<ImportOutcome> => {
    const outcome = await save(rows);
    lastOutcome = outcome;
    background('After the import', after(outcome));
    const n = outcome.saved.length;
    if (!outcome.failed.length && !outcome.notTried.length) {
      background('Showing the import summary', showInfo(n === 1 ? message('Imported 1 site.') : message('Imported {0} sites.', n)));
      return outcome;
    }
    const again = [...outcome.failed.map((f) => f.row), ...outcome.notTried];
    const first = outcome.failed[0];
    const why = first ? plain(describeError(first.error).message) : ('' as MessageText);
    const text = outcome.failed.length
      ? message('Imported {0} of {1} sites. {2} failed: {3} (first: “{4}”: {5})', n, n + again.length, outcome.failed.length, plain(outcome.failed.map((f) => f.row.site.fields.name).join(', ')), plain(first!.row.site.fields.name), why)
      : message('Imported {0} of {1} sites: cancelled before the others.', n, n + again.length);
    const retry = vscode.l10n.t('Retry');
    const showLog = vscode.l10n.t('Show Log');
    background(
      'Offering to retry the import',
      Promise.resolve(showWarning(text, retry, showLog)).then(async (pick) => {
        if (pick === showLog) log.show();
        if (pick !== retry) return;
        // A save whose answer was lost may have created its site: such rows are not saved twice.
        const listed = await session.call((c) => c.getSites()).catch(() => [] as Site[]);
        const still = again.filter((r) => !listed.some((s) => sameSite(r.site.fields, s) && s.name === r.fields.name));
        if (still.length) await run(still);
        else model.refresh();
      }),
    );
    return outcome;
  };

  const importSites = async (arg?: unknown): Promise<ImportOutcome | undefined> => {
    if (session.state !== 'signedIn') {
      const signIn = vscode.l10n.t('Sign In…');
      const pick = await showInfo(message('Sign in to Site Revisions first: imported sites are saved on the service.'), signIn);
      if (pick === signIn) await vscode.commands.executeCommand('siteRevisions.signIn');
      return undefined;
    }
    let uris = (Array.isArray(arg) ? arg : arg ? [arg] : []).filter((u): u is vscode.Uri => u instanceof vscode.Uri);
    if (!uris.length) {
      uris =
        (await vscode.window.showOpenDialog({
          canSelectMany: true,
          openLabel: vscode.l10n.t('Preview Import'),
          title: vscode.l10n.t('Import Sites: FileZilla, WinSCP, Cyberduck, vscode-sftp or Dreamweaver'),
          filters: { [vscode.l10n.t('Site files')]: ['xml', 'ini', 'duck', 'json', 'ste'], [vscode.l10n.t('All files')]: ['*'] },
        })) ?? [];
    }
    if (!uris.length) return undefined;
    const results = await readFiles(uris);
    if (!results?.length) return undefined;
    let existing: Site[];
    try {
      existing = await model.current();
    } catch (e) {
      notifier.error(message('Cannot import now'), e, () => importSites(uris));
      return undefined;
    }
    if (session.offline || model.state === 'offline') {
      background('Saying the import needs the service', showWarning(message('The service cannot be reached: nothing can be imported now. Try again once it answers.')));
      return undefined;
    }
    const preview = previewRows(results, existing);
    if (!preview.rows.length) {
      const reasons = preview.leftOut.slice(0, 3).map((l) => `${l.name}: ${l.reason}`).join('; ');
      background('Saying there is nothing to import', showInfo(preview.leftOut.length ? message('Nothing to import: {0}', plain(reasons)) : message('The file holds no sites.')));
      return undefined;
    }
    const ticked = await showPreview(preview);
    if (!ticked?.length) return undefined;
    return run(ticked);
  };

  return {
    'siteRevisions.importSites': importSites,
    'siteRevisions.exportSites': (arg?: unknown, all?: unknown) => exportSites(deps, arg, all),
    get lastOutcome() {
      return lastOutcome;
    },
  };
}

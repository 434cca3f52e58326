// Shared by the transfer host suites (transfer*.test.ts): the real servers started for a suite,
// its sites and mapped folders, the servers' own folders on disk (where expected results are read),
// and what the suites read of the screen (the conflict choice, progress).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site, SiteFields } from '../../src/core/api/types';
import type { LiveServers } from '../live/servers';
import type { FaultProxy } from '../live/faultProxy';
import type { Screen } from './screen';
import { namesOnDisk } from '../unit/helpers/liveSites';
import { control, signInDemo, spyMessages, stubWindow } from './support';
import { ext, testService, waitFor } from './util';

/** What the servers' folders hold (a server's user owns what the test writes there). */
export interface ServerFolder {
  dir: string;
  read(rel: string): Buffer | undefined;
  write(rel: string, bytes: Buffer | string, mtimeMs?: number): void;
  names(rel?: string): string[];
}

export function serverFolder(dir: string): ServerFolder {
  const owner = fs.statSync(dir);
  const abs = (rel: string) => path.join(dir, ...rel.split('/'));
  return {
    dir,
    read: (rel) => (fs.existsSync(abs(rel)) ? fs.readFileSync(abs(rel)) : undefined),
    write: (rel, bytes, mtimeMs) => {
      let d = dir;
      for (const s of rel.split('/').slice(0, -1)) {
        d = path.join(d, s);
        if (!fs.existsSync(d)) {
          fs.mkdirSync(d);
          fs.chownSync(d, owner.uid, owner.gid);
        }
      }
      fs.writeFileSync(abs(rel), bytes);
      fs.chownSync(abs(rel), owner.uid, owner.gid);
      if (mtimeMs !== undefined) fs.utimesSync(abs(rel), new Date(mtimeMs), new Date(mtimeMs));
    },
    names: (rel = '') => namesUnder(abs(rel)),
  };
}

/** Every name under a folder on disk (recursively), sorted; none when it is not there. */
export function namesUnder(dir: string): string[] {
  return fs.existsSync(dir) ? namesOnDisk(dir) : [];
}

/** Temporary files of a write (ours: `.name.sr-….tmp`) among names. */
export function temps(names: string[]): string[] {
  return names.filter((n) => /\.sr-[0-9a-f-]+\.tmp$/.test(n.slice(n.lastIndexOf('/') + 1)));
}

export const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A time far from the test's writes (whole seconds), as "another version" on the server. */
export const T0 = Date.parse('2024-05-06T07:08:09Z');

/** Records the messages of every progress notification shown (and lets it be drawn). */
export function spyProgress(seen: string[]): () => void {
  const orig = vscode.window.withProgress.bind(vscode.window);
  return stubWindow('withProgress', ((o: vscode.ProgressOptions, task: (p: vscode.Progress<{ message?: string; increment?: number }>, t: vscode.CancellationToken) => Thenable<unknown>) =>
    orig(o, (p, t) =>
      task(
        {
          report: (v) => {
            if (v.message) seen.push(v.message);
            p.report(v);
          },
        },
        t,
      ),
    )) as never);
}

export const QUICK = '.quick-input-widget';
export const QUICK_ROW = `${QUICK}:visible .monaco-list-row`;


export type Kind = 'sftp' | 'ftp' | 'dav' | 'slow';

/** A suite's servers, sites (each mapped to a fresh folder) and helpers. */
export interface TransferContext {
  api: ExtensionApi;
  url: string;
  live: LiveServers;
  proxy: FaultProxy;
  sites: Record<Kind, Site>;
  locals: Record<Kind, string>;
  server(k: 'sftp' | 'ftp' | 'dav'): ServerFolder;
  localPath(k: Kind, rel: string): string;
  readLocal(k: Kind, rel: string): Buffer | undefined;
  writeLocal(k: Kind, rel: string, bytes: string | Buffer): void;
  working(k: Kind, rel: string): vscode.Uri;
  /** Modal questions (trust prompts, confirmations) answered with their first button; non-modal ones by `answer` when set. */
  answer: ((m: { message: string; items: string[] }) => string | undefined) | undefined;
  shown: { message: string; items: string[]; modal: boolean }[];
  close(): Promise<void>;
}

/** Starts the servers (ProFTPD with its LIST clock three hours off, OpenSSH, Apache), makes the sites and maps them. */
export async function transferContext(names: string): Promise<TransferContext> {
  const url = (await testService()).url;
  const api = await ext<ExtensionApi>();
  await api.ready;
  await control(url, 'reseed');
  await signInDemo(url);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startLiveServers } = require('../live/servers') as typeof import('../live/servers');
  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = '/tmp';
  let live: LiveServers;
  try {
    // ProFTPD writes its LIST times three hours east of UTC: a server whose clock is off.
    live = await startLiveServers({ only: ['ftp', 'sftp', 'dav'], ftpListTimeZoneHours: 3 });
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  }
  const makeSite = async (fields: SiteFields): Promise<Site> => {
    const r = await api.session.call((c) => c.createSite(fields));
    api.model.refresh();
    return waitFor(async () => (await api.model.all()).find((x) => x.id === r.siteId), { message: `site ${fields.name}` });
  };
  const ftp = live.ftp!;
  const sftp = live.sftp!;
  const dav = live.dav!;
  const ctx = { answer: undefined, shown: [] } as unknown as TransferContext;
  // The trust prompts and confirmations (modal: not drawn under the test driver) are answered with their first button; no password is asked.
  const spy = spyMessages((m) => (m.modal && m.items.length ? m.items[0] : ctx.answer?.(m)));
  const restoreInput = stubWindow('showInputBox', () => Promise.resolve(undefined));
  const sites = {} as Record<Kind, Site>;
  sites.sftp = await makeSite({ name: `${names} SFTP`, server_type: 'SFTP', domain: sftp.host, port: String(sftp.port), ftp_user: sftp.user, ftp_pass: sftp.password, dir: sftp.dataDir } as SiteFields);
  sites.ftp = await makeSite({ name: `${names} FTPS`, server_type: 'FTP', domain: `ftps://${ftp.host}`, port: String(ftp.port), ftp_user: ftp.user, ftp_pass: ftp.password, dir: '/', pasv: '1', encryption: '1' } as SiteFields);
  sites.dav = await makeSite({ name: `${names} DAV`, server_type: 'WebDAV', domain: dav.httpsUrl, port: new URL(dav.httpsUrl).port, encryption: '1', ftp_user: dav.user, ftp_pass: dav.password, dir: '' } as SiteFields);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startFaultProxy } = require('../live/faultProxy') as typeof import('../live/faultProxy');
  const proxy = await startFaultProxy({ host: sftp.host, port: sftp.port }, { latencyMs: 40 });
  sites.slow = await makeSite({ name: `${names} SFTP slow`, server_type: 'SFTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: sftp.user, ftp_pass: sftp.password, dir: sftp.dataDir } as SiteFields);
  const locals = {} as Record<Kind, string>;
  for (const k of Object.keys(sites) as Kind[]) {
    locals[k] = fs.mkdtempSync(path.join(os.tmpdir(), `transfer-${k}-`));
    await api.revisions.folders.set(sites[k].id, vscode.Uri.file(locals[k]));
  }
  const localPath = (k: Kind, rel: string) => path.join(locals[k], ...rel.split('/'));
  return Object.assign(ctx, {
    api,
    url,
    live,
    proxy,
    sites,
    locals,
    shown: spy.shown,
    server: (k: 'sftp' | 'ftp' | 'dav') => serverFolder(k === 'sftp' ? sftp.dataDir : k === 'ftp' ? ftp.dataDir : dav.dataDir),
    localPath,
    readLocal: (k: Kind, rel: string) => (fs.existsSync(localPath(k, rel)) ? fs.readFileSync(localPath(k, rel)) : undefined),
    writeLocal: (k: Kind, rel: string, bytes: string | Buffer) => {
      fs.mkdirSync(path.dirname(localPath(k, rel)), { recursive: true });
      fs.writeFileSync(localPath(k, rel), bytes);
    },
    working: (k: Kind, rel: string) => vscode.Uri.file(localPath(k, rel)),
    close: async () => {
      spy.restore();
      restoreInput();
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty)) {
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('workbench.action.files.revert');
      }
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('siteRevisions.transfersClear');
      for (const k of Object.keys(sites) as Kind[]) {
        await api.revisions.folders.set(sites[k].id, undefined);
        fs.rmSync(locals[k], { recursive: true, force: true });
      }
      (await api.live()).connections.closeAll();
      await proxy.close();
      await live.stop();
      await control(url, 'reseed');
    },
  });
}

/** The conflict choice on screen. */
export function conflictScreen(s: Screen) {
  const rows = () => s.texts({ selector: QUICK_ROW });
  return {
    rows,
    /** Waits for the choice of a file to be drawn; returns its rows. */
    drawn: async (name: string) => {
      // The widget stays in the page once hidden: only a visible one counts.
      await s.until(() => s.texts({ selector: `${QUICK}:visible .quick-input-title` }), (t) => t.some((x) => x.includes(`Conflict: ${name}`)), `the conflict choice of ${name}`, 60_000);
      return s.until(rows, (r) => r.some((x) => x.includes('Overwrite')), 'its rows');
    },
    placeholder: async () => (await s.attribute({ selector: `${QUICK}:visible input`, name: 'placeholder' })) ?? '',
    click: (text: string) => s.click({ selector: QUICK_ROW, hasText: text }),
  };
}

/** Runs a command that may show the conflict choice; returns its promise (not awaited). */
export function start(command: string, ...args: unknown[]): Promise<unknown> {
  return Promise.resolve(vscode.commands.executeCommand(command, ...args));
}

// What activation registers for the working copy (./index.ts: each mapped folder as a source
// control, the decorations of its files, Line History): the commands, whose code is imported on
// first use. The source controls only concern mapped folders of a signed-in account: so the code
// is also loaded, without a command, once the session is restored and a folder is mapped (at once
// after activation for someone who has one, when the first is mapped otherwise).
import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import type { BlameViewApi } from '../editor';
import type { AccountCache } from '../auth/accountCache';
import type { Log } from '../../workbench/log';
import type { RevisionsApi } from '../revisions';
import type { Revisions } from '../revisions/register';
import type { SitesModel } from '../sites/sitesModel';
import { feature, lazyCommand } from '../../workbench/feature';
import { message } from '../../workbench/messages';
import type { Notifier } from '../../workbench/notify';
import { background } from '../../core/util/background';
import type { ScmApi } from './index';
import { SCM_COMMANDS } from './names';

export interface ScmDeps {
  session: Session;
  model: SitesModel;
  revisions: RevisionsApi;
  log: Log;
  notifier: Notifier;
  /** The editor features (their WorkingFiles and quick diff), loaded on first use. */
  editor: () => Promise<BlameViewApi>;
  /** The signed-in account's cache folder (the status snapshots are kept there). */
  cache: AccountCache;
}

export function registerScm(deps: Omit<ScmDeps, 'revisions'> & { revisions: Revisions }, whenReady: () => Promise<void>, subscriptions: vscode.Disposable[]): { features: () => Promise<ScmApi> } {
  const loaded = feature(async () => {
    const [m, revisions] = await Promise.all([import('./index.js'), deps.revisions.load()]);
    const f = await m.activateScm({ ...deps, revisions });
    subscriptions.push(...f.disposables);
    return f;
  });
  const features = async () => (await loaded()).api;
  let restored = false;
  const loadIfNeeded = () => {
    if (restored && deps.session.state === 'signedIn' && deps.revisions.folders.mapped().length > 0) background('Loading the source controls', loaded());
  };
  background(
    'Waiting for the session before the source controls',
    whenReady().then(() => {
      restored = true;
      loadIfNeeded();
    }),
  );
  subscriptions.push(
    ...SCM_COMMANDS.map((id) =>
      lazyCommand(id, loaded, async (f, ...args) => {
        try {
          return await f.commands[id](...args);
        } catch (e) {
          deps.notifier.error(message('Site Revisions'), e, () => vscode.commands.executeCommand(id, ...args));
          return undefined;
        }
      }),
    ),
    deps.session.onDidChange(loadIfNeeded),
    deps.revisions.folders.onDidChange(loadIfNeeded),
  );
  return { features };
}

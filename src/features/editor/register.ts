// What activation registers for the editor features (./index: revision blame, the gutter's quick
// diff, the newer-revision alert, compare across sites): their commands, whose code is imported on
// first use. The gutter and the alert only ever concern working files of a mapped folder of a
// signed-in account, and they need that account's session to read anything: so the code is also
// loaded, without a command, once the session is restored and a folder is mapped (at once after
// activation for someone who has one, when the first is mapped otherwise).
import type * as vscode from 'vscode';
import { feature, lazyCommand } from '../../workbench/feature';
import { background } from '../../core/util/background';
import type { BlameViewApi, BlameViewDeps } from './index';
import type { Revisions } from '../revisions/register';
import { BLAME_VIEW_COMMANDS } from './names';

export function registerBlameView(deps: Omit<BlameViewDeps, 'revisions'> & { revisions: Revisions }, whenReady: () => Promise<void>, subscriptions: vscode.Disposable[]): { features: () => Promise<BlameViewApi> } {
  // Set by the trigger that loads the code: the session became usable (restored, signed in).
  let sessionTrigger = false;
  const loaded = feature(async () => {
    const [m, revisions] = await Promise.all([import('./index.js'), deps.revisions.load()]);
    const { api, disposables, commands } = m.registerBlameView({ ...deps, revisions }, { focusActiveEditor: sessionTrigger });
    subscriptions.push(...disposables);
    return { api, commands };
  });
  const features = async () => (await loaded()).api;
  let restored = false;
  const loadIfNeeded = (bySession: boolean) => {
    if (!restored || deps.session.state !== 'signedIn' || deps.revisions.folders.mapped().length === 0) return;
    sessionTrigger ||= bySession;
    background('Loading the editor features', features());
  };
  background(
    'Waiting for the session before the editor features',
    whenReady().then(() => {
      restored = true;
      loadIfNeeded(true);
    }),
  );
  subscriptions.push(
    ...BLAME_VIEW_COMMANDS.map((id) => lazyCommand(id, loaded, (m, ...args) => (m.commands[id] as (...a: unknown[]) => unknown)(...args))),
    deps.session.onDidChange(() => loadIfNeeded(true)),
    deps.revisions.folders.onDidChange(() => loadIfNeeded(false)),
  );
  return { features };
}

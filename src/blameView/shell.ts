// What activation registers for the editor features (./index: revision blame, the gutter's quick
// diff, the newer-revision alert, compare across sites) without loading them: a stand-in per
// command, which loads the code (dist/blameView.js in the build, see ./load.ts), lets it register
// the real command and runs it. The gutter and the alert only ever concern working files of a
// mapped folder of a signed-in account, and they need that account's session to read anything:
// so the code is also loaded, without a command, once the session is restored and a folder is
// mapped (at once after activation for someone who has one, when the first is mapped otherwise).
// This file, ./load.ts and ./names.ts are the part of the folder in the extension's own bundle.
import * as vscode from 'vscode';
import { background } from '../util/background';
import { loadOnce } from '../util/loadOnce';
import type { BlameViewApi, BlameViewDeps } from './index';
import { loadBlameViewChunk } from './load';
import { BLAME_VIEW_COMMANDS } from './names';

export function registerBlameViewShell(deps: BlameViewDeps, whenReady: () => Promise<void>, subscriptions: vscode.Disposable[]): { features: () => Promise<BlameViewApi> } {
  let standIns: vscode.Disposable[] = [];
  // Set by the trigger that loads the code: the session became usable (restored, signed in).
  let sessionTrigger = false;
  const features = loadOnce(async () => {
    const chunk = await loadBlameViewChunk();
    // The real commands take the ids over.
    for (const d of standIns) d.dispose();
    standIns = [];
    const { api, disposables } = chunk.registerBlameView(deps, { focusActiveEditor: sessionTrigger });
    subscriptions.push(...disposables);
    return api;
  });
  standIns = BLAME_VIEW_COMMANDS.map((id) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      await features();
      return vscode.commands.executeCommand(id, ...args);
    }),
  );
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
    { dispose: () => standIns.forEach((d) => d.dispose()) },
    deps.session.onDidChange(() => loadIfNeeded(true)),
    deps.revisions.folders.onDidChange(() => loadIfNeeded(false)),
  );
  return { features };
}

// A part of the extension loaded on first use (a chunk of the build: esbuild.mjs), from the
// commands, views and tools registered at activation. When its file is missing — VS Code updated
// the extension in the background while this window runs the old version — the window says so
// and offers to reload, instead of a failed command's stack trace.
import * as vscode from 'vscode';
import { background } from '../core/util/background';
import { loadOnce, UpdatedWhileOpenError } from '../core/util/loadOnce';
import { message, showError } from './messages';

export { UpdatedWhileOpenError };

/** The text of the reload message (also what src/workbench/notify.ts shows for a request that meets a missing file). */
export function updatedText(): ReturnType<typeof message> {
  return message('Site Revisions was updated while this window was open: reload the window.');
}

let showing = false;

/** Shows the reload message (one at a time); Reload Window reloads. */
export function offerReload(): void {
  if (showing) return;
  showing = true;
  const reload = vscode.l10n.t('Reload Window');
  background(
    'Offering to reload the window',
    Promise.resolve(showError(updatedText(), reload)).then(
      async (pick) => {
        showing = false;
        if (pick === reload) await vscode.commands.executeCommand('workbench.action.reloadWindow');
      },
      (e: unknown) => {
        showing = false;
        throw e;
      },
    ),
  );
}

/**
 * `load` (a dynamic `import()`), once; a missing file shows the reload message and rejects with
 * UpdatedWhileOpenError (which `command` below keeps off the screen: it was said once).
 */
export function feature<T>(load: () => Promise<T>): () => Promise<T> {
  const once = loadOnce(load);
  return () =>
    once().catch((e: unknown) => {
      if (e instanceof UpdatedWhileOpenError) offerReload();
      throw e;
    });
}

/** A command registered at activation whose code is loaded on first use: `run` gets the loaded module. */
export function lazyCommand<T>(id: string, load: () => Promise<T>, run: (m: T, ...args: unknown[]) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    let m: T;
    try {
      m = await load();
    } catch (e) {
      if (e instanceof UpdatedWhileOpenError) return undefined;
      throw e;
    }
    return run(m, ...args);
  });
}

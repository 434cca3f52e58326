// The extension's entry point (package.json "main": dist/boot.js): loads the bundle,
// dist/extension.js, through V8's code cache kept in the extension's global storage folder
// (./codeCache.ts), and hands over to its activate(). Kept to Node built-ins only, so that
// this file costs nothing to load; it imports nothing of the extension.
import path = require('node:path');
import { loadWithCodeCache, type CodeCacheReport } from './codeCache';

interface Main {
  activate(context: unknown, codeCache?: CodeCacheReport): unknown;
  deactivate?(): unknown;
}

let main: Main | undefined;

export function activate(context: { globalStorageUri?: { fsPath: string } }): unknown {
  const folder = context.globalStorageUri?.fsPath;
  const { exports, report } = loadWithCodeCache<Main>(path.join(__dirname, 'extension.js'), folder ? path.join(folder, 'code-cache') : undefined);
  main = exports;
  return main.activate(context, report);
}

export function deactivate(): unknown {
  return main?.deactivate?.();
}

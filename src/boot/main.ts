// The extension's entry point (package.json "main": dist/boot.js): loads the bundle,
// dist/extension.js, through V8's code cache kept in the extension's global storage folder
// (./codeCache.ts), and hands over to its activate(). Kept to Node built-ins only, so that
// this file costs nothing to load; it imports nothing of the extension. The bundle is handed a
// loader for the files it loads later (dist/undici.js), through the same cache.
import path = require('node:path');
import { loadWithCodeCache, type CodeCacheLoad, type CodeCacheReport } from './codeCache';

interface Main {
  activate(context: unknown, codeCache?: CodeCacheReport, loadBeside?: (file: string) => CodeCacheLoad<unknown>): unknown;
  deactivate?(): unknown;
}

let main: Main | undefined;

export function activate(context: { globalStorageUri?: { fsPath: string } }): unknown {
  const folder = context.globalStorageUri?.fsPath;
  const cacheDir = folder ? path.join(folder, 'code-cache') : undefined;
  const { exports, report } = loadWithCodeCache<Main>(path.join(__dirname, 'extension.js'), cacheDir);
  main = exports;
  // The files the bundle loads later (dist/undici.js) come through the same cache.
  return main.activate(context, report, (file) => loadWithCodeCache(path.join(__dirname, path.basename(file)), cacheDir));
}

export function deactivate(): unknown {
  return main?.deactivate?.();
}

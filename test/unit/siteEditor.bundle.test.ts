// The site editor's webview script is a browser build of its own (esbuild.mjs webviewOptions):
// built here with the project's options, in memory. It holds the form rules and the protocol it
// shares with the extension and nothing of the extension's host code; `vscode` or a Node
// built-in reached from it fails the build with a message that says why.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildOptions } from 'esbuild';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

async function load(): Promise<{ esbuild: typeof import('esbuild'); webviewOptions: BuildOptions }> {
  const esbuild = await import('esbuild');
  const { webviewOptions } = (await import(pathToFileURL(path.join(repoRoot, 'esbuild.mjs')).href)) as { webviewOptions: BuildOptions };
  return { esbuild, webviewOptions };
}

describe('site editor webview bundle', function () {
  this.timeout(60_000);

  it('holds the webview script, the form rules and the protocol — no host code, no `vscode`', async () => {
    const { esbuild, webviewOptions } = await load();
    const result = await esbuild.build({ ...webviewOptions, absWorkingDir: repoRoot, write: false, sourcemap: false, logLevel: 'silent' });
    assert.deepEqual(result.errors, []);
    const inputs = Object.keys(result.metafile!.inputs).sort();
    assert.deepEqual(inputs, ['src/core/api/types.ts', 'src/core/util/l10n.ts', 'src/features/sites/formFields.ts', 'src/features/sites/protocol.ts', 'src/features/sites/siteForm.ts', 'src/features/sites/webview/main.ts']);
    const [out] = result.outputFiles!;
    assert.ok(out && out.path.endsWith(path.join('dist', 'siteEditor.js')), out?.path);
    const js = out.text;
    assert.doesNotMatch(js, /require\(|from ["']vscode["']/, 'a self-contained browser script');
    assert.match(js, /acquireVsCodeApi\(\)/);
  });

  it('an import of `vscode` or of a Node built-in from what the webview reaches fails the build, naming the importer', async () => {
    const { esbuild, webviewOptions } = await load();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-webview-'));
    try {
      for (const name of ['vscode', 'node:crypto', 'fs']) {
        const entry = path.join(dir, 'entry.ts');
        fs.writeFileSync(entry, `import * as m from ${JSON.stringify(name)};\nexport const x = m;\n`);
        const r = await esbuild.build({ ...webviewOptions, entryPoints: { siteEditor: entry }, absWorkingDir: repoRoot, write: false, logLevel: 'silent' }).then(
          () => undefined,
          (e: { errors?: { text: string }[] }) => e.errors ?? [],
        );
        assert.ok(r, `importing ${name} built`);
        assert.ok(r.some((e) => e.text.includes(`${name} is imported by`) && e.text.includes('entry.ts') && /no `vscode` and no Node built-ins/.test(e.text)), JSON.stringify(r));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

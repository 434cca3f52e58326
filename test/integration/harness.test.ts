// Proves the harness: the extension is loaded from the repository and activates, the runner's
// throwaway workspace is open, and secret storage works in this host.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID, ext, testService, workspaceFolder } from './util';

describe('harness', () => {
  it('loads the extension from the repository and activates it', async () => {
    const e = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(e, `${EXTENSION_ID} is not loaded`);
    // out/test/integration/ -> the repository root
    const repo = path.resolve(__dirname, '..', '..', '..');
    assert.equal(path.resolve(e.extensionUri.fsPath), repo);
    await ext();
    assert.equal(e.isActive, true);
  });

  it('opens the throwaway workspace folder', async function () {
    // Only the runners (test/host/run.ts, desktop.ts) create one and name it here.
    const expected = process.env.SITE_REVISIONS_TEST_WORKSPACE;
    if (!expected) {
      this.skip();
      return;
    }
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1, `workspace folders: ${folders.map((f) => f.uri.toString()).join(', ')}`);
    const folder = workspaceFolder();
    assert.equal(folder.uri.scheme, 'file');
    assert.equal(path.resolve(folder.uri.fsPath), path.resolve(expected));
    const readme = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, 'README.md'));
    assert.match(Buffer.from(readme).toString('utf8'), /throwaway/i);
  });

  it('reaches the local service (the runner’s, or one started in this host)', async () => {
    const service = await testService();
    const res = await fetch(`${service.url}/__control/stats`);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  });

  it('stores, reads and deletes a secret through the extension context', async function () {
    const api = (await ext<Record<string, unknown> | undefined>()) ?? {};
    const context = api.context as vscode.ExtensionContext | undefined;
    const secrets = (context?.secrets ?? api.secrets) as vscode.SecretStorage | undefined;
    if (!secrets || typeof secrets.store !== 'function') {
      this.skip();
      return;
    }
    const key = `harness.${Date.now()}`;
    await secrets.store(key, 's3cret-value');
    assert.equal(await secrets.get(key), 's3cret-value');
    await secrets.delete(key);
    assert.equal(await secrets.get(key), undefined);
  });
});

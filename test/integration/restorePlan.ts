// The heap an as-of restore holds while its confirmation waits (issue 32 §2: 200 files of 1 MB
// added 201 MB to the host's heap until it was answered). Used by the integration test
// (asOf.test "the restore's plan holds no content…") and the host bench (actions.bench "a site as
// it was restored: the heap of its plan…"). Measured in this extension host: V8's used heap after a
// full collection (gc exposed through v8.setFlagsFromString), before the restore and while its
// confirmation is shown, and the highest sample (every 5 ms) while the plan is read.
import * as fs from 'node:fs';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import type { AsOfRun } from '../../src/features/siteAsOf/views';
import { control, leaveMappedFolder, stubWindow } from './support';
import { waitFor, workspaceFolder } from './util';
import type { PlanHeap } from './bench/figures';

const MB = 1024 * 1024;


let collect: (() => void) | undefined;
function gc(): void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  }
  collect();
  collect();
}
const used = () => v8.getHeapStatistics().used_heap_size;

/**
 * Adds `files` revisions of `bytes` each (distinct texts) under `folder` of `site`, maps the site to
 * an empty folder (so each is one the restore would create), shows the site as of now and starts
 * "Restore Into Local Folder…"; measures while its confirmation is shown, then dismisses it.
 */
export async function restorePlanHeap(api: ExtensionApi, url: string, site: Site, o: { files: number; bytes: number; folder: string }): Promise<PlanHeap> {
  const line = 'a line of a large text file of the site, kept as it was at that moment\n';
  for (let i = 0; i < o.files; i++) {
    const head = `file ${i} of ${o.files}\n`;
    // (Kept in the service's memory: writing its data file after each of them would take minutes.)
    await control(url, 'add-revision', { siteId: site.id, path: `${o.folder}/file-${String(i).padStart(4, '0')}.txt`, content: (head + line.repeat(Math.ceil(o.bytes / line.length))).slice(0, o.bytes), date: Date.now() - 3600_000, persist: false });
  }
  const dir = vscode.Uri.joinPath(workspaceFolder().uri, `restore-plan-${Date.now()}`);
  fs.mkdirSync(dir.fsPath, { recursive: true });
  await vscode.commands.executeCommand('siteRevisions.mapFolder', site.id, dir);
  api.revisions.store.invalidate();
  try {
    const run = (await vscode.commands.executeCommand('siteRevisions.siteAsOf', { site, folder: o.folder }, { moment: Date.now() })) as AsOfRun;
    if (run.state !== 'done' || run.result?.files.length !== o.files) throw new Error(`the site as of now: ${run.state}, ${run.result?.files.length} files`);
    // The confirmation is a quick pick of the extension's: caught when it is shown.
    let shown: vscode.QuickPick<vscode.QuickPickItem> | undefined;
    const original = vscode.window.createQuickPick.bind(vscode.window);
    const restore = stubWindow('createQuickPick', (() => {
      const qp = original();
      const show = qp.show.bind(qp);
      qp.show = () => {
        shown = qp;
        show();
      };
      return qp;
    }) as never);
    gc();
    const before = used();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, used())), 5);
    let restoring: Thenable<unknown> | undefined;
    try {
      restoring = vscode.commands.executeCommand('siteRevisions.asOfRestore');
      const qp = await waitFor(() => shown, { message: 'the confirmation of the restore', timeoutMs: 120_000 });
      clearInterval(sampler);
      peak = Math.max(peak, used());
      gc();
      const held = used();
      const listed = qp.items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator).length;
      qp.hide();
      await restoring;
      return { files: o.files, bytes: o.bytes, heldMB: (held - before) / MB, peakMB: (peak - before) / MB, listed };
    } finally {
      clearInterval(sampler);
      restore();
      shown?.hide();
      await restoring;
    }
  } finally {
    await vscode.commands.executeCommand('siteRevisions.asOfClear');
    await leaveMappedFolder(api, url, site.id, dir);
  }
}

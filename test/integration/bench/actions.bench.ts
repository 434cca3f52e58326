// Benchmarks in the real extension host. Run by `npm run bench` (bench/run.ts) through the
// harness (test/host/run.ts) with SITE_REVISIONS_BENCH_OUT set — test/integration/index.ts then
// loads only the *.bench.js of this folder — and with the local service's large data set
// (SR_LARGE=1: site 900000, 100,000 paths, big/history.txt with 10,000 revisions, big/huge.txt
// of 20 MB). Figures go to the JSON file named by SITE_REVISIONS_BENCH_OUT; requests are counted
// at the service (its /__control/stats log), so they are what really went over the wire.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension';
import type { FileNode, FolderNode, RevisionNode } from '../../../src/features/revisions/nodes';
import type { SiteNode } from '../../../src/features/sites/sitesTree';
import type { TreeNode } from '../../../src/workbench/tree/node';
import { DEMO } from '../../server/demo';
import { HISTORY_PATH, HUGE_BYTES, HUGE_PATH, LARGE_SITE_ID } from '../../server/large';
import { control, settled } from '../support';
import { restorePlanHeap } from '../restorePlan';
import { disposeCopy, freshContext, importCopy, loadFreshCopy, prepareCopy, runningBundle } from '../freshCopy';
import { EXTENSION_ID, testService, waitFor, workspaceFolder } from '../util';
import { sampleLoopDelay } from '../../../bench/lib';
import { addHostFigures, type HostFigures, type Measured } from './figures';

const SAMPLES = Math.max(1, Number(process.env.SITE_REVISIONS_BENCH_SAMPLES) || 3);
const ACTIVATION_SAMPLES = Math.max(1, Number(process.env.SITE_REVISIONS_BENCH_ACTIVATIONS) || 7);

const figures: HostFigures = { samples: SAMPLES, activation: { wasActive: false }, actions: {}, errors: [] };

describe('Bench: the extension in the real host', function () {
  this.timeout(300_000);
  let api: ExtensionApi;
  let url: string;
  let siteNode: SiteNode;

  const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
  const isFolder = (n: TreeNode): n is FolderNode => kind(n) === 'revisionFolder';
  const isFile = (n: TreeNode): n is FileNode => kind(n) === 'revisionFile';
  const isRevision = (n: TreeNode): n is RevisionNode => /^revision(\.|$)/.test(kind(n));
  const closeAll = () => vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const revUri = (n: RevisionNode) => api.revisions.revisionDocumentUri(n.ref);
  /** Cold: no content in memory nor on disk (the rows without "cached" measure this). */
  const forgetContents = async () => {
    api.revisions.cache.clear();
    await (await api.cache.current())?.clear();
  };

  /** Runs `action` between a reset of the service's request log and a look at it. */
  const measure = async (action: () => Promise<unknown>): Promise<Measured> => {
    await control(url, 'reset-stats');
    const t0 = performance.now();
    await action();
    const ms = performance.now() - t0;
    const stats = await control(url, 'stats');
    const operations: Record<string, number> = {};
    for (const r of stats.requests) operations[r.operation ?? r.url] = (operations[r.operation ?? r.url] ?? 0) + 1;
    return { ms, requests: stats.requests.length, operations };
  };
  const record = (name: string, m: Measured): Measured => {
    (figures.actions[name] ??= []).push(m);
    return m;
  };

  /** A file node of the large site, through its folders. */
  const fileNode = async (filePath: string): Promise<FileNode> => {
    let nodes = await api.tree.getChildren(siteNode);
    const segs = filePath.split('/');
    for (const seg of segs.slice(0, -1)) {
      const folder = nodes.find((n): n is FolderNode => isFolder(n) && n.folder.name === seg);
      assert.ok(folder, `folder ${seg} of ${filePath}`);
      nodes = await folder.getChildren();
    }
    const file = nodes.find((n): n is FileNode => isFile(n) && n.file.path === filePath);
    assert.ok(file, `file ${filePath}`);
    return file;
  };
  const revisions = async (file: FileNode) => (await file.getChildren()).filter(isRevision);
  const openRevision = async (rev: RevisionNode) => {
    await vscode.commands.executeCommand('siteRevisions.openRevision', rev);
    const want = revUri(rev).toString();
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.toString() === want, { intervalMs: 5, message: 'the revision editor' });
  };

  /** Compare with Previous, until the diff editor is the active tab. */
  const compareWithPrevious = async (rev: RevisionNode) => {
    await vscode.commands.executeCommand('siteRevisions.compareWithPrevious', rev);
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, { intervalMs: 5, message: 'the diff editor' });
  };

  before(async () => {
    // First: VS Code's own activation of the extension, when nothing has activated it yet.
    const e = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    assert.ok(e, `${EXTENSION_ID} is not loaded`);
    figures.activation.wasActive = e.isActive;
    if (!e.isActive) {
      const loaded = (process as unknown as { moduleLoadList?: string[] }).moduleLoadList ?? [];
      figures.activation.builtinsBefore = ['net', 'tls', 'crypto', 'vm', 'http', 'https', 'fs'].filter((m) => loaded.includes(`NativeModule ${m}`));
      const t0 = performance.now();
      await e.activate();
      figures.activation.firstActivateMs = performance.now() - t0;
    }
    api = e.exports;
    await api.ready;
    // The revisions feature loads on first use; the actions below read its handles.
    await api.loadRevisions();
    url = (await testService()).url;
    await control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0 });
    await vscode.commands.executeCommand('siteRevisions.signIn', { serviceUrl: url, email: DEMO.user.email, password: DEMO.user.password });
    const roots = (await api.tree.getChildren()) as SiteNode[];
    const large = roots.find((s) => s.site.id === String(LARGE_SITE_ID));
    assert.ok(large, `site ${LARGE_SITE_ID} is listed: start the service with the large data set (SR_LARGE=1)`);
    siteNode = large;
  });

  afterEach(async function () {
    await control(url, 'config', { latencyMs: 0 }).catch(() => undefined);
    if (this.currentTest?.state === 'failed') figures.errors.push(`${this.currentTest.title}: ${this.currentTest.err?.message ?? 'failed'}`);
  });

  after(async () => {
    await closeAll();
    addHostFigures(figures);
  });

  it('expand a site (100,000 files): one Get Revision Files', async () => {
    for (let i = 0; i < SAMPLES; i++) {
      api.revisions.store.invalidate(); // what Refresh does to the lists
      let children: TreeNode[] = [];
      const m = record('expandSite', await measure(async () => (children = await api.tree.getChildren(siteNode))));
      assert.equal(m.requests, 1, JSON.stringify(m.operations));
      assert.equal(m.operations['getRevisionFiles'], 1);
      assert.ok(children.some(isFolder));
    }
  });

  it('expand a file (10,000 revisions): one Get Revisions', async () => {
    const file = await fileNode(HISTORY_PATH);
    for (let i = 0; i < SAMPLES; i++) {
      api.revisions.store.invalidate();
      let shown = 0;
      const m = record('expandFile', await measure(async () => (shown = (await file.getChildren()).filter(isRevision).length)));
      assert.equal(m.requests, 1, JSON.stringify(m.operations));
      assert.equal(m.operations['getRevisions'], 1);
      assert.ok(shown > 0 && shown < 10_000, `${shown} revisions shown (one page)`);
    }
  });

  it('open a revision: one Get Revision, none when opened again', async () => {
    const revs = await revisions(await fileNode(HISTORY_PATH));
    for (let i = 0; i < SAMPLES; i++) {
      const rev = revs[i]!;
      await closeAll();
      await forgetContents();
      const first = record('openRevision', await measure(() => openRevision(rev)));
      assert.equal(first.requests, 1, JSON.stringify(first.operations));
      assert.equal(first.operations['getRevision'], 1);
      await closeAll();
      const again = record('openRevisionAgain', await measure(() => openRevision(rev)));
      assert.equal(again.requests, 0, JSON.stringify(again.operations));
    }
  });

  it('compare with the previous revision after opening one: at most one more request', async () => {
    const revs = await revisions(await fileNode(HISTORY_PATH));
    for (let i = 0; i < SAMPLES; i++) {
      const rev = revs[i]!;
      await closeAll();
      await forgetContents();
      await openRevision(rev);
      const m = record('compareWithPrevious', await measure(() => compareWithPrevious(rev)));
      assert.ok(m.requests <= 1, JSON.stringify(m.operations));
    }
  });

  it('10 identical concurrent expansions and opens: one request each', async () => {
    const file = await fileNode(HISTORY_PATH);
    const rev = (await revisions(file))[5]!;
    // A little latency, so that all ten are surely in flight together.
    await control(url, 'config', { latencyMs: 100 });
    for (let i = 0; i < SAMPLES; i++) {
      api.revisions.store.invalidate();
      const site = record('concurrentExpandSite', await measure(() => Promise.all(Array.from({ length: 10 }, () => api.tree.getChildren(siteNode)))));
      assert.equal(site.requests, 1, JSON.stringify(site.operations));
      const files = record('concurrentExpandFile', await measure(() => Promise.all(Array.from({ length: 10 }, () => file.getChildren()))));
      assert.equal(files.requests, 1, JSON.stringify(files.operations));
      await closeAll();
      await forgetContents();
      const opens = record('concurrentOpen', await measure(() => Promise.all(Array.from({ length: 10 }, () => vscode.commands.executeCommand('siteRevisions.openRevision', rev)))));
      assert.equal(opens.requests, 1, JSON.stringify(opens.operations));
    }
  });

  it('open a mapped working file: blame + gutter + alert in at most 2 requests, none when repeated within the throttle window', async () => {
    const acme = (await api.model.all()).find((s) => s.name === 'Acme Corporate');
    assert.ok(acme, 'the demo site Acme Corporate');
    const dir = vscode.Uri.joinPath(workspaceFolder().uri, 'bench-acme');
    fs.mkdirSync(dir.fsPath, { recursive: true });
    await api.revisions.folders.set(acme.id, dir);
    const { quickDiff, alert } = await api.blame();
    // Opening a file: the alert's check (on focus), the gutter's original (asked by VS Code, and
    // here), and blame turned on — together, as they run when a person opens a file and blames it.
    const openAll = async (file: vscode.Uri) => {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), { preview: false });
      const [checked, original, on] = await Promise.all([alert.check(file), quickDiff.original(dir, file), vscode.commands.executeCommand('siteRevisions.toggleBlame', file)]);
      assert.notEqual(checked, 'skipped');
      assert.ok(original, 'a quick diff original');
      assert.equal(on, 'on');
    };
    // A different file each sample: its first open in this session (lists dropped as by Refresh, contents cold).
    const files = ['index.php', 'includes/db.php', 'css/site.css', 'js/app.js', 'templates/base.html'];
    for (let i = 0; i < Math.min(SAMPLES, files.length); i++) {
      api.revisions.store.invalidate();
      api.revisions.cache.clear();
      const file = vscode.Uri.joinPath(dir, files[i]!);
      fs.mkdirSync(path.dirname(file.fsPath), { recursive: true });
      fs.writeFileSync(file.fsPath, `a working copy ${i}\n`);
      const first = record('openWorkingFile', await measure(() => openAll(file)));
      assert.ok(first.requests <= 2, JSON.stringify(first.operations));
      await closeAll();
      await vscode.commands.executeCommand('siteRevisions.toggleBlame', file); // off
      const again = record('openWorkingFileAgain', await measure(() => openAll(file)));
      assert.equal(again.requests, 0, JSON.stringify(again.operations));
      await vscode.commands.executeCommand('siteRevisions.toggleBlame', file); // off
      await closeAll();
    }
    await api.revisions.folders.set(acme.id, undefined);
    fs.rmSync(dir.fsPath, { recursive: true, force: true });
  });

  it('a 20 MB revision: from the request to the document’s content', async () => {
    const rev = (await revisions(await fileNode(HUGE_PATH)))[0];
    assert.ok(rev, 'the revision of big/huge.txt');
    const samples: Measured[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      await closeAll();
      await forgetContents();
      // A URI VS Code has not seen yet (another title in its query): no text model
      // of an earlier sample can be reused, so each sample goes the whole way — stat asks the
      // provider, the provider makes the request, readFile is served from its cache, the text
      // travels to the workbench and back to this host as a document.
      const uri = api.revisions.revisionUri({ siteId: rev.ref.site.id, revisionId: rev.ref.item.id, path: rev.ref.path }, { when: `sample ${i} ${Date.now()}`, of: 'bench' });
      const want = uri.toString();
      let length = 0;
      const m = await measure(async () => {
        const opened = new Promise<vscode.TextDocument>((resolve) => {
          const sub = vscode.workspace.onDidOpenTextDocument((d) => {
            if (d.uri.toString() === want) {
              sub.dispose();
              resolve(d);
            }
          });
        });
        await vscode.commands.executeCommand('vscode.open', uri, { preview: true });
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === want) ?? (await opened);
        length = doc.getText().length;
      });
      assert.equal(length, HUGE_BYTES, 'the whole revision is in the document');
      assert.equal(m.requests, 1, JSON.stringify(m.operations));
      samples.push(m);
    }
    // The extension's part alone: request → UTF-8 bytes in the content cache (with its digest).
    const contentMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      await forgetContents();
      const t0 = performance.now();
      const bytes = await api.revisions.store.content(rev.ref.site.id, rev.ref.item.id);
      contentMs.push(performance.now() - t0);
      assert.equal(bytes.byteLength, HUGE_BYTES);
    }
    figures.huge = { bytes: HUGE_BYTES, samples, contentMs };
    await closeAll();
    api.revisions.cache.clear();
  });

  it('the diff guard of a 20 MB revision: the host’s event loop while Compare with Working File measures both sides and refuses', async () => {
    const rev = (await revisions(await fileNode(HUGE_PATH)))[0];
    assert.ok(rev, 'the revision of big/huge.txt');
    const dir = vscode.Uri.joinPath(workspaceFolder().uri, 'bench-large');
    const working = vscode.Uri.joinPath(dir, HUGE_PATH);
    fs.mkdirSync(path.dirname(working.fsPath), { recursive: true });
    fs.writeFileSync(working.fsPath, Buffer.alloc(HUGE_BYTES, 'working copy line\n'));
    await api.revisions.folders.set(rev.ref.site.id, dir);
    const config = vscode.workspace.getConfiguration('diffEditor');
    await config.update('maxFileSize', 10, vscode.ConfigurationTarget.Global);
    try {
      const doc = await vscode.workspace.openTextDocument(working);
      await vscode.window.showTextDocument(doc, { preview: false });
      // Mapping the folder and opening its file start the folder's source control: its first
      // status and the quick diff's original (the same 20 MB revision, read and handed to the
      // workbench). That is not the diff guard's work: it ends before the first sample.
      await settled(api.scheduler, url);
      await new Promise((r) => setTimeout(r, 1000));
      const samples: NonNullable<HostFigures['diffGuard']>['samples'] = [];
      for (let i = 0; i < SAMPLES; i++) {
        for (const cold of [true, false]) {
          if (cold) await forgetContents();
          // What the last sample left behind settles first (a read behind it, the quick diff reading its original again).
          await settled(api.scheduler, url);
          await new Promise((r) => setTimeout(r, 200));
          const loop = sampleLoopDelay();
          const t0 = performance.now();
          const outcome = await api.revisions.commands.compareWithWorking(rev.ref);
          const ms = performance.now() - t0;
          const delay = loop.stop();
          samples.push({ cold, ms, outcome: outcome.done ? 'done' : outcome.reason, loop: delay });
          assert.equal(outcome.done ? 'done' : outcome.reason, 'too-large', JSON.stringify(outcome));
        }
      }
      figures.diffGuard = { bytes: HUGE_BYTES, samples };
    } finally {
      await config.update('maxFileSize', undefined, vscode.ConfigurationTarget.Global);
      await closeAll();
      await api.revisions.folders.set(rev.ref.site.id, undefined);
      fs.rmSync(dir.fsPath, { recursive: true, force: true });
      api.revisions.cache.clear();
    }
  });

  it('a revision larger than the memory cache (disk cache off): open it (stat + read), open it again, compare with previous', async () => {
    const revs = await revisions(await fileNode(HISTORY_PATH));
    const disk = await api.cache.current();
    const bound = disk?.maxBytes ?? 0;
    const lru = api.revisions.cache.maxBytes;
    try {
      await disk?.setMaxBytes(0);
      for (let i = 0; i < SAMPLES; i++) {
        // Every other revision: the previous one of a sample (fetched by its compare) is not the next sample.
        const rev = revs[10 + 2 * i]!;
        await closeAll();
        api.revisions.cache.clear();
        // Smaller than any revision of the file: none fits in the LRU.
        api.revisions.cache.setMaxBytes(8);
        const first = record('openLargerThanCache', await measure(() => openRevision(rev)));
        assert.equal(first.requests, 1, JSON.stringify(first.operations));
        await closeAll();
        const again = record('openLargerThanCacheAgain', await measure(() => openRevision(rev)));
        assert.equal(again.requests, 0, JSON.stringify(again.operations));
        const cmp = record('compareLargerThanCache', await measure(() => compareWithPrevious(rev)));
        assert.ok(cmp.requests <= 1, JSON.stringify(cmp.operations));
      }
    } finally {
      api.revisions.cache.setMaxBytes(lru);
      await disk?.setMaxBytes(bound);
    }
  });

  it('after a window reload (a fresh copy of the extension on the same storage): a revision reopens with no request; the cached 100,000-file site expands from disk, then one background request', async () => {
    const rev = (await revisions(await fileNode(HISTORY_PATH)))[1]!;
    await openRevision(rev);
    // The large site's file list is on disk (expanded above); settle what is under way.
    await api.tree.getChildren(siteNode);
    for (let i = 0; i < SAMPLES; i++) {
      const ctx = freshContext(url, DEMO.user.email, DEMO.user.password, {}, api.context.globalStorageUri);
      try {
        const copy = (await loadFreshCopy(runningBundle(), `reload${i}x${Date.now().toString(36)}`)).activate(ctx)!;
        await copy.ready;
        record('reopenAfterReload', await measure(async () => (await copy.loadRevisions()).store.content(rev.ref.site.id, rev.ref.item.id)));
        const sites = (await copy.tree.getChildren()) as SiteNode[];
        const large = sites.find((x) => x.site.id === String(LARGE_SITE_ID))!;
        await waitFor(async () => (await control(url, 'stats')).inFlight === 0 && copy.scheduler.stats(new URL(url).origin).active === 0, { intervalMs: 5 });
        await control(url, 'reset-stats');
        const t0 = performance.now();
        const nodes = await copy.tree.getChildren(large);
        const ms = performance.now() - t0;
        assert.ok(nodes.some(isFolder));
        // Then the refresh behind: one Get Revision Files at background priority.
        await waitFor(async () => (await control(url, 'stats')).requests.length >= 1 && copy.scheduler.stats(new URL(url).origin).active === 0, { intervalMs: 5, timeoutMs: 30_000 });
        const stats = await control(url, 'stats');
        const operations: Record<string, number> = {};
        for (const r of stats.requests) operations[r.operation ?? r.url] = (operations[r.operation ?? r.url] ?? 0) + 1;
        record('expandCachedSiteAfterReload', { ms, requests: stats.requests.length, operations });
        assert.equal(operations['getRevisionFiles'], 1, JSON.stringify(operations));
      } finally {
        disposeCopy(ctx);
      }
    }
  });

  it('activation and the first request: fresh copies of the extension loaded and activated in this host, compiled from source', async () => {
    // VS Code activates an extension once per host, so repeated samples load new copies of the
    // build next to the running one (see ../freshCopy.ts), each with a new context and the
    // signed-in account in memory.
    // The production build of the .vsix when the bench runner extracted one, else the one loaded here.
    const entry = process.env.SITE_REVISIONS_BENCH_BUNDLE || runningBundle();
    figures.bundleBytes = fs.statSync(entry).size;
    const fresh: NonNullable<HostFigures['activation']['fresh']> = [];
    for (let i = 0; i < ACTIVATION_SAMPLES; i++) {
      const copyEntry = prepareCopy(entry, `bench${String(i).padStart(3, '0')}x${Date.now().toString(36)}`);
      const ctx = freshContext(url, DEMO.user.email, DEMO.user.password);
      try {
        await control(url, 'reset-stats');
        const t0 = performance.now();
        const ext = await importCopy(copyEntry);
        const t1 = performance.now();
        const copy = ext.activate(ctx)!;
        const t2 = performance.now();
        await copy.ready;
        const t3 = performance.now();
        await new Promise((r) => setTimeout(r, 150));
        const stats = await control(url, 'stats');
        assert.equal(stats.requests.length, 0, 'activation made no request');
        // The first request: Get Sites, call → reply (undici's chunk is loaded and compiled on it).
        const t4 = performance.now();
        await (await copy.session.getClient()).getSites({ signal: new AbortController().signal });
        const firstRequestMs = performance.now() - t4;
        fresh.push({ loadMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, readyMs: t3 - t2, requests: stats.requests.length, firstRequestMs });
      } finally {
        disposeCopy(ctx);
      }
    }
    figures.activation.fresh = fresh;
  });

  // Last: its clean-up (a reseed, a refresh of the Sites view) sends requests the rows above would count.
  it('a site as it was restored: the heap its plan of 200 files of 1 MB holds while the confirmation waits', async () => {
    const site = (await api.model.all()).find((s) => s.name === 'Campaign Landing Pages');
    assert.ok(site, 'the demo site Campaign Landing Pages');
    // One sample: the heap after a full collection is not a timing (it does not vary from run to run as times do), and 200 MB of revisions take a while to add.
    figures.restorePlan = [await restorePlanHeap(api, url, site, { files: 200, bytes: 1_000_000, folder: 'plan' })];
  });
});

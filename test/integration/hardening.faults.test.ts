// Hardening: the extension against a flaky, slow service (10 % faults, 300 ms latency) in the
// real extension host. Proves that a burst of tree expansions completes, that identical requests
// in flight are merged, that reads are retried within their limit and only after a failure worth
// retrying, that writes are never repeated, and that failures do not turn into a storm of
// notifications.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Outcome } from '../../src/features/revisions/outcome';
import type { FileNode, MessageNode, RevisionNode } from '../../src/features/revisions/nodes';
import type { SiteNode } from '../../src/features/sites/sitesTree';
import type { TreeNode } from '../../src/workbench/tree/node';
import type { FaultKind, RequestRecord } from '../server';
import { control, settled, signInDemo, stubWindow } from './support';
import { ext, testService, waitFor } from './util';

/** Kinds drawn at random: some a read retries (the first six), some it cannot (500, an HTML page). */
const FAULT_MIX: FaultKind[] = ['http502', 'http503', 'http504', 'http429', 'drop', 'truncate', 'http500', 'html'];
/** Faults after which the client tries a read again. */
const RETRYABLE = new Set<string>(['http502', 'http503', 'http504', 'http429', 'drop', 'truncate']);
/** The client's default: a read is tried at most 1 + 3 times. */
const MAX_ATTEMPTS = 1 + 3;
const RETRY_COMMAND = 'siteRevisions.revisions.retry';

/** The failure kind of a notification, from its text (the Notifier shows one per kind at a time). */
function kindOf(message: string): string {
  if (/answered HTTP \d{3}/.test(message)) return 'http';
  if (/unexpected reply from the service/.test(message)) return 'invalid-reply';
  if (/no answer from the service within/.test(message)) return 'timeout';
  if (/closed unexpectedly|could not (talk to|connect)|cannot be reached|was not found/.test(message)) return 'network';
  if (/not accepted|signed in/.test(message)) return 'auth';
  return 'other';
}

/** Stubs the error and (non-modal) warning notifications: they stay "on screen" until dismissed. */
function captureNotifications(confirm?: string) {
  const shown: { severity: 'error' | 'warning'; message: string }[] = [];
  const dismiss: (() => void)[] = [];
  const onScreen = (severity: 'error' | 'warning', message: string) => {
    shown.push({ severity, message });
    return new Promise<undefined>((resolve) => dismiss.push(() => resolve(undefined)));
  };
  const restoreError = stubWindow('showErrorMessage', ((message: string) => onScreen('error', message)) as never);
  const restoreWarning = stubWindow('showWarningMessage', ((message: string, ...rest: unknown[]) => {
    const options = rest[0];
    // A modal confirmation (Delete…) is answered; anything else is a notification.
    if (options && typeof options === 'object' && (options as vscode.MessageOptions).modal) return Promise.resolve(confirm);
    return onScreen('warning', message);
  }) as never);
  return {
    shown,
    /** The user closes every notification on screen. */
    dismissAll: async () => {
      dismiss.splice(0).forEach((d) => d());
      await new Promise((r) => setTimeout(r, 20));
    },
    byKind: () => {
      const m = new Map<string, number>();
      for (const s of shown) m.set(`${s.severity}:${kindOf(s.message)}`, (m.get(`${s.severity}:${kindOf(s.message)}`) ?? 0) + 1);
      return m;
    },
    restore: () => {
      dismiss.splice(0).forEach((d) => d());
      restoreError();
      restoreWarning();
    },
  };
}

describe('Hardening: faults', function () {
  this.timeout(120000);
  let api: ExtensionApi;
  let url: string;
  const probes: string[] = [];

  const kind = (n: TreeNode): string => String((n.getTreeItem() as vscode.TreeItem).contextValue ?? '');
  const isFolder = (n: TreeNode) => kind(n) === 'revisionFolder';
  const isFile = (n: TreeNode): n is FileNode => kind(n) === 'revisionFile';
  const isRevision = (n: TreeNode): n is RevisionNode => /^revision(\.|$)/.test(kind(n));
  const isError = (n: TreeNode): n is MessageNode => kind(n) === 'revisionError';
  /** The sites list loaded (the view's own load after a refresh included) and no request under way: a fault queued next meets the test's request. */
  const quiet = async () => {
    await api.model.all().catch(() => undefined);
    await settled(api.scheduler, url);
  };
  const label = (n: TreeNode) => {
    const item = n.getTreeItem() as vscode.TreeItem;
    return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
  };
  const stats = () => control(url, 'stats');
  const resetFaults = () => control(url, 'config', { failNext: [], faultRate: 0, latencyMs: 0, faultKinds: [] });

  /** Every site, folder and file node of the account (loaded without faults). */
  const wholeTree = async () => {
    api.model.refresh();
    const sites = (await api.tree.getChildren()) as SiteNode[];
    const folders: TreeNode[] = [];
    const files: FileNode[] = [];
    const walk = async (nodes: TreeNode[]): Promise<void> => {
      for (const n of nodes) {
        if (isFolder(n)) {
          folders.push(n);
          await walk(await api.tree.getChildren(n));
        } else if (isFile(n)) files.push(n);
      }
    };
    for (const s of sites) {
      const kids = await api.tree.getChildren(s);
      assert.ok(!kids.some(isError), `loaded without faults: ${s.site.name}`);
      await walk(kids);
    }
    return { sites, folders, files };
  };

  /** The request URL (path + query) of a site's file list and of a file's revision list. */
  const filesUrl = (siteId: string) => `/api/revisions?site=${encodeURIComponent(siteId)}`;
  const revisionsUrl = (siteId: string, path: string) => `/api/revisions?site=${encodeURIComponent(siteId)}&file=${encodeURIComponent(path)}&no_content=1`;

  before(async () => {
    url = (await testService()).url;
    api = await ext<ExtensionApi>();
    await api.ready;
    await resetFaults();
    await control(url, 'reseed');
    await signInDemo(url);
    api.model.refresh();
  });

  afterEach(async () => {
    await resetFaults();
  });

  after(async () => {
    await resetFaults();
    // Probe sites left over by failed deletes.
    for (const id of probes) await api.session.call((c) => c.deleteSite(id)).catch(() => undefined);
    api.model.refresh();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('200 concurrent expansions at 10 % faults and 300 ms latency: the tree completes, identical requests merge, reads retry within their limit', async () => {
    const { sites, folders, files } = await wholeTree();
    assert.ok(sites.length >= 10 && files.length >= 20 && folders.length >= 10, `${sites.length} sites, ${folders.length} folders, ${files.length} files`);
    const pool: TreeNode[] = [...sites, ...files, ...folders];
    // 200 expansions: every node 3 or 4 times, interleaved (identical ones included).
    const targets = Array.from({ length: 200 }, (_, i) => pool[i % pool.length]!);
    const keyOf = (n: TreeNode): string | undefined => {
      if (sites.includes(n as SiteNode)) return filesUrl((n as SiteNode).site.id);
      if (isFile(n)) return revisionsUrl(n.site.id, n.path);
      return undefined; // a folder: its children are already known, no request
    };
    const keys = new Set(targets.map(keyOf).filter((k): k is string => !!k));
    assert.equal(keys.size, sites.length + files.length);

    // The Sites view out of sight: drawn, it would load the rows a person expanded earlier (kept
    // over reloads) beside the 200 expansions counted here, and a failed load of one would be a
    // second request for its key.
    await vscode.commands.executeCommand('workbench.view.explorer');
    // Fresh data: the next look at every site and file asks the service again.
    api.model.refresh();
    const storeBefore = { ...api.revisions.store.requests };
    await control(url, 'reset-stats');
    // 10 % at random, and the first five requests surely fail (so retries and error nodes are
    // always exercised, whatever the dice say).
    await control(url, 'config', { faultRate: 0.1, faultKinds: FAULT_MIX, latencyMs: 300, failNext: ['http503', 'drop', 'truncate', 'http500', 'html'] });
    const notes = captureNotifications();
    let results: PromiseSettledResult<TreeNode[]>[];
    const t0 = Date.now();
    try {
      results = await Promise.allSettled(targets.map((n) => api.tree.getChildren(n)));
    } finally {
      notes.restore();
    }
    const elapsed = Date.now() - t0;
    await resetFaults();

    // The tree completes: every expansion resolves to nodes.
    const rejected = results.filter((r) => r.status === 'rejected');
    assert.equal(rejected.length, 0, `rejected expansions: ${rejected.map((r) => String((r as PromiseRejectedResult).reason)).join('; ')}`);
    const children = results.map((r) => (r as PromiseFulfilledResult<TreeNode[]>).value);
    children.forEach((c, i) => assert.ok(Array.isArray(c) && c.length > 0, `expansion ${i} (${label(targets[i]!)}) has children`));

    // The service's view: requests per key.
    const log = (await stats()).requests.filter((r) => r.operation === 'getRevisionFiles' || r.operation === 'getRevisions');
    const byKey = new Map<string, RequestRecord[]>();
    for (const r of log) byKey.set(r.url, [...(byKey.get(r.url) ?? []), r]);
    assert.deepEqual([...byKey.keys()].filter((k) => !keys.has(k)), [], 'no request for anything that was not expanded');
    assert.equal(byKey.size, keys.size, 'every site and file was asked for');
    const faulted = log.filter((r) => r.fault).length;
    assert.ok(log.length <= keys.size * MAX_ATTEMPTS, `${log.length} requests for ${keys.size} keys`);
    for (const [key, reqs] of byKey) {
      assert.ok(reqs.length <= MAX_ATTEMPTS, `${key}: ${reqs.length} attempts (at most ${MAX_ATTEMPTS})`);
      // A read is tried again only after a failure worth retrying.
      reqs.slice(0, -1).forEach((r, i) => assert.ok(r.fault && RETRYABLE.has(r.fault), `${key}: attempt ${i + 2} followed ${r.fault ?? 'a success'}`));
    }
    // Merged: one logical request per key although every node was expanded 3 or 4 times.
    const storeAfter = api.revisions.store.requests;
    assert.equal(storeAfter.files - storeBefore.files + (storeAfter.revisions - storeBefore.revisions), keys.size, 'one request per distinct key');

    // Failures end as error nodes — exactly where the last attempt failed (retries exhausted,
    // or a failure not worth retrying) — and each offers a retry.
    const errorNodes: MessageNode[] = [];
    targets.forEach((n, i) => {
      const key = keyOf(n);
      const errs = children[i]!.filter(isError);
      if (!key) {
        assert.equal(errs.length, 0, 'a folder never fails');
        return;
      }
      const reqs = byKey.get(key)!;
      const last = reqs[reqs.length - 1]!;
      if (!last.fault) {
        assert.equal(errs.length, 0, `${key} succeeded at attempt ${reqs.length}, so no error node`);
        return;
      }
      assert.equal(errs.length, 1, `${key}: the last attempt failed (${last.fault}), so an error node`);
      assert.ok(!RETRYABLE.has(last.fault) || reqs.length === MAX_ATTEMPTS, `${key}: gave up after ${reqs.length} attempts on ${last.fault}`);
      const item = errs[0]!.getTreeItem();
      assert.equal(item.command?.command, RETRY_COMMAND, 'the error node retries on click');
      assert.ok(String(item.description).length > 5, 'the error node says what happened');
      errorNodes.push(errs[0]!);
    });
    // Identical expansions share one result.
    for (let i = 0; i < targets.length; i++) {
      const j = targets.indexOf(targets[i]!);
      assert.deepEqual(children[i]!.map(label), children[j]!.map(label), `expansions ${j} and ${i} of the same node agree`);
    }
    // No notification: tree failures are shown in the tree.
    assert.deepEqual(notes.shown, [], 'expanding nodes shows no notification');

    // The retry of every error node loads (the service is healthy again).
    for (const e of errorNodes) {
      const cmd = e.getTreeItem().command!;
      await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
      const again = await api.tree.getChildren(e.parent);
      assert.ok(again.length > 0 && !again.some(isError), `retry of ${label(e.parent!)} loads`);
    }
    assert.ok(faulted >= 5 && errorNodes.length >= 2, `${faulted} faulted requests, ${errorNodes.length} error nodes`);
    console.log(`[faults] 200 expansions, ${keys.size} keys: ${log.length} requests (${faulted} faulted), ${errorNodes.length} error nodes, ${elapsed} ms`);

    // Retries exhausted: a file whose every attempt fails with a fault worth retrying is asked
    // 1 + 3 times, then shows an error node whose retry loads it.
    api.model.refresh();
    const file = files[0]!;
    await quiet();
    await control(url, 'reset-stats');
    await control(url, 'config', { latencyMs: 300, failNext: Array(MAX_ATTEMPTS).fill('http503') });
    const failed = await api.tree.getChildren(file);
    const attempts = (await stats()).requests.filter((r) => r.url === revisionsUrl(file.site.id, file.path));
    assert.equal(attempts.length, MAX_ATTEMPTS, `tried 1 + 3 times: ${JSON.stringify((await stats()).requests.map((r) => [r.url, r.status, r.fault]))}`);
    assert.equal(failed.length, 1);
    assert.ok(isError(failed[0]!), 'then an error node');
    assert.match(String(failed[0]!.getTreeItem().description), /503/);
    const retry = failed[0]!.getTreeItem().command!;
    assert.equal(retry.command, RETRY_COMMAND);
    await vscode.commands.executeCommand(retry.command, ...(retry.arguments ?? []));
    assert.ok((await api.tree.getChildren(file)).some(isRevision), 'the retry loads the revisions');
  });

  it('writes under faults are sent once each, never retried; a failed delete is one notification per kind', async () => {
    // Probe sites to edit and delete (made while the service is healthy).
    const names = Array.from({ length: 8 }, (_, i) => `Fault probe ${i + 1}`);
    for (const name of names) {
      const r = await api.session.call((c) => c.createSite({ name, server_type: 'FTP', domain: `${name.replace(/\s+/g, '-').toLowerCase()}.example` }));
      probes.push(r.siteId);
    }
    api.model.refresh();
    const nodes = ((await api.tree.getChildren()) as SiteNode[]).filter((n) => names.includes(n.site.name));
    assert.equal(nodes.length, names.length);

    await control(url, 'reset-stats');
    await control(url, 'config', { faultRate: 0.1, faultKinds: FAULT_MIX, latencyMs: 300 });
    const notes = captureNotifications('Delete');
    let saves = 0;
    let deletes = 0;
    const saveOutcomes: string[] = [];
    const openPanels: vscode.WebviewPanel[] = [];
    try {
      const save = async (node: SiteNode, name: string) => {
        // Edit Site reads the site first, and that read may meet a fault no retry helps (then the
        // editor does not open and says so): open it again, as a person would; the writes are
        // what this test counts.
        const before = api.editors.last;
        for (let i = 0; i < 5 && api.editors.last === before; i++) await vscode.commands.executeCommand('siteRevisions.editSite', node);
        assert.notEqual(api.editors.last, before, `the editor of ${node.site.name} opened`);
        const ed = api.editors.last!;
        await ed.simulate({ type: 'ready' });
        saves++;
        await ed.simulate({ type: 'save', values: { ...ed.initialState.values, name }, passwordEdited: { ftp_pass: false, db_password: false } });
        const last = ed.lastPosted;
        saveOutcomes.push(last?.type === 'saveFailed' ? `failed: ${last.message}` : 'saved');
        if (last?.type === 'saveFailed') openPanels.push(ed.panel);
        return last;
      };
      const del = async (node: SiteNode) => {
        deletes++;
        return (await vscode.commands.executeCommand('siteRevisions.deleteSite', node)) as boolean;
      };

      // At random (10 %): every probe saved, half of them deleted.
      for (const n of nodes) await save(n, `${n.site.name} (renamed)`);
      for (const n of nodes.slice(0, 4)) await del(n);

      // Deterministic: a save hit by 503 and deletes hit by a dropped connection and a 502 —
      // failures a read would retry — are still sent exactly once.
      await control(url, 'config', { faultRate: 0 });
      let before = await stats();
      await quiet();
      await control(url, 'config', { failNext: [{ kind: 'http503', operation: 'saveSite' }] });
      const failed = await save(nodes[4]!, 'Fault probe 5 (503)');
      let after = await stats();
      assert.equal(after.counts.saveSite - before.counts.saveSite, 1, 'a save hit by 503 is sent once');
      assert.equal(after.requests.filter((r) => r.operation === 'saveSite').at(-1)?.fault, 'http503');
      assert.equal(failed?.type, 'saveFailed', 'the form says the save failed');
      assert.match((failed as { message: string }).message, /503/);

      // Until now nothing was dismissed: at most one notification per failure kind.
      const kinds = new Map<string, number>();
      for (const m of notes.shown) kinds.set(kindOf(m.message), (kinds.get(kindOf(m.message)) ?? 0) + 1);
      for (const [k, n] of kinds) assert.equal(n, 1, `${k}: ${n} notifications on screen at once: ${JSON.stringify(notes.shown)}`);
      await notes.dismissAll();
      const shownBefore = notes.shown.length;
      before = after;
      await quiet();
      await control(url, 'config', { failNext: [{ kind: 'drop', operation: 'deleteSite' }] });
      assert.equal(await del(nodes[5]!), false, 'a delete whose connection dropped failed');
      await quiet();
      await control(url, 'config', { failNext: [{ kind: 'http502', operation: 'deleteSite' }] });
      assert.equal(await del(nodes[6]!), false, 'a delete answered 502 failed');
      await quiet();
      await control(url, 'config', { failNext: [{ kind: 'http504', operation: 'deleteSite' }] });
      assert.equal(await del(nodes[7]!), false, 'a delete answered 504 failed');
      after = await stats();
      assert.equal(after.counts.deleteSite - before.counts.deleteSite, 3, 'each failed delete was sent once');
      const fresh = notes.shown.slice(shownBefore);
      assert.equal(fresh.filter((s) => kindOf(s.message) === 'network').length, 1, `one network message: ${JSON.stringify(fresh)}`);
      assert.equal(fresh.filter((s) => kindOf(s.message) === 'http').length, 1, `one HTTP message for two HTTP failures: ${JSON.stringify(fresh)}`);
      assert.match(fresh.find((s) => kindOf(s.message) === 'http')!.message, /Fault probe (7|8)/, 'the message names the site');
    } finally {
      notes.restore();
      await resetFaults();
      for (const p of openPanels) p.dispose();
    }

    // The whole run, at the service: one request per click, whatever happened to it.
    const all = (await stats()).requests;
    assert.equal(all.filter((r) => r.operation === 'saveSite').length, saves, `saves: ${JSON.stringify(saveOutcomes)}`);
    assert.equal(all.filter((r) => r.operation === 'deleteSite').length, deletes);
    const faultedWrites = all.filter((r) => (r.operation === 'saveSite' || r.operation === 'deleteSite') && r.fault);
    console.log(`[faults] ${saves} saves, ${deletes} deletes, ${faultedWrites.length} faulted (${faultedWrites.map((r) => r.fault).join(', ')}); notifications: ${notes.shown.length}`);
  });

  it('a burst of failing reads is one notification per failure kind while it is on screen', async () => {
    const { files } = await wholeTree();
    const revisions: RevisionNode[] = [];
    for (const f of files) revisions.push(...(await api.tree.getChildren(f)).filter(isRevision));
    const picked = revisions.slice(0, 20);
    assert.equal(picked.length, 20);
    api.revisions.cache.clear();
    await (await api.cache.current())?.clear();
    const notes = captureNotifications();
    try {
      // 20 concurrent copies of 20 revisions; every request fails with a fault no retry helps
      // (10 × HTTP 500, 10 × an HTML page instead of JSON), on top of 10 % random faults.
      await control(url, 'reset-stats');
      await control(url, 'config', { faultRate: 0.1, faultKinds: FAULT_MIX, latencyMs: 300, failNext: [...Array(10).fill('http500'), ...Array(10).fill('html')] });
      const outcomes = (await Promise.all(picked.map((r) => vscode.commands.executeCommand('siteRevisions.copyRevisionContent', r)))) as Outcome[];
      assert.ok(outcomes.every((o) => !o.done && o.reason === 'failed'), JSON.stringify(outcomes));
      assert.equal((await stats()).counts.getRevision, 20, 'no retry of a 500 or an HTML reply');
      await waitFor(() => notes.shown.length >= 2, { message: 'the two messages' });
      const kinds = notes.byKind();
      assert.equal(kinds.get('error:http'), 1, `one message for ten HTTP 500s: ${JSON.stringify(notes.shown)}`);
      assert.equal(kinds.get('error:invalid-reply'), 1, `one message for ten HTML replies: ${JSON.stringify(notes.shown)}`);
      assert.equal(notes.shown.length, 2);
      // Once the user has closed it, the next failure of that kind is shown again.
      await notes.dismissAll();
      await control(url, 'config', { faultRate: 0, failNext: [{ kind: 'http500', operation: 'getRevision' }] });
      const again = (await vscode.commands.executeCommand('siteRevisions.copyRevisionContent', picked[0])) as Outcome;
      assert.equal(again.done, false);
      assert.equal(notes.shown.length, 3);
      assert.equal(kindOf(notes.shown[2]!.message), 'http');
    } finally {
      notes.restore();
      await resetFaults();
    }
    // Healthy again: the same command works.
    const ok = (await vscode.commands.executeCommand('siteRevisions.copyRevisionContent', picked[0])) as Outcome;
    assert.ok(ok.done);
  });
});

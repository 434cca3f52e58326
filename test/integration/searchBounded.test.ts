// A regular expression that backtracks without end (the "Trust" issue's `(-+)+\*/$` over a CSS
// comment of 28 dashes: 12.8 s on the host's thread before) in History Search and in the
// language-model search tool: the search thread is cut at its budget and each ends with the
// message that names the file, the revision and what to change — History Search on screen.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { Site } from '../../src/core/api/types';
import { TOOL_NAMES } from '../../src/features/tools/tools';
import type { SearchRun } from '../../src/features/history/historyView';
import { SEARCH_DEMO } from '../server/seed-search';
import { HOSTILE } from '../unit/helpers/hostile';
import { screenOrSkip } from './screen';
import { control, reseededAndSignedIn } from './support';

const PATH = 'campaigns/spring/hostile.css';
const CSS = HOSTILE.find((h) => h.pattern === '(-+)+\\*/$')!;
const MESSAGE = /The regular expression took more than 0\.5 s on revision (\d+) of campaigns\/spring\/hostile\.css, so the search was stopped\. Nested quantifiers such as \(a\+\)\+/;

describe('A hostile regular expression: History Search and the search tool end with a message', function () {
  this.timeout(120_000);
  let api: ExtensionApi;
  let url: string;
  let marketing: Site;
  let revisionId: string;

  before(async () => {
    ({ api, url } = await reseededAndSignedIn());
    api.model.refresh();
    const m = (await api.model.all()).find((s) => s.name === SEARCH_DEMO.siteName);
    assert.ok(m, 'Marketing Drive is listed');
    marketing = m;
    // A stylesheet whose newest revision has the comment the expression never ends on.
    await control(url, 'add-revision', { siteId: marketing.id, path: PATH, content: 'body { margin: 0 }\n' });
    const added = (await control(url, 'add-revision', { siteId: marketing.id, path: PATH, content: `body { margin: 0 }\n${CSS.line}\n.a { color: red }\n` })) as { id: string | number };
    revisionId = String(added.id);
    api.revisions.store.invalidate();
  });

  after(async () => {
    await vscode.commands.executeCommand('siteRevisions.clearSearches');
    await control(url, 'reseed');
    api.revisions.store.invalidate();
  });

  it('History Search: the run stops with the message, drawn in the view', async function () {
    const s = screenOrSkip(this);
    const run = (await vscode.commands.executeCommand('siteRevisions.searchHistory', { site: marketing, file: PATH }, { query: { pattern: CSS.pattern, isRegExp: true }, mode: 'changes' })) as SearchRun;
    assert.equal(run.state, 'failed');
    assert.match(run.error ?? '', MESSAGE);
    assert.equal(MESSAGE.exec(run.error ?? '')![1], revisionId, 'the revision whose content holds the comment');
    await vscode.commands.executeCommand('siteRevisions.historySearch.focus');
    for (const other of ['Sites', 'History Search', 'Site Changes']) await s.setPaneExpanded(other, other === 'History Search');
    const rows = await s.until(
      () => s.rows('History Search'),
      (r) => r.some((x) => x.includes('The search stopped')),
      'the stopped search in the view',
    );
    const stopped = rows.find((r) => r.includes('The search stopped'))!;
    assert.match(stopped, MESSAGE);
    assert.match(stopped, /for example a\+ instead of \(a\+\)\+/);
  });

  it('the search tool of one file (no confirmation) answers with the message', async () => {
    const r = await vscode.lm.invokeTool(TOOL_NAMES.searchHistory, { input: { site: marketing.id, path: PATH, query: CSS.pattern, isRegExp: true }, toolInvocationToken: undefined });
    const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(text, MESSAGE);
    assert.match(text, /Nested quantifiers/);
  });
});

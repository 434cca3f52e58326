// Test Connection: from the Sites view on a saved site (a cancellable progress notification,
// then a notification that says the outcome — the failing stage and its next step — with "Show
// Details", which opens the full report as a read-only text document a person can read with a
// screen reader, search and copy), and from the site form on the values as typed (./index.ts
// formTest, shown in the form by src/features/sites/siteEditor.ts).
import * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import type { StageReport } from '../../core/live';
import type { SiteLike } from '../../core/live';
import { displayText } from '../../core/util/text';
import { background } from '../../core/util/background';
import type { Log } from '../../workbench/log';
import { message, plain, showError, showInfo } from '../../workbench/messages';
import type { LiveConnections } from './connections';
import { reportText, stageLabel, testView, type StageRow, type TestView } from './report';

export const TEST_REPORT_SCHEME = 'site-live-test';

/** The reports of this window's tests, as read-only documents. */
export class TestReports implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private n = 0;
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  add(siteName: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: TEST_REPORT_SCHEME, path: `/${vscode.l10n.t('Test Connection')} ${displayText(siteName).replace(/[/\\]/g, '-')}.txt`, query: String(++this.n) });
    this.texts.set(uri.toString(), text);
    // The oldest go (a window that tests all day keeps the last 20).
    if (this.texts.size > 20) this.texts.delete(this.texts.keys().next().value!);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? vscode.l10n.t('This report is no longer available: run Test Connection again.');
  }

  /** The last report (tests read it). */
  last(): { uri: string; text: string } | undefined {
    const e = [...this.texts].pop();
    return e && { uri: e[0], text: e[1] };
  }
}

/** `FTP · 127.0.0.1:2121` */
function whereOf(c: LiveConnections, site: Site): string {
  const m = c.map(site);
  return m.ok ? `${site.server_type} · ${m.endpoint.host}:${m.endpoint.port}${m.endpoint.root ? ` · ${m.endpoint.root}` : ''}` : site.server_type;
}

/** Test Connection of a saved site from the Sites view; returns what was shown (tests read it). */
export async function testSite(c: LiveConnections, reports: TestReports, log: Log, site: Site): Promise<{ view: TestView; uri: vscode.Uri }> {
  const name = displayText(site.name) || site.id;
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Testing the connection of “{0}”', name), cancellable: true },
    async (progress, token) => {
      const ac = new AbortController();
      const sub = token.onCancellationRequested(() => ac.abort());
      try {
        return await c.test(site, { signal: ac.signal, onStage: (s: StageReport) => progress.report({ message: `${stageLabel(s.stage)}${s.ok ? '' : ' ✗'}` }) });
      } finally {
        sub.dispose();
      }
    },
  );
  const view = testView(result);
  const uri = reports.add(name, reportText(name, whereOf(c, site), view));
  log.info(`Test Connection of ${name}: ${view.headline}`);
  const details = vscode.l10n.t('Show Details');
  const shown = view.ok
    ? showInfo(message('“{0}”: {1}', plain(name), plain(view.headline)), details)
    : showError(message('“{0}”: {1} {2}', plain(name), plain(view.headline), plain(view.next ?? '')), details);
  background(
    'Showing a Test Connection result',
    Promise.resolve(shown).then(async (pick) => {
      if (pick === details) await vscode.window.showTextDocument(uri, { preview: true });
    }),
  );
  return { view, uri };
}

/** The form's Test Connection: the values as typed (a password typed and not saved included). */
export async function formTest(
  c: LiveConnections,
  site: SiteLike & { id: string; name: string },
  password: string | undefined,
  signal: AbortSignal,
  onStage: (row: StageRow) => void,
): Promise<TestView> {
  // The form tests what is typed in it: a refused or missing password ends the test (the form
  // says so) instead of asking in another input.
  const result = await c.test(site, {
    ...(password !== undefined ? { password } : {}),
    interactive: false,
    formValues: true,
    signal,
    onStage: (s) => onStage({ stage: s.stage, label: stageLabel(s.stage), ok: s.ok, time: vscode.l10n.t('{0} ms', Math.round(s.ms)), detail: displayText(s.detail), ...(s.warning ? { warning: displayText(s.warning) } : {}) }),
  });
  return testView(result);
}

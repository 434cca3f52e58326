// How a Test Connection result reads: the stages in order, each with what it found and how long
// it took, the failing one with its next step, and the note that the test ran from this computer.
// The same rows go into the site form (as data: the webview inserts them as text) and into the
// read-only report document of the Sites view's Test Connection.
import * as vscode from 'vscode';
import type { LiveStage, TestResult } from '../../core/live';
import { displayText } from '../../core/util/text';
import type { UnreachableSite } from './connections';
import type { TestOutcome, TestStageRow } from '../sites/protocol';

/** One stage as shown, and a result as shown: the site form's protocol carries them as they are. */
export type StageRow = TestStageRow;
export type TestView = TestOutcome;

export function stageLabel(s: LiveStage | string): string {
  switch (s) {
    case 'config':
      return vscode.l10n.t('Site values');
    case 'resolve':
      return vscode.l10n.t('Name resolved');
    case 'connect':
      return vscode.l10n.t('TCP connected');
    case 'tls':
      return vscode.l10n.t('TLS');
    case 'host-key':
      return vscode.l10n.t('Host key');
    case 'login':
      return vscode.l10n.t('Logged in');
    case 'list':
      return vscode.l10n.t('Folder listed');
    case 'read':
      return vscode.l10n.t('File read');
    case 'write':
      return vscode.l10n.t('File written');
    default:
      return displayText(String(s));
  }
}

export function fromThisComputerNote(): string {
  return vscode.l10n.t('The test ran from this computer: the Site Revisions service connects to your server from its own addresses, and a firewall may treat the two differently.');
}

export function testView(r: TestResult | { unreachable: UnreachableSite }): TestView {
  const note = fromThisComputerNote();
  if ('unreachable' in r) return { ok: false, headline: displayText(r.unreachable.message), rows: [], note, unreachable: true };
  const rows = r.stages.map((s) => ({
    stage: s.stage,
    label: stageLabel(s.stage),
    ok: s.ok,
    time: vscode.l10n.t('{0} ms', Math.max(0, Math.round(s.ms))),
    detail: displayText(s.detail),
    ...(s.warning ? { warning: displayText(s.warning) } : {}),
  }));
  if (r.ok) {
    const n = r.entries ?? 0;
    return { ok: true, headline: n === 1 ? vscode.l10n.t('The connection works: 1 entry in the site\'s folder.') : vscode.l10n.t('The connection works: {0} entries in the site\'s folder.', n), rows, note };
  }
  const e = r.error!;
  return {
    ok: false,
    headline: vscode.l10n.t('{0} failed: {1}', stageLabel(e.stage), displayText(e.message)),
    rows,
    next: displayText(e.next),
    ...(e.detail ? { serverSaid: displayText(e.detail) } : {}),
    note,
  };
}

/** The report as plain text (a read-only document a person can read, search and copy). */
export function reportText(siteName: string, where: string, v: TestView, at = new Date()): string {
  const lines = [vscode.l10n.t('Test Connection: {0}', displayText(siteName)), where ? displayText(where) : '', vscode.l10n.t('Tested at {0}', at.toLocaleString(vscode.env.language)), ''];
  lines.push(v.ok ? `✓ ${v.headline}` : `✗ ${v.headline}`, '');
  const w = Math.max(0, ...v.rows.map((r) => r.label.length));
  const tw = Math.max(0, ...v.rows.map((r) => r.time.length));
  for (const r of v.rows) {
    lines.push(`${r.ok ? '✓' : '✗'} ${r.label.padEnd(w)}  ${r.time.padStart(tw)}  ${r.detail}`);
    if (r.warning) lines.push(`  ${' '.repeat(w + tw + 2)}${vscode.l10n.t('Note: {0}', r.warning)}`);
  }
  if (v.next) lines.push('', vscode.l10n.t('Next step: {0}', v.next));
  if (v.serverSaid) lines.push(vscode.l10n.t('The server said: {0}', v.serverSaid));
  lines.push('', v.note, '');
  return lines.filter((l, i) => l !== '' || i > 1).join('\n');
}

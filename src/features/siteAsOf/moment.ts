// "Choose a moment": a few common moments to pick, or a date and time typed into an input that
// says, while one types, which moment it reads — in this machine's time zone, which it names, as
// Site Changes counts its days (the service's dates are UTC).
import * as vscode from 'vscode';
import { momentText, MomentError, parseMoment, zoneText } from '../../core/asof';
import { translate } from '../../workbench/l10n';

/** A moment and how the views name it. */
export interface ChosenMoment {
  time: number;
  label: string;
}

/** What was typed last (this window): the input starts with it. */
let lastTyped = '';

/** The moment of a command's argument: epoch ms, or text to read; undefined when there is none. */
export function momentOf(value: unknown, now = Date.now()): ChosenMoment | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return { time: value, label: momentText(value) };
  if (typeof value === 'string' && value.trim()) {
    const time = parseMoment(value, { now, t: translate });
    return { time, label: momentText(time) };
  }
  return undefined;
}

/** The explanation of the input: the forms it reads and the time zone. */
function prompt(now: number): string {
  return vscode.l10n.t('As of when? YYYY-MM-DD HH:MM in your time zone ({0}), or e.g. “yesterday 14:00”, “2 days ago”, “3 hours ago”. The service’s revision dates are UTC.', zoneText(now));
}

export async function askMoment(title: string): Promise<ChosenMoment | undefined> {
  const now = Date.now();
  type Item = vscode.QuickPickItem & { text?: string };
  const preset = (label: string, text: string): Item => ({ label, text, description: momentText(parseMoment(text, { now })) });
  const items: Item[] = [
    { label: `$(edit) ${vscode.l10n.t('Enter a Date and Time…')}`, detail: prompt(now) },
    preset(vscode.l10n.t('1 hour ago'), '1 hour ago'),
    preset(vscode.l10n.t('Start of today'), 'today'),
    preset(vscode.l10n.t('Yesterday at this time'), '1 day ago'),
    preset(vscode.l10n.t('Start of yesterday'), 'yesterday'),
    preset(vscode.l10n.t('7 days ago'), '7 days ago'),
    preset(vscode.l10n.t('30 days ago'), '30 days ago'),
  ];
  const pick = await vscode.window.showQuickPick(items, { title, placeHolder: vscode.l10n.t('The moment to show the site as it was (your time zone: {0})', zoneText(now)) });
  if (!pick) return undefined;
  if (pick.text) return momentOf(pick.text, now);
  const typed = await vscode.window.showInputBox({
    title,
    prompt: prompt(now),
    value: lastTyped,
    placeHolder: momentText(now - 86_400_000),
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        const time = parseMoment(v, { now: Date.now(), t: translate });
        return { message: vscode.l10n.t('As of {0} ({1}), {2} UTC', momentText(time), zoneText(time), momentText(time, true)), severity: vscode.InputBoxValidationSeverity.Info };
      } catch (e) {
        return e instanceof MomentError ? e.message : String(e);
      }
    },
  });
  if (typed === undefined) return undefined;
  lastTyped = typed.trim();
  return momentOf(typed, Date.now());
}

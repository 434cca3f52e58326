// Pure (no `vscode`): the translator type of the modules that must run in plain Node.
//
// Such a module takes a `t: Translate` parameter (last, defaulting to `english`) and calls it
// as `t('literal message with {0}', value)`, like `vscode.l10n.t`; the extension passes
// `translate` from src/workbench/l10n.ts. scripts/l10n-bundle.mjs collects the messages of both kinds of
// call into l10n/bundle.l10n.json, so a parameter named `t` is reserved for translators.

export type Translate = (message: string, ...args: Array<string | number>) => string;

/** Fills `{0}`, `{1}`… with the arguments, as `vscode.l10n.t` does for the English source. */
export function formatMessage(message: string, args: readonly (string | number)[]): string {
  return args.length === 0 ? message : message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

/** The messages as written (English), with their placeholders filled. */
export const english: Translate = (message, ...args) => formatMessage(message, args);

/**
 * Ends a message with a full stop unless it already ends a sentence, so that a sentence put after
 * it does not run on ("…(ECONNREFUSED) Check your connection" becomes "…(ECONNREFUSED). Check…").
 */
export function asSentence(text: string): string {
  const t = text.trimEnd();
  return t === '' || /[.!?\u2026:;]$/.test(t) ? t : `${t}.`;
}

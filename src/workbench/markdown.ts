// Markdown tooltips that show data from outside the extension as plain text.
import * as vscode from 'vscode';
import { displayText } from '../core/util/text';

/** An untrusted tooltip: command links cannot run, HTML is not rendered. */
export function dataTooltip(supportThemeIcons = false): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, supportThemeIcons);
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}

/**
 * Appends data (a site field, a path, an author…) to a tooltip as plain text: unsafe characters
 * become U+FFFD (displayText), and appendText escapes the markdown syntax but not `<` or `&`:
 * those become entities, so no HTML tag or entity from the service survives in the markdown even
 * where HTML is rendered.
 */
export function appendData(md: vscode.MarkdownString, value: string, options: { noAutolinks?: boolean } = {}): vscode.MarkdownString {
  const safe = displayText(value).replace(/[&<]/g, (c) => (c === '&' ? '&amp;' : '&lt;'));
  if (!options.noAutolinks) return md.appendText(safe);
  // `noAutolinks`: `@`, `:` and `www.` become entities too (after appendText's escaping, which
  // would escape the `#` of an entity), so an e-mail address, a URL or a www. name does not become
  // a live link: GFM autolinks work on the text as written, an entity shows as its character. The
  // blame hover and the alert's tooltip, which are trusted for their commands, use it.
  const escaped = new vscode.MarkdownString().appendText(safe).value;
  return md.appendMarkdown(escaped.replace(/[@:]|www\./gi, (c) => (c === '@' ? '&#64;' : c === ':' ? '&#58;' : `${c.slice(0, 3)}&#46;`)));
}

// Markdown tooltips that show data from outside the extension as plain text.
import * as vscode from 'vscode';
import { displayText } from '../util/text';

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
export function appendData(md: vscode.MarkdownString, value: string): vscode.MarkdownString {
  return md.appendText(displayText(value).replace(/[&<]/g, (c) => (c === '&' ? '&amp;' : '&lt;')));
}

// Pure (no `vscode`): text that came from outside the extension (the service, the file system, an
// error) made safe to show. One definition for the tree labels, the tooltips and the messages.

// C0/C1 controls, DEL, line/paragraph separators, bidi controls (U+202E… would make what follows
// read backwards) and lone surrogates.
const UNSAFE_TEST = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSAFE_ALL = new RegExp(UNSAFE_TEST.source, 'g');

/** Whether `s` holds a character that displayText replaces. */
export function hasUnsafeChars(s: string): boolean {
  return UNSAFE_TEST.test(s);
}

/**
 * Text shown on one line as it reads: every unsafe character (see above) becomes U+FFFD, so a
 * name can neither break a line, reorder what is displayed around it, nor make an invalid URI.
 * Never used to touch the file system.
 */
export function displayText(s: string): string {
  return UNSAFE_TEST.test(s) ? s.replace(UNSAFE_ALL, '\uFFFD') : s;
}

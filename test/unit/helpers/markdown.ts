// Links and headings of a Markdown file, for the tests that check the documentation's links
// (readme.test.ts) and the README the .vsix holds (package.test.ts).

export interface MarkdownLink {
  image: boolean;
  text: string;
  /** As written: a path (with an optional #fragment), a #fragment, or a URL. */
  target: string;
}

/** Inline links and images, `[text](target)` / `![alt](target "title")`; the text may span lines. Code is skipped. */
export function markdownLinks(md: string): MarkdownLink[] {
  const prose = md.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``');
  return [...prose.matchAll(/(!?)\[([^\]]*)\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ image: m[1] === '!', text: m[2]!, target: m[3]! }));
}

/** The ids of the headings, as GitHub and VS Code's details page make them (lower case, punctuation dropped, spaces → "-"). */
export function headingIds(md: string): Set<string> {
  const ids = new Set<string>();
  const prose = md.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  for (const m of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    ids.add(m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
  }
  return ids;
}

/** A URL with a scheme (https:, mailto:…), as opposed to a path inside the repository. */
export function isUrl(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

// Demo data for History Search and Site Changes (issue 13): the "Marketing Drive" site gets a
// small history whose facts are known exactly, dated relative to the seed time (so "today" and
// "last 7 days" keep their meaning whenever the service is seeded), by two authors.
//
// Facts the tests rely on (revision numbers are 1-based, oldest first, per file):
// - `TODO-SEARCH-MARKER` is in four files of the site:
//   campaigns/spring/index.html: added in revision 2, a second one added in 4, both removed in 5
//     (changes, match case: r5 −2, r4 +1, r2 +1; contains: r2, r3, r4);
//   campaigns/spring/styles.css: in revision 1 (the oldest: counts as added); revision 2 adds
//     `todo-search-marker` (lower case: found only without Match Case), revision 3 adds
//     `TODO-SEARCH-MARKERS` (found, but not as a whole word);
//   campaigns/autumn/notes.txt: added in revision 2, on a line that starts with an emoji (CRLF
//     line ends, umlauts: the match is at line 2, UTF-16 character 10, both 0-based);
//   index.html: added in revision 2.
// - `FOLDER-ONLY-NEEDLE` is only in the folder campaigns/autumn (teaser.html from revision 1,
//   notes.txt from revision 1).
// - campaigns/summer/launch.md has only revisions in the last 7 days (new in the period).
// - Days ago of each revision are in SEARCH_DEMO below; "0" is a minute before the seed time.
import type { SeedHistory } from './seed-content';

export interface SearchDemoRevision {
  /** Whole days before the seed time (minus a few seconds per revision, so none share a time). */
  daysAgo: number;
  author: string;
  /** The file's full text in this revision. */
  content: string;
}

export interface SearchDemoFile {
  path: string;
  /** Oldest first. */
  revisions: SearchDemoRevision[];
}

const DEMO = 'demo@example.com';
const LENA = 'lena@marketing.example';

const springIndex = [
  '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <title>Spring campaign</title>\n  <link rel="stylesheet" href="styles.css">\n</head>\n<body>\n  <header class="hero">\n    <h1>Spring is here</h1>\n  </header>\n  <main>\n    <p>Fresh ideas for a fresh season.</p>\n  </main>\n</body>\n</html>\n',
];
springIndex.push(springIndex[0]!.replace('  <header class="hero">\n', '  <header class="hero">\n    <!-- TODO-SEARCH-MARKER: replace the hero image -->\n'));
springIndex.push(springIndex[1]!.replace('<h1>Spring is here</h1>', '<h1>Spring has sprung</h1>'));
springIndex.push(springIndex[2]!.replace('    <p>Fresh ideas for a fresh season.</p>\n', '    <p>Fresh ideas for a fresh season.</p>\n    <p>Offer ends soon. <!-- TODO-SEARCH-MARKER: final date --></p>\n'));
springIndex.push(springIndex[3]!.replace('    <!-- TODO-SEARCH-MARKER: replace the hero image -->\n', '    <img src="hero-2026.jpg" alt="Blossoms">\n').replace(' <!-- TODO-SEARCH-MARKER: final date -->', ' Until 30 April.'));
springIndex.push(springIndex[4]!.replace('<title>Spring campaign</title>', '<title>Spring campaign 2026</title>'));

const springCss = ['/* TODO-SEARCH-MARKER: brand colours */\n:root {\n  --brand: #2e7d32;\n}\n.hero {\n  color: var(--brand);\n}\n'];
springCss.push(springCss[0]!.replace('.hero {', '/* todo-search-marker: check the contrast */\n.hero {'));
springCss.push(springCss[1]!.replace('  color: var(--brand);\n}\n', '  color: var(--brand);\n}\n/* TODO-SEARCH-MARKERS live in the design doc */\n'));

const teaser = ['<section class="teaser">\n  <h2>Autumn preview</h2>\n  <!-- FOLDER-ONLY-NEEDLE -->\n</section>\n'];
teaser.push(teaser[0]!.replace('Autumn preview', 'Autumn is coming'));

const notes = ['Grüße aus München\r\nFOLDER-ONLY-NEEDLE im Herbst\r\n'];
notes.push(`${notes[0]}😀 Zeile: TODO-SEARCH-MARKER für Søren\r\n`);

const rootIndex = ['<!DOCTYPE html>\n<title>Marketing</title>\n<ul>\n  <li><a href="campaigns/spring/">Spring</a></li>\n</ul>\n'];
rootIndex.push(rootIndex[0]!.replace('</ul>\n', '  <li><a href="campaigns/autumn/">Autumn</a></li>\n</ul>\n<!-- TODO-SEARCH-MARKER: add summer -->\n'));
rootIndex.push(rootIndex[1]!.replace('<title>Marketing</title>', '<title>Marketing campaigns</title>'));

const launch = ['# Summer launch\n\n- Plan the launch.\n'];
launch.push(`${launch[0]}- Book the venue.\n`);

const revs = (texts: string[], days: number[], authors: string[]): SearchDemoRevision[] => texts.map((content, i) => ({ content, daysAgo: days[i]!, author: authors[i]! }));

/** The search demo history of the site "Marketing Drive" (seed key `marketing`). */
export const SEARCH_DEMO = {
  siteKey: 'marketing',
  siteName: 'Marketing Drive',
  marker: 'TODO-SEARCH-MARKER',
  folderNeedle: 'FOLDER-ONLY-NEEDLE',
  folder: 'campaigns/autumn',
  authors: [DEMO, LENA],
  files: [
    { path: 'campaigns/spring/index.html', revisions: revs(springIndex, [30, 20, 12, 5, 2, 0], [DEMO, LENA, DEMO, LENA, DEMO, LENA]) },
    { path: 'campaigns/spring/styles.css', revisions: revs(springCss, [25, 6, 1], [LENA, DEMO, LENA]) },
    { path: 'campaigns/autumn/teaser.html', revisions: revs(teaser, [15, 3], [DEMO, LENA]) },
    { path: 'campaigns/autumn/notes.txt', revisions: revs(notes, [9, 4], [LENA, DEMO]) },
    { path: 'index.html', revisions: revs(rootIndex, [40, 8, 1], [DEMO, LENA, DEMO]) },
    { path: 'campaigns/summer/launch.md', revisions: revs(launch, [3, 0], [LENA, DEMO]) },
  ] satisfies SearchDemoFile[],
} as const;

/** The same as a SeedHistory-like list for seed.ts: path, then each revision's text, author and time. */
export function searchDemoRevisions(now: number): { site: SeedHistory['site']; path: string; content: string; author: string; at: number }[] {
  const out: { site: string; path: string; content: string; author: string; at: number }[] = [];
  let n = 0;
  for (const f of SEARCH_DEMO.files) {
    for (const r of f.revisions) {
      // A minute before the seed time for "0 days", and a few seconds apart so no two share a time.
      out.push({ site: SEARCH_DEMO.siteKey, path: f.path, content: r.content, author: r.author, at: now - r.daysAgo * 24 * 3600_000 - 60_000 - n++ * 1000 });
    }
  }
  return out;
}

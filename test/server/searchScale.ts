// The search-scale data set (`searchScale: true`, CLI --search-scale): one site with 2,000 files
// of 20 revisions of about 10 KB each — about 400 MB of content, the History Search benchmark's
// whole-site scan. Generated deterministically on demand (nothing is kept per revision, nothing
// persisted): each content is a header naming the file and revision, then one of a few
// precomputed 10 KB bodies.
//
// What a search finds there: every tenth file (index % 10 === 0) has `SCALE-MARKER <index>` in
// revisions 6 to 12 (1-based, oldest first): "changes" reports revision 6 (+1) and 13 (−1) of
// those 200 files; every revision has a line `revision <n> of file <index>`.
//
// Its twin (`new SearchScaleData({ twin: true })`, site 900002, "Search scale site (staging)"):
// the same paths and revisions (own ids, the same dates and contents), but for the compare of two
// sites: the newest revision of every twentieth file (index % 20 === 7) differs (one line more),
// and its last 10 files are others (`staging/extra-N.txt`), so 10 files are on each side only.

import { DEMO_USER_IDS } from './demo';
import { formatDate, siteDefaults, type StoredRevision, type StoredSite } from './model';

export const SEARCH_SCALE_SITE_ID = 900001;
export const SEARCH_SCALE_TWIN_ID = 900002;
/** The twin's differences: files whose newest revision differs, files on one side only. */
export const SEARCH_SCALE_TWIN = { differEvery: 20, differAt: 7, onlyOnEachSide: 10 } as const;
export const SEARCH_SCALE_FILES = 2000;
export const SEARCH_SCALE_REVISIONS = 20;
export const SEARCH_SCALE_BYTES = 10 * 1024;
/** Revisions (1-based) of the marked files that carry the marker: from … to, inclusive. */
export const SEARCH_SCALE_MARKED = { every: 10, from: 6, to: 12, text: 'SCALE-MARKER' } as const;

const REV_BASE = 70_000_000;
const TWIN_REV_BASE = 80_000_000;
const DATE_BASE = Date.UTC(2025, 5, 1, 8, 0, 0);
const AUTHORS = ['demo@example.com', 'alice@example.com', 'bob@example.com'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'eiusmod', 'tempor'];
const BODIES = 16;

export class SearchScaleData {
  readonly site: StoredSite;
  readonly paths: string[];
  private readonly index = new Map<string, number>();
  private readonly bodies: string[];
  private readonly twin: boolean;
  private readonly base: number;

  constructor(o: { twin?: boolean } = {}) {
    this.twin = o.twin === true;
    this.base = this.twin ? TWIN_REV_BASE : REV_BASE;
    this.site = siteDefaults(this.twin ? SEARCH_SCALE_TWIN_ID : SEARCH_SCALE_SITE_ID, DEMO_USER_IDS.user, 'FTP');
    Object.assign(this.site, { name: this.twin ? 'Search scale site (staging)' : 'Search scale site', domain: 'ftp.search-scale.example', ftp_user: 'scale', dir: '/www', web_url: 'https://search-scale.example/' });
    this.paths = [];
    for (let i = 0; i < SEARCH_SCALE_FILES; i++) {
      const extra = this.twin && i >= SEARCH_SCALE_FILES - SEARCH_SCALE_TWIN.onlyOnEachSide;
      const p = extra ? `staging/extra-${i}.txt` : `${['src', 'pages', 'assets', 'docs'][i % 4]}/part-${String(i % 50).padStart(2, '0')}/file-${String(i).padStart(4, '0')}.txt`;
      this.paths.push(p);
      this.index.set(p, i);
    }
    this.bodies = [];
    for (let b = 0; b < BODIES; b++) {
      const lines: string[] = [];
      let size = 0;
      for (let n = 0; size < SEARCH_SCALE_BYTES - 200; n++) {
        const w = (k: number) => WORDS[(b * 31 + n * 7 + k * 3) % WORDS.length];
        const line = `${String(n).padStart(4, '0')} ${w(0)} ${w(1)} ${w(2)} ${w(3)} ${w(4)} ${w(5)} ${w(6)} ${w(7)}.\n`;
        lines.push(line);
        size += line.length;
      }
      this.bodies.push(lines.join(''));
    }
  }

  /** All revisions of a file, oldest first; undefined for an unknown path. */
  revisions(path: string, withContent: boolean): Array<Omit<StoredRevision, 'content'> & { content?: string }> | undefined {
    const i = this.index.get(path);
    if (i === undefined) return undefined;
    const out = new Array<Omit<StoredRevision, 'content'> & { content?: string }>(SEARCH_SCALE_REVISIONS);
    for (let r = 1; r <= SEARCH_SCALE_REVISIONS; r++) out[r - 1] = withContent ? this.make(i, r) : this.meta(i, r);
    return out;
  }

  /** One revision by id, or undefined when the id is not one of this site's. */
  revision(id: string): StoredRevision | undefined {
    if (!/^\d+$/.test(id)) return undefined;
    const n = Number(id) - this.base;
    const i = Math.floor(n / 100);
    const r = n % 100;
    if (n < 0 || i >= SEARCH_SCALE_FILES || r < 1 || r > SEARCH_SCALE_REVISIONS) return undefined;
    return this.make(i, r);
  }

  private meta(i: number, r: number): Omit<StoredRevision, 'content'> {
    return { id: String(this.base + i * 100 + r), date: formatDate(DATE_BASE + (r * SEARCH_SCALE_FILES + i) * 60_000), author: AUTHORS[(i + r) % AUTHORS.length]! };
  }

  private make(i: number, r: number): StoredRevision {
    const m = SEARCH_SCALE_MARKED;
    const marked = i % m.every === 0 && r >= m.from && r <= m.to;
    const head = `// ${this.paths[i]}\nrevision ${r} of file ${i}\n${marked ? `${m.text} ${i}\n` : ''}`;
    const d = SEARCH_SCALE_TWIN;
    const staged = this.twin && r === SEARCH_SCALE_REVISIONS && i % d.differEvery === d.differAt ? 'staging edit\n' : '';
    return { ...this.meta(i, r), content: head + staged + this.bodies[(i + r) % BODIES] };
  }
}

// The large data set (`large: true`): one site with 100,000 file paths, one file with 10,000
// revisions and one file whose only revision is 20 MB. Generated deterministically in memory
// (never persisted); revision contents are produced on demand, except the 20 MB text, which is
// built once at start.

import { DEMO_USER_IDS } from './demo';
import { formatDate, siteDefaults, type StoredRevision, type StoredSite } from './model';

export const LARGE_SITE_ID = 900000;
export const LARGE_FILE_COUNT = 100_000;
export const HISTORY_PATH = 'big/history.txt';
export const HISTORY_REVISIONS = 10_000;
export const HUGE_PATH = 'big/huge.txt';
export const HUGE_BYTES = 20 * 1024 * 1024;

/** Revision ids of the large site: HISTORY = BASE+1..BASE+10000, HUGE = BASE+10001, file i = BASE+100000+i. */
const REV_BASE = 50_000_000;
const HUGE_REV = REV_BASE + HISTORY_REVISIONS + 1;
const FILE_REV_BASE = REV_BASE + 100_000;
const DATE_BASE = Date.UTC(2025, 0, 1, 8, 0, 0);
const AUTHORS = ['demo@example.com', 'alice@example.com', 'bob@example.com', 'ci-bot@example.com'];
const WORDS = ['deploy', 'fix', 'cache', 'header', 'footer', 'image', 'typo', 'release', 'config', 'style', 'script', 'backup'];

export class LargeData {
  readonly site: StoredSite;
  readonly paths: string[];
  private readonly index = new Map<string, number>();
  private readonly huge: string;

  constructor() {
    this.site = siteDefaults(LARGE_SITE_ID, DEMO_USER_IDS.user, 'SFTP');
    Object.assign(this.site, {
      name: 'Large site',
      domain: 'sftp.large.example',
      ftp_user: 'large',
      dir: '/srv/large',
      web_url: 'https://large.example/',
    });

    const paths: string[] = [HISTORY_PATH, HUGE_PATH];
    const areas = ['src', 'assets', 'docs', 'lib', 'tests'];
    for (let i = 0; paths.length < LARGE_FILE_COUNT; i++) {
      const area = areas[i % areas.length];
      const pkg = `pkg-${String((i * 7) % 250).padStart(3, '0')}`;
      const mod = `module-${String(i % 20).padStart(2, '0')}`;
      const ext = ['ts', 'css', 'md', 'js', 'json'][i % 5];
      paths.push(`${area}/${pkg}/${mod}/file-${String(i).padStart(6, '0')}.${ext}`);
    }
    this.paths = paths;
    paths.forEach((p, i) => this.index.set(p, i));

    const line = (n: number) => `${String(n).padStart(8, '0')} The quick brown fox jumps over the lazy dog. 0123456789\n`;
    const parts: string[] = [];
    let size = 0;
    for (let n = 1; size < HUGE_BYTES; n++) {
      const l = line(n);
      parts.push(l);
      size += l.length;
    }
    this.huge = parts.join('').slice(0, HUGE_BYTES);
  }

  has(path: string): boolean {
    return this.index.has(path);
  }

  /** All revisions of a file, oldest first; undefined for an unknown path. */
  revisions(path: string, withContent: boolean): Omit<StoredRevision, 'content'>[] | StoredRevision[] | undefined {
    const i = this.index.get(path);
    if (i === undefined) return undefined;
    if (path === HISTORY_PATH) {
      const out = new Array(HISTORY_REVISIONS);
      for (let n = 1; n <= HISTORY_REVISIONS; n++) out[n - 1] = this.historyRevision(n, withContent);
      return out;
    }
    const id = path === HUGE_PATH ? HUGE_REV : FILE_REV_BASE + i;
    const rev = this.revision(String(id));
    if (!rev) return [];
    if (withContent) return [rev];
    const { content: _content, ...meta } = rev;
    return [meta];
  }

  /** One revision by id, or undefined when the id is not one of this site's. */
  revision(id: string): StoredRevision | undefined {
    if (!/^\d+$/.test(id)) return undefined;
    const n = Number(id);
    if (n > REV_BASE && n <= REV_BASE + HISTORY_REVISIONS) return this.historyRevision(n - REV_BASE, true) as StoredRevision;
    if (n === HUGE_REV) return { id, date: formatDate(DATE_BASE), author: AUTHORS[0], content: this.huge };
    const i = n - FILE_REV_BASE;
    if (i >= 2 && i < this.paths.length) {
      const p = this.paths[i];
      return {
        id,
        date: formatDate(DATE_BASE + (i % 5000) * 3_600_000),
        author: AUTHORS[i % AUTHORS.length],
        content: `// ${p}\n// Generated file #${i} of the large data set.\nexport const value${i} = ${i};\n`,
      };
    }
    return undefined;
  }

  /** Revision n (1-based) of the history file: the last 20 entries of an append-only log. */
  private historyRevision(n: number, withContent: boolean): StoredRevision | Omit<StoredRevision, 'content'> {
    const meta = { id: String(REV_BASE + n), date: formatDate(DATE_BASE + n * 30 * 60_000), author: AUTHORS[n % AUTHORS.length] };
    if (!withContent) return meta;
    const lines = ['# history.txt: the last 20 entries'];
    for (let k = Math.max(1, n - 19); k <= n; k++) {
      lines.push(`${formatDate(DATE_BASE + k * 30 * 60_000)} entry ${k}: ${WORDS[k % WORDS.length]} ${WORDS[(k * 5) % WORDS.length]}`);
    }
    return { ...meta, content: lines.join('\n') + '\n' };
  }
}

// Persistence of the local service: one JSON file, written atomically (temp file + rename) after
// every change, loaded at start, seeded when missing. The generated data sets (the large one,
// the search-scale one) live beside it in memory and are never written.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { LARGE_SITE_ID, LargeData } from './large';
import type { StoredData, StoredFile, StoredRevision, StoredSite, StoredUser } from './model';
import { SEARCH_SCALE_SITE_ID, SEARCH_SCALE_TWIN_ID, SearchScaleData } from './searchScale';
import { buildSeed } from './seed';

/** A site whose files and revisions are generated on demand (in memory only). */
interface GeneratedSite {
  readonly site: StoredSite;
  readonly paths: string[];
  /** Oldest first; undefined for an unknown path. */
  revisions(path: string, withContent: boolean): Array<Omit<StoredRevision, 'content'> & { content?: string }> | undefined;
  revision(id: string): StoredRevision | undefined;
}

const GENERATED_SITE_IDS = new Set([LARGE_SITE_ID, SEARCH_SCALE_SITE_ID, SEARCH_SCALE_TWIN_ID]);

export class Store {
  private data!: StoredData;
  private revisionIndex = new Map<string, { siteId: string; rev: StoredRevision }>();
  /** The large site, when enabled and not deleted during this run. */
  large: LargeData | undefined;
  /** The search-scale site, when enabled and not deleted during this run. */
  searchScale: SearchScaleData | undefined;
  /** Its twin (the compare of two sites), enabled with it. */
  searchScaleTwin: SearchScaleData | undefined;

  private readonly withLarge: boolean;
  private readonly withSearchScale: boolean;
  /** Fixed time the seed is dated from (tests); default: the time of seeding. */
  private readonly seedTime: number | undefined;

  constructor(
    readonly file: string,
    opts: { large?: boolean; searchScale?: boolean; seedTime?: number } = {},
  ) {
    this.withLarge = !!opts.large;
    this.withSearchScale = !!opts.searchScale;
    this.seedTime = opts.seedTime;
    if (fs.existsSync(file)) {
      this.data = Store.parse(fs.readFileSync(file, 'utf8'), file);
      this.reindex();
    } else {
      this.reseedData();
    }
    this.large = this.withLarge ? new LargeData() : undefined;
    this.searchScale = this.withSearchScale ? new SearchScaleData() : undefined;
    this.searchScaleTwin = this.withSearchScale ? new SearchScaleData({ twin: true }) : undefined;
  }

  /** The generated site with this id, if it is enabled. */
  private generated(id: string): GeneratedSite | undefined {
    if (this.large && id === this.large.site.id) return this.large;
    if (this.searchScale && id === this.searchScale.site.id) return this.searchScale;
    if (this.searchScaleTwin && id === this.searchScaleTwin.site.id) return this.searchScaleTwin;
    return undefined;
  }

  private static parse(text: string, file: string): StoredData {
    let d: StoredData;
    try {
      d = JSON.parse(text) as StoredData;
    } catch (err) {
      throw new Error(`The data file ${file} is not valid JSON (${(err as Error).message}); delete it (or use --reset) to seed again.`, { cause: err });
    }
    if (d?.format !== 'site-revisions-local-service' || d.version !== 1 || !Array.isArray(d.sites) || !Array.isArray(d.users)) {
      throw new Error(`The data file ${file} is not a data file of this service; delete it (or use --reset) to seed again.`);
    }
    d.files ??= {};
    return d;
  }

  /** Restores the seeded data (and the generated sites when enabled), and writes the file. */
  reseed(): void {
    this.reseedData();
    if (this.withLarge && !this.large) this.large = new LargeData();
    if (this.withSearchScale && !this.searchScale) this.searchScale = new SearchScaleData();
    if (this.withSearchScale && !this.searchScaleTwin) this.searchScaleTwin = new SearchScaleData({ twin: true });
  }

  private reseedData(): void {
    this.data = buildSeed(this.seedTime);
    this.reindex();
    this.persist();
  }

  private reindex(): void {
    this.revisionIndex.clear();
    for (const [siteId, files] of Object.entries(this.data.files)) {
      for (const f of files) for (const rev of f.revisions) this.revisionIndex.set(rev.id, { siteId, rev });
    }
  }

  /** Atomic write: a temp file in the same folder, then rename over the data file. */
  persist(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    try {
      fs.writeFileSync(tmp, JSON.stringify(this.data));
      fs.renameSync(tmp, this.file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }

  get users(): readonly StoredUser[] {
    return this.data.users;
  }

  /** Every site (the generated ones included), by id. */
  private allSites(): StoredSite[] {
    const extra = [this.large?.site, this.searchScale?.site, this.searchScaleTwin?.site].filter((s): s is StoredSite => !!s);
    return extra.length ? [...this.data.sites, ...extra] : this.data.sites;
  }

  site(id: string): StoredSite | undefined {
    return this.generated(id)?.site ?? this.data.sites.find((s) => s.id === id);
  }

  /** Sites the user owns or that were shared with the user, ordered by id. */
  visibleSites(userId: number): StoredSite[] {
    return this.allSites()
      .filter((s) => canRead(s, userId))
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** Reserves the next site id (skipping the generated sites' fixed ids). */
  private takeSiteId(): number {
    let id = this.data.nextSiteId++;
    while (GENERATED_SITE_IDS.has(id)) id = this.data.nextSiteId++;
    return id;
  }

  peekNextSiteId(): number {
    let id = this.data.nextSiteId;
    while (GENERATED_SITE_IDS.has(id)) id++;
    return id;
  }

  addSite(make: (id: number) => StoredSite): StoredSite {
    const site = make(this.takeSiteId());
    this.data.sites.push(site);
    this.data.sites.sort((a, b) => Number(a.id) - Number(b.id));
    this.persist();
    return site;
  }

  /** Call after changing a site object returned by site(). */
  siteChanged(site: StoredSite): void {
    if (this.generated(site.id)?.site === site) return; // in memory only
    this.persist();
  }

  deleteSite(id: string): void {
    const generated = this.generated(id);
    if (generated) {
      if (generated === this.large) this.large = undefined;
      else if (generated === this.searchScaleTwin) this.searchScaleTwin = undefined;
      else this.searchScale = undefined;
      return;
    }
    this.data.sites = this.data.sites.filter((s) => s.id !== id);
    for (const f of this.data.files[id] ?? []) for (const r of f.revisions) this.revisionIndex.delete(r.id);
    delete this.data.files[id];
    this.persist();
  }

  filePaths(siteId: string): string[] {
    const generated = this.generated(siteId);
    if (generated) return generated.paths;
    return (this.data.files[siteId] ?? []).map((f) => f.path);
  }

  /** Revisions of a file, oldest first ([] for an unknown path). */
  revisions(siteId: string, filePath: string, withContent: boolean): Array<Omit<StoredRevision, 'content'> & { content?: string }> {
    const generated = this.generated(siteId);
    if (generated) return generated.revisions(filePath, withContent) ?? [];
    const file: StoredFile | undefined = (this.data.files[siteId] ?? []).find((f) => f.path === filePath);
    if (!file) return [];
    return file.revisions.map((r) => (withContent ? { id: r.id, date: r.date, author: r.author, content: r.content } : { id: r.id, date: r.date, author: r.author }));
  }

  /**
   * A new revision of a file (the file is added when the site has none of that path), as a save
   * through the real service's client would store it: the next revision id, dated `date`.
   */
  /** `persist: false` keeps it in memory until the next write of the data file (many large revisions added in a row). */
  addRevision(siteId: string, filePath: string, content: string, author: string, date: string, persist = true): StoredRevision {
    if (this.generated(siteId) || !this.data.sites.some((s) => s.id === siteId)) throw new Error('Site not found');
    const files = (this.data.files[siteId] ??= []);
    let file = files.find((f) => f.path === filePath);
    if (!file) files.push((file = { path: filePath, revisions: [] }));
    const rev: StoredRevision = { id: String(this.data.nextRevisionId++), date, author, content };
    file.revisions.push(rev);
    this.revisionIndex.set(rev.id, { siteId, rev });
    if (persist) this.persist();
    return rev;
  }

  revision(siteId: string, id: string): StoredRevision | undefined {
    const generated = this.generated(siteId);
    if (generated) return generated.revision(id);
    const hit = this.revisionIndex.get(id);
    return hit && hit.siteId === siteId ? hit.rev : undefined;
  }
}

export function canRead(site: StoredSite, userId: number): boolean {
  return site.user === String(userId) || site.sharedWith.includes(userId);
}

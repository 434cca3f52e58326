// Persistence of the local service: one JSON file, written atomically (temp file + rename) after
// every change, loaded at start, seeded when missing. The large data set lives beside it in
// memory and is never written.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { LARGE_SITE_ID, LargeData } from './large';
import type { StoredData, StoredFile, StoredRevision, StoredSite, StoredUser } from './model';
import { buildSeed } from './seed';

export class Store {
  private data!: StoredData;
  private revisionIndex = new Map<string, { siteId: string; rev: StoredRevision }>();
  /** The large site, when enabled and not deleted during this run. */
  large: LargeData | undefined;

  constructor(
    readonly file: string,
    private readonly withLarge: boolean,
  ) {
    if (fs.existsSync(file)) {
      this.data = Store.parse(fs.readFileSync(file, 'utf8'), file);
      this.reindex();
    } else {
      this.reseedData();
    }
    this.large = withLarge ? new LargeData() : undefined;
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

  /** Restores the seeded data (and the large site when enabled), and writes the file. */
  reseed(): void {
    this.reseedData();
    if (this.withLarge && !this.large) this.large = new LargeData();
  }

  private reseedData(): void {
    this.data = buildSeed();
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

  /** Every site (the large one included), by id. */
  private allSites(): StoredSite[] {
    return this.large ? [...this.data.sites, this.large.site] : this.data.sites;
  }

  site(id: string): StoredSite | undefined {
    if (this.large && id === this.large.site.id) return this.large.site;
    return this.data.sites.find((s) => s.id === id);
  }

  /** Sites the user owns or that were shared with the user, ordered by id. */
  visibleSites(userId: number): StoredSite[] {
    return this.allSites()
      .filter((s) => canRead(s, userId))
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** Reserves the next site id (skipping the large site's fixed id). */
  private takeSiteId(): number {
    let id = this.data.nextSiteId++;
    if (id === LARGE_SITE_ID) id = this.data.nextSiteId++;
    return id;
  }

  peekNextSiteId(): number {
    return this.data.nextSiteId === LARGE_SITE_ID ? LARGE_SITE_ID + 1 : this.data.nextSiteId;
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
    if (this.large && site === this.large.site) return; // in memory only
    this.persist();
  }

  deleteSite(id: string): void {
    if (this.large && id === this.large.site.id) {
      this.large = undefined;
      return;
    }
    this.data.sites = this.data.sites.filter((s) => s.id !== id);
    for (const f of this.data.files[id] ?? []) for (const r of f.revisions) this.revisionIndex.delete(r.id);
    delete this.data.files[id];
    this.persist();
  }

  filePaths(siteId: string): string[] {
    if (this.large && siteId === this.large.site.id) return this.large.paths;
    return (this.data.files[siteId] ?? []).map((f) => f.path);
  }

  /** Revisions of a file, oldest first ([] for an unknown path). */
  revisions(siteId: string, filePath: string, withContent: boolean): Array<Omit<StoredRevision, 'content'> & { content?: string }> {
    if (this.large && siteId === this.large.site.id) return this.large.revisions(filePath, withContent) ?? [];
    const file: StoredFile | undefined = (this.data.files[siteId] ?? []).find((f) => f.path === filePath);
    if (!file) return [];
    return file.revisions.map((r) => (withContent ? { id: r.id, date: r.date, author: r.author, content: r.content } : { id: r.id, date: r.date, author: r.author }));
  }

  revision(siteId: string, id: string): StoredRevision | undefined {
    if (this.large && siteId === this.large.site.id) return this.large.revision(id);
    const hit = this.revisionIndex.get(id);
    return hit && hit.siteId === siteId ? hit.rev : undefined;
  }
}

export function canRead(site: StoredSite, userId: number): boolean {
  return site.user === String(userId) || site.sharedWith.includes(userId);
}

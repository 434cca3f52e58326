// A transfer site for the tests: a live test server opened as the extension would, a fresh mapped
// folder and a fresh account cache folder (last-seen state, kept copies), and a history source
// holding the "newest revisions" a test sets (the service's side of the base).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HistorySource, NewestInfo } from '../../../src/core/live/compare';
import { LastSeen } from '../../../src/core/live/lastSeen';
import type { LiveFs } from '../../../src/core/live/types';
import { Bases } from '../../../src/core/transfer/bases';
import { KeptCopies } from '../../../src/core/transfer/copies';
import { Transfers, type TransferSite } from '../../../src/core/transfer/transfer';
import type { LiveKind, LiveServers } from '../../live/servers';
import { namesOnDisk, openSite, serverSide, type ServerSide, type SiteOptions } from './liveSites';

/** Newest revisions set by the test: path → content. */
export class TestHistory implements HistorySource {
  readonly revisions = new Map<string, { id: string; content: Buffer }>();
  private n = 0;
  set(p: string, content: Buffer | string): string {
    const id = `r${++this.n}`;
    this.revisions.set(p, { id, content: Buffer.from(content) });
    return id;
  }
  async paths(): Promise<string[]> {
    return [...this.revisions.keys()];
  }
  async newest(p: string): Promise<NewestInfo | null> {
    const r = this.revisions.get(p);
    return r ? { revisionId: r.id, sha256: sha256(r.content), size: r.content.length } : null;
  }
}

export function sha256(b: Uint8Array | string): string {
  return createHash('sha256').update(b).digest('hex');
}

export interface TestSite {
  kind: LiveKind;
  live: LiveFs;
  server: ServerSide;
  local: string;
  cache: string;
  bases: Bases;
  lastSeen: LastSeen;
  copies: KeptCopies;
  history: TestHistory;
  tx: Transfers;
  /** A working file's bytes (undefined when missing). */
  readLocal(rel: string): Buffer | undefined;
  writeLocal(rel: string, bytes: Buffer | string): void;
  /** Opens the same site again as after a restart (state read back from the cache folder). */
  reopen(o?: Partial<TransferSite>): Promise<Transfers>;
  close(): Promise<void>;
}

const tmpRoots: string[] = [];

export async function openTestSite(servers: LiveServers, kind: LiveKind, o: SiteOptions & Partial<Pick<TransferSite, 'isUnsaved' | 'verify' | 'concurrency'>> & { maxBytes?: number } = {}): Promise<TestSite> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'srtx-'));
  tmpRoots.push(root);
  const local = path.join(root, 'mapped');
  const cache = path.join(root, 'account');
  fs.mkdirSync(local);
  const siteId = o.siteId ?? `site-${kind}`;
  const live = await openSite(servers, kind, { ...o, siteId });
  const bases = await Bases.load(Bases.fileFor(cache, siteId));
  const lastSeen = await LastSeen.load(LastSeen.fileFor(cache, siteId));
  const copies = await KeptCopies.open({ folder: KeptCopies.folderFor(cache), maxBytes: o.maxBytes ?? 64 * 1024 * 1024 });
  const history = new TestHistory();
  const make = (b: Bases, ls: LastSeen, cp: KeptCopies, extra: Partial<TransferSite> = {}) =>
    new Transfers({ live, siteId, localRoot: local, bases: b, lastSeen: ls, copies: cp, history, ...(o.isUnsaved ? { isUnsaved: o.isUnsaved } : {}), ...(o.verify ? { verify: o.verify } : {}), ...(o.concurrency ? { concurrency: o.concurrency } : {}), ...extra });
  const site: TestSite = {
    kind,
    live,
    server: serverSide(servers, kind),
    local,
    cache,
    bases,
    lastSeen,
    copies,
    history,
    tx: make(bases, lastSeen, copies),
    readLocal: (rel) => {
      const p = path.join(local, ...rel.split('/'));
      return fs.existsSync(p) ? fs.readFileSync(p) : undefined;
    },
    writeLocal: (rel, bytes) => {
      const p = path.join(local, ...rel.split('/'));
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, bytes);
    },
    reopen: async (extra) => make(await Bases.load(Bases.fileFor(cache, siteId)), await LastSeen.load(LastSeen.fileFor(cache, siteId)), await KeptCopies.open({ folder: KeptCopies.folderFor(cache), maxBytes: o.maxBytes ?? 64 * 1024 * 1024 }), extra),
    close: async () => {
      await live.close();
    },
  };
  return site;
}

/** Removes the tests' temporary folders (call in `after`). */
export function removeTestSites(): void {
  for (const r of tmpRoots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
}

/** Every name under a local folder (recursively); none when it is not there. */
export function localNames(dir: string): string[] {
  return fs.existsSync(dir) ? namesOnDisk(dir) : [];
}

/** Deterministic pseudo-random bytes. */
export function bytesOf(seed: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  let x = seed * 2654435761 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

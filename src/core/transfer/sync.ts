// Sync a folder (issue 34 §4), plain Node: first a plan — what would be uploaded, downloaded or
// deleted, and why — then one action that carries it out with the guard per file.
//
// Each path is placed by comparing both sides with its base (bases.ts; else the newest revision):
//   working file changed since the base (its hash differs)  → "changed locally"
//   live file changed since the base (guard.ts's rule: metadata, else the hash) → "changed live"
//   one side only, and no base says it was there           → "only local" / "only live"
//   one side only, and the base says it was there          → deleted on the other side since
// Both changed, differently: a conflict (listed; resolved one by one with the guard's choices).
// Deleting is off by default: a file deleted on one side is then listed and left alone. Direction
// 'upload' or 'download' leaves what would go the other way (listed). Modification times never
// decide anything (a server clock off by hours changes nothing). Hashes: the working files are
// read; a live file is read only when its metadata does not settle it (never for a file whose
// size and raw time are its base's).
import { createHash } from 'node:crypto';
import type { LiveEntry } from '../live/types';
import { baseOf, unchangedSince } from './guard';
import { compileExcludes, type Exclude } from './ignore';
import type { LocalFile } from './local';
import { emptyResult, finish, Progress, push, runAll, type Transfers } from './transfer';
import { TransferError, type BaseInfo, type FileOutcome, type FolderResult, type SkipReason, type TransferOptions } from './types';

export type SyncDirection = 'both' | 'upload' | 'download';

export type SyncAction = 'upload' | 'download' | 'delete-live' | 'delete-local' | 'conflict' | 'skip' | 'same';

export type SyncReason =
  | 'changed-locally'
  | 'changed-live'
  | 'only-local'
  | 'only-live'
  | 'deleted-locally'
  | 'deleted-live'
  | 'both-changed'
  | 'no-base'
  | 'unchanged'
  /** Both changed the same way (the same bytes on both sides). */
  | 'same-bytes'
  | SkipReason;

export interface SyncRow {
  path: string;
  action: SyncAction;
  reason: SyncReason;
  /** One line for the preview ("changed on the server since the last transfer; deleting is off"). */
  detail: string;
  local?: { size: number; sha256?: string };
  live?: { size?: number; mtimeRaw?: string; mtime?: number; etag?: string; sha256?: string };
  base: BaseInfo['from'];
}

export interface SyncOptions extends TransferOptions {
  /** The folder synced, root-relative ('' the whole mapped folder). */
  dir?: string;
  direction?: SyncDirection;
  /** Delete on one side what was deleted on the other since the base (default false). */
  deletes?: boolean;
  /** Exclusions (default compileExcludes(DEFAULT_EXCLUDES)). */
  exclude?: Exclude;
}

export interface SyncPlan {
  siteId: string;
  dir: string;
  direction: SyncDirection;
  deletes: boolean;
  rows: SyncRow[];
  counts: Record<SyncAction, number>;
  /** When it was made (epoch ms). */
  at: number;
  /** The live entries the plan saw, by path (runSync re-checks each against the server through the guard). */
  readonly seen: ReadonlyMap<string, LiveEntry>;
}

const hash = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Makes the plan (nothing is written). */
export async function planSync(tx: Transfers, o: SyncOptions = {}): Promise<SyncPlan> {
  const signal = o.signal ?? new AbortController().signal;
  const dir = o.dir ?? '';
  const direction = o.direction ?? 'both';
  const deletes = o.deletes === true;
  const exclude = o.exclude ?? compileExcludes();
  const prog = new Progress(o.onProgress);
  const progress = prog.p;
  prog.tell(true);
  const [local, live] = await Promise.all([tx.local.walk(dir, { exclude, signal }), tx.walkLive(dir, signal, exclude)]);
  const rows: SyncRow[] = [];
  for (const s of [...local.skipped, ...live.skipped]) rows.push({ path: s.path, action: 'skip', reason: s.reason, detail: s.detail, base: 'none' });
  const locals = new Map<string, LocalFile>(local.files.map((f) => [f.path, f]));
  const paths = [...new Set([...locals.keys(), ...live.files.keys()])].sort();
  progress.phase = 'checking';
  progress.files.total = paths.length;
  prog.tell(true);
  const { site } = tx;
  const protocol = site.live.endpoint.protocol;
  const liveHash = async (p: string, e: LiveEntry, base: BaseInfo, localSize?: number): Promise<string | undefined> => {
    if (base.from === 'last-seen' && site.verify !== 'content' && unchangedSince(e, base, protocol)) return base.sha256;
    const cached = site.lastSeen?.get(p);
    if (cached && site.verify !== 'content' && unchangedSince(e, cached, protocol)) return cached.sha256;
    // Changed, as its size says, and not the working file's bytes either (another size): no read needed.
    if (base.from !== 'none' && base.size !== undefined && e.size !== undefined && base.size !== e.size && localSize !== e.size) return undefined;
    const bytes = await site.live.readAll(p, { signal });
    const sum = hash(bytes);
    site.lastSeen?.set(p, e, sum, 'read');
    return sum;
  };
  await runAll(paths, Math.max(4, tx.concurrency), signal, async (p) => {
    const f = locals.get(p);
    const e = live.files.get(p);
    const livePath = e?.type === 'symlink' && e.link?.path ? e.link.path : p;
    const entry = e?.type === 'symlink' && e.link?.path ? ((await site.live.stat(livePath, { signal })) ?? e) : e;
    const base = await baseOf(livePath, site.bases, site.history, signal);
    // The working file's hash: the base's when its size and time are those recorded with it, else read.
    const localSha = f ? (site.verify !== 'content' ? site.bases.workingUnchanged(livePath, f) : undefined) ?? hash((await tx.local.readAll(f, signal)).bytes) : undefined;
    const row: SyncRow = {
      path: p,
      action: 'same',
      reason: 'unchanged',
      detail: '',
      base: base.from,
      ...(f ? { local: { size: f.size, ...(localSha ? { sha256: localSha } : {}) } } : {}),
      ...(entry ? { live: { ...(entry.size !== undefined ? { size: entry.size } : {}), ...(entry.mtimeRaw !== undefined ? { mtimeRaw: entry.mtimeRaw } : {}), ...(entry.mtime !== undefined ? { mtime: entry.mtime } : {}), ...(entry.etag !== undefined ? { etag: entry.etag } : {}) } } : {}),
    };
    const baseSha = base.from === 'none' ? undefined : base.sha256;
    if (f && entry) {
      const lsha = await liveHash(livePath, entry, base, f.size);
      if (lsha) row.live!.sha256 = lsha;
      if (lsha !== undefined && lsha === localSha) place(row, 'same', lsha === baseSha || base.from === 'none' ? 'unchanged' : 'same-bytes');
      else if (base.from === 'none') place(row, 'conflict', 'no-base');
      else {
        const localChanged = localSha !== baseSha;
        const liveChanged = lsha !== baseSha;
        if (localChanged && liveChanged) place(row, 'conflict', 'both-changed');
        else if (localChanged) place(row, direction === 'download' ? 'skip' : 'upload', 'changed-locally');
        else if (liveChanged) place(row, direction === 'upload' ? 'skip' : 'download', 'changed-live');
        else place(row, 'same', 'unchanged');
      }
    } else if (f) {
      // Only in the mapped folder.
      if (base.from === 'last-seen') {
        if (localSha !== baseSha) place(row, 'conflict', 'deleted-live');
        else place(row, deletes && direction !== 'upload' ? 'delete-local' : 'skip', 'deleted-live');
      } else place(row, direction === 'download' ? 'skip' : 'upload', 'only-local');
    } else if (entry) {
      // Only on the server.
      if (base.from === 'last-seen') {
        const lsha = await liveHash(livePath, entry, base);
        if (lsha) row.live!.sha256 = lsha;
        if (lsha !== baseSha) place(row, 'conflict', 'deleted-local');
        else place(row, deletes && direction !== 'download' ? 'delete-live' : 'skip', 'deleted-locally');
      } else place(row, direction === 'upload' ? 'skip' : 'download', 'only-live');
    }
    row.detail = detailOf(row, direction, deletes);
    rows.push(row);
    progress.files.done++;
    if (row.action === 'conflict') progress.conflicts++;
    prog.tell();
  });
  await site.lastSeen?.save().catch(() => undefined);
  rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const counts = { upload: 0, download: 0, 'delete-live': 0, 'delete-local': 0, conflict: 0, skip: 0, same: 0 } as Record<SyncAction, number>;
  for (const r of rows) counts[r.action]++;
  progress.phase = 'done';
  prog.tell(true);
  return { siteId: site.siteId, dir, direction, deletes, rows, counts, at: Date.now(), seen: live.files };
}

function place(row: SyncRow, action: SyncAction, reason: SyncReason): void {
  row.action = action;
  row.reason = reason;
}

function detailOf(r: SyncRow, direction: SyncDirection, deletes: boolean): string {
  const one = direction === 'upload' ? 'only uploads' : 'only downloads';
  switch (r.reason) {
    case 'changed-locally':
      return r.action === 'skip' ? `Changed in the mapped folder since the last transfer; this sync ${one}.` : 'Changed in the mapped folder since the last transfer.';
    case 'changed-live':
      return r.action === 'skip' ? `Changed on the server since the last transfer; this sync ${one}.` : 'Changed on the server since the last transfer.';
    case 'only-local':
      return r.action === 'skip' ? `Only in the mapped folder; this sync ${one}.` : 'Only in the mapped folder.';
    case 'only-live':
      return r.action === 'skip' ? `Only on the server; this sync ${one}.` : 'Only on the server.';
    case 'deleted-locally':
      return r.action === 'delete-live' ? 'Deleted from the mapped folder since the last transfer: deleted on the server too (its bytes are kept).' : `Deleted from the mapped folder since the last transfer; ${deletes ? `this sync ${one}` : 'deleting is off'}.`;
    case 'deleted-live':
      if (r.action === 'conflict') return 'Deleted on the server, and changed in the mapped folder, since the last transfer.';
      return r.action === 'delete-local' ? 'Deleted on the server since the last transfer: deleted from the mapped folder too (its bytes are kept).' : `Deleted on the server since the last transfer; ${deletes ? `this sync ${one}` : 'deleting is off'}.`;
    case 'both-changed':
      return 'Changed both in the mapped folder and on the server since the last transfer.';
    case 'no-base':
      return 'On both sides with other bytes, and never transferred from here (no revision either): which is newer is not known.';
    case 'same-bytes':
      return 'Changed the same way on both sides.';
    case 'unchanged':
      return 'The same on both sides.';
    default:
      return r.detail;
  }
}

/**
 * Carries out a plan: each row through the guard (a file that changed again since the plan is a
 * conflict, not overwritten); conflicts of the plan come back as conflicts with their choices;
 * deletes keep the bytes first. `only`: the rows the person kept in the preview (default all).
 */
export async function runSync(tx: Transfers, plan: SyncPlan, o: TransferOptions & { only?: readonly string[]; onFile?: (o: FileOutcome) => void } = {}): Promise<FolderResult> {
  const signal = o.signal ?? new AbortController().signal;
  const only = o.only && new Set(o.only);
  const rows = plan.rows.filter((r) => (!only || only.has(r.path)) && r.action !== 'same' && r.action !== 'skip');
  const result = emptyResult(o.onFile);
  const prog = new Progress(o.onProgress);
  prog.p.phase = 'transferring';
  prog.p.files.total = rows.length;
  prog.tell(true);
  try {
    await runAll(rows, tx.concurrency, signal, async (r) => {
      try {
        push(result, prog, await tx.settle(r.path, () => step(tx, r, signal)));
      } catch (e) {
        if (TransferError.from(e).kind !== 'cancelled') throw e;
        result.cancelled = true;
      }
    });
  } catch (e) {
    if (!signal.aborted && TransferError.from(e).kind !== 'cancelled') throw e;
  }
  if (signal.aborted) result.cancelled = true;
  await tx.saveState();
  return finish(result, prog);
}

async function step(tx: Transfers, r: SyncRow, signal: AbortSignal): Promise<FileOutcome> {
  switch (r.action) {
    case 'upload':
      return tx.upload(r.path, undefined, { signal, keepBase: false, why: 'sync-upload' });
    case 'download':
      return tx.download(r.path, undefined, { signal, keepBase: false });
    case 'delete-live':
      return tx.removeLive(r.path, undefined, 'sync-delete', signal);
    case 'delete-local':
      return tx.removeLocal(r.path, signal);
    case 'conflict':
      return tx.syncConflict(r.path, r.reason === 'deleted-live' || r.reason === 'deleted-local' || r.reason === 'both-changed' || r.reason === 'no-base' ? r.reason : 'both-changed', signal);
    default:
      throw new TransferError('server', 'local', `Nothing to do for ${r.path}.`, { next: 'Make the plan again.', path: r.path });
  }
}

/** The rows of a plan by what they would do (for the preview's groups). */
export function groupPlan(plan: SyncPlan): Record<SyncAction, SyncRow[]> {
  const g = { upload: [], download: [], 'delete-live': [], 'delete-local': [], conflict: [], skip: [], same: [] } as Record<SyncAction, SyncRow[]>;
  for (const r of plan.rows) g[r.action].push(r);
  return g;
}

// The six operations of the service, on already-authenticated requests. Each returns the JSON
// reply (always with `success`); errors are `{success:false, error}` with HTTP 200.

import { SAVE_SITE_FIELDS, SAVE_SITE_FLAG_FIELDS, SERVER_TYPES, SITE_STRING_FIELDS } from '../../src/core/api/types';
import { siteDefaults, type StoredSite, type StoredUser } from './model';
import { canRead, type Store } from './store';

export type Operation = 'getSites' | 'saveSite' | 'deleteSite' | 'getRevisionFiles' | 'getRevisions' | 'getRevision';
export const OPERATIONS: readonly Operation[] = ['getSites', 'saveSite', 'deleteSite', 'getRevisionFiles', 'getRevisions', 'getRevision'];

export type Reply = { success: boolean } & Record<string, unknown>;
const fail = (error: string): Reply => ({ success: false, error });

/** The operation a request asks for, from its path and merged parameters; undefined = unknown cmd. */
export function operationOf(route: 'sites' | 'revisions', params: Record<string, string>): Operation | undefined {
  if (route === 'sites') {
    const cmd = params.cmd ?? '';
    if (cmd === '') return 'getSites';
    if (cmd === 'save') return 'saveSite';
    if (cmd === 'delete') return 'deleteSite';
    return undefined;
  }
  if (params.revision !== undefined) return 'getRevision';
  if (params.file !== undefined) return 'getRevisions';
  return 'getRevisionFiles';
}

const isTrue = (v: string | undefined) => v === '1' || v === 'true';

export interface RunOptions {
  /**
   * Writes are checked and their reply computed, but nothing changes (used to build the reply of
   * a request whose reply is then cut by a `truncate` fault).
   */
  dryRun?: boolean;
  /** Save Site on an existing site replaces the record with exactly the fields received (see ServiceConfig). */
  saveReplaces?: boolean;
  /** Get Revision by id and Get Revisions by path alone, from any readable site (see ServiceConfig). */
  readsIgnoreSite?: boolean;
}

/** Runs one operation. */
export function runOperation(store: Store, op: Operation, params: Record<string, string>, user: StoredUser, o: RunOptions = {}): Reply {
  const dryRun = o.dryRun === true;
  switch (op) {
    case 'getSites':
      return { success: true, sites: store.visibleSites(user.id).map((s) => publicSite(store, s, user.id)) };
    case 'saveSite':
      return saveSite(store, params, user, dryRun, o.saveReplaces === true);
    case 'deleteSite':
      return deleteSite(store, params, user, dryRun);
    case 'getRevisionFiles': {
      const found = readableSite(store, params, user);
      if ('error' in found) return fail(found.error);
      return { success: true, files: store.filePaths(found.site.id) };
    }
    case 'getRevisions': {
      const found = readableSite(store, params, user);
      if ('error' in found) return fail(found.error);
      const file = params.file ?? '';
      if (file === '') return fail('Missing parameter: file');
      const from = o.readsIgnoreSite && !store.filePaths(found.site.id).includes(file) ? (store.visibleSites(user.id).find((s) => store.filePaths(s.id).includes(file)) ?? found.site) : found.site;
      return { success: true, revisions: store.revisions(from.id, file, !isTrue(params.no_content)) };
    }
    case 'getRevision': {
      const found = readableSite(store, params, user);
      if ('error' in found) return fail(found.error);
      const id = params.revision ?? '';
      if (id === '') return fail('Missing parameter: revision');
      const rev = store.revision(found.site.id, id) ?? (o.readsIgnoreSite ? store.visibleSites(user.id).map((s) => store.revision(s.id, id)).find((r) => r) : undefined);
      if (!rev) return fail('Revision not found');
      return { success: true, id: rev.id, content: rev.content };
    }
  }
}

function publicSite(store: Store, s: StoredSite, userId: number): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const f of SITE_STRING_FIELDS) out[f] = s[f] ?? '';
  // Decision: `user` (the spec's "owner reference") is the owner's email address, and `shared`
  // is true when the site belongs to another account that shared it with you.
  out.user = store.users.find((u) => String(u.id) === s.user)?.email ?? s.user;
  out.shared = s.user !== String(userId);
  return out;
}

type Found = { site: StoredSite } | { error: string };

function lookup(store: Store, raw: string | undefined): Found {
  if (raw === undefined || raw === '') return { error: 'Missing parameter: site' };
  const site = /^\d{1,12}$/.test(raw) ? store.site(String(Number(raw))) : undefined;
  return site ? { site } : { error: 'Site not found' };
}

function readableSite(store: Store, params: Record<string, string>, user: StoredUser): Found {
  const found = lookup(store, params.site);
  if ('site' in found && !canRead(found.site, user.id)) return { error: 'Permission denied' };
  return found;
}

function ownedSite(store: Store, raw: string | undefined, user: StoredUser): Found {
  const found = lookup(store, raw);
  if ('site' in found && found.site.user !== String(user.id)) return { error: 'Permission denied' };
  return found;
}

/** Checks the Save Site fields that were sent; returns the first problem, naming the field. */
export function validateSiteFields(params: Record<string, string>): string | undefined {
  const name = params.name;
  if (name === undefined || name.trim() === '') return 'Invalid name: a site name is required';
  if ([...name].length > 255) return 'Invalid name: at most 255 characters';
  const type = params.server_type;
  if (type !== undefined && !(SERVER_TYPES as readonly string[]).includes(type)) {
    return `Invalid server_type: must be one of ${SERVER_TYPES.join(', ')}`;
  }
  const port = params.port;
  if (port !== undefined && port !== '' && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return 'Invalid port: must be an integer from 1 to 65535';
  }
  for (const f of SAVE_SITE_FLAG_FIELDS) {
    const v = params[f];
    if (v !== undefined && v !== '0' && v !== '1') return `Invalid ${f}: must be 0 or 1`;
  }
  const logon = params.logon_type;
  if (logon !== undefined && logon !== '' && logon !== 'key') return 'Invalid logon_type: must be blank or "key"';
  return undefined;
}

/** Sets the fields that were sent; one not sent keeps its stored value, or with `replace` is emptied. */
function applyFields(site: StoredSite, params: Record<string, string>, replace = false): void {
  for (const f of SAVE_SITE_FIELDS) {
    const v = params[f];
    if (v === undefined) {
      if (replace) site[f] = '';
      continue;
    }
    site[f] = f === 'port' && v !== '' ? String(Number(v)) : v;
  }
}

function saveSite(store: Store, params: Record<string, string>, user: StoredUser, dryRun: boolean, replace: boolean): Reply {
  const isNew = isTrue(params.new);
  let existing: StoredSite | undefined;
  if (!isNew) {
    if (params.site === undefined || params.site === '') return fail('Missing site id');
    const found = ownedSite(store, params.site, user);
    if ('error' in found) return fail(found.error);
    existing = found.site;
  }
  const problem = validateSiteFields(params);
  if (problem) return fail(problem);

  if (existing) {
    if (!dryRun) {
      applyFields(existing, params, replace);
      store.siteChanged(existing);
    }
    return { success: true, site: Number(existing.id) };
  }
  if (dryRun) return { success: true, site: store.peekNextSiteId() };
  const created = store.addSite((id) => {
    const site = siteDefaults(id, user.id, params.server_type ?? 'FTP');
    applyFields(site, params);
    return site;
  });
  return { success: true, site: Number(created.id) };
}

function deleteSite(store: Store, params: Record<string, string>, user: StoredUser, dryRun: boolean): Reply {
  const found = ownedSite(store, params.site, user);
  if ('error' in found) return fail(found.error);
  if (!dryRun) store.deleteSite(found.site.id);
  return { success: true, site: Number(found.site.id) };
}

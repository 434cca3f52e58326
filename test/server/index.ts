// A faithful local implementation of the sites-and-revisions service (see
// ../../../shared/spec/site-revision-api.md and the project's decisions in docs/decisions.md): real HTTP
// on loopback, JSON persistence, seeded demo data, and switches for latency, faults and a large
// data set. Used by the unit, integration and benchmark tests and by `npm start`.

import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { authenticate } from './auth';
import { MAX_BODY_BYTES, parseForm, readBody } from './form';
import { OPERATIONS, operationOf, runOperation, type Operation, type Reply } from './operations';
import { Store } from './store';
import { formatDate } from './model';
import { SITE_STRING_FIELDS } from '../../src/core/api/types';

export type { Operation } from './operations';
export { DEMO } from './demo';

export type FaultKind = 'http500' | 'http500page' | 'http502' | 'http503' | 'http504' | 'http429' | 'http401' | 'redirect' | 'drop' | 'truncate' | 'html' | 'empty' | 'echo' | 'serviceError';
/** The kinds a random fault rate draws from by default. */
export const FAULT_KINDS: readonly FaultKind[] = ['http500', 'http502', 'http503', 'http504', 'http429', 'drop', 'truncate', 'html', 'empty'];
/**
 * Every kind, including those only on request (never drawn at random by default): `http401` (an
 * expired session), `redirect` (302 to a sign-in page, as a service URL that points at a website
 * gets), `echo` (a careless service whose error text quotes the request's site fields back,
 * passwords included; nothing is changed) and `serviceError` (HTTP 200 with `{success:false,
 * error}`: the service refuses in its own words, e.g. "Your subscription has expired") and
 * `http500page` (HTTP 500 with an HTML error page, as PHP or a web server sends on a crash).
 */
export const ALL_FAULT_KINDS: readonly FaultKind[] = [...FAULT_KINDS, 'http401', 'redirect', 'echo', 'serviceError', 'http500page'];

export interface FaultSpec {
  kind: FaultKind;
  /** Retry-After header (seconds) for 429/503 (default 0), or for another HTTP fault when set. */
  retryAfterSeconds?: number;
  /**
   * The `error` text of a fault that answers `{success:false, error}`: `serviceError`, and
   * `http500`, `http429`, `http401` (their default texts otherwise).
   */
  error?: string;
  /**
   * Only a request of this operation meets the fault (default: the next request, whatever it is).
   * A queued fault for another operation waits: the requests in between go through.
   */
  operation?: Operation;
}

export interface ServiceConfig {
  /** Time from every /api request to its reply (a read's reply is made during it, a write is carried out after it). */
  latencyMs?: number;
  /** The latency of these operations instead of `latencyMs` (e.g. `{"getRevisionFiles": 3000}`: a slow file list); `{}` clears them. */
  operationLatencyMs?: Partial<Record<Operation, number>>;
  /** 0..1, probability that a /api request gets a random fault from faultKinds. */
  faultRate?: number;
  /** Default: all kinds. */
  faultKinds?: FaultKind[];
  /** Queue: the next /api requests get these faults, in order (replaces the current queue). */
  failNext?: (FaultKind | FaultSpec)[];
  /**
   * Seed of the random faults (an integer): setting it restarts their sequence, so a failing run
   * can be replayed. Without one, the service picks a seed at start; `config` reports it.
   */
  seed?: number;
  /**
   * Answer the four reads exactly as the spec shows them: `{sites}`, `{files}`, `{revisions}`,
   * `{id, content}`, with no `success` field; a read that fails answers `{error}`. Writes keep
   * `success`, as the spec shows. Default false: every reply carries `success`, like the real service.
   */
  specShaped?: boolean;
  /**
   * Save Site on an existing site replaces the record with exactly the fields it received: a
   * field left out of the request is emptied (a service that does not keep omitted fields).
   * Default false: fields left out keep their stored value.
   */
  saveReplaces?: boolean;
  /**
   * Get Revision answers by the revision's id and Get Revisions by the file's path alone, from any
   * site the user can read, whatever site the request names (the named site's own file first): a
   * service the spec does not rule out (it does not say that the reads check the site). Default
   * false: a read finds only what belongs to the site it names.
   */
  readsIgnoreSite?: boolean;
  /**
   * Added verbatim at the end of every Get Sites list: entries with values the spec does not
   * allow (an object for a name, a list for an id…), to show how a client copes. Default none.
   */
  appendSites?: unknown[];
  /**
   * The service is down: every /api request's connection is closed at once, with no reply (as
   * when nothing listens: the client cannot reach it). The control endpoints still answer.
   */
  down?: boolean;
}

export interface ServiceOptions extends ServiceConfig {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 = a free port. */
  port?: number;
  /** JSON persistence; default: a fresh file in a new temp dir (removed on close). Seeded when missing. */
  dataFile?: string;
  /** Add the large data set (in memory only). */
  large?: boolean;
  /** Add the search-scale data set: 2,000 files × 20 revisions × 10 KB (in memory only; searchScale.ts). */
  searchScale?: boolean;
  /** The time the demo data is dated from when it is seeded (epoch ms); default: the time of seeding. */
  seedTime?: number;
  /** No per-request log lines. */
  quiet?: boolean;
}

export interface RequestRecord {
  method: string;
  /** Path + query as received (values of secret-looking query parameters replaced by ***). */
  url: string;
  operation?: Operation;
  /** 0 when the connection was dropped without a reply. */
  status: number;
  /** Names of the form-body fields, never their values. */
  bodyFields: string[];
  /** Whether an Authorization header was present. */
  authorization: boolean;
  fault?: FaultKind;
  /** Time until the reply was sent (or the connection cut). */
  ms: number;
  /** When the request arrived: epoch ms with sub-millisecond precision (performance.timeOrigin + now()), comparable across processes. */
  arrivedAt: number;
  /** The client closed the connection before the reply was sent (it aborted the request). */
  aborted?: boolean;
  /** Closed at once because the service was `down`. */
  down?: boolean;
}

export interface RunningService {
  /** e.g. http://127.0.0.1:41234 (the {base_url}). */
  url: string;
  port: number;
  dataFile: string;
  configure(c: ServiceConfig): void;
  requests(): RequestRecord[];
  count(op?: Operation): number;
  /** /api requests that have arrived and are not answered yet. */
  inFlight(): number;
  /** The most /api requests in flight at once since the start or the last resetStats(). */
  maxInFlight(): number;
  /** /api requests held back by the latency right now. */
  delayed(): number;
  resetStats(): void;
  /** Closes the server and all keep-alive sockets. */
  close(): Promise<void>;
}

const SECRET_QUERY_NAMES = new Set(['password', 'ftp_pass', 'db_password', 'apikey', 'api_key', 'key', 'token', 'access_token', 'authorization']);

/** The URL as received, with the values of secret-looking query parameters hidden. */
export function redactUrl(raw: string): string {
  const q = raw.indexOf('?');
  if (q < 0) return raw;
  const parts = raw
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const rawName = eq < 0 ? part : part.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        /* keep raw */
      }
      return SECRET_QUERY_NAMES.has(name.toLowerCase()) && eq >= 0 ? `${rawName}=***` : part;
    });
  return `${raw.slice(0, q)}?${parts.join('&')}`;
}

interface State {
  latencyMs: number;
  operationLatencyMs: Partial<Record<Operation, number>>;
  faultRate: number;
  faultKinds: FaultKind[];
  failNext: FaultSpec[];
  specShaped: boolean;
  saveReplaces: boolean;
  readsIgnoreSite: boolean;
  appendSites: unknown[];
  down: boolean;
  seed: number;
  /** The random faults' generator, from `seed`. */
  random: () => number;
}

/** A small seeded generator (mulberry32): the same seed, the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normalizeFault(f: FaultKind | FaultSpec): FaultSpec {
  const spec = typeof f === 'string' ? { kind: f } : f;
  if (!spec || !ALL_FAULT_KINDS.includes(spec.kind)) throw new Error(`Unknown fault kind: ${String(spec?.kind ?? f)}`);
  if (spec.retryAfterSeconds !== undefined && !(Number.isFinite(spec.retryAfterSeconds) && spec.retryAfterSeconds >= 0)) {
    throw new Error('retryAfterSeconds must be a number >= 0');
  }
  if (spec.error !== undefined && typeof spec.error !== 'string') throw new Error('error must be a string');
  if (spec.operation !== undefined && !OPERATIONS.includes(spec.operation)) throw new Error(`Unknown operation: ${String(spec.operation)}`);
  return { ...spec };
}

/** Applies a config change (only the keys that are set); throws on an invalid value. */
function applyConfig(state: State, c: ServiceConfig): void {
  if (c === null || typeof c !== 'object') throw new Error('config must be an object');
  const next = { ...state, failNext: [...state.failNext] };
  if (c.latencyMs !== undefined) {
    if (!(typeof c.latencyMs === 'number' && Number.isFinite(c.latencyMs) && c.latencyMs >= 0)) throw new Error('latencyMs must be a number >= 0');
    next.latencyMs = c.latencyMs;
  }
  if (c.operationLatencyMs !== undefined) {
    const o = c.operationLatencyMs;
    if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new Error('operationLatencyMs must be an object');
    for (const [op, ms] of Object.entries(o)) {
      if (!OPERATIONS.includes(op as Operation)) throw new Error(`Unknown operation: ${op}`);
      if (!(typeof ms === 'number' && Number.isFinite(ms) && ms >= 0)) throw new Error('each operationLatencyMs must be a number >= 0');
    }
    next.operationLatencyMs = { ...o };
  }
  if (c.faultRate !== undefined) {
    if (!(typeof c.faultRate === 'number' && c.faultRate >= 0 && c.faultRate <= 1)) throw new Error('faultRate must be a number from 0 to 1');
    next.faultRate = c.faultRate;
  }
  if (c.faultKinds !== undefined) {
    if (!Array.isArray(c.faultKinds)) throw new Error('faultKinds must be an array');
    next.faultKinds = c.faultKinds.length ? c.faultKinds.map((k) => normalizeFault(k).kind) : [...FAULT_KINDS];
  }
  if (c.failNext !== undefined) {
    if (!Array.isArray(c.failNext)) throw new Error('failNext must be an array');
    next.failNext = c.failNext.map(normalizeFault);
  }
  if (c.seed !== undefined) {
    if (!(typeof c.seed === 'number' && Number.isSafeInteger(c.seed) && c.seed >= 0)) throw new Error('seed must be a whole number >= 0');
    next.seed = c.seed;
    next.random = seededRandom(c.seed);
  }
  if (c.appendSites !== undefined) {
    if (!Array.isArray(c.appendSites)) throw new Error('appendSites must be an array');
    next.appendSites = structuredClone(c.appendSites);
  }
  for (const k of ['specShaped', 'saveReplaces', 'readsIgnoreSite', 'down'] as const) {
    if (c[k] === undefined) continue;
    if (typeof c[k] !== 'boolean') throw new Error(`${k} must be true or false`);
    next[k] = c[k];
  }
  Object.assign(state, next);
}

function publicConfig(state: State): Required<ServiceConfig> {
  return {
    latencyMs: state.latencyMs,
    operationLatencyMs: { ...state.operationLatencyMs },
    faultRate: state.faultRate,
    faultKinds: [...state.faultKinds],
    failNext: state.failNext.map((f) => ({ ...f })),
    seed: state.seed,
    specShaped: state.specShaped,
    saveReplaces: state.saveReplaces,
    readsIgnoreSite: state.readsIgnoreSite,
    appendSites: structuredClone(state.appendSites),
    down: state.down,
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The operations that change nothing. */
const READ_OPERATIONS: ReadonlySet<Operation> = new Set<Operation>(['getSites', 'getRevisionFiles', 'getRevisions', 'getRevision']);

/** A reply's JSON text, made ahead of sending it. */
function serialized(r: { status: number; body: unknown; headers?: http.OutgoingHttpHeaders }): { status: number; text: Buffer; headers: http.OutgoingHttpHeaders } {
  return { status: r.status, text: Buffer.from(JSON.stringify(r.body), 'utf8'), headers: r.headers ?? {} };
}
const HTML_TYPE = 'text/html; charset=utf-8';

function htmlPage(status: number, title: string, text: string): string {
  return `<!DOCTYPE html>\n<html>\n<head><title>${status} ${title}</title></head>\n<body>\n<center><h1>${status} ${title}</h1></center>\n<p>${text}</p>\n<hr><center>nginx</center>\n</body>\n</html>\n`;
}

/** Status, content type and body of the HTTP-status faults. */
const HTTP_FAULTS: Record<string, { status: number; type: string; body: string }> = {
  http500: { status: 500, type: JSON_TYPE, body: JSON.stringify({ success: false, error: 'Internal server error' }) },
  http500page: { status: 500, type: HTML_TYPE, body: htmlPage(500, 'Internal Server Error', 'The server encountered an internal error and was unable to complete your request.') },
  http502: { status: 502, type: HTML_TYPE, body: htmlPage(502, 'Bad Gateway', 'The upstream server sent an invalid response.') },
  http503: { status: 503, type: HTML_TYPE, body: htmlPage(503, 'Service Temporarily Unavailable', 'The service is down for maintenance.') },
  http504: { status: 504, type: HTML_TYPE, body: htmlPage(504, 'Gateway Time-out', 'The upstream server did not answer in time.') },
  http429: { status: 429, type: JSON_TYPE, body: JSON.stringify({ success: false, error: 'Too many requests' }) },
  http401: { status: 401, type: JSON_TYPE, body: JSON.stringify({ success: false, error: 'Login required' }) },
};

const READS: ReadonlySet<Operation> = new Set(['getSites', 'getRevisionFiles', 'getRevisions', 'getRevision']);

/** With `specShaped`, a read's reply as the spec shows it: without `success` (see ServiceConfig). */
function specShape(op: Operation, body: Reply): Record<string, unknown> {
  if (!READS.has(op)) return body;
  const { success: _success, ...rest } = body;
  return rest;
}

export async function startService(opts: ServiceOptions = {}): Promise<RunningService> {
  let tempDir: string | undefined;
  let dataFile = opts.dataFile;
  if (!dataFile) {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-service-'));
    dataFile = path.join(tempDir, 'service.json');
  }
  dataFile = path.resolve(dataFile);
  const store = new Store(dataFile, { large: opts.large, searchScale: opts.searchScale, seedTime: opts.seedTime });
  const quiet = !!opts.quiet;

  const startSeed = Math.floor(Math.random() * 2 ** 31);
  const state: State = { latencyMs: 0, operationLatencyMs: {}, faultRate: 0, faultKinds: [...FAULT_KINDS], failNext: [], seed: startSeed, random: seededRandom(startSeed), specShaped: false, saveReplaces: false, readsIgnoreSite: false, appendSites: [], down: false };
  /** Says which seed the random faults come from whenever they are switched on or reseeded. */
  const configure = (c: ServiceConfig): void => {
    const before = { rate: state.faultRate, seed: state.seed };
    applyConfig(state, c);
    if (!quiet && state.faultRate > 0 && (before.rate === 0 || before.seed !== state.seed || c.seed !== undefined)) {
      console.log(`[service] random faults at rate ${state.faultRate} from seed ${state.seed} (replay: --seed ${state.seed}, or config {"seed": ${state.seed}})`);
    }
  };
  configure(opts);
  let log: RequestRecord[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const counts = (): Record<Operation, number> => {
    const c = Object.fromEntries(OPERATIONS.map((o) => [o, 0])) as Record<Operation, number>;
    for (const r of log) if (r.operation) c[r.operation]++;
    return c;
  };

  const pickFault = (op: Operation | undefined): FaultSpec | undefined => {
    const at = state.failNext.findIndex((f) => f.operation === undefined || f.operation === op);
    if (at >= 0) return state.failNext.splice(at, 1)[0];
    if (state.faultRate > 0 && state.random() < state.faultRate && state.faultKinds.length) {
      return { kind: state.faultKinds[Math.floor(state.random() * state.faultKinds.length)] };
    }
    return undefined;
  };

  const shaped = (op: Operation, body: Reply): Record<string, unknown> => {
    const b = op === 'getSites' && state.appendSites.length && Array.isArray(body.sites) ? { ...body, sites: [...(body.sites as unknown[]), ...structuredClone(state.appendSites)] } : body;
    return state.specShaped ? specShape(op, b) : b;
  };

  function sendJson(res: http.ServerResponse, status: number, body: unknown, extra: http.OutgoingHttpHeaders = {}): void {
    sendText(res, status, Buffer.from(JSON.stringify(body), 'utf8'), extra);
  }

  function sendText(res: http.ServerResponse, status: number, text: Buffer, extra: http.OutgoingHttpHeaders = {}): void {
    res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': text.length, 'Cache-Control': 'no-store', ...extra });
    res.end(text);
  }

  // ---- control endpoints (no auth, no faults, no latency, not counted)
  async function control(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
    const name = pathname.slice('/__control/'.length).replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST') return sendJson(res, 405, { success: false, error: 'Method not allowed' }, { Allow: 'GET, POST' });
    const read = await readBody(req, 1024 * 1024);
    if (!read.ok) {
      if (read.reason === 'too-large') sendJson(res, 413, { success: false, error: 'Request body too large' }, { Connection: 'close' });
      return;
    }
    switch (name) {
      case 'health':
        return sendJson(res, 200, { success: true });
      case 'stats':
        return sendJson(res, 200, { success: true, requests: log, counts: counts(), inFlight, maxInFlight });
      case 'reset-stats':
        log = [];
        maxInFlight = inFlight;
        return sendJson(res, 200, { success: true });
      case 'reseed':
        store.reseed();
        return sendJson(res, 200, { success: true });
      case 'add-revision': {
        // A save of a file on the service ({siteId, path, content, author?, date?: ms or 'YYYY-MM-DD HH:MM:SS', persist?: false to leave the data file for the next write}), e.g. by a colleague.
        try {
          const b = JSON.parse(read.body.toString('utf8')) as { siteId: string; path: string; content: string; author?: string; date?: number | string; persist?: boolean };
          if (typeof b.siteId !== 'string' || typeof b.path !== 'string' || typeof b.content !== 'string') throw new Error('siteId, path and content are required');
          const date = typeof b.date === 'string' ? b.date : formatDate(typeof b.date === 'number' ? b.date : Date.now());
          const rev = store.addRevision(b.siteId, b.path, b.content, b.author ?? 'colleague@example.com', date, b.persist !== false);
          return sendJson(res, 200, { success: true, id: rev.id, date: rev.date });
        } catch (err) {
          return sendJson(res, 400, { success: false, error: (err as Error).message });
        }
      }
      case 'site-fields': {
        // A site's stored fields set as they are ({siteId, fields: {name: value}}), as another client
        // or the web front end may have stored them (e.g. `upload_on_save`, which Save Site does not take).
        try {
          const b = JSON.parse(read.body.toString('utf8')) as { siteId?: unknown; fields?: Record<string, unknown> };
          const site = typeof b.siteId === 'string' ? store.site(b.siteId) : undefined;
          if (!site || !b.fields || typeof b.fields !== 'object') throw new Error('siteId of a stored site and fields are required');
          for (const [k, v] of Object.entries(b.fields)) {
            if (!(SITE_STRING_FIELDS as readonly string[]).includes(k) || k === 'id' || typeof v !== 'string') throw new Error(`not a site string field: ${k}`);
            (site as unknown as Record<string, string>)[k] = v;
          }
          store.siteChanged(site);
          return sendJson(res, 200, { success: true });
        } catch (err) {
          return sendJson(res, 400, { success: false, error: (err as Error).message });
        }
      }
      case 'config': {
        if (method === 'POST' && read.body.length) {
          try {
            configure(JSON.parse(read.body.toString('utf8')) as ServiceConfig);
          } catch (err) {
            return sendJson(res, 400, { success: false, error: (err as Error).message });
          }
        }
        return sendJson(res, 200, { success: true, config: publicConfig(state) });
      }
      default:
        return sendJson(res, 404, { success: false, error: 'Not found' });
    }
  }

  // ---- the service
  async function api(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const start = performance.now();
    const rec: RequestRecord = {
      method: req.method ?? 'GET',
      url: redactUrl(req.url ?? '/'),
      status: 0,
      bodyFields: [],
      authorization: req.headers.authorization !== undefined,
      ms: 0,
      arrivedAt: performance.timeOrigin + start,
    };
    // The record is added before the reply is sent, so it is there when the client sees the reply.
    let recorded = false;
    const record = (status: number) => {
      if (recorded) return;
      recorded = true;
      rec.status = status;
      rec.ms = Math.round((performance.now() - start) * 10) / 10;
      log.push(rec);
      if (!quiet) {
        const info = [rec.operation, rec.fault && `fault=${rec.fault}`].filter(Boolean).join(' ');
        console.log(`[service] ${rec.method} ${rec.url} ${status || 'dropped'}${info ? ` ${info}` : ''} ${rec.ms}ms`);
      }
    };
    const reply = (status: number, body: unknown, extra: http.OutgoingHttpHeaders = {}) => {
      record(status);
      sendJson(res, status, body, extra);
    };
    if (state.down) {
      rec.down = true;
      record(0);
      req.socket.destroy();
      return;
    }
    // The client went away before its reply (it aborted): the record says so. It is added when
    // the handler is done, as for every request (a write is still carried out, as a real service would).
    res.once('close', () => {
      if (!res.writableFinished && !recorded) rec.aborted = true;
    });

    const read = await readBody(req);
    if (!read.ok) {
      if (read.reason === 'too-large') {
        reply(413, { success: false, error: `Request body too large (limit ${MAX_BODY_BYTES / 1024 / 1024} MB)` }, { Connection: 'close' });
      } else {
        record(0);
      }
      return;
    }
    const form = parseForm(read.body, req.headers['content-type']);
    if (form.ok) rec.bodyFields = [...form.fields.keys()];

    // Parameters: query string, then the form body (the body wins, as in PHP's $_REQUEST).
    const params: Record<string, string> = {};
    for (const [k, v] of url.searchParams) params[k] = v;
    const body: Record<string, string> = {};
    if (form.ok) for (const [k, v] of form.fields) body[k] = params[k] = v;

    const pathname = url.pathname.replace(/\/+$/, '');
    const route = pathname === '/api/sites' ? 'sites' : pathname === '/api/revisions' ? 'revisions' : undefined;
    if (route) rec.operation = operationOf(route, params);

    const fault = pickFault(rec.operation);
    if (fault) rec.fault = fault.kind;

    // What the request would get without a fault (computed lazily; never for writes unless dry-run).
    const respond = (dryRun: boolean): { status: number; body: Record<string, unknown>; headers?: http.OutgoingHttpHeaders } => {
      const method = req.method ?? 'GET';
      if (method !== 'GET' && method !== 'POST') return { status: 405, body: { success: false, error: 'Method not allowed' }, headers: { Allow: 'GET, POST' } };
      if (!route) return { status: 404, body: { success: false, error: `Not found: ${url.pathname}` } };
      if (!form.ok) return { status: 415, body: { success: false, error: form.error } };
      const auth = authenticate(store.users, body, req.headers.authorization);
      if (!auth.ok) return { status: 401, body: { success: false, error: auth.error } };
      if (!rec.operation) return { status: 200, body: { success: false, error: `Unknown cmd: ${params.cmd}` } };
      return { status: 200, body: shaped(rec.operation, runOperation(store, rec.operation, params, auth.user, { dryRun, saveReplaces: state.saveReplaces, readsIgnoreSite: state.readsIgnoreSite })) };
    };

    // The latency is the time from a request to its reply. A read's reply is produced while it
    // runs, as on a service whose own machines answer during the network's round trip: otherwise
    // this single-threaded process would add each reply's serialization (about 1 ms per 200 KB)
    // to every concurrent request's latency, and concurrent clients would measure its queue.
    // Writes are carried out after it, as before (a client that gives up during the latency
    // still finds its write made, as with a real service).
    const delayFrom = performance.now();
    const latencyMs = (rec.operation !== undefined ? state.operationLatencyMs[rec.operation] : undefined) ?? state.latencyMs;
    const early = !fault && latencyMs > 0 && rec.operation !== undefined && READ_OPERATIONS.has(rec.operation) ? serialized(respond(false)) : undefined;
    await delay(Math.max(0, latencyMs - (performance.now() - delayFrom)));
    if (closing) return;
    if (early) {
      record(early.status);
      sendText(res, early.status, early.text, early.headers);
      return;
    }

    if (fault) {
      const retryAfter = fault.retryAfterSeconds ?? (fault.kind === 'http429' || fault.kind === 'http503' ? 0 : undefined);
      const httpFault = HTTP_FAULTS[fault.kind] && {
        ...HTTP_FAULTS[fault.kind]!,
        ...(fault.error !== undefined && HTTP_FAULTS[fault.kind]!.type === JSON_TYPE ? { body: JSON.stringify({ success: false, error: fault.error }) } : {}),
      };
      if (httpFault) {
        record(httpFault.status);
        res.writeHead(httpFault.status, {
          'Content-Type': httpFault.type,
          'Content-Length': Buffer.byteLength(httpFault.body),
          'Cache-Control': 'no-store',
          ...(retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {}),
        });
        res.end(httpFault.body);
        return;
      }
      switch (fault.kind) {
        case 'drop':
          record(0);
          req.socket.destroy();
          return;
        case 'truncate': {
          // A valid reply cut in half: the full Content-Length is announced, half is sent, and the
          // connection is cut. Writes are not carried out (dry run).
          const { status, text, headers } = serialized(respond(true));
          record(status);
          res.writeHead(status, { 'Content-Type': JSON_TYPE, 'Content-Length': text.length, 'Cache-Control': 'no-store', ...headers });
          res.write(text.subarray(0, Math.floor(text.length / 2)), () => req.socket.destroy());
          return;
        }
        case 'html': {
          const page = htmlPage(200, 'OK', 'Fatal error: Allowed memory size exhausted in /var/www/api/index.php on line 42');
          record(200);
          res.writeHead(200, { 'Content-Type': HTML_TYPE, 'Content-Length': Buffer.byteLength(page), 'Cache-Control': 'no-store' });
          res.end(page);
          return;
        }
        case 'echo': {
          const quoted = ['ftp_user', 'ftp_pass', 'db_username', 'db_password'].map((k) => body[k]).filter(Boolean).join(' / ');
          reply(200, { success: false, error: `Could not connect to ${body.domain ?? 'the server'} with ${quoted || 'no credentials'}` });
          return;
        }
        case 'serviceError':
          reply(200, { success: false, error: fault.error ?? 'The service could not do that' });
          return;
        case 'redirect': {
          const page = htmlPage(302, 'Found', 'This page has moved to the sign-in page.');
          record(302);
          res.writeHead(302, { Location: '/login?next=%2Fapi', 'Content-Type': HTML_TYPE, 'Content-Length': Buffer.byteLength(page), 'Cache-Control': 'no-store' });
          res.end(page);
          return;
        }
        case 'empty':
          record(200);
          res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': 0, 'Cache-Control': 'no-store' });
          res.end();
          return;
      }
    }

    const r = respond(false);
    reply(r.status, r.body, r.headers);
  }

  // Requests in flight: from arrival until the handler is done (the reply sent or the connection cut).
  const counted = (p: Promise<void>): Promise<void> => {
    inFlight++;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    return p.finally(() => inFlight--);
  };

  const server = http.createServer({ keepAlive: true, requestTimeout: 0 }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const handler = url.pathname.startsWith('/__control/') ? control(req, res, url.pathname) : counted(api(req, res, url));
    handler.catch((err: unknown) => {
      if (!quiet) console.error(`[service] internal error: ${(err as Error)?.stack ?? String(err)}`);
      if (!res.headersSent && !res.destroyed) sendJson(res, 500, { success: false, error: `Internal error: ${(err as Error)?.message ?? 'unknown'}` });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 10_000;
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const hostForUrl = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address;
  const url = `http://${hostForUrl}:${addr.port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    port: addr.port,
    dataFile,
    configure,
    requests: () => log.map((r) => ({ ...r, bodyFields: [...r.bodyFields] })),
    count: (op?: Operation) => (op ? log.filter((r) => r.operation === op).length : log.length),
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    delayed: () => timers.size,
    resetStats() {
      log = [];
      maxInFlight = inFlight;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => {
          if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
          resolve();
        });
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      return closed;
    },
  };
}

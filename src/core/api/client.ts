// The sites-and-revisions service client (see /work/shared/spec/site-revision-api.md).
//
// Every request is a POST with a form body carrying login=1, email, password and the operation's
// fields; operation parameters that the spec shows in the query string go there, percent-encoded.
// Reads retry on 429/502/503/504 and dropped connections, within the call's one time-out (waits
// included: a Retry-After that would outlast it ends the call); writes never retry. Nothing this
// client returns, throws or logs contains the password or the API key.

import { ApiError, AuthError, CancelledError, HttpStatusError, InsecureTransportError, NetworkError, type ApiErrorKind } from './errors';
import type { ProxyResolver } from './agents';
import { HttpTransport, type Exchange } from './http';
import type { RequestScheduler, SharedCall } from '../scheduler/scheduler';
import { SAVE_SITE_EXTRA_FIELDS, SAVE_SITE_FIELDS, SAVE_SITE_INT_FIELDS, SITE_SECRET_FIELDS, type CallOptions, type Credentials, type ListIssues, type ListReply, type Revision, type RevisionSummary, type SaveSiteResult, type Site, type SiteFields } from './types';
import { MAX_REPLY_BYTES } from './limits';
import { requireServiceUrl, serviceTarget } from './url';
import { excerpt, parseEnvelope, READ_PAYLOADS, toFiles, toRevision, toRevisions, toSaveResult, toSites } from './validate';
import { makeRedactor, type Redactor } from '../util/redact';

export interface ClientOptions {
  /** {base_url}, e.g. https://host, https://host/app or http://127.0.0.1:8787. */
  baseUrl: string;
  /** Read on every call (SecretStorage behind it). undefined = signed out → AuthError, no request. */
  credentials: () => Credentials | undefined | Promise<Credentials | undefined>;
  /** Of each call, retries and waits included (default 30 000). */
  timeoutMs?: number;
  /** Retries of reads, default 3. Writes never retry. */
  retries?: number;
  /** Backoff base, default 250 ms (doubles per attempt, with jitter). */
  retryBaseDelayMs?: number;
  /** Default MAX_REPLY_BYTES (64 MiB); larger replies fail with InvalidReplyError "reply too large". */
  maxResponseBytes?: number;
  /** Extra PEM CA certificate(s) trusted besides the default ones. */
  ca?: string;
  /** Trust the operating system's certificate store too (default false; the extension's setting defaults to true). */
  systemCertificates?: boolean;
  /** Told once, on the first https connection, which certificate stores are trusted (for the log). */
  onTrust?: (stores: readonly string[]) => void;
  /** Default true. */
  rejectUnauthorized?: boolean;
  /** An undici Dispatcher used instead of the client's own Agent (e.g. a ProxyAgent). Not closed by dispose(). */
  dispatcher?: unknown;
  /**
   * Asked on every request for the proxy to go through (undefined = direct); the client builds an
   * undici ProxyAgent for it on first use. Ignored when `dispatcher` is given. See src/core/net/proxy.ts.
   */
  proxy?: ProxyResolver;
  /** One event per attempt, for the log. */
  onEvent?: (e: RequestEvent) => void;
  /**
   * The extension's one request scheduler (src/core/scheduler): each attempt waits for a slot to the
   * origin (CallOptions.priority), identical concurrent reads share one request, and a 429/503
   * with Retry-After holds every request to the origin. Without it, requests go out at once.
   * The time-out of an attempt runs from the moment it has its slot (waiting is ended by the
   * caller's signal, not by the time-out); RequestEvent.ms does not count the wait either.
   */
  scheduler?: RequestScheduler;
}

/** One attempt of one request, for the log. Never carries credentials or request bodies. */
export interface RequestEvent {
  /** e.g. "Get Sites". */
  operation: string;
  method: 'POST';
  /** origin + path + query (the query holds only site / file / revision ids). */
  url: string;
  /** 1 for the first try; 0 when the call was refused before any request (signed out, insecure URL, already cancelled). */
  attempt: number;
  /** HTTP status, when headers arrived. */
  status?: number;
  /** Duration of this attempt in milliseconds. */
  ms: number;
  /** ok; retry (failed, another attempt follows after retryInMs); error (the call fails). */
  outcome: 'ok' | 'retry' | 'error';
  errorKind?: ApiErrorKind;
  /** The error's message (already free of secrets). */
  error?: string;
  retryInMs?: number;
  /** The proxy the attempt went through (scheme://host:port, never its credentials). */
  via?: string;
  /** A list read whose reply had entries or values that could not be used (see ListReply). */
  issues?: ListIssues;
}

/** Display names of the operations (used in messages and events). */
export const OPERATIONS = {
  getSites: 'Get Sites',
  saveSite: 'Save Site',
  deleteSite: 'Delete Site',
  getRevisionFiles: 'Get Revision Files',
  getRevisions: 'Get Revisions',
  getRevision: 'Get Revision',
} as const;

const SITE_SECRETS: ReadonlySet<string> = new Set(SITE_SECRET_FIELDS);

/** Longest wait a Retry-After header can impose between two attempts. */
export const MAX_RETRY_AFTER_MS = 30_000;

interface RequestSpec {
  operation: string;
  path: string;
  query: [string, string][];
  form: [string, string][];
  /** Reads may be retried; writes never are. */
  read: boolean;
  /** The field a read answers with (see parseEnvelope); undefined for a write. */
  payload?: string;
}

/** What a call derives from the credentials (see authOf). */
interface Auth {
  /** Tells one set of credentials from the next (requests of different accounts are never shared). */
  serial: number;
  email: string;
  password: string;
  rawApiKey: string | undefined;
  /** The API key as sent (trimmed; undefined when empty). */
  apiKey: string | undefined;
  /** login=1&email=…&password=…, form-encoded: the start of every request body. */
  form: string;
  /** Hides the password and the API key (raw and encoded) in messages. */
  redact: Redactor;
}

export class SiteRevisionClient {
  /** The normalized base URL (no credentials, query or fragment). */
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly prefix: string;
  /** Plain http to a host other than this machine: every call is refused before anything is sent. */
  private readonly insecure: boolean;
  private readonly transport: HttpTransport;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseDelayMs: number;
  /** The last credentials' derived values (a # field: never shown by util.inspect or JSON.stringify). */
  #auth: Auth | undefined;

  constructor(private readonly opts: ClientOptions) {
    const base = requireServiceUrl(opts.baseUrl);
    this.origin = base.origin;
    this.prefix = base.prefix;
    this.baseUrl = base.base;
    this.insecure = base.insecure;
    this.timeoutMs = positive('timeoutMs', opts.timeoutMs, 30_000);
    this.retries = Math.floor(nonNegative('retries', opts.retries, 3));
    this.retryBaseDelayMs = nonNegative('retryBaseDelayMs', opts.retryBaseDelayMs, 250);
    this.transport = new HttpTransport({
      maxResponseBytes: positive('maxResponseBytes', opts.maxResponseBytes, MAX_REPLY_BYTES),
      ca: opts.ca,
      systemCertificates: opts.systemCertificates ?? false,
      onTrust: opts.onTrust,
      rejectUnauthorized: opts.rejectUnauthorized ?? true,
      dispatcher: opts.dispatcher,
      proxy: opts.proxy,
    });
  }

  /** Get Sites. */
  getSites(o?: CallOptions): Promise<ListReply<Site>> {
    const op = OPERATIONS.getSites;
    return this.call({ operation: op, path: '/api/sites', query: [], form: [], read: true, payload: READ_PAYLOADS.getSites }, o, (j, r) => toSites(op, j, r));
  }

  /** Save Site with new=1. On success the reply's `site` is the new id ('' if the service sent none). */
  async createSite(fields: SiteFields, o?: CallOptions): Promise<SaveSiteResult> {
    const op = OPERATIONS.saveSite;
    const form: [string, string][] = [['new', '1'], ...siteForm(fields)];
    return this.call({ operation: op, path: '/api/sites', query: [['cmd', 'save']], form, read: false }, o, (j, r) => toSaveResult(op, j, '', r));
  }

  /** Save Site with site=<id>. Fields left undefined are not sent (the service keeps them). */
  async updateSite(siteId: string, fields: SiteFields, o?: CallOptions): Promise<SaveSiteResult> {
    const op = OPERATIONS.saveSite;
    const id = requireText('siteId', siteId);
    const form: [string, string][] = [['site', id], ...siteForm(fields)];
    return this.call({ operation: op, path: '/api/sites', query: [['cmd', 'save']], form, read: false }, o, (j, r) => toSaveResult(op, j, id, r));
  }

  /** Delete Site (the site id goes in the form body, like the spec's sample). */
  async deleteSite(siteId: string, o?: CallOptions): Promise<void> {
    const op = OPERATIONS.deleteSite;
    const id = requireText('siteId', siteId);
    await this.call({ operation: op, path: '/api/sites', query: [['cmd', 'delete']], form: [['site', id]], read: false }, o, () => undefined);
  }

  /** Get Revision Files: paths with stored revisions, in the service's order. */
  async getRevisionFiles(siteId: string, o?: CallOptions): Promise<ListReply<string>> {
    const op = OPERATIONS.getRevisionFiles;
    const id = requireText('siteId', siteId);
    return this.call({ operation: op, path: '/api/revisions', query: [['site', id]], form: [['site', id]], read: true, payload: READ_PAYLOADS.getRevisionFiles }, o, (j, r) => toFiles(op, j, r));
  }

  /**
   * Get Revisions of one file, in the service's order. Asks with no_content=1 unless `withContent`;
   * content the service sends anyway is kept.
   */
  async getRevisions(siteId: string, file: string, o?: CallOptions & { withContent?: boolean }): Promise<ListReply<RevisionSummary>> {
    const op = OPERATIONS.getRevisions;
    const id = requireText('siteId', siteId);
    const path = requireText('file', file);
    const query: [string, string][] = [['site', id], ['file', path], ['no_content', o?.withContent ? '0' : '1']];
    return this.call({ operation: op, path: '/api/revisions', query, form: [], read: true, payload: READ_PAYLOADS.getRevisions }, o, (j, r) => toRevisions(op, j, r));
  }

  /** Get Revision. */
  async getRevision(siteId: string, revisionId: string, o?: CallOptions): Promise<Revision> {
    const op = OPERATIONS.getRevision;
    const id = requireText('siteId', siteId);
    const rev = requireText('revisionId', revisionId);
    return this.call({ operation: op, path: '/api/revisions', query: [['site', id], ['revision', rev]], form: [], read: true, payload: READ_PAYLOADS.getRevision }, o, (j, r) => toRevision(op, j, r));
  }

  /** Closes the client's Agent (not a dispatcher given in the options). A later call opens a new one. */
  dispose(): Promise<void> {
    this.#auth = undefined;
    return this.transport.close();
  }

  /** `shared`: this is the one request that share() runs for every caller of an identical read (see below). */
  private async call<T>(spec: RequestSpec, o: CallOptions | undefined, parse: (json: Record<string, unknown>, redact: Redactor) => T, shared?: SharedCall): Promise<T> {
    const { operation } = spec;
    const signal = o?.signal;
    const timeoutMs = positive('timeoutMs', o?.timeoutMs, this.timeoutMs);
    const { origin } = this;
    const target = serviceTarget(this.prefix, spec.path, spec.query);
    const url = `${origin}${target}`;

    // Refusals before any request is sent are logged as attempt 0.
    const refuse = (err: ApiError): never => {
      this.emit({ operation, method: 'POST', url, attempt: 0, ms: 0, outcome: 'error', errorKind: err.kind, error: err.message });
      throw err;
    };
    if (signal?.aborted) refuse(new CancelledError(operation));
    // Before anything else (even reading the credentials): no connection is made.
    if (this.insecure) refuse(new InsecureTransportError(operation, origin));
    let creds: Credentials | undefined;
    try {
      creds = await this.opts.credentials();
    } catch {
      return refuse(new AuthError(operation, 'the stored credentials could not be read'));
    }
    if (!creds || !creds.email) return refuse(new AuthError(operation, 'not signed in'));
    const auth = this.authOf(creds);
    const { apiKey } = auth;
    // A site password sent with Save Site is hidden too, wherever the service quotes it back
    // (its error text, an error page, the event for the log).
    const siteSecrets = spec.form.filter(([k]) => SITE_SECRETS.has(k)).map(([, v]) => v);
    const redact = siteSecrets.length ? makeRedactor([creds.password, creds.apiKey, apiKey, ...siteSecrets]) : auth.redact;
    if (apiKey && /[^\x21-\x7e]/.test(apiKey)) refuse(new AuthError(operation, 'the API key contains characters that cannot be sent'));
    if (signal?.aborted) refuse(new CancelledError(operation));

    const fields = spec.form.length ? new URLSearchParams(spec.form).toString() : '';
    const body = fields ? `${auth.form}&${fields}` : auth.form;
    const maxAttempts = spec.read ? 1 + this.retries : 1;
    const maxResponseBytes = o?.maxResponseBytes === undefined ? undefined : positive('maxResponseBytes', o.maxResponseBytes, 0);
    const { scheduler } = this.opts;
    const priority = o?.priority ?? 'user';
    if (scheduler && spec.read && !shared) {
      // Identical reads in flight share one request (same account, operation, target and size
      // limit), which runs with a signal that aborts once every caller has aborted.
      const key = `${auth.serial}\n${operation}\n${target}\n${fields}\n${maxResponseBytes ?? ''}`;
      const cancelled = () => new CancelledError(operation);
      return scheduler.share(key, signal ? { priority, signal, cancelled } : { priority }, (call) => this.call(spec, { ...o, signal: call.signal }, parse, call));
    }
    // One budget for the whole call: every attempt and every wait before a retry comes out of it.
    // It starts when the call first gets a slot (time queued behind other requests is not the
    // service's time).
    let deadline: number | undefined;

    for (let attempt = 1; ; attempt++) {
      let release: (() => void) | undefined;
      if (scheduler && !(release = signal?.aborted ? undefined : scheduler.tryAcquire(origin))) {
        try {
          release = await scheduler.acquire(origin, { priority, signal, shared, front: attempt > 1 });
        } catch {
          refuse(new CancelledError(operation));
        }
      }
      const started = performance.now();
      deadline ??= started + timeoutMs;
      const attemptMs = Math.max(1, Math.ceil(deadline - started));
      const x: Exchange = { operation, origin, target, url, body, apiKey, signal, timeoutMs, attemptMs, maxResponseBytes, redact };
      try {
        const reply = await this.transport.send(x);
        release?.();
        // A large reply (a 20 MB revision) was decoded in the step that resolved `send`: its parse
        // waits for the next turn of the event loop (a timer: the timers of that turn run first,
        // where setImmediate would parse it in the same turn), so the two never hold it together.
        if (reply.body.length > LARGE_REPLY_CHARS) await new Promise<void>((resolve) => setTimeout(resolve, 0));
        const value = parse(parseEnvelope(operation, reply.body, reply.contentType, redact, spec.payload), redact);
        const issues = (value as { issues?: ListIssues } | undefined)?.issues;
        this.emit({ operation, method: 'POST', url, attempt, status: x.status, ms: elapsed(started), outcome: 'ok', ...via(x), ...(issues ? { issues } : {}) });
        return value;
      } catch (e) {
        const err = scrub(toApiError(e, operation, redact), redact);
        // The origin asked to wait: every request to it waits (the scheduler holds them), this one
        // included. Held before the slot is freed, so that no waiting request slips through.
        const held = scheduler ? holdOrigin(scheduler, origin, err) : false;
        release?.();
        const delay = attempt < maxAttempts && err.retryable && !signal?.aborted ? this.retryDelay(attempt, err) : undefined;
        // A wait (a Retry-After of 30 s…) that would outlast the time-out is not made: the call
        // ends now with what the service said, instead of a spinner nobody can stop.
        if (delay !== undefined && performance.now() + delay < deadline) {
          this.emit({ operation, method: 'POST', url, attempt, status: x.status, ms: elapsed(started), outcome: 'retry', errorKind: err.kind, error: err.message, retryInMs: delay, ...via(x) });
          if (!held) await sleep(delay, signal, operation);
          continue;
        }
        this.emit({ operation, method: 'POST', url, attempt, status: x.status, ms: elapsed(started), outcome: 'error', errorKind: err.kind, error: err.message, ...via(x) });
        throw err;
      }
    }
  }

  /** What the calls derive from these credentials: made once, then reused while they stay the same. */
  private authOf(creds: Credentials): Auth {
    const a = this.#auth;
    if (a && a.email === creds.email && a.password === creds.password && a.rawApiKey === creds.apiKey) return a;
    const apiKey = creds.apiKey?.trim() || undefined;
    this.#auth = {
      serial: ++authSerial,
      email: creds.email,
      password: creds.password,
      rawApiKey: creds.apiKey,
      apiKey,
      form: new URLSearchParams([['login', '1'], ['email', creds.email], ['password', creds.password ?? '']]).toString(),
      redact: makeRedactor([creds.password, creds.apiKey, apiKey]),
    };
    return this.#auth;
  }

  /**
   * Exponential backoff with jitter; a Retry-After header (capped at 30 s) takes precedence. The
   * call retries only when the wait ends before its time-out.
   */
  private retryDelay(attempt: number, err: ApiError): number {
    if (err instanceof HttpStatusError && err.retryAfterMs !== undefined) return Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS);
    const exp = this.retryBaseDelayMs * 2 ** (attempt - 1);
    return Math.min(Math.round(exp / 2 + (Math.random() * exp) / 2), MAX_RETRY_AFTER_MS);
  }

  private emit(e: RequestEvent): void {
    try {
      this.opts.onEvent?.(e);
    } catch {
      // a failing logger must not break requests
    }
  }
}

let authSerial = 0;

/**
 * Tells the scheduler to hold every request to the origin when the service answered 429 or 503
 * with a Retry-After (capped like the retry delay). True when it did.
 */
function holdOrigin(scheduler: RequestScheduler, origin: string, err: ApiError): boolean {
  if (!(err instanceof HttpStatusError) || (err.status !== 429 && err.status !== 503) || !err.retryAfterMs) return false;
  scheduler.backOff(origin, Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS));
  return true;
}

/**
 * The form fields of Save Site: only defined fields; numbers as decimal strings, booleans as 1/0.
 * A string is sent as it is (for the integer fields: a stored value sent back unchanged).
 */
export function siteForm(fields: SiteFields): [string, string][] {
  if (!fields || typeof fields !== 'object') throw new TypeError('Save Site needs the site fields.');
  const ints: ReadonlySet<string> = new Set(SAVE_SITE_INT_FIELDS);
  const out: [string, string][] = [];
  const record = fields as Record<string, unknown>;
  for (const f of SAVE_SITE_FIELDS) {
    const v = record[f];
    if (v === undefined || v === null) continue;
    if (ints.has(f)) {
      if (typeof v === 'number' && Number.isSafeInteger(v)) out.push([f, String(v)]);
      else if (typeof v === 'string') out.push([f, v]);
      else if (typeof v === 'boolean') out.push([f, v ? '1' : '0']);
      else throw new TypeError(`Save Site: ${f} must be a whole number.`);
    } else if (typeof v === 'string') {
      out.push([f, v]);
    } else if (typeof v === 'number' || typeof v === 'boolean') {
      out.push([f, String(v)]);
    } else {
      throw new TypeError(`Save Site: ${f} must be text.`);
    }
  }
  for (const f of SAVE_SITE_EXTRA_FIELDS) {
    const v = record[f];
    if (typeof v === 'number' || typeof v === 'boolean') out.push([f, typeof v === 'boolean' ? (v ? '1' : '0') : String(v)]);
    else if (typeof v === 'string') out.push([f, v]);
  }
  return out;
}

function requireText(name: string, v: unknown): string {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string' || v === '') throw new TypeError(`${name} must be a non-empty string.`);
  return v;
}

function positive(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new TypeError(`${name} must be a positive number.`);
  return v;
}

function nonNegative(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !(v >= 0) || !Number.isFinite(v)) throw new TypeError(`${name} must be zero or more.`);
  return v;
}

function via(x: Exchange): { via?: string } {
  return x.via ? { via: x.via } : {};
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

/** A reply body longer than this (UTF-16 units) is parsed a turn of the event loop after it was read. */
const LARGE_REPLY_CHARS = 1024 * 1024;

function toApiError(e: unknown, operation: string, redact: Redactor): ApiError {
  if (e instanceof ApiError) return e;
  const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new NetworkError(operation, undefined, `unexpected failure: ${excerpt(msg, redact)}`, e);
}

/** Last line of defence: no secret in an error's message, whatever produced it. */
function scrub(err: ApiError, redact: Redactor): ApiError {
  const clean = redact(err.message);
  if (clean !== err.message) err.message = clean;
  for (const key of ['serviceMessage', 'excerpt', 'location'] as const) {
    const v = (err as unknown as Record<string, unknown>)[key];
    if (typeof v === 'string') {
      const c = redact(v);
      if (c !== v) Object.defineProperty(err, key, { value: c });
    }
  }
  return err;
}

function sleep(ms: number, signal: AbortSignal | undefined, operation: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError(operation));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancelledError(operation));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

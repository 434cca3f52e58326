// HTTP transport of the service client: one POST exchange, mapped to typed errors.
//
// - undici is loaded lazily (`await import('undici')`) on the first request, never when this
//   module is imported, so activating the extension does not pay for it.
// - One undici Agent per client (keep-alive, one pool per origin); closed by close(). When the
//   client has a proxy resolver (src/net/proxy.ts), each request asks it for a route and goes
//   through an undici ProxyAgent for that proxy instead (also built on first use, also closed).
// - Each attempt goes straight through the dispatcher's `dispatch` with a handler of our own
//   (ReplyReader): no Readable stream, no AbortController, one timer per attempt. That is the
//   cheapest way undici offers, cheaper than `undici.request` itself.
// - Redirects are never followed (undici's dispatch does not follow them and we add no redirect
//   interceptor): every 3xx becomes a RedirectError, same origin or not. Following one would
//   re-send the form body, which carries the password, to wherever the Location points.
// - Nothing this module produces (errors, messages) contains the form body, the Authorization
//   header or a URL's userinfo: callers pass a Redactor for the remaining cases (echoed secrets).

import * as tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { ApiError, AuthError, CancelledError, HttpStatusError, InsecureTransportError, InvalidReplyError, NetworkError, RedirectError, TimeoutError } from './errors';
import { excerpt, parseRetryAfter, type Redactor } from './validate';

type Undici = typeof import('undici');

let undiciLoading: Promise<Undici> | undefined;

/** Loads undici once, on first use. */
export function loadUndici(): Promise<Undici> {
  if (!undiciLoading) {
    const loading = import('undici').then((m) => {
      // Native ESM import of a CommonJS package: named exports, with module.exports as `default`.
      const mod = m as Undici & { default?: Undici };
      return typeof mod.request === 'function' ? mod : (mod.default as Undici);
    });
    undiciLoading = loading;
    loading.catch(() => {
      if (undiciLoading === loading) undiciLoading = undefined;
    });
  }
  return undiciLoading;
}

/**
 * Checks and normalises the service's base URL: http(s) only; userinfo, query and fragment are
 * dropped; a path prefix is kept without its trailing slash. Throws TypeError when unusable
 * (the message never repeats the URL, which might carry a password in its userinfo).
 */
export function normalizeBaseUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(String(raw).trim());
  } catch {
    throw new TypeError('The service URL is not a valid URL (expected e.g. https://example.com).');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TypeError(`The service URL must start with https:// (or http:// for this machine), not ${u.protocol}//.`);
  }
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u;
}

/** True for localhost, 127.0.0.0/8 and ::1 (the hosts to which plain http may carry credentials). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // IPv4-mapped loopback as normalised by URL: ::ffff:7f00:1 … ::ffff:7fff:ffff
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
}

/** The path prefix of a normalised base URL: its path without trailing slashes ('' for none). */
export function pathPrefix(base: URL): string {
  return base.pathname.replace(/\/+$/, '');
}

/**
 * Path prefix + path + query: the request target, every query value percent-encoded. Besides
 * what encodeURIComponent encodes, `'` is encoded too, as the URL parser does in the query of an
 * http(s) URL: the target is exactly what goes on the wire.
 */
export function serviceTarget(prefix: string, path: string, query: readonly (readonly [string, string])[]): string {
  let qs = '';
  for (const [k, v] of query) qs += `${qs ? '&' : '?'}${encodeQuery(k)}=${encodeQuery(v)}`;
  return `${prefix}${path}${qs}`;
}

function encodeQuery(v: string): string {
  const e = encodeURIComponent(v);
  return e.includes("'") ? e.replace(/'/g, '%27') : e;
}

/** A request's way through an HTTP(S) proxy. */
export interface ProxyRoute {
  /** http(s)://[user:password@]host:port of the proxy (userinfo becomes Proxy-Authorization: Basic). */
  url: string;
  /** The proxy without credentials, for messages and the log; default: derived from `url`. */
  display?: string;
  /** false: certificates are not verified, neither the proxy's nor (through it) the service's. */
  strictSSL: boolean;
  /** Proxy-Authorization header value (takes precedence over the URL's user:password). */
  authorization?: string;
}

/**
 * Chooses the route of each request: a ProxyRoute, or undefined to go direct. May throw a
 * TypeError (a message free of credentials) when the proxy configuration is unusable.
 */
export type ProxyResolver = (target: URL) => ProxyRoute | undefined;

export interface TransportOptions {
  maxResponseBytes: number;
  ca?: string;
  rejectUnauthorized: boolean;
  dispatcher?: unknown;
  proxy?: ProxyResolver;
}

/** One attempt of one request. `status` is filled in as soon as the headers arrive (for the log). */
export interface Exchange {
  operation: string;
  /** scheme://host[:port] of the service. */
  origin: string;
  /** Path and query (see serviceTarget). */
  target: string;
  /** origin + target, for the log and messages. */
  url: string;
  /** application/x-www-form-urlencoded body (holds the credentials: never logged). */
  body: string;
  apiKey?: string;
  signal?: AbortSignal;
  timeoutMs: number;
  /** This call's own reply size limit, instead of the transport's. */
  maxResponseBytes?: number;
  redact: Redactor;
  status?: number;
  /** Set by the transport when the request went through a proxy: the proxy without credentials. */
  via?: string;
}

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
}

/** How much of a non-2xx body is read for the error message. */
const ERROR_BODY_BYTES = 16 * 1024;

/** Errors that, while reading a 2xx body, mean the connection dropped and the reply is incomplete. */
const CUT_OFF_CODES = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|HPE_.*)$/;

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

export class HttpTransport {
  private agent: Dispatcher | undefined;
  private proxy: { key: string; agent: Dispatcher } | undefined;

  constructor(private readonly opts: TransportOptions) {}

  /** Sends one POST and returns the 2xx body, or throws an ApiError. */
  async send(x: Exchange): Promise<Reply> {
    const { operation } = x;
    if (x.signal?.aborted) throw new CancelledError(operation);
    let undici: Undici;
    try {
      undici = await loadUndici();
    } catch (e) {
      throw new NetworkError(operation, 'ENOUNDICI', 'the HTTP library could not be loaded; reinstall the extension', e);
    }
    if (x.signal?.aborted) throw new CancelledError(operation);
    const dispatcher = this.dispatcher(undici, x);
    return new Promise<Reply>((resolve, reject) => new ReplyReader(x, x.maxResponseBytes ?? this.opts.maxResponseBytes, resolve, reject).start(dispatcher));
  }

  /** The dispatcher of one request: the caller's, a ProxyAgent for the route the resolver picks, or the own Agent. */
  private dispatcher(undici: Undici, x: Exchange): Dispatcher {
    if (this.opts.dispatcher) return this.opts.dispatcher as Dispatcher;
    let route: ProxyRoute | undefined;
    if (this.opts.proxy) {
      try {
        route = this.opts.proxy(new URL(x.url));
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        throw new NetworkError(x.operation, 'EPROXYCONFIG', x.redact(msg.replace(/\.$/, '')), e);
      }
    }
    if (!route) return this.directAgent(undici);

    const proxyUrl = new URL(route.url);
    const display = route.display ?? `${proxyUrl.protocol}//${proxyUrl.host}`;
    // The loopback-only rule for plain http holds through a proxy too: the proxy would see the
    // form body (and the password in it) unless it is on this machine as well.
    const target = new URL(x.url);
    if (target.protocol === 'http:' && !isLoopbackHost(proxyUrl.hostname)) {
      throw new InsecureTransportError(x.operation, `${target.origin} through the proxy ${display}`);
    }
    x.via = display;
    const key = JSON.stringify([route.url, route.strictSSL, route.authorization ?? '']);
    if (this.proxy?.key !== key) {
      const previous = this.proxy?.agent;
      const tlsOptions = (verify: boolean): Record<string, unknown> => ({
        rejectUnauthorized: verify,
        ...(this.opts.ca ? { ca: [...defaultCertificates(), this.opts.ca] } : {}),
      });
      const agent = new undici.ProxyAgent({
        uri: route.url,
        ...(route.authorization ? { token: route.authorization } : {}),
        // Plain http (to this machine only) is forwarded in absolute form, as curl does; https is tunnelled with CONNECT.
        proxyTunnel: false,
        proxyTls: tlsOptions(route.strictSSL),
        requestTls: tlsOptions(route.strictSSL && this.opts.rejectUnauthorized),
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
      });
      this.proxy = { key, agent };
      // Requests in flight on the previous proxy finish; it is closed behind them.
      if (previous) void closeDispatcher(previous);
    }
    return this.proxy.agent;
  }

  private directAgent(undici: Undici): Dispatcher {
    if (!this.agent) {
      const connect: Record<string, unknown> = { rejectUnauthorized: this.opts.rejectUnauthorized };
      // `ca` replaces Node's trust store: keep the default CAs and add the extra ones.
      if (this.opts.ca) connect.ca = [...defaultCertificates(), this.opts.ca];
      this.agent = new undici.Agent({ connect, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
    }
    return this.agent;
  }

  /** Closes the Agent and the ProxyAgent (waits up to 2 s for requests in flight, then destroys them). A later request makes new ones. */
  async close(): Promise<void> {
    const agents = [this.agent, this.proxy?.agent].filter((a): a is Dispatcher => !!a);
    this.agent = undefined;
    this.proxy = undefined;
    await Promise.all(agents.map(closeDispatcher));
  }
}

/** Closes a dispatcher gracefully (up to 2 s for requests in flight), then destroys it. */
async function closeDispatcher(agent: Dispatcher): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = agent.close().then(() => true, () => false);
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 2000)));
  const closed = await Promise.race([graceful, late]);
  clearTimeout(timer);
  if (!closed) await agent.destroy().catch(() => undefined);
}

function defaultCertificates(): string[] {
  const getCA = (tls as unknown as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  return typeof getCA === 'function' ? getCA('default') : [...tls.rootCertificates];
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function tooLarge(operation: string, limit: number): InvalidReplyError {
  const size = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MiB` : limit >= 1024 ? `${Math.round(limit / 1024)} KiB` : `${limit} bytes`;
  return new InvalidReplyError(operation, 'reply too large', `more than ${size}`);
}

/**
 * One attempt, read straight from undici's dispatch API (no Readable stream, no AbortController):
 * the attempt's timer and the caller's signal settle the promise at once and abort the request
 * (or abort it as soon as undici starts it, if it is still waiting for a connection); the 2xx body
 * is collected up to the size limit (over it, the request is aborted); error bodies are read up to
 * ERROR_BODY_BYTES for the message; a 3xx is refused on its headers. Every error goes through
 * fail(): cancelled, then timed out, then the ApiError itself, then the network error it maps to.
 */
class ReplyReader implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Set once the promise is settled: a later callback of undici changes nothing. */
  private settled = false;
  /** What the attempt was rejected with, for a request undici starts only after that. */
  private error: ApiError | undefined;
  private timedOut = false;
  /** 'wait': no headers yet; 'reply': reading the 2xx body; 'error': reading an error body for its message. */
  private phase: 'wait' | 'reply' | 'error' = 'wait';
  private status = 0;
  private contentType: string | undefined;
  private declared = NaN;
  private retryAfterMs: number | undefined;
  private limit = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly x: Exchange,
    private readonly maxResponseBytes: number,
    private readonly resolve: (reply: Reply) => void,
    private readonly reject: (err: ApiError) => void,
  ) {}

  start(dispatcher: Dispatcher): void {
    const { x } = this;
    this.timer = setTimeout(this.onTimeout, x.timeoutMs);
    x.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (x.apiKey) headers.authorization = `Bearer ${x.apiKey}`;
    try {
      dispatcher.dispatch(
        {
          origin: x.origin,
          path: x.target,
          method: 'POST',
          headers,
          body: x.body,
          // The attempt's timer is the authority; these only make sure undici never waits longer.
          headersTimeout: x.timeoutMs + 1000,
          bodyTimeout: x.timeoutMs + 1000,
        },
        this,
      );
    } catch (e) {
      this.fail(e);
    }
  }

  private readonly onTimeout = (): void => {
    this.timedOut = true;
    this.fail(undefined);
  };

  private readonly onCallerAbort = (): void => this.fail(undefined);

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Timed out or cancelled while waiting for a connection: stop before anything is sent.
    if (this.error) controller.abort(this.error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    if (this.settled || status < 200) return; // 1xx: informational, the reply follows
    const { x } = this;
    x.status = this.status = status;
    this.contentType = header(headers['content-type']);
    if (status >= 300 && status < 400) {
      this.fail(new RedirectError(x.operation, status, describeLocation(header(headers.location), x.url, x.redact)));
    } else if (status >= 300) {
      // Error bodies (401 and every other non-2xx) are read for their message only.
      if (status !== 401) this.retryAfterMs = parseRetryAfter(headers['retry-after']);
      this.phase = 'error';
      this.limit = ERROR_BODY_BYTES;
    } else {
      this.declared = Number(header(headers['content-length']));
      if (Number.isFinite(this.declared) && this.declared > this.maxResponseBytes) {
        this.fail(tooLarge(x.operation, this.maxResponseBytes));
        return;
      }
      this.phase = 'reply';
      this.limit = this.maxResponseBytes;
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.size + chunk.length > this.limit) {
      if (this.phase === 'reply') {
        this.fail(tooLarge(this.x.operation, this.maxResponseBytes));
      } else {
        // An error body: its first ERROR_BODY_BYTES are enough for the message; the rest is not read.
        this.chunks.push(chunk.subarray(0, this.limit - this.size));
        this.size = this.limit;
        this.failWithStatus(this.text());
      }
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.controller = undefined; // complete: nothing left to abort
    if (this.settled) return;
    let body: string;
    try {
      body = this.text();
    } catch (e) {
      this.fail(e);
      return;
    }
    if (this.phase === 'error') {
      this.failWithStatus(body);
      return;
    }
    this.settle();
    this.resolve({ status: this.status, body, contentType: this.contentType });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, e: Error): void {
    this.controller = undefined; // the request is over
    if (this.settled) return;
    const { x } = this;
    if (this.phase === 'error') {
      // The message is a nicety: without the body, the status alone.
      this.failWithStatus('');
      return;
    }
    if (this.phase === 'reply') {
      // The connection dropped after the headers: the reply was cut off. Worth another try for reads.
      const code = errorCode(e);
      if (!x.signal?.aborted && code && CUT_OFF_CODES.test(code)) {
        const of = Number.isFinite(this.declared) ? ` of ${this.declared}` : '';
        this.fail(new InvalidReplyError(x.operation, 'reply cut off', `received ${this.size}${of} bytes before the connection closed (${code})`, true));
        return;
      }
    }
    this.fail(e);
  }

  /** The body read so far, as UTF-8. */
  private text(): string {
    const { chunks } = this;
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.size)).toString('utf8');
  }

  /** The error of a non-2xx reply whose body (or its first ERROR_BODY_BYTES) is `text`. */
  private failWithStatus(text: string): void {
    const { operation, redact } = this.x;
    const message = serviceMessageOf(text, redact);
    this.fail(this.status === 401 ? new AuthError(operation, message ?? 'HTTP 401') : new HttpStatusError(operation, this.status, this.retryAfterMs, message ?? excerpt(text, redact)));
  }

  /** Rejects with the ApiError `e` stands for, and aborts the request if it is still going. */
  private fail(e: unknown): void {
    if (this.settled) return;
    this.settle();
    const { x } = this;
    let err: ApiError;
    if (x.signal?.aborted) err = new CancelledError(x.operation);
    else if (this.timedOut) err = new TimeoutError(x.operation, x.timeoutMs);
    else if (e instanceof ApiError) err = e;
    else err = x.via ? proxyNetworkError(x.operation, x.url, x.via, e, x.redact, x.timeoutMs) : networkError(x.operation, x.url, e, x.redact, x.timeoutMs);
    this.error = err;
    const controller = this.controller;
    this.controller = undefined;
    controller?.abort(err);
    this.reject(err);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.x.signal?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** The `error` of a `{success:false, error}` body, sanitised; undefined when the body is not that. */
function serviceMessageOf(text: string, redact: Redactor): string | undefined {
  try {
    const json: unknown = JSON.parse(text);
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      const msg = (json as Record<string, unknown>).error ?? (json as Record<string, unknown>).message;
      if (typeof msg === 'string' && msg.trim()) return excerpt(msg, redact, 200, false);
    }
  } catch {
    // not JSON
  }
  return undefined;
}

/** origin + path of a redirect target (never its query or fragment, which may carry tokens). */
function describeLocation(location: string | undefined, requestUrl: string, redact: Redactor): string {
  if (!location) return '(no location given)';
  try {
    const u = new URL(location, requestUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return `a ${excerpt(u.protocol, redact, 20)} address`;
    let pathname = u.pathname;
    try {
      pathname = decodeURIComponent(pathname);
    } catch {
      // keep it encoded
    }
    return excerpt(`${u.origin}${pathname}`, redact, 200, false);
  } catch {
    return '(an unreadable location)';
  }
}

/** The most specific error code in an error, its cause chain or an AggregateError's errors. */
export function errorCode(e: unknown, depth = 0): string | undefined {
  if (!e || typeof e !== 'object' || depth > 4) return undefined;
  const { code, cause, errors } = e as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && code) return code;
  const fromCause = errorCode(cause, depth + 1);
  if (fromCause) return fromCause;
  if (Array.isArray(errors)) for (const inner of errors) {
    const c = errorCode(inner, depth + 1);
    if (c) return c;
  }
  return undefined;
}

/** Errors of the connection to the proxy itself (when a request goes through one, that is the only connection made). */
const PROXY_CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'ETIMEDOUT', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'UND_ERR_CONNECT_TIMEOUT']);

/** All messages of an error and its causes (for undici's proxy errors, which carry the status only in the text). */
function messagesOf(e: unknown, depth = 0): string {
  if (!e || typeof e !== 'object' || depth > 4) return '';
  const { message, cause } = e as { message?: unknown; cause?: unknown };
  return `${typeof message === 'string' ? message : ''}\n${messagesOf(cause, depth + 1)}`;
}

/** A NetworkError for a request that went through the proxy `via` (scheme://host:port, no credentials). */
export function proxyNetworkError(operation: string, url: string, via: string, e: unknown, redact: Redactor, timeoutMs: number): ApiError {
  const text = messagesOf(e);
  const status = /Proxy response \((\d{3})\)|Proxy Authentication Required \((\d{3})\)/.exec(text);
  let origin = 'the service';
  try {
    origin = new URL(url).origin;
  } catch {
    // keep the generic name
  }
  if (status) {
    const code = Number(status[1] ?? status[2]);
    if (code === 407) {
      return new NetworkError(operation, 'EPROXYAUTH', redact(`the proxy ${via} asks for credentials (HTTP 407): set http.proxyAuthorization, or put user:password in the http.proxy URL`), e);
    }
    return new NetworkError(operation, 'EPROXYREFUSED', redact(`the proxy ${via} did not open a connection to ${origin} (HTTP ${code}): check that the proxy allows it, or add the host to http.noProxy`), e);
  }
  const code = errorCode(e);
  if (code && PROXY_CONNECT_CODES.has(code)) {
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return new TimeoutError(operation, timeoutMs);
    return new NetworkError(operation, code, redact(`could not connect to the proxy ${via} (${code}): check http.proxy (or the https_proxy / http_proxy environment) and that the proxy is running`), e);
  }
  const direct = networkError(operation, url, e, redact, timeoutMs);
  if (direct instanceof NetworkError) return new NetworkError(operation, direct.code, `${direct.message.slice(operation.length + 2)} (through the proxy ${via})`, e);
  return direct;
}

const UNTRUSTED_CERT = /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|CERT_UNTRUSTED|CERT_REJECTED|CERT_SIGNATURE_FAILURE|UNABLE_TO_DECRYPT_CERT|INVALID_CA|CERT_CHAIN_TOO_LONG|INVALID_PURPOSE/;

/** A NetworkError with a message that says what happened and what to do next. */
export function networkError(operation: string, url: string, e: unknown, redact: Redactor, timeoutMs: number): ApiError {
  let code = errorCode(e);
  // undici wraps a reset as UND_ERR_SOCKET; prefer the system code when it is there.
  if (code === 'UND_ERR_SOCKET') {
    const inner = errorCode((e as { cause?: unknown }).cause);
    if (inner) code = inner;
  }
  if (code && TIMEOUT_CODES.has(code)) return new TimeoutError(operation, timeoutMs);
  let origin = 'the service';
  let host = 'the service';
  try {
    const u = new URL(url);
    origin = u.origin;
    host = u.hostname;
  } catch {
    // keep the generic names
  }
  const c = code ?? 'unknown';
  let detail: string;
  if (code === 'ECONNREFUSED') {
    detail = `could not connect to ${origin} (ECONNREFUSED): check the service URL and that the service is running`;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') {
    detail = `the host ${host} was not found (${c}): check the service URL, your network and DNS`;
  } else if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'ECONNABORTED') {
    detail = `the connection to ${origin} was closed unexpectedly (${c}): try again; if it keeps happening check your network, proxy or firewall`;
  } else if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH' || code === 'ENETDOWN' || code === 'EHOSTDOWN') {
    detail = `${origin} cannot be reached (${c}): check your network, VPN or proxy`;
  } else if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    detail = `the service's certificate is not valid at this date (${c}): check this computer's date and time, or ask the service's administrator to renew the certificate`;
  } else if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    detail = `the service's certificate does not match ${host} (${c}): check the service URL`;
  } else if (code && (UNTRUSTED_CERT.test(code) || /CERT/.test(code))) {
    detail = `the service's certificate is not trusted (${c}): set siteRevisions.caFile to your CA, or check the date`;
  } else if (code && (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))) {
    detail = `the secure connection to ${origin} failed (${c}): check that the URL's scheme (https or http) and port are right`;
  } else if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
    detail = `the request was stopped because the connection pool was closed (${c}); try again`;
  } else if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'HPE_INVALID_CONSTANT' || (code?.startsWith('HPE_') ?? false)) {
    detail = `the reply from ${origin} was malformed or cut off (${c}): try again; if it keeps happening check the service or a proxy in between`;
  } else {
    const msg = e instanceof Error ? excerpt(e.message, redact, 120) : '';
    detail = `could not talk to ${origin} (${c})${msg ? `: ${msg}` : ''}`;
  }
  return new NetworkError(operation, code, redact(detail), e);
}

// The transport of the service client: one POST exchange (one attempt) through undici.request,
// read into a Reply or mapped to a typed ApiError. Which dispatcher carries it is ./agents.ts;
// what each failure becomes is ./failure.ts; the URL and request target are ./url.ts.
//
// - One timer per attempt and the caller's signal settle the attempt at once and abort the
//   request, also while undici is still connecting (undici's own abort would wait for the
//   connection, up to its 10 s connect time-out).
// - The 2xx body is read whole when its length is declared (undici refuses more than that) and
//   refused on its headers when the length is over the limit; without a declared length it is
//   read up to the limit and abandoned past it. Error bodies are read up to ERROR_BODY_BYTES for
//   the message; a 3xx is refused on its headers.
// - Redirects are never followed (undici.request follows none unless told to): every 3xx becomes
//   a RedirectError, same origin or not. Following one would re-send the form body, which
//   carries the password, to wherever the Location points.
// - Nothing this module produces (errors, messages) contains the form body, the Authorization
//   header or a URL's userinfo: callers pass a Redactor for the remaining cases (echoed secrets).
//
// This replaced a handler of our own on undici's dispatch API (issue 16): that one cost about
// 25 µs less per call, which is within 1–2 % of a call once the service is 1 ms away (README,
// Benchmarks), so the shorter code won.

import type { Dispatcher } from 'undici';
import { Agents, loadUndici, type AgentOptions, type Undici } from './agents';
import { ApiError, CancelledError, NetworkError, RedirectError, TimeoutError } from './errors';
import { cutOffError, describeLocation, statusError, tooLarge, transportError } from './failure';
import { parseRetryAfter, type Redactor } from './validate';
import { UpdatedWhileOpenError } from '../util/loadOnce';

export interface TransportOptions extends AgentOptions {
  maxResponseBytes: number;
}

/** One attempt of one request. `status` is filled in as soon as the headers arrive (for the log). */
export interface Exchange {
  operation: string;
  /** scheme://host[:port] of the service. */
  origin: string;
  /** Path and query (see serviceTarget in ./url.ts). */
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
  /** How long this attempt may take: what is left of the call's time-out (default timeoutMs). */
  attemptMs?: number;
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

export class HttpTransport {
  private readonly agents: Agents;

  constructor(private readonly opts: TransportOptions) {
    this.agents = new Agents(opts);
  }

  /** Sends one POST and returns the 2xx body, or throws an ApiError. */
  async send(x: Exchange): Promise<Reply> {
    const { operation } = x;
    if (x.signal?.aborted) throw new CancelledError(operation);
    let undici: Undici;
    try {
      undici = await loadUndici();
    } catch (e) {
      // A missing file (the extension updated under this window) says so: the notification offers Reload Window (src/workbench/notify.ts).
      throw new NetworkError(operation, 'ENOUNDICI', e instanceof UpdatedWhileOpenError ? e.message : 'the HTTP library could not be loaded; reinstall the extension', e);
    }
    if (x.signal?.aborted) throw new CancelledError(operation);
    const route = this.agents.route(undici, operation, x.url, x.redact);
    if (route.via) x.via = route.via;
    return exchange(route.dispatcher, x, x.maxResponseBytes ?? this.opts.maxResponseBytes);
  }

  /** Closes the client's agents (see Agents.close). A later request makes new ones. */
  close(): Promise<void> {
    return this.agents.close();
  }
}

/**
 * One attempt. Every failure goes through fail(): cancelled, then timed out, then the ApiError
 * itself, then what a dropped connection or a network error maps to; it aborts the request.
 */
function exchange(dispatcher: Dispatcher, x: Exchange, maxResponseBytes: number): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const ac = new AbortController();
    let settled = false;
    let timedOut = false;
    /** Reading a 2xx body: a dropped connection now means a reply cut off. */
    let reading = false;
    let declared = NaN;
    let received: number | undefined;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      x.signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (e: unknown): void => {
      if (!settle()) return;
      ac.abort();
      if (x.signal?.aborted) reject(new CancelledError(x.operation));
      else if (timedOut) reject(new TimeoutError(x.operation, x.timeoutMs));
      else if (e instanceof ApiError) reject(e);
      else reject((reading && cutOffError(x.operation, e, received, declared)) || transportError(x.operation, x.url, x.via, e, x.redact, x.timeoutMs));
    };
    const onAbort = (): void => fail(undefined);
    const attemptMs = x.attemptMs ?? x.timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      fail(undefined);
    }, attemptMs);
    x.signal?.addEventListener('abort', onAbort, { once: true });

    const read = async (res: Dispatcher.ResponseData): Promise<Reply> => {
      const status = (x.status = res.statusCode);
      const h = res.headers;
      if (status >= 300 && status < 400) throw new RedirectError(x.operation, status, describeLocation(header(h.location), x.url, x.redact));
      if (status >= 300) {
        // Error bodies (401 and every other non-2xx) are read for their message only, if they come.
        const retryAfterMs = status !== 401 ? parseRetryAfter(h['retry-after']) : undefined;
        const text = await readCapped(res.body, ERROR_BODY_BYTES).then((r) => r.text, () => '');
        throw statusError(x.operation, status, retryAfterMs, text, x.redact);
      }
      declared = Number(header(h['content-length']));
      if (declared > maxResponseBytes) throw tooLarge(x.operation, maxResponseBytes);
      reading = true;
      const contentType = header(h['content-type']);
      if (Number.isFinite(declared)) return { status, body: await res.body.text(), contentType };
      const r = await readCapped(res.body, maxResponseBytes);
      received = r.size;
      if (r.over) throw tooLarge(x.operation, maxResponseBytes);
      return { status, body: r.text, contentType };
    };

    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (x.apiKey) headers.authorization = `Bearer ${x.apiKey}`;
    dispatcher
      .request({
        origin: x.origin,
        path: x.target,
        method: 'POST',
        headers,
        body: x.body,
        signal: ac.signal,
        // The attempt's timer is the authority; these only make sure undici never waits longer.
        headersTimeout: attemptMs + 1000,
        bodyTimeout: attemptMs + 1000,
      })
      .then(read)
      .then((reply) => {
        if (settle()) resolve(reply);
      }, fail);
  });
}

type Body = Dispatcher.ResponseData['body'];

/** At most `limit` bytes of `body` as UTF-8, and whether there was more (then the body is destroyed). */
async function readCapped(body: Body, limit: number): Promise<{ text: string; size: number; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      body.destroy();
      return { text: Buffer.concat(chunks, limit).toString('utf8'), size: limit, over: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), size, over: false };
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

// The transport of the service client: one POST exchange (one attempt), read into a Reply or
// mapped to a typed ApiError. Which dispatcher carries it is ./agents.ts; what each failure
// becomes is ./failure.ts; the URL and request target are ./url.ts.
//
// - Each attempt goes straight through the dispatcher's `dispatch` with a handler of our own
//   (ReplyReader): no Readable stream, no AbortController, one timer per attempt. That is the
//   cheapest way undici offers, cheaper than `undici.request` itself (README, Benchmarks).
// - Redirects are never followed (undici's dispatch does not follow them and we add no redirect
//   interceptor): every 3xx becomes a RedirectError, same origin or not. Following one would
//   re-send the form body, which carries the password, to wherever the Location points.
// - Nothing this module produces (errors, messages) contains the form body, the Authorization
//   header or a URL's userinfo: callers pass a Redactor for the remaining cases (echoed secrets).

import type { Dispatcher } from 'undici';
import { Agents, loadUndici, type AgentOptions, type Undici } from './agents';
import { ApiError, CancelledError, NetworkError, RedirectError, TimeoutError } from './errors';
import { cutOffError, describeLocation, statusError, tooLarge, transportError } from './failure';
import { parseRetryAfter, type Redactor } from './validate';
import { exchangeViaRequest } from './requestReader';

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
      throw new NetworkError(operation, 'ENOUNDICI', 'the HTTP library could not be loaded; reinstall the extension', e);
    }
    if (x.signal?.aborted) throw new CancelledError(operation);
    const route = this.agents.route(undici, operation, x.url, x.redact);
    if (route.via) x.via = route.via;
    if ((this.opts as { reader?: string }).reader === 'request' || process.env.SR_TRANSPORT === 'request') return exchangeViaRequest(route.dispatcher, x, this.opts.maxResponseBytes);
    return new Promise<Reply>((resolve, reject) => new ReplyReader(x, this.opts.maxResponseBytes, resolve, reject).start(route.dispatcher));
  }

  /** Closes the client's agents (see Agents.close). A later request makes new ones. */
  close(): Promise<void> {
    return this.agents.close();
  }
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
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
    // The connection dropped after the headers: the reply was cut off. Worth another try for reads.
    const cutOff = this.phase === 'reply' && !x.signal?.aborted ? cutOffError(x.operation, e, this.size, this.declared) : undefined;
    this.fail(cutOff ?? e);
  }

  /** The body read so far, as UTF-8. */
  private text(): string {
    const { chunks } = this;
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.size)).toString('utf8');
  }

  /** The error of a non-2xx reply whose body (or its first ERROR_BODY_BYTES) is `text`. */
  private failWithStatus(text: string): void {
    this.fail(statusError(this.x.operation, this.status, this.retryAfterMs, text, this.x.redact));
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
    else err = transportError(x.operation, x.url, x.via, e, x.redact, x.timeoutMs);
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

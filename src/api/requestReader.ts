// EXPERIMENT (issue 16 point 4): one attempt through plain `undici.request` plus a size-capped
// body read, to compare with the dispatch handler (ReplyReader in ./http.ts).
import type { Dispatcher } from 'undici';
import { ApiError, CancelledError, RedirectError, TimeoutError } from './errors';
import { cutOffError, describeLocation, statusError, tooLarge, transportError } from './failure';
import type { Exchange, Reply } from './http';
import { parseRetryAfter } from './validate';

const ERROR_BODY_BYTES = 16 * 1024;

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

type Body = Dispatcher.ResponseData['body'];

/** At most `limit` bytes of `body` as text, and whether there was more (then the body is destroyed). */
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

/**
 * One attempt: the timer and the caller's signal settle the promise at once (undici's own abort
 * waits until a pending connection is made) and abort the request.
 */
export function exchangeViaRequest(dispatcher: Dispatcher, x: Exchange, maxResponseBytes: number): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const ac = new AbortController();
    let settled = false;
    let timedOut = false;
    let phase: 'wait' | 'reply' = 'wait';
    let declared = NaN;
    let received = 0;
    const done = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      x.signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (e: unknown): void => {
      if (!done()) return;
      ac.abort();
      if (x.signal?.aborted) reject(new CancelledError(x.operation));
      else if (timedOut) reject(new TimeoutError(x.operation, x.timeoutMs));
      else if (e instanceof ApiError) reject(e);
      else reject((phase === 'reply' && cutOffError(x.operation, e, received, declared)) || transportError(x.operation, x.url, x.via, e, x.redact, x.timeoutMs));
    };
    const onAbort = (): void => fail(undefined);
    const timer = setTimeout(() => {
      timedOut = true;
      fail(undefined);
    }, x.timeoutMs);
    x.signal?.addEventListener('abort', onAbort, { once: true });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (x.apiKey) headers.authorization = `Bearer ${x.apiKey}`;

    const read = async (res: Dispatcher.ResponseData): Promise<Reply> => {
      const status = (x.status = res.statusCode);
      const h = res.headers;
      if (status >= 300 && status < 400) throw new RedirectError(x.operation, status, describeLocation(header(h.location), x.url, x.redact));
      if (status >= 300) {
        // Error bodies are read for their message only: the first ERROR_BODY_BYTES, if they come.
        const retryAfterMs = status !== 401 ? parseRetryAfter(h['retry-after']) : undefined;
        const text = await readCapped(res.body, ERROR_BODY_BYTES).then((r) => r.text, () => '');
        throw statusError(x.operation, status, retryAfterMs, text, x.redact);
      }
      declared = Number(header(h['content-length']));
      if (declared > maxResponseBytes) throw tooLarge(x.operation, maxResponseBytes);
      phase = 'reply';
      const contentType = header(h['content-type']);
      // A declared length bounds the body (undici refuses more); otherwise read up to the limit.
      if (Number.isFinite(declared)) return { status, body: await res.body.text(), contentType };
      const r = await readCapped(res.body, maxResponseBytes);
      received = r.size;
      if (r.over) throw tooLarge(x.operation, maxResponseBytes);
      return { status, body: r.text, contentType };
    };

    dispatcher
      .request({ origin: x.origin, path: x.target, method: 'POST', headers, body: x.body, signal: ac.signal, headersTimeout: x.timeoutMs + 1000, bodyTimeout: x.timeoutMs + 1000 })
      .then(read)
      .then((reply) => {
        if (done()) resolve(reply);
      }, fail);
  });
}

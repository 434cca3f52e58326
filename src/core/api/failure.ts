// Error-message mapping of the transport: what each failure of an exchange becomes — a typed
// ApiError whose message says what happened and what to do next, in English (the client's
// messages quote the service and are read when reporting a problem). Nothing here contains the
// form body, the Authorization header or a URL's userinfo or query; service texts go through
// the caller's Redactor.

import { AuthError, HttpStatusError, InvalidReplyError, NetworkError, TimeoutError, type ApiError } from './errors';
import { bodyExcerpt, excerpt, parseJson, type Redactor } from './validate';

/** Errors that, while reading a 2xx body, mean the connection dropped and the reply is incomplete. */
const CUT_OFF_CODES = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE|ECONNABORTED|UND_ERR_RES_CONTENT_LENGTH_MISMATCH|HPE_.*)$/;

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * The error of a 2xx reply whose connection dropped before its body was complete (retried for
 * reads), or undefined when `e` is not that. `received` is unknown for a body read whole.
 */
export function cutOffError(operation: string, e: unknown, received: number | undefined, declared: number): InvalidReplyError | undefined {
  const code = errorCode(e);
  if (!code || !CUT_OFF_CODES.test(code)) return undefined;
  const detail =
    received === undefined
      ? `the connection closed before the ${Number.isFinite(declared) ? `${declared} bytes announced` : 'whole reply'} arrived (${code})`
      : `received ${received}${Number.isFinite(declared) ? ` of ${declared}` : ''} bytes before the connection closed (${code})`;
  return new InvalidReplyError(operation, 'reply cut off', detail, true);
}

/** A 2xx reply over the size limit. */
export function tooLarge(operation: string, limit: number): InvalidReplyError {
  const size = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MiB` : limit >= 1024 ? `${Math.round(limit / 1024)} KiB` : `${limit} bytes`;
  return new InvalidReplyError(operation, 'reply too large', `more than ${size}`);
}

/** The error of a non-2xx, non-3xx reply whose body (or its first bytes) is `text`: 401 is an AuthError. */
export function statusError(operation: string, status: number, retryAfterMs: number | undefined, text: string, redact: Redactor): ApiError {
  const message = serviceMessageOf(text, redact);
  return status === 401 ? new AuthError(operation, message ?? 'HTTP 401') : new HttpStatusError(operation, status, retryAfterMs, message ?? bodyExcerpt(text, redact), message);
}

/** The `error` of a `{success:false, error}` body, sanitized; undefined when the body is not that. */
function serviceMessageOf(text: string, redact: Redactor): string | undefined {
  const json = parseJson(text);
  if (json.ok && json.value && typeof json.value === 'object' && !Array.isArray(json.value)) {
    const msg = (json.value as Record<string, unknown>).error ?? (json.value as Record<string, unknown>).message;
    if (typeof msg === 'string' && msg.trim()) return excerpt(msg, redact, 200, false);
  }
  return undefined;
}

/** origin + path of a redirect target (never its query or fragment, which may carry tokens). */
export function describeLocation(location: string | undefined, requestUrl: string, redact: Redactor): string {
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
    detail = `the service's certificate is not trusted (${c}): set siteRevisions.caFile to your CA (or add it to the system's certificate store), or check the date`;
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

/** The error of an exchange that failed below HTTP: through the proxy `via` when there was one. */
export function transportError(operation: string, url: string, via: string | undefined, e: unknown, redact: Redactor, timeoutMs: number): ApiError {
  return via ? proxyNetworkError(operation, url, via, e, redact, timeoutMs) : networkError(operation, url, e, redact, timeoutMs);
}

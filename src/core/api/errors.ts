// Typed errors of the service client. Messages never contain credentials: they name the
// operation and the origin, never a URL's query, a form body or a header.

export type ApiErrorKind =
  | 'auth' // HTTP 401 or the service saying the credentials are wrong / the user is signed out
  | 'service' // {success:false, error} from the service
  | 'http' // another non-2xx HTTP status
  | 'invalid-reply' // not JSON, or not the expected shape
  | 'network' // connection refused / reset / DNS / TLS
  | 'timeout'
  | 'cancelled'
  | 'insecure' // credentials refused over plain http to a non-loopback host
  | 'redirect'; // a redirect (to another origin, or any redirect: see README)

export abstract class ApiError extends Error {
  abstract readonly kind: ApiErrorKind;
  /** The operation that failed, e.g. "Get Sites". */
  readonly operation: string;
  constructor(operation: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.operation = operation;
    this.name = new.target.name;
  }
  /** Whether a read may be retried after this error. */
  get retryable(): boolean {
    return false;
  }
}

export class AuthError extends ApiError {
  readonly kind = 'auth' as const;
  constructor(operation: string, readonly serviceMessage?: string) {
    super(operation, `${operation}: not signed in or the email, password or API key was not accepted${serviceMessage ? ` (${serviceMessage})` : ''}.`);
  }
}

export class ServiceError extends ApiError {
  readonly kind = 'service' as const;
  constructor(operation: string, readonly serviceMessage: string) {
    super(operation, `${operation}: the service said: ${serviceMessage}`);
  }
}

export class HttpStatusError extends ApiError {
  readonly kind = 'http' as const;
  /**
   * @param excerpt what came with the status: the service's own message, else the start of the body.
   * @param serviceMessage the `error` of a `{success:false, error}` body (sanitized), when it sent one.
   */
  constructor(operation: string, readonly status: number, readonly retryAfterMs?: number, readonly excerpt?: string, readonly serviceMessage?: string) {
    super(operation, `${operation}: the service answered HTTP ${status}${excerpt ? `: ${excerpt}` : ''}`);
  }
  override get retryable(): boolean {
    return [429, 502, 503, 504].includes(this.status);
  }
}

export class InvalidReplyError extends ApiError {
  readonly kind = 'invalid-reply' as const;
  /**
   * @param transient true when another attempt may well succeed (a reply cut off by a dropped
   * connection); such errors are retried for reads.
   */
  constructor(operation: string, readonly problem: string, readonly excerpt: string, readonly transient = false) {
    super(operation, `${operation}: unexpected reply from the service (${problem})${excerpt ? `: ${excerpt}` : ''}`);
  }
  override get retryable(): boolean {
    return this.transient;
  }
}

/** The service's reply was larger than the client reads (src/core/api/failure.ts `tooLarge`). */
export function isTooLarge(e: unknown): e is InvalidReplyError {
  return e instanceof InvalidReplyError && e.problem === 'reply too large';
}

export class NetworkError extends ApiError {
  readonly kind = 'network' as const;
  constructor(operation: string, readonly code: string | undefined, detail: string, cause?: unknown) {
    super(operation, `${operation}: ${detail}`, { cause });
  }
  override get retryable(): boolean {
    return this.code === 'ECONNRESET' || this.code === 'UND_ERR_SOCKET' || this.code === 'ECONNREFUSED' || this.code === 'EPIPE';
  }
  /** True when the failure is a TLS certificate problem (self-signed, expired, unknown CA…). */
  get isCertificateError(): boolean {
    return !!this.code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/.test(this.code);
  }
}

export class TimeoutError extends ApiError {
  readonly kind = 'timeout' as const;
  constructor(operation: string, readonly timeoutMs: number) {
    super(operation, `${operation}: no answer from the service within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}.`);
  }
}

export class CancelledError extends ApiError {
  readonly kind = 'cancelled' as const;
  constructor(operation: string) {
    super(operation, `${operation}: cancelled.`);
  }
}

export class InsecureTransportError extends ApiError {
  readonly kind = 'insecure' as const;
  constructor(operation: string, readonly origin: string) {
    super(operation, `${operation}: refusing to send credentials over plain http to ${origin}; use https (plain http is allowed only to this machine).`);
  }
}

export class RedirectError extends ApiError {
  readonly kind = 'redirect' as const;
  constructor(operation: string, readonly status: number, readonly location: string) {
    super(operation, `${operation}: the service redirected (HTTP ${status}) to ${location}; redirects are not followed so credentials cannot leak. Check the service URL.`);
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

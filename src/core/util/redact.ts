// Redaction: the one mechanism that keeps secrets out of text that may be shown or logged — the
// service client's errors and events (a fixed set of secrets per set of credentials) and the log
// (every secret of the session, added as it becomes known). Pure: no vscode, no I/O.
//
// A secret is hidden raw and in the encoded forms it takes on its way (URL-encoded, form-encoded,
// JSON-escaped); values of secret-looking fields (`password=…`, `"ftp_pass":"…"`, a Bearer
// token) are hidden too where asked, whoever they belong to.

/** Removes secrets from a text that is about to be shown or logged. */
export type Redactor = (text: string) => string;

export const noRedaction: Redactor = (t) => t;

/** Secrets shorter than this are not hidden: one character would mangle every message. */
const MIN_SECRET_LENGTH = 2;

/** The forms a secret takes in text: raw, URL-encoded, form-encoded, JSON-escaped. */
function encodedForms(secret: string): string[] {
  return [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), JSON.stringify(secret).slice(1, -1)];
}

/** Values of secret-looking keys in JSON, form or header text (`"ftp_pass":"x"`, `password=x`, `Authorization: Bearer x`). */
const SECRET_FIELD =
  /((?:"|\b)(?:ftp_pass|db_password|password|passwd|api_?key|apikey|token|secret|authorization)"?\s*[:=]\s*)("(?:[^"\\]|\\.)*"?|bearer\s+[^\s,&;}\]]+|[^\s,&;}\]]*)/gi;
/** A bearer token, wherever it appears (`Authorization: Bearer …`). */
const BEARER = /\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi;

/** Hides the values of secret-looking fields and bearer tokens, whatever secret they hold. */
export function hideSecretFields(text: string): string {
  return text.replace(SECRET_FIELD, (_m, key: string) => `${key}***`).replace(BEARER, 'Bearer ***');
}

function maskAll(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join('***');
  return out;
}

/** Every form of every secret, longest first so that a secret containing another is hidden whole. */
function formsOf(secrets: Iterable<string | undefined>): string[] {
  const forms = new Set<string>();
  for (const s of secrets) if (s && s.length >= MIN_SECRET_LENGTH) for (const f of encodedForms(s)) forms.add(f);
  return [...forms].sort((a, b) => b.length - a.length);
}

/** A redactor for a fixed set of secrets (the client makes one per set of credentials). */
export function makeRedactor(secrets: readonly (string | undefined)[], opts: { fields?: boolean } = {}): Redactor {
  const forms = formsOf(secrets);
  if (opts.fields) return (text) => maskAll(hideSecretFields(text), forms);
  return forms.length ? (text) => maskAll(text, forms) : noRedaction;
}

/**
 * A set of secrets that grows as they become known (the log's: every password and key the
 * session uses), with the same masking as makeRedactor. `redact` is bound: pass it on as a Redactor.
 */
export class Secrets {
  private readonly secrets = new Set<string>();
  private forms: string[] = [];

  constructor(private readonly opts: { fields?: boolean } = {}) {}

  /** Remembers a secret so that it is hidden wherever it appears. Very short values are ignored. */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.forms = formsOf(this.secrets);
  }

  remove(secret: string | undefined): void {
    if (secret && this.secrets.delete(secret)) this.forms = formsOf(this.secrets);
  }

  readonly redact: Redactor = (text) => maskAll(this.opts.fields ? hideSecretFields(text) : text, this.forms);
}

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

/** Hides the values of secret-looking fields and bearer tokens, whatever secret they hold (and what hideDumpedSecrets hides). */
export function hideSecretFields(text: string): string {
  return hideDumpedSecrets(text).replace(SECRET_FIELD, (_m, key: string) => `${key}***`).replace(BEARER, 'Bearer ***');
}

/** Names of fields whose values are secrets (passwords, keys, tokens), whoever they belong to. */
export const SECRET_NAME = /pass|secret|token|api[\W_]?key|private[\W_]?key|authori[sz]ation|credential/i;

/**
 * Keys that name another field (`{"field": "db_password", "value": "…"}`): when one holds a secret
 * name, the object's other values are hidden, except those that say what went wrong.
 */
const NAMING_KEY = /^(?:field|name|key|param|parameter|setting|option|attribute|property|column|var|variable)$/i;
const TELLING_KEY = /^(?:message|msg|error|reason|rule|code|type|status|line|site|site_?id|id)$/i;

/**
 * For a parsed object: whether its value under `key` is left out. Secret-named keys always are;
 * when the object names a secret field (`{"field": "db_password", "value": …}`), every key but
 * the naming ones and those that say what went wrong (message, error, code …) is too.
 */
export function hiddenKeys(object: Record<string, unknown>): (key: string) => boolean {
  const namesSecret = Object.keys(object).some((k) => NAMING_KEY.test(k) && typeof object[k] === 'string' && SECRET_NAME.test(object[k]));
  return (key) => SECRET_NAME.test(key) || (namesSecret && !NAMING_KEY.test(key) && !TELLING_KEY.test(key));
}

// PHP's dumps, plain or as HTML (html_errors, Xdebug): print_r `[ftp_pass] => x`,
// `[ftp_pass:protected] => x`; var_dump `["ftp_pass"]=>⏎  string(9) "x"`; var_export and Xdebug
// `'ftp_pass' => 'x'`; the same with `=&gt;` and `&quot;` / `&#039;` quotes and tags between.
const Q = `(?:"|'|&quot;|&#0?39;|&#x27;)`;
const GAP = String.raw`(?:\s|<[^<>\n]{0,200}>)*`;
/** A key of a dump and its arrow: group 1 the name. */
const DUMP_KEY = new RegExp(String.raw`(?:\[${Q}?([^\]\[\n"'&<>]{1,80}?)${Q}?(?::[^\]\n]{0,80})?\]|${Q}([^\n"'&<>]{1,80}?)${Q})${GAP}=${GAP}(?:>|&gt;)`, 'gi');
/** The type var_dump writes before a value (`string(9) `, `int(`), plain or in Xdebug's tags. */
const DUMP_TYPE = new RegExp(String.raw`^${GAP}(?:(?:<[^<>]*>)?(?:string|int|float|double|bool|boolean)(?:<[^<>]*>)?${GAP}(?:\((\d{1,9})\)${GAP})?)?`, 'i');
/** Where a dumped value ends: a line break (or its JSON escape) or the next key of a one-line print_r. */
const DUMP_VALUE_END = new RegExp(String.raw`\n|\r|\\[nr]|\s(?=${DUMP_KEY.source})`, 'gi');

/** The value of a dump key that ends at `arrowEnd`: [start, end) of what to hide. */
function dumpValue(text: string, arrowEnd: number): [number, number] {
  const type = DUMP_TYPE.exec(text.slice(arrowEnd, arrowEnd + 400))!;
  const start = arrowEnd + type[0].length;
  // A `string(N)` holds N bytes, so at most N characters (line breaks included): all of them go.
  const declared = type[1] === undefined ? 0 : Math.min(Number(type[1]) + 1, text.length - start);
  DUMP_VALUE_END.lastIndex = start + declared;
  const end = DUMP_VALUE_END.exec(text);
  return [start, end ? end.index : text.length];
}

/** The dump block around `at`: from its `(` / `{` to its `)` / `}` (or the ` )` of a one-line print_r), at most 4,000 characters each way. */
function dumpBlock(text: string, at: number): [number, number] {
  const before = text.slice(Math.max(0, at - 4000), at);
  const open = Math.max(before.lastIndexOf('('), before.lastIndexOf('{'));
  const after = /(?:^|\s)[)}]/m.exec(text.slice(at, at + 4000));
  return [at - before.length + Math.max(0, open), at + (after ? after.index : 4000)];
}

/** JSON-shaped objects in text (flat, or cut off at the end): `{"field":"db_password","value":"x"}`. */
const JSON_OBJECT = /\{[^{}]{0,4000}(?:\}|$)/g;
const JSON_PAIR = /((?:"|&quot;)((?:[^"\\&]|\\.|&(?!quot;))*)(?:"|&quot;)\s*:\s*)("(?:[^"\\]|\\.)*"?|&quot;.*?(?:&quot;|$)|[^,}\s]+)/g;

/**
 * Hides values the text does not name as a key=value pair, whoever they belong to: the values of
 * secret-named keys in PHP's dumps (print_r, var_dump, var_export, Xdebug's HTML), and the other
 * values of an object or dump block that names a secret field (`{"field": "db_password",
 * "value": "…"}`, `[field] => db_password [value] => …`). A site's row dumped in an error holds
 * passwords the client does not know, so no list of known secrets could hide them.
 */
export function hideDumpedSecrets(text: string): string {
  const hide: [number, number][] = [];
  const keys: { at: number; name: string; arrowEnd: number }[] = [];
  const blocks: [number, number][] = [];
  DUMP_KEY.lastIndex = 0;
  for (let m = DUMP_KEY.exec(text); m; m = DUMP_KEY.exec(text)) {
    const key = { at: m.index, name: (m[1] ?? m[2] ?? '').trim(), arrowEnd: m.index + m[0].length };
    keys.push(key);
    if (SECRET_NAME.test(key.name)) hide.push(dumpValue(text, key.arrowEnd));
    else if (NAMING_KEY.test(key.name)) {
      const [vs, ve] = dumpValue(text, key.arrowEnd);
      if (!SECRET_NAME.test(text.slice(vs, ve))) continue;
      const [bs, be] = dumpBlock(text, key.at);
      const last = blocks[blocks.length - 1];
      // Blocks start in the order of their keys: one that overlaps the last one extends it.
      if (last && bs <= last[1]) last[1] = Math.max(last[1], be);
      else blocks.push([bs, be]);
    }
  }
  // In a block that names a secret field, every other value, but what tells what went wrong
  // (the blocks do not overlap and the keys are in order: one pass).
  for (let b = 0, k = 0; b < blocks.length; b++) {
    const [bs, be] = blocks[b]!;
    while (k < keys.length && keys[k]!.at < bs) k++;
    for (let i = k; i < keys.length && keys[i]!.at < be; i++) {
      const { name, arrowEnd } = keys[i]!;
      if (!NAMING_KEY.test(name) && !TELLING_KEY.test(name) && !SECRET_NAME.test(name)) hide.push(dumpValue(text, arrowEnd));
    }
  }
  JSON_OBJECT.lastIndex = 0;
  for (let o = JSON_OBJECT.exec(text); o; o = JSON_OBJECT.exec(text)) {
    const pairs = [...o[0].matchAll(JSON_PAIR)];
    const names = (v: string) => SECRET_NAME.test(v.replace(/^"|"$|^&quot;|&quot;$/g, ''));
    if (!pairs.some((p) => NAMING_KEY.test(p[2]!) && names(p[3]!))) continue;
    for (const p of pairs) {
      if (NAMING_KEY.test(p[2]!) || TELLING_KEY.test(p[2]!)) continue;
      const start = o.index + p.index! + p[1]!.length;
      hide.push([start, start + p[3]!.length]);
    }
  }
  if (!hide.length) return text;
  hide.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [s, e] of hide) {
    if (e <= at) continue;
    out += text.slice(at, Math.max(at, s)) + (s >= at ? '***' : '');
    at = e;
  }
  return out + text.slice(at);
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

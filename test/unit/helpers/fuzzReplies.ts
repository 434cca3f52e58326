// fast-check arbitraries of hostile service replies for the reply fuzzer (fuzz.replies.test.ts):
// valid replies of each operation (with the value the client must return), the same replies
// mutated (wrong types, missing and extra fields, deep nesting, huge strings), service errors,
// arbitrary JSON and bytes, HTML error pages, empty, truncated and invalid-UTF-8 bodies, wrong
// content types, every status from 100 to 599, interim 1xx responses and broken framing.
import fc from 'fast-check';
import { SITE_STRING_FIELDS } from '../../../src/core/api/types';
import type { Framing, WireReply } from './fuzzServer';

export const OPS = ['getSites', 'saveSite', 'deleteSite', 'getRevisionFiles', 'getRevisions', 'getRevision'] as const;
export type OpName = (typeof OPS)[number];

/** A JSON text inserted verbatim where it stands (deep nesting, numbers JSON.stringify cannot write). */
export class Raw {
  constructor(readonly text: string) {}
}

/** JSON serializer that writes Raw values verbatim; `undefined` members are left out like JSON.stringify does. */
export function serialize(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : serialize(x))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(`${JSON.stringify(k)}:${serialize(x)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export interface FuzzCase {
  /** What kind of body this is (for the statistics). */
  category: string;
  wire: WireReply;
  /** How the operation is called: Save Site creates (false) or updates (true); Get Revisions with content (true). */
  variant: boolean;
  /**
   * For a valid, unmutated reply body: the value the client must return when the response
   * arrives complete with a 2xx status (other than 204) and within the size limit.
   */
  expected?: { value: unknown };
}

export interface GenOptions {
  /** The client's maxResponseBytes: some bodies are generated just over it. */
  maxResponseBytes: number;
  /** The user's password: hostile replies echo it back in places. */
  secret: string;
  /** Id passed to updateSite (the fallback of Save Site without `site`). */
  updateId: string;
}

// ---------- strings ----------

const HOSTILE_STRINGS = [
  '',
  ' ',
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '**bold** [link](command:siteRevisions.signOut)',
  '\u202eevil\u202c.txt',
  '\u0000\u0001\u001f\u007f\u0085\u2028\u2029',
  '\ud800',
  '\udfff\ud800',
  '\ufeff',
  '__proto__',
  'constructor',
  'toString',
  '../../etc/passwd',
  'C:\\Windows\\system32',
  '%00%2e%2e%2f',
  '${process.exit(1)}',
  '{{7*7}}',
  'null',
  'true',
  '1e999',
  'Invalid email or password',
  'Not logged in',
  '\r\n\r\nHTTP/1.1 200 OK',
];

const controlChar = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c));

/** Text of every kind: ASCII, graphemes, any code point (lone surrogates too), control characters, hostile constants. */
export function text(secret: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 24 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: controlChar, maxLength: 8 }) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS, secret, `password=${secret}`, `{"ftp_pass":"${secret}"}`) },
    { weight: 1, arbitrary: fc.integer({ min: 256, max: 4096 }).map((n) => 'x'.repeat(n)) },
  );
}

/**
 * A huge string (100,000 – 300,000 characters, up to 1.8 MB as JSON) made of one repeated unit
 * that is expensive to escape or decode.
 */
export const hugeString = fc
  .tuple(fc.integer({ min: 100_000, max: 300_000 }), fc.constantFrom('x', 'é', '\u0000', '"', '\\', '<', '\ud83d\ude00', '\u202e'))
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));

// ---------- deep nesting ----------

const DEEP_KINDS = ['array', 'object', 'mixed', 'unclosed'] as const;

export function deepText(depth: number, kind: (typeof DEEP_KINDS)[number]): string {
  switch (kind) {
    case 'array':
      return '['.repeat(depth) + ']'.repeat(depth);
    case 'object':
      return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    case 'mixed':
      return '[{"a":'.repeat(depth >> 1) + 'null' + '}]'.repeat(depth >> 1);
    case 'unclosed':
      return '['.repeat(depth);
  }
}

/** Nesting from a few levels to 100,000 (10,000 is the common deep case). */
export const deepArb = fc
  .tuple(fc.oneof(fc.integer({ min: 2, max: 64 }), fc.integer({ min: 1000, max: 10_000 }), fc.constantFrom(10_000, 100_000)), fc.constantFrom(...DEEP_KINDS))
  .map(([d, k]) => new Raw(deepText(d, k)));

/** Lighter nesting (up to 10,000 levels) for values put anywhere by mutations. */
const deepValueArb = fc
  .tuple(fc.oneof(fc.integer({ min: 2, max: 64 }), fc.integer({ min: 1000, max: 10_000 })), fc.constantFrom(...DEEP_KINDS))
  .map(([d, k]) => new Raw(deepText(d, k)));

/** Numbers JSON.stringify cannot write, and other number edge cases. */
const rawNumber = fc.constantFrom('1e999', '-1e999', '-0', '1e-400', '123456789012345678901234567890', '0.1e1', '9007199254740993', '-1', '0', '1.5').map((t) => new Raw(t));

/** A value of any JSON type (including the wrong one for wherever it is put). */
export function anyValue(secret: string): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: text(secret) },
    { weight: 2, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: rawNumber },
    { weight: 2, arbitrary: fc.boolean() },
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.array(text(secret), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(text(secret), text(secret), { maxKeys: 3 }) },
    { weight: 1, arbitrary: deepValueArb },
  );
}

// ---------- valid replies ----------

interface Valid {
  body: Record<string, unknown>;
  /** The value the client returns for this body (given the call variant and the update id). */
  expected: (variant: boolean, updateId: string) => unknown;
}

const idValue = (secret: string) =>
  fc.oneof(
    fc.integer({ min: 0, max: 2 ** 31 }),
    fc.nat().map(String),
    text(secret).filter((s) => s.trim() !== ''),
  );

function siteArb(secret: string): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of SITE_STRING_FIELDS) fields[f] = f === 'id' ? idValue(secret) : text(secret);
  fields.shared = fc.boolean();
  return fc.record(fields);
}

function normalizedSite(s: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of SITE_STRING_FIELDS) out[f] = String(s[f]);
  out.shared = s.shared;
  return out;
}

const dateText = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 19).replace('T', ' '));

function validArb(op: OpName, secret: string): fc.Arbitrary<Valid> {
  switch (op) {
    case 'getSites':
      return fc.array(siteArb(secret), { maxLength: 4 }).map((sites) => ({
        body: { success: true, sites },
        expected: () => sites.map(normalizedSite),
      }));
    case 'saveSite':
      return fc.option(idValue(secret), { nil: undefined }).map((site) => ({
        body: site === undefined ? { success: true } : { success: true, site },
        expected: (update, updateId) => ({ siteId: site === undefined ? (update ? updateId : '') : String(site) }),
      }));
    case 'deleteSite':
      return fc.option(idValue(secret), { nil: undefined }).map((site) => ({
        body: site === undefined ? { success: true } : { success: true, site },
        expected: () => undefined,
      }));
    case 'getRevisionFiles':
      return fc.array(text(secret), { maxLength: 8 }).map((files) => ({ body: { success: true, files }, expected: () => files }));
    case 'getRevisions':
      return fc
        .array(fc.record({ id: idValue(secret), date: dateText, author: text(secret), content: fc.option(text(secret), { nil: undefined }) }), { maxLength: 5 })
        .map((revisions) => ({
          body: { success: true, revisions },
          expected: () =>
            revisions.map((r) => ({ id: String(r.id), date: r.date, author: r.author, ...(r.content !== undefined ? { content: r.content } : {}) })),
        }));
    case 'getRevision':
      return fc.record({ id: idValue(secret), content: fc.oneof(text(secret), fc.integer({ min: 1000, max: 50_000 }).map((n) => 'ü<'.repeat(n))) }).map((r) => ({
        body: { success: true, ...r },
        expected: () => ({ id: String(r.id), content: r.content }),
      }));
  }
}

// ---------- mutations of a valid reply ----------

type Container = Record<string, unknown> | unknown[];

function isContainer(v: unknown): v is Container {
  return v !== null && typeof v === 'object' && !(v instanceof Raw);
}

/** Every (container, key) pair of a value, depth first. */
function slots(root: unknown): [Container, string | number][] {
  const out: [Container, string | number][] = [];
  const walk = (v: unknown) => {
    if (!isContainer(v)) return;
    const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
    for (const k of keys) {
      out.push([v, k]);
      walk((v as Record<string | number, unknown>)[k]);
    }
  };
  walk(root);
  return out;
}

type Mutation =
  | { op: 'delete'; at: number }
  | { op: 'set'; at: number; value: unknown }
  | { op: 'extra'; at: number; key: string; value: unknown }
  | { op: 'wrap'; at: number; inObject: boolean }
  | { op: 'duplicate'; at: number }
  | { op: 'stringify'; at: number }
  | { op: 'root'; value: unknown }
  | { op: 'success'; value: unknown };

function mutationArb(secret: string): fc.Arbitrary<Mutation> {
  const at = fc.nat();
  const extraKey = fc.oneof(text(secret), fc.constantFrom('__proto__', 'constructor', 'prototype', 'success', 'error', 'sites', 'id', 'shared'));
  return fc.oneof(
    { weight: 12, arbitrary: at.map((a) => ({ op: 'delete' as const, at: a })) },
    { weight: 24, arbitrary: fc.tuple(at, anyValue(secret)).map(([a, value]) => ({ op: 'set' as const, at: a, value })) },
    // Rare: huge bodies are costly to generate and send, and the "huge string" bodies cover them too.
    { weight: 1, arbitrary: fc.tuple(at, hugeString).map(([a, value]) => ({ op: 'set' as const, at: a, value })) },
    { weight: 8, arbitrary: fc.tuple(at, extraKey, anyValue(secret)).map(([a, key, value]) => ({ op: 'extra' as const, at: a, key, value })) },
    { weight: 4, arbitrary: fc.tuple(at, fc.boolean()).map(([a, inObject]) => ({ op: 'wrap' as const, at: a, inObject })) },
    { weight: 4, arbitrary: at.map((a) => ({ op: 'duplicate' as const, at: a })) },
    { weight: 4, arbitrary: at.map((a) => ({ op: 'stringify' as const, at: a })) },
    { weight: 4, arbitrary: anyValue(secret).map((value) => ({ op: 'root' as const, value })) },
    {
      weight: 4,
      arbitrary: fc.oneof(anyValue(secret), fc.constantFrom(false, 'true', 1, 0, 'yes', undefined)).map((value) => ({ op: 'success' as const, value })),
    },
  );
}

function applyMutation(root: unknown, m: Mutation): unknown {
  if (m.op === 'root') return m.value;
  if (m.op === 'success') {
    if (!isContainer(root) || Array.isArray(root)) return root;
    return { ...root, success: m.value };
  }
  const all = slots(root);
  if (all.length === 0) return root;
  const [c, k] = all[m.at % all.length]!;
  const arr = Array.isArray(c) ? c : undefined;
  const obj = c as Record<string | number, unknown>;
  switch (m.op) {
    case 'delete':
      if (arr) arr.splice(k as number, 1);
      else delete obj[k];
      break;
    case 'set':
      obj[k] = m.value;
      break;
    case 'extra':
      if (arr) arr.push(m.value);
      // defineProperty: a `__proto__` key must become an own member of the JSON text, not the prototype.
      else Object.defineProperty(obj, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      break;
    case 'wrap':
      obj[k] = m.inObject ? { value: obj[k] } : [obj[k]];
      break;
    case 'duplicate':
      if (arr) arr.push(arr[k as number]);
      else obj[`${String(k)}_copy`] = obj[k];
      break;
    case 'stringify':
      obj[k] = serialize(obj[k]);
      break;
  }
  return root;
}

function clone<T>(v: T): T {
  if (v instanceof Raw || !isContainer(v)) return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: clone(x), enumerable: true, writable: true, configurable: true });
  return out as T;
}

// ---------- byte-level corruption ----------

const INVALID_UTF8: number[][] = [[0xff], [0xfe], [0xc3], [0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x00]];

type Corruption = { kind: 'truncate'; at: number } | { kind: 'invalidUtf8'; at: number; bytes: number[] } | { kind: 'bom' } | { kind: 'trailing'; junk: string } | { kind: 'flip'; at: number; byte: number };

const corruptionArb: fc.Arbitrary<Corruption> = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }).map((at) => ({ kind: 'truncate' as const, at })),
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(...INVALID_UTF8)).map(([at, bytes]) => ({ kind: 'invalidUtf8' as const, at, bytes })),
  fc.constant({ kind: 'bom' as const }),
  fc.constantFrom(' ', '\n', ',', '}', ']', 'x', '\u0000', '<!-- -->').map((junk) => ({ kind: 'trailing' as const, junk })),
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => ({ kind: 'flip' as const, at, byte })),
);

function corrupt(body: Buffer, c: Corruption): Buffer {
  const pos = (at: number) => Math.min(body.length, Math.floor(at * body.length));
  switch (c.kind) {
    case 'truncate':
      return body.subarray(0, pos(c.at));
    case 'invalidUtf8': {
      const p = pos(c.at);
      return Buffer.concat([body.subarray(0, p), Buffer.from(c.bytes), body.subarray(p)]);
    }
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    case 'trailing':
      return Buffer.concat([body, Buffer.from(c.junk)]);
    case 'flip': {
      const out = Buffer.from(body);
      if (out.length) out[Math.min(out.length - 1, pos(c.at))] = c.byte;
      return out;
    }
  }
}

// ---------- bodies ----------

interface Body {
  category: string;
  bytes: Buffer;
  /** Content type this kind of body usually comes with (the reply may still lie). */
  contentType: string;
  valid?: Valid;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function htmlPage(title: string, textBody: string): string {
  const esc = (s: string) => s.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'));
  return `<!DOCTYPE html>\n<html>\n<head><title>${esc(title)}</title></head>\n<body>\n<center><h1>${esc(title)}</h1></center>\n<p>${esc(textBody)}</p>\n<hr><center>nginx</center>\n</body>\n</html>\n`;
}

function bodyArb(op: OpName, o: GenOptions): fc.Arbitrary<Body> {
  const { secret } = o;
  const valid = validArb(op, secret);
  const json = (v: unknown) => Buffer.from(serialize(v), 'utf8');
  const listKey = op === 'getSites' ? 'sites' : op === 'getRevisionFiles' ? 'files' : op === 'getRevisions' ? 'revisions' : op === 'getRevision' ? 'content' : 'site';
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((v): Body => ({ category: 'valid', bytes: json(v.body), contentType: JSON_TYPE, valid: v })) },
    // The reads exactly as the spec shows them: no `success`; they are valid too.
    ...(op === 'saveSite' || op === 'deleteSite'
      ? []
      : [
          {
            weight: 2,
            arbitrary: valid.map((v): Body => {
              const { success: _success, ...body } = v.body;
              return { category: 'valid, spec-shaped', bytes: json(body), contentType: JSON_TYPE, valid: { ...v, body } };
            }),
          },
        ]),
    // Service errors shaped like a read without `success`: an error and no payload.
    {
      weight: 1,
      arbitrary: fc.record({ error: anyValue(secret) }).map((r): Body => ({ category: 'error, no success', bytes: json(r), contentType: JSON_TYPE })),
    },
    {
      weight: 7,
      arbitrary: fc.tuple(valid, fc.array(mutationArb(secret), { minLength: 1, maxLength: 4 })).map(([v, ms]): Body => {
        let value: unknown = clone(v.body);
        for (const m of ms) value = applyMutation(value, m);
        return { category: 'mutated', bytes: json(value), contentType: JSON_TYPE };
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ error: fc.option(anyValue(secret), { nil: undefined }), message: fc.option(text(secret), { nil: undefined }) })
        .map((r): Body => ({ category: 'service error', bytes: json({ success: false, ...r }), contentType: JSON_TYPE })),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v): Body => ({ category: 'any JSON', bytes: json(v), contentType: JSON_TYPE })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((b): Body => ({ category: 'random bytes', bytes: Buffer.from(b), contentType: 'application/octet-stream' })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(text(secret), text(secret))
        .map(([t, x]): Body => ({ category: 'HTML page', bytes: Buffer.from(htmlPage(t || '502 Bad Gateway', x), 'utf8'), contentType: 'text/html; charset=utf-8' })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ' ', '\r\n\t ', '\ufeff', '\ufeff  ', 'null', '""', '0').map((t): Body => ({ category: 'empty', bytes: Buffer.from(t, 'utf8'), contentType: JSON_TYPE })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, corruptionArb).map(([v, c]): Body => ({ category: `corrupted (${c.kind})`, bytes: corrupt(json(v.body), c), contentType: JSON_TYPE })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(deepArb, fc.constantFrom('whole', 'list', 'success', 'item'))
        .map(([deep, where]): Body => {
          const value = where === 'whole' ? deep : where === 'success' ? { success: deep } : where === 'list' ? { success: true, [listKey]: deep } : { success: true, [listKey]: [deep], id: deep };
          return { category: 'deep nesting', bytes: json(value), contentType: JSON_TYPE };
        }),
    },
    {
      weight: 1,
      // Within the limit: a huge extra field; over it: padding past maxResponseBytes.
      arbitrary: fc
        .tuple(valid, fc.oneof(hugeString, fc.constant(undefined)))
        .map(([v, huge]): Body => {
          const pad = huge ?? new Raw(JSON.stringify('x'.repeat(o.maxResponseBytes)));
          return { category: huge === undefined ? 'over the size limit' : 'huge string', bytes: json({ ...v.body, pad }), contentType: JSON_TYPE };
        }),
    },
  );
}

// ---------- headers, statuses, framing ----------

/** `arb` once in `oneIn` draws, else undefined. */
function rarely<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

const visible = (max: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });
const obsText = fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 12 });

function locationArb(secret: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.constantFrom('/api/sites?x=1', 'javascript:alert(1)', `https://evil.example/${encodeURIComponent(secret)}?token=abc#frag`, '//evil.example/x', 'http://[::1', '%%%', 'data:text/html,<b>x</b>', ' '),
    visible(40),
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/json; charset=iso-8859-1',
  'text/html; charset=utf-8',
  'text/plain',
  'application/octet-stream',
  'application/problem+json',
  'multipart/form-data; boundary=x',
  ';',
  'a/b/c',
];

function headersArb(secret: string): fc.Arbitrary<[string, string][]> {
  const extra = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(fc.constantFrom('X-Fuzz', 'Server', 'Cache-Control', 'Set-Cookie', 'Vary', 'WWW-Authenticate', 'Content-Language', 'ETag', 'Link', 'Content-Encoding', 'Keep-Alive'), visible(60)),
    },
    { weight: 3, arbitrary: fc.tuple(fc.constant('Location'), locationArb(secret)) },
    // Only values that mean "now" or nothing: a real delay would make every run wait.
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constant('Retry-After'), fc.constantFrom('0', '00', '', 'soon', '-5', '1e3', '1.5', 'Thu, 01 Jan 1970 00:00:00 GMT', 'Mon, 01 Jan 2001 00:00:00 GMT')),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constant('X-Obs-Text'), obsText) },
    // Beyond undici's 16 KiB header limit when long.
    { weight: 1, arbitrary: fc.tuple(fc.constant('X-Long'), fc.integer({ min: 1000, max: 40_000 }).map((n) => 'a'.repeat(n))) },
  );
  return fc.array(extra, { maxLength: 3 });
}

const INTERESTING_STATUSES = [200, 200, 200, 201, 202, 203, 204, 205, 206, 207, 226, 299, 300, 301, 302, 303, 304, 305, 307, 308, 399, 400, 401, 403, 404, 405, 408, 409, 413, 418, 422, 429, 451, 499, 500, 501, 502, 503, 504, 511, 599];

/** 100–599: informational codes (except 101) are sent as an interim response before `final`. */
const statusArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(200) },
  { weight: 3, arbitrary: fc.constantFrom(...INTERESTING_STATUSES) },
  { weight: 2, arbitrary: fc.integer({ min: 100, max: 599 }) },
);

const framingArb: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 10, arbitrary: fc.constant('length' as const) },
  { weight: 3, arbitrary: fc.constant('chunked' as const) },
  { weight: 2, arbitrary: fc.constant('close' as const) },
  { weight: 2, arbitrary: fc.constant('dribble' as const) },
  { weight: 1, arbitrary: fc.constant('truncate' as const) },
  { weight: 1, arbitrary: fc.constant('chunkedCut' as const) },
  { weight: 1, arbitrary: fc.constant('overlong' as const) },
  { weight: 1, arbitrary: fc.constant('destroy' as const) },
  { weight: 1, arbitrary: fc.constant('garbage' as const) },
);

const GARBAGE = [
  'HTTP/1.1 2OO OK\r\n\r\n',
  'HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n{}',
  'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
  'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n',
  'HTTP/1.1 200 OK\r\nX-Bad: a\u0001b\r\nContent-Length: 2\r\n\r\n{}',
  'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
  'HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\n{}',
  'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{"success":true}',
  'HTTP/1.1 200 OK\nContent-Length: 2\n\n{}',
  'HTTP/1.1 99 Too Low\r\n\r\n',
  'HTTP/1.1 1000 Too High\r\n\r\n',
  '\r\n\r\n',
  '',
  '{"success":true,"sites":[]}',
  '<html>not http</html>\r\n\r\n',
];

const garbageArb = fc.oneof(fc.constantFrom(...GARBAGE).map((t) => Buffer.from(t, 'latin1')), fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)));

/** One hostile reply for `op`, as wire bytes, with the value the client must return when it is valid. */
export function caseArb(op: OpName, o: GenOptions): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      body: bodyArb(op, o),
      status: statusArb,
      final: fc.integer({ min: 200, max: 599 }),
      extraInterim: rarely(fc.constantFrom(100, 102, 103, 150, 199), 12),
      // Usually the body's own content type; sometimes a wrong, odd or missing one.
      contentType: rarely(fc.oneof(fc.constantFrom(...CONTENT_TYPES), visible(30), fc.constant('')), 2),
      headers: headersArb(o.secret),
      framing: framingArb,
      splits: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }),
      garbage: garbageArb,
      reason: rarely(visible(20), 4),
      variant: fc.boolean(),
    })
    .map((r): FuzzCase => {
      const interim: { status: number; headers?: [string, string][] }[] = [];
      if (r.extraInterim !== undefined) interim.push({ status: r.extraInterim, ...(r.extraInterim === 103 ? { headers: [['Link', '</style.css>; rel=preload']] } : {}) });
      let status = r.status;
      if (status >= 100 && status < 200 && status !== 101) {
        interim.push({ status });
        status = r.final;
      }
      const contentType = r.contentType ?? r.body.contentType;
      const headers: [string, string][] = [...(contentType !== '' ? [['Content-Type', contentType] as [string, string]] : []), ...r.headers];
      const wire: WireReply = {
        status,
        headers,
        body: r.body.bytes,
        framing: r.framing,
        splits: r.splits,
        garbage: r.garbage,
        ...(interim.length ? { interim } : {}),
        ...(r.reason !== undefined ? { reason: r.reason } : {}),
      };
      return {
        category: r.body.category,
        wire,
        variant: r.variant,
        ...(r.body.valid ? { expected: { value: r.body.valid.expected(r.variant, o.updateId) } } : {}),
      };
    });
}

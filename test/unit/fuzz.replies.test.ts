// Property-based fuzzing of the service's replies: generated hostile replies go through the real
// client over real loopback HTTP (one keep-alive server whose reply each run sets), for each of
// the six operations. Every reply must end in a well-typed result or a typed ApiError: no crash,
// no unhandled rejection, no secret in an error or a log event, no unbounded message.
//
// Runs per operation: FUZZ_RUNS (default 1000; `npm run test:fuzz` runs 10,000). FUZZ_SEED
// replays a failure reported by fast-check.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ApiError,
  AuthError,
  HttpStatusError,
  InvalidReplyError,
  NetworkError,
  OPERATIONS,
  RedirectError,
  SITE_STRING_FIELDS,
  SiteRevisionClient,
  type Credentials,
  type RequestEvent,
} from '../../src/core/api';
import { parseEnvelope, READ_PAYLOADS, toFiles, toRevision, toRevisions, toSaveResult, toSites } from '../../src/core/api/validate';
import { makeRedactor } from '../../src/core/util/redact';
import { caseArb, OPS, type FuzzCase, type OpName } from './helpers/fuzzReplies';
import { startFuzzServer, WELL_FORMED_FRAMINGS, type FuzzServer } from './helpers/fuzzServer';
import { assertNoSecrets } from './helpers/rawServer';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;
const PASSWORD = 'Fz-p4ss&=+ü';
const API_KEY = 'sr_fuzz_0123456789abcdef';
const CREDS: Credentials = { email: 'fuzz@example.com', password: PASSWORD, apiKey: API_KEY };
const SECRETS = [PASSWORD, API_KEY];
const LIMIT = 2 * 1024 * 1024;
const UPDATE_ID = '7';
const KINDS = new Set(['auth', 'service', 'http', 'invalid-reply', 'network', 'timeout', 'cancelled', 'insecure', 'redirect']);
/** Characters no error message may carry (they would garble a notification or the log). */
const UNSAFE_IN_MESSAGE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const NAMES: Record<OpName, string> = {
  getSites: OPERATIONS.getSites,
  saveSite: OPERATIONS.saveSite,
  deleteSite: OPERATIONS.deleteSite,
  getRevisionFiles: OPERATIONS.getRevisionFiles,
  getRevisions: OPERATIONS.getRevisions,
  getRevision: OPERATIONS.getRevision,
};
const READS: ReadonlySet<OpName> = new Set(['getSites', 'getRevisionFiles', 'getRevisions', 'getRevision']);

type Outcome = { value: unknown } | { error: unknown };

function call(client: SiteRevisionClient, op: OpName, variant: boolean): Promise<unknown> {
  switch (op) {
    case 'getSites':
      return client.getSites();
    case 'saveSite':
      return variant ? client.updateSite(UPDATE_ID, { name: 'n' }) : client.createSite({ name: 'n', server_type: 'FTP', port: 21 });
    case 'deleteSite':
      return client.deleteSite(UPDATE_ID);
    case 'getRevisionFiles':
      return client.getRevisionFiles(UPDATE_ID);
    case 'getRevisions':
      return client.getRevisions(UPDATE_ID, 'dir/a b.txt', { withContent: variant });
    case 'getRevision':
      return client.getRevision(UPDATE_ID, '42');
  }
}

/** What the client must make of a complete 2xx body: the pure validation of the same bytes. */
function oracle(op: OpName, variant: boolean, body: Buffer, contentType: string | undefined): Outcome {
  const name = NAMES[op];
  const redact = makeRedactor([PASSWORD, API_KEY]);
  try {
    if (body.length > LIMIT) return { error: new InvalidReplyError(name, 'reply too large', 'more than 2 MiB') };
    const json = parseEnvelope(name, body.toString('utf8'), contentType, redact, op === 'saveSite' || op === 'deleteSite' ? undefined : READ_PAYLOADS[op]);
    switch (op) {
      case 'getSites':
        return { value: toSites(name, json, redact) };
      case 'saveSite':
        return { value: toSaveResult(name, json, variant ? UPDATE_ID : '', redact) };
      case 'deleteSite':
        return { value: undefined };
      case 'getRevisionFiles':
        return { value: toFiles(name, json, redact) };
      case 'getRevisions':
        return { value: toRevisions(name, json, redact) };
      case 'getRevision':
        return { value: toRevision(name, json, redact) };
    }
  } catch (e) {
    return { error: e };
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** Checks a successful result against the typed model, independently of validate.ts. */
function assertWellTyped(op: OpName, v: unknown): void {
  const keys = (o: object) => Object.keys(o).sort();
  switch (op) {
    case 'getSites': {
      assert.ok(Array.isArray(v), 'sites is an array');
      const expectedKeys = [...SITE_STRING_FIELDS, 'shared'].sort();
      for (const s of v as Record<string, unknown>[]) {
        assert.ok(s && typeof s === 'object' && !Array.isArray(s), 'a site is an object');
        assert.deepEqual(keys(s), expectedKeys, 'a site has exactly the fields of the model');
        for (const f of SITE_STRING_FIELDS) assert.equal(typeof s[f], 'string', `site.${f} is a string`);
        assert.equal(typeof s.shared, 'boolean', 'site.shared is a boolean');
        assert.ok((s.id as string).trim() !== '', 'site.id is not blank');
      }
      return;
    }
    case 'saveSite':
      assert.ok(v && typeof v === 'object');
      assert.deepEqual(keys(v), ['siteId']);
      assert.ok(isString((v as { siteId: unknown }).siteId));
      return;
    case 'deleteSite':
      assert.equal(v, undefined);
      return;
    case 'getRevisionFiles':
      assert.ok(Array.isArray(v) && v.every(isString), 'files are strings');
      return;
    case 'getRevisions':
      assert.ok(Array.isArray(v));
      for (const r of v as Record<string, unknown>[]) {
        assert.ok(keys(r).every((k) => ['author', 'content', 'date', 'id'].includes(k)), `revision keys ${keys(r).join()}`);
        assert.ok(isString(r.id) && r.id.trim() !== '' && isString(r.date) && isString(r.author), 'id, date and author are strings');
        assert.ok(!('content' in r) || isString(r.content), 'content is a string when present');
      }
      return;
    case 'getRevision':
      assert.ok(v && typeof v === 'object');
      assert.deepEqual(keys(v), ['content', 'id']);
      assert.ok(isString((v as { id: unknown }).id) && isString((v as { content: unknown }).content));
      return;
  }
}

function assertTypedError(op: OpName, e: unknown): asserts e is ApiError {
  if (!(e instanceof ApiError)) assert.fail(`not an ApiError: ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`);
  assert.ok(KINDS.has(e.kind), `kind ${e.kind}`);
  assert.equal(e.operation, NAMES[op]);
  assert.ok(e.message.startsWith(`${NAMES[op]}: `), e.message.slice(0, 200));
  assert.ok(e.message.length <= 600, `message of ${e.message.length} characters`);
  assert.ok(!UNSAFE_IN_MESSAGE.test(e.message), `unsafe character in ${JSON.stringify(e.message)}`);
  // The client's fallback for an exception it did not expect: always a bug.
  assert.ok(!/unexpected failure/.test(e.message), e.message);
}

/** A short description of a case for fast-check's counterexample report (bodies can be megabytes). */
function describeCase(c: FuzzCase): string {
  const w = c.wire;
  const head = w.body.subarray(0, 160).toString('utf8');
  return `${c.category} | status ${w.status}${w.interim ? ` after ${w.interim.map((i) => i.status).join(',')}` : ''} | ${w.framing} | headers ${JSON.stringify(w.headers.map(([k, v]) => [k, v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v]))} | variant ${c.variant} | ${w.body.length} bytes: ${JSON.stringify(head)}`;
}

describe('fuzz: hostile replies through the real client over loopback HTTP', function () {
  this.timeout(60_000 + RUNS * 6 * 40);
  let server: FuzzServer;
  let client: SiteRevisionClient;
  const events: RequestEvent[] = [];
  const unhandled: unknown[] = [];
  const warnings: Error[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  const onWarning = (w: Error) => warnings.push(w);

  before(async () => {
    if (RUNS < 10_000) console.log(`      fuzz: ${RUNS} runs per operation (FUZZ_RUNS=10000 in npm run test:fuzz)`);
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    process.on('warning', onWarning);
    server = await startFuzzServer({ status: 200, headers: [], body: Buffer.from('{"success":true}'), framing: 'length' });
    client = new SiteRevisionClient({
      baseUrl: server.url,
      credentials: () => CREDS,
      timeoutMs: 5000,
      retries: 1,
      retryBaseDelayMs: 0,
      maxResponseBytes: LIMIT,
      onEvent: (e) => events.push(e),
    });
  });

  after(async () => {
    await client?.dispose();
    await server?.close();
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    process.off('warning', onWarning);
  });

  for (const op of OPS) {
    it(`${NAMES[op]}${op === 'saveSite' ? ' (create and update)' : ''}: every reply ends in a well-typed result or a typed ApiError`, async () => {
      const outcomes = new Map<string, number>();
      const categories = new Map<string, number>();
      const tally = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
      const started = Date.now();

      const property = fc.asyncProperty(
        caseArb(op, { maxResponseBytes: LIMIT, secret: PASSWORD, updateId: UPDATE_ID }).map((c) =>
          Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) }),
        ),
        async (c) => {
          const w = c.wire;
          server.reset(w);
          events.length = 0;
          let out: Outcome;
          try {
            out = { value: await call(client, op, c.variant) };
          } catch (e) {
            out = { error: e };
          }
          tally(categories, c.category);

          // 1. A well-typed value or a typed error, whatever the reply.
          if ('error' in out) {
            assertTypedError(op, out.error);
            assertNoSecrets([out.error], SECRETS);
            tally(outcomes, out.error.kind);
          } else {
            assertWellTyped(op, out.value);
            tally(outcomes, 'ok');
          }

          // 2. One log event per attempt; writes are never retried, reads once on retryable errors.
          const attempts = server.requests();
          const retried = READS.has(op) && 'error' in out && (out.error as ApiError).retryable;
          assert.equal(attempts, retried ? 2 : 1, `attempts: ${attempts}`);
          assert.equal(events.length, attempts, 'one event per attempt');
          assert.equal(events.at(-1)!.outcome, 'error' in out ? 'error' : 'ok');
          assertNoSecrets(events, SECRETS);

          // 3. What the reply must produce when its head arrived intact.
          const headerBytes = w.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
          const headIntact = w.framing !== 'destroy' && w.framing !== 'garbage' && !w.interim?.some((i) => i.status === 100) && headerBytes < 12_000;
          const err = 'error' in out ? (out.error as ApiError) : undefined;
          if (w.framing === 'destroy') assert.ok(err instanceof NetworkError, `a dropped connection gave ${err?.message ?? 'a value'}`);
          if (w.framing !== 'garbage' && w.interim?.some((i) => i.status === 100)) assert.ok(err instanceof NetworkError, 'an unexpected 100 Continue is refused by undici');
          if (!headIntact) return;
          const s = w.status;
          if (s === 101) {
            assert.ok(err instanceof NetworkError, `101 without an upgrade gave ${err?.message ?? 'a value'}`);
          } else if (s >= 300 && s < 400) {
            assert.ok(err instanceof RedirectError && err.status === s, `${s} gave ${err?.message ?? 'a value'}`);
          } else if (s === 401) {
            assert.ok(err instanceof AuthError, `401 gave ${err?.message ?? 'a value'}`);
          } else if (s < 200 || s >= 300) {
            assert.ok(err instanceof HttpStatusError && err.status === s, `${s} gave ${err?.message ?? 'a value'}`);
          } else if (s === 204) {
            assert.ok(err instanceof InvalidReplyError && err.problem === 'empty reply' && !err.retryable, `204 gave ${err?.message ?? 'a value'}`);
          } else if (WELL_FORMED_FRAMINGS.has(w.framing)) {
            // 4. A complete 2xx body: exactly what validating the same bytes gives (transport
            // framing, chunk boundaries and UTF-8 decoding change nothing).
            const contentType = w.headers.find(([k]) => k === 'Content-Type')?.[1];
            const want = oracle(op, c.variant, w.body, contentType);
            if ('error' in want) {
              assert.ok(want.error instanceof ApiError, `validation threw ${String(want.error)}`);
              assert.ok(err, `expected ${want.error.message.slice(0, 200)}, got a value`);
              assert.equal(err.constructor, want.error.constructor);
              assert.equal(err.message, want.error.message);
            } else {
              assert.ok(!err, `expected a value, got ${err?.message}`);
              assert.deepEqual((out as { value: unknown }).value, want.value);
              // 5. A valid reply of the spec yields the value it describes.
              if (c.expected) assert.deepEqual((out as { value: unknown }).value, c.expected.value);
            }
            if (c.expected && w.body.length <= LIMIT) assert.ok(!err, `a valid reply failed: ${err?.message}`);
          } else if (w.framing === 'truncate' || w.framing === 'chunkedCut') {
            assert.ok(
              err instanceof InvalidReplyError && (err.problem === 'reply cut off' || err.problem === 'reply too large'),
              `a cut-off 2xx body gave ${err?.message ?? 'a value'}`,
            );
          }
        },
      );
      await fc.assert(property, { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) });
      // Let anything left dangling surface before judging.
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(unhandled.map(String), [], 'no unhandled rejection or uncaught exception');
      assert.deepEqual(warnings.map(String), [], 'no process warning (e.g. a listener leak)');

      const ms = Date.now() - started;
      const fmt = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
      console.log(`      ${NAMES[op]}: ${RUNS} runs in ${(ms / 1000).toFixed(1)} s; outcomes: ${fmt(outcomes)}`);
      console.log(`        bodies: ${fmt(categories)}`);
      if (RUNS >= 300) {
        // The generators reach every kind of outcome (guards against a fuzzer that only tests one path).
        const want = ['ok', 'invalid-reply', 'http', 'redirect', 'auth', 'network', 'service'];
        for (const k of want) assert.ok((outcomes.get(k) ?? 0) > 0, `no run ended in ${k}`);
      }
    });
  }
});

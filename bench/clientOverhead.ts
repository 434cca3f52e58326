// Client overhead: each of the six operations through the project's client (A) against a raw
// undici.request of the same call (B): same URL, same body, same headers, same undici module,
// same Agent with one keep-alive connection, in this process, interleaved (A,B then B,A).
//
// B is what any caller has to do at least to get the data: undici.request, read the body as
// text, JSON.parse it. A adds what the client does on top: credentials, body encoding, the
// time-out timer and abort wiring, status mapping, size limit, reply validation into typed
// values, redaction, the retry loop. (The no-parse variant B' — request + text only — is
// reported too.)
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { SiteRevisionClient, siteForm } from '../src/core/api/client';
import type { SiteFields } from '../src/core/api/types';
import { DEMO } from '../test/server/demo';
import { log, median, quantile } from './lib';

export interface OpResult {
  operation: string;
  iterations: number;
  clientMedianUs: number;
  rawMedianUs: number;
  rawNoParseMedianUs: number;
  ratio: number;
  ratioNoParse: number;
  clientP90Us: number;
  rawP90Us: number;
  replyBytes: number;
}

export interface OverheadResult {
  operations: OpResult[];
  maxRatio: number;
  sameRequest: boolean;
  connections: number;
}

interface RawCall {
  url: string;
  body: string;
  headers: Record<string, string>;
}

const HEADERS = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };

export async function clientOverhead(baseUrl: string, opts: { iterations: number; warmup: number }): Promise<OverheadResult> {
  // The whole of undici, for its request(): the raw side of the comparison.
  const undici = ((m) => m.default ?? m)((await import('undici')) as typeof import('undici') & { default?: typeof import('undici') });
  // One connection: both sides reuse the same keep-alive socket.
  const agent = new undici.Agent({ connections: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 120_000 });
  let connects = 0;
  agent.on('connect', () => connects++);
  const creds = { email: DEMO.user.email, password: DEMO.user.password };
  const client = new SiteRevisionClient({ baseUrl, credentials: () => creds, dispatcher: agent });
  const auth: [string, string][] = [['login', '1'], ['email', creds.email], ['password', creds.password]];
  const raw = (path: string, query: string, form: [string, string][] = []): RawCall => ({
    url: `${baseUrl}${path}${query ? `?${query}` : ''}`,
    body: new URLSearchParams([...auth, ...form]).toString(),
    headers: { ...HEADERS },
  });
  const send = async (c: RawCall, parse = true): Promise<unknown> => {
    const res = await undici.request(c.url, { method: 'POST', headers: c.headers, body: c.body, dispatcher: agent });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`raw call: HTTP ${res.statusCode}`);
    return parse ? JSON.parse(text) : text;
  };

  try {
    // ---- the data the calls use (the demo account's first own site with revisions)
    const sites = await client.getSites();
    let siteId = '';
    let file = '';
    for (const s of sites.filter((x) => !x.shared)) {
      const files = await client.getRevisionFiles(s.id);
      if (files.length) {
        siteId = s.id;
        file = files.includes('index.php') ? 'index.php' : files[0]!;
        break;
      }
    }
    if (!siteId) throw new Error('no site with revisions on the service');
    const revisionId = (await client.getRevisions(siteId, file))[0]!.id;
    const fields: SiteFields = { name: 'Bench scratch', server_type: 'FTP', domain: 'ftp.bench.example', ftp_user: 'bench', dir: '/www', port: 21, pasv: 1 };
    const scratch = (await client.createSite(fields)).siteId;
    const createRaw = raw('/api/sites', 'cmd=save', [['new', '1'], ...siteForm(fields)]);
    const newSite = async (): Promise<string> => String(((await send(createRaw)) as { site: unknown }).site);

    const enc = encodeURIComponent;
    type Op = { name: string; client: (ctx: { id?: string }) => Promise<unknown>; raw: (ctx: { id?: string }) => RawCall; setup?: () => Promise<{ id?: string }> };
    const ops: Op[] = [
      { name: 'Get Sites', client: () => client.getSites(), raw: () => raw('/api/sites', '') },
      { name: 'Save Site', client: () => client.updateSite(scratch, fields), raw: () => raw('/api/sites', 'cmd=save', [['site', scratch], ...siteForm(fields)]) },
      {
        name: 'Delete Site',
        // Each call deletes a site made for it beforehand (not timed).
        setup: async () => ({ id: await newSite() }),
        client: (c) => client.deleteSite(c.id!),
        raw: (c) => raw('/api/sites', 'cmd=delete', [['site', c.id!]]),
      },
      { name: 'Get Revision Files', client: () => client.getRevisionFiles(siteId), raw: () => raw('/api/revisions', `site=${enc(siteId)}`, [['site', siteId]]) },
      { name: 'Get Revisions', client: () => client.getRevisions(siteId, file), raw: () => raw('/api/revisions', `site=${enc(siteId)}&file=${enc(file)}&no_content=1`) },
      { name: 'Get Revision', client: () => client.getRevision(siteId, revisionId), raw: () => raw('/api/revisions', `site=${enc(siteId)}&revision=${enc(revisionId)}`) },
    ];

    // ---- proof that A and B send the same request: record both through an interceptor once
    const seen: Record<string, unknown>[] = [];
    const recorder = agent.compose((dispatch) => (o: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
      const h = o.headers as Record<string, string> | undefined;
      seen.push({ origin: String(o.origin), path: o.path, method: o.method, headers: h && !Array.isArray(h) ? Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v])) : h, body: o.body });
      return dispatch(o, handler);
    });
    let sameRequest = true;
    {
      const probe = new SiteRevisionClient({ baseUrl, credentials: () => creds, dispatcher: recorder });
      for (const op of ops) {
        seen.length = 0;
        const ctxA = (await op.setup?.()) ?? {};
        const ctxB = (await op.setup?.()) ?? {};
        await probeCall(probe, op.name, { siteId, file, revisionId, scratch, fields, id: ctxA.id });
        const c = op.raw(ctxB);
        const res = await undici.request(c.url, { method: 'POST', headers: c.headers, body: c.body, dispatcher: recorder });
        await res.body.text();
        // Delete Site deletes a different site on each side: compare with the ids masked.
        const mask = (x: unknown, id: string | undefined) => (id ? JSON.stringify(x).split(`site=${id}`).join('site=<id>') : JSON.stringify(x));
        const [a, b] = [mask(seen[0], ctxA.id), mask(seen[1], ctxB.id)];
        if (seen.length !== 2 || a !== b) {
          sameRequest = false;
          log(`client overhead: ${op.name}: the client's request differs from the raw one:\n  client ${a}\n  raw    ${b}`);
        }
      }
    }

    // ---- A/B, interleaved
    const results: OpResult[] = [];
    for (const op of ops) {
      const a: number[] = [];
      const b: number[] = [];
      const b2: number[] = [];
      let replyBytes = 0;
      const timeIt = async (fn: () => Promise<unknown>): Promise<number> => {
        const t0 = performance.now();
        await fn();
        return (performance.now() - t0) * 1000;
      };
      for (let i = 0; i < opts.warmup + opts.iterations; i++) {
        const ctxA = (await op.setup?.()) ?? {};
        const ctxB = (await op.setup?.()) ?? {};
        const callA = () => op.client(ctxA);
        const rawB = op.raw(ctxB);
        const callB = () => send(rawB);
        let ta: number;
        let tb: number;
        if (i % 2 === 0) {
          ta = await timeIt(callA);
          tb = await timeIt(callB);
        } else {
          tb = await timeIt(callB);
          ta = await timeIt(callA);
        }
        // The no-parse variant, on every third round (it only tells how much JSON.parse weighs).
        if (i % 3 === 0 && op.name !== 'Delete Site') {
          const c = op.raw({});
          const t = await timeIt(async () => {
            const text = (await send(c, false)) as string;
            replyBytes = Buffer.byteLength(text);
          });
          if (i >= opts.warmup) b2.push(t);
        }
        if (i >= opts.warmup) {
          a.push(ta);
          b.push(tb);
        }
      }
      const r: OpResult = {
        operation: op.name,
        iterations: opts.iterations,
        clientMedianUs: median(a),
        rawMedianUs: median(b),
        rawNoParseMedianUs: b2.length ? median(b2) : NaN,
        ratio: median(a) / median(b),
        ratioNoParse: b2.length ? median(a) / median(b2) : NaN,
        clientP90Us: quantile(a, 0.9),
        rawP90Us: quantile(b, 0.9),
        replyBytes,
      };
      log(`client overhead: ${op.name}: client ${r.clientMedianUs.toFixed(0)} µs, raw ${r.rawMedianUs.toFixed(0)} µs, ratio ${r.ratio.toFixed(3)}`);
      results.push(r);
    }
    await client.deleteSite(scratch).catch(() => undefined);
    return { operations: results, maxRatio: Math.max(...results.map((r) => r.ratio)), sameRequest, connections: connects };
  } finally {
    await client.dispose();
    await agent.close();
  }
}

/** One call of `operation` through `c` (for the same-request check). */
function probeCall(c: SiteRevisionClient, operation: string, x: { siteId: string; file: string; revisionId: string; scratch: string; fields: SiteFields; id?: string }): Promise<unknown> {
  switch (operation) {
    case 'Get Sites':
      return c.getSites();
    case 'Save Site':
      return c.updateSite(x.scratch, x.fields);
    case 'Delete Site':
      return c.deleteSite(x.id!);
    case 'Get Revision Files':
      return c.getRevisionFiles(x.siteId);
    case 'Get Revisions':
      return c.getRevisions(x.siteId, x.file);
    case 'Get Revision':
      return c.getRevision(x.siteId, x.revisionId);
    default:
      throw new Error(`no probe for ${operation}`);
  }
}

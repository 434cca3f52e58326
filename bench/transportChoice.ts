// EXPERIMENT (issue 16 point 4): the client with its dispatch handler (A), the client with plain
// undici.request + a size-capped read (A'), and raw undici.request (B), interleaved in rotating
// order on one keep-alive connection, at 0 and 1 ms of service latency.
//   node out/bench/transportChoice.js [--pairs N] [--runs R]
import * as path from 'node:path';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SiteRevisionClient, type ClientOptions } from '../src/api/client';
import { loadUndici } from '../src/api/agents';
import { DEMO } from '../test/server/demo';
import { Cleanup, startService } from '../test/host/common';
import { median } from './lib';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { pairs: { type: 'string', default: '600' }, runs: { type: 'string', default: '3' }, latency: { type: 'string', default: '0,1' } } });
  const pairs = Number(values.pairs);
  const runs = Number(values.runs);
  const cleanup = new Cleanup();
  const service = await startService({ dataFile: path.join(os.tmpdir(), `tc-${process.pid}`, 'service.json'), args: ['--quiet'], cleanup });
  const undici = await loadUndici();
  const agent = new undici.Agent({ connections: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 120_000 });
  const creds = { email: DEMO.user.email, password: DEMO.user.password };
  const mk = (reader: string) => new SiteRevisionClient({ baseUrl: service.url, credentials: () => creds, dispatcher: agent, ...{ reader } } as ClientOptions);
  const A = mk('dispatch');
  const A2 = mk('request');
  const sites = await A.getSites();
  let siteId = '';
  let file = '';
  for (const s of sites.filter((x) => !x.shared)) {
    const files = await A.getRevisionFiles(s.id);
    if (files.length) {
      siteId = s.id;
      file = files.includes('index.php') ? 'index.php' : files[0]!;
      break;
    }
  }
  const revisionId = (await A.getRevisions(siteId, file))[0]!.id;
  const body = new URLSearchParams([['login', '1'], ['email', creds.email], ['password', creds.password]]).toString();
  const raw = async (p: string) => {
    const res = await undici.request(`${service.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body, dispatcher: agent });
    const text = await res.body.text();
    return JSON.parse(text) as unknown;
  };
  const enc = encodeURIComponent;
  const ops: { name: string; a: (c: SiteRevisionClient) => Promise<unknown>; b: () => Promise<unknown> }[] = [
    { name: 'Get Sites', a: (c) => c.getSites(), b: () => raw('/api/sites') },
    { name: 'Get Revisions', a: (c) => c.getRevisions(siteId, file), b: () => raw(`/api/revisions?site=${enc(siteId)}&file=${enc(file)}&no_content=1`) },
    { name: 'Get Revision', a: (c) => c.getRevision(siteId, revisionId), b: () => raw(`/api/revisions?site=${enc(siteId)}&revision=${enc(revisionId)}`) },
  ];
  const timeIt = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return (performance.now() - t0) * 1000;
  };
  for (const latencyMs of values.latency!.split(',').map(Number)) {
    const res = await fetch(`${service.url}/__control/config`, { method: 'POST', body: JSON.stringify({ latencyMs }), headers: { 'content-type': 'application/json' } });
    await res.arrayBuffer();
    for (let run = 1; run <= runs; run++) {
      for (const op of ops) {
        const ta: number[] = [];
        const ta2: number[] = [];
        const tb: number[] = [];
        const n = latencyMs ? Math.round(pairs / 3) : pairs;
        for (let i = 0; i < 50 + n; i++) {
          const order = i % 3;
          const calls: [number[], () => Promise<unknown>][] = [
            [ta, () => op.a(A)],
            [ta2, () => op.a(A2)],
            [tb, op.b],
          ];
          for (let k = 0; k < 3; k++) {
            const [arr, fn] = calls[(k + order) % 3]!;
            const t = await timeIt(fn);
            if (i >= 50) arr.push(t);
          }
        }
        const [ma, ma2, mb] = [median(ta), median(ta2), median(tb)];
        console.log(
          JSON.stringify({ latencyMs, run, op: op.name, n, dispatchUs: +ma.toFixed(1), requestUs: +ma2.toFixed(1), rawUs: +mb.toFixed(1), dispatchRatio: +(ma / mb).toFixed(4), requestRatio: +(ma2 / mb).toFixed(4), requestMinusDispatchUs: +(ma2 - ma).toFixed(1) }),
        );
      }
    }
  }
  await A.dispose();
  await A2.dispose();
  await agent.close();
  await cleanup.run();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);

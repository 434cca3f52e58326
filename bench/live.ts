// The connection layer's figures (issue 33; step `live` of `npm run bench`): the real servers of
// test/live (ProFTPD and OpenSSH's sshd on loopback, the large seed), 20 ms of round-trip latency
// added by the fault proxy of test/live (a process of its own; for FTP on the control AND the
// passive data connections), our side in fresh Node processes (bench/liveChild.ts) and the peers
// (rclone, OpenSSH's sftp) as processes of their own, samples interleaved:
//  - a 10,000-file tree (1,000 folders) listed over SFTP and over FTP: our time ÷ `rclone lsf -R`'s (≤ 1.0);
//  - a 200 MB file read over SFTP: our throughput ÷ the faster of `rclone cat` and OpenSSH `sftp get` (≥ 0.9);
//  - Live Drift of 2,000 files over SFTP, their newest revisions cached (the local service's
//    search-scale site): its time ÷ the same files listed plus the reads the drift needed (≤ 1.25);
//  - Test Connection to a loopback server (≤ 1 s), and to a dead host: a proxy that accepts the
//    connection and then stalls (no byte ever comes back), which fails within the site's timeout;
//  - each protocol a chunk loaded on first use: the bytes per chunk of src/core/live's build.
// Every row shows the load average (1 minute) while it was measured: the machine is shared.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Cleanup, startService as startServiceProcess } from '../test/host/common';
import { knownHostsVia, peer, rcloneRemote, sftpBatch } from '../test/live/peers';
import { LARGE, writeSeed } from '../test/live/seed';
import { startLiveServers, type LiveServers } from '../test/live/servers';
import { ensureLiveTools } from '../test/live/system';
import { SEARCH_SCALE_SITE_ID, SearchScaleData } from '../test/server/searchScale';
import { kb } from './report';
import { lastJson, log, median, round, runNode } from './lib';
import { buildLive, type LiveBuild } from './liveBuild';
import type { DriftSample, ListSample, LiveChildConfig, ReadSample, TestSample } from './liveChild';
import type { Row } from './report';

export const LIVE_TARGETS = { listRatio: 1.0, readRatio: 0.9, driftRatio: 1.25, testMs: 1000 };
export const LIVE_LATENCY_MS = 20;
/** The dead host's timeout (the site's `timeout`, seconds). */
const DEAD_TIMEOUT_S = 3;
/** How late the timer of a timeout may fire on a loaded machine and still count as "within the timeout". */
const DEAD_SLACK_MS = 250;
/** The drift's folder on the servers: the search-scale site's 2,000 files as the live server has them. */
const DRIFT_DIR = 'drift';
/** What the drift must find (see driftData). */
export const DRIFT_EXPECTED = { differsFromNewest: 40, onlyInHistory: 20, onlyLive: 20 };

interface PeerTimes {
  ms: number[];
  load: number[];
}
export interface LiveFigures {
  /** sftp: rclone at its defaults; ftp: both on 3 connections (our pool's default); ftp8: rclone at its defaults, our pool at 8. */
  list: Record<string, { ours: ListSample[]; rclone: PeerTimes & { files: number } }>;
  read: { ours: ReadSample[]; rclone: PeerTimes; sftp: PeerTimes; bytes: number };
  drift?: DriftSample;
  test: Partial<Record<'sftp' | 'ftp', TestSample>>;
  dead?: TestSample & { timeoutMs: number; how: string };
  build?: LiveBuild;
  loadAverage: number[];
  /** Parts that failed (the rest is still reported). */
  errors: string[];
}

const load = () => os.loadavg()[0]!;

/**
 * The drift's live data: the search-scale site's newest revisions, except every 100th file from
 * 1 (20 files) edited with a line more, from 2 (20) the same size with other bytes, from 3 (20)
 * missing; and 20 files that have no revision.
 */
function driftData(dir: string): void {
  const data = new SearchScaleData();
  data.paths.forEach((p, i) => {
    if (i % 100 === 3) return;
    let content = Buffer.from(data.revisions(p, true)!.at(-1)!.content!, 'utf8');
    if (i % 100 === 1) content = Buffer.concat([content, Buffer.from('edited on the server\n')]);
    else if (i % 100 === 2) {
      content = Buffer.from(content);
      content[content.length - 2] = content[content.length - 2] === 0x58 ? 0x59 : 0x58;
    }
    const file = path.join(dir, ...p.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  });
  for (let i = 0; i < DRIFT_EXPECTED.onlyLive; i++) {
    fs.mkdirSync(path.join(dir, 'uploads'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'uploads', `new-${i}.txt`), `uploaded outside the editor ${i}\n`);
  }
}

/** A command whose standard output is thrown away (a 200 MB download): its wall time. */
function timeQuiet(cmd: string, args: string[], input?: string): Promise<number> {
  const env = { ...process.env };
  delete env.AWS_CA_BUNDLE;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => (err += d));
    if (input !== undefined) child.stdin!.end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(performance.now() - t0);
      else reject(new Error(`${cmd} failed (exit ${code}): ${err.trim().slice(-1000)}`));
    });
  });
}

/** A fault proxy in a process of its own (liveChild.ts proxy); resolves once it listens. */
async function proxyProcess(config: LiveChildConfig, file: string, cleanup: Cleanup): Promise<{ port: number; stop(): Promise<void> }> {
  fs.writeFileSync(file, JSON.stringify(config));
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'liveChild.js'), 'proxy', file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('close', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  cleanup.add('fault proxy', stop);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('close', (code) => reject(new Error(`the fault proxy exited (${code}) before listening`)));
  });
  return { port, stop };
}

export async function liveBench(o: { quick: boolean; tmp: string; cleanup: Cleanup }): Promise<LiveFigures> {
  const loadAverage = os.loadavg();
  ensureLiveTools(['ftp', 'sftp']);
  const dir = path.join(o.tmp, 'live');
  fs.mkdirSync(dir, { recursive: true });
  const master = path.join(dir, 'seed', 'data');
  let t = Date.now();
  writeSeed(master, 'large');
  driftData(path.join(master, DRIFT_DIR));
  log(`live: the data written in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  t = Date.now();
  const live: LiveServers = await startLiveServers({ only: ['ftp', 'sftp'], dataDir: master });
  o.cleanup.add('live servers', () => live.stop());
  log(`live: ProFTPD and sshd started in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const ftp = live.ftp!;
  const sftp = live.sftp!;
  const child = async <T>(mode: string, config: LiveChildConfig, label: string): Promise<T> => {
    const file = path.join(dir, `${mode}.json`);
    fs.writeFileSync(file, JSON.stringify(config));
    const r = await runNode([path.join(__dirname, 'liveChild.js'), mode, file], { label, timeoutMs: 900_000 });
    if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code ?? r.signal})`);
    return lastJson<T>(r.stdout);
  };
  const runs = o.quick ? 1 : 3;
  const errors: string[] = [];
  /** One part of the step: a failure is recorded and the next part still runs. */
  const part = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (e) {
      log(`live: ${name} FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      errors.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  };
  try {
    const sftpProxy = await proxyProcess({ site: {}, password: '', target: { host: sftp.host, port: sftp.port }, latencyMs: LIVE_LATENCY_MS }, path.join(dir, 'proxy-sftp.json'), o.cleanup);
    const ftpProxy = await proxyProcess({ site: {}, password: '', target: ftp.proxyTargets.explicit, latencyMs: LIVE_LATENCY_MS }, path.join(dir, 'proxy-ftp.json'), o.cleanup);
    const sftpVia = { host: '127.0.0.1', port: sftpProxy.port };
    const ftpVia = { host: '127.0.0.1', port: ftpProxy.port };
    const sftpSite = (port: number, timeout = '60'): LiveChildConfig => ({
      site: { server_type: 'SFTP', domain: '127.0.0.1', port: String(port), ftp_user: sftp.user, dir: sftp.dataDir, timeout },
      password: sftp.password,
      knownHostsFiles: [port === sftp.port ? sftp.knownHostsFile : knownHostsVia(live, { host: '127.0.0.1', port })],
    });
    const ftpSite = (port: number): LiveChildConfig => ({ site: { server_type: 'FTP', domain: '127.0.0.1', port: String(port), ftp_user: ftp.user, timeout: '60' }, password: ftp.password });

    // ---- the tree listed, ours and rclone's in turn
    const rcloneSftp = `${rcloneRemote(live, 'sftp', { via: sftpVia })}/${LARGE.treeDir}`;
    // Plain FTP (rclone's FTP takes no CA file, and against ProFTPD's TLS session reuse it must
    // list on one connection: concurrency=1, test/live/peers.ts), on as many connections as ours
    // (the pool's default, 3), and at rclone's defaults (8 checkers, connections unbounded)
    // against our pool at its largest setting, 8.
    const rcloneFtp = (connections?: number) =>
      `${rcloneRemote(live, 'ftp', { tls: 'none', via: ftpVia }).replace(',concurrency=1', connections ? `,concurrency=${connections}` : '')}${LARGE.treeDir}`;
    const cases: { key: string; config: LiveChildConfig; args: string[] }[] = [
      { key: 'sftp', config: { ...sftpSite(sftpProxy.port), root: LARGE.treeDir }, args: [rcloneSftp] },
      { key: 'ftp', config: { ...ftpSite(ftpProxy.port), root: LARGE.treeDir }, args: ['--checkers', '3', rcloneFtp(3)] },
      { key: 'ftp8', config: { ...ftpSite(ftpProxy.port), local: { poolSize: 8 }, root: LARGE.treeDir }, args: [rcloneFtp()] },
    ];
    const list: LiveFigures['list'] = {};
    for (const { key, config, args } of cases) await part(`the tree listed (${key})`, async () => {
      const entry: LiveFigures['list'][string] = (list[key] = { ours: [], rclone: { ms: [], load: [], files: 0 } });
      for (let i = 0; i < runs; i++) {
        const rcloneFirst = i % 2 === 1;
        const viaRclone = async () => {
          const l0 = load();
          const r = await peer('rclone', ['lsf', '-R', ...args], { timeoutMs: 600_000 });
          entry.rclone.ms.push(r.ms);
          entry.rclone.load.push((l0 + load()) / 2);
          entry.rclone.files = r.stdout.toString('utf8').split('\n').filter((l) => l && !l.endsWith('/')).length;
        };
        if (rcloneFirst) await viaRclone();
        const s = await child<ListSample>('list', config, `live list ${key} ${i + 1}`);
        entry.ours.push(s);
        if (!rcloneFirst) await viaRclone();
        log(`live: ${key} tree listed in ${s.ms.toFixed(0)} ms (${s.files} files); rclone ${entry.rclone.ms.at(-1)!.toFixed(0)} ms`);
      }
    });

    // ---- the 200 MB file over SFTP: ours, rclone cat, OpenSSH sftp, in turn
    const read: LiveFigures['read'] = { ours: [], rclone: { ms: [], load: [] }, sftp: { ms: [], load: [] }, bytes: LARGE.bigSize };
    await part('the 200 MB read', async () => {
      for (let i = 0; i < runs; i++) {
        const s = await child<ReadSample>('read', { ...sftpSite(sftpProxy.port), path: LARGE.bigFile }, `live read ${i + 1}`);
        read.ours.push(s);
        let l0 = load();
        read.rclone.ms.push(await timeQuiet('rclone', ['--config', '/dev/null', 'cat', `${rcloneRemote(live, 'sftp', { via: sftpVia })}/${LARGE.bigFile}`]));
        read.rclone.load.push((l0 + load()) / 2);
        l0 = load();
        const g = await sftpBatch(live, `get ${LARGE.bigFile} /dev/null`, { via: sftpVia, timeoutMs: 600_000 });
        read.sftp.ms.push(g.ms);
        read.sftp.load.push((l0 + load()) / 2);
        log(`live: 200 MB over SFTP: ours ${s.ms.toFixed(0)} ms, rclone cat ${read.rclone.ms.at(-1)!.toFixed(0)} ms, sftp get ${g.ms.toFixed(0)} ms`);
      }
    });

    // ---- Live Drift of 2,000 files, the newest revisions from the local service, cached
    const drift = await part('Live Drift', async () => {
      const service = await startServiceProcess({ dataFile: path.join(dir, 'service', 'service.json'), args: ['--quiet', '--search-scale'], cleanup: o.cleanup });
      try {
        const site = sftpSite(sftpProxy.port);
        // The site's folder is the drift folder: its paths are the service's.
        return await child<DriftSample>('drift', { ...site, site: { ...site.site, dir: `${sftp.dataDir}/${DRIFT_DIR}` }, serviceUrl: service.url, siteId: String(SEARCH_SCALE_SITE_ID), samples: runs }, 'live drift');
      } finally {
        await service.stop();
      }
    });

    // ---- Test Connection: loopback (no latency), and a dead host (a proxy that stalls)
    const test: LiveFigures['test'] = {};
    for (const kind of ['sftp', 'ftp'] as const) {
      const s = await part(`Test Connection (${kind})`, () => child<TestSample>('test', { ...(kind === 'sftp' ? sftpSite(sftp.port) : ftpSite(ftp.port)), samples: 5 }, `live test ${kind}`));
      if (s) test[kind] = s;
    }
    const dead = await part('Test Connection to a dead host', async () => {
      const stalled = await proxyProcess({ site: {}, password: '', target: { host: sftp.host, port: sftp.port }, stall: true }, path.join(dir, 'proxy-dead.json'), o.cleanup);
      try {
        return await child<TestSample>('test', { ...sftpSite(stalled.port, String(DEAD_TIMEOUT_S)), samples: runs }, 'live test dead host');
      } finally {
        await stalled.stop();
      }
    });
    await sftpProxy.stop();
    await ftpProxy.stop();

    const build = await part('the chunks', () => buildLive());
    return {
      list,
      read,
      ...(drift ? { drift } : {}),
      test,
      ...(dead ? { dead: { ...dead, timeoutMs: DEAD_TIMEOUT_S * 1000, how: 'a loopback proxy that accepts the TCP connection and then stalls (no byte comes back)' } } : {}),
      ...(build ? { build } : {}),
      loadAverage,
      errors,
    };
  } finally {
    await live.stop();
  }
}

const loads = (xs: number[]) => `load ${median(xs).toFixed(1)}`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export function liveRows(f: LiveFigures): Row[] {
  const rows: Row[] = [];
  const group = 'Live servers';
  const listWhat: Record<string, string> = {
    sftp: `over SFTP: our time (16 folders at once on one connection) ÷ rclone lsf -R's at its defaults (8 checkers)`,
    ftp: `over FTP (plain; control and data connections through the proxy) on 3 connections each: our time (the pool's default size, 3) ÷ rclone lsf -R --checkers 3 (concurrency=3)'s`,
    ftp8: `over FTP on 8 connections: our time (the pool at its largest setting, 8) ÷ rclone lsf -R's at its defaults (8 checkers, connections unbounded)`,
  };
  for (const [key, l] of Object.entries(f.list)) {
    if (!l.ours.length) continue;
    const ratios = l.ours.map((s, i) => s.ms / l.rclone.ms[i]!);
    const ratio = median(ratios);
    const want = LARGE.treeFolders * LARGE.filesPerFolder;
    const right = l.ours.every((s) => s.files === want) && l.rclone.files === want;
    rows.push({
      group,
      id: `live.list.${key}`,
      name: `list a 10,000-file tree (1,000 folders), ${LIVE_LATENCY_MS} ms latency added by a loopback proxy, ${listWhat[key] ?? key}`,
      measured: `${ratio.toFixed(2)} (${secs(median(l.ours.map((s) => s.ms)))} ÷ ${secs(median(l.rclone.ms))}; samples ${ratios.map((r) => r.toFixed(2)).join(', ')}; ${l.ours[0]!.files} files${right ? '' : `, rclone ${l.rclone.files}: WRONG COUNT`}; ${loads([...l.ours.map((s) => s.load), ...l.rclone.load])})`,
      value: round(ratio, 3),
      unit: 'ratio',
      target: `≤ ${LIVE_TARGETS.listRatio.toFixed(1)}`,
      ok: right && ratio <= LIVE_TARGETS.listRatio,
    });
  }
  if (f.read.ours.length) {
    const r = f.read;
    const mbps = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);
    const ours = median(r.ours.map((s) => mbps(s.bytes, s.ms)));
    const rc = median(r.rclone.ms.map((ms) => mbps(r.bytes, ms)));
    const sf = median(r.sftp.ms.map((ms) => mbps(r.bytes, ms)));
    const best = Math.max(rc, sf);
    const ratio = ours / best;
    const right = r.ours.every((s) => s.bytes === r.bytes);
    rows.push({
      group,
      id: 'live.read.sftp',
      name: `read a 200 MB file over SFTP, ${LIVE_LATENCY_MS} ms latency added: our throughput ÷ the faster of rclone cat and OpenSSH sftp get`,
      measured: `${ratio.toFixed(2)} (${ours.toFixed(1)} MB/s; rclone cat ${rc.toFixed(1)} MB/s, sftp get ${sf.toFixed(1)} MB/s; samples ${r.ours.map((s) => mbps(s.bytes, s.ms).toFixed(1)).join(', ')} MB/s${right ? '' : '; WRONG BYTE COUNT'}; ${loads([...r.ours.map((s) => s.load), ...r.rclone.load, ...r.sftp.load])})`,
      value: round(ratio, 3),
      unit: 'ratio',
      target: `≥ ${LIVE_TARGETS.readRatio}`,
      ok: right && ratio >= LIVE_TARGETS.readRatio,
    });
  }
  if (f.drift?.pairs.length) {
    const d = f.drift;
    const ratios = d.pairs.map((p) => p.driftMs / p.baselineMs);
    const ratio = median(ratios);
    const p0 = d.pairs[0]!;
    const right = d.pairs.every((p) => p.counts.differsFromNewest === DRIFT_EXPECTED.differsFromNewest && p.counts.onlyInHistory === DRIFT_EXPECTED.onlyInHistory && p.counts.onlyLive === DRIFT_EXPECTED.onlyLive) && d.cached === d.files;
    rows.push({
      group,
      id: 'live.drift.ratio',
      name: `Live Drift of ${d.files.toLocaleString('en')} files over SFTP (${LIVE_LATENCY_MS} ms latency added), their newest revisions cached, no last-seen state: its time ÷ listing those files plus the reads it needed (same concurrency)`,
      measured: `${ratio.toFixed(2)} (${secs(median(d.pairs.map((p) => p.driftMs)))} ÷ ${secs(median(d.pairs.map((p) => p.baselineMs)))}; samples ${ratios.map((x) => x.toFixed(2)).join(', ')}; ${p0.reads} reads, ${(p0.bytesRead / 1024 / 1024).toFixed(1)} MB, ${p0.concurrency} at once; found ${p0.counts.differsFromNewest} differing, ${p0.counts.onlyInHistory} only in the history, ${p0.counts.onlyLive} only live${right ? '' : ': WRONG GROUPS'}; ${loads(d.pairs.map((p) => p.load))})`,
      value: round(ratio, 3),
      unit: 'ratio',
      target: `≤ ${LIVE_TARGETS.driftRatio}`,
      ok: right && ratio <= LIVE_TARGETS.driftRatio,
    });
    const again = d.pairs.map((p) => p.againMs / p.listMs);
    rows.push({
      group,
      id: 'live.drift.againRatio',
      name: 'the same Live Drift again, with the last-seen state the first left (unchanged files are not read): its time ÷ the listing alone',
      measured: `${median(again).toFixed(2)} (${secs(median(d.pairs.map((p) => p.againMs)))} ÷ ${secs(median(d.pairs.map((p) => p.listMs)))}; ${Math.max(...d.pairs.map((p) => p.againReads))} reads; ${loads(d.pairs.map((p) => p.load))})`,
      value: round(median(again), 3),
      unit: 'ratio',
      target: `≤ ${LIVE_TARGETS.driftRatio}`,
      ok: median(again) <= LIVE_TARGETS.driftRatio,
    });
  }
  for (const kind of ['sftp', 'ftp'] as const) {
    const s = f.test[kind];
    if (!s) continue;
    const ms = median(s.ms);
    rows.push({
      group,
      id: `live.test.${kind}`,
      name: `Test Connection to a loopback ${kind.toUpperCase()} server: every step to the root listed (no latency added; ${s.ms.length} in a fresh process, the first loads the protocol's chunk)`,
      measured: `${ms.toFixed(0)} ms (first ${s.ms[0]!.toFixed(0)} ms; ${s.ms.map((x) => x.toFixed(0)).join(', ')} ms${s.ok.every(Boolean) ? '' : `; FAILED: ${s.errorKind ?? '?'}`}; load ${s.load.toFixed(1)})`,
      value: round(ms, 1),
      unit: 'ms',
      target: `≤ ${LIVE_TARGETS.testMs} ms`,
      ok: s.ok.every(Boolean) && Math.max(...s.ms) <= LIVE_TARGETS.testMs,
    });
  }
  if (f.dead) {
    const d = f.dead;
    const worst = Math.max(...d.ms);
    const ok = d.ok.every((x) => !x) && d.errorKind === 'timeout' && worst <= d.timeoutMs + DEAD_SLACK_MS;
    rows.push({
      group,
      id: 'live.test.dead',
      name: `Test Connection to a dead host (SFTP; ${d.how}), the site's timeout ${d.timeoutMs / 1000} s: fails within the timeout`,
      measured: `failed after ${d.ms.map((x) => x.toFixed(0)).join(', ')} ms: ${d.errorKind ?? 'no error'} at ${d.errorStage ?? '?'} (load ${d.load.toFixed(1)})`,
      value: round(worst, 0),
      unit: 'ms',
      target: `a timeout error ≤ ${d.timeoutMs + DEAD_SLACK_MS} ms (the timer's lateness on a loaded machine: ${DEAD_SLACK_MS} ms)`,
      ok,
    });
  }
  if (f.build) {
    const b = f.build;
    rows.push({
      group,
      id: 'live.chunks.index',
      name: 'src/core/live built as the extension builds it: what importing it loads (no protocol code)',
      measured: `${kb(b.indexBytes)}${b.indexProtocolModules.length ? `; PROTOCOL CODE: ${b.indexProtocolModules.join(', ')}` : ''}`,
      value: b.indexBytes,
      unit: 'bytes',
      target: 'no protocol',
      ok: b.indexProtocolModules.length === 0,
    });
    for (const p of b.protocols) {
      rows.push({
        group,
        id: `live.chunks.${p.protocol}`,
        name: `the ${p.protocol === 'webdav' ? 'WebDAV' : p.protocol.toUpperCase()} chunk, loaded on the first connection (with the chunks it imports)`,
        measured: p.chunk ? `${kb(p.bytes)} in ${p.files} file(s)${p.dynamic ? '' : '; NOT IMPORTED WITH import()'}` : 'NO CHUNK',
        value: p.bytes,
        unit: 'bytes',
        target: 'a chunk of its own, import()',
        ok: p.chunk && p.dynamic,
      });
    }
  }
  return rows;
}

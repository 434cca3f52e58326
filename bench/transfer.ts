// The rows of guarded transfers (issue 34) in `npm run bench`: the real servers of the tests
// (test/live: OpenSSH's sftp, ProFTPD) with 20 ms of round trip added by the fault proxy, a folder
// of 2,000 files and 200 MB (20 folders of 100 files of 100,000 pseudo-random bytes), in memory
// (/dev/shm when it has room) on both sides so that the disk of a shared machine does not decide:
//  - download of the folder, ours (bench/transferChild.ts, a fresh process) against `rclone copy`
//    and `lftp mirror` with their defaults, on the same server through the same proxy: our
//    throughput ÷ the faster peer's;
//  - upload of the same folder into an empty folder, against the same peers;
//  - the guard check of a folder upload with the bases known (nothing changed: nothing read or
//    written) against listing the same folder alone;
//  - upload on save of one file, guard included, against one bare upload (the live layer's write);
//  - the event loop of our process during each.
// FTP is plain FTP: with TLS, rclone cannot run in parallel against ProFTPD (TLS session reuse on
// data connections, /work/shared/notes/live-servers.md §6), which would not be its default. The
// load average is printed beside each figure (a shared machine, 2 cores).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFaultProxy, type FaultProxy } from '../test/live/faultProxy';
import { knownHostsVia, lftpOpen, peer, rcloneRemote } from '../test/live/peers';
import { startLiveServers, type LiveServers } from '../test/live/servers';
import { liveServersProblem } from '../test/live/system';
import type { Cleanup } from '../test/host/common';
import type { HostFigures } from '../test/integration/bench/figures';
import { LOOP_TARGETS, lastJson, log, loopOk, loopText, median, medianLoop, round, runNode, type LoopDelay } from './lib';
import type { Row } from './report';
import type { ChildConfig, ChildResult } from './transferChild';

export const TRANSFER_TARGETS = { throughputRatio: 0.9, guardRatio: 1.25, saveRatio: 1.5 };
const LATENCY_MS = 20;
/** Our FTP pool in these rows: 4 connections, as rclone copy's default 4 transfers (the setting's default is 3, its largest 8). */
const FTP_POOL = 4;
const FTP_POOL_MAX = 8;

type Kind = 'sftp' | 'ftp';
interface PeerRun {
  name: 'rclone copy' | 'lftp mirror';
  ms: number;
  ok: boolean;
  error?: string;
  load: number;
}
interface DirectionFigures {
  ours: ChildResult & { load: number };
  /** FTP: ours again with the pool at its largest setting (8 connections). */
  ours8?: ChildResult & { load: number };
  peers: PeerRun[];
}
export interface TransferFigures {
  files: number;
  bytes: number;
  kinds: Partial<Record<Kind, { download?: DirectionFigures; upload?: DirectionFigures; guard?: ChildResult & { load: number }; save?: ChildResult & { load: number }; errors: string[] }>>;
  loadAverage: number[];
  skipped?: string;
}

/** The folder of the rows: `bench/d00…/f000….bin`. */
function makeFolder(root: string, folders: number, perFolder: number, size: number): { files: number; bytes: number } {
  let files = 0;
  for (let d = 0; d < folders; d++) {
    const dir = path.join(root, 'bench', `d${String(d).padStart(2, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < perFolder; f++) {
      const out = Buffer.alloc(size);
      let block = createHash('sha256').update(`${d}/${f}`).digest();
      for (let at = 0; at < size; at += 32) {
        block = createHash('sha256').update(block).digest();
        block.copy(out, at, 0, Math.min(32, size - at));
      }
      fs.writeFileSync(path.join(dir, `f${String(f).padStart(3, '0')}.bin`), out);
      files++;
    }
  }
  return { files, bytes: files * size };
}

function memoryTmp(tmp: string): string {
  try {
    const st = fs.statfsSync('/dev/shm');
    if (st.bavail * st.bsize > 3 * 1024 ** 3) return fs.mkdtempSync('/dev/shm/sr-bench-transfer-');
  } catch {
    // no /dev/shm
  }
  return fs.mkdtempSync(path.join(tmp, 'transfer-'));
}

/** Makes an empty folder on the server's disk, owned like its data folder. */
function serverFolder(dataDir: string, rel: string): void {
  const p = path.join(dataDir, rel);
  fs.rmSync(p, { recursive: true, force: true });
  fs.mkdirSync(p, { recursive: true });
  const st = fs.statSync(dataDir);
  fs.chownSync(p, st.uid, st.gid);
}

function countFiles(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        files++;
        bytes += fs.statSync(p).size;
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return { files, bytes };
}

export async function transferBench(o: { quick: boolean; tmp: string; cleanup: Cleanup }): Promise<TransferFigures> {
  const loadAverage = os.loadavg();
  const problem = liveServersProblem(['ftp', 'sftp']);
  const f: TransferFigures = { files: 0, bytes: 0, kinds: {}, loadAverage };
  if (problem) {
    f.skipped = problem;
    return f;
  }
  const work = memoryTmp(o.tmp);
  o.cleanup.add('transfer bench folder', () => fs.rmSync(work, { recursive: true, force: true }));
  const master = path.join(work, 'master');
  const shape = o.quick ? { folders: 4, per: 50, size: 100_000 } : { folders: 20, per: 100, size: 100_000 };
  const made = makeFolder(master, shape.folders, shape.per, shape.size);
  f.files = made.files;
  f.bytes = made.bytes;
  log(`transfer: a folder of ${made.files} files, ${(made.bytes / 1e6).toFixed(0)} MB`);
  let live: LiveServers | undefined;
  const proxies: FaultProxy[] = [];
  try {
    live = await startLiveServers({ only: ['sftp', 'ftp'], dataDir: master });
    const servers = live;
    o.cleanup.add('transfer bench servers', () => servers.stop());
    const sftpProxy = await startFaultProxy({ host: live.sftp!.host, port: live.sftp!.port }, { latencyMs: LATENCY_MS });
    const ftpProxy = await startFaultProxy(live.ftp!.proxyTargets.explicit, { latencyMs: LATENCY_MS });
    proxies.push(sftpProxy, ftpProxy);
    for (const kind of ['sftp', 'ftp'] as Kind[]) {
      const proxy = kind === 'sftp' ? sftpProxy : ftpProxy;
      const via = { host: '127.0.0.1', port: proxy.port };
      const dataDir = kind === 'sftp' ? live.sftp!.dataDir : live.ftp!.dataDir;
      const k: NonNullable<TransferFigures['kinds'][Kind]> = { errors: [] };
      f.kinds[kind] = k;
      const site = (dir: string) =>
        kind === 'sftp'
          ? { id: `bench-${kind}`, name: 'bench', server_type: 'SFTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: live!.sftp!.user, ftp_pass: live!.sftp!.password, dir: path.posix.join(dataDir, dir) }
          : { id: `bench-${kind}`, name: 'bench', server_type: 'FTP', domain: '127.0.0.1', port: String(proxy.port), ftp_user: live!.ftp!.user, ftp_pass: live!.ftp!.password, dir: `/${dir}`, encryption: '0' };
      const child = async (cfg: Omit<ChildConfig, 'site' | 'password'> & { siteDir: string; pool?: number }, label: string): Promise<ChildResult & { load: number }> => {
        const file = path.join(work, `child-${kind}-${cfg.op}.json`);
        const { siteDir, pool, ...rest } = cfg;
        const config: ChildConfig = { ...rest, site: site(siteDir), ...(kind === 'ftp' ? { settings: { poolSize: pool ?? FTP_POOL } } : {}), password: kind === 'sftp' ? live!.sftp!.password : live!.ftp!.password, ...(kind === 'sftp' ? { knownHostsFile: knownHostsVia(live!, via) } : {}) };
        fs.writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
        const load = os.loadavg()[0]!;
        const r = await runNode([path.join(__dirname, 'transferChild.js'), file], { label, timeoutMs: 1_200_000 });
        if (r.code !== 0) throw new Error(`${label} failed (exit ${r.code ?? r.signal})`);
        return { ...lastJson<ChildResult>(r.stdout), load };
      };
      const timed = async (name: PeerRun['name'], cmd: 'rclone' | 'lftp', args: string[], check: () => { files: number; bytes: number }): Promise<PeerRun> => {
        const load = os.loadavg()[0]!;
        const r = await peer(cmd, args, { timeoutMs: 1_800_000, allowFailure: true });
        const got = check();
        const ok = r.code === 0 && got.files === made.files && got.bytes === made.bytes;
        const run: PeerRun = { name, ms: r.ms, ok, load, ...(ok ? {} : { error: `exit ${r.code}, ${got.files} files, ${got.bytes} bytes: ${r.stderr.trim().slice(-300)}` }) };
        log(`transfer ${kind}: ${name} ${(r.ms / 1000).toFixed(1)} s${ok ? '' : ` (FAILED: ${run.error})`}`);
        return run;
      };
      const rcloneBase = rcloneRemote(live, kind, { via, ...(kind === 'ftp' ? { tls: 'none' as const } : {}) });
      const lftpScript = (body: string) => {
        if (kind === 'ftp') return `${lftpOpen(live!, 'ftp', { via, tls: 'none' })}; ${body}; bye`;
        // SFTP through OpenSSH with the run's key and the proxy's known_hosts (the same host key).
        const s = live!.sftp!;
        const ssh = `ssh -a -x -i ${s.keyFile} -o IdentitiesOnly=yes -o UserKnownHostsFile=${knownHostsVia(live!, via)} -o BatchMode=yes -o ConnectTimeout=20`;
        return `set net:timeout 20; set net:max-retries 1; set sftp:connect-program "${ssh}"; open -u "${s.user}," sftp://${via.host}:${via.port}; cd "${s.dataDir}"; ${body}; bye`;
      };
      const remotePath = (rel: string) => (kind === 'sftp' ? `${rcloneBase}/${rel}` : `${rcloneBase}${rel}`);
      try {
        // ---- download
        const down = path.join(work, `down-${kind}`);
        const fresh = (p: string) => {
          fs.rmSync(p, { recursive: true, force: true });
          fs.mkdirSync(p, { recursive: true });
          return p;
        };
        const ours = await child({ op: 'download', local: fresh(down), cache: fresh(path.join(work, `cache-${kind}-down`)), dir: 'bench', siteDir: '' }, `transfer ${kind} download`);
        const oursGot = countFiles(path.join(down, 'bench'));
        if (oursGot.files !== made.files || oursGot.bytes !== made.bytes) k.errors.push(`our download: ${oursGot.files} files, ${oursGot.bytes} bytes`);
        log(`transfer ${kind}: ours (download) ${(ours.ms / 1000).toFixed(1)} s, ${loopText(ours.loop)}`);
        let ours8: (ChildResult & { load: number }) | undefined;
        if (kind === 'ftp') {
          ours8 = await child({ op: 'download', local: fresh(down), cache: fresh(path.join(work, `cache-${kind}-down8`)), dir: 'bench', siteDir: '', pool: FTP_POOL_MAX }, `transfer ${kind} download, pool ${FTP_POOL_MAX}`);
          const got8 = countFiles(path.join(down, 'bench'));
          if (got8.files !== made.files || got8.bytes !== made.bytes) k.errors.push(`our download (pool ${FTP_POOL_MAX}): ${got8.files} files, ${got8.bytes} bytes`);
          log(`transfer ${kind}: ours (download, pool ${FTP_POOL_MAX}) ${(ours8.ms / 1000).toFixed(1)} s`);
        }
        const peers: PeerRun[] = [];
        fresh(down);
        peers.push(await timed('rclone copy', 'rclone', ['copy', remotePath('bench'), path.join(down, 'bench')], () => countFiles(path.join(down, 'bench'))));
        fresh(down);
        peers.push(await timed('lftp mirror', 'lftp', ['-e', lftpScript(`mirror bench "${path.join(down, 'bench')}"`)], () => countFiles(path.join(down, 'bench'))));
        fs.rmSync(down, { recursive: true, force: true });
        k.download = { ours, peers, ...(ours8 ? { ours8 } : {}) };

        // ---- upload into an empty folder, then the guard check of uploading it again
        const upCache = fresh(path.join(work, `cache-${kind}-up`));
        serverFolder(dataDir, 'up-ours');
        const up = await child({ op: 'upload', local: master, cache: upCache, dir: 'bench', siteDir: 'up-ours' }, `transfer ${kind} upload`);
        const upGot = countFiles(path.join(dataDir, 'up-ours', 'bench'));
        if (upGot.files !== made.files || upGot.bytes !== made.bytes) k.errors.push(`our upload: ${upGot.files} files, ${upGot.bytes} bytes on the server`);
        log(`transfer ${kind}: ours (upload) ${(up.ms / 1000).toFixed(1)} s, ${loopText(up.loop)}`);
        k.guard = await child({ op: 'guard', local: master, cache: upCache, dir: 'bench', siteDir: 'up-ours' }, `transfer ${kind} guard`);
        log(`transfer ${kind}: guard check ${k.guard.ms.toFixed(0)} ms, listing alone ${k.guard.baselineMs!.toFixed(0)} ms`);
        fs.rmSync(path.join(dataDir, 'up-ours'), { recursive: true, force: true });
        let up8: (ChildResult & { load: number }) | undefined;
        if (kind === 'ftp') {
          serverFolder(dataDir, 'up-ours');
          up8 = await child({ op: 'upload', local: master, cache: fresh(path.join(work, `cache-${kind}-up8`)), dir: 'bench', siteDir: 'up-ours', pool: FTP_POOL_MAX }, `transfer ${kind} upload, pool ${FTP_POOL_MAX}`);
          const got8 = countFiles(path.join(dataDir, 'up-ours', 'bench'));
          if (got8.files !== made.files || got8.bytes !== made.bytes) k.errors.push(`our upload (pool ${FTP_POOL_MAX}): ${got8.files} files, ${got8.bytes} bytes on the server`);
          log(`transfer ${kind}: ours (upload, pool ${FTP_POOL_MAX}) ${(up8.ms / 1000).toFixed(1)} s`);
          fs.rmSync(path.join(dataDir, 'up-ours'), { recursive: true, force: true });
        }
        const upPeers: PeerRun[] = [];
        serverFolder(dataDir, 'up-rclone');
        upPeers.push(await timed('rclone copy', 'rclone', ['copy', path.join(master, 'bench'), remotePath('up-rclone/bench')], () => countFiles(path.join(dataDir, 'up-rclone', 'bench'))));
        fs.rmSync(path.join(dataDir, 'up-rclone'), { recursive: true, force: true });
        serverFolder(dataDir, 'up-lftp');
        upPeers.push(await timed('lftp mirror', 'lftp', ['-e', lftpScript(`mirror -R "${path.join(master, 'bench')}" up-lftp/bench`)], () => countFiles(path.join(dataDir, 'up-lftp', 'bench'))));
        fs.rmSync(path.join(dataDir, 'up-lftp'), { recursive: true, force: true });
        k.upload = { ours: up, peers: upPeers, ...(up8 ? { ours8: up8 } : {}) };

        // ---- upload on save
        serverFolder(dataDir, 'save');
        k.save = await child({ op: 'save', local: fresh(path.join(work, `save-${kind}`)), cache: fresh(path.join(work, `cache-${kind}-save`)), dir: 'save', siteDir: '', rounds: o.quick ? 7 : 15 }, `transfer ${kind} save`);
        log(`transfer ${kind}: upload on save ${k.save.ms.toFixed(0)} ms, bare upload ${k.save.baselineMs!.toFixed(0)} ms`);
      } catch (e) {
        k.errors.push(e instanceof Error ? e.message : String(e));
        log(`transfer ${kind} FAILED: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  } finally {
    for (const p of proxies) await p.close().catch(() => undefined);
    await live?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  return f;
}

const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);
const loadText = (l: number) => `load ${l.toFixed(1)}`;

export function transferRows(f: TransferFigures): Row[] {
  const group = 'Transfers (issue 34)';
  const rows: Row[] = [];
  if (f.skipped) {
    rows.push({ group, id: 'transfer.skipped', name: 'guarded transfers against the real servers', measured: `not measured: ${f.skipped}`, value: null, unit: '', target: '', ok: null });
    return rows;
  }
  const what = `${f.files.toLocaleString('en-US')} files, ${(f.bytes / 1e6).toFixed(0)} MB, ${LATENCY_MS} ms round trip added`;
  const loops: { name: string; loop: LoopDelay }[] = [];
  for (const kind of ['sftp', 'ftp'] as Kind[]) {
    const k = f.kinds[kind];
    if (!k) continue;
    const label = kind === 'sftp' ? 'SFTP' : 'FTP';
    for (const dir of ['download', 'upload'] as const) {
      const d = k[dir];
      if (!d) {
        rows.push({ group, id: `transfer.${kind}.${dir}`, name: `${dir} a folder over ${label}`, measured: `not measured${k.errors.length ? `: ${k.errors.join('; ')}` : ''}`, value: null, unit: 'ratio', target: `≥ ${TRANSFER_TARGETS.throughputRatio}`, ok: null });
        continue;
      }
      const good = d.peers.filter((p) => p.ok);
      const fastest = good.reduce<PeerRun | undefined>((a, b) => (!a || b.ms < a.ms ? b : a), undefined);
      const ours = mbps(f.bytes, d.ours.ms);
      const ratio = fastest ? ours / mbps(f.bytes, fastest.ms) : NaN;
      const peersText = d.peers.map((p) => `${p.name} ${p.ok ? `${mbps(f.bytes, p.ms).toFixed(1)} MB/s (${(p.ms / 1000).toFixed(1)} s, ${loadText(p.load)})` : `failed: ${p.error}`}`).join('; ');
      const complete = !k.errors.some((e) => e.startsWith(`our ${dir}`));
      rows.push({
        group,
        id: `transfer.${kind}.${dir}`,
        name: `${dir} a folder (${what}) over ${label}${kind === 'ftp' ? ` (plain FTP; our pool at ${FTP_POOL} connections, rclone copy's default of 4 transfers)` : ' (8 requests at once on one connection)'}: our throughput ÷ the faster of rclone copy and lftp mirror (their defaults, the same server and proxy)`,
        measured: `${Number.isFinite(ratio) ? ratio.toFixed(2) : 'n/a'} (ours ${ours.toFixed(1)} MB/s, ${(d.ours.ms / 1000).toFixed(1)} s, ${loadText(d.ours.load)}; ${peersText})${complete ? '' : '; INCOMPLETE'}`,
        value: Number.isFinite(ratio) ? round(ratio, 3) : null,
        unit: 'ratio',
        target: `≥ ${TRANSFER_TARGETS.throughputRatio}`,
        ok: Number.isFinite(ratio) && complete ? ratio >= TRANSFER_TARGETS.throughputRatio : null,
      });
      loops.push({ name: `${label} ${dir}`, loop: d.ours.loop });
      if (d.ours8 && fastest) {
        const o8 = mbps(f.bytes, d.ours8.ms);
        const r8 = o8 / mbps(f.bytes, fastest.ms);
        rows.push({
          group,
          id: `transfer.${kind}.${dir}.pool${FTP_POOL_MAX}`,
          name: `the same with our pool at its largest setting, ${FTP_POOL_MAX} connections (the peers as above)`,
          measured: `${r8.toFixed(2)} (ours ${o8.toFixed(1)} MB/s, ${(d.ours8.ms / 1000).toFixed(1)} s, ${loadText(d.ours8.load)}; ${fastest.name} ${mbps(f.bytes, fastest.ms).toFixed(1)} MB/s)`,
          value: round(r8, 3),
          unit: 'ratio',
          target: '',
          ok: null,
        });
        loops.push({ name: `${label} ${dir} (pool ${FTP_POOL_MAX})`, loop: d.ours8.loop });
      }
    }
    if (k.guard) {
      const g = k.guard;
      const ratio = g.ms / g.baselineMs!;
      rows.push({
        group,
        id: `transfer.${kind}.guard`,
        name: `the guard check of a folder upload over ${label}, bases known, nothing changed (${f.files.toLocaleString('en-US')} files, ${LATENCY_MS} ms): wall time ÷ listing the folder alone`,
        measured: `${ratio.toFixed(2)} (${g.ms.toFixed(0)} ms ÷ ${g.baselineMs!.toFixed(0)} ms; samples ${g.samples!.map((x) => x.toFixed(0)).join(', ')} ÷ ${g.baselineSamples!.map((x) => x.toFixed(0)).join(', ')} ms; ${g.files} files identical, nothing read or written; ${loadText(g.load)})`,
        value: round(ratio, 3),
        unit: 'ratio',
        target: `≤ ${TRANSFER_TARGETS.guardRatio}`,
        ok: ratio <= TRANSFER_TARGETS.guardRatio,
      });
      loops.push({ name: `${label} guard check`, loop: g.loop });
    }
    if (k.save) {
      const s = k.save;
      const ratio = s.ms / s.baselineMs!;
      rows.push({
        group,
        id: `transfer.${kind}.save`,
        name: `upload on save of one file (${(s.bytes / 1024).toFixed(1)} KB) over ${label}, guard included (its base known), ${LATENCY_MS} ms: ÷ one bare upload (temporary name, rename, stat)`,
        measured: `${ratio.toFixed(2)} (${s.ms.toFixed(0)} ms ÷ ${s.baselineMs!.toFixed(0)} ms, medians of ${s.files}; ${loadText(s.load)})`,
        value: round(ratio, 3),
        unit: 'ratio',
        target: `≤ ${TRANSFER_TARGETS.saveRatio}`,
        ok: ratio <= TRANSFER_TARGETS.saveRatio,
      });
      loops.push({ name: `${label} upload on save`, loop: s.loop });
    }
    if (k.errors.length) rows.push({ group, id: `transfer.${kind}.errors`, name: `${label}: problems`, measured: k.errors.join('; '), value: null, unit: '', target: '', ok: false });
  }
  if (loops.length) {
    const worst = loops.reduce((a, b) => (b.loop.maxMs > a.loop.maxMs ? b : a));
    const worstP99 = Math.max(...loops.map((l) => l.loop.p99Ms));
    rows.push({
      group,
      id: 'transfer.loop',
      name: 'the event loop of our process during each of the above (monitorEventLoopDelay, 1 ms)',
      measured: `worst max ${worst.loop.maxMs.toFixed(1)} ms (${worst.name}), worst p99 ${worstP99.toFixed(1)} ms; ${loops.map((l) => `${l.name}: ${loopText(l.loop)}`).join('; ')}`,
      value: round(worst.loop.maxMs, 1),
      unit: 'ms',
      target: `max ≤ ${LOOP_TARGETS.maxMs} ms, p99 ≤ ${LOOP_TARGETS.p99Ms} ms`,
      ok: loops.every((l) => loopOk(l.loop)),
    });
  }
  return rows;
}

/**
 * The host's side (test/integration/bench/transfer.bench.ts): the extension host's event loop
 * during a folder download from its command and during each upload on save. Medians over the
 * samples, each sample's max/p99 listed.
 */
export function transferHostRows(h: HostFigures['transfer']): Row[] {
  const group = 'Transfers (issue 34)';
  if (!h) return [];
  const target = `max ≤ ${LOOP_TARGETS.maxMs} ms, p99 ≤ ${LOOP_TARGETS.p99Ms} ms`;
  if (h.skipped) return [{ group, id: 'transfer.host.skipped', name: 'the host\'s event loop during transfers', measured: `not measured: ${h.skipped}`, value: null, unit: '', target, ok: null }];
  const rows: Row[] = [];
  const row = (id: string, name: string, list: { ms: number; loop: LoopDelay }[], what: string) => {
    if (!list.length) {
      rows.push({ group, id, name, measured: `not measured${h.errors.length ? `: ${h.errors.join('; ')}` : ''}`, value: null, unit: 'ms', target, ok: false });
      return;
    }
    const loop = medianLoop(list.map((x) => x.loop));
    rows.push({
      group,
      id,
      name,
      measured: `${loopText(loop)} (samples: ${list.map((x) => `${x.loop.maxMs.toFixed(0)}/${x.loop.p99Ms.toFixed(0)}`).join(', ')} ms max/p99; ${what} ${median(list.map((x) => x.ms)).toFixed(0)} ms)`,
      value: round(loop.maxMs, 1),
      unit: 'ms',
      target,
      ok: loopOk(loop),
    });
  };
  const folder = `${h.files.toLocaleString('en-US')} files, ${(h.bytes / 1e6).toFixed(0)} MB`;
  for (const kind of ['sftp', 'ftp'] as const) {
    row(`transfer.host.download.${kind}`, `the extension host's event loop during a folder download from its command (${folder}) over ${kind === 'sftp' ? 'SFTP' : 'FTPS'}, loopback (host; monitorEventLoopDelay, 1 ms)`, h.download.filter((x) => x.kind === kind), 'the download');
  }
  row('transfer.host.save', 'the extension host\'s event loop during upload on save of one 5 KB file over SFTP, save → uploaded, guard included (host; monitorEventLoopDelay, 1 ms)', h.save, 'save → uploaded');
  if (h.errors.length) rows.push({ group, id: 'transfer.host.errors', name: 'the host\'s transfer rows: problems', measured: h.errors.join('; '), value: null, unit: '', target: '', ok: false });
  return rows;
}

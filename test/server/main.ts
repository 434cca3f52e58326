// CLI of the local service (`npm run service -- [flags]`). Prints the URL, the demo credentials,
// curl examples and one machine-readable line `SERVICE_READY <url>` once listening.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALL_FAULT_KINDS, DEMO, FAULT_KINDS, startService, type FaultKind, type ServiceOptions } from './index';

const HELP = `Usage: node out/test/server/main.js [flags]

  --port N          port (default 8787; env SR_PORT)
  --host H          host (default 127.0.0.1; env SR_HOST)
  --data FILE       data file (default <repo>/.service-data/service.json; env SR_DATA)
  --latency MS      time from each /api request to its reply: a read's reply is made while it
                    runs, a write is carried out after it (env SR_LATENCY_MS)
  --fault-rate R    0..1, share of /api requests that get a random fault (env SR_FAULT_RATE)
  --faults k1,k2    fault kinds for --fault-rate (default all: ${FAULT_KINDS.join(',')}; env SR_FAULTS)
  --seed N          seed of the random faults, to replay a run (default: picked at start and
                    printed; env SR_SEED)
  --large           add the large data set (env SR_LARGE=1)
  --spec-shaped     answer the four reads exactly as the spec shows them, without "success"
                    (a failed read answers {error}); env SR_SPEC_SHAPED=1
  --save-replaces   Save Site on an existing site replaces the record with exactly the fields
                    sent (a field left out is emptied); env SR_SAVE_REPLACES=1
  --reads-ignore-site
                    Get Revision answers by the revision id and Get Revisions by the path alone,
                    from any site the user can read (the spec does not rule it out); env
                    SR_READS_IGNORE_SITE=1
  --search-scale    add the search-scale data set: 2,000 files × 20 revisions × 10 KB (env SR_SEARCH_SCALE=1)
  --reset           delete the data file first (seed again)
  --quiet           no per-request log lines
  --help
`;

function fail(message: string): never {
  console.error(`service: ${message}\n\n${HELP}`);
  process.exit(2);
}

function num(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) fail(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return n;
}

function kinds(raw: string | undefined): FaultKind[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of list) if (!ALL_FAULT_KINDS.includes(k as FaultKind)) fail(`unknown fault kind "${k}"`);
  return list as FaultKind[];
}

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..', '..');
  const env = process.env;
  const flags: Record<string, string | true> = {};
  const args = process.argv.slice(2);
  const valued = new Set(['--port', '--host', '--data', '--latency', '--fault-rate', '--faults', '--seed']);
  const bool = new Set(['--large', '--search-scale', '--spec-shaped', '--save-replaces', '--reads-ignore-site', '--reset', '--quiet', '--help', '-h']);
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i].split(/=(.*)/s, 2);
    if (valued.has(name)) {
      const v = inline ?? args[++i];
      if (v === undefined) fail(`${name} needs a value`);
      flags[name] = v;
    } else if (bool.has(name)) {
      flags[name] = true;
    } else {
      fail(`unknown argument "${args[i]}"`);
    }
  }
  if (flags['--help'] || flags['-h']) {
    console.log(HELP);
    return;
  }
  const str = (flag: string, envName: string) => (typeof flags[flag] === 'string' ? (flags[flag] as string) : env[envName]);

  const dataFile = path.resolve(str('--data', 'SR_DATA') || path.join(root, '.service-data', 'service.json'));
  if (flags['--reset']) fs.rmSync(dataFile, { force: true });

  const opts: ServiceOptions = {
    host: str('--host', 'SR_HOST') || '127.0.0.1',
    port: num('--port', str('--port', 'SR_PORT'), 0, 65535) ?? 8787,
    dataFile,
    latencyMs: num('--latency', str('--latency', 'SR_LATENCY_MS'), 0, 3_600_000),
    faultRate: num('--fault-rate', str('--fault-rate', 'SR_FAULT_RATE'), 0, 1),
    faultKinds: kinds(str('--faults', 'SR_FAULTS')),
    seed: num('--seed', str('--seed', 'SR_SEED'), 0, Number.MAX_SAFE_INTEGER),
    large: !!flags['--large'] || env.SR_LARGE === '1' || env.SR_LARGE === 'true',
    specShaped: !!flags['--spec-shaped'] || env.SR_SPEC_SHAPED === '1' || env.SR_SPEC_SHAPED === 'true',
    saveReplaces: !!flags['--save-replaces'] || env.SR_SAVE_REPLACES === '1' || env.SR_SAVE_REPLACES === 'true',
    readsIgnoreSite: !!flags['--reads-ignore-site'] || env.SR_READS_IGNORE_SITE === '1' || env.SR_READS_IGNORE_SITE === 'true',
    searchScale: !!flags['--search-scale'] || env.SR_SEARCH_SCALE === '1' || env.SR_SEARCH_SCALE === 'true',
    quiet: !!flags['--quiet'],
  };

  let service;
  try {
    service = await startService(opts);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') console.error(`service: port ${opts.port} is in use; pick another with --port N (or SR_PORT).`);
    else console.error(`service: ${e.message}`);
    process.exit(1);
  }

  const running = service;
  const u = service.url;
  const auth = `-d login=1 -d email=${DEMO.user.email} -d password=${DEMO.user.password}`;
  console.log(`Site Revisions local service listening on ${u}
  data file: ${service.dataFile}${opts.large ? '\n  large data set: site "Large site" (id 900000)' : ''}${opts.searchScale ? '\n  search-scale data set: site "Search scale site" (id 900001)' : ''}${opts.latencyMs ? `\n  latency: ${opts.latencyMs} ms` : ''}${opts.faultRate ? `\n  fault rate: ${opts.faultRate} (${(opts.faultKinds ?? FAULT_KINDS).join(', ')})` : ''}${opts.specShaped ? '\n  reads answer as the spec shows them (no "success")' : ''}${opts.saveReplaces ? '\n  Save Site replaces the whole record' : ''}${opts.readsIgnoreSite ? '\n  reads find a revision by its id and a file by its path, whatever site they name' : ''}

Demo accounts (test fixtures):
  ${DEMO.user.email} / ${DEMO.user.password}
  ${DEMO.keyUser.email} / ${DEMO.keyUser.password}, API key ${DEMO.keyUser.apiKey} (required)
  ${DEMO.team.email} / ${DEMO.team.password} (owns the shared site "Team Intranet")

Try:
  curl -X POST '${u}/api/sites' ${auth}
  curl -X POST '${u}/api/sites?cmd=save' ${auth} -d new=1 -d name='My site' -d server_type=FTP -d domain=ftp.example.com -d ftp_user=me -d dir=/www -d pasv=1
  curl -X POST '${u}/api/sites?cmd=delete' ${auth} -d site=12    # the id the save replied
  curl -X POST '${u}/api/revisions?site=1' ${auth} -d site=1
  curl -X POST '${u}/api/revisions?site=1&file=index.php&no_content=1' ${auth}
  curl -X POST '${u}/api/revisions?site=1&revision=1001' ${auth}
  curl -X POST '${u}/api/sites' -d login=1 -d email=${DEMO.keyUser.email} -d password=${DEMO.keyUser.password} -H 'Authorization: Bearer ${DEMO.keyUser.apiKey}'
Control: GET ${u}/__control/stats, POST ${u}/__control/reset-stats, POST ${u}/__control/config (JSON), POST ${u}/__control/reseed
`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\nservice: ${signal}, stopping`);
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  console.log(`SERVICE_READY ${u}`);
}

main().catch((err) => {
  console.error(`service: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});

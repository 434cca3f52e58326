// One sample of the import's preview, in a fresh Node process (the first call is what a user
// pays: the import's code loads on first use, its readers start on a thread of their own): a
// FileZilla site manager of 500 sites (folders, every protocol the service takes, base64
// passwords, RemoteDir with spaces) read from disk (bounded), parsed on the import's thread,
// checked against the site form's rules and matched with 300 sites on the service: the rows the
// preview shows, as the extension makes them. Prints one JSON line on stdout.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SITE_STRING_FIELDS, type Site } from '../src/core/api/types';

export const SITES = 500;
const ON_SERVICE = 300;
const WARM_RUNS = 5;

/** A site manager of `n` sites; every fifth is one of the sites on the service. */
export function siteManagerXml(n: number): string {
  const protocols = [0, 1, 3, 4, 6, 7, 9];
  const out = ['<?xml version="1.0" encoding="UTF-8" standalone="yes" ?>', '<FileZilla3 version="3.67.0" platform="windows">', '  <Servers>'];
  for (let f = 0; f < n / 25; f++) {
    out.push(`    <Folder expanded="1">Client ${f}`);
    for (let i = f * 25; i < (f + 1) * 25 && i < n; i++) {
      const p = protocols[i % protocols.length]!;
      const pass = Buffer.from(`secret-${i}-pässword`).toString('base64');
      out.push(
        `      <Server><Host>${i % 5 === 0 ? `host${i % ON_SERVICE}` : `h${i}`}.example.com</Host><Port>${p === 1 ? 22 : p === 3 ? 990 : 21}</Port><Protocol>${p}</Protocol><Type>0</Type><User>user${i}</User><Pass encoding="base64">${pass}</Pass><Logontype>1</Logontype><PasvMode>MODE_PASSIVE</PasvMode><EncodingType>Auto</EncodingType><BypassProxy>0</BypassProxy><Name>Site ${i} &amp; co</Name><Comments></Comments><LocalDir></LocalDir><RemoteDir>1 0 11 public_html 9 site ${String(i).padStart(4, '0')}</RemoteDir><SyncBrowsing>0</SyncBrowsing><DirectoryComparison>0</DirectoryComparison></Server>`,
      );
    }
    out.push('    </Folder>');
  }
  out.push('  </Servers>', '</FileZilla3>', '');
  return out.join('\n');
}

function onService(): Site[] {
  return Array.from({ length: ON_SERVICE }, (_, i) => {
    const s = { shared: false } as Site;
    for (const f of SITE_STRING_FIELDS) s[f] = '';
    return Object.assign(s, { id: String(i + 1), name: `On service ${i}`, server_type: 'FTP', domain: `host${i}.example.com`, port: '21', ftp_user: `user${i}`, dir: `/public_html/site ${String(i).padStart(4, '0')}` });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-import-bench-'));
  try {
    const file = path.join(dir, 'sitemanager.xml');
    fs.writeFileSync(file, siteManagerXml(SITES));
    const existing = onService();
    const t0 = performance.now();
    // What the command loads on first use: the readers, their parsers and the preview's rules.
    const { parseOffThread } = await import('../src/core/siteImport/offThread.js');
    const { readImportBytes } = await import('../src/core/siteImport/text.js');
    const { previewRows } = await import('../src/features/siteImport/preview.js');
    const { parseSiteFile } = await import('../src/core/siteImport/parse.js');
    const loadMs = performance.now() - t0;
    // The packaged thread (dist/siteImportWorker.js, one bundled file) when the bench passes it; else out/'s modules.
    const workerFile = process.env.SR_IMPORT_WORKER;
    const opts = workerFile ? { workerFile } : {};
    const result = await parseOffThread(await readImportBytes(file), file, opts);
    const rows = previewRows([{ file, result }], existing);
    const coldMs = performance.now() - t0;
    const warm: number[] = [];
    const parse: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      const a = performance.now();
      const r = await parseOffThread(await readImportBytes(file), file, opts);
      previewRows([{ file, result: r }], existing);
      warm.push(performance.now() - a);
      // The parse alone, on this thread (what the thread does, without its start).
      const b = performance.now();
      await parseSiteFile(file);
      parse.push(performance.now() - b);
    }
    // A peer in the same run: an empty thread started and answering (what any work off the host's thread pays first).
    const { Worker } = await import('node:worker_threads');
    const peer: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      const a = performance.now();
      await new Promise<void>((resolve, reject) => {
        const w = new Worker('require("node:worker_threads").parentPort.postMessage(1)', { eval: true });
        w.once('message', () => {
          resolve();
          w.terminate().catch(() => undefined);
        });
        w.once('error', reject);
      });
      peer.push(performance.now() - a);
    }
    process.stdout.write(
      `${JSON.stringify({
        bytes: fs.statSync(file).size,
        packagedThread: !!workerFile,
        sites: result.sites.length,
        rows: rows.rows.length,
        alreadyOnService: rows.rows.filter((r) => r.existing).length,
        invalid: rows.rows.filter((r) => r.invalid).length,
        loadMs,
        coldMs,
        warmMs: median(warm),
        parseWarmMs: median(parse),
        emptyThreadMs: median(peer),
      })}\n`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}

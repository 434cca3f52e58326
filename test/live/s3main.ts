// The S3 server of the live tests, as a child process (test/live/servers.ts starts it under Node
// 24 with --openssl-legacy-provider): @20minutes/s3rver, which checks SigV4 signatures (a wrong
// secret gets 403 SignatureDoesNotMatch; s3rver 3.7.1 answers 200, so it proves nothing).
//
//   node --openssl-legacy-provider out/test/live/s3main.js CONFIG.json
//
// CONFIG: { directory, bucket, accessKeyId, secretAccessKey, seedDir?, certFile?, keyFile? }.
// Differences from s3rver alone, each what a real S3 bucket does: only this run's key pair is
// valid (the built-in S3RVER/S3RVER is revoked), and an unsigned request gets 403 AccessDenied
// (s3rver lets anonymous requests through). The seed's regular files become objects with the
// files' modification times as LastModified (symbolic links and empty folders have no S3 form):
// see seed().
// Prints `S3_READY <httpPort> <httpsPort|0>` once it listens; exits on SIGTERM or when its
// standard input closes (the parent died).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

interface Config {
  directory: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  seedDir?: string;
  certFile?: string;
  keyFile?: string;
}

/* eslint-disable @typescript-eslint/no-require-imports -- s3rver is CommonJS without types */
interface S3Store {
  getResourcePath(bucket: string, key: string, resource: string): string;
}
interface S3App {
  store: S3Store;
  configureBuckets(): Promise<unknown>;
  callback(): http.RequestListener;
}

const TYPES: Record<string, string> = { '.txt': 'text/plain; charset=utf-8', '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.md': 'text/markdown', '.bin': 'application/octet-stream' };

function* regularFiles(root: string, rel = ''): Generator<string> {
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) yield* regularFiles(root, p);
    else if (e.isFile()) yield p;
  }
}

/**
 * Loads the seed's regular files as objects: each where the store's own getResourcePath puts
 * it, with the MD5 and metadata files its putMetadata would write, and the file's modification
 * time (the store reports the object file's mtime as LastModified). Not through putObject: its
 * streams and async writes cost ~1 ms an object on a busy 2-core machine (20 s for the large
 * seed). The read-back tests (listing with times, GET of the special names) prove the layout;
 * @20minutes/s3rver is pinned to an exact version.
 */
function seed(app: S3App, cfg: Config): number {
  if (!cfg.seedDir) return 0;
  let n = 0;
  const made = new Set<string>();
  for (const key of regularFiles(cfg.seedDir)) {
    const file = path.join(cfg.seedDir, key);
    const dest = app.store.getResourcePath(cfg.bucket, key, 'object');
    const dir = path.dirname(dest);
    if (!made.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    const md5 = createHash('md5');
    const st = fs.statSync(file);
    if (st.size <= 8 * 1024 * 1024) {
      const content = fs.readFileSync(file);
      md5.update(content);
      fs.writeFileSync(dest, content);
    } else {
      fs.copyFileSync(file, dest);
      const buf = Buffer.alloc(1024 * 1024);
      const fd = fs.openSync(dest, 'r');
      try {
        for (let got; (got = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) md5.update(buf.subarray(0, got));
      } finally {
        fs.closeSync(fd);
      }
    }
    // What the store's putMetadata writes, synchronously (its async writes queue on the thread pool).
    fs.writeFileSync(app.store.getResourcePath(cfg.bucket, key, 'object.md5'), md5.digest('hex'));
    fs.writeFileSync(app.store.getResourcePath(cfg.bucket, key, 'metadata.json'), JSON.stringify({ 'content-type': TYPES[path.extname(key)] ?? 'application/octet-stream' }, null, 2));
    fs.utimesSync(dest, st.atime, st.mtime);
    n++;
  }
  return n;
}

function accessDenied(res: http.ServerResponse): void {
  const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';
  res.writeHead(403, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

async function main(): Promise<void> {
  const cfg = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Config;
  const S3rver = require('@20minutes/s3rver') as new (o: object) => S3App;
  const { DUMMY_ACCOUNT } = require('@20minutes/s3rver/lib/models/account') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void; revokeAccessKey(id: string): void } };
  DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
  DUMMY_ACCOUNT.createKeyPair(cfg.accessKeyId, cfg.secretAccessKey);
  fs.mkdirSync(cfg.directory, { recursive: true });
  const app = new S3rver({ directory: cfg.directory, silent: true, vhostBuckets: false, configureBuckets: [{ name: cfg.bucket }] });
  await app.configureBuckets();
  const t0 = Date.now();
  const seeded = seed(app, cfg);
  if (seeded) process.stderr.write(`[s3] seeded ${seeded} objects in ${Date.now() - t0} ms\n`);
  const handle = app.callback();
  const onRequest: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const signed = 'authorization' in req.headers || url.searchParams.has('X-Amz-Algorithm') || url.searchParams.has('Signature');
    if (!signed && req.method !== 'OPTIONS') return accessDenied(res);
    handle(req, res);
  };
  const servers: (http.Server | https.Server)[] = [http.createServer(onRequest)];
  if (cfg.certFile && cfg.keyFile) servers.push(https.createServer({ cert: fs.readFileSync(cfg.certFile), key: fs.readFileSync(cfg.keyFile) }, onRequest));
  const ports = await Promise.all(servers.map(listen));
  process.stdout.write(`S3_READY ${ports[0]} ${ports[1] ?? 0}\n`);
  const stop = (): void => {
    for (const s of servers) {
      s.close();
      s.closeAllConnections();
    }
    setTimeout(() => process.exit(0), 200).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}

main().catch((err: unknown) => {
  process.stderr.write(`[s3] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

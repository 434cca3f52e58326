// The newcomer's live server (`npm start` and the screenshots): the demo site "Bakery API" is
// pointed at an SFTP server on loopback, embedded in this process (ssh2's own Server, already a
// dependency of the extension; nothing is installed), serving a folder seeded from the site's
// newest revisions on the local service, then changed in a few files as if someone had edited the
// live server: so Test Connection, Live Files and Live Drift work on the first click, and the
// drift shows those files. It stops with the process (Cleanup), and with npm start's signals.
//
// The host key is made for each run and NOT trusted in advance: the first connection shows the
// real trust prompt (its SHA256 fingerprint, printed here too), as it would for any new server.
// It takes writes (issue 34: uploads, syncs, saves of the live folder), inside its folder only,
// as OpenSSH's sftp-server does: a rename onto an existing name is refused (the client removes the
// target first), links are not made.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Server, utils } from 'ssh2';
import { SiteRevisionClient } from '../../src/core/api/client';
import type { Site } from '../../src/core/api/types';
import { DEMO } from '../server/demo';
import type { Cleanup } from './common';

/** The demo site given a live server, and what the live folder changes after seeding. */
export const LIVE_DEMO = {
  siteName: 'Bakery API',
  user: 'deploy',
  password: 'demo-sftp-password',
  /** Files changed on the "live server" after the seed: each differs from its newest revision. */
  changes: 3,
} as const;

export interface LiveDemo {
  port: number;
  folder: string;
  fingerprint: string;
  close(): Promise<void>;
}

interface Attrs {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  atime: number;
  mtime: number;
}

function attrsOf(st: fs.Stats): Attrs {
  return { mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, atime: Math.floor(st.atimeMs / 1000), mtime: Math.floor(st.mtimeMs / 1000) };
}

function longname(name: string, st: fs.Stats): string {
  const kind = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : '-';
  const perm = (st.mode & 0o777).toString(8);
  return `${kind}${perm} 1 ${LIVE_DEMO.user} ${LIVE_DEMO.user} ${st.size} ${new Date(st.mtimeMs).toISOString().slice(0, 16)} ${name}`;
}

/** Serves `root` over SFTP on 127.0.0.1 (reads and writes inside it; links are not made). */
export async function startSftpServer(root: string): Promise<LiveDemo> {
  const { STATUS_CODE } = utils.sftp;
  const key = utils.generateKeyPairSync('ed25519');
  const pub = utils.parseKey(key.public);
  const blob = (Array.isArray(pub) ? pub[0] : pub) as { getPublicSSH(): Buffer };
  const fingerprint = `SHA256:${createHash('sha256').update(blob.getPublicSSH()).digest('base64').replace(/=+$/, '')}`;
  const real = fs.realpathSync(root);
  /** A client path ('/a/b', 'a', '.') as a path under the root, or undefined when it leaves it. */
  const local = (p: string): string | undefined => {
    const abs = path.resolve(real, `.${path.posix.resolve('/', p)}`);
    return abs === real || abs.startsWith(real + path.sep) ? abs : undefined;
  };
  const virtual = (abs: string) => `/${path.relative(real, abs).split(path.sep).join('/')}`.replace(/^\/$/, '/');
  const server = new Server({ hostKeys: [key.private] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      if (ctx.method === 'password' && ctx.username === LIVE_DEMO.user && ctx.password === LIVE_DEMO.password) ctx.accept();
      else ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          const handles = new Map<number, { kind: 'dir'; path: string; done: boolean } | { kind: 'file'; fd: number }>();
          let next = 1;
          const handle = (n: number) => {
            const b = Buffer.alloc(4);
            b.writeUInt32BE(n);
            return b;
          };
          const find = (h: Buffer) => (h.length === 4 ? handles.get(h.readUInt32BE(0)) : undefined);
          const fail = (id: number, e: unknown) => sftp.status(id, (e as NodeJS.ErrnoException)?.code === 'ENOENT' ? STATUS_CODE.NO_SUCH_FILE : STATUS_CODE.FAILURE);
          sftp.on('REALPATH', (id, p) => {
            const abs = local(p);
            if (!abs) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED);
            sftp.name(id, [{ filename: virtual(abs), longname: virtual(abs), attrs: {} as Attrs }]);
          });
          const stat = (follow: boolean) => (id: number, p: string) => {
            const abs = local(p);
            if (!abs) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED);
            try {
              sftp.attrs(id, attrsOf(follow ? fs.statSync(abs) : fs.lstatSync(abs)));
            } catch (e) {
              fail(id, e);
            }
          };
          sftp.on('STAT', stat(true));
          sftp.on('LSTAT', stat(false));
          sftp.on('READLINK', (id, p) => {
            const abs = local(p);
            try {
              if (!abs) throw new Error('outside');
              const t = fs.readlinkSync(abs);
              sftp.name(id, [{ filename: t, longname: t, attrs: {} as Attrs }]);
            } catch (e) {
              fail(id, e);
            }
          });
          sftp.on('OPENDIR', (id, p) => {
            const abs = local(p);
            if (!abs || !fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE);
            const n = next++;
            handles.set(n, { kind: 'dir', path: abs, done: false });
            sftp.handle(id, handle(n));
          });
          sftp.on('READDIR', (id, h) => {
            const d = find(h);
            if (!d || d.kind !== 'dir') return sftp.status(id, STATUS_CODE.FAILURE);
            if (d.done) return sftp.status(id, STATUS_CODE.EOF);
            d.done = true;
            const names = fs.readdirSync(d.path).map((name) => {
              const st = fs.lstatSync(path.join(d.path, name));
              return { filename: name, longname: longname(name, st), attrs: attrsOf(st) };
            });
            sftp.name(id, names);
          });
          sftp.on('OPEN', (id, p, flags, attrs) => {
            const abs = local(p);
            const how = utils.sftp.flagsToString(flags);
            if (!abs || !how) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED);
            try {
              const n = next++;
              handles.set(n, { kind: 'file', fd: fs.openSync(abs, how, typeof attrs?.mode === 'number' ? attrs.mode & 0o777 : 0o644) });
              sftp.handle(id, handle(n));
            } catch (e) {
              fail(id, e);
            }
          });
          sftp.on('WRITE', (id, h, offset, data) => {
            const f = find(h);
            if (!f || f.kind !== 'file') return sftp.status(id, STATUS_CODE.FAILURE);
            try {
              fs.writeSync(f.fd, data, 0, data.length, offset);
              sftp.status(id, STATUS_CODE.OK);
            } catch (e) {
              fail(id, e);
            }
          });
          /** Sets what a SETSTAT / FSETSTAT asks: permission bits, times. */
          const setAttrs = (id: number, set: { mode?: (m: number) => void; times?: (a: number, m: number) => void }, attrs: Partial<Attrs>) => {
            try {
              if (typeof attrs.mode === 'number') set.mode?.(attrs.mode & 0o7777);
              if (typeof attrs.mtime === 'number') set.times?.(typeof attrs.atime === 'number' ? attrs.atime : attrs.mtime, attrs.mtime);
              sftp.status(id, STATUS_CODE.OK);
            } catch (e) {
              fail(id, e);
            }
          };
          sftp.on('FSETSTAT', (id, h, attrs) => {
            const f = find(h);
            if (!f || f.kind !== 'file') return sftp.status(id, STATUS_CODE.FAILURE);
            setAttrs(id, { mode: (m) => fs.fchmodSync(f.fd, m), times: (a, m) => fs.futimesSync(f.fd, a, m) }, attrs);
          });
          sftp.on('SETSTAT', (id, p, attrs) => {
            const abs = local(p);
            if (!abs) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED);
            setAttrs(id, { mode: (m) => fs.chmodSync(abs, m), times: (a, m) => fs.utimesSync(abs, a, m) }, attrs);
          });
          const inside = (op: 'REMOVE' | 'RMDIR' | 'MKDIR', fn: (abs: string) => void) =>
            sftp.on(op, (id: number, p: string) => {
              const abs = local(p);
              if (!abs || abs === real) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED);
              try {
                fn(abs);
                sftp.status(id, STATUS_CODE.OK);
              } catch (e) {
                fail(id, e);
              }
            });
          inside('REMOVE', (abs) => fs.unlinkSync(abs));
          inside('RMDIR', (abs) => fs.rmdirSync(abs));
          inside('MKDIR', (abs) => fs.mkdirSync(abs));
          sftp.on('RENAME', (id, from, to) => {
            const a = local(from);
            const b = local(to);
            if (!a || !b || a === real) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED);
            // As OpenSSH's sftp-server: an existing target is refused.
            if (fs.existsSync(b)) return sftp.status(id, STATUS_CODE.FAILURE);
            try {
              fs.renameSync(a, b);
              sftp.status(id, STATUS_CODE.OK);
            } catch (e) {
              fail(id, e);
            }
          });
          sftp.on('FSTAT', (id, h) => {
            const f = find(h);
            if (!f || f.kind !== 'file') return sftp.status(id, STATUS_CODE.FAILURE);
            sftp.attrs(id, attrsOf(fs.fstatSync(f.fd)));
          });
          sftp.on('READ', (id, h, offset, length) => {
            const f = find(h);
            if (!f || f.kind !== 'file') return sftp.status(id, STATUS_CODE.FAILURE);
            const buf = Buffer.alloc(Math.min(length, 256 * 1024));
            const n = fs.readSync(f.fd, buf, 0, buf.length, offset);
            if (n === 0) return sftp.status(id, STATUS_CODE.EOF);
            sftp.data(id, buf.subarray(0, n));
          });
          sftp.on('CLOSE', (id, h) => {
            const f = find(h);
            if (f?.kind === 'file') fs.closeSync(f.fd);
            if (h.length === 4) handles.delete(h.readUInt32BE(0));
            sftp.status(id, STATUS_CODE.OK);
          });
          sftp.on('SYMLINK', (id: number) => sftp.status(id, STATUS_CODE.PERMISSION_DENIED));
        });
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    folder: root,
    fingerprint,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open sessions end with the server.
        for (const c of (server as unknown as { _connections?: unknown; connections?: unknown[] }).connections ?? []) (c as { end?: () => void }).end?.();
      }),
  };
}

/** The newest content of each file of a site on the local service, as the demo user reads it. */
async function newestFiles(client: SiteRevisionClient, site: Site): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const files = await client.getRevisionFiles(site.id);
  for (const file of files) {
    const revs = await client.getRevisions(site.id, file);
    const newest = [...revs].sort((a, b) => b.date.localeCompare(a.date) || Number(b.id) - Number(a.id))[0];
    if (!newest) continue;
    out.set(file.replace(/^\/+/, ''), (await client.getRevision(site.id, newest.id)).content);
  }
  return out;
}

/**
 * Seeds the live folder of the demo site from its newest revisions, changes a few files as the
 * "live server" would have them, starts the SFTP server on it and points the site at it.
 */
export async function startLiveDemo(o: { runDir: string; cleanup: Cleanup; serviceUrl: string; log?: (m: string) => void }): Promise<LiveDemo | undefined> {
  const client = new SiteRevisionClient({ baseUrl: o.serviceUrl, credentials: () => ({ email: DEMO.user.email, password: DEMO.user.password }) });
  try {
    const site = (await client.getSites()).find((s) => s.name === LIVE_DEMO.siteName);
    if (!site) {
      o.log?.(`live demo: no site named ${LIVE_DEMO.siteName} in the demo data; no live server`);
      return undefined;
    }
    const folder = path.join(o.runDir, 'live', 'bakery-api');
    const files = await newestFiles(client, site);
    for (const [rel, content] of files) {
      const abs = path.join(folder, ...rel.split('/'));
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, content);
    }
    // Changed on the live server since their newest revision: one edit that changes the size, one
    // of the same size (caught by content), and one file nobody stored a revision of.
    const names = [...files.keys()].sort();
    const edit = names.find((n) => /\.(php|js|json|md|txt|ya?ml)$/.test(n)) ?? names[0];
    if (edit) fs.appendFileSync(path.join(folder, ...edit.split('/')), '\n// hotfix made directly on the server\n');
    const same = names.find((n) => n !== edit && /[a-z]/.test(files.get(n) ?? ''));
    if (same) {
      // A letter in the middle of the file (a diff opened under the conflict choice shows it).
      const text = files.get(same)!;
      const from = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
      const i = from + Math.max(0, text.slice(from).search(/[a-z]/));
      fs.writeFileSync(path.join(folder, ...same.split('/')), text.slice(0, i) + text[i]!.toUpperCase() + text.slice(i + 1));
    }
    fs.writeFileSync(path.join(folder, 'debug.log'), 'left on the server by a manual upload\n');
    const server = await startSftpServer(folder);
    o.cleanup.add('live demo server', () => server.close());
    await client.updateSite(site.id, {
      name: site.name,
      server_type: 'SFTP',
      domain: '127.0.0.1',
      port: String(server.port),
      logon_type: '',
      ftp_user: LIVE_DEMO.user,
      ftp_pass: LIVE_DEMO.password,
      dir: '',
    } as never);
    o.log?.(`live demo: ${LIVE_DEMO.siteName} → sftp://127.0.0.1:${server.port} (${files.size} files; changed on the server: ${[edit, same, 'debug.log'].filter(Boolean).join(', ')}); host key ${server.fingerprint}`);
    return server;
  } finally {
    await client.dispose();
  }
}

// The live file system of one site (types.ts LiveFs) over a protocol driver loaded on first use
// (`await import()`: each protocol is its own chunk in the extension's build). What every
// protocol shares is here: path checks, links followed only within the root, batches, reads
// with progress and one retry, writes to a temporary name then renamed (and the temporary file
// removed after a failure or a cancel), recursive mkdir and delete.
import { randomBytes } from 'node:crypto';
import { checkCleartext } from './trust';
import type { CreateDriver, Driver, DriverContext, DriverRead } from './driver';
import { LiveError, type LiveCapabilities, type LiveEndpoint, type LiveEntry, type LiveFs, type LiveOptions, type LiveReadStream, type OpenLive, type ListOptions, type OpOptions, type ReadOptions, type WriteOptions, type WriteResult } from './types';
import { BatchQueue, baseName, cancelled, checkPath, gather, joinRel, parentRel, resolveLinkTarget } from './util';

/** Loads a protocol's module (a chunk of its own in the build). */
export async function loadDriver(protocol: LiveEndpoint['protocol']): Promise<CreateDriver> {
  type M = { createDriver: CreateDriver; default?: { createDriver: CreateDriver } };
  const pick = (m: M) => m.createDriver ?? m.default!.createDriver;
  switch (protocol) {
    case 'ftp':
      return pick((await import('./ftp.js')) as M);
    case 'sftp':
      return pick((await import('./sftp.js')) as M);
    case 'webdav':
      return pick((await import('./webdav.js')) as M);
    case 's3':
      return pick((await import('./s3.js')) as M);
  }
}

const CAPS: Record<LiveEndpoint['protocol'], LiveCapabilities> = {
  ftp: { symlinks: true, rename: true, atomicReplace: true, setTime: true, chmod: true, realFolders: true, rangeRead: true },
  // SFTP: one step with OpenSSH's posix-rename; a server without it makes a write say notDone 'atomic'.
  sftp: { symlinks: true, rename: true, atomicReplace: true, setTime: true, chmod: true, realFolders: true, rangeRead: true },
  // WebDAV's MOVE over an existing file deletes it first (RFC 4918 9.9.3): not one step.
  webdav: { symlinks: false, rename: true, atomicReplace: false, setTime: false, chmod: false, realFolders: true, rangeRead: true },
  s3: { symlinks: false, rename: false, atomicReplace: true, setTime: false, chmod: false, realFolders: false, rangeRead: true },
};

const MAX_LINK_HOPS = 8;
const PLAIN_MAX = 200_000;

/** Opens a site's live file system; nothing connects before the first operation. */
export const openLive: OpenLive = (endpoint, options) => new LiveFsImpl(endpoint, options);

export class LiveFsImpl implements LiveFs {
  readonly capabilities: LiveCapabilities;
  private driver: Promise<Driver> | undefined;
  private accepted: string | undefined;
  private readonly once = new Set<string>();
  /** Links seen in listings: root-relative path → the target's root-relative path, or null (outside or dangling). */
  private readonly links = new Map<string, string | null>();
  /**
   * Paths seen in listings as a file or a folder (not a link): following them needs no stat of
   * their own (a walk over SFTP would otherwise stat every folder before listing it, and a read
   * every file before opening it: a round trip each). Forgotten past PLAIN_MAX, and on close().
   */
  private readonly plain = new Set<string>();

  constructor(
    readonly endpoint: LiveEndpoint,
    private readonly options: LiveOptions,
  ) {
    this.capabilities = CAPS[endpoint.protocol];
  }

  /** The driver, loaded and made on first use (a failed load is tried again next time). */
  private drv(): Promise<Driver> {
    this.driver ??= (async () => {
      await checkCleartext(this.endpoint, this.options.trust, this.once);
      const create = await loadDriver(this.endpoint.protocol);
      const ctx: DriverContext = {
        endpoint: this.endpoint,
        options: this.options,
        once: this.once,
        stage: (r) => {
          try {
            this.options.onStage?.(r);
          } catch {
            // a failing listener must not break the connection
          }
        },
        password: async (refused, why, person) => {
          if (this.accepted !== undefined && !refused) return this.accepted;
          const q = { reason: refused ? ('refused' as const) : ('login' as const), site: this.endpoint.label };
          const p = await (person ? person.during(() => this.options.secrets.password(q)) : this.options.secrets.password(q));
          if (p === undefined) {
            throw new LiveError(refused ? 'auth' : 'password-needed', 'login', refused ? `The server refused the login of ${this.endpoint.user}${why ? ` (${why})` : ''}.` : 'No password was given.', {
              next: refused ? 'Check the user name and the password.' : 'Enter the password of this site\'s server (it is kept only if you choose so).',
              ...(why ? { detail: why } : {}),
            });
          }
          this.accepted = p;
          return p;
        },
        passphrase: (q, person) => {
          const secrets = this.options.secrets;
          if (!secrets.passphrase) return Promise.resolve(undefined);
          const full = { ...q, site: this.endpoint.label };
          return person ? person.during(() => secrets.passphrase!(full)) : secrets.passphrase(full);
        },
      };
      return create(ctx);
    })();
    this.driver.catch(() => (this.driver = undefined));
    return this.driver;
  }

  warm(connections: number): void {
    this.drv().then(
      (d) => d.warm?.(connections),
      () => undefined,
    );
  }

  /** Connects now (Test Connection). */
  async connect(o: OpOptions = {}): Promise<void> {
    const d = await this.drv();
    await d.connect(this.signal(o));
  }

  private signal(o: OpOptions): AbortSignal {
    return o.signal ?? new AbortController().signal;
  }

  /** The path to use on the server for `path`: links within the root replaced by their targets; refused when one leaves it. */
  private async follow(path: string, d: Driver, signal: AbortSignal, stage: 'list' | 'read'): Promise<string> {
    if (!this.capabilities.symlinks) return path;
    let p = path;
    for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
      const segs = p ? p.split('/') : [];
      let changed = false;
      for (let i = 1; i <= segs.length; i++) {
        const prefix = segs.slice(0, i).join('/');
        let target = this.links.get(prefix);
        if (target === undefined && i === segs.length && !this.plain.has(prefix)) {
          const st = await d.stat(prefix, signal).catch(() => undefined);
          if (st?.type === 'symlink' && st.link) {
            target = resolveLinkTarget(d.rootAbs(), prefix, st.link.target) ?? null;
            this.links.set(prefix, target);
          } else if (st) this.remember([{ ...st, path: prefix }]); // not a link: the next write into that folder needs no stat
        }
        if (target === null) {
          throw new LiveError('outside-root', stage, `"${prefix}" is a symbolic link to a place outside the site's folder; it is not followed.`, { next: 'Open the file through a path inside the site\'s folder.' });
        }
        if (target !== undefined) {
          p = [target, ...segs.slice(i)].filter(Boolean).join('/');
          changed = true;
          break;
        }
      }
      if (!changed) return p;
    }
    throw new LiveError('outside-root', stage, `"${path}" goes through more than ${MAX_LINK_HOPS} symbolic links.`, { next: 'Check the links on the server.' });
  }

  /** Fills in each link's target type (within the root only). */
  private async resolveLinks(entries: LiveEntry[], d: Driver, signal: AbortSignal): Promise<void> {
    for (const e of entries) {
      if (e.type !== 'symlink' || !e.link) continue;
      const rel = resolveLinkTarget(d.rootAbs(), e.path, e.link.target);
      if (rel === undefined) {
        e.link.targetType = 'outside';
        this.links.set(e.path, null);
        continue;
      }
      let cur = rel;
      let st: LiveEntry | undefined;
      for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
        st = await d.stat(cur, signal).catch(() => undefined);
        if (st?.type !== 'symlink' || !st.link) break;
        const next = resolveLinkTarget(d.rootAbs(), cur, st.link.target);
        if (next === undefined) {
          st = undefined;
          e.link.targetType = 'outside';
          break;
        }
        cur = next;
      }
      if (e.link.targetType === 'outside') {
        this.links.set(e.path, null);
        continue;
      }
      e.link.path = cur;
      e.link.targetType = !st ? 'missing' : st.type === 'symlink' ? 'other' : st.type;
      if (st?.type === 'file' && st.size !== undefined && e.size === undefined) e.size = st.size;
      this.links.set(e.path, st ? cur : null);
    }
  }

  list(path: string, o: ListOptions = {}): AsyncIterable<LiveEntry[]> {
    const q = new BatchQueue<LiveEntry>();
    const signal = this.signal(o);
    (async () => {
      try {
        checkPath(path, 'list');
        const d = await this.drv();
        const real = await this.follow(path, d, signal, 'list');
        // Each batch goes on as it arrives (links resolved first), in order.
        let chain: Promise<void> = Promise.resolve();
        await d.list(
          real,
          (batch) => {
            chain = chain.then(async () => {
              // Entries keep the path that was asked for (a listing through a link stays under the link).
              if (real !== path) for (const e of batch) e.path = joinRel(path, e.name);
              else this.remember(batch);
              if (o.resolveLinks !== false) await this.resolveLinks(batch, d, signal);
              o.onBatch?.(batch);
              q.push(batch);
            });
          },
          signal,
        );
        await chain;
        q.end();
      } catch (e) {
        q.end(signal.aborted && !(e instanceof LiveError && e.kind !== 'cancelled') ? cancelled('list') : e);
      }
    })().catch((e: unknown) => q.end(e));
    return q;
  }

  /** Remembers the files and folders of a listing that are not links (see `plain`). */
  private remember(batch: LiveEntry[]): void {
    if (this.plain.size + batch.length > PLAIN_MAX) this.plain.clear();
    for (const e of batch) {
      if (e.type === 'file' || e.type === 'dir') this.plain.add(e.path);
      else this.plain.delete(e.path);
    }
  }

  listAll(path: string, o: ListOptions = {}): Promise<LiveEntry[]> {
    return gather(this.list(path, o));
  }

  async stat(path: string, o: OpOptions = {}): Promise<LiveEntry | undefined> {
    checkPath(path, 'list');
    const d = await this.drv();
    const signal = this.signal(o);
    const parent = parentRel(path);
    const real = path ? joinRel(await this.follow(parent, d, signal, 'list'), baseName(path)) : path;
    const e = await d.stat(real, signal);
    if (!e) return undefined;
    e.path = path;
    e.name = baseName(path);
    if (e.type === 'symlink') await this.resolveLinks([e], d, signal);
    return e;
  }

  async read(path: string, o: ReadOptions = {}): Promise<LiveReadStream> {
    checkPath(path, 'read');
    const d = await this.drv();
    const signal = this.signal(o);
    const real = await this.follow(path, d, signal, 'read');
    let r: DriverRead;
    try {
      r = await d.read(real, o.start ?? 0, signal, o.size);
    } catch (e) {
      // Reads may be tried again once, on a new connection.
      if (!(e instanceof LiveError) || !e.retryable || signal.aborted) throw e;
      r = await d.read(real, o.start ?? 0, signal, o.size);
    }
    return progressStream(r, o.onProgress);
  }

  async readAll(path: string, o: ReadOptions & { maxBytes?: number } = {}): Promise<Uint8Array> {
    const s = await this.read(path, o);
    const max = o.maxBytes ?? Infinity;
    if (s.size !== undefined && s.size > max) {
      s.destroy();
      throw tooLarge(path, s.size, max);
    }
    const parts: Uint8Array[] = [];
    let n = 0;
    try {
      for await (const c of s) {
        n += c.length;
        if (n > max) throw tooLarge(path, n, max);
        parts.push(c);
      }
    } finally {
      s.destroy();
    }
    return Buffer.concat(parts, n);
  }

  async write(path: string, source: Uint8Array | AsyncIterable<Uint8Array>, o: WriteOptions = {}): Promise<WriteResult> {
    checkPath(path, 'write');
    if (!path) throw new LiveError('not-a-file', 'write', 'The site\'s folder itself cannot be written as a file.', { next: 'Choose a file path.' });
    const d = await this.drv();
    const signal = this.signal(o);
    const target = joinRel(await this.follow(parentRel(path), d, signal, 'read'), baseName(path));
    const notDone: WriteResult['notDone'] = [];
    const body: AsyncIterable<Uint8Array> = source instanceof Uint8Array ? oneChunk(source) : source;
    const size = source instanceof Uint8Array ? source.length : o.size;
    let written = 0;
    const onBytes = (n: number) => {
      written += n;
      o.onProgress?.(written, size);
    };
    const atomic = (o.atomic ?? true) && this.capabilities.rename;
    if (atomic && this.endpoint.protocol !== 's3') {
      const temp = joinRel(parentRel(target), `.${baseName(target).slice(0, 80)}.sr-${randomBytes(4).toString('hex')}.tmp`);
      try {
        await d.write(temp, body, size, signal, onBytes);
        if (signal.aborted) throw cancelled('write');
        if ((await d.rename(temp, target, signal)) === false) notDone.push('atomic');
      } catch (e) {
        await this.removeQuietly(d, temp);
        throw e;
      }
    } else {
      if (!atomic && this.endpoint.protocol !== 's3') notDone.push('atomic');
      await d.write(target, body, size, signal, onBytes);
    }
    if (o.mode !== undefined) {
      if (d.chmod) await d.chmod(target, o.mode, signal).catch(() => notDone.push('mode'));
      else notDone.push('mode');
    }
    if (o.mtime !== undefined) {
      if (d.setTime) await d.setTime(target, o.mtime, signal).catch(() => notDone.push('mtime'));
      else notDone.push('mtime');
    }
    const entry = await d.stat(target, signal).catch(() => undefined);
    if (entry) {
      entry.path = path;
      entry.name = baseName(path);
    }
    return { entry, notDone };
  }

  /** Removes a temporary file after a failed or cancelled write, on a signal of its own. */
  private async removeQuietly(d: Driver, path: string): Promise<void> {
    const c = new AbortController();
    const t = setTimeout(() => c.abort(), this.endpoint.timeoutMs);
    try {
      await d.remove(path, false, c.signal);
    } catch (e) {
      this.options.log?.('warn', `A temporary file could not be removed after a failed write: ${path} (${e instanceof Error ? e.message : String(e)}).`);
    } finally {
      clearTimeout(t);
    }
  }

  async mkdir(path: string, o: OpOptions = {}): Promise<void> {
    checkPath(path, 'write');
    const d = await this.drv();
    const signal = this.signal(o);
    const segs = path ? path.split('/') : [];
    for (let i = 1; i <= segs.length; i++) {
      const p = segs.slice(0, i).join('/');
      const st = await d.stat(p, signal);
      if (st?.type === 'dir' || (st?.type === 'symlink' && st.link)) continue;
      if (st) throw new LiveError('exists', 'write', `"${p}" exists and is not a folder.`, { next: 'Choose another name.' });
      await d.mkdir(p, signal);
    }
  }

  async delete(path: string, o: OpOptions & { recursive?: boolean } = {}): Promise<void> {
    checkPath(path, 'write');
    if (!path) throw new LiveError('permission', 'write', 'The site\'s folder itself is not deleted.', { next: 'Delete what it holds instead.' });
    const d = await this.drv();
    const signal = this.signal(o);
    const st = await d.stat(path, signal);
    if (!st) return;
    if (st.type !== 'dir') return d.remove(path, false, signal);
    if (o.recursive) {
      const children: LiveEntry[] = [];
      await d.list(path, (b) => children.push(...b), signal);
      for (const c of children) await this.delete(c.path, { ...o, recursive: true });
    }
    await d.remove(path, true, signal);
  }

  async rename(from: string, to: string, o: OpOptions & { overwrite?: boolean } = {}): Promise<void> {
    checkPath(from, 'write');
    checkPath(to, 'write');
    const d = await this.drv();
    const signal = this.signal(o);
    if (!this.capabilities.rename) throw new LiveError('server', 'write', 'This protocol cannot rename (S3 has no rename).', { next: 'Copy the file under the new name, then delete the old one.' });
    if (!o.overwrite && (await d.stat(to, signal))) throw new LiveError('exists', 'write', `"${to}" exists already.`, { next: 'Choose another name, or replace it.' });
    await d.rename(from, to, signal);
  }

  async setTime(path: string, mtime: number, o: OpOptions = {}): Promise<void> {
    checkPath(path, 'write');
    const d = await this.drv();
    if (!d.setTime) throw new LiveError('server', 'write', `${this.endpoint.protocol === 's3' ? 'S3' : 'WebDAV'} cannot set a file's modification time.`, { next: 'The server sets it on upload.' });
    await d.setTime(path, mtime, this.signal(o));
  }

  async close(): Promise<void> {
    const d = this.driver;
    this.driver = undefined;
    this.links.clear();
    this.plain.clear();
    if (d) await (await d.catch(() => undefined))?.close();
  }
}

function tooLarge(path: string, size: number, max: number): LiveError {
  return new LiveError('too-large', 'read', `"${path}" is ${size} bytes, more than ${max}.`, { next: 'Download it instead of opening it.', data: { size, max } });
}

async function* oneChunk(b: Uint8Array): AsyncIterable<Uint8Array> {
  yield b;
}

function progressStream(r: DriverRead, onProgress: ReadOptions['onProgress']): LiveReadStream {
  let n = 0;
  let last = 0;
  return {
    size: r.size,
    destroy: () => r.destroy(),
    async *[Symbol.asyncIterator]() {
      try {
        for await (const c of r.stream) {
          n += c.length;
          if (onProgress && n - last >= 65536) {
            last = n;
            onProgress(n, r.size);
          }
          yield c;
        }
        onProgress?.(n, r.size);
      } finally {
        r.destroy();
      }
    },
  };
}

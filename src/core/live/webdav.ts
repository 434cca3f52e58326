// WebDAV over undici (./http.ts): a chunk of its own, loaded on the first connection to a
// WebDAV site. PROPFIND Depth 1 for a folder (its multistatus read as it arrives, by namespace:
// the prefix a server uses is its own), Depth 0 for a stat, GET (Range for an offset), PUT,
// MKCOL, DELETE, MOVE with Overwrite. Paths are percent-encoded per segment on the way out and
// hrefs decoded on the way in, so names with spaces, `#`, `%` and non-ASCII round-trip. Basic
// authentication in a header (never in the URL); a 401 asks for the password again.
import type { CreateDriver, Driver, DriverContext, DriverRead } from './driver';
import { encodePath } from './endpoint';
import { HttpSession, readText, type HttpReply } from './http';
import { LiveError, type LiveEntry, type LiveStage } from './types';
import { baseName, cancelled, joinRel } from './util';
import { XmlStream } from './xml';

const DAV = 'DAV:';
const PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/><D:getetag/></D:prop></D:propfind>';

export const createDriver: CreateDriver = (ctx) => new DavDriver(ctx);

interface Resp {
  href: string;
  collection: boolean;
  size?: number;
  modified?: string;
  etag?: string;
  ok: boolean;
}

/** Reads a multistatus as it arrives, handing each <response> on. */
export class MultistatusReader {
  private readonly xml: XmlStream;
  private cur: Resp | undefined;
  private propOk = true;
  private inProp = false;
  private text = '';
  constructor(onResponse: (r: Resp) => void) {
    this.xml = new XmlStream({
      open: (ns, name) => {
        this.text = '';
        if (ns !== DAV) return;
        if (name === 'response') this.cur = { href: '', collection: false, ok: false };
        else if (name === 'propstat') {
          this.propOk = true;
          this.inProp = true;
        } else if (name === 'collection' && this.cur && this.inProp) this.cur.collection = true;
      },
      close: (ns, name) => {
        const t = this.text.trim();
        if (ns === DAV && this.cur) {
          if (name === 'href' && !this.inProp) this.cur.href = t;
          else if (name === 'status' && this.inProp && !/\s2\d\d\s/.test(` ${t} `)) this.propOk = false;
          else if (name === 'status' && !this.inProp) this.cur.ok = /\s2\d\d\s/.test(` ${t} `);
          else if (name === 'getcontentlength' && t && /^\d+$/.test(t)) this.cur.size = Number(t);
          else if (name === 'getlastmodified' && t) this.cur.modified = t;
          else if (name === 'getetag' && t) this.cur.etag = t;
          else if (name === 'propstat') {
            if (this.propOk) this.cur.ok = true;
            this.inProp = false;
          } else if (name === 'response') {
            onResponse(this.cur);
            this.cur = undefined;
          }
        }
        this.text = '';
      },
      text: (t) => (this.text += t),
    });
  }
  feed(chunk: string): void {
    this.xml.feed(chunk);
  }
}

function decodeHrefPath(href: string): string {
  let p = href;
  try {
    if (/^[a-z]+:\/\//i.test(p)) p = new URL(p).pathname;
  } catch {
    // keep it
  }
  return p
    .split('/')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    })
    .join('/');
}

class DavDriver implements Driver {
  private readonly http: HttpSession;
  private readonly base: URL;
  private auth: string | undefined;
  private loggedIn = false;

  constructor(private readonly ctx: DriverContext) {
    this.base = new URL(ctx.endpoint.webdav!.url);
    this.http = new HttpSession(ctx, this.base);
  }

  rootAbs(): string {
    return this.ctx.endpoint.root;
  }

  private url(path: string, dir = false): string {
    const p = path ? `${this.base.pathname.replace(/\/$/, '')}/${encodePath(path)}${dir ? '/' : ''}` : this.base.pathname;
    return `${this.base.origin}${p}`;
  }

  /** A request with Basic authentication; a 401 asks for the password again (twice at most). */
  private async req(method: string, url: string, headers: Record<string, string>, body: Buffer | AsyncIterable<Uint8Array> | undefined, signal: AbortSignal, stage: LiveStage): Promise<HttpReply> {
    const ep = this.ctx.endpoint;
    let refused = false;
    // The server's identity first (name, TCP, TLS and its certificate): the password is asked only
    // then, and the login step's time is the login's.
    await this.http.probe(signal);
    for (let attempt = 0; ; attempt++) {
      if (this.auth === undefined && ep.user) {
        const pw = await this.ctx.password(refused, refused ? 'HTTP 401' : undefined);
        this.auth = `Basic ${Buffer.from(`${ep.user}:${pw}`).toString('base64')}`;
      }
      const t = Date.now();
      const r = await this.http.request(method, url, { ...headers, ...(this.auth ? { authorization: this.auth } : {}) }, body, signal, stage);
      if (r.status === 401 && ep.user && attempt < 2 && (body === undefined || Buffer.isBuffer(body))) {
        await r.body.dump().catch(() => undefined);
        this.auth = undefined;
        refused = true;
        continue;
      }
      if (r.status === 401) {
        await r.body.dump().catch(() => undefined);
        const e = new LiveError('auth', 'login', `The server refused the login of ${ep.user || '(no user)'} (HTTP 401).`, { next: 'Check the user name and the password.', detail: 'HTTP 401' });
        if (!this.loggedIn) this.ctx.stage({ stage: 'login', ok: false, detail: e.message, ms: Date.now() - t });
        throw e;
      }
      if (!this.loggedIn) {
        this.loggedIn = true;
        this.ctx.stage({ stage: 'login', ok: true, detail: `${ep.user ? `logged in as ${ep.user}` : 'no login'}; ${ep.webdav!.url}`, ms: Date.now() - t });
      }
      return r;
    }
  }

  private async fail(r: HttpReply, stage: LiveStage, path: string): Promise<never> {
    const text = (await readText(r, 4096).catch(() => '')).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
    const detail = `HTTP ${r.status}${text ? `: ${text}` : ''}`;
    if (r.status === 404) throw new LiveError('not-found', stage, `"${path}" is not on the server.`, { next: 'Refresh the folder: it may have been moved or deleted.', detail });
    if (r.status === 403) throw new LiveError('permission', stage, `The server refused access to "${path}" (HTTP 403).`, { next: 'Check the user\'s permissions on the server.', detail });
    if (r.status === 412) throw new LiveError('exists', stage, `"${path}" exists already (HTTP 412).`, { next: 'Choose another name.', detail });
    if (r.status === 507) throw new LiveError('server', stage, 'The server is out of space (HTTP 507).', { next: 'Free space on the server.', detail });
    throw new LiveError('server', stage, `The server answered HTTP ${r.status} for "${path}".`, { next: 'Check the server\'s logs.', detail });
  }

  async connect(signal: AbortSignal): Promise<void> {
    await this.stat('', signal);
  }

  private async propfind(path: string, depth: 0 | 1, onResp: (r: Resp) => void, signal: AbortSignal, stage: LiveStage, asDir = depth === 1): Promise<boolean> {
    const r = await this.req('PROPFIND', this.url(path, asDir), { depth: String(depth), 'content-type': 'application/xml; charset=utf-8' }, Buffer.from(PROPFIND_BODY), signal, stage);
    if ((r.status === 301 || r.status === 302) && !asDir && path) {
      // A folder named without its trailing slash (Apache redirects to it).
      await r.body.dump().catch(() => undefined);
      return this.propfind(path, depth, onResp, signal, stage, true);
    }
    if (r.status === 404) {
      await r.body.dump().catch(() => undefined);
      return false;
    }
    if (r.status !== 207) return this.fail(r, stage, path);
    const reader = new MultistatusReader(onResp);
    const dec = new TextDecoder();
    for await (const c of r.body) reader.feed(dec.decode(c, { stream: true }));
    reader.feed(dec.decode());
    return true;
  }

  private entryOf(r: Resp, path: string): LiveEntry {
    const e: LiveEntry = { name: baseName(path), path, type: r.collection ? 'dir' : 'file' };
    if (!r.collection && r.size !== undefined) e.size = r.size;
    if (r.modified) {
      e.mtimeRaw = r.modified;
      const t = Date.parse(r.modified);
      if (Number.isFinite(t)) e.mtime = t;
    }
    if (r.etag) e.etag = r.etag;
    return e;
  }

  async list(path: string, emit: (entries: LiveEntry[]) => void, signal: AbortSignal): Promise<void> {
    const self = decodeHrefPath(new URL(this.url(path, true)).pathname).replace(/\/+$/, '');
    let batch: LiveEntry[] = [];
    const found = await this.propfind(
      path,
      1,
      (r) => {
        const p = decodeHrefPath(r.href).replace(/\/+$/, '');
        if (p === self) {
          if (!r.collection) throw new LiveError('not-a-folder', 'list', `"${path}" is a file.`, { next: 'Open it instead.' });
          return;
        }
        const name = p.slice(p.lastIndexOf('/') + 1);
        if (!name || !r.ok) return;
        batch.push(this.entryOf(r, joinRel(path, name)));
        if (batch.length >= 200) {
          emit(batch);
          batch = [];
        }
      },
      signal,
      'list',
    );
    if (!found) throw new LiveError('not-found', 'list', `The folder "${path || '/'}" is not on the server.`, { next: path ? 'Refresh: it may have been moved or deleted.' : 'Check the site\'s server URL and home directory (dir).' });
    if (batch.length) emit(batch);
  }

  async stat(path: string, signal: AbortSignal): Promise<LiveEntry | undefined> {
    let e: LiveEntry | undefined;
    const found = await this.propfind(path, 0, (r) => (e ??= this.entryOf(r, path)), signal, 'list');
    return found ? e : undefined;
  }

  async read(path: string, start: number, signal: AbortSignal): Promise<DriverRead> {
    const r = await this.req('GET', this.url(path), start > 0 ? { range: `bytes=${start}-` } : {}, undefined, signal, 'read');
    if (r.status !== 200 && r.status !== 206) return this.fail(r, 'read', path);
    if (start > 0 && r.status === 200) {
      r.body.destroy();
      throw new LiveError('server', 'read', 'The server does not read from an offset (no Range support).', { next: 'Read the whole file.' });
    }
    const len = Number(r.headers['content-length']);
    return { stream: r.body, size: Number.isFinite(len) ? len : undefined, destroy: () => r.body.destroy() };
  }

  async write(path: string, source: AsyncIterable<Uint8Array>, size: number | undefined, signal: AbortSignal, onBytes: (n: number) => void): Promise<void> {
    // A cancel stops the body; once the whole body is sent the server may be finishing the PUT,
    // so its answer is awaited (the request's own timeout still applies): a DELETE of the
    // temporary file sent before the PUT is done would run first, and the file would stay.
    const own = new AbortController();
    let sent = false;
    const stop = () => !sent && own.abort();
    if (signal.aborted) own.abort();
    signal.addEventListener('abort', stop, { once: true });
    const counted = (async function* () {
      for await (const b of source) {
        if (own.signal.aborted) throw cancelled('write');
        onBytes(b.length);
        yield b;
      }
      sent = true;
    })();
    try {
      const r = await this.req('PUT', this.url(path), size !== undefined ? { 'content-length': String(size) } : {}, counted, own.signal, 'write');
      if (r.status >= 300) return this.fail(r, 'write', path);
      await r.body.dump();
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  async mkdir(path: string, signal: AbortSignal): Promise<void> {
    const r = await this.req('MKCOL', this.url(path, true), {}, undefined, signal, 'write');
    if (r.status >= 300 && r.status !== 405) return this.fail(r, 'write', path);
    await r.body.dump();
  }

  async remove(path: string, dir: boolean, signal: AbortSignal): Promise<void> {
    const r = await this.req('DELETE', this.url(path, dir), {}, undefined, signal, 'write');
    if (r.status >= 300 && r.status !== 404) return this.fail(r, 'write', path);
    await r.body.dump();
  }

  async rename(from: string, to: string, signal: AbortSignal): Promise<boolean> {
    const r = await this.req('MOVE', this.url(from), { destination: this.url(to), overwrite: 'T' }, undefined, signal, 'write');
    if (r.status >= 300) return this.fail(r, 'write', from);
    await r.body.dump();
    // 204: the destination existed. With Overwrite: T, RFC 4918 (9.9.3) has the server DELETE it
    // before the move (Apache mod_dav does): two steps, not one.
    return r.status !== 204;
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

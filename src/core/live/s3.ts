// Amazon S3 (and S3-compatible servers) over undici (./http.ts) with our own SigV4 signer
// (./sigv4.ts): a chunk of its own, loaded on the first connection to an S3 site.
// ListObjectsV2 with delimiter `/` and continuation (a page of up to 1,000 keys is a batch),
// HEAD / GetObject (Range for an offset), PutObject (atomic: no temporary name needed),
// DeleteObject. A folder is a key prefix: "mkdir" writes an empty `name/` marker. The region is
// found from the bucket's answer (x-amz-bucket-region) when the site does not say it. The
// secret access key signs requests and is never sent.
import type { CreateDriver, Driver, DriverContext, DriverRead } from './driver';
import { HttpSession, readText, type HttpReply } from './http';
import { awsEncode, signV4, UNSIGNED } from './sigv4';
import { LiveError, type LiveEntry, type LiveStage } from './types';
import { baseName, joinRel } from './util';
import { XmlStream, xmlTexts } from './xml';

export const createDriver: CreateDriver = (ctx) => new S3Driver(ctx);

/** The largest file written to S3 (one PutObject, gathered in memory first). */
export const S3_PUT_MAX_BYTES = 64 * 1024 * 1024;

/** `size`: the file's size when known, else how much was read when it went over. */
function s3TooLarge(path: string, size: number, known: boolean): LiveError {
  const max = `${S3_PUT_MAX_BYTES / 1024 / 1024} MiB`;
  return new LiveError('too-large', 'write', `"${path}" is ${known ? `${(size / 1024 / 1024).toFixed(1)} MiB` : `more than ${max}`}: files above ${max} are not uploaded to S3 from here (one request holds the whole file in memory).`, {
    next: 'Upload it with a tool that uses S3 multipart uploads (aws s3 cp, rclone), then refresh.',
    data: { size, max: S3_PUT_MAX_BYTES },
  });
}

interface Page {
  files: { key: string; size?: number; modified?: string; etag?: string }[];
  prefixes: string[];
  next?: string;
  truncated: boolean;
}

/** A ListObjectsV2 page. */
export function parseListPage(xml: string): Page {
  const page: Page = { files: [], prefixes: [], truncated: false };
  const path: string[] = [];
  let text = '';
  let cur: Page['files'][number] | undefined;
  new XmlStream({
    open: (_ns, name) => {
      path.push(name);
      text = '';
      if (name === 'Contents') cur = { key: '' };
    },
    close: (_ns, name) => {
      const parent = path[path.length - 2];
      if (parent === 'Contents' && cur) {
        if (name === 'Key') cur.key = text;
        else if (name === 'Size' && /^\d+$/.test(text.trim())) cur.size = Number(text.trim());
        else if (name === 'LastModified') cur.modified = text.trim();
        else if (name === 'ETag') cur.etag = text.trim();
      } else if (parent === 'CommonPrefixes' && name === 'Prefix') page.prefixes.push(text);
      else if (name === 'NextContinuationToken') page.next = text.trim();
      else if (name === 'IsTruncated') page.truncated = text.trim() === 'true';
      if (name === 'Contents' && cur) {
        page.files.push(cur);
        cur = undefined;
      }
      path.pop();
      text = '';
    },
    text: (t) => (text += t),
  }).feed(xml);
  return page;
}

class S3Driver implements Driver {
  private readonly http: HttpSession;
  private region: string;
  private secret: string | undefined;
  private loggedIn = false;

  constructor(private readonly ctx: DriverContext) {
    const ep = ctx.endpoint;
    this.region = ep.s3!.region;
    this.http = new HttpSession(ctx, new URL(this.origin()));
  }

  rootAbs(): string {
    return '/';
  }

  private origin(): string {
    const s3 = this.ctx.endpoint.s3!;
    if (s3.pathStyle) return s3.endpoint;
    const u = new URL(s3.endpoint);
    return `${u.protocol}//${s3.bucket}.${u.host}`;
  }

  /** The URL of a key (or of the bucket with `key` undefined), encoded the S3 way. */
  private url(key: string | undefined, query?: Record<string, string>): URL {
    const s3 = this.ctx.endpoint.s3!;
    const path = `${s3.pathStyle ? `/${awsEncode(s3.bucket, false)}` : ''}/${key === undefined ? '' : awsEncode(key, true)}`;
    const u = new URL(`${this.origin()}${s3.pathStyle && key === undefined ? path.replace(/\/$/, '') : path}`);
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    // URLSearchParams writes spaces as '+': S3 wants %20 and the signature's encoding.
    if (query) u.search = Object.entries(query).map(([k, v]) => `${awsEncode(k, false)}=${awsEncode(v, false)}`).join('&');
    return u;
  }

  private key(path: string, dir = false): string {
    return `${this.ctx.endpoint.root}${path}${dir && path ? '/' : ''}`;
  }

  private async req(method: string, url: URL, headers: Record<string, string>, body: Buffer | undefined, signal: AbortSignal, stage: LiveStage): Promise<HttpReply> {
    const ep = this.ctx.endpoint;
    let refused: string | undefined;
    // The server's identity first (see webdav.ts): then the secret key, then the login step's time.
    await this.http.probe(signal);
    for (let attempt = 0; ; attempt++) {
      this.secret ??= await this.ctx.password(refused !== undefined, refused);
      const t = Date.now();
      const signed = signV4({ method, url, region: this.region, accessKeyId: ep.user, secretAccessKey: this.secret, payloadHash: UNSIGNED, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) } });
      const r = await this.http.request(method, url.toString(), signed, body, signal, stage);
      const region = r.headers['x-amz-bucket-region'];
      if ((r.status === 301 || r.status === 400 || r.status === 403) && typeof region === 'string' && region !== this.region && attempt < 3) {
        await r.body.dump().catch(() => undefined);
        this.region = region;
        this.ctx.options.log?.('info', `S3 bucket ${ep.s3!.bucket} is in ${region}.`);
        continue;
      }
      if (r.status === 403 || (r.status === 400 && method !== 'HEAD')) {
        const text = method === 'HEAD' ? '' : await readText(r, 16384).catch(() => '');
        const x = xmlTexts(text);
        const code = x.get('Error/Code') ?? (method === 'HEAD' ? 'Forbidden' : `HTTP ${r.status}`);
        if (/SignatureDoesNotMatch|InvalidAccessKeyId|AuthorizationHeaderMalformed|InvalidToken/.test(code)) {
          if (code !== 'InvalidAccessKeyId' && attempt < 2) {
            this.secret = undefined;
            refused = code;
            continue;
          }
          const e = new LiveError('auth', 'login', `S3 refused the signature of access key ${ep.user}: ${code}.`, { next: code === 'InvalidAccessKeyId' ? 'Check the access key id.' : 'Check the secret access key.', detail: code });
          if (!this.loggedIn) this.ctx.stage({ stage: 'login', ok: false, detail: e.message, ms: Date.now() - t });
          throw e;
        }
        throw new LiveError('permission', stage, `S3 refused: ${code}${x.get('Error/Message') ? ` (${x.get('Error/Message')})` : ''}.`, { next: 'Check the access key\'s permissions on the bucket.', detail: code });
      }
      if (!this.loggedIn && r.status < 300) {
        this.loggedIn = true;
        this.ctx.stage({ stage: 'login', ok: true, detail: `signed requests accepted for ${ep.user}; bucket ${ep.s3!.bucket} (${this.region})`, ms: Date.now() - t });
      }
      return r;
    }
  }

  private async fail(r: HttpReply, stage: LiveStage, path: string): Promise<never> {
    const x = xmlTexts(await readText(r, 16384).catch(() => ''));
    const code = x.get('Error/Code') ?? `HTTP ${r.status}`;
    if (code === 'NoSuchBucket') throw new LiveError('not-found', stage, `The bucket ${this.ctx.endpoint.s3!.bucket} does not exist.`, { next: 'Check the bucket name (and the endpoint for a server other than AWS).', detail: code });
    if (r.status === 404) throw new LiveError('not-found', stage, `"${path}" is not in the bucket.`, { next: 'Refresh the folder.', detail: code });
    throw new LiveError('server', stage, `S3 answered ${code} for "${path}".`, { next: 'Check the server\'s logs.', detail: code });
  }

  async connect(signal: AbortSignal): Promise<void> {
    const r = await this.req('GET', this.url(undefined, { 'list-type': '2', 'max-keys': '1', prefix: this.key('') }), {}, undefined, signal, 'login');
    if (r.status !== 200) return this.fail(r, 'login', '');
    await r.body.dump();
  }

  async list(path: string, emit: (entries: LiveEntry[]) => void, signal: AbortSignal): Promise<void> {
    const prefix = this.key(path, true);
    let token: string | undefined;
    const seen = new Set<string>();
    let any = false;
    do {
      const q: Record<string, string> = { 'list-type': '2', delimiter: '/', prefix };
      if (token) q['continuation-token'] = token;
      const r = await this.req('GET', this.url(undefined, q), {}, undefined, signal, 'list');
      if (r.status !== 200) return this.fail(r, 'list', path);
      const page = parseListPage(await readText(r));
      const batch: LiveEntry[] = [];
      for (const p of page.prefixes) {
        const name = p.slice(prefix.length).replace(/\/$/, '');
        if (name) batch.push({ name, path: joinRel(path, name), type: 'dir' });
      }
      for (const f of page.files) {
        const name = f.key.slice(prefix.length);
        if (!name || name.includes('/')) continue; // the folder's own marker
        batch.push(this.fileEntry(joinRel(path, name), f.size, f.modified, f.etag));
      }
      any ||= page.files.length > 0 || page.prefixes.length > 0;
      if (batch.length) emit(batch);
      const next = page.truncated ? page.next : undefined;
      // A token given twice would list the same page for ever (and gather it without bound).
      if (next !== undefined && seen.has(next)) throw new LiveError('protocol', 'list', `The S3 server listed "${path || '/'}" in a loop (it gave the same continuation token twice).`, { next: 'Check the server; another S3 client should show the same.' });
      if (next !== undefined) seen.add(next);
      token = next;
    } while (token);
    if (!any && path) throw new LiveError('not-found', 'list', `The folder "${path}" is not in the bucket.`, { next: 'Refresh the folder.' });
  }

  private fileEntry(path: string, size: number | undefined, modified: string | undefined, etag: string | undefined): LiveEntry {
    const e: LiveEntry = { name: baseName(path), path, type: 'file' };
    if (size !== undefined) e.size = size;
    if (modified) {
      e.mtimeRaw = modified;
      const t = Date.parse(modified);
      if (Number.isFinite(t)) e.mtime = t;
    }
    if (etag) e.etag = etag.replace(/&quot;/g, '"');
    return e;
  }

  async stat(path: string, signal: AbortSignal): Promise<LiveEntry | undefined> {
    if (!path) return { name: '', path: '', type: 'dir' };
    const r = await this.req('HEAD', this.url(this.key(path)), {}, undefined, signal, 'list');
    await r.body.dump().catch(() => undefined);
    if (r.status === 200) {
      const len = Number(r.headers['content-length']);
      const lm = r.headers['last-modified'];
      const et = r.headers.etag;
      return this.fileEntry(path, Number.isFinite(len) ? len : undefined, typeof lm === 'string' ? lm : undefined, typeof et === 'string' ? et : undefined);
    }
    if (r.status !== 404) throw new LiveError('server', 'list', `S3 answered HTTP ${r.status} for "${path}".`, { next: 'Check the server.' });
    const q = await this.req('GET', this.url(undefined, { 'list-type': '2', 'max-keys': '1', prefix: this.key(path, true) }), {}, undefined, signal, 'list');
    if (q.status !== 200) return this.fail(q, 'list', path);
    const page = parseListPage(await readText(q));
    return page.files.length || page.prefixes.length ? { name: baseName(path), path, type: 'dir' } : undefined;
  }

  async read(path: string, start: number, signal: AbortSignal): Promise<DriverRead> {
    const r = await this.req('GET', this.url(this.key(path)), start > 0 ? { range: `bytes=${start}-` } : {}, undefined, signal, 'read');
    if (r.status !== 200 && r.status !== 206) return this.fail(r, 'read', path);
    const len = Number(r.headers['content-length']);
    return { stream: r.body, size: Number.isFinite(len) ? len : undefined, destroy: () => r.body.destroy() };
  }

  async write(path: string, source: AsyncIterable<Uint8Array>, size: number | undefined, signal: AbortSignal, onBytes: (n: number) => void): Promise<void> {
    // PutObject needs the length first: the bytes are gathered in memory, so a write is bounded
    // (S3_PUT_MAX_BYTES) and refused above it before anything is sent; a multipart upload (parts
    // of 5 MiB and more, memory bounded to one) is not done here (docs/decisions.md).
    if (size !== undefined && size > S3_PUT_MAX_BYTES) throw s3TooLarge(path, size, true);
    const parts: Buffer[] = [];
    let n = 0;
    for await (const b of source) {
      n += b.length;
      if (n > S3_PUT_MAX_BYTES) throw s3TooLarge(path, n, false);
      parts.push(Buffer.from(b));
    }
    const body = Buffer.concat(parts, n);
    const r = await this.req('PUT', this.url(this.key(path)), {}, body, signal, 'write');
    if (r.status >= 300) return this.fail(r, 'write', path);
    await r.body.dump();
    onBytes(body.length);
  }

  async mkdir(path: string, signal: AbortSignal): Promise<void> {
    const r = await this.req('PUT', this.url(this.key(path, true)), {}, Buffer.alloc(0), signal, 'write');
    if (r.status >= 300) return this.fail(r, 'write', path);
    await r.body.dump();
  }

  async remove(path: string, dir: boolean, signal: AbortSignal): Promise<void> {
    const r = await this.req('DELETE', this.url(this.key(path, dir)), {}, undefined, signal, 'write');
    if (r.status >= 300 && r.status !== 404) return this.fail(r, 'write', path);
    await r.body.dump();
  }

  async rename(): Promise<void> {
    throw new LiveError('server', 'write', 'S3 has no rename.', { next: 'Copy the object under the new name, then delete the old one.' });
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}

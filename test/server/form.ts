// Request bodies of the local service: reading with a size limit, and form parsing
// (application/x-www-form-urlencoded, and multipart/form-data as `curl -F` sends it).

import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 50 * 1024 * 1024;
/** Past this, an over-limit body is no longer drained: the connection is cut. */
const MAX_DRAIN_BYTES = 4 * MAX_BODY_BYTES;

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/**
 * Reads the whole body. An over-limit body is drained (discarded) before the caller replies 413,
 * so that the client reads the reply instead of a connection reset.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? '0') > limit;
    let done = false;
    const finish = (r: BodyResult) => {
      if (!done) {
        done = true;
        resolve(r);
      }
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (size > MAX_DRAIN_BYTES) {
        req.socket.destroy();
        finish({ ok: false, reason: 'aborted' });
        return;
      }
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => finish(tooLarge ? { ok: false, reason: 'too-large' } : { ok: true, body: Buffer.concat(chunks) }));
    req.on('error', () => finish({ ok: false, reason: 'aborted' }));
    req.on('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}

export type FormResult = { ok: true; fields: Map<string, string> } | { ok: false; error: string };

/** Parses a form body. Repeated names: the last value wins (as PHP does). */
export function parseForm(body: Buffer, contentType: string | undefined): FormResult {
  const fields = new Map<string, string>();
  if (body.length === 0) return { ok: true, fields };
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === '' || type === 'application/x-www-form-urlencoded' || type === 'text/plain') {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) fields.set(k, v);
    return { ok: true, fields };
  }
  if (type === 'multipart/form-data') {
    const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
    if (!m) return { ok: false, error: 'Invalid multipart body: no boundary' };
    return parseMultipart(body, m[1] ?? m[2], fields);
  }
  return { ok: false, error: `Unsupported content type: ${type} (send form fields)` };
}

function parseMultipart(body: Buffer, boundary: string, fields: Map<string, string>): FormResult {
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos < 0) return { ok: false, error: 'Invalid multipart body' };
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString() === '--') break; // closing delimiter
    if (body.subarray(pos, pos + 2).toString() === '\r\n') pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    const next = body.indexOf(delimiter, pos);
    if (headerEnd < 0 || next < 0 || headerEnd > next) return { ok: false, error: 'Invalid multipart body' };
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    let valueEnd = next;
    if (body[valueEnd - 2] === 0x0d && body[valueEnd - 1] === 0x0a) valueEnd -= 2;
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(headers)?.[1];
    if (name !== undefined) fields.set(name, body.subarray(headerEnd + 4, valueEnd).toString('utf8'));
    pos = next;
  }
  return { ok: true, fields };
}

// AWS Signature Version 4 for S3 requests (about 60 lines over node:crypto; docs/design.md says
// why not aws4fetch): the canonical request, the string to sign, the derived key and the
// Authorization header. The secret never leaves this function; the header carries only the
// access key id, the scope and the signature.
import { createHash, createHmac } from 'node:crypto';

/** S3's URI encoding: every byte but A–Z a–z 0–9 - . _ ~ (and `/` in a path) as %XX, uppercase. */
export function awsEncode(s: string, keepSlash: boolean): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, keepSlash ? '/' : '%2F');
}

export const UNSIGNED = 'UNSIGNED-PAYLOAD';

export interface SignInput {
  method: string;
  url: URL;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Hex SHA-256 of the body, or UNSIGNED. */
  payloadHash: string;
  headers?: Record<string, string>;
  now?: Date;
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

/** The headers to send (the given ones, host, x-amz-date, x-amz-content-sha256, authorization). */
export function signV4(i: SignInput): Record<string, string> {
  const amzDate = (i.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(i.headers ?? {})) headers[k.toLowerCase()] = v;
  headers.host = i.url.host;
  headers['x-amz-date'] = amzDate;
  headers['x-amz-content-sha256'] = i.payloadHash;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signed = names.join(';');
  const query = [...i.url.searchParams]
    .map(([k, v]) => [awsEncode(k, false), awsEncode(v, false)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  // The URL's path is already encoded the S3 way (s3.ts builds it with awsEncode).
  const canonical = [i.method, i.url.pathname, query, canonicalHeaders, signed, i.payloadHash].join('\n');
  const scope = `${date}/${i.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${i.secretAccessKey}`, date), i.region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${i.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`;
  return headers;
}

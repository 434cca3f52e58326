// Plain Node (no `vscode`): encoding and hashing a large content in slices, with a turn of the
// event loop between them, so that a 20 MB revision never holds the extension host's thread in
// one stretch. In one go, on this machine, a 20 MB content costs about 14 ms to encode as UTF-8
// and 12 ms to hash (SHA-256), each of them twice or more on a busy one; the revision store did
// both in one stretch and the disk store hashed it again (docs/decisions.md, "The other heavy work on the host's thread").
import { createHash } from 'node:crypto';

/** The most work (characters or bytes) between two turns of the event loop. */
export const SLICE = 1024 * 1024;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** SHA-256 of `bytes` as hex, the same as createHash('sha256').update(bytes).digest('hex'), in slices of SLICE bytes. */
export async function sha256Sliced(bytes: Uint8Array): Promise<string> {
  const h = createHash('sha256');
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    if (at) await turn();
    h.update(bytes.subarray(at, Math.min(at + SLICE, bytes.byteLength)));
  }
  return h.digest('hex');
}

const encoder = new TextEncoder();

/**
 * `text` as UTF-8, the same bytes as TextEncoder.encode (a lone surrogate becomes U+FFFD), in
 * slices of SLICE characters. `turnFirst`: a large text is not touched before a turn of the event
 * loop (the caller's step has just parsed it).
 */
export async function encodeSliced(text: string, turnFirst = false): Promise<Uint8Array> {
  if (text.length <= SLICE) return encoder.encode(text);
  if (turnFirst) await turn();
  // Its length in UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes, as TextEncoder writes it).
  const out = new Uint8Array(Buffer.byteLength(text, 'utf8'));
  let written = 0;
  for (let at = 0; at < text.length; ) {
    if (at) await turn();
    let end = Math.min(at + SLICE, text.length);
    // Never between the two halves of a surrogate pair (each half alone would be U+FFFD).
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    written += encoder.encodeInto(text.slice(at, end), out.subarray(written)).written;
    at = end;
  }
  return written === out.byteLength ? out : out.slice(0, written);
}

// Credential checks of the local service. Secrets are kept only as hashes and compared in
// constant time; nothing here logs or returns a secret.

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { StoredUser } from './model';

export function hashPassword(password: string, salt: string): string {
  return createHmac('sha256', salt).update(password, 'utf8').digest('hex');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function newUser(id: number, email: string, password: string, apiKey?: string): StoredUser {
  const salt = randomBytes(16).toString('hex');
  const user: StoredUser = { id, email, salt, passwordHash: hashPassword(password, salt) };
  if (apiKey !== undefined) user.apiKeyHash = hashApiKey(apiKey);
  return user;
}

/** Constant-time comparison of two hex digests (equal length by construction). */
function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A hash to compare against when the email is unknown, so that the time taken does not tell. */
const DUMMY = { salt: randomBytes(16).toString('hex'), passwordHash: randomBytes(32).toString('hex') };

export type AuthResult = { ok: true; user: StoredUser } | { ok: false; error: string };

/**
 * The rules: `login=1`, `email` and `password` in the form body (never the query); then the
 * `Authorization: Bearer <key>` header, which must be the account's key when present, and is
 * required when the account has a key.
 */
export function authenticate(users: readonly StoredUser[], body: Record<string, string>, authorization: string | undefined): AuthResult {
  const bad = { ok: false, error: 'Invalid email or password' } as const;
  const email = (body.email ?? '').trim().toLowerCase();
  const password = body.password ?? '';
  const user = email ? users.find((u) => u.email.toLowerCase() === email) : undefined;
  const target = user ?? DUMMY;
  const passwordOk = sameDigest(hashPassword(password, target.salt), target.passwordHash);
  if (body.login !== '1' || !user || !passwordOk || password === '') return bad;

  if (authorization !== undefined) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    const given = m ? hashApiKey(m[1]) : hashApiKey(randomBytes(8).toString('hex'));
    const expected = user.apiKeyHash ?? hashApiKey(randomBytes(8).toString('hex'));
    if (!m || !sameDigest(given, expected) || user.apiKeyHash === undefined) return { ok: false, error: 'Invalid API key' };
  } else if (user.apiKeyHash !== undefined) {
    return { ok: false, error: 'API key required' };
  }
  return { ok: true, user };
}

// Pure helpers of the service client: excerpts, redaction, Retry-After, auth messages, URLs.
import * as assert from 'node:assert/strict';
import { AUTH_MESSAGE, isLoopbackHost, parseRetryAfter, parseServiceUrl, requireServiceUrl } from '../../src/core/api';
import { bodyExcerpt, excerpt } from '../../src/core/api/validate';
import { makeRedactor } from '../../src/core/util/redact';

describe('service client helpers', () => {
  it('excerpt: at most ~120 characters, control characters replaced, secret-looking values hidden', () => {
    assert.equal(excerpt('a\u0000b\r\nc\td\u007f'), 'a b c d');
    const long = excerpt('x'.repeat(10_000));
    assert.ok(long.length <= 121 && long.endsWith('…'));
    assert.equal(excerpt('{"ftp_pass":"hunter2","db_password":"p\\"w","name":"n"}'), '{"ftp_pass":***,"db_password":***,"name":"n"}');
    assert.equal(excerpt('login=1&email=a%40b&password=top-secret&x=1'), 'login=1&email=a%40b&password=***&x=1');
  });

  it('bodyExcerpt: a JSON body from its value, secret fields left out whatever their spelling; other text as excerpt does', () => {
    const raw = '{"sites":[{"id":1,"ftp\\u005fpass":"pw-1","Password":"pw-2","apiKey":"pw-3","x":{"auth_token":"pw-4","ok":true}}],"error":"e"}';
    assert.equal(bodyExcerpt(raw), '{"sites":[{"id":1,"x":{"ok":true}}],"error":"e"}');
    assert.equal(bodyExcerpt('\uFEFF{"db\\u005Fpassword":"pw"}'), '{}');
    assert.equal(bodyExcerpt('{"ftp\\u005fpass":"pw-1","a'), '{"ftp_pass":***,"a', 'not JSON: the escapes are read, the field hidden');
    assert.equal(bodyExcerpt('<b>x</b>'), excerpt('<b>x</b>'));
  });

  it('makeRedactor hides secrets raw, URL-encoded, form-encoded and JSON-escaped', () => {
    const secret = 'a b&c"ü';
    const r = makeRedactor([secret, undefined, 'k']);
    for (const form of [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), JSON.stringify(secret).slice(1, -1)]) {
      assert.equal(r(`[${form}]`), '[***]', form);
    }
    assert.equal(r('k stays'), 'k stays', 'one-character secrets are not redacted');
  });

  it('parseRetryAfter: delay-seconds, HTTP date, garbage', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter(' 12 ', now), 12_000);
    assert.equal(parseRetryAfter('Mon, 01 Jan 2024 00:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Sun, 31 Dec 2023 00:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter(['5', '9'], now), 5000);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-3', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });

  it('AUTH_MESSAGE tells credential problems from other failures', () => {
    for (const m of ['Invalid email or password', 'invalid password', 'Invalid API key', 'Not logged in', 'Login failed', 'Login required', 'Unauthorized', 'unauthorised', 'API key required']) {
      assert.ok(AUTH_MESSAGE.test(m), m);
    }
    for (const m of ['Site not found', 'Permission denied', 'Invalid name: a site name is required', 'Invalid port: must be an integer', 'Revision not found']) {
      assert.ok(!AUTH_MESSAGE.test(m), m);
    }
  });

  it('isLoopbackHost: localhost, 127.0.0.0/8 and ::1 only', () => {
    for (const h of ['localhost', 'LOCALHOST', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1', '[::ffff:7f00:1]']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['example.com', 'localhost.example.com', '128.0.0.1', '10.0.0.1', '[::2]', '0.0.0.0', '127.0.0.1.nip.io']) assert.ok(!isLoopbackHost(h), h);
    assert.ok(isLoopbackHost(new URL('http://127.1/').hostname));
    assert.ok(isLoopbackHost(new URL('http://[0:0:0:0:0:0:0:1]/').hostname));
    assert.ok(isLoopbackHost(new URL('http://[::ffff:127.0.0.1]/').hostname));
  });

  it('requireServiceUrl keeps origin and path prefix, drops userinfo, query, fragment; rejects other schemes without echoing the URL', () => {
    const u = requireServiceUrl(' https://me:pw@example.com/app/?q=1#x ');
    assert.equal(u.url.href, 'https://example.com/app/');
    assert.equal(u.base, 'https://example.com/app');
    assert.throws(() => requireServiceUrl('javascript:alert(1)'), (e: Error) => e instanceof TypeError && !e.message.includes('alert'));
    assert.throws(() => requireServiceUrl('http//user:secret@host'), (e: Error) => e instanceof TypeError && !e.message.includes('secret'));
  });

  it('parseServiceUrl: one parse for the client and the sign-in, reporting what it dropped and whether http leaves this machine', () => {
    const p = parseServiceUrl(' https://me:pw@example.com:8443/app//?q=1#x ');
    assert.ok(!('error' in p));
    assert.deepEqual(
      { origin: p.origin, prefix: p.prefix, base: p.base, insecure: p.insecure, hadCredentials: p.hadCredentials, hadQuery: p.hadQuery },
      { origin: 'https://example.com:8443', prefix: '/app', base: 'https://example.com:8443/app', insecure: false, hadCredentials: true, hadQuery: true },
    );
    const plain = parseServiceUrl('http://example.com/');
    assert.ok(!('error' in plain) && plain.insecure && !plain.hadCredentials && !plain.hadQuery && plain.base === 'http://example.com');
    const local = parseServiceUrl('http://127.0.0.1:8787');
    assert.ok(!('error' in local) && !local.insecure);
    assert.ok(!('error' in parseServiceUrl('https://example.com/#')), 'an empty fragment is no fragment');
    assert.deepEqual(parseServiceUrl('example.com'), { error: 'not-a-url' });
    assert.deepEqual(parseServiceUrl('ftp://example.com'), { error: 'not-http', scheme: 'ftp:' });
  });
});

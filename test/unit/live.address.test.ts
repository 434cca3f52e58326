// The address of a live entry (src/features/live/address.ts): what the URI carries (site, account
// tag, path) and what it never carries (a user, a host, a password), and names with spaces,
// non-ASCII characters, `#` and `%` kept exactly in the path (their trip through VS Code's Uri text
// form is the host suite's: test/integration/live.test.ts reads each from the real server by it).
import * as assert from 'node:assert/strict';
import { accountTag } from '../../src/core/model/account';
import { liveUriComponents, parseLiveUriComponents, LIVE_SCHEME } from '../../src/features/live/address';

describe('live addresses (site-live: URIs)', () => {
  const tag = accountTag('https://service.example|demo@example.com');

  it('the account tag is 12 hex digits of SHA-256, the same for the same account, another for another account; the key itself is not in it', () => {
    assert.match(tag, /^[0-9a-f]{12}$/);
    assert.equal(accountTag('https://service.example|demo@example.com'), tag);
    assert.notEqual(accountTag('https://service.example|team@example.com'), tag);
    assert.ok(!tag.includes('demo'));
  });

  for (const name of ['index.php', 'ünï cödé.txt', 'with space/a b.txt', 'hash#name.txt', 'pct%20name.txt', 'percent%.txt', 'q?x.txt', '日本語/ファイル.txt', '']) {
    it(`keeps ${JSON.stringify(name)} exactly`, () => {
      const c = liveUriComponents({ siteId: '42', account: tag, path: name }, 'Acme / Corp');
      assert.equal(c.scheme, LIVE_SCHEME);
      assert.equal(c.path, `/${name}`);
      const a = parseLiveUriComponents(c.authority, c.path, c.query);
      assert.deepEqual(a, { siteId: '42', account: tag, path: name, siteName: 'Acme ∕ Corp' });
    });
  }

  it('carries no credential: only the site id, the account tag, the path and the site name', () => {
    const c = liveUriComponents({ siteId: '7', account: tag, path: 'a.txt' }, 'Shop');
    assert.deepEqual(Object.keys(JSON.parse(c.query) as object).sort(), ['a', 'n', 's']);
    assert.equal(c.authority, 'live');
  });

  it('refuses what names no live entry: another authority, no site or account, `..` or empty segments', () => {
    assert.equal(parseLiveUriComponents('other', '/a', JSON.stringify({ s: '1', a: tag })), undefined);
    assert.equal(parseLiveUriComponents('live', '/a', JSON.stringify({ s: '1' })), undefined);
    assert.equal(parseLiveUriComponents('live', '/a', 'not json'), undefined);
    assert.equal(parseLiveUriComponents('live', '/a/../b', JSON.stringify({ s: '1', a: tag })), undefined);
    assert.equal(parseLiveUriComponents('live', '/a//b', JSON.stringify({ s: '1', a: tag })), undefined);
    assert.deepEqual(parseLiveUriComponents('live', '/', JSON.stringify({ s: '1', a: tag })), { siteId: '1', account: tag, path: '', siteName: '' });
  });
});

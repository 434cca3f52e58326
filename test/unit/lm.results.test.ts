// The language-model tools' input reading and result shaping (plain Node).
import * as assert from 'node:assert/strict';
import type { Site } from '../../src/api/types';
import { capContent, findSite, LIMITS, limitOf, siteSummary, ToolInputError } from '../../src/lm/results';

function site(id: string, name: string, extra: Partial<Site> = {}): Site {
  return { id, name, server_type: 'FTP', domain: 'h', dir: '/', web_url: '', shared: false, ftp_pass: 'secret-ftp', db_password: 'secret-db', ...extra } as Site;
}

describe('lm results', () => {
  it('a site summary has only the non-secret fields', () => {
    const s = siteSummary(site('1', 'A'));
    assert.deepEqual(Object.keys(s).sort(), ['directory', 'host', 'id', 'name', 'serverType', 'shared', 'webUrl']);
    assert.ok(!JSON.stringify(s).includes('secret'));
  });

  it('finds a site by id, exact name (any case), or a unique part of the name; otherwise says which to use', () => {
    const sites = [site('1', 'Acme Production'), site('2', 'Acme Staging'), site('3', 'Blog'), site('4', 'blog')];
    assert.equal(findSite(sites, '2').id, '2');
    assert.equal(findSite(sites, 'acme production').id, '1');
    assert.equal(findSite(sites, 'Stag').id, '2');
    assert.throws(() => findSite(sites, 'Acme'), (e: Error) => e instanceof ToolInputError && /Several sites/.test(e.message) && e.message.includes('"1"') && e.message.includes('"2"'));
    assert.throws(() => findSite(sites, 'BLOG'), (e: Error) => e instanceof ToolInputError && /Several sites/.test(e.message));
    assert.throws(() => findSite(sites, 'nothing'), (e: Error) => e instanceof ToolInputError && /No site matches/.test(e.message) && e.message.includes('Blog'));
  });

  it('limits: default, whole numbers, clamped to [1, max]', () => {
    assert.equal(limitOf(undefined, LIMITS.files), LIMITS.files.default);
    assert.equal(limitOf('abc', LIMITS.files), LIMITS.files.default);
    assert.equal(limitOf(0, LIMITS.files), 1);
    assert.equal(limitOf(7.9, LIMITS.files), 7);
    assert.equal(limitOf('12', LIMITS.files), 12);
    assert.equal(limitOf(1e9, LIMITS.files), LIMITS.files.max);
  });

  it('content is cut on a line boundary near the cap, never inside a surrogate pair, and says so', () => {
    assert.deepEqual(capContent('short', 10), { text: 'short', truncated: false });
    const lines = 'aaaa\nbbbb\ncccc\n';
    // A line end within the last fifth of the cap is where it cuts; farther back, the cap itself.
    assert.deepEqual(capContent(lines, 11), { text: 'aaaa\nbbbb', truncated: true });
    assert.deepEqual(capContent(lines, 13), { text: 'aaaa\nbbbb\nccc', truncated: true });
    const emoji = 'x'.repeat(9) + '😀' + 'y'.repeat(10);
    const cut = capContent(emoji, 10);
    assert.equal(cut.truncated, true);
    assert.equal(cut.text, 'x'.repeat(9));
  });
});

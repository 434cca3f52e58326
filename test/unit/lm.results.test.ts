// The language-model tools' input reading and result shaping (plain Node).
import * as assert from 'node:assert/strict';
import type { Site } from '../../src/core/api/types';
import { ContentConsent, revisionBelonging, siteLists, type SiteReads } from '../../src/features/tools/consent';
import { capContent, findSite, folderStatusInput, getRevisionInput, LIMITS, limitOf, lineHistoryInput, searchHistoryInput, siteChangesInput, siteSummary, ToolInputError } from '../../src/features/tools/results';

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

  it('a site summary carries the host and web URL without user:password@', () => {
    const s = siteSummary(site('1', 'A', { domain: 'deploy:Ftp-Pa55@ftp.example.com', web_url: 'https://admin:Web-Pa55@www.example/' }));
    assert.equal(s.host, 'ftp.example.com');
    assert.equal(s.webUrl, 'https://www.example/');
    assert.ok(!JSON.stringify(s).includes('Pa55'));
    // Spellings a URL parser reads as userinfo too: one slash, backslashes.
    const slips = siteSummary(site('2', 'B', { domain: 'ftp:\\deploy:Ftp-Pa55@ftp.example.com', web_url: 'https:/admin:Web-Pa55@www.example/' }));
    assert.deepEqual([slips.host, slips.webUrl], ['ftp:\\ftp.example.com', 'https:/www.example/']);
    assert.ok(!JSON.stringify(slips).includes('Pa55'));
  });

  it('a scan’s input is read once, as the run reads it: an empty or odd path scans the folder or site; Site Changes has no path', () => {
    assert.deepEqual(searchHistoryInput({ site: 'A', path: 'index.php', folder: 'x', query: 'q' }).scope, { file: 'index.php' });
    for (const path of ['', null, 7, ['a'], { p: 1 }]) {
      assert.deepEqual(searchHistoryInput({ site: 'A', path, query: 'q' }).scope, { folder: undefined }, JSON.stringify(path));
      assert.deepEqual(searchHistoryInput({ site: 'A', path, folder: '/wp-content/', query: 'q' }).scope, { folder: 'wp-content' }, JSON.stringify(path));
    }
    assert.deepEqual(siteChangesInput({ site: 'A', path: 'index.php' }).scope, { folder: undefined });
    assert.deepEqual(siteChangesInput({ site: 'A', path: 'index.php', folder: 'docs' }).scope, { folder: 'docs' });
    const n = searchHistoryInput({ site: ' 12 ', query: 'x', mode: 'contains', isRegExp: 'yes', limit: '3' });
    assert.deepEqual([n.site, n.pattern, n.mode, n.isRegExp, n.limit], ['12', 'x', 'contains', false, 3]);
    assert.deepEqual(siteChangesInput({ authors: ['a', ' ', 3, 'b'] }).authors, ['a', 'b']);
    assert.deepEqual(siteChangesInput({ authors: 'c' }).authors, ['c']);
    for (const bad of [undefined, null, 'text', [1]]) assert.equal(searchHistoryInput(bad).site, undefined);
    assert.deepEqual(getRevisionInput({ site: 5, revisionId: 9, path: '' }), { site: '5', revisionId: '9', path: undefined, maxChars: LIMITS.contentChars.default });
  });

  it('the working-copy tools’ input: a folder or a site; lines 1-based, the end defaulting to the start, a range given backwards turned round', () => {
    assert.deepEqual(folderStatusInput({ folder: '/w/site', limit: 5 }), { folder: '/w/site', site: undefined, limit: 5 });
    assert.deepEqual(folderStatusInput({ site: 7, folder: '' }), { folder: undefined, site: '7', limit: LIMITS.statusFiles.default });
    assert.equal(folderStatusInput({ limit: 10_000 }).limit, LIMITS.statusFiles.max);
    assert.deepEqual(lineHistoryInput({ path: 'index.php', startLine: 3 }), { path: 'index.php', site: undefined, revisionId: undefined, startLine: 3, endLine: 3, limit: LIMITS.lineHistory.default });
    assert.deepEqual([lineHistoryInput({ startLine: 9, endLine: '4' }).startLine, lineHistoryInput({ startLine: 9, endLine: '4' }).endLine], [4, 9]);
    for (const bad of [0, -1, 1.5, 'x', null, undefined]) assert.equal(lineHistoryInput({ path: 'a', startLine: bad }).startLine, undefined, String(bad));
    assert.deepEqual(lineHistoryInput({ site: 'Shop', path: 'a.php', revisionId: 12, startLine: '2', endLine: 0 }), { path: 'a.php', site: 'Shop', revisionId: '12', startLine: 2, endLine: 2, limit: LIMITS.lineHistory.default });
  });

  it('revision contents: allowed per site and account after a confirmation; nothing without one; forgotten on clear', () => {
    let account: string | undefined = 'https://svc|a@example.com';
    const consent = new ContentConsent(() => account);
    assert.equal(consent.allows('1'), false);
    assert.equal(consent.take('Shop', '1'), false, 'no confirmation was asked: no content');
    consent.asking('Shop');
    assert.equal(consent.take('Shop', '1'), true, 'the invocation after the confirmation');
    assert.equal(consent.allows('1'), true);
    assert.equal(consent.take('1', '1'), true, 'the site stays allowed, whatever it is called');
    assert.equal(consent.allows('2'), false, 'another site is not');
    consent.asking('Blog');
    assert.equal(consent.take('Shop', '2'), false, 'a confirmation about another reference does not count');
    assert.equal(consent.take('Blog', '2'), true);
    assert.equal(consent.take('Blog', '3'), false, 'one confirmation, one invocation');
    account = 'https://svc|b@example.com';
    assert.equal(consent.allows('1'), false, 'another account');
    account = undefined;
    consent.asking('Shop');
    assert.equal(consent.take('Shop', '1'), false, 'signed out');
    account = 'https://svc|a@example.com';
    consent.clear();
    assert.equal(consent.allows('1'), false, 'forgotten');
  });

  it('a revision no list ties to the site: its own question, for one call only; the yes allows the site; other references, ids and accounts do not count', () => {
    let account: string | undefined = 'https://svc|a@example.com';
    const consent = new ContentConsent(() => account);
    assert.equal(consent.takeUnlisted('Blog', '1044', '1'), false, 'not asked');
    consent.askingUnlisted('Blog', '1044');
    assert.equal(consent.takeUnlisted('Blog', '1045', '1'), false, 'another revision');
    assert.equal(consent.takeUnlisted('Shop', '1044', '1'), false, 'another reference');
    assert.equal(consent.takeUnlisted('Blog', '1044', '1'), true);
    assert.equal(consent.allows('1'), true, 'the question said that the yes allows the site');
    assert.equal(consent.takeUnlisted('Blog', '1044', '1'), false, 'one question, one call');
    consent.askingUnlisted('Blog', '7');
    account = 'https://svc|b@example.com';
    assert.equal(consent.takeUnlisted('Blog', '7', '1'), false, 'another account');
    account = 'https://svc|a@example.com';
    consent.clear();
    assert.equal(consent.takeUnlisted('Blog', '7', '1'), false, 'forgotten');
  });

  describe('whether a revision belongs to the site a call names (consent follows the content)', () => {
    /** A site whose cached lists are `cached`, and whose service holds `fresh` (what a fresh read gives); counts the reads. */
    function site(cached: Record<string, string[]>, fresh: Record<string, string[]> = cached, listed: Record<string, string> = {}) {
      const reads: string[] = [];
      const r: SiteReads = {
        files: (isFresh) => (reads.push(`files${isFresh ? ' fresh' : ''}`), Promise.resolve(Object.keys(isFresh ? fresh : cached))),
        revisionIds: (path, isFresh) => (reads.push(`${path}${isFresh ? ' fresh' : ''}`), Promise.resolve((isFresh ? fresh : cached)[path] ?? [])),
        listedPath: (id) => listed[id],
      };
      return { lists: siteLists(r), reads };
    }

    it('with a path: one of that file’s revisions, the file one of the site’s; a new file or revision is read again once', async () => {
      const s = site({ 'index.php': ['11', '12'] }, { 'index.php': ['11', '12', '13'], 'new.php': ['20'] });
      assert.deepEqual(await revisionBelonging(s.lists, '12', 'index.php'), { kind: 'listed', path: 'index.php' });
      assert.deepEqual(s.reads, ['files', 'index.php'], 'from the cache, no request');
      assert.deepEqual(await revisionBelonging(s.lists, '12', '/index.php'), { kind: 'listed', path: 'index.php' }, 'a leading slash');
      assert.deepEqual(await revisionBelonging(s.lists, '13', 'index.php'), { kind: 'listed', path: 'index.php' }, 'a revision newer than the cache');
      assert.deepEqual(await revisionBelonging(s.lists, '20', 'new.php'), { kind: 'listed', path: 'new.php' }, 'a file newer than the cache');
      assert.deepEqual(await revisionBelonging(s.lists, '99', 'index.php'), { kind: 'notListed', path: 'index.php' });
      assert.deepEqual(await revisionBelonging(s.lists, '12', 'wp-config.php'), { kind: 'notAFile', path: 'wp-config.php' }, 'another site’s file');
    });

    it('without a path: a list of the site read in this session holds it, for a file the site has; otherwise nothing says', async () => {
      const s = site({ 'index.php': ['11'] }, { 'index.php': ['11'] }, { '11': 'index.php', '44': 'wp-config.php' });
      assert.deepEqual(await revisionBelonging(s.lists, '11', undefined), { kind: 'listed', path: 'index.php' });
      assert.deepEqual(await revisionBelonging(s.lists, '44', undefined), { kind: 'unknown' }, 'held by a list of a path the site has no file of');
      assert.deepEqual(await revisionBelonging(s.lists, '1044', undefined), { kind: 'unknown' }, 'in no list of this session');
    });
  });
});

// Unit tests of revision document addresses (src/revisions/uri.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseRevisionUriComponents, revisionUriComponents } from '../../src/revisions/uri';

describe('revisions: revision URIs', () => {
  it('has the file path as its path (language mode, breadcrumbs), ids and the exact path in the query', () => {
    const c = revisionUriComponents({ siteId: '3', revisionId: '1004', path: 'includes/db.php' });
    assert.equal(c.path, '/includes/db.php');
    assert.equal(c.query, 's=3&r=1004&p=includes%2Fdb.php');
    assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: '3', revisionId: '1004', path: 'includes/db.php' });
  });

  it('shows hostile paths harmlessly and still round-trips them', () => {
    for (const p of ['../../etc/passwd', '/etc/x', 'C:\\x', 'a?b#c%20d.php', '', '///', 'a\u0000b\nc.txt', './x', 'ü/ß é.txt', '%', 'p=1&q=2', 'lone\uD800.txt', '\uDC00/x']) {
      const c = revisionUriComponents({ siteId: '1', revisionId: '2', path: p });
      assert.ok(!/(^|\/)\.\.?(\/|$)/.test(c.path), `no . or .. segment in ${c.path}`);
      assert.ok(!/[\u0000-\u001f]/.test(c.path));
      assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: '1', revisionId: '2', path: p });
    }
    assert.equal(revisionUriComponents({ siteId: '1', revisionId: '2', path: '../../etc/passwd' }).path, '/\u2025/\u2025/etc/passwd');
  });

  it('encodes ids that contain / or %', () => {
    const c = revisionUriComponents({ siteId: 'a/b', revisionId: '50%', path: 'x.txt' });
    assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: 'a/b', revisionId: '50%', path: 'x.txt' });
  });

  it('refuses what is not a revision; falls back to the display path without a raw path', () => {
    assert.equal(parseRevisionUriComponents('/a/b.txt', ''), undefined);
    assert.equal(parseRevisionUriComponents('/a/b.txt', 's=1&p=x'), undefined);
    assert.equal(parseRevisionUriComponents('/', 's=1&r=2'), undefined);
    assert.equal(parseRevisionUriComponents('/x', 's=1&r=%E0%A4%A&p=x'), undefined);
    assert.deepEqual(parseRevisionUriComponents('/a/b.txt', 's=1&r=2'), { siteId: '1', revisionId: '2', path: 'a/b.txt' });
  });

  it('round-trips any path and ids (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string({ unit: fc.oneof(fc.nat({ max: 0xffff }).map((c) => String.fromCharCode(c)), fc.constantFrom('/', '.', '%', '?', '#', '\\')) }), (siteId, revisionId, path) => {
        const c = revisionUriComponents({ siteId, revisionId, path });
        assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId, revisionId, path });
      }),
      { numRuns: 2000 },
    );
  });
});

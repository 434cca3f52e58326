// Unit tests of revision document addresses (src/revisions/uri.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseRevisionUriComponents, revisionUriComponents } from '../../src/revisions/uri';

describe('revisions: revision URIs', () => {
  it('ends with the file name (language mode) and carries the exact path', () => {
    const c = revisionUriComponents({ siteId: '3', revisionId: '1004', path: 'includes/db.php' });
    assert.equal(c.path, '/3/1004/includes/db.php');
    assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: '3', revisionId: '1004', path: 'includes/db.php' });
  });

  it('shows hostile paths harmlessly and still round-trips them', () => {
    for (const p of ['../../etc/passwd', '/etc/x', 'C:\\x', 'a?b#c%20d.php', '', '///', 'a\u0000b\nc.txt', './x', 'ü/ß é.txt', '%', 'p=1&q=2', 'lone\uD800.txt', '\uDC00/x']) {
      const c = revisionUriComponents({ siteId: '1', revisionId: '2', path: p });
      assert.ok(!/(^|\/)\.\.?(\/|$)/.test(c.path), `no . or .. segment in ${c.path}`);
      assert.ok(!/[\u0000-\u001f]/.test(c.path));
      assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: '1', revisionId: '2', path: p });
    }
    assert.equal(revisionUriComponents({ siteId: '1', revisionId: '2', path: '../../etc/passwd' }).path, '/1/2/\u2025/\u2025/etc/passwd');
  });

  it('encodes ids that contain / or %', () => {
    const c = revisionUriComponents({ siteId: 'a/b', revisionId: '50%', path: 'x.txt' });
    assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: 'a/b', revisionId: '50%', path: 'x.txt' });
  });

  it('refuses what is not a revision; falls back to the display path without a query', () => {
    assert.equal(parseRevisionUriComponents('/1/2', ''), undefined);
    assert.equal(parseRevisionUriComponents('/1/2/', ''), undefined);
    assert.equal(parseRevisionUriComponents('/1/%E0%A4%A/x', 'p=x'), undefined);
    assert.deepEqual(parseRevisionUriComponents('/1/2/a/b.txt', ''), { siteId: '1', revisionId: '2', path: 'a/b.txt' });
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

// Unit tests of revision document addresses (src/core/model/uri.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { isRevisionDocument, labelText, parseRevisionUriComponents, revisionUriComponents } from '../../src/core/model/uri';
import { legacyRevisionUriComponents } from './helpers/legacyUri';
import { formatShortLocal } from '../../src/core/model/time';

describe('revisions: revision URIs', () => {
  it('has the file path as its path (language mode, breadcrumbs); ids, exact path and label in a JSON query', () => {
    const c = revisionUriComponents({ siteId: '3', revisionId: '1004', path: 'includes/db.php' }, { when: '2024-05-01 15:45, alice', of: 'Acme, revision 1004: ' });
    assert.equal(c.authority, 'revision');
    assert.equal(c.path, '/includes/db.php');
    assert.deepEqual(JSON.parse(c.query), { s: '3', r: '1004', p: 'includes/db.php', of: 'Acme, revision 1004: ', when: '2024-05-01 15:45, alice' });
    assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: '3', revisionId: '1004', path: 'includes/db.php' });
    assert.equal(isRevisionDocument(c.path, { siteId: '3', revisionId: '1004', path: 'includes/db.php' }), true);
    // The folders of its breadcrumbs keep the query: they are not the document.
    assert.equal(isRevisionDocument('/includes', { siteId: '3', revisionId: '1004', path: 'includes/db.php' }), false);
  });

  it('the label cannot cut the title: / and \\ are shown as look-alikes, control characters as U+FFFD', () => {
    assert.equal(labelText('a/b\\c\u202ed\u0000'), 'a\u2215b\u29f5c\ufffdd\ufffd');
    const c = revisionUriComponents({ siteId: '1', revisionId: '2', path: 'x' }, { when: '2024-01-01 00:00, ops/deploy', of: 'A/B, revision 2: ' });
    assert.ok(!/[/\\]/.test(JSON.parse(c.query).when as string) && !/[/\\]/.test(JSON.parse(c.query).of as string));
  });

  it('the same revision and label give the same URI (one tab); the date is local, to the minute', () => {
    const a = { siteId: '1', revisionId: '2', path: 'a.php' };
    const l = { when: '2024-05-01 15:45, alice', of: 'S, revision 2: ' };
    assert.deepEqual(revisionUriComponents(a, l), revisionUriComponents({ ...a }, { ...l }));
    assert.equal(formatShortLocal(Date.UTC(2024, 4, 1, 13, 45, 7), 120), '2024-05-01 15:45');
    assert.equal(formatShortLocal(Date.UTC(2024, 0, 1, 0, 5), -60), '2023-12-31 23:05');
  });

  it('links of the previous form still open', () => {
    const old = legacyRevisionUriComponents({ siteId: '3', revisionId: '1004', path: 'includes/db.php' });
    assert.equal(old.query, 's=3&r=1004&p=includes%2Fdb.php');
    assert.deepEqual(parseRevisionUriComponents(old.path, old.query), { siteId: '3', revisionId: '1004', path: 'includes/db.php' });
    for (const p of ['a?b#c%20d.php', 'lone\uD800.txt', '%']) {
      const c = legacyRevisionUriComponents({ siteId: '1', revisionId: '2', path: p });
      assert.deepEqual(parseRevisionUriComponents(c.path, c.query), { siteId: '1', revisionId: '2', path: p });
    }
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
    assert.equal(parseRevisionUriComponents('/x', '{"s":"1","r":2,"p":"x"}'), undefined, 'ids are strings');
    assert.equal(parseRevisionUriComponents('/x', '{"s":"1",'), undefined, 'not JSON');
    assert.equal(parseRevisionUriComponents('/x', '["1","2"]'), undefined);
    assert.deepEqual(parseRevisionUriComponents('/a/b.txt', '{"s":"1","r":"2"}'), { siteId: '1', revisionId: '2', path: 'a/b.txt' });
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

// Unit tests of revision document addresses (src/core/model/uri.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { isForAccount, isRevisionDocument, labelText, parseRevisionUriComponents, revisionUriComponents } from '../../src/core/model/uri';
import { accountKeyOf, accountTag } from '../../src/core/model/account';
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

describe('revisions: revision URIs name their account', () => {
  const A = accountTag(accountKeyOf('https://service.example', 'Alice@Example.com'));
  const B = accountTag(accountKeyOf('https://service.example', 'bob@example.com'));
  const rev = { siteId: '3', revisionId: '1004', path: 'includes/db.php' };

  it('the tag: 12 hex digits of SHA-256 of serviceUrl|email (email lower-cased), naming neither', () => {
    assert.equal(accountKeyOf('https://service.example', 'Alice@Example.com'), 'https://service.example|alice@example.com');
    assert.equal(A, createHash('sha256').update('https://service.example|alice@example.com').digest('hex').slice(0, 12));
    assert.match(A, /^[0-9a-f]{12}$/);
    assert.notEqual(A, B);
    assert.notEqual(accountTag(accountKeyOf('https://other.example', 'alice@example.com')), A, 'the same user of another service is another account');
  });

  it('carries the account as `a`, reads it back, and opens only for that account', () => {
    const c = revisionUriComponents({ ...rev, account: A }, { when: '2024-05-01 15:45, alice', of: '' });
    assert.equal(JSON.parse(c.query).a, A);
    assert.ok(!c.query.includes('alice@') && !c.query.includes('service.example'), 'the query names neither the user nor the service');
    const back = parseRevisionUriComponents(c.path, c.query)!;
    assert.deepEqual(back, { ...rev, account: A });
    assert.equal(isForAccount(back, A), true);
    assert.equal(isForAccount(back, B), false, 'another account');
    assert.equal(isForAccount(back, undefined), false, 'no one signed in');
    // Two accounts' revisions of equal site id, revision id and label are two documents.
    assert.notEqual(revisionUriComponents({ ...rev, account: B }).query, revisionUriComponents({ ...rev, account: A }).query);
  });

  it('URIs made before the tag (no `a`, both older forms) still open, for the account signed in', () => {
    const json = revisionUriComponents(rev);
    assert.equal('a' in JSON.parse(json.query), false);
    const legacy = legacyRevisionUriComponents(rev);
    for (const c of [json, legacy]) {
      const back = parseRevisionUriComponents(c.path, c.query)!;
      assert.deepEqual(back, rev);
      assert.equal(isForAccount(back, A), true);
      assert.equal(isForAccount(back, B), true);
    }
  });

  it('an `a` that is not a string (or is empty) opens for nobody', () => {
    // 123456789012 is 12 digits: read as text it could pass for a tag.
    const digits = '123456789012';
    for (const a of [123456789012, null, true, [digits], { a: digits }, '']) {
      const back = parseRevisionUriComponents('/includes/db.php', JSON.stringify({ s: '3', r: '1004', p: 'includes/db.php', a }));
      assert.ok(back, JSON.stringify(a));
      for (const signedIn of [digits, A, undefined, '']) assert.equal(isForAccount(back, signedIn), false, `${JSON.stringify(a)} for ${signedIn}`);
    }
  });
});

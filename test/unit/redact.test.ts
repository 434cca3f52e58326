// The one redaction mechanism (src/core/util/redact.ts) that both the service client (a fixed set per
// set of credentials) and the log (a growing set, plus secret-looking fields) use.
import * as assert from 'node:assert/strict';
import { hideSecretFields, makeRedactor, noRedaction, Secrets } from '../../src/core/util/redact';

const SECRET = 'a b&c"ü/%';
const FORMS = [SECRET, encodeURIComponent(SECRET), new URLSearchParams({ s: SECRET }).toString().slice(2), JSON.stringify(SECRET).slice(1, -1)];

describe('redaction (src/core/util/redact.ts)', () => {
  it('the log’s growing set hides what the client’s fixed set hides, in every encoded form', () => {
    const fixed = makeRedactor([SECRET]);
    const log = new Secrets();
    log.add(SECRET);
    for (const form of FORMS) {
      assert.equal(fixed(`[${form}]`), '[***]', form);
      assert.equal(log.redact(`[${form}]`), '[***]', form);
    }
  });

  it('a secret that contains another is hidden whole; removing one keeps the other', () => {
    const s = new Secrets();
    s.add('pass');
    s.add('password-long');
    assert.equal(s.redact('x password-long y pass z'), 'x *** y *** z');
    s.remove('password-long');
    assert.equal(s.redact('x password-long y'), 'x ***word-long y');
    s.remove('pass');
    assert.equal(s.redact('x pass y'), 'x pass y');
  });

  it('one-character and empty secrets are ignored; no secrets means no change', () => {
    const s = new Secrets();
    s.add('k');
    s.add('');
    s.add(undefined);
    assert.equal(s.redact('k stays'), 'k stays');
    assert.equal(makeRedactor([undefined, 'k']), noRedaction);
  });

  it('fields: password=…, "ftp_pass":"…", api keys and Bearer tokens are hidden whoever they belong to', () => {
    assert.equal(hideSecretFields('login=1&email=a%40b&password=top-secret&x=1'), 'login=1&email=a%40b&password=***&x=1');
    assert.equal(hideSecretFields('{"ftp_pass":"hunter2","db_password":"p\\"w","name":"n"}'), '{"ftp_pass":***,"db_password":***,"name":"n"}');
    assert.equal(hideSecretFields('Authorization: Bearer sr_live_0123456789'), 'Authorization: ***');
    assert.equal(hideSecretFields('sent Bearer sr_live_0123456789 along'), 'sent Bearer *** along');
    assert.equal(hideSecretFields('nothing secret here: name=n'), 'nothing secret here: name=n');
    const log = new Secrets({ fields: true });
    log.add('hunter22');
    assert.equal(log.redact('"ftp_pass":"x" and hunter22'), '"ftp_pass":*** and ***');
    assert.equal(makeRedactor(['hunter22'], { fields: true })('password=abc hunter22'), 'password=*** ***');
    assert.equal(makeRedactor(['hunter22'])('password=abc hunter22'), 'password=abc ***', 'the client hides its own secrets; fields are excerpt()’s choice');
  });

  it('redact is bound: it can be handed on as a plain function', () => {
    const s = new Secrets();
    s.add('secret-1');
    const fn = s.redact;
    assert.equal(['a secret-1'].map(fn)[0], 'a ***');
    s.add('later-2');
    assert.equal(fn('later-2'), '***', 'sees secrets added after it was handed on');
  });
});

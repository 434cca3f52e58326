// The one redaction mechanism (src/core/util/redact.ts) that both the service client (a fixed set per
// set of credentials) and the log (a growing set, plus secret-looking fields) use.
import * as assert from 'node:assert/strict';
import { hiddenKeys, hideDumpedSecrets, hideSecretFields, makeRedactor, noRedaction, Secrets } from '../../src/core/util/redact';

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

  describe('PHP-shaped dumps and field/value objects: another site’s password, which no list of known secrets holds', () => {
    const PW = 'An0ther-S1te-Pw';
    /** Each dump, hidden: no part of the password, the names and the other values still there. */
    function hides(dumps: Record<string, string>, keep: string[]): void {
      for (const [shape, text] of Object.entries(dumps)) {
        for (const hide of [hideDumpedSecrets, hideSecretFields]) {
          const out = hide(text);
          for (const part of [PW, PW.slice(0, 6), PW.slice(-6)]) assert.ok(!out.includes(part), `${shape} (${hide.name}): ${JSON.stringify(out)}`);
          for (const k of keep) assert.ok(out.includes(k), `${shape} (${hide.name}) keeps ${k}: ${JSON.stringify(out)}`);
        }
      }
    }

    it('print_r, var_dump, var_export, Xdebug’s HTML: the value of a secret-named key', () => {
      hides(
        {
          'print_r': `Array\n(\n    [id] => 7\n    [ftp_pass] => ${PW}\n    [name] => Client Production\n)\n`,
          'print_r on one line': `Could not save: Array ( [id] => 7 [ftp_pass] => ${PW} with spaces [name] => Client Production )`,
          'print_r, an object’s protected field': `Site Object\n(\n    [db_password:protected] => ${PW}\n    [name:App\\Site:private] => Client Production\n)`,
          'var_dump': `array(2) {\n  ["db_password"]=>\n  string(${PW.length}) "${PW}"\n  ["name"]=>\n  string(17) "Client Production"\n}`,
          'var_dump, a quote and a line break in the password': `array(1) {\n  ["ftp_pass"]=>\n  string(20) "${PW.slice(0, 7)}"\n${PW.slice(7)}"\n  ["name"]=>\n  string(17) "Client Production"\n}`,
          'var_dump as HTML': `<pre>array(1) {\n  [&quot;ftp_pass&quot;]=&gt;\n  string(${PW.length}) &quot;${PW}&quot;\n  [&quot;name&quot;]=&gt;\n  string(17) &quot;Client Production&quot;\n}</pre>`,
          'var_export': `array (\n  'ftp_pass' => '${PW}',\n  'name' => 'Client Production',\n)`,
          'Xdebug': `<pre class='xdebug-var-dump'><b>array</b> <i>(size=2)</i>\n  'ftp_pass' <font color='#888a85'>=&gt;</font> <small>string</small> <font color='#cc0000'>'${PW}'</font> <i>(length=15)</i>\n  'name' <font color='#888a85'>=&gt;</font> <small>string</small> <font color='#cc0000'>'Client Production'</font>\n</pre>`,
          'print_r inside a JSON string (escaped line breaks)': `{"error":"Array\\n(\\n    [ftp_pass] => ${PW}\\n    [name] => Client Production\\n)"}`,
          'an API token': `[api_key] => ${PW}\n[name] => Client Production`,
        },
        ['Client Production'],
      );
    });

    it('{"field": "db_password", "value": …} in either order, cut off, nested; print_r and var_dump of the same; what went wrong still shows', () => {
      hides(
        {
          'JSON': `Validation failed: {"field": "db_password", "value": "${PW}", "message": "too short"}`,
          'JSON, value first, cut off': `Validation failed: {"value": "${PW}", "name": "ftp_pass", "message": "too short"`,
          'JSON, a list of them': `{"errors":[{"field":"db_password","value":"${PW}","message":"too short"},{"field":"name","value":"Client Production"}]}`,
          'JSON as HTML': `{&quot;field&quot;: &quot;db_password&quot;, &quot;value&quot;: &quot;${PW}&quot;, &quot;message&quot;: &quot;too short&quot;}`,
          'print_r': `Array\n(\n    [0] => Array\n        (\n            [field] => ftp_pass\n            [value] => ${PW}\n            [message] => too short\n        )\n\n    [1] => Array\n        (\n            [field] => name\n            [value] => Client Production\n        )\n)`,
          'var_dump': `array(2) {\n  ["field"]=>\n  string(11) "db_password"\n  ["value"]=>\n  string(${PW.length}) "${PW}"\n  ["message"]=>\n  string(9) "too short"\n}`,
        },
        ['too short'],
      );
      // The next object's value (another field) still shows.
      assert.match(hideDumpedSecrets(`[{"field":"db_password","value":"${PW}"},{"field":"name","value":"Client Production"}]`), /"value":"Client Production"/);
      const hidden = hiddenKeys({ field: 'db_password', value: PW, message: 'too short', extra: 'x' });
      assert.deepEqual(['field', 'value', 'message', 'extra', 'ftp_pass'].filter(hidden), ['value', 'extra', 'ftp_pass']);
      assert.deepEqual(['field', 'value', 'message'].filter(hiddenKeys({ field: 'name', value: 'Blog' })), []);
    });

    it('text that only looks alike is left as it is, and a long hostile text takes linear time', () => {
      for (const t of ['Array ( [id] => 7 [name] => Blog )', '{"field":"name","value":"Blog"}', 'see [docs] => there', 'a => b', "it's 'quoted' => fine"]) assert.equal(hideDumpedSecrets(t), t);
      // 20,000 rows that each name a secret field: each row is looked at once (was quadratic while written).
      const rows = '[field] => db_password [value] => x '.repeat(20_000);
      const out = hideDumpedSecrets(rows);
      assert.ok(!out.includes('=> x'), 'every value hidden');
    });
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

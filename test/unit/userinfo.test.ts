// The one function that takes user:password@ out of a site's hosts and URLs (src/core/api/userinfo.ts),
// used by the disk cache, the Sites view, Copy Site Details, the quick picks and the tools.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Site } from '../../src/core/api/types';
import { withoutSiteUserinfo, withoutUserinfo } from '../../src/core/api/userinfo';
import { cachedSite } from '../../src/core/store/lists';

/** Each input, stripped, is its expected text. */
function strips(cases: [string, string][]): void {
  for (const [input, expected] of cases) assert.equal(withoutUserinfo(input), expected, input);
}

describe('userinfo in site URLs and hosts', () => {
  it('is removed from URLs with a scheme: user:password, user only, a bare token, an empty one', () => {
    strips([
      ['https://admin:Web-Pa55@www.example/', 'https://www.example/'],
      ['https://user@www.example/path', 'https://www.example/path'],
      ['https://ghp_T0KEN@git.example/x.git', 'https://git.example/x.git'],
      ['https://@www.example/', 'https://www.example/'],
      ['https://u:@www.example', 'https://www.example'],
      ['HTTPS://U:P@WWW.EXAMPLE/', 'HTTPS://WWW.EXAMPLE/'],
      ['git+ssh://git:t0k@git.example:22/r.git', 'git+ssh://git.example:22/r.git'],
      ['ftp://deploy:pw@ftp.example.com', 'ftp://ftp.example.com'],
    ]);
  });

  it('an encoded @ stays encoded; a raw @, /, ? or # inside a password does not leave a part of it behind', () => {
    strips([
      ['https://user%40mail.example:p%40ss@host.example/', 'https://host.example/'],
      ['https://u:p@ss@host.example/', 'https://host.example/'],
      ['https://u:p@s@s@host.example', 'https://host.example'],
      ['https://u:pa/ss@host.example/x', 'https://host.example/x'],
      ['https://u:pa?ss@host.example/', 'https://host.example/'],
      ['https://u:pa#ss@host.example/', 'https://host.example/'],
      ['https://u:pa\\ss@host.example/', 'https://host.example/'],
      ['https://u:p/s@t@host.example/', 'https://host.example/'],
    ]);
  });

  it('without a scheme: a host with userinfo, protocol-relative, a bare host:port', () => {
    strips([
      ['deploy:Ftp-Pa55@ftp.example.com', 'ftp.example.com'],
      ['deploy@sftp.example.com:2222', 'sftp.example.com:2222'],
      ['//u:p@cdn.example/x', '//cdn.example/x'],
      ['  u:p@ftp.example.com', '  ftp.example.com'],
      ['ftp.example.com', 'ftp.example.com'],
      ['sftp.example.com:2222', 'sftp.example.com:2222'],
      ['s3.eu-west-1.amazonaws.com', 's3.eu-west-1.amazonaws.com'],
      ['', ''],
    ]);
  });

  it('odd hosts and an @ that is not userinfo are left as they are', () => {
    const same = [
      'http://[::1]:8080/',
      'https://[2001:db8::1]/x',
      '2001:db8::1',
      'https://medium.example/@someone',
      'https://www.example/?contact=a@b.example',
      'https://www.example?contact=a@b.example',
      'https://www.example:8443#@frag',
      'https://xn--bcher-kva.example/',
      'https://www.example/a b@c',
      'www.example/@me',
    ];
    for (const v of same) assert.equal(withoutUserinfo(v), v, v);
    assert.equal(withoutUserinfo('http://u:p@[::1]:8080/'), 'http://[::1]:8080/');
  });

  it('every URL in a text, also one inside another URL’s query', () => {
    assert.equal(withoutUserinfo('https://a:b@one.example https://c@two.example'), 'https://one.example https://two.example');
    assert.equal(withoutUserinfo('https://www.example/login?next=https://u:p@other.example/'), 'https://www.example/login?next=https://other.example/');
    assert.equal(withoutUserinfo('https://https://u:p@h.example'), 'https://https://h.example');
  });

  it('every spelling a WHATWG URL parser reads as userinfo: slashes and backslashes after a special scheme (or none), tabs and line breaks, spaces, case', () => {
    const cases: [string, string][] = [
      ['https:/user:pw@host.example', 'https:/host.example'],
      ['https:\\\\user:pw@host.example', 'https:\\\\host.example'],
      ['https:\\user:pw@host.example', 'https:\\host.example'],
      ['https:user:pw@host.example/x', 'https:host.example/x'],
      ['HTTPS:///u:pw@h.example', 'HTTPS:///h.example'],
      ['https:\\/u:pw@h.example/x', 'https:\\/h.example/x'],
      ['ftp:u:pw@ftp.example', 'ftp:ftp.example'],
      ['Wss:\\u:pw@h.example', 'Wss:\\h.example'],
      ['ht\ttps://u:pw@h.example', 'ht\ttps://h.example'],
      ['https://u:p\tw@h.example', 'https://h.example'],
      ['https://u:p\r\nw@h.example/', 'https://h.example/'],
      ['https:\n//u:pw@h.example', 'https:\n//h.example'],
      ['https://u:my pass@h.example', 'https://h.example'],
      ['\u0001 https:/u:pw@h.example', '\u0001 https:/h.example'],
      ['sftp://\\:pw@h.example', 'sftp://h.example'],
    ];
    for (const [input] of cases) {
      const parsed = new URL(input);
      assert.ok(parsed.username || parsed.password, `the parser reads userinfo in ${JSON.stringify(input)}`);
    }
    strips(cases);
    // Slips a parser does not read as a URL with userinfo, but a person does: another scheme with backslashes, no scheme, two URLs in one text.
    strips([
      ['git+ssh:\\\\git:t0k@git.example/r.git', 'git+ssh:\\\\git.example/r.git'],
      ['sftp:/\\u:pw@h.example', 'sftp:/\\h.example'],
      ['sftp:///u:pw@h.example', 'sftp:///h.example'],
      ['\\\\u:pw@ftp.example.com', '\\\\ftp.example.com'],
      ['\u0001u:pw@ftp.example.com', '\u0001ftp.example.com'],
      ['see https:/u:pw@one.example and http:\\\\c@two.example', 'see https:/one.example and http:\\\\two.example'],
    ]);
    // Not userinfo to the parser, and left as they are: `x@y` in a path or query, a port, a URL in a path with one slash.
    for (const v of ['https:/www.example/@me', 'https:www.example?to=a@b.example', 'sftp.example.com:22', 'https://www.example/see:/x@y']) assert.equal(withoutUserinfo(v), v, v);
  });

  it('whatever a WHATWG URL parser reads as userinfo is gone, and the host it reads stays (generated spellings)', () => {
    const caseOf = (s: string, flips: boolean[]) => [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join('');
    const withBreaks = (s: string, at: number[], breaks: string[]) => {
      let out = s;
      for (const [k, i] of at.entries()) out = out.slice(0, i % (out.length + 1)) + breaks[k % breaks.length] + out.slice(i % (out.length + 1));
      return out;
    };
    const secret = fc.stringMatching(/^[A-Za-z0-9!$&'()*+,;=~._ %-]{0,6}$/).map((x) => `Pw${x}Z9`);
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https', 'ftp', 'ws', 'wss', 'sftp', 'git+ssh', 's3'),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom('/', '\\'), { maxLength: 4 }),
        fc.stringMatching(/^[a-z0-9._-]{0,6}$/),
        secret,
        fc.constantFrom('host.example', 'h.example:8080', '[::1]', '192.0.2.7'),
        fc.constantFrom('', '/', '/a/b.php', '?q=1', '#top', '\\x'),
        fc.constantFrom('', ' ', '\u0001', ' \u001f'),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.array(fc.constantFrom('\t', '\n', '\r'), { minLength: 1, maxLength: 3 }),
        (scheme, flips, slashes, user, password, host, rest, lead, breakAt, breaks) => {
          const input = lead + withBreaks(`${caseOf(scheme, flips)}:${slashes.join('')}${user}:${password}@${host}${rest}`, breakAt, breaks);
          let seen: URL;
          try {
            seen = new URL(input);
          } catch {
            return; // not a URL to the parser
          }
          if (!seen.username && !seen.password) return;
          const out = withoutUserinfo(input);
          assert.ok(!out.replace(/[\t\n\r]/g, '').includes(password), `${JSON.stringify(input)} → ${JSON.stringify(out)}`);
          const after = new URL(out);
          assert.equal(after.username + after.password, '', JSON.stringify(out));
          assert.equal(after.host, seen.host, JSON.stringify(out));
          assert.equal(after.pathname + after.search + after.hash, seen.pathname + seen.search + seen.hash, JSON.stringify(out));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('any text a WHATWG URL parser reads with userinfo has none after (random texts of URL characters)', () => {
    const chars = [...'hHtTpPsSfwu:/\\@ .?#%1[]x'].concat(['\t', '\n', '\u0001']);
    fc.assert(
      fc.property(fc.constantFrom('https:', 'HTTP:/', 'ftp:', 'ws:\\', 'sftp://', 'file:', '', ' '), fc.array(fc.constantFrom(...chars), { maxLength: 28 }), (start, rest) => {
        const input = start + rest.join('');
        let seen: URL;
        try {
          seen = new URL(input);
        } catch {
          return;
        }
        if (!seen.username && !seen.password) return;
        const out = withoutUserinfo(input);
        let after: URL;
        try {
          after = new URL(out);
        } catch {
          return; // no longer a URL: nothing a parser could read a password from
        }
        assert.equal(after.username + after.password, '', `${JSON.stringify(input)} → ${JSON.stringify(out)}`);
      }),
      { numRuns: 20000 },
    );
  });

  it('a site: its four URL and host fields, nothing else; the disk cache keeps what the view shows', () => {
    const site = {
      id: '1',
      name: 'a:b@not-a-url',
      domain: 'deploy:Ftp-Pa55@ftp.example.com',
      web_url: 'https://admin:Web-Pa55@www.example/',
      git_url: 'https://ghp_T0KEN@git.example/x.git',
      db_phpmyadmin: 'https://pma:Db-Pa55@db.example/',
      dir: '/u:p@dir',
    } as Partial<Site>;
    const shown = withoutSiteUserinfo(site);
    assert.deepEqual(shown, { ...site, domain: 'ftp.example.com', web_url: 'https://www.example/', git_url: 'https://git.example/x.git', db_phpmyadmin: 'https://db.example/' });
    assert.equal(site.domain, 'deploy:Ftp-Pa55@ftp.example.com', 'the site itself is not changed');
    const cached = cachedSite(site)!;
    for (const f of ['domain', 'web_url', 'git_url', 'db_phpmyadmin'] as const) assert.equal(cached[f], shown[f], f);
    // The spellings with one slash, backslashes or a tab reach the disk cache without their password too.
    const slips = { id: '2', name: 'B', domain: 'ftp:\\deploy:Ftp-Pa55@ftp.example.com', web_url: 'https:/admin:Web-Pa55@www.example/', git_url: 'https:\\\\tok:T0k\ten@git.example/x.git', db_phpmyadmin: 'HTTPS:pma:Db-Pa55@db.example/' } as Partial<Site>;
    const slipsCached = JSON.stringify(cachedSite(slips));
    for (const secret of ['Ftp-Pa55', 'Web-Pa55', 'T0k', 'ten', 'Db-Pa55']) assert.ok(!slipsCached.includes(secret), `${secret} in ${slipsCached}`);
    assert.equal(cachedSite(slips)!.web_url, 'https:/www.example/');
  });
});

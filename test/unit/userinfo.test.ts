// The one function that takes user:password@ out of a site's hosts and URLs (src/core/api/userinfo.ts),
// used by the disk cache, the Sites view, Copy Site Details, the quick picks and the tools.
import * as assert from 'node:assert/strict';
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
  });
});

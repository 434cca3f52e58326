// The site-field table of docs/decisions.md ("Live servers: what each site field means"), row by row.
import * as assert from 'node:assert/strict';
import { looksEncrypted, siteEndpoint, type LiveEndpoint, type MappedSite } from '../../src/core/live';
import { mlstOptions } from '../../src/core/live/ftp';

const ok = (m: MappedSite): LiveEndpoint & { m: MappedSite } => {
  assert.ok(m.ok, m.ok ? '' : m.reason);
  return { ...m.endpoint, m };
};

describe('live servers: endpoint mapping (every row of the field table)', () => {
  it('server_type: FTP, SFTP, WebDAV, AmazonS3 reachable; None, Dropbox, GDrive, GDriveLimited, AJAX not, each with its reason', () => {
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', ftp_user: 'u', ftp_pass: 'p' })).protocol, 'ftp');
    assert.equal(ok(siteEndpoint({ server_type: 'SFTP', domain: 'h', ftp_user: 'u', ftp_pass: 'p' })).protocol, 'sftp');
    assert.equal(ok(siteEndpoint({ server_type: 'WebDAV', domain: 'https://h/dav/', ftp_user: 'u', ftp_pass: 'p' })).protocol, 'webdav');
    assert.equal(ok(siteEndpoint({ server_type: 'AmazonS3', domain: 'bucket', ftp_user: 'AKIA', ftp_pass: 's' })).protocol, 's3');
    for (const [t, kind, re] of [['None', 'no-server', /no server/], ['Dropbox', 'oauth', /OAuth/], ['GDrive', 'oauth', /OAuth/], ['GDriveLimited', 'oauth', /OAuth/], ['AJAX', 'ajax', /PHP proxy/], ['Gopher', 'unknown-type', /Gopher/]] as const) {
      const m = siteEndpoint({ server_type: t, domain: 'h' });
      assert.ok(!m.ok && m.kind === kind && re.test(m.reason), t);
    }
  });
  it('domain: ftps:// and ftpes:// are explicit FTPS, port 990 implicit, encryption=1 FTPS; sftp:// under FTP is SFTP; userinfo is never used', () => {
    const e = ok(siteEndpoint({ server_type: 'FTP', domain: 'ftps://ftp.example.com', ftp_user: 'u', ftp_pass: 'p' }));
    assert.deepEqual([e.ftp?.tls, e.port, e.host, e.tls], ['explicit', 21, 'ftp.example.com', true]);
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'ftpes://h', ftp_user: 'u', ftp_pass: 'p' })).ftp?.tls, 'explicit');
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'ftps://h', port: '990', ftp_user: 'u', ftp_pass: 'p' })).ftp?.tls, 'implicit');
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', encryption: '1', ftp_user: 'u', ftp_pass: 'p' })).ftp?.tls, 'explicit');
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', encryption: '0', ftp_user: 'u', ftp_pass: 'p' })).ftp?.tls, 'none');
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'sftp://h', ftp_user: 'u', ftp_pass: 'p' })).protocol, 'sftp');
    const w = ok(siteEndpoint({ server_type: 'WebDAV', domain: 'https://me:secret@dav.example.com/remote.php/dav/', ftp_user: 'u', ftp_pass: 'p', dir: 'site a' }));
    assert.equal(w.webdav?.url, 'https://dav.example.com/remote.php/dav/site%20a/');
    assert.doesNotMatch(JSON.stringify(w), /secret/);
  });
  it('WebDAV: encryption=1 means https for a bare host; an explicit http:// wins', () => {
    assert.equal(ok(siteEndpoint({ server_type: 'WebDAV', domain: 'dav.example.com', encryption: '1', ftp_user: 'u', ftp_pass: 'p' })).webdav?.url, 'https://dav.example.com/');
    assert.equal(ok(siteEndpoint({ server_type: 'WebDAV', domain: 'http://dav.example.com:8080', encryption: '1', ftp_user: 'u', ftp_pass: 'p' })).webdav?.url, 'http://dav.example.com:8080/');
  });
  it('port: empty or 0 is the protocol default; a bad port is refused', () => {
    assert.equal(ok(siteEndpoint({ server_type: 'SFTP', domain: 'h', port: '', ftp_user: 'u', ftp_pass: 'p' })).port, 22);
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', port: '0', ftp_user: 'u', ftp_pass: 'p' })).port, 21);
    assert.equal(ok(siteEndpoint({ server_type: 'WebDAV', domain: 'https://h', port: '', ftp_user: 'u', ftp_pass: 'p' })).port, 443);
    const m = siteEndpoint({ server_type: 'FTP', domain: 'h', port: '70000' });
    assert.ok(!m.ok && m.kind === 'incomplete');
  });
  it('dir: empty is the login folder, relative is relative to it, absolute stays; backslashes and repeated slashes cleaned', () => {
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', dir: '', ftp_user: 'u', ftp_pass: 'p' })).root, '');
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', dir: 'public_html/', ftp_user: 'u', ftp_pass: 'p' })).root, 'public_html');
    assert.equal(ok(siteEndpoint({ server_type: 'SFTP', domain: 'h', dir: '\\var\\\\www\\', ftp_user: 'u', ftp_pass: 'p' })).root, '/var/www');
  });
  it('pasv=0: passive all the same (noted); encoding latin1 names for ISO-8859-1/Windows-1252, UTF-8 otherwise', () => {
    const e = ok(siteEndpoint({ server_type: 'FTP', domain: 'h', pasv: '0', encoding: 'ISO-8859-1', ftp_user: 'u', ftp_pass: 'p' }));
    assert.equal(e.ftp?.passive, true);
    assert.equal(e.ftp?.encoding, 'latin1');
    assert.ok(e.m.ok && e.m.notes.some((n) => /Active mode/.test(n)));
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', encoding: 'UTF-8', ftp_user: 'u', ftp_pass: 'p' })).ftp?.encoding, 'utf8');
  });
  it('timeout: seconds, empty is 30, bounded to 1–300', () => {
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', timeout: '', ftp_user: 'u', ftp_pass: 'p' })).timeoutMs, 30_000);
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', timeout: '10', ftp_user: 'u', ftp_pass: 'p' })).timeoutMs, 10_000);
    assert.equal(ok(siteEndpoint({ server_type: 'FTP', domain: 'h', timeout: '9000', ftp_user: 'u', ftp_pass: 'p' })).timeoutMs, 300_000);
  });
  it('logon_type=key: the user\'s own key file, else the SSH agent, else a clear reason', () => {
    assert.equal(ok(siteEndpoint({ server_type: 'SFTP', domain: 'h', logon_type: 'key', ftp_user: 'u' }, { keyFile: '/k' })).sftp?.keyFile, '/k');
    assert.equal(ok(siteEndpoint({ server_type: 'SFTP', domain: 'h', logon_type: 'key', ftp_user: 'u' }, { agentSocket: '/a.sock' })).sftp?.auth, 'agent');
    const saved = process.env.SSH_AUTH_SOCK;
    delete process.env.SSH_AUTH_SOCK;
    const m = siteEndpoint({ server_type: 'SFTP', domain: 'h', logon_type: 'key', ftp_user: 'u' });
    if (saved !== undefined) process.env.SSH_AUTH_SOCK = saved;
    assert.ok(!m.ok && /service's own key/.test(m.reason));
  });
  it('AmazonS3: ftp_user the access key id, ftp_pass the secret, domain the bucket (or an endpoint URL with the bucket), else dir\'s first folder', () => {
    const a = ok(siteEndpoint({ server_type: 'AmazonS3', domain: 'my-bucket', ftp_user: 'AKIA', ftp_pass: 's', dir: 'site' }));
    assert.deepEqual([a.s3?.bucket, a.s3?.endpoint, a.s3?.pathStyle, a.root, a.user, a.host], ['my-bucket', 'https://s3.amazonaws.com', false, 'site/', 'AKIA', 'my-bucket.s3.amazonaws.com']);
    const r = ok(siteEndpoint({ server_type: 'AmazonS3', domain: 'b.s3.eu-west-1.amazonaws.com', ftp_user: 'AKIA', ftp_pass: 's' }));
    assert.deepEqual([r.s3?.bucket, r.s3?.region], ['b', 'eu-west-1']);
    const c = ok(siteEndpoint({ server_type: 'AmazonS3', domain: 'http://127.0.0.1:9000/bkt', ftp_user: 'AKIA', ftp_pass: 's' }));
    assert.deepEqual([c.s3?.bucket, c.s3?.endpoint, c.s3?.pathStyle, c.tls], ['bkt', 'http://127.0.0.1:9000', true, false]);
    const d = ok(siteEndpoint({ server_type: 'AmazonS3', domain: '', ftp_user: 'AKIA', ftp_pass: 's', dir: '/bkt/www' }));
    assert.deepEqual([d.s3?.bucket, d.root], ['bkt', 'www/']);
  });
  it('ftp_pass: empty (save_password off) or encrypted with a master password → ask; a plain one is used', () => {
    const empty = siteEndpoint({ server_type: 'FTP', domain: 'h', ftp_user: 'u', ftp_pass: '', save_password: '0' });
    assert.ok(empty.ok && empty.passwordIssue === 'missing' && empty.storedPassword === undefined);
    const block = Buffer.alloc(16);
    block.writeUInt16LE(123, 0);
    block.writeUInt32LE(Math.floor(Date.UTC(2020, 0, 1) / 1000), 4);
    const enc = block.toString('base64');
    assert.equal(looksEncrypted(enc), true);
    const e = siteEndpoint({ server_type: 'FTP', domain: 'h', ftp_user: 'u', ftp_pass: enc });
    assert.ok(e.ok && e.passwordIssue === 'encrypted' && e.storedPassword === undefined);
    assert.equal(looksEncrypted('correct horse battery'), false);
    const p = siteEndpoint({ server_type: 'FTP', domain: 'h', ftp_user: 'u', ftp_pass: 'hunter2!' });
    assert.ok(p.ok && p.storedPassword === 'hunter2!' && !p.passwordIssue);
  });
});

describe('live servers: FTP login settings from FEAT', () => {
  it('OPTS MLST is sent only when a fact we read is offered but not on by default', () => {
    // ProFTPD: every fact starred (on) → nothing to send.
    assert.equal(mlstOptions('modify*;perm*;size*;type*;unique*;UNIX.group*;UNIX.groupname*;UNIX.mode*;UNIX.owner*;UNIX.ownername*;'), undefined);
    // A server with modify offered but off: the facts it offers that we read, nothing it does not offer.
    assert.equal(mlstOptions('Type*;Size*;Modify;Perm*;'), 'OPTS MLST type;size;modify;');
    // A server that names no facts: ask for all we read.
    assert.equal(mlstOptions(''), 'OPTS MLST type;size;modify;unique;unix.mode;');
  });
});

// The site-file readers (src/core/siteImport): every field the issue lists, per format, from
// fixtures hand-written after each tool's documented format (test/fixtures/siteImport), the
// hostile files (each a clear error, nothing offered), "already on the service", and the two
// exports read back by the import.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { siteForm } from '../../src/core/api/client';
import { SITE_STRING_FIELDS, type Site } from '../../src/core/api/types';
import { decodeRemoteDir } from '../../src/core/siteImport/filezilla';
import { decodeDreamweaverPassword } from '../../src/core/siteImport/dreamweaver';
import { decodeWinScpPassword } from '../../src/core/siteImport/winscp';
import { exportFileZilla, exportSftpJson, ImportCancelledError, ImportFileError, parseOffThread, parseSiteFile, parseSiteText, sameSite, writePrivateFile, type ImportedSite, type ImportResult } from '../../src/core/siteImport';
import { isServerType } from '../../src/features/sites/formFields';
import { defaultValues, validate, type FormValues } from '../../src/features/sites/siteForm';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'siteImport');
const fixture = (name: string) => path.join(FIXTURES, name);

function byName(r: ImportResult, name: string): ImportedSite {
  const s = r.sites.find((x) => x.fields.name === name);
  assert.ok(s, `a site named ${name} among ${r.sites.map((x) => x.fields.name).join(', ')}`);
  return s;
}

/** The form values of an imported site: what the site editor would open with. */
function form(s: ImportedSite): FormValues {
  const v = defaultValues(isServerType(s.fields.server_type) ? s.fields.server_type : 'FTP');
  for (const [k, val] of Object.entries(s.fields)) if (k in v) (v as Record<string, string>)[k] = val as string;
  return v;
}

async function rejects(file: string | (() => unknown), kind: string, words: RegExp): Promise<void> {
  const run = typeof file === 'string' ? () => parseSiteFile(file) : file;
  await assert.rejects(async () => run(), (e: unknown) => {
    assert.ok(e instanceof ImportFileError, String(e));
    assert.equal(e.kind, kind, e.message);
    assert.match(e.message, words);
    return true;
  });
}

function site(over: Partial<Site>): Site {
  const s = { shared: false } as Site;
  for (const f of SITE_STRING_FIELDS) s[f] = '';
  return Object.assign(s, over);
}

describe('site import: FileZilla', () => {
  let r: ImportResult;
  before(async () => (r = await parseSiteFile(fixture('sitemanager.xml'))));

  it('reads every server, with folders as a name prefix and the old name form', () => {
    assert.equal(r.format, 'filezilla');
    assert.deepEqual(
      r.sites.map((s) => s.fields.name),
      ['Clients/Acme/Production', 'Clients/Acme/Staging', 'Clients/Globex', 'Initech', 'Public mirror', 'Assets bucket', 'Hooli DAV', 'Intranet DAV', 'Old style name'],
    );
    assert.deepEqual(r.leftOut.map((x) => [x.name, x.reason]), [['Azure blobs', 'FileZilla’s AZURE_BLOB has no server type on the service']]);
  });

  it('FTPES (4): FTP with encryption, passive, base64 password decoded, RemoteDir with a space kept whole', () => {
    const s = byName(r, 'Clients/Acme/Production');
    assert.deepEqual(s.fields, { name: 'Clients/Acme/Production', server_type: 'FTP', encryption: '1', domain: 'ftp.acme.example', dir: '/public_html/web site', port: '21', pasv: '1', ftp_user: 'acme-web', ftp_pass: 's3cr3t w0rd', encoding: 'UTF-8' });
    assert.equal(s.passwordIncluded, true);
    assert.deepEqual(s.notCarried, []);
  });

  it('SFTP with a key (Logontype 5): key logon, the key file named as not carried, custom encoding', () => {
    const s = byName(r, 'Clients/Acme/Staging');
    assert.equal(s.fields.server_type, 'SFTP');
    assert.equal(s.fields.port, '2222');
    assert.equal(s.fields.logon_type, 'key');
    assert.equal(s.fields.encoding, 'ISO-8859-1');
    assert.equal(s.fields.dir, '/var/www');
    assert.equal(s.passwordIncluded, false);
    assert.ok(s.notCarried.some((x) => x.includes('acme.ppk')), s.notCarried.join('; '));
  });

  it('FTPS implicit (3), master-password encrypted password, active mode, root RemoteDir, local dir and comments', () => {
    const s = byName(r, 'Clients/Globex');
    assert.equal(s.fields.server_type, 'FTP');
    assert.equal(s.fields.encryption, '1');
    assert.equal(s.fields.port, '990');
    assert.equal(s.fields.pasv, '0');
    assert.equal(s.fields.dir, '/');
    assert.equal(s.fields.ftp_pass, undefined);
    assert.equal(s.passwordIncluded, false);
    const said = s.notCarried.join('\n');
    assert.match(said, /encrypted with FileZilla’s master password, not imported/);
    assert.match(said, /implicit TLS/);
    assert.match(said, /C:\\Sites\\globex/);
    assert.match(said, /comments/);
  });

  it('plain FTP (0: TLS if available), Logontype 2 (ask), MODE_DEFAULT is passive', () => {
    const s = byName(r, 'Initech');
    assert.equal(s.fields.encryption, '0');
    assert.equal(s.fields.pasv, '1');
    assert.equal(s.fields.ftp_user, 'peter');
    assert.equal(s.passwordIncluded, false);
    assert.match(s.notCarried.join('\n'), /asks for it each time/);
    assert.match(s.notCarried.join('\n'), /TLS if available/);
  });

  it('insecure FTP (6) with anonymous logon (0)', () => {
    const s = byName(r, 'Public mirror');
    assert.equal(s.fields.encryption, '0');
    assert.equal(s.fields.ftp_user, 'anonymous');
    assert.equal(s.fields.dir, '/pub');
    assert.deepEqual(s.notCarried, []);
  });

  it('S3 (7): bucket from the remote folder, prefix as the folder, key id and secret', () => {
    const s = byName(r, 'Assets bucket');
    assert.deepEqual([s.fields.server_type, s.fields.domain, s.fields.dir, s.fields.ftp_user, s.fields.ftp_pass], ['AmazonS3', 'assets-bucket', 'images', 'AKIAEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY']);
  });

  it('WebDAV (9 https, 19 http): a server URL, a plain-text password of an old file, the FTP account of Logontype 4', () => {
    const dav = byName(r, 'Hooli DAV');
    assert.deepEqual([dav.fields.server_type, dav.fields.domain, dav.fields.port, dav.fields.encryption, dav.fields.ftp_pass], ['WebDAV', 'https://dav.hooli.example/', '8443', '1', 'plain old password']);
    const http = byName(r, 'Intranet DAV');
    assert.deepEqual([http.fields.domain, http.fields.encryption], ['http://intranet.example/', '0']);
    assert.match(http.notCarried.join('\n'), /acct-7/);
  });

  it('an exported FileZilla.xml: entities and non-ASCII base64 decoded', async () => {
    const e = await parseSiteFile(fixture('FileZilla.xml'));
    assert.equal(e.sites.length, 1);
    assert.deepEqual([e.sites[0]!.fields.name, e.sites[0]!.fields.ftp_pass, e.sites[0]!.fields.dir], ['Personal & private', 'äöü päss', '/home/me/My Website']);
  });

  it('RemoteDir: FileZilla’s length-prefixed form', () => {
    assert.deepEqual(decodeRemoteDir('1 0 4 home 8 web site'), { path: '/home/web site', kind: 1 });
    assert.deepEqual(decodeRemoteDir('1 0'), { path: '/', kind: 1 });
    assert.deepEqual(decodeRemoteDir('1 0 3 a b 1 c'), { path: '/a b/c', kind: 1 });
    assert.deepEqual(decodeRemoteDir('1 0 6 ünïcø'), undefined, 'a length past the end');
    assert.deepEqual(decodeRemoteDir('1 0 5 ünïcø'), { path: '/ünïcø', kind: 1 });
    assert.equal(decodeRemoteDir('/plain/path'), undefined);
    assert.equal(decodeRemoteDir('1 0 0 x'), undefined);
  });

  it('every site it offers passes the site form’s own rules', () => {
    for (const s of r.sites) assert.deepEqual(validate(form(s)), [], s.fields.name);
  });
});

describe('site import: WinSCP', () => {
  let r: ImportResult;
  before(async () => (r = await parseSiteFile(fixture('WinSCP.ini'))));

  it('reads [Sessions\\…] with URL-encoded names (a / is a folder), skips Default Settings, leaves out an unknown protocol', () => {
    assert.equal(r.format, 'winscp');
    assert.deepEqual(r.sites.map((s) => s.fields.name), ['Clients/Acme Web', 'Globex FTP (implicit)', 'Globex FTPES', 'Legacy SCP', 'New WebDAV', 'Old FTPS', 'Old HTTPS', 'Bucket', 'Locked']);
    assert.deepEqual(r.leftOut.map((x) => x.reason), ['unknown WinSCP protocol 42']);
  });

  it('SFTP: host, port, user, decoded password, remote directory, key file', () => {
    const s = byName(r, 'Clients/Acme Web');
    assert.deepEqual([s.fields.server_type, s.fields.domain, s.fields.port, s.fields.ftp_user, s.fields.ftp_pass, s.fields.dir, s.fields.logon_type], ['SFTP', 'sftp.acme.example', '2222', 'acme', 'Tr0ub4dor&3', '/var/www/acme site', 'key']);
    assert.match(s.notCarried.join('\n'), /acme\.ppk/);
    assert.match(s.notCarried.join('\n'), /C:\\Sites\\acme/);
  });

  it('FTP (5) with Ftps 1 (implicit) and 3 (explicit TLS), active mode, a non-ASCII password', () => {
    const imp = byName(r, 'Globex FTP (implicit)');
    assert.deepEqual([imp.fields.server_type, imp.fields.encryption, imp.fields.port, imp.fields.pasv, imp.fields.ftp_pass], ['FTP', '1', '990', '0', 'ftp pässword']);
    const exp = byName(r, 'Globex FTPES');
    assert.deepEqual([exp.fields.encryption, exp.fields.port, exp.fields.pasv], ['1', '21', '1']);
  });

  it('SCP (0): saved as SFTP, said; an unversioned password of an old WinSCP', () => {
    const s = byName(r, 'Legacy SCP');
    assert.equal(s.fields.server_type, 'SFTP');
    assert.equal(s.fields.ftp_pass, 'legacy');
    assert.match(s.notCarried.join('\n'), /SCP/);
  });

  it('the new numbering: 6 WebDAV (https by Ftps), 7 S3 (bucket from the remote directory)', () => {
    const dav = byName(r, 'New WebDAV');
    assert.deepEqual([dav.fields.server_type, dav.fields.domain, dav.fields.encryption, dav.fields.ftp_pass, dav.fields.dir], ['WebDAV', 'https://dav.example/', '1', 'dav-secret', '/files']);
    const s3 = byName(r, 'Bucket');
    assert.deepEqual([s3.fields.server_type, s3.fields.domain, s3.fields.dir], ['AmazonS3', 'media-bucket', 'site']);
  });

  it('the old numbering (sessions with FtpEncryption): 6 FTPS, 8 HTTPS WebDAV', () => {
    assert.deepEqual([byName(r, 'Old FTPS').fields.server_type, byName(r, 'Old FTPS').fields.encryption], ['FTP', '1']);
    assert.deepEqual([byName(r, 'Old HTTPS').fields.server_type, byName(r, 'Old HTTPS').fields.domain], ['WebDAV', 'https://olddav.example/']);
  });

  it('a password encrypted with a master password is reported, not imported (per value and per file)', async () => {
    assert.match(byName(r, 'Locked').notCarried.join('\n'), /master password, not imported/);
    assert.equal(byName(r, 'Locked').passwordIncluded, false);
    const m = await parseSiteFile(fixture('WinSCP-master.ini'));
    assert.equal(m.sites[0]!.fields.ftp_pass, undefined);
    assert.match(m.sites[0]!.notCarried.join('\n'), /master password, not imported/);
  });

  it('the password scheme: a wrong key (user + host) or a value that is not hex does not decode', () => {
    const hex = fs.readFileSync(fixture('WinSCP.ini'), 'utf8').match(/Password=([0-9A-F]+)/)![1]!;
    assert.deepEqual(decodeWinScpPassword(hex, 'acme', 'sftp.acme.example'), { ok: true, password: 'Tr0ub4dor&3' });
    assert.deepEqual(decodeWinScpPassword(hex, 'someone', 'sftp.acme.example'), { ok: false, external: false });
    assert.deepEqual(decodeWinScpPassword('XYZ', 'a', 'b'), { ok: false, external: false });
  });

  it('every site it offers passes the site form’s own rules', () => {
    for (const s of r.sites) assert.deepEqual(validate(form(s)), [], s.fields.name);
  });
});

describe('site import: Cyberduck', () => {
  it('SFTP bookmark: protocol, host, port, user, path, nickname, web URL; the password is in the keychain', async () => {
    const r = await parseSiteFile(fixture('acme-sftp.duck'));
    assert.equal(r.format, 'cyberduck');
    const s = r.sites[0]!;
    assert.deepEqual(s.fields, { name: 'Acme (SFTP)', server_type: 'SFTP', domain: 'sftp.acme.example', port: '2222', dir: '/var/www/acme site', ftp_user: 'deploy', logon_type: 'key', encoding: 'UTF-8', web_url: 'https://www.acme.example/' });
    assert.equal(s.passwordIncluded, false);
    assert.match(s.notCarried[0]!, /keychain/);
  });

  it('FTPS with active mode and an encoding; S3 with the bucket from the path; an unknown protocol left out', async () => {
    const f = (await parseSiteFile(fixture('globex-ftps.duck'))).sites[0]!;
    assert.deepEqual([f.fields.name, f.fields.server_type, f.fields.encryption, f.fields.pasv, f.fields.encoding, f.fields.dir], ['Globex & Co', 'FTP', '1', '0', 'ISO-8859-1', '/htdocs']);
    const s3 = (await parseSiteFile(fixture('assets-s3.duck'))).sites[0]!;
    assert.deepEqual([s3.fields.server_type, s3.fields.domain, s3.fields.dir, s3.fields.ftp_user], ['AmazonS3', 'assets-bucket', 'images', 'AKIAEXAMPLEKEY']);
    const az = await parseSiteFile(fixture('blob-azure.duck'));
    assert.deepEqual([az.sites.length, az.leftOut[0]?.reason], [0, 'Cyberduck’s “azure” has no server type on the service']);
  });
});

describe('site import: vscode-sftp', () => {
  it('one object (with comments and a trailing comma): every field, uploadOnSave → upload_on_save, the folder that holds .vscode', async () => {
    const file = fixture('project/.vscode/sftp.json');
    const r = await parseSiteFile(file);
    assert.equal(r.format, 'vscode-sftp');
    const s = r.sites[0]!;
    assert.deepEqual(s.fields, { name: 'Acme', server_type: 'SFTP', domain: 'sftp.acme.example', encoding: 'UTF-8', port: '2222', ftp_user: 'deploy', ftp_pass: 'hunter2', dir: '/var/www/acme', upload_on_save: '1' });
    assert.equal(s.passwordIncluded, true);
    assert.equal(s.localFolder, fixture('project'));
    assert.match(s.notCarried.join('\n'), /ignore, watcher/);
  });

  it('profiles: each merged over the object; secure true / implicit, passive false, uploadOnSave per profile', async () => {
    const r = await parseSiteFile(fixture('profiles.sftp.json'));
    const staging = byName(r, 'Shop (staging)');
    assert.deepEqual([staging.fields.server_type, staging.fields.domain, staging.fields.encryption, staging.fields.pasv, staging.fields.port, staging.fields.upload_on_save, staging.fields.dir], ['FTP', 'staging.shop.example', '1', '0', '21', '0', '/staging']);
    const live = byName(r, 'Shop (live)');
    assert.deepEqual([live.fields.port, live.fields.encryption, live.fields.ftp_pass, live.fields.upload_on_save], ['990', '1', 'live-secret', '1']);
    assert.match(live.notCarried.join('\n'), /implicit TLS/);
  });

  it('an array: each with its context folder; a key file; an SSH config alias and an unknown protocol are left out', async () => {
    const r = await parseSiteFile(fixture('array.sftp.json'));
    assert.deepEqual(r.sites.map((s) => [s.fields.name, s.localFolder]), [['Frontend', path.join(FIXTURES, 'frontend')], ['Backend', path.join(FIXTURES, 'backend')]]);
    assert.equal(byName(r, 'Frontend').fields.logon_type, 'key');
    assert.equal(byName(r, 'Frontend').fields.dir, '/srv/fe');
    assert.equal(byName(r, 'Backend').fields.dir, '/', 'remotePath defaults to /');
    assert.match(byName(r, 'Frontend').notCarried.join('\n'), /passphrase/);
    assert.deepEqual(r.leftOut.map((x) => x.name), ['No host', 'Over SCP']);
  });
});

describe('site import: Dreamweaver', () => {
  it('a site before CS5 (<remoteinfo>): URL-encoded name, host:port, relative remote root, decoded password, active mode', async () => {
    const r = await parseSiteFile(fixture('old-site.ste'));
    assert.equal(r.format, 'dreamweaver');
    const s = r.sites[0]!;
    assert.deepEqual(s.fields, { name: 'Acme Old Site', server_type: 'FTP', domain: 'ftp.acme.example', port: '2121', pasv: '0', encryption: '0', encoding: 'UTF-8', dir: 'public_html/', ftp_user: 'acme', ftp_pass: 'acme-pw!', web_url: 'http://www.acme.example/' });
    assert.match(s.notCarried.join('\n'), /C:\\Sites\\acme/);
  });

  it('a CS5+ server list: FTP, SFTP (useSFTP), WebDAV, and a local folder left out', async () => {
    const r = await parseSiteFile(fixture('cs6-site.ste'));
    assert.deepEqual(r.sites.map((s) => [s.fields.name, s.fields.server_type, s.fields.domain]), [
      ['Globex (Live)', 'FTP', 'ftp.globex.example'],
      ['Globex (SSH)', 'SFTP', 'ssh.globex.example'],
      ['Globex (DAV)', 'WebDAV', 'https://dav.globex.example/site/'],
    ]);
    assert.equal(byName(r, 'Globex (Live)').fields.ftp_pass, 'gl0bex');
    assert.equal(byName(r, 'Globex (SSH)').passwordIncluded, false);
    assert.deepEqual(r.leftOut.map((x) => x.name), ['Globex (Local test)']);
    for (const s of r.sites) assert.deepEqual(validate(form(s)), [], s.fields.name);
  });

  it('the password scheme', () => {
    assert.equal(decodeDreamweaverPassword('61646F6831757D28'), 'acme-pw!');
    assert.equal(decodeDreamweaverPassword('zz'), undefined);
  });
});

describe('site import: hostile files (a clear error, nothing offered)', () => {
  let tmp: string;
  before(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-import-'))));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const write = (name: string, data: string | Uint8Array) => {
    const f = path.join(tmp, name);
    fs.writeFileSync(f, data);
    return f;
  };

  it('external entities (XXE) are not resolved', () => rejects(fixture('hostile/xxe.xml'), 'entities', /entities/));
  it('entity expansion (“billion laughs”) is not attempted', () => rejects(fixture('hostile/billion-laughs.xml'), 'entities', /never expanded/));
  it('an entity defined in an external DTD is not read', () => rejects(fixture('hostile/external-dtd.duck'), 'entities', /&evil;/));

  it('a 20 MB file is refused before it is read whole', async () => {
    const f = path.join(tmp, 'huge.xml');
    const fd = fs.openSync(f, 'w');
    fs.ftruncateSync(fd, 20 * 1024 * 1024);
    fs.closeSync(fd);
    await rejects(f, 'too-large', /20\.0 MB.*at most 8\.0 MB/);
  });

  it('UTF-16 with a byte order mark (both orders) reads as the same sites; UTF-16 without one is refused clearly', async () => {
    const text = fs.readFileSync(fixture('sitemanager.xml'), 'utf8');
    const le = write('le.xml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const be = Buffer.from(text, 'utf16le');
    for (let i = 0; i + 1 < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1]!, be[i]!];
    const bef = write('be.xml', Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    const plain = await parseSiteFile(fixture('sitemanager.xml'));
    assert.deepEqual((await parseSiteFile(le)).sites, plain.sites);
    assert.deepEqual((await parseSiteFile(bef)).sites, plain.sites);
    await rejects(write('nobom.xml', Buffer.from(text, 'utf16le')), 'encoding', /UTF-16 or UTF-32 text without a byte order mark/);
    await rejects(write('odd.xml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le').subarray(0, 101)])), 'encoding', /cut off/);
  });

  it('a wrong encoding: not UTF-8 is refused, unless the XML declaration names ISO-8859-1', async () => {
    const latin = Buffer.from('<FileZilla3><Servers><Server><Host>h.example</Host><Protocol>1</Protocol><Name>Caf\xe9</Name></Server></Servers></FileZilla3>', 'latin1');
    await rejects(write('latin.xml', latin), 'encoding', /not UTF-8/);
    const declared = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?>'), latin]);
    assert.equal((await parseSiteFile(write('declared.xml', declared))).sites[0]!.fields.name, 'Café');
  });

  it('a truncated file (XML, JSON, INI) is a clear error', async () => {
    await rejects(fixture('hostile/truncated.xml'), 'malformed', /not well-formed XML \(line \d+/);
    await rejects(fixture('hostile/truncated.sftp.json'), 'malformed', /not valid JSON/);
    // An INI cut off loses its last key: the session is read without it (WinSCP's defaults) and says so by its protocol.
    const ini = await parseSiteFile(fixture('hostile/truncated.ini'));
    assert.equal(ini.sites[0]?.fields.server_type, 'SFTP');
  });

  it('values too long leave their site out, saying which value; the others are offered', async () => {
    const long = 'h'.repeat(10_000);
    const r = parseSiteText(`<FileZilla3><Servers><Server><Host>${long}</Host><Protocol>1</Protocol><Name>Long</Name></Server><Server><Host>ok.example</Host><Protocol>1</Protocol><Name>Fine</Name></Server></Servers></FileZilla3>`, 'x.xml');
    assert.deepEqual(r.sites.map((s) => s.fields.name), ['Fine']);
    assert.deepEqual(r.leftOut, [{ name: 'Long', source: 'Server 1', reason: 'its host is 10000 characters long (at most 4096 are read)' }]);
    const name = 'n'.repeat(300);
    const cut = parseSiteText(`{"name": "${name}", "host": "h.example"}`, 'sftp.json').sites[0]!;
    assert.equal([...cut.fields.name].length, 255);
    assert.match(cut.notCarried.join('\n'), /shortened to 255/);
  });

  it('markup is kept as text (shown escaped); control and bidirectional characters leave their site out', async () => {
    const r = await parseSiteFile(fixture('hostile/markup.xml'));
    assert.deepEqual(r.sites.map((s) => [s.fields.name, s.fields.ftp_user]), [['<b>Bold</b> [link](command:workbench.action.quit) $(alert)', '<img src=x onerror=alert(1)>']]);
    assert.deepEqual(r.leftOut.map((x) => [x.name, x.reason]), [['Bell in host', 'its host holds control characters'], ['', 'its name holds control characters']]);
  });

  it('deep nesting, more sites than the bound, an empty file and an unknown format', async () => {
    await rejects(() => parseSiteText(`<FileZilla3><Servers>${'<Folder>x'.repeat(100)}${'</Folder>'.repeat(100)}</Servers></FileZilla3>`, 'x.xml'), 'malformed', /nested more than 64/);
    const many = `<FileZilla3><Servers>${'<Server><Host>h.example</Host><Protocol>1</Protocol><Name>S</Name></Server>'.repeat(5001)}</Servers></FileZilla3>`;
    const r = parseSiteText(many, 'x.xml');
    assert.equal(r.sites.length, 5000);
    assert.match(r.leftOut[0]!.reason, /more than 5000 sites/);
    await rejects(write('empty.xml', ''), 'empty', /empty/);
    await rejects(write('other.xml', '<html><body/></html>'), 'unknown-format', /<html>/);
    await rejects(write('bin.dat', Buffer.from([1, 2, 3, 0, 4])), 'encoding', /zero bytes/);
    await rejects(write('words.txt', 'hello'), 'unknown-format', /not a site file/);
  });
});

describe('site import: already on the service', () => {
  it('same type, host, port, user and directory, compared as the service reaches them', () => {
    const mine = site({ server_type: 'FTP', domain: 'FTP.Acme.example', port: '', ftp_user: 'acme-web', dir: '/public_html/web site/' });
    assert.ok(sameSite({ server_type: 'FTP', domain: 'ftp.acme.example', port: '21', ftp_user: 'acme-web', dir: '/public_html/web site' }, mine), 'case of the host, the default port, a trailing slash');
    assert.ok(!sameSite({ server_type: 'FTP', domain: 'ftp.acme.example', port: '2121', ftp_user: 'acme-web', dir: '/public_html/web site' }, mine), 'another port');
    assert.ok(!sameSite({ server_type: 'SFTP', domain: 'ftp.acme.example', port: '21', ftp_user: 'acme-web', dir: '/public_html/web site' }, mine), 'another type');
    assert.ok(!sameSite({ server_type: 'FTP', domain: 'ftp.acme.example', port: '21', ftp_user: 'Acme-web', dir: '/public_html/web site' }, mine), 'user names are case-sensitive');
    assert.ok(!sameSite({ server_type: 'FTP', domain: 'ftp.acme.example', port: '21', ftp_user: 'acme-web', dir: '/public_html' }, mine), 'another directory');
    assert.ok(sameSite({ server_type: 'WebDAV', domain: 'https://dav.example/', encryption: '1', ftp_user: 'd', dir: '' }, site({ server_type: 'webdav', domain: 'https://dav.example', port: '443', ftp_user: 'd' })));
  });
});

describe('site export, read back by the import', () => {
  let tmp: string;
  before(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sr-export-'))));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const sites = [
    site({ id: '1', name: 'Clients/Acme', server_type: 'FTP', domain: 'ftp.acme.example', port: '21', ftp_user: 'acme', ftp_pass: 'p<&>"ss', dir: '/public html', pasv: '0', encryption: '1', encoding: 'UTF-8', upload_on_save: '1' }),
    site({ id: '2', name: 'Staging', server_type: 'SFTP', domain: 'sftp.example', port: '2222', ftp_user: 'deploy', ftp_pass: 'x', dir: '/var/www', logon_type: 'key', encoding: 'ISO-8859-1' }),
    site({ id: '3', name: 'Drive', server_type: 'GDrive', dir: 'site' }),
    site({ id: '4', name: 'Bucket', server_type: 'AmazonS3', domain: 'bkt', ftp_user: 'AKIA', ftp_pass: 'sec', dir: 'pre/fix' }),
    site({ id: '5', name: 'Endpoint', server_type: 'AJAX', domain: 'https://e.example/' }),
  ];

  it('FileZilla XML, with passwords: read back to the same sites (folders, FTPES, key logon, S3, encoding)', async () => {
    const x = exportFileZilla(sites, { includePasswords: true });
    assert.equal(x.written, 4);
    assert.match(x.notes.join('\n'), /“Endpoint”: a AJAX site/);
    const file = path.join(tmp, 'FileZilla.xml');
    await writePrivateFile(file, x.text);
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const r = await parseSiteFile(file);
    const f = byName(r, 'Clients/Acme').fields;
    assert.deepEqual([f.server_type, f.domain, f.port, f.ftp_user, f.ftp_pass, f.dir, f.pasv, f.encryption], ['FTP', 'ftp.acme.example', '21', 'acme', 'p<&>"ss', '/public html', '0', '1']);
    const s = byName(r, 'Staging').fields;
    assert.deepEqual([s.server_type, s.port, s.logon_type, s.encoding, s.ftp_pass], ['SFTP', '2222', 'key', 'ISO-8859-1', undefined]);
    const b = byName(r, 'Bucket').fields;
    assert.deepEqual([b.server_type, b.domain, b.dir, b.ftp_pass], ['AmazonS3', 'bkt', 'pre/fix', 'sec']);
    assert.equal(byName(r, 'Drive').fields.server_type, 'GDrive');
  });

  it('without passwords: none is written', () => {
    const x = exportFileZilla(sites, { includePasswords: false });
    assert.doesNotMatch(x.text, /<Pass/);
    assert.doesNotMatch(exportSftpJson(sites, { includePasswords: false }).text, /"password"/);
  });

  it('sftp.json: one site an object, several a profile each; read back (upload_on_save, secure); other types left out, said', async () => {
    const one = exportSftpJson([sites[0]!], { includePasswords: true });
    const file = path.join(tmp, 'one', '.vscode', 'sftp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await writePrivateFile(file, one.text);
    const r1 = await parseSiteFile(file);
    assert.deepEqual(r1.sites[0]!.fields, { name: 'Clients/Acme', server_type: 'FTP', domain: 'ftp.acme.example', encoding: 'UTF-8', encryption: '1', port: '21', pasv: '1', ftp_user: 'acme', ftp_pass: 'p<&>"ss', dir: '/public html', upload_on_save: '1' });
    assert.equal(r1.sites[0]!.localFolder, path.join(tmp, 'one'));
    const several = exportSftpJson(sites, { includePasswords: false });
    assert.equal(several.written, 2);
    assert.match(several.notes.join('\n'), /“Drive”: a GDrive site/);
    assert.match(several.notes.join('\n'), /active mode/);
    const r2 = parseSiteText(several.text, path.join(tmp, 'sftp.json'));
    assert.deepEqual(r2.sites.map((s) => [s.fields.name, s.fields.server_type, s.fields.domain]), [['Clients/Acme (Clients/Acme)', 'FTP', 'ftp.acme.example'], ['Clients/Acme (Staging)', 'SFTP', 'sftp.example']]);
  });

  it('a failed write leaves no file, and the one that was there whole', async () => {
    const file = path.join(tmp, 'keep.json');
    fs.writeFileSync(file, 'before');
    await assert.rejects(writePrivateFile(path.join(tmp, 'missing-dir', 'x.json'), 'text'));
    assert.deepEqual(fs.readdirSync(tmp).filter((f) => f.endsWith('.tmp')), []);
    await writePrivateFile(file, 'after');
    assert.equal(fs.readFileSync(file, 'utf8'), 'after');
  });
});

describe('site import: upload_on_save in Save Site', () => {
  it('is sent when set (a Site field outside the spec’s Save Site list), never otherwise', () => {
    assert.deepEqual(siteForm({ name: 'x', upload_on_save: 1 }), [['name', 'x'], ['upload_on_save', '1']]);
    assert.deepEqual(siteForm({ name: 'x', upload_on_save: '0' }), [['name', 'x'], ['upload_on_save', '0']]);
    assert.deepEqual(siteForm({ name: 'x' }), [['name', 'x']]);
  });
});

describe('site import: on a thread of its own', () => {
  it('parses on the import’s thread: the same sites; its errors keep their kind and translated words; Cancel stops it', async () => {
    const file = fixture('WinSCP.ini');
    const bytes = fs.readFileSync(file);
    const off = await parseOffThread(bytes, file);
    assert.deepEqual(off, await parseSiteFile(file));
    const bundle = { 'The file is empty.': 'Die Datei ist leer.' };
    await assert.rejects(parseOffThread(new Uint8Array(0), 'x.xml', { bundle }), (e: unknown) => e instanceof ImportFileError && e.kind === 'empty' && e.message === 'Die Datei ist leer.');
    const abort = new AbortController();
    const running = parseOffThread(fs.readFileSync(fixture('sitemanager.xml')), 'sitemanager.xml', { signal: abort.signal });
    abort.abort();
    await assert.rejects(running, (e: unknown) => e instanceof ImportCancelledError);
  });
});

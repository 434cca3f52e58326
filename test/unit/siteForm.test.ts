// Unit tests of the site form model (src/features/sites/siteForm.ts, with the fields of formFields.ts
// and their translation, formTexts.ts). The site editor's webview script is bundled with the same
// siteForm.ts and formFields.ts (src/features/sites/webview/main.ts), so its rules are these.
import * as assert from 'node:assert/strict';
import { SAVE_SITE_FIELDS, SERVER_TYPES, SITE_STRING_FIELDS, type SaveSiteField, type ServerType, type Site } from '../../src/core/api/types';
import { COMMON_FIELDS, fieldSpecs, visibleFields, type FieldSpec } from '../../src/features/sites/formFields';
import { localizeSpec } from '../../src/features/sites/formTexts';
import {
  defaultValues,
  defaultsByType,
  duplicateName,
  formToFields,
  initialValues,
  isHttpUrl,
  siteToForm,
  storedPasswords,
  updateFields,
  validate,
  validateWith,
  withCopiedSecrets,
  type FormValues,
  type PasswordEdited,
} from '../../src/features/sites/siteForm';

const NOT_EDITED: PasswordEdited = { ftp_pass: false, db_password: false };
const BOTH_EDITED: PasswordEdited = { ftp_pass: true, db_password: true };

function makeSite(over: Partial<Site> = {}): Site {
  const s = { shared: false } as Site;
  for (const f of SITE_STRING_FIELDS) s[f] = '';
  return Object.assign(s, { id: '7', name: 'Shop', server_type: 'FTP', domain: 'ftp.example.com', port: '21', pasv: '1', encryption: '0', s3_public: '0', check_out: '0', encoding: 'UTF-8' }, over);
}

/** A valid form of the given type (every shown field filled with an acceptable value). */
function validValues(type: ServerType): FormValues {
  const v = defaultValues(type);
  v.name = 'My site';
  if (type === 'WebDAV') v.domain = 'https://dav.example.com/';
  else if (type === 'AJAX') v.domain = 'https://example.com/endpoint';
  else if (type === 'AmazonS3') v.domain = 'my-bucket';
  else v.domain = 'host.example.com';
  return v;
}

function errorsOf(v: FormValues): Partial<Record<SaveSiteField, string>> {
  const out: Partial<Record<SaveSiteField, string>> = {};
  for (const e of validate(v)) out[e.field] = e.message;
  return out;
}

function errorFor(type: ServerType, field: SaveSiteField, value: string): string | undefined {
  const v = validValues(type);
  v[field] = value;
  return errorsOf(v)[field];
}

const CONNECTION: Record<ServerType, SaveSiteField[]> = {
  None: [],
  FTP: ['domain', 'port', 'ftp_user', 'ftp_pass', 'dir', 'pasv', 'encryption'],
  SFTP: ['domain', 'port', 'logon_type', 'ftp_user', 'ftp_pass', 'dir'],
  Dropbox: ['dir'],
  GDrive: ['dir'],
  GDriveLimited: ['dir'],
  WebDAV: ['domain', 'port', 'ftp_user', 'ftp_pass', 'dir', 'encryption'],
  AmazonS3: ['domain', 'ftp_user', 'ftp_pass', 'dir', 's3_public'],
  AJAX: ['domain', 'ftp_user', 'ftp_pass'],
};
const COMMON: SaveSiteField[] = ['name', 'server_type', 'web_url', 'db_username', 'db_password', 'db_phpmyadmin', 'encoding', 'check_out'];

describe('siteForm', () => {
  describe('field visibility per server type', () => {
    for (const t of SERVER_TYPES) {
      it(`${t}: the common fields plus ${CONNECTION[t].join(', ') || 'nothing connection-specific'}`, () => {
        assert.deepEqual(new Set(visibleFields(t)), new Set([...COMMON, ...CONNECTION[t]]));
        assert.equal(visibleFields(t).length, COMMON.length + CONNECTION[t].length, 'no duplicates');
      });
    }

    it('an unknown server type shows the common fields only', () => {
      assert.deepEqual(new Set(visibleFields('Git')), new Set(COMMON));
      assert.deepEqual(new Set(COMMON_FIELDS), new Set(COMMON));
    });

    it('groups: name/type first, then connection, website, database, advanced', () => {
      const order = ['site', 'connection', 'website', 'database', 'advanced'];
      const groups = fieldSpecs('FTP').map((s) => order.indexOf(s.group));
      assert.ok(groups.every((g, i) => g >= 0 && (i === 0 || g >= groups[i - 1])), 'groups in display order');
      const by = (f: SaveSiteField) => fieldSpecs('FTP').find((s) => s.field === f)?.group;
      assert.equal(by('web_url'), 'website');
      assert.equal(by('db_password'), 'database');
      assert.equal(by('encoding'), 'advanced');
      assert.equal(by('check_out'), 'advanced');
    });

    it('labels and kinds follow the type (Bucket for S3, URL for WebDAV and AJAX)', () => {
      const spec = (t: string, f: SaveSiteField) => fieldSpecs(t).find((s) => s.field === f) as FieldSpec;
      assert.equal(spec('AmazonS3', 'domain').label, 'Bucket');
      assert.equal(spec('AmazonS3', 'ftp_user').label, 'Access key ID');
      assert.equal(spec('AmazonS3', 'ftp_pass').label, 'Secret access key');
      assert.equal(spec('FTP', 'domain').label, 'Host');
      assert.equal(spec('WebDAV', 'domain').kind, 'url');
      assert.equal(spec('AJAX', 'domain').kind, 'url');
      assert.equal(spec('FTP', 'ftp_pass').kind, 'password');
      assert.equal(spec('FTP', 'db_password').kind, 'password');
      assert.equal(spec('FTP', 'pasv').kind, 'flag');
      assert.equal(spec('FTP', 'port').kind, 'number');
      assert.equal(spec('SFTP', 'logon_type').kind, 'select');
      assert.deepEqual(spec('SFTP', 'logon_type').options?.map((o) => o.value), ['', 'key']);
      assert.deepEqual(spec('FTP', 'server_type').options?.map((o) => o.value), [...SERVER_TYPES]);
      for (const t of SERVER_TYPES) for (const s of fieldSpecs(t)) assert.ok(s.label && s.help, `${t}.${s.field} has a label and help`);
    });

    it('fieldSpecs returns copies that callers may change', () => {
      const a = fieldSpecs('FTP');
      a[0].label = 'changed';
      a[0].rules.length = 0;
      assert.equal(fieldSpecs('FTP')[0].label, 'Site name');
      assert.ok(fieldSpecs('FTP')[0].rules.length > 0);
    });

    it('specs are plain JSON (they are posted to the webview)', () => {
      for (const t of SERVER_TYPES) assert.deepEqual(JSON.parse(JSON.stringify(fieldSpecs(t))), fieldSpecs(t));
    });
  });

  describe('defaults', () => {
    it('FTP defaults to port 21 and passive mode on; SFTP to port 22', () => {
      const ftp = defaultValues('FTP');
      assert.equal(ftp.server_type, 'FTP');
      assert.equal(ftp.port, '21');
      assert.equal(ftp.pasv, '1');
      assert.equal(ftp.encryption, '0');
      assert.equal(ftp.encoding, 'UTF-8');
      assert.equal(ftp.check_out, '0');
      assert.equal(defaultValues('SFTP').port, '22');
      assert.equal(defaultsByType().SFTP.port, '22');
      assert.equal(defaultsByType().WebDAV.port, undefined);
      assert.equal(defaultsByType().FTP.server_type, undefined);
    });

    it('a new form opens as FTP with an empty name and no passwords', () => {
      const v = initialValues('create');
      assert.equal(v.server_type, 'FTP');
      assert.equal(v.name, '');
      assert.equal(v.ftp_pass, '');
      assert.equal(v.db_password, '');
    });

    for (const t of SERVER_TYPES) {
      it(`${t}: the defaults plus a name (and host) are valid`, () => {
        assert.deepEqual(validate(validValues(t)), []);
      });
    }
  });

  describe('validate', () => {
    it('name is required (spaces alone do not count)', () => {
      assert.equal(errorFor('FTP', 'name', ''), 'Enter a name for the site.');
      assert.equal(errorFor('FTP', 'name', '   '), 'Enter a name for the site.');
      assert.equal(errorFor('FTP', 'name', 'x'), undefined);
    });

    it('name is at most 255 characters', () => {
      assert.equal(errorFor('FTP', 'name', 'n'.repeat(255)), undefined);
      assert.equal(errorFor('FTP', 'name', 'n'.repeat(256)), 'Site name must be at most 255 characters long.');
    });

    it('server_type must be in the list', () => {
      for (const t of SERVER_TYPES) assert.equal(errorFor('FTP', 'server_type', t), undefined, t);
      assert.equal(errorFor('FTP', 'server_type', ''), 'Choose a server type.');
      assert.equal(errorFor('FTP', 'server_type', 'Git'), 'Choose a server type from the list.');
      assert.equal(errorFor('FTP', 'server_type', 'ftp'), 'Choose a server type from the list.');
    });

    it('port: a whole number from 1 to 65535, or empty', () => {
      for (const ok of ['', '1', '21', '2121', '65535', ' 22 ', '0022']) assert.equal(errorFor('FTP', 'port', ok), undefined, ok);
      for (const bad of ['0', '65536', '99999999', 'abc', '2.5', '-1', '+21', '1e3', '21 22', '0x15']) {
        assert.equal(errorFor('FTP', 'port', bad), 'Port must be a whole number from 1 to 65535.', bad);
      }
      assert.equal(errorFor('SFTP', 'port', '0'), 'Port must be a whole number from 1 to 65535.');
      assert.equal(errorFor('WebDAV', 'port', '70000'), 'Port must be a whole number from 1 to 65535.');
    });

    it('port is not checked where it is not shown', () => {
      for (const t of ['None', 'Dropbox', 'GDrive', 'GDriveLimited', 'AmazonS3', 'AJAX'] as const) assert.equal(errorFor(t, 'port', 'abc'), undefined, t);
    });

    it('flags must be 0 or 1', () => {
      const cases: [ServerType, SaveSiteField][] = [
        ['FTP', 'pasv'],
        ['FTP', 'encryption'],
        ['WebDAV', 'encryption'],
        ['AmazonS3', 's3_public'],
        ['None', 'check_out'],
        ['FTP', 'check_out'],
      ];
      for (const [t, f] of cases) {
        assert.equal(errorFor(t, f, '0'), undefined);
        assert.equal(errorFor(t, f, '1'), undefined);
        for (const bad of ['', '2', 'true', 'on', '01']) assert.match(errorFor(t, f, bad) ?? '', /must be 0 \(off\) or 1 \(on\)/, `${t}.${f}=${bad}`);
      }
      assert.equal(errorFor('FTP', 'pasv', '1'), undefined);
      assert.equal(errorFor('SFTP', 'pasv', 'x'), undefined, 'hidden flag not checked');
      assert.equal(errorFor('FTP', 's3_public', 'x'), undefined, 'hidden flag not checked');
    });

    it('web_url and db_phpmyadmin must be http(s) URLs when not empty', () => {
      for (const f of ['web_url', 'db_phpmyadmin'] as const) {
        for (const ok of ['', 'https://example.com', 'http://example.com/admin/', 'https://sub.example.com:8443/x?y=1', ' https://example.com ']) {
          assert.equal(errorFor('FTP', f, ok), undefined, `${f}=${ok}`);
        }
        for (const bad of ['example.com', 'ftp://example.com', 'https://', 'javascript:alert(1)', 'https://exa mple.com', 'file:///etc/passwd', '//example.com', 'data:text/html,x']) {
          assert.match(errorFor('FTP', f, bad) ?? '', /must be a full address starting with http:\/\/ or https:\/\//, `${f}=${bad}`);
        }
      }
      assert.match(errorFor('FTP', 'web_url', 'x') ?? '', /^Website URL /);
      assert.match(errorFor('FTP', 'db_phpmyadmin', 'x') ?? '', /^Database admin URL /);
    });

    it('domain is required, without spaces, where the type needs it', () => {
      for (const t of ['FTP', 'SFTP', 'AmazonS3', 'WebDAV', 'AJAX'] as const) {
        assert.match(errorFor(t, 'domain', '') ?? '', /is required\.$/, t);
        assert.match(errorFor(t, 'domain', '  ') ?? '', /is required\.$/, t);
      }
      assert.equal(errorFor('FTP', 'domain', 'ftp example.com'), 'Host must not contain spaces.');
      assert.equal(errorFor('SFTP', 'domain', 'a\tb'), 'Host must not contain spaces.');
      assert.equal(errorFor('AmazonS3', 'domain', 'my bucket'), 'Bucket must not contain spaces.');
      assert.equal(errorFor('AmazonS3', 'domain', ''), 'Bucket is required.');
      assert.equal(errorFor('FTP', 'domain', ' ftp.example.com '), undefined, 'surrounding spaces are trimmed');
      assert.equal(errorFor('FTP', 'domain', '192.0.2.1'), undefined);
      assert.equal(errorFor('FTP', 'domain', '2001:db8::1'), undefined);
      assert.equal(errorFor('FTP', 'domain', 'ftp://ftp.example.com'), 'Host: enter the host name only, without a prefix such as ftp://.');
      assert.equal(errorFor('FTP', 'domain', 'h'.repeat(256)), 'Host must be at most 255 characters long.');
    });

    it('WebDAV and AJAX domains are http(s) URLs', () => {
      assert.equal(errorFor('WebDAV', 'domain', 'https://dav.example.com/remote.php'), undefined);
      assert.equal(errorFor('WebDAV', 'domain', 'dav.example.com'), 'Server URL must be a full address starting with http:// or https://.');
      assert.equal(errorFor('AJAX', 'domain', 'ftp://x.example.com'), 'Endpoint URL must be a full address starting with http:// or https://.');
      assert.equal(errorFor('AJAX', 'domain', 'http://localhost:8080/x'), undefined);
    });

    it('domain is not checked for types that do not show it', () => {
      for (const t of ['None', 'Dropbox', 'GDrive', 'GDriveLimited'] as const) {
        assert.equal(errorFor(t, 'domain', ''), undefined, t);
        assert.equal(errorFor(t, 'domain', 'has spaces in it'), undefined, t);
      }
    });

    it("logon_type is '' or 'key'", () => {
      assert.equal(errorFor('SFTP', 'logon_type', ''), undefined);
      assert.equal(errorFor('SFTP', 'logon_type', 'key'), undefined);
      for (const bad of ['password', 'KEY', 'Key', 'keys', '0']) assert.equal(errorFor('SFTP', 'logon_type', bad), 'Authentication must be Password or Key.', bad);
      assert.equal(errorFor('FTP', 'logon_type', 'password'), undefined, 'hidden for FTP');
    });

    it('encoding is a character-set name', () => {
      for (const ok of ['', 'UTF-8', 'ISO-8859-1', 'windows-1252', 'Shift_JIS', 'x-mac-roman']) assert.equal(errorFor('FTP', 'encoding', ok), undefined, ok);
      for (const bad of ['UTF 8', '-utf8', 'utf8;drop']) assert.equal(errorFor('FTP', 'encoding', bad), 'Character encoding must be an encoding name such as UTF-8, without spaces.', bad);
      assert.equal(errorFor('FTP', 'encoding', 'U'.repeat(65)), 'Character encoding must be at most 64 characters long.');
    });

    it('text and password length limits', () => {
      assert.equal(errorFor('FTP', 'ftp_user', 'u'.repeat(255)), undefined);
      assert.equal(errorFor('FTP', 'ftp_user', 'u'.repeat(256)), 'Username must be at most 255 characters long.');
      assert.equal(errorFor('FTP', 'ftp_pass', 'p'.repeat(1024)), undefined);
      assert.equal(errorFor('FTP', 'ftp_pass', 'p'.repeat(1025)), 'Password must be at most 1024 characters long.');
      assert.equal(errorFor('FTP', 'db_password', 'p'.repeat(1025)), 'Database password must be at most 1024 characters long.');
      assert.equal(errorFor('FTP', 'dir', '/'.repeat(2049)), 'Home directory must be at most 2048 characters long.');
      assert.equal(errorFor('FTP', 'db_username', 'd'.repeat(256)), 'Database username must be at most 255 characters long.');
      assert.equal(errorFor('FTP', 'web_url', 'https://e.com/' + 'a'.repeat(2048)), 'Website URL must be at most 2048 characters long.');
    });

    it('passwords are not trimmed and may contain anything', () => {
      assert.equal(errorFor('FTP', 'ftp_pass', '  spaced pass  '), undefined);
      assert.equal(errorFor('FTP', 'ftp_pass', ''), undefined);
    });

    it('reports one message per field, for every invalid field, in display order', () => {
      const v = validValues('FTP');
      v.name = '';
      v.domain = '';
      v.port = '0';
      v.web_url = 'nope';
      const errors = validate(v);
      assert.deepEqual(
        errors.map((e) => e.field),
        ['name', 'domain', 'port', 'web_url'],
      );
    });

    it('validateWith checks the specs it is given, in their order, with their messages (the webview passes the translated ones)', () => {
      const v = validValues('FTP');
      v.name = '';
      v.port = '70000';
      const shout = (text: string) => text.toUpperCase();
      const specs = fieldSpecs('FTP').map((s) => localizeSpec(s, shout));
      assert.deepEqual(validateWith(specs, v), [
        { field: 'name', message: 'ENTER A NAME FOR THE SITE.' },
        { field: 'port', message: 'PORT MUST BE A WHOLE NUMBER FROM 1 TO 65535.' },
      ]);
      assert.deepEqual(validateWith(fieldSpecs('FTP'), v), validate(v), 'with the English specs of the chosen type: validate()');
      assert.deepEqual(validateWith(fieldSpecs('None'), v).map((e) => e.field), ['name'], 'a port the specs do not show is not checked');
    });

    it('isHttpUrl', () => {
      assert.equal(isHttpUrl('https://a.b'), true);
      assert.equal(isHttpUrl('HTTP://A.B/'), true);
      assert.equal(isHttpUrl('https:/a.b'), true, 'the URL parser repairs a single slash');
      assert.equal(isHttpUrl('mailto:a@b.c'), false);
      assert.equal(isHttpUrl(''), false);
    });
  });

  describe('siteToForm', () => {
    it('copies the fields, never the secrets', () => {
      const site = makeSite({ ftp_user: 'bob', ftp_pass: 's3cret', db_password: 'dbs3cret', dir: '/www', web_url: 'https://shop.example.com' });
      const v = siteToForm(site);
      assert.equal(v.ftp_pass, '');
      assert.equal(v.db_password, '');
      assert.equal(v.ftp_user, 'bob');
      assert.equal(v.dir, '/www');
      assert.equal(v.web_url, 'https://shop.example.com');
      assert.deepEqual(Object.keys(v).sort(), [...SAVE_SITE_FIELDS].sort());
      assert.ok(!JSON.stringify(v).includes('s3cret'));
    });

    it('tells separately whether passwords are stored', () => {
      assert.deepEqual(storedPasswords(makeSite({ ftp_pass: 'x' })), { ftp_pass: true, db_password: false });
      assert.deepEqual(storedPasswords(makeSite({ db_password: 'y' })), { ftp_pass: false, db_password: true });
      assert.deepEqual(storedPasswords(undefined), NOT_EDITED);
    });

    it('normalizes flags, port, logon_type and the server type spelling', () => {
      const v = siteToForm(makeSite({ pasv: 'true', encryption: '', s3_public: '2', check_out: '1', port: '0', logon_type: 'KEY', server_type: 'sftp' }));
      assert.equal(v.pasv, '1');
      assert.equal(v.encryption, '0');
      assert.equal(v.s3_public, '0');
      assert.equal(v.check_out, '1');
      assert.equal(v.port, '');
      assert.equal(v.logon_type, 'key');
      assert.equal(v.server_type, 'SFTP');
      assert.equal(siteToForm(makeSite({ logon_type: 'password' })).logon_type, '');
      assert.equal(siteToForm(makeSite({ port: '' })).port, '');
    });

    it('keeps an unknown server type (validation then asks for a choice)', () => {
      const v = siteToForm(makeSite({ server_type: 'Git' }));
      assert.equal(v.server_type, 'Git');
      assert.equal(errorsOf(v).server_type, 'Choose a server type from the list.');
    });

    it('edit opens with the site values, duplicate with "Copy of <name>"', () => {
      const site = makeSite({ name: 'Shop' });
      assert.equal(initialValues('edit', site).name, 'Shop');
      assert.equal(initialValues('duplicate', site).name, 'Copy of Shop');
      assert.equal(initialValues('duplicate', site).ftp_pass, '');
      assert.equal(duplicateName('  Shop  '), 'Copy of Shop');
      const long = duplicateName('n'.repeat(255));
      assert.equal(long.length, 255);
      assert.ok(long.startsWith('Copy of n'));
      assert.deepEqual(validate(initialValues('duplicate', makeSite({ name: 'n'.repeat(255) }))), []);
    });
  });

  describe('formToFields', () => {
    it('converts port and flags to numbers', () => {
      const v = validValues('FTP');
      v.port = ' 2121 ';
      v.pasv = '0';
      v.encryption = '1';
      v.check_out = '1';
      const f = formToFields(v, { mode: 'create', passwordEdited: NOT_EDITED });
      assert.equal(f.port, 2121);
      assert.equal(f.pasv, 0);
      assert.equal(f.encryption, 1);
      assert.equal(f.check_out, 1);
      assert.equal(f.server_type, 'FTP');
    });

    it('never sends an empty port', () => {
      const v = validValues('FTP');
      v.port = '';
      assert.ok(!('port' in formToFields(v, { mode: 'edit', passwordEdited: NOT_EDITED })));
      assert.ok(!('port' in formToFields(v, { mode: 'create', passwordEdited: NOT_EDITED })));
    });

    it('sends only the fields of the chosen type plus the common ones', () => {
      const v = validValues('FTP');
      Object.assign(v, { ftp_user: 'bob', dir: '/www', logon_type: 'key', s3_public: '1', ftp_pass: 'typed' });
      for (const t of SERVER_TYPES) {
        const f = formToFields(v, { mode: 'edit', passwordEdited: BOTH_EDITED, serverType: t });
        const allowed = new Set([...COMMON, ...CONNECTION[t]]);
        for (const k of Object.keys(f)) assert.ok(allowed.has(k as SaveSiteField), `${t} must not send ${k}`);
        assert.equal(f.server_type, t);
      }
      const dropbox = formToFields(v, { mode: 'edit', passwordEdited: BOTH_EDITED, serverType: 'Dropbox' });
      assert.equal(dropbox.dir, '/www');
      assert.equal(dropbox.domain, undefined);
      assert.equal(dropbox.ftp_pass, undefined);
      assert.equal(dropbox.logon_type, undefined);
    });

    it('the server type defaults to the form value', () => {
      const v = validValues('SFTP');
      v.logon_type = 'key';
      const f = formToFields(v, { mode: 'create', passwordEdited: NOT_EDITED });
      assert.equal(f.server_type, 'SFTP');
      assert.equal(f.logon_type, 'key');
      assert.equal(f.port, 22);
      assert.equal(f.pasv, undefined);
    });

    it('omits passwords the user did not edit, sends edited ones as typed', () => {
      const v = validValues('FTP');
      v.ftp_pass = '  p w  ';
      v.db_password = 'db';
      const none = formToFields(v, { mode: 'edit', passwordEdited: NOT_EDITED });
      assert.ok(!('ftp_pass' in none) && !('db_password' in none));
      const both = formToFields(v, { mode: 'edit', passwordEdited: BOTH_EDITED });
      assert.equal(both.ftp_pass, '  p w  ');
      assert.equal(both.db_password, 'db');
      const one = formToFields(v, { mode: 'edit', passwordEdited: { ftp_pass: false, db_password: true } });
      assert.ok(!('ftp_pass' in one));
      assert.equal(one.db_password, 'db');
    });

    it('an edited empty password is sent empty (the user removed it)', () => {
      const v = validValues('FTP');
      const f = formToFields(v, { mode: 'edit', passwordEdited: { ftp_pass: true, db_password: false } });
      assert.equal(f.ftp_pass, '');
    });

    it('trims text; edit sends cleared text as "", create leaves it out', () => {
      const v = validValues('FTP');
      v.name = '  Shop  ';
      v.domain = ' ftp.example.com ';
      v.ftp_user = '';
      v.web_url = '';
      const e = formToFields(v, { mode: 'edit', passwordEdited: NOT_EDITED });
      assert.equal(e.name, 'Shop');
      assert.equal(e.domain, 'ftp.example.com');
      assert.equal(e.ftp_user, '');
      assert.equal(e.web_url, '');
      const c = formToFields(v, { mode: 'create', passwordEdited: NOT_EDITED });
      assert.ok(!('ftp_user' in c) && !('web_url' in c));
      const d = formToFields(v, { mode: 'duplicate', passwordEdited: NOT_EDITED });
      assert.ok(!('ftp_user' in d));
    });

    it('duplicate: an empty name becomes "Copy of <original>"', () => {
      const v = validValues('FTP');
      v.name = ' ';
      assert.equal(formToFields(v, { mode: 'duplicate', passwordEdited: NOT_EDITED, originalName: 'Shop' }).name, 'Copy of Shop');
      v.name = 'Mine';
      assert.equal(formToFields(v, { mode: 'duplicate', passwordEdited: NOT_EDITED, originalName: 'Shop' }).name, 'Mine');
    });

    it('never sends an id', () => {
      const site = makeSite({ id: '42' });
      for (const mode of ['edit', 'duplicate', 'create'] as const) {
        const f = formToFields(initialValues(mode, site), { mode, passwordEdited: NOT_EDITED }) as Record<string, unknown>;
        assert.ok(!('id' in f) && !('site' in f) && !('new' in f), mode);
      }
    });
  });

  describe('withCopiedSecrets (duplicate)', () => {
    const original = makeSite({ ftp_pass: 'orig-ftp', db_password: 'orig-db' });

    it("adds the original's passwords the user did not edit", () => {
      const f = formToFields(initialValues('duplicate', original), { mode: 'duplicate', passwordEdited: NOT_EDITED });
      assert.ok(!('ftp_pass' in f));
      const copied = withCopiedSecrets(f, original, NOT_EDITED, 'FTP');
      assert.equal(copied.ftp_pass, 'orig-ftp');
      assert.equal(copied.db_password, 'orig-db');
      assert.ok(!('ftp_pass' in f), 'the input is not changed');
    });

    it('keeps what the user typed (or removed)', () => {
      const v = initialValues('duplicate', original);
      v.ftp_pass = 'new';
      const edited = { ftp_pass: true, db_password: true };
      const copied = withCopiedSecrets(formToFields(v, { mode: 'duplicate', passwordEdited: edited }), original, edited, 'FTP');
      assert.equal(copied.ftp_pass, 'new');
      assert.equal(copied.db_password, '');
    });

    it('copies only passwords relevant to the chosen type, and only stored ones', () => {
      const f = formToFields(initialValues('duplicate', original), { mode: 'duplicate', passwordEdited: NOT_EDITED, serverType: 'Dropbox' });
      const copied = withCopiedSecrets(f, original, NOT_EDITED, 'Dropbox');
      assert.ok(!('ftp_pass' in copied));
      assert.equal(copied.db_password, 'orig-db');
      const empty = withCopiedSecrets(f, makeSite(), NOT_EDITED, 'FTP');
      assert.ok(!('ftp_pass' in empty) && !('db_password' in empty));
    });
  });

  describe('updateFields (edit: every field, the unchanged ones as stored)', () => {
    // Stored values the form would normalize ('ftp', 'Yes', '021'): an unchanged field must go back exactly as stored.
    const stored = (type: string) =>
      makeSite({
        server_type: type, domain: 'host.example', logon_type: 'key', ftp_user: 'u', ftp_pass: 'stored-pass', dir: '/d', port: '021', pasv: 'Yes',
        encryption: '1', s3_public: '1', check_out: '1', encoding: 'latin1', web_url: 'https://w.example/', db_username: 'dbu', db_password: 'stored-db', db_phpmyadmin: 'https://pma.example/',
      });

    it('for every server type, a rename sends every Save Site field, all but the name exactly as stored (passwords included)', () => {
      for (const type of SERVER_TYPES) {
        const site = stored(type);
        const opened = siteToForm(site);
        const fields = updateFields(site, { ...opened, name: 'Renamed' }, opened, NOT_EDITED) as Record<string, unknown>;
        assert.deepEqual(Object.keys(fields).sort(), [...SAVE_SITE_FIELDS].sort(), type);
        for (const f of SAVE_SITE_FIELDS) assert.equal(fields[f], f === 'name' ? 'Renamed' : site[f], `${type}.${f}`);
      }
    });

    it('a changed field is sent as the form gives it; a cleared one as ""; edited passwords as typed', () => {
      const site = stored('FTP');
      const opened = siteToForm(site);
      const values = { ...opened, port: '2121', dir: '  /new  ', web_url: '', ftp_pass: 'typed', db_password: '' };
      const fields = updateFields(site, values, opened, BOTH_EDITED) as Record<string, unknown>;
      assert.equal(fields.port, 2121);
      assert.equal(fields.dir, '/new');
      assert.equal(fields.web_url, '');
      assert.equal(fields.ftp_pass, 'typed');
      assert.equal(fields.db_password, '', 'a password the user removed');
      assert.equal(fields.pasv, 'Yes', 'unchanged: as stored');
      assert.equal(fields.encoding, 'latin1');
    });

    it('switching the type: fields the new type shows and the user changed are sent; hidden ones stay as stored', () => {
      const site = stored('FTP');
      const opened = siteToForm(site);
      // The form applies the SFTP defaults (port 22) and hides pasv and encryption.
      const values = { ...opened, server_type: 'SFTP', port: '22', pasv: '0' };
      const fields = updateFields(site, values, opened, NOT_EDITED) as Record<string, unknown>;
      assert.equal(fields.server_type, 'SFTP');
      assert.equal(fields.port, 22);
      assert.equal(fields.pasv, 'Yes', 'hidden for SFTP: not changed by the user, sent as stored');
      assert.equal(fields.ftp_pass, 'stored-pass');
    });
  });

  describe('round trip site -> form -> fields', () => {
    // For each Save Site field: a type that shows it, a stored value and what must be sent.
    const samples: Record<SaveSiteField, { type: ServerType; stored: string; sent: unknown }> = {
      name: { type: 'FTP', stored: 'Shop', sent: 'Shop' },
      server_type: { type: 'AmazonS3', stored: 'AmazonS3', sent: 'AmazonS3' },
      domain: { type: 'FTP', stored: 'ftp.example.com', sent: 'ftp.example.com' },
      logon_type: { type: 'SFTP', stored: 'key', sent: 'key' },
      ftp_user: { type: 'SFTP', stored: 'deploy', sent: 'deploy' },
      ftp_pass: { type: 'FTP', stored: 'secret-ftp', sent: undefined },
      dir: { type: 'Dropbox', stored: '/apps/site', sent: '/apps/site' },
      port: { type: 'SFTP', stored: '2222', sent: 2222 },
      pasv: { type: 'FTP', stored: '1', sent: 1 },
      encryption: { type: 'WebDAV', stored: '1', sent: 1 },
      s3_public: { type: 'AmazonS3', stored: '1', sent: 1 },
      check_out: { type: 'None', stored: '1', sent: 1 },
      encoding: { type: 'FTP', stored: 'ISO-8859-1', sent: 'ISO-8859-1' },
      web_url: { type: 'FTP', stored: 'https://shop.example.com/', sent: 'https://shop.example.com/' },
      db_username: { type: 'FTP', stored: 'shopdb', sent: 'shopdb' },
      db_password: { type: 'FTP', stored: 'secret-db', sent: undefined },
      db_phpmyadmin: { type: 'FTP', stored: 'https://shop.example.com/pma/', sent: 'https://shop.example.com/pma/' },
    };

    it('covers every Save Site field', () => {
      assert.deepEqual(Object.keys(samples).sort(), [...SAVE_SITE_FIELDS].sort());
    });

    for (const f of SAVE_SITE_FIELDS) {
      it(`${f}`, () => {
        const { type, stored, sent } = samples[f];
        const domain = type === 'WebDAV' ? 'https://dav.example.com/' : type === 'AmazonS3' ? 'bucket' : 'host.example.com';
        const site = makeSite({ server_type: type, domain, [f]: stored });
        const form = siteToForm(site);
        assert.deepEqual(validate(form), []);
        const fields = formToFields(form, { mode: 'edit', passwordEdited: NOT_EDITED });
        assert.deepEqual((fields as Record<string, unknown>)[f], sent);
        if (f === 'ftp_pass' || f === 'db_password') {
          assert.equal(form[f], '', 'a secret never reaches the form');
          const dup = withCopiedSecrets(formToFields(initialValues('duplicate', site), { mode: 'duplicate', passwordEdited: NOT_EDITED }), site, NOT_EDITED, type);
          assert.equal(dup[f], stored, 'a duplicate carries the stored secret');
        }
      });
    }
  });
});

// The extension's messages are in l10n/bundle.l10n.json, generated from the sources by
// scripts/l10n-bundle.mjs (@vscode/l10n-dev for the vscode.l10n.t calls, plus the translator
// parameter's `t(…)` calls and the site form's texts); this fails when the bundle is out of date
// or when a translated call has a message that is not a literal (a translator could never see
// it). Also: the translator parameter of the modules without `vscode` is really used.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { relativeTime } from '../../src/core/model/time';
import { safeSegments } from '../../src/core/model/safePath';
import { fieldSpecs } from '../../src/features/sites/formFields';
import { formTexts, localizeSpec } from '../../src/features/sites/formTexts';
import { duplicateName, formToFields, initialValues, emptyValues } from '../../src/features/sites/siteForm';
import { english, formatMessage, type Translate } from '../../src/core/util/l10n';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

interface L10nBundle {
  check(bundleText?: string): Promise<string[]>;
  build(): Promise<{ text: string; bundle: Record<string, unknown>; problems: string[] }>;
  scanSource(rel: string, source: string): { messages: Set<string>; problems: string[] };
  DYNAMIC: { file: string; arg: string }[];
}

interface L10nDev {
  getL10nJson(files: { contents: string; extension: string }[]): Promise<Record<string, unknown>>;
}

function load(): Promise<L10nBundle> {
  // A native import (the script is an ES module); the path is computed so tsc leaves it alone.
  return import(pathToFileURL(path.join(repoRoot, 'scripts', 'l10n-bundle.mjs')).href) as Promise<L10nBundle>;
}

/** A translator that marks what it translated, to see that a module used it. */
const marked: Translate = (message, ...args) => `«${formatMessage(message, args)}»`;

describe('l10n (scripts/l10n-bundle.mjs, l10n/bundle.l10n.json)', () => {
  let l10n: L10nBundle;
  before(async () => {
    l10n = await load();
  });

  it('the bundle is up to date, every message is a literal and its placeholders match its arguments', async () => {
    assert.deepEqual(await l10n.check(), []);
  });

  it('a message missing from the bundle is caught: a vscode.l10n.t one (l10n-dev) and a translator parameter’s t() one (the script’s addition)', async () => {
    const file = fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.json'), 'utf8');
    const bundle = JSON.parse(file) as Record<string, unknown>;
    // 'Sign In…' is a vscode.l10n.t message (src/features/auth); 'just now' only a t() one (src/core/model/time.ts).
    for (const k of ['Sign In…', 'just now']) assert.ok(k in bundle, k);
    delete bundle['Sign In…'];
    delete bundle['just now'];
    const problems = await l10n.check(`${JSON.stringify(bundle, null, 2)}\n`);
    assert.ok(problems.some((p) => p.includes('lacks') && p.includes('"Sign In…"') && p.includes('"just now"')), problems.join('\n'));
  });

  it('the bundle maps every message to itself (English) and holds the site form’s texts', () => {
    const bundle = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, unknown>;
    for (const [k, v] of Object.entries(bundle)) {
      if (typeof v === 'string') assert.equal(v, k);
      else assert.equal(k.startsWith(`${(v as { message: string }).message}/`), true, k);
    }
    for (const text of formTexts()) assert.ok(text in bundle, `site form text ${JSON.stringify(text)}`);
    for (const text of ['Site name', 'Enter a name for the site.', 'Host must not contain spaces.', 'FTP server', 'Advanced', 'Key']) assert.ok(text in bundle, text);
    for (const text of ['just now', 'unknown date', 'Copy of {0}', 'Delete the site “{0}”?', 'Fields marked * are required. Press {0} to save.']) assert.ok(text in bundle, text);
  });

  it('package.json points VS Code at the bundle folder', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { l10n?: string };
    assert.equal(pkg.l10n, './l10n');
  });

  it('refuses computed messages, except the documented ones', () => {
    const scan = (source: string, rel = 'src/x.ts') => l10n.scanSource(rel, source).problems;
    assert.deepEqual(scan("vscode.l10n.t('Saved {0}.', name); l10n.t(`Done`); t('in {0} days', n);"), []);
    assert.equal(scan('vscode.l10n.t(name);').length, 1);
    assert.equal(scan('vscode.l10n.t(`Saved ${name}.`);').length, 1);
    assert.equal(scan("vscode.l10n.t('Saved ' + name);").length, 1);
    assert.equal(scan('t(label);').length, 1);
    assert.deepEqual(scan("message('Could not delete “{0}”', plain(name));"), [], 'a notification text');
    assert.equal(scan('message(label);').length, 1);
    assert.equal(scan('vscode.l10n.t(text);', 'src/x.ts').length, 1, 'an allowed argument only in its own file');
    for (const d of l10n.DYNAMIC) assert.deepEqual(scan(`vscode.l10n.t(${d.arg});`, d.file), [], `${d.file}: ${d.arg}`);
    // Other functions named t are not translators unless called as l10n.t or a bare t.
    assert.deepEqual(scan('x.t(name); obj.l10n2.t(name);'), []);
  });

  it('checks placeholders against the arguments', () => {
    const scan = (source: string) => l10n.scanSource('src/x.ts', source).problems;
    assert.equal(scan("vscode.l10n.t('Saved {0} of {1}.', a);").length, 1, 'a placeholder without an argument');
    assert.equal(scan("vscode.l10n.t('Saved.', a);").length, 1, 'an argument never shown');
    assert.deepEqual(scan("vscode.l10n.t('Saved {name}.', { name });"), [], 'named arguments are not checked');
    assert.deepEqual(scan("vscode.l10n.t('Press {0} to save.');"), [], 'a template for someone else');
  });

  it('the object form: l10n-dev keys it "message/comment"; its message must be a literal', async () => {
    // l10n-dev follows the name `vscode` is imported as.
    const source = "import * as vscode from 'vscode';\nvscode.l10n.t({ message: 'Open {0}', args: [a], comment: ['{0} is a file name'] });";
    const dev = (await import(pathToFileURL(require.resolve('@vscode/l10n-dev')).href)) as L10nDev;
    assert.deepEqual(await dev.getL10nJson([{ contents: source, extension: '.ts' }]), { 'Open {0}/{0} is a file name': { message: 'Open {0}', comment: ['{0} is a file name'] } });
    assert.deepEqual(l10n.scanSource('src/x.ts', source).problems, []);
    assert.equal(l10n.scanSource('src/x.ts', 'vscode.l10n.t({ message: m, comment: "c" });').problems.length, 1);
  });

  it('collects the translator parameter’s t() messages, which l10n-dev does not see', async () => {
    const source = "import * as vscode from 'vscode';\nexport function f(t: Translate) { return t('in {0} days', 3) + vscode.l10n.t('Saved.'); }";
    assert.deepEqual([...l10n.scanSource('src/x.ts', source).messages], ['in {0} days']);
    const dev = (await import(pathToFileURL(require.resolve('@vscode/l10n-dev')).href)) as L10nDev;
    assert.deepEqual(await dev.getL10nJson([{ contents: source, extension: '.ts' }]), { 'Saved.': 'Saved.' });
  });

  it('the pure modules translate through their `t` parameter and default to English', () => {
    const now = Date.UTC(2024, 5, 15, 12);
    assert.equal(relativeTime(now - 3 * 86400_000, now), '3 days ago');
    // Units and plurals come from Intl.RelativeTimeFormat in the display language; `t` the rest.
    assert.equal(relativeTime(now - 3 * 86400_000, now, marked, 'de'), 'vor 3 Tagen');
    assert.equal(relativeTime(now + 3600_000, now, marked, 'fr'), 'dans 1 heure');
    assert.equal(relativeTime(now - 5 * 60_000, now, marked, 'no-such-locale-x'), '5 minutes ago');
    assert.equal(relativeTime(now - 10_000, now, marked), '«just now»');
    assert.equal(relativeTime(undefined, now, marked), '«unknown date»');
    const refused = safeSegments('../x', marked);
    assert.ok(!refused.ok && refused.reason.startsWith('«The revision path "../x" goes up a folder'), JSON.stringify(refused));
    assert.equal(duplicateName('Shop', marked), '«Copy of Shop»');
    assert.equal(english('{0} of {1}, {0} again {2}', 'a', 2), 'a of 2, a again {2}');
  });

  it('the site form translates every text a person reads, never values or rules', () => {
    const site = { id: '1', name: 'Shop', server_type: 'FTP' } as unknown as Parameters<typeof initialValues>[1];
    assert.equal(initialValues('duplicate', site, marked).name, '«Copy of Shop»');
    assert.equal(formToFields({ ...emptyValues(), server_type: 'FTP' }, { mode: 'duplicate', passwordEdited: { ftp_pass: false, db_password: false }, originalName: 'Shop', t: marked }).name, '«Copy of Shop»');
    const texts: string[] = [];
    for (const spec of fieldSpecs('SFTP')) {
      const l = localizeSpec(spec, (text) => {
        texts.push(text);
        return `«${text}»`;
      });
      assert.equal(l.label, `«${spec.label}»`);
      assert.equal(l.field, spec.field);
      assert.equal(l.placeholder, spec.placeholder, 'placeholders are sample values');
      assert.deepEqual(
        l.rules.map((r) => ({ ...r, message: '' })),
        spec.rules.map((r) => ({ ...r, message: '' })),
        'the rules themselves are unchanged',
      );
      for (const r of l.rules) assert.match(r.message, /^«.*»$/);
      for (const o of l.options ?? []) assert.match(o.label, /^«.*»$/);
    }
    assert.ok(!texts.includes(''), 'empty texts are not translated');
  });
});

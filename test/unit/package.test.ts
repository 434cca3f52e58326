// The .vsix holds only what runs (the minified bundle, media, README without screenshots, CHANGELOG,
// LICENSE, package.json) and the Marketplace metadata is complete; the README it holds links only
// to what the extension's details page can open.
//
// The package comes from SITE_REVISIONS_VSIX when set; otherwise it is built with the project's
// own `package` task (about a second: it packages a copy of the working tree without .git,
// node_modules, .cache, .test-runs and dist, so the last test checks that .vscodeignore could not
// let those in either). The archive is read with test/host/zip.ts (zip central directory + node:zlib).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packagedVsix } from '../host/vsix';
import { zipEntries, zipRead, type ZipEntry } from '../host/zip';
import { headingIds, isUrl, markdownLinks } from './helpers/markdown';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

// ---------------------------------------------------------------------------------------------

interface Manifest {
  name: string;
  publisher: string;
  version: string;
  displayName?: string;
  description?: string;
  categories?: string[];
  keywords?: string[];
  icon?: string;
  license?: string;
  main?: string;
  repository?: string | { url?: string };
  galleryBanner?: { color?: string; theme?: string };
  engines: { vscode: string };
  activationEvents?: string[];
  devDependencies?: Record<string, string>;
  capabilities?: {
    untrustedWorkspaces?: { supported?: unknown; description?: string };
    virtualWorkspaces?: { supported?: unknown; description?: string };
  };
  contributes: {
    commands: { command: string }[];
    views?: Record<string, { id: string }[]>;
    walkthroughs?: {
      id: string;
      title: string;
      description: string;
      steps: { id: string; title: string; description: string; media: Record<string, string>; completionEvents?: string[] }[];
    }[];
  };
}

/** Marketplace categories (https://code.visualstudio.com/api/references/extension-manifest). */
const CATEGORIES = new Set(['AI', 'Azure', 'Chat', 'Data Science', 'Debuggers', 'Education', 'Extension Packs', 'Formatters', 'Keymaps', 'Language Packs', 'Linters', 'Machine Learning', 'Notebooks', 'Programming Languages', 'SCM Providers', 'Snippets', 'Testing', 'Themes', 'Visualization', 'Other']);

function listFiles(dir: string, rel = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listFiles(path.join(dir, d.name), r));
    else out.push(r);
  }
  return out;
}

function versionOf(range: string): number[] {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(range);
  assert.ok(m, `no version in ${range}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** The files of the build a module imports (`./chunk-….mjs`), statically or with import(). */
function imports(js: string): string[] {
  return [...js.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)"\.\/([\w.-]+\.mjs)"/g)].map((m) => m[1]!);
}

describe('package (.vsix)', function () {
  this.timeout(180_000);
  let buf: Buffer;
  let entries: ZipEntry[];
  let names: Set<string>;
  let manifest: Manifest;
  const read = (name: string): Buffer => {
    const e = entries.find((x) => x.name === name);
    assert.ok(e, `${name} is not in the package`);
    return zipRead(buf, e);
  };
  /** `entry` and the files of the package it imports, transitively. */
  const reachable = (entry: string): Set<string> => {
    const seen = new Set<string>();
    const visit = (n: string) => {
      if (seen.has(n) || !names.has(n)) return;
      seen.add(n);
      for (const f of imports(read(n).toString('utf8'))) visit(`extension/dist/${f}`);
    };
    visit(entry);
    return seen;
  };

  before(function () {
    const v = packagedVsix();
    buf = fs.readFileSync(v.file);
    if (v.built) fs.rmSync(v.file, { force: true });
    entries = zipEntries(buf);
    names = new Set(entries.map((e) => e.name));
    // The packaged manifest as VS Code reads it: its %key% strings resolved from package.nls.json.
    const nls = JSON.parse(read('extension/package.nls.json').toString('utf8')) as Record<string, string>;
    manifest = resolveNls(JSON.parse(read('extension/package.json').toString('utf8')), nls) as Manifest;
  });

  it('holds exactly the bundle, media, README (+ its images), CHANGELOG, LICENSE and package.json', () => {
    const media = listFiles(path.join(repoRoot, 'media'))
      .filter((f) => f !== 'icon.svg')
      .map((f) => `extension/media/${f}`);
    const nls = fs.readdirSync(repoRoot).filter((f) => /^package\.nls(\.[\w-]+)?\.json$/.test(f));
    const l10n = listFiles(path.join(repoRoot, 'l10n')).map((f) => `extension/l10n/${f}`);
    const expected = new Set([
      '[Content_Types].xml',
      'extension.vsixmanifest',
      'extension/package.json',
      'extension/readme.md',
      'extension/changelog.md',
      'extension/LICENSE.txt',
      // The entry point and every chunk it imports, statically or on first use (and nothing else).
      ...reachable('extension/dist/extension.mjs'),
      // The search thread and the import's, started with new Worker() (not imported).
      'extension/dist/searchWorker.js',
      'extension/dist/siteImportWorker.js',
      'extension/dist/siteEditor.js',
      ...media,
      ...nls.map((f) => `extension/${f}`),
      ...l10n,
    ]);
    const unexpected = [...names].filter((n) => !expected.has(n));
    const missing = [...expected].filter((n) => !names.has(n));
    assert.deepEqual(unexpected, [], `files that do not belong in the package (fix .vscodeignore): ${unexpected.join(', ')}`);
    assert.deepEqual(missing, [], `files missing from the package: ${missing.join(', ')}`);
  });

  it('the README it holds links only to what the details page opens: its headings and web addresses; no image points into the package', () => {
    // VS Code's details page (and the Marketplace) drop every link and image whose target is not an
    // http(s) URL (or, for a link, one of the README's headings): a relative link to CONTRIBUTING.md
    // or docs/*.md, or a screenshot under docs/, would be dead. Without a public location (no
    // repository yet) each screenshot is named by its description and the package carries none.
    const readme = read('extension/readme.md').toString('utf8');
    const ids = headingIds(readme);
    const bad: string[] = [];
    for (const link of markdownLinks(readme)) {
      if (link.image) {
        if (!/^https:/i.test(link.target)) bad.push(`image ${link.target} is not at a public https address`);
      } else if (link.target.startsWith('#')) {
        if (!ids.has(link.target.slice(1))) bad.push(`${link.target}: no such heading`);
      } else if (!/^(https?|mailto):/i.test(link.target)) bad.push(`[${link.text}](${link.target}) cannot be opened from the details page`);
    }
    assert.deepEqual(bad, []);
    const shots = markdownLinks(fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8')).filter((l) => l.image && !isUrl(l.target));
    assert.ok(shots.length >= 3, 'the README shows its screenshots');
    for (const shot of shots) assert.ok(readme.includes(`*(${shot.text})*`), `${shot.target}: its description is in the packaged README`);
    assert.deepEqual([...names].filter((n) => /\.(png|webp|gif|jpe?g)$/.test(n) && !n.startsWith('extension/media/')), [], 'no screenshot in the package');
  });

  it('packaged with a public location (--baseContentUrl, --baseImagesUrl), the README points its images and links to other files there', function () {
    if (process.env.SITE_REVISIONS_VSIX) this.skip(); // a given package: nothing is built here
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vsix-located-')), 'located.vsix');
    try {
      const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'task.mjs'), 'package', out, '--baseContentUrl', 'https://example.com/repo/blob/main/', '--baseImagesUrl', 'https://example.com/repo/raw/main/'], { cwd: repoRoot, encoding: 'utf8' });
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      const located = fs.readFileSync(out);
      const readme = zipRead(located, zipEntries(located).find((e) => e.name === 'extension/readme.md')!).toString('utf8');
      const links = markdownLinks(readme);
      const images = links.filter((l) => l.image).map((l) => l.target);
      assert.ok(images.length >= 3);
      for (const i of images) assert.match(i, /^https:\/\/example\.com\/repo\/raw\/main\/docs\/[\w-]+\.webp$/);
      const files = links.filter((l) => !l.image && !l.target.startsWith('#')).map((l) => l.target);
      assert.ok(files.some((t) => t === 'https://example.com/repo/blob/main/CONTRIBUTING.md'), files.join(', '));
      assert.ok(files.some((t) => t.startsWith('https://example.com/repo/blob/main/docs/security.md')), files.join(', '));
      for (const t of files) assert.match(t, /^(https?|mailto):/, t);
    } finally {
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
    }
  });

  it('has no sources, tests, maps, node_modules, caches or build output', () => {
    const forbidden = [/\.map$/, /\.tsx?$/, /(^|\/)node_modules\//, /(^|\/)\.cache\//, /^extension\/out\//, /^extension\/src\//, /^extension\/test\//, /^extension\/\.test-runs\//, /^extension\/\.(vscode|ci|git)/, /^extension\/bench\//, /\.vsix$/, /tsconfig|eslint|esbuild\.mjs|package-lock/, /^extension\/scripts\//, /^extension\/media\/icon\.svg$/];
    const bad = [...names].filter((n) => forbidden.some((re) => re.test(n)));
    assert.deepEqual(bad, []);
  });

  it('the build is minified, has no source map; the manifest\'s main is its ES-module entry point, and every file it imports is packaged', () => {
    assert.equal(manifest.main, './dist/extension.mjs');
    for (const n of [...names].filter((x) => /^extension\/dist\/.*\.mjs$/.test(x))) {
      const js = read(n).toString('utf8');
      assert.doesNotMatch(js, /sourceMappingURL/, n);
      const lines = js.split('\n').length;
      // Short lines in a minified chunk come from a template literal (the site editor's HTML): no line is indented.
      assert.ok(js.length < 2000 || js.length / lines > 500 || !/\n[ \t]+\S/.test(js), `${n} does not look minified (${lines} lines for ${js.length} bytes)`);
      for (const f of imports(js)) assert.ok(names.has(`extension/dist/${f}`), `${n} imports ./${f}, which is not in the package`);
    }
    // The site editor's webview script, bundled from src/ (no hand-written JavaScript in media/).
    const webview = read('extension/dist/siteEditor.js').toString('utf8');
    assert.doesNotMatch(webview, /sourceMappingURL/);
    assert.ok(webview.length / webview.split('\n').length > 1000, 'dist/siteEditor.js does not look minified');
    assert.deepEqual([...names].filter((n) => /^extension\/media\/.*\.js$/.test(n)), [], 'no script in media/');
    assert.ok(buf.length < 1024 * 1024, `the package is ${buf.length} bytes`);
  });

  it('the vsixmanifest names this extension and version', () => {
    const xml = read('extension.vsixmanifest').toString('utf8');
    assert.match(xml, new RegExp(`<Identity [^>]*Id="${manifest.name}"[^>]*Version="${manifest.version.replace(/\./g, '\\.')}"[^>]*Publisher="${manifest.publisher}"`));
    assert.match(xml, /Microsoft\.VisualStudio\.Code\.Manifest/);
  });

  it('Marketplace metadata is complete: name, description, categories, keywords, icon (128×128 PNG), banner, license', () => {
    assert.ok(manifest.displayName?.trim());
    assert.ok(manifest.description && manifest.description.length >= 20);
    assert.ok(manifest.categories?.length, 'categories');
    for (const c of manifest.categories ?? []) assert.ok(CATEGORIES.has(c), `unknown category ${c}`);
    assert.ok(manifest.keywords && manifest.keywords.length > 0 && manifest.keywords.length <= 30, 'keywords (1–30)');
    assert.ok(manifest.icon, 'icon');
    const png = read(`extension/${manifest.icon}`);
    assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'the icon is a PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'the icon is 128×128');
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.match(manifest.galleryBanner?.theme ?? '', /^(dark|light)$/);
    assert.equal(manifest.license, 'MIT');
    assert.match(read('extension/LICENSE.txt').toString('utf8'), /MIT License/);
    assert.match(read('extension/changelog.md').toString('utf8'), new RegExp(`## ${manifest.version.replace(/\./g, '\\.')}`));
    assert.ok(!(manifest.activationEvents ?? []).includes('*'));
  });

  it('no placeholder repository: either none (packaged with --allow-missing-repository) or a real URL', () => {
    const repo = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
    if (repo === undefined) {
      assert.match(fs.readFileSync(path.join(repoRoot, 'scripts', 'task.mjs'), 'utf8'), /--allow-missing-repository/);
      return;
    }
    assert.doesNotMatch(repo, /example\.|\.invalid|localhost|TODO|your-/i, `placeholder repository ${repo}`);
  });

  it('declares untrusted (supported) and virtual (limited, explained) workspace support', () => {
    assert.equal(manifest.capabilities?.untrustedWorkspaces?.supported, true);
    assert.equal(manifest.capabilities?.virtualWorkspaces?.supported, 'limited');
    assert.ok((manifest.capabilities?.virtualWorkspaces?.description ?? '').length > 20);
  });

  it('@types/vscode does not exceed engines.vscode (vsce refuses that)', () => {
    const own = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Manifest;
    const types = own.devDependencies?.['@types/vscode'];
    assert.ok(types, '@types/vscode');
    assert.ok(compareVersions(versionOf(types), versionOf(own.engines.vscode)) <= 0, `@types/vscode ${types} > engines.vscode ${own.engines.vscode}`);
  });

  it('the walkthrough: its media are packaged, its buttons run contributed commands, its steps complete', () => {
    const [wt] = manifest.contributes.walkthroughs ?? [];
    assert.ok(wt, 'a walkthrough');
    assert.equal(wt.title, 'Get started with Site Revisions');
    const commands = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const list of Object.values(manifest.contributes.views ?? {})) for (const v of list) commands.add(`${v.id}.focus`);
    const linked: string[] = [];
    for (const step of wt.steps) {
      for (const [kind, file] of Object.entries(step.media)) if (kind !== 'altText') assert.ok(names.has(`extension/${file}`), `${step.id}: ${file} is not packaged`);
      for (const m of step.description.matchAll(/\(command:([\w.-]+)/g)) {
        assert.ok(commands.has(m[1]), `${step.id}: unknown command ${m[1]}`);
        linked.push(m[1]);
      }
      assert.ok(step.completionEvents?.length, `${step.id}: no completion event`);
      for (const ev of step.completionEvents ?? []) {
        assert.match(ev, /^(onCommand|onContext|onView|onSettingChanged|onLink|onExtensionInstalled|onStepSelected):/);
        if (ev.startsWith('onCommand:')) assert.ok(commands.has(ev.slice('onCommand:'.length)), ev);
      }
    }
    for (const c of ['siteRevisions.signIn', 'siteRevisions.mapFolder', 'siteRevisions.revisionsOfActiveFile']) assert.ok(linked.includes(c), c);
    assert.ok(wt.steps.some((s) => s.completionEvents?.includes('onContext:siteRevisions.signedIn')));
  });

  it('.vscodeignore brings back only the shipped paths (nothing under .git, node_modules, .cache, .test-runs, out, src, test)', () => {
    const lines = fs
      .readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    assert.equal(lines[0], '**', 'everything is excluded first');
    const negations = lines.filter((l) => l.startsWith('!'));
    assert.ok(negations.length > 0);
    for (const n of negations) {
      const first = n.slice(1).split('/')[0];
      assert.ok(['dist', 'media', 'docs', 'README.md', 'CHANGELOG.md', 'LICENSE', 'package.nls.json', 'l10n'].includes(first), `${n} brings back more than the shipped files`);
      assert.doesNotMatch(n, /^!(\*|\{)|\.map$|\.ts$/, n);
    }
  });
});

function resolveNls(v: unknown, nls: Record<string, string>): unknown {
  if (typeof v === 'string') {
    const m = /^%([^%]+)%$/.exec(v);
    return m && typeof nls[m[1]!] === 'string' ? nls[m[1]!] : v;
  }
  if (Array.isArray(v)) return v.map((x) => resolveNls(x, nls));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveNls(x, nls)]));
  return v;
}

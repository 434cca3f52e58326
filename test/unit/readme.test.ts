// The README's Commands and Settings tables are generated from package.json
// (scripts/readme-tables.mjs); this fails when they drift apart. And the documentation split into
// README (users), CONTRIBUTING.md and docs/ holds together: the two commands first, every link
// between the files leads somewhere, the benchmark table has its place.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DOC, END, START, writeBenchTable } from '../../bench/report';
import { headingIds, isUrl, markdownLinks } from './helpers/markdown';

const repoRoot = path.resolve(__dirname, '..', '..', '..');

interface Pkg {
  contributes: {
    commands: { command: string; title: string }[];
    configuration: { properties: Record<string, unknown> };
  };
}

interface ReadmeTables {
  render(readme: string, pkg: unknown): string;
  renderCommands(pkg: unknown): string;
  renderSettings(pkg: unknown): string;
  placesOf(pkg: unknown): Map<string, string[]>;
  replaceBlock(readme: string, name: string, body: string): string;
  packagedReadme(readme: string): string;
  differences(actual: string, expected: string, max?: number): string[];
  localize(pkg: unknown, nls: Record<string, string>): unknown;
}

function load(): Promise<ReadmeTables> {
  // A native import (the script is an ES module); the path is computed so tsc leaves it alone.
  return import(pathToFileURL(path.join(repoRoot, 'scripts', 'readme-tables.mjs')).href) as Promise<ReadmeTables>;
}

describe('README tables (scripts/readme-tables.mjs)', () => {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const rawPkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Pkg;
  const nls = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
  let pkg = rawPkg;
  before(async () => {
    pkg = (await load()).localize(rawPkg, nls) as Pkg;
  });

  it('every %key% of package.json has a text in package.nls.json, and every text is used', () => {
    const text = JSON.stringify(rawPkg);
    const used = new Set([...text.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]));
    for (const k of used) assert.ok(typeof nls[k] === 'string' && nls[k].length > 0, `package.nls.json has no text for %${k}%`);
    for (const k of Object.keys(nls)) assert.ok(used.has(k), `package.nls.json key ${k} is not used`);
  });

  it('README.md matches package.json (run `node scripts/readme-tables.mjs --write` after changing commands or settings)', async () => {
    const t = await load();
    const expected = t.render(readme, pkg);
    if (expected !== readme) {
      assert.fail(`README.md's tables are out of date with package.json; run: node scripts/readme-tables.mjs --write\n${t.differences(readme, expected, 6).join('\n')}`);
    }
  });

  it('every command and every setting has a row; commands hidden from the palette are not said to be in it', async () => {
    const t = await load();
    const commands = t.renderCommands(pkg);
    for (const c of pkg.contributes.commands) assert.match(commands, new RegExp(`\\| \`${c.command.replace(/\./g, '\\.')}\` \\|`), c.command);
    const settings = t.renderSettings(pkg);
    for (const key of Object.keys(pkg.contributes.configuration.properties)) assert.ok(settings.includes(`| \`${key}\` |`), key);
    const places = t.placesOf(pkg);
    assert.ok(places.get('siteRevisions.signIn')?.includes('Command Palette'));
    assert.ok(!(places.get('siteRevisions.editSite') ?? []).includes('Command Palette'));
  });

  it('a change in package.json shows up as a difference, and the markers are required', async () => {
    const t = await load();
    const changed = structuredClone(pkg);
    changed.contributes.commands.push({ command: 'siteRevisions.somethingNew', title: 'Something New' });
    changed.contributes.configuration.properties['siteRevisions.newSetting'] = { type: 'boolean', default: true, description: 'A | pipe\nand a line break.' };
    const next = t.render(readme, changed);
    assert.notEqual(next, readme);
    assert.match(next, /\| Something New \| {2}\| `siteRevisions\.somethingNew` \| Command Palette \|/);
    assert.match(next, /\| `siteRevisions\.newSetting` \| boolean \| `true` \| window \| A \\\| pipe and a line break\. \|/);
    assert.ok(t.differences(readme, next).length > 0);
    assert.throws(() => t.replaceBlock('# no markers\n', 'commands', 'x'), /no <!-- commands:start -->/);
  });

  it('the README has the Commands, Settings and Troubleshooting sections after "Using it"', () => {
    const order = ['## Using it', '## Commands', '## Settings', '## Troubleshooting'].map((h) => readme.indexOf(`\n${h}\n`));
    assert.ok(order.every((i) => i > 0), `missing sections: ${order}`);
    assert.deepEqual([...order].sort((a, b) => a - b), order);
    const trouble = readme.slice(order[3]);
    for (const topic of [/proxy/i, /siteRevisions\.caFile/, /401/, /cannot be reached/]) assert.match(trouble, topic);
  });

  it('the README starts with the two commands: one runs the extension, one runs all tests', () => {
    const head = readme.split('\n').slice(0, 8).join('\n');
    assert.match(head, /^npm ci && npm start\b/m);
    assert.match(head, /^npm ci && npm test\b/m);
  });

  it('the packaged README keeps images, links to headings and URLs, and names other files without a link', async () => {
    const t = await load();
    const md = [
      '![Shot](docs/a.webp) and ![Other](./docs/b.webp "title")',
      'See [Troubleshooting](#troubleshooting), [the site](https://example.com/x) or [mail](mailto:a@example.com).',
      'Contributors: [CONTRIBUTING.md](CONTRIBUTING.md), [the decisions](docs/decisions.md#the-service "why").',
    ].join('\n');
    assert.equal(
      t.packagedReadme(md),
      [
        '*(Shot)* and *(Other)*',
        'See [Troubleshooting](#troubleshooting), [the site](https://example.com/x) or [mail](mailto:a@example.com).',
        'Contributors: CONTRIBUTING.md, the decisions.',
      ].join('\n'),
    );
    const packaged = t.packagedReadme(readme);
    const relative = markdownLinks(packaged).filter((l) => !l.target.startsWith('#') && !isUrl(l.target));
    assert.deepEqual(relative, [], 'links or images to files of the repository left in the packaged README');
  });

  describe('links between README.md, CONTRIBUTING.md and docs/*.md', () => {
    const docs = ['README.md', 'CONTRIBUTING.md', ...fs.readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    for (const doc of docs) {
      it(`${doc}: every relative link leads to a file of the repository, every #fragment to one of its headings`, () => {
        const text = fs.readFileSync(path.join(repoRoot, doc), 'utf8');
        const broken: string[] = [];
        for (const link of markdownLinks(text)) {
          if (isUrl(link.target)) continue;
          const [file, fragment] = link.target.split('#') as [string, string | undefined];
          const target = file ? path.join(repoRoot, path.dirname(doc), decodeURIComponent(file)) : path.join(repoRoot, doc);
          if (!fs.existsSync(target)) broken.push(`${link.target}: no such file`);
          else if (fragment && !headingIds(fs.readFileSync(target, 'utf8')).has(fragment)) broken.push(`${link.target}: no such heading`);
        }
        assert.deepEqual(broken, []);
      });
    }
  });

  it('docs/benchmarks.md holds the table that `npm run bench -- --write-docs` refreshes, and only there', () => {
    const doc = fs.readFileSync(BENCH_DOC, 'utf8');
    const a = doc.indexOf(START);
    const b = doc.indexOf(END);
    assert.ok(a > 0 && b > a, `${START} … ${END} in docs/benchmarks.md`);
    assert.match(doc.slice(a, b), /^\| Figure \| Measured \| Target \| \|$/m);
    assert.ok(!readme.includes(START), 'the README has no benchmark table');
    // Writing a new table replaces what is between the markers and nothing else.
    const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-doc-')), 'benchmarks.md');
    try {
      fs.writeFileSync(copy, doc);
      writeBenchTable(copy, 'NEW TABLE');
      assert.equal(fs.readFileSync(copy, 'utf8'), `${doc.slice(0, a + START.length)}\nNEW TABLE\n${doc.slice(b)}`);
    } finally {
      fs.rmSync(path.dirname(copy), { recursive: true, force: true });
    }
  });
});

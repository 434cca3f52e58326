// The exclusions of folder transfers and syncs (src/core/transfer/ignore.ts) against git itself:
// for handwritten and generated pattern files, the files git leaves untracked-and-not-ignored
// (`git ls-files -o --exclude-standard` in a real repository) are exactly those the matcher
// keeps. And `.git` / `.vscode` in every spelling the restore refuses are always excluded.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileExcludes, DEFAULT_EXCLUDES } from '../../src/core/transfer/ignore';

const TREE = [
  'a.txt',
  'b.log',
  'c.TXT',
  'build/out.js',
  'build/keep.txt',
  'src/build/x.js',
  'src/a.txt',
  'src/lib/deep/a.txt',
  'src/lib/deep/b.md',
  'docs/readme.md',
  'docs/.hidden',
  'docs/sub/page.md',
  '.env',
  'logs/2024/app.log',
  'logs/app.log',
  'name with space.txt',
  'ünï cödé.txt',
  'x[1].txt',
  'foo/bar/baz.txt',
  'foo/baz.txt',
  'foo/x/baz.txt',
  'node_modules/pkg/index.js',
  'dir.d/file',
  '#hash.txt',
  '!bang.txt',
  'deep/deep/deep/file.js',
  'q.txt',
];

const POOL = [
  '*.log', '*.txt', '!a.txt', '!src/a.txt', 'build/', '/build', 'build', 'src/**/a.txt', '**/deep', 'foo/**', '!foo/baz.txt', 'docs/*', '!docs/readme.md',
  '.*', '!.env', '?.txt', '[ab].txt', '[!a].txt', 'x\\[1\\].txt', 'node_modules', '/src/build/', 'logs/**/*.log', '\\#hash.txt', '\\!bang.txt', '*', '!*/',
  'dir.d/', 'lib/', 'src/lib', '**/*.js', 'name with space.txt', 'ünï cödé.txt', '*.TXT', 'foo/*/baz.txt', '**/foo/bar', 'deep/', '/deep/deep', '!deep/deep/deep/file.js',
  '# a comment', '', 'logs/', '!logs/app.log', 'src/**', '!src/**/', '*.md', '!**/b.md', 'a.txt   ', 'q.txt\\ ', '[a-c].*', 'doc?/', '**/sub/**',
];

const HANDWRITTEN: string[][] = [
  ['*.log'],
  ['build/'],
  ['/build'],
  ['*.txt', '!a.txt'],
  ['foo/**', '!foo/baz.txt'],
  ['docs/*', '!docs/readme.md'],
  ['logs/', '!logs/app.log'], // nothing inside an excluded folder comes back
  ['src/**/a.txt'],
  ['**/deep'],
  ['.*', '!.env'],
  ['x\\[1\\].txt', '\\#hash.txt', '\\!bang.txt'],
  ['[!a].txt', '?.log'],
  ['*', '!*/', '!*.md'],
  ['a.txt   ', 'q.txt\\ '],
  ['**/sub/**'],
];

function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

describe('transfer exclusions: gitignore-like patterns, checked against git', function () {
  this.timeout(120_000);
  let repo: string;
  before(function () {
    if (spawnSync('git', ['--version']).status !== 0) this.skip();
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'srignore-'));
    assert.equal(spawnSync('git', ['init', '-q', repo]).status, 0);
    for (const f of TREE) {
      fs.mkdirSync(path.join(repo, path.dirname(f)), { recursive: true });
      fs.writeFileSync(path.join(repo, f), f);
    }
  });
  after(() => repo && fs.rmSync(repo, { recursive: true, force: true }));

  /** The files git keeps (untracked, not ignored) with these patterns in .gitignore (plus the defaults). */
  function gitKeeps(patterns: string[]): string[] {
    fs.writeFileSync(path.join(repo, '.gitignore'), [...DEFAULT_EXCLUDES, '.gitignore', ...patterns].join('\n') + '\n');
    const r = spawnSync('git', ['-c', 'core.quotepath=off', 'ls-files', '-o', '--exclude-standard', '-z'], { cwd: repo, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\0').filter(Boolean).sort();
  }

  function weKeep(patterns: string[]): string[] {
    const ex = compileExcludes([...DEFAULT_EXCLUDES, '.gitignore', ...patterns]);
    return TREE.filter((f) => !ex(f, false)).sort();
  }

  for (const [i, set] of HANDWRITTEN.entries()) {
    it(`keeps what git keeps: ${JSON.stringify(set)} (#${i + 1})`, () => {
      assert.deepEqual(weKeep(set), gitKeeps(set));
    });
  }

  it('keeps what git keeps for 300 generated pattern files', () => {
    const next = rng(20261126);
    let differ = 0;
    const first: string[] = [];
    for (let n = 0; n < 300; n++) {
      const set = Array.from({ length: 1 + Math.floor(next() * 5) }, () => POOL[Math.floor(next() * POOL.length)]!);
      const a = weKeep(set);
      const b = gitKeeps(set);
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        differ++;
        if (first.length < 3) first.push(`${JSON.stringify(set)}: ours ${JSON.stringify(a)} git ${JSON.stringify(b)}`);
      }
    }
    assert.equal(differ, 0, first.join('\n'));
  });

  it('always excludes .git and .vscode, in the spellings the restore refuses, and what is inside them', () => {
    const ex = compileExcludes([]);
    for (const p of ['.git/config', '.GIT/hooks/pre-commit', 'sub/.Git/x', '.vscode/settings.json', '.VSCode/tasks.json', 'GIT~1/config', 'VSCODE~1/x', 'a/.g\u200cit/x']) assert.equal(ex(p, false), true, p);
    for (const p of ['.gitignore', '.github/workflows/ci.yml', 'my.git/x', 'vscode/x']) assert.equal(ex(p, false), false, p);
    assert.equal(ex('.git', true), true);
    assert.equal(ex('a/.vscode', true), true);
  });
});

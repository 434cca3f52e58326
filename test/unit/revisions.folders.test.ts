// Unit tests of the folder model of a site's revision files (src/core/model/folders.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildFolderModel, displaySegments, EMPTY_NAME, flatFiles, naturalCompare, type FolderEntry, type FolderModel } from '../../src/core/model/folders';

/** A folder by its display key ('' is the root), walked as the tree is expanded. */
function findFolder(model: FolderModel, key: string): FolderEntry | undefined {
  let f: FolderEntry | undefined = model.root;
  for (const name of key ? key.split('/') : []) {
    f = f.folders.find((x) => x.name === name);
    if (!f) return undefined;
  }
  return f;
}

/** The tree as nested arrays of names: folders as `name/` followed by their content. */
function outline(f: FolderEntry, indent = ''): string[] {
  const out: string[] = [];
  for (const sub of f.folders) {
    out.push(`${indent}${sub.name}/`);
    out.push(...outline(sub, indent + '  '));
  }
  for (const file of f.files) out.push(`${indent}${file.name}`);
  return out;
}

describe('revisions: folder model', () => {
  it('builds folders from /-separated paths, folders first then files, natural order', () => {
    const m = buildFolderModel(['index.php', 'css/site.css', 'b.php', 'includes/db.php', 'A.php', 'img/x10.png', 'img/x2.png', 'img/X1.png', 'file10.txt', 'file2.txt', 'css/a/b/c.css']);
    assert.deepEqual(outline(m.root), [
      'css/',
      '  a/',
      '    b/',
      '      c.css',
      '  site.css',
      'img/',
      '  X1.png',
      '  x2.png',
      '  x10.png',
      'includes/',
      '  db.php',
      'A.php',
      'b.php',
      'file2.txt',
      'file10.txt',
      'index.php',
    ]);
    assert.equal(m.root.fileCount, 11);
    assert.equal(findFolder(m, 'css')!.fileCount, 2);
    assert.equal(findFolder(m, 'css/a/b')!.files[0]!.path, 'css/a/b/c.css');
    assert.equal(findFolder(m, 'nope'), undefined);
    // `files` keeps the service's order
    assert.deepEqual(
      m.files.map((f) => f.path),
      ['index.php', 'css/site.css', 'b.php', 'includes/db.php', 'A.php', 'img/x10.png', 'img/x2.png', 'img/X1.png', 'file10.txt', 'file2.txt', 'css/a/b/c.css'],
    );
  });

  it('natural order: numbers by value, case and accents folded, a total deterministic order', () => {
    const names = ['v10', 'v9', 'V1', 'v01', 'v1', 'b', 'á', 'a', 'B', 'item-2', 'item-10', 'item-1b', 'z', '0', '00', '1'];
    const sorted = [...names].sort(naturalCompare);
    assert.deepEqual(sorted, ['0', '00', '1', 'a', 'á', 'B', 'b', 'item-1b', 'item-2', 'item-10', 'V1', 'v01', 'v1', 'v9', 'v10', 'z']);
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
        assert.equal(Math.sign(naturalCompare(a, b)) || 0, -Math.sign(naturalCompare(b, a)) || 0);
        assert.equal(naturalCompare(a, b) === 0, a === b);
        if (naturalCompare(a, b) < 0 && naturalCompare(b, c) < 0) assert.ok(naturalCompare(a, c) < 0, 'transitive');
      }),
      { numRuns: 3000 },
    );
  });

  it('shows a duplicate once; two raw paths shown alike are both kept and marked ambiguous', () => {
    const m = buildFolderModel(['a/b.php', 'a/b.php', '/a/b.php', 'a//b.php', 'c.php']);
    assert.equal(m.files.length, 4);
    const ab = findFolder(m, 'a')!.files;
    assert.deepEqual(ab.map((f) => f.path).sort(), ['/a/b.php', 'a//b.php', 'a/b.php']);
    assert.ok(ab.every((f) => f.ambiguous && f.displayPath === 'a/b.php'));
    assert.equal(m.byPath.get('c.php')!.ambiguous, false);
  });

  it('empty segments, leading and trailing /, an empty path: dropped for display, the raw path kept', () => {
    const m = buildFolderModel(['/etc/passwd', 'x//y///z.txt', 'dir/', '', '///']);
    assert.deepEqual(outline(m.root), ['etc/', '  passwd', 'x/', '  y/', '    z.txt', EMPTY_NAME, EMPTY_NAME, 'dir']);
    assert.equal(m.byPath.get('/etc/passwd')!.displayPath, 'etc/passwd');
    assert.equal(m.byPath.get('x//y///z.txt')!.name, 'z.txt');
    assert.equal(m.byPath.get('')!.name, EMPTY_NAME);
    assert.ok(m.byPath.get('')!.ambiguous && m.byPath.get('///')!.ambiguous);
  });

  it('never interprets .. or . or backslashes: they are names', () => {
    const m = buildFolderModel(['../../etc/passwd', 'a/../b.txt', './c.txt', 'C:\\Windows\\win.ini', 'dir\\sub/file.txt']);
    assert.deepEqual(outline(m.root), ['./', '  c.txt', '../', '  ../', '    etc/', '      passwd', 'a/', '  ../', '    b.txt', 'dir\\sub/', '  file.txt', 'C:\\Windows\\win.ini']);
    assert.equal(m.byPath.get('a/../b.txt')!.displayPath, 'a/../b.txt');
    assert.equal(m.byPath.get('C:\\Windows\\win.ini')!.name, 'C:\\Windows\\win.ini');
  });

  it('shows control and bidi characters as U+FFFD and skips values that are not strings', () => {
    assert.deepEqual(displaySegments('a\u0000b/c\nd/e\u202ef.txt'), ['a\uFFFDb', 'c\uFFFDd', 'e\uFFFDf.txt']);
    const m = buildFolderModel(['ok.txt', 5 as unknown as string, null as unknown as string, { x: 1 } as unknown as string]);
    assert.equal(m.files.length, 1);
    assert.equal(m.skipped, 3);
  });

  it('a name can be both a file and a folder', () => {
    const m = buildFolderModel(['a', 'a/b']);
    assert.deepEqual(outline(m.root), ['a/', '  b', 'a']);
  });

  it('flat layout: display paths in natural order, segment by segment', () => {
    const m = buildFolderModel(['b/a.txt', 'a-b/c.txt', 'a/z.txt', 'a/b/c.txt', 'img10/x', 'img2/x', 'A.txt']);
    assert.deepEqual(
      flatFiles(m).map((f) => f.displayPath),
      ['a/b/c.txt', 'a/z.txt', 'a-b/c.txt', 'A.txt', 'b/a.txt', 'img2/x', 'img10/x'],
    );
  });

  it('every raw path appears exactly once, under the folders of its display segments (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-c/.\\\x00 ]{0,8}$/), { maxLength: 40 }), (paths) => {
        const m = buildFolderModel(paths);
        const distinct = new Set(paths);
        assert.equal(m.files.length, distinct.size);
        assert.equal(m.root.fileCount, distinct.size);
        for (const p of distinct) {
          const e = m.byPath.get(p)!;
          const segs = displaySegments(p);
          assert.equal(e.name, segs[segs.length - 1]);
          const folder = findFolder(m, segs.slice(0, -1).join('/'))!;
          assert.ok(folder.files.includes(e));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('handles 100,000 paths with duplicates: every file once in the folders and in the flat list', function () {
    this.timeout(60000);
    // A large site: uploads by year/month, plugins and themes with nested code, a few roots.
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const generated: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const k = rnd(10);
      if (k < 6) generated.push(`wp-content/uploads/${2010 + rnd(15)}/${String(1 + rnd(12)).padStart(2, '0')}/image-${i}-${rnd(1000)}x${rnd(1000)}.jpg`);
      else if (k < 9) generated.push(`wp-content/plugins/plugin-${rnd(300)}/${['includes', 'admin', 'assets/js', 'assets/css', 'src/Model', 'vendor/lib'][rnd(6)]}/file-${i}.${['php', 'js', 'css'][rnd(3)]}`);
      else generated.push(`${['wp-includes', 'wp-admin', 'themes/acme'][rnd(3)]}/part${rnd(50)}/File${i}.php`);
    }
    generated.push(...generated.slice(0, 1000)); // duplicates
    // Strings as the service client gets them (parsed JSON, flat in memory).
    const paths = JSON.parse(JSON.stringify(generated)) as string[];
    // Speed is measured by `npm run bench` (target ≤ 150 ms); this test checks the result at scale.
    const m = buildFolderModel(paths);
    const walk = (f: FolderEntry): number => f.files.length + f.folders.reduce((n, sub) => n + walk(sub), 0);
    assert.equal(m.files.length, 100_000);
    assert.equal(walk(m.root), 100_000);
    assert.equal(flatFiles(m).length, 100_000);
  });
});

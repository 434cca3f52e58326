// Unit tests of joining revision paths to the mapped local folder (src/core/model/safePath.ts).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { isInside, joinInside, protectedFolder, relativeSegments, restoreRefusal, safeSegments } from '../../src/core/model/safePath';

function refused(raw: string): string {
  const r = safeSegments(raw);
  assert.equal(r.ok, false, `${JSON.stringify(raw)} must be refused`);
  return (r as { reason: string }).reason;
}

describe('revisions: safe joining of revision paths', () => {
  it('accepts ordinary relative paths; drops `.` segments and repeated /', () => {
    assert.deepEqual(safeSegments('index.php'), { ok: true, segments: ['index.php'] });
    assert.deepEqual(safeSegments('wp-content/themes/acme/style.css'), { ok: true, segments: ['wp-content', 'themes', 'acme', 'style.css'] });
    assert.deepEqual(safeSegments('./a//b/./c.txt'), { ok: true, segments: ['a', 'b', 'c.txt'] });
    assert.deepEqual(safeSegments('with space/ünïcødé ✓.md'), { ok: true, segments: ['with space', 'ünïcødé ✓.md'] });
    assert.deepEqual(safeSegments('.htaccess'), { ok: true, segments: ['.htaccess'] });
    assert.deepEqual(safeSegments('a/..b/c..d'), { ok: true, segments: ['a', '..b', 'c..d'] });
  });

  it('refuses .. anywhere, even when it would stay inside, naming the path', () => {
    assert.match(refused('../../etc/passwd'), /"\.\.\/\.\.\/etc\/passwd".*\(\.\.\)/);
    refused('a/../b.txt');
    refused('a/..');
    refused('..');
  });

  it('refuses absolute paths, drive letters, UNC paths, backslashes, NUL and control characters', () => {
    assert.match(refused('/etc/x'), /"\/etc\/x" is absolute/);
    assert.match(refused('C:\\x'), /"C:\\\\x" contains a backslash/);
    assert.match(refused('C:/Windows/win.ini'), /drive letter/);
    assert.match(refused('c:x'), /drive letter/);
    refused('//server/share/x');
    refused('\\\\server\\share\\x');
    refused('a\\..\\..\\x');
    assert.match(refused('a\u0000b'), /control character/);
    refused('a\nb');
    assert.match(refused('a\uD800b'), /lone surrogate/);
    refused('file.txt:stream');
    refused('');
    refused('/');
    refused('./');
  });

  it('refuses names Windows would change or reserve', () => {
    refused('a/.../b');
    refused('a/b. ');
    refused('dir./x');
    refused('a/CON');
    refused('nul.txt');
    refused('COM1.log');
    refused('a/b?c');
    refused('a/b*c');
    refused('a/<b>');
  });

  it('a restore refuses paths into .git or .vscode in any spelling a file system reads as them, naming the path', () => {
    const refusal = (raw: string) => {
      const s = safeSegments(raw);
      assert.ok(s.ok, raw);
      return restoreRefusal(raw, s.segments);
    };
    const gitPaths = ['.git/config', '.GIT/hooks/pre-commit', '.Git/HEAD', 'GIT~1/config', 'git~2/hooks/post-checkout', 'sub/.git/config', 'a/b/.git', '.g\u200cit/config', '.gı\u200dt/config', '\ufeff.git/config'];
    for (const raw of gitPaths) {
      const why = refusal(raw);
      assert.ok(why, `${JSON.stringify(raw)} must be refused`);
      assert.ok(why.includes(JSON.stringify(raw)) && why.includes('.git'), why);
    }
    for (const raw of ['.vscode/tasks.json', '.VSCode/settings.json', 'VSCODE~1/settings.json', 'vscod~12/tasks.json', 'VSCO~123/x', 'pkg/.vſcode/launch.json']) {
      assert.match(refusal(raw) ?? '', /\.vscode/, raw);
    }
    // Trailing dots and spaces, streams: refused before, by every path check.
    for (const raw of ['.git./config', '.git /config', '.git::$INDEX_ALLOCATION/config', '.vscode./tasks.json']) assert.equal(safeSegments(raw).ok, false, raw);
    // Names that only look alike are files like any other.
    for (const raw of ['git/config', '.gitignore', '.github/workflows/ci.yml', 'my.git/x', 'vscode/x', '.vscodeignore', 'GIT~/x', 'GIT~1a/x', 'docs/.git-blame-ignore-revs']) {
      assert.equal(refusal(raw), undefined, raw);
    }
    assert.equal(protectedFolder('.GIT'), '.git');
    assert.equal(protectedFolder('VSCODE~1'), '.vscode');
    assert.equal(protectedFolder('index.php'), undefined);
  });

  it('joinInside and isInside never let a path out of the folder', () => {
    assert.equal(joinInside('/work/site', ['a', 'b.txt']), '/work/site/a/b.txt');
    assert.equal(joinInside('/work/site/', ['b.txt']), '/work/site/b.txt');
    assert.equal(joinInside('/work/site', ['..', 'x']), undefined);
    assert.equal(isInside('/work/site', '/work/site'), false);
    assert.equal(isInside('/work/site', '/work/site2/x'), false);
    assert.equal(isInside('/work/site', '/work/site/a/../../x'), false);
    assert.equal(isInside('/work/site', '/work/site/a/./b'), true);
    assert.equal(isInside('/C:/Work/Site', '/c:/work/site/x', true), true);
    assert.equal(isInside('/C:/Work/Site', '/c:/work/site/x', false), false);
  });

  it('relativeSegments finds a local file under its folder', () => {
    assert.deepEqual(relativeSegments('/w/site', '/w/site/a/b.php'), ['a', 'b.php']);
    assert.equal(relativeSegments('/w/site', '/w/other/b.php'), undefined);
    assert.equal(relativeSegments('/w/site', '/w/site'), undefined);
    assert.deepEqual(relativeSegments('/C:/W', '/c:/w/x', true), ['x']);
  });

  it('whatever the service sends, an accepted path stays strictly inside the folder (property)', () => {
    const part = fc.oneof(fc.constantFrom('..', '.', '', 'a', 'b c', 'C:', 'c:', '\\', '..\\..', '\u0000', 'x.', ' ', 'CON', '…', '%2e%2e'), fc.string({ maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), fc.constantFrom('/', '\\', '//'), (parts, sep) => {
        const raw = parts.join(sep);
        const r = safeSegments(raw);
        if (!r.ok) {
          assert.ok(r.reason.includes(JSON.stringify(raw).slice(0, 50).slice(0, -1)) || raw === '', 'the reason names the path');
          return;
        }
        for (const s of r.segments) {
          assert.ok(s !== '' && s !== '.' && s !== '..', `segment ${JSON.stringify(s)}`);
          assert.ok(!/[\\/:\u0000]/.test(s));
        }
        const joined = joinInside('/root/folder', r.segments);
        assert.ok(joined && isInside('/root/folder', joined));
      }),
      { numRuns: 3000 },
    );
  });
});

// Unit tests of the line splitting under blame (src/core/blame/lines.ts): lines as VS Code numbers
// them, compared without terminators or byte order mark, and the text rebuilt exactly.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { joinLines, lineContents, splitLines } from '../../src/core/blame/lines';

describe('blame: lines', () => {
  it('ends a line at \\n, \\r\\n and a lone \\r; one line more than terminators', () => {
    assert.deepEqual(lineContents(''), ['']);
    assert.deepEqual(lineContents('a'), ['a']);
    assert.deepEqual(lineContents('a\n'), ['a', '']);
    assert.deepEqual(lineContents('a\r\nb\rc\nd'), ['a', 'b', 'c', 'd']);
    assert.deepEqual(lineContents('a\r\n\r\nb\r\n'), ['a', '', 'b', '']);
    assert.deepEqual(lineContents('\r\r\n\n'), ['', '', '', '']);
    assert.deepEqual(lineContents('a\n\rb'), ['a', '', 'b'], '"\\n\\r" is two terminators');
  });

  it('drops a leading byte order mark, and only a leading one', () => {
    assert.deepEqual(lineContents('\ufeffa\nb'), ['a', 'b']);
    assert.deepEqual(lineContents('\ufeff'), ['']);
    assert.deepEqual(lineContents('a\ufeff\n\ufeffb'), ['a\ufeff', '\ufeffb']);
    const s = splitLines('\ufeffa\r\nb');
    assert.deepEqual(s, { lines: ['a', 'b'], eols: ['\r\n', ''], bom: true });
  });

  it('splitLines keeps the terminators: joinLines gives the text back exactly', () => {
    const s = splitLines('x\r\ny\nz\r');
    assert.deepEqual(s.lines, ['x', 'y', 'z', '']);
    assert.deepEqual(s.eols, ['\r\n', '\n', '\r', '']);
    assert.equal(joinLines(s), 'x\r\ny\nz\r');
  });

  it('any text: joinLines(splitLines(t)) === t, and lineContents agrees with splitLines (property)', () => {
    const piece = fc.constantFrom('a', 'bc', ' ', '\n', '\r', '\r\n', '\ufeff', 'é', '😀');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        const s = splitLines(text);
        assert.equal(joinLines(s), text);
        assert.deepEqual(lineContents(text), s.lines);
        assert.equal(s.lines.length, s.eols.length);
        // One line more than terminators, as in VS Code's text model.
        const body = s.bom ? text.slice(1) : text;
        assert.equal(s.lines.length, (body.match(/\r\n|\r|\n/g)?.length ?? 0) + 1);
        for (const l of s.lines) assert.doesNotMatch(l, /[\r\n]/);
      }),
      { numRuns: 500 },
    );
  });
});

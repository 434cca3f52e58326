// The History Search matcher (src/core/search/query.ts): text / regular expression, match case, whole
// word, counts, first-match previews, CRLF and non-ASCII text, huge lines, empty matches, errors.
import * as assert from 'node:assert/strict';
import { compileQuery, crlfAwareEnd, PREVIEW_BEFORE, PREVIEW_MAX, QueryError, type SearchQuery } from '../../src/core/search';

const count = (q: SearchQuery, text: string) => compileQuery(q).count(text);

/** The highlighted part of a preview. */
function highlighted(q: SearchQuery, text: string): string | undefined {
  const p = compileQuery(q).first(text);
  return p && p.text.slice(p.highlight[0], p.highlight[1]);
}

describe('search: the matcher', () => {
  describe('text, case and whole word', () => {
    it('text ignores case unless Match Case is on, and is taken literally', () => {
      const text = 'TODO one, todo two, ToDo three, TODOS four';
      assert.equal(count({ pattern: 'todo' }, text), 4);
      assert.equal(count({ pattern: 'todo', matchCase: true }, text), 1);
      assert.equal(count({ pattern: 'TODO', matchCase: true }, text), 2);
      assert.equal(count({ pattern: 'a.c' }, 'abc a.c'), 1, '. is not a wildcard in text');
      assert.equal(count({ pattern: '(x)[y]*{z}$\\/' }, 'pre (x)[y]*{z}$\\/ post'), 1, 'special characters are literal');
    });

    it('counts matches that do not overlap', () => {
      assert.equal(count({ pattern: 'aa', matchCase: true }, 'aaaaa'), 2);
      assert.equal(count({ pattern: 'aa' }, 'aaaaa'), 2);
      assert.equal(count({ pattern: 'a(?=a)', isRegExp: true }, 'aaaa'), 3);
    });

    it('whole word: not between two word characters, in any script', () => {
      const text = 'TODO-SEARCH-MARKER; TODO-SEARCH-MARKERS; xTODO-SEARCH-MARKER; (TODO-SEARCH-MARKER)';
      assert.equal(count({ pattern: 'TODO-SEARCH-MARKER' }, text), 4);
      assert.equal(count({ pattern: 'TODO-SEARCH-MARKER', wholeWord: true }, text), 2);
      assert.equal(count({ pattern: 'Grüße', wholeWord: true }, 'Grüße! Grüßen, ÄGrüße, Grüße_x, grüße'), 2, 'umlauts are word characters; case-insensitive');
      assert.equal(count({ pattern: 'Grüße', wholeWord: true, matchCase: true }, 'Grüße! grüße'), 1);
      assert.equal(count({ pattern: 'σ', wholeWord: true }, 'σ σσ Σ'), 2, 'Greek, case folded');
      assert.equal(count({ pattern: 'id', wholeWord: true }, 'id _id id_ id2 (id)'), 2, '_ and digits are word characters');
      // A pattern that starts or ends with a separator can start or end anywhere on that side.
      assert.equal(count({ pattern: '-x', wholeWord: true }, 'a-x b-xy'), 1);
      assert.equal(count({ pattern: 'colou?r', isRegExp: true, wholeWord: true }, 'color colour colours'), 2);
    });
  });

  describe('regular expressions', () => {
    it('JavaScript syntax, with the u flag when valid, and without it otherwise', () => {
      assert.equal(count({ pattern: 'build-\\d+', isRegExp: true }, 'build-1 build-22 build-x'), 2);
      assert.equal(count({ pattern: '\\p{Lu}{3}', isRegExp: true, matchCase: true }, 'ABC ÄÖÜ abc'), 2, 'property escapes (u flag)');
      assert.equal(count({ pattern: '^.$', isRegExp: true }, '😀\nab\nc'), 2, '. is one whole character (u flag)');
      assert.equal(count({ pattern: 'a\\-b', isRegExp: true }, 'a-b'), 1, 'invalid with u (identity escape), valid without');
    });

    it('^ and $ match at every line, also at CRLF line ends and a lone CR', () => {
      const crlf = 'foo\r\nbar foo\r\nfoo';
      assert.equal(count({ pattern: 'foo$', isRegExp: true }, crlf), 3);
      assert.equal(count({ pattern: '^foo', isRegExp: true }, crlf), 2);
      assert.equal(count({ pattern: '^bar foo$', isRegExp: true }, crlf), 1);
      assert.equal(count({ pattern: 'a[$]', isRegExp: true }, 'a$ a'), 1, '$ in a class stays a dollar');
      assert.equal(count({ pattern: 'a\\$', isRegExp: true }, 'a$ a'), 1, 'an escaped $ stays a dollar');
      assert.equal(crlfAwareEnd('x$|[$\\]]$\\$'), 'x(?=\\r?$)|[$\\]](?=\\r?$)\\$');
    });

    it('empty matches are not counted and never loop, however long the text', () => {
      assert.equal(count({ pattern: 'x*', isRegExp: true }, 'aaa xx b x'), 2);
      assert.equal(count({ pattern: '^', isRegExp: true }, 'a\nb\nc'), 0);
      assert.equal(count({ pattern: '(?=a)', isRegExp: true }, 'aaaa'), 0);
      assert.equal(count({ pattern: '\\b', isRegExp: true, wholeWord: true }, 'one two'), 0);
      assert.equal(count({ pattern: 'x*', isRegExp: true }, '😀😀😀'), 0, 'steps over surrogate pairs');
      const long = 'a'.repeat(2_000_000) + 'x';
      assert.equal(count({ pattern: 'x*', isRegExp: true }, long), 1);
      assert.equal(compileQuery({ pattern: 'x?', isRegExp: true }).first('abc'), undefined);
    });

    it('an invalid regular expression or an empty query is a QueryError that says why', () => {
      assert.throws(() => compileQuery({ pattern: '(unclosed', isRegExp: true }), (e: unknown) => e instanceof QueryError && /^The regular expression is not valid: .*group/i.test(e.message) && !e.message.includes('/gm'));
      assert.throws(() => compileQuery({ pattern: '[z-a]', isRegExp: true }), QueryError);
      assert.throws(() => compileQuery({ pattern: '' }), (e: unknown) => e instanceof QueryError && e.message === 'Type the text to search for.');
      const t = (m: string, ...a: (string | number)[]) => `«${m}»${a.join(',')}`;
      assert.throws(() => compileQuery({ pattern: '(', isRegExp: true }, t), (e: unknown) => e instanceof QueryError && e.message.startsWith('«The regular expression is not valid: {0}»'));
      assert.doesNotThrow(() => compileQuery({ pattern: '(' }), 'the same as text is fine');
    });
  });

  describe('previews', () => {
    it('line and character of the first match (0-based, UTF-16), with LF, CRLF and a lone CR', () => {
      for (const eol of ['\n', '\r\n', '\r']) {
        const text = ['first', '  second MARK here', 'MARK again'].join(eol);
        const p = compileQuery({ pattern: 'mark' }).first(text)!;
        assert.deepEqual({ line: p.line, character: p.character, endLine: p.endLine, endCharacter: p.endCharacter }, { line: 1, character: 9, endLine: 1, endCharacter: 13 }, JSON.stringify(eol));
        assert.equal(p.text, 'second MARK here', 'leading white space is not shown; no line break');
        assert.deepEqual(p.highlight, [7, 11]);
        assert.equal(compileQuery({ pattern: 'mark' }).count(text), 2);
      }
    });

    it('non-ASCII: columns count UTF-16 units, as VS Code positions do', () => {
      const text = 'Grüße aus München\r\n😀 Zeile: TODO-SEARCH-MARKER für Søren\r\n';
      const p = compileQuery({ pattern: 'TODO-SEARCH-MARKER', matchCase: true }).first(text)!;
      assert.equal(p.line, 1);
      assert.equal(p.character, 10, '😀 is two UTF-16 units');
      assert.equal(p.text, '😀 Zeile: TODO-SEARCH-MARKER für Søren');
      assert.equal(p.text.slice(...p.highlight), 'TODO-SEARCH-MARKER');
      assert.equal(highlighted({ pattern: 'münchen' }, text), 'München');
      assert.equal(highlighted({ pattern: 'ü\\w', isRegExp: true }, 'xx über'), 'üb');
    });

    it('a match across lines: selection to its real end, highlight to the end of the first line', () => {
      const text = 'a\nstart X\r\nY end\nz';
      const p = compileQuery({ pattern: 'X\\r?\\nY', isRegExp: true }).first(text)!;
      assert.deepEqual([p.line, p.character, p.endLine, p.endCharacter], [1, 6, 2, 1]);
      assert.equal(p.text, 'start X');
      assert.equal(p.text.slice(...p.highlight), 'X');
    });

    it('a 5 MB one-line file: the preview is cut around the match, with … on each cut side', () => {
      const before = 'abcdefghij'.repeat(250_000);
      const after = 'klmnopqrst'.repeat(250_000);
      const text = `${before}NEEDLE${after}`;
      const p = compileQuery({ pattern: 'needle' }).first(text)!;
      assert.equal(p.line, 0);
      assert.equal(p.character, before.length);
      assert.ok(p.text.length <= PREVIEW_MAX + 2, `${p.text.length} characters`);
      assert.ok(p.text.startsWith('…') && p.text.endsWith('…'));
      assert.equal(p.text.slice(...p.highlight), 'NEEDLE');
      assert.equal(p.highlight[0], 1 + PREVIEW_BEFORE);
      // At the very start and the very end of such a line.
      const start = compileQuery({ pattern: 'abcdefghij' }).first(text)!;
      assert.ok(!start.text.startsWith('…') && start.text.endsWith('…'));
      assert.deepEqual(start.highlight, [0, 10]);
      const end = compileQuery({ pattern: 'klmnopqrst$', isRegExp: true }).first(text)!;
      assert.ok(end.text.startsWith('…') && !end.text.endsWith('…'));
      assert.equal(end.text.slice(...end.highlight), 'klmnopqrst');
    });

    it('cuts never split a surrogate pair, and a long match is highlighted up to the cut', () => {
      const emoji = '😀'.repeat(200);
      const text = `${emoji}yNEEDLE${emoji}`; // the y puts both cuts inside a pair
      const p = compileQuery({ pattern: 'needle' }).first(text)!;
      assert.doesNotMatch(p.text, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, 'no lone surrogate');
      assert.equal(p.text.slice(...p.highlight), 'NEEDLE');
      const longMatch = compileQuery({ pattern: 'x+', isRegExp: true }).first(`ab ${'x'.repeat(1000)} cd`)!;
      assert.equal(longMatch.highlight[0], 3);
      assert.equal(longMatch.highlight[1], longMatch.text.length - 1, 'up to the … of the cut');
      assert.equal(longMatch.endCharacter, 1003);
    });

    it('scan gives the count and the first preview in one pass; no preview when not asked', () => {
      const m = compileQuery({ pattern: 'b', isRegExp: true });
      assert.deepEqual(m.scan('abcb\nb', false), { count: 3, first: undefined });
      const r = m.scan('abcb\nb', true);
      assert.equal(r.count, 3);
      assert.equal(r.first?.character, 1);
      assert.deepEqual(compileQuery({ pattern: 'b', matchCase: true }).scan('abcb', true).first?.highlight, [1, 2]);
    });
  });
});

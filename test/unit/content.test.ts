import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_TYPES,
  extractText,
  fromParts,
  toParts,
  type ContentType,
  type ExtractedText,
} from '../../src/text/index.js';
import { TrainprintError } from '../../src/errors.js';
import { prng } from '../reference/core.js';

const html = (s: string) => extractText(s, 'html');
const md = (s: string) => extractText(s, 'markdown');

/** The original text under the extracted span [s, e). */
function source(content: string, x: ExtractedText, s: number, e: number): string {
  return content.slice(...x.mapSpan(s, e));
}

/** The original span of the `nth` occurrence of `word` in the extracted text. */
function spanOf(x: ExtractedText, word: string, nth = 0): [number, number] {
  let i = -1;
  for (let k = 0; k <= nth; k++) i = x.text.indexOf(word, i + 1);
  if (i < 0) throw new Error(`${word} not in ${JSON.stringify(x.text)}`);
  return x.mapSpan(i, i + word.length);
}

/**
 * Map invariants for any input: offsets in range and non-decreasing, each unit's source span between its
 * neighbours' (the units of one replacement, like a decoded surrogate pair, share theirs), and a non-space
 * unit with a one-unit source is that very character.
 */
function checkMap(content: string, x: ExtractedText): void {
  const n = x.text.length;
  let prev = 0;
  for (let i = 0; i <= n; i++) {
    const o = x.toOriginal(i);
    if (!(o >= prev && o <= content.length))
      throw new Error(`toOriginal(${i}) = ${o} after ${prev} in ${JSON.stringify(content)}`);
    prev = o;
    if (i === n) break;
    const [a, e] = x.mapSpan(i, i + 1);
    const next = i + 1 < n ? x.toOriginal(i + 1) : content.length;
    const sameReplacement = i + 1 < n && next === a && x.mapSpan(i + 1, i + 2)[1] === e;
    if (a !== o || e < a || (e > next && !sameReplacement))
      throw new Error(`mapSpan(${i}, ${i + 1}) = [${a}, ${e}] in ${JSON.stringify(content)}`);
    if (e - a === 1 && !/\s/.test(x.text[i]) && content[a] !== x.text[i]) {
      throw new Error(
        `unit ${i} ${JSON.stringify(x.text[i])} maps to ${JSON.stringify(content[a])} in ${JSON.stringify(content)}`,
      );
    }
  }
  if (n > 0 && x.toOriginal(n) !== x.mapSpan(n - 1, n)[1])
    throw new Error('toOriginal(length) is not the end of the last unit');
}

/** Every ASCII word of the extracted text maps back to exactly that word. */
function wordsMapBack(content: string, x: ExtractedText): string[] {
  const words: string[] = [];
  for (const m of x.text.matchAll(/[A-Za-z]+/g)) {
    words.push(m[0]);
    expect(source(content, x, m.index, m.index + m[0].length)).toBe(m[0]);
  }
  return words;
}

describe('extractText: API', () => {
  it('lists the content types', () => {
    expect(CONTENT_TYPES).toEqual(['text', 'markdown', 'html']);
    expect(Object.isFrozen(CONTENT_TYPES)).toBe(true);
  });

  it("'text' is the identity, without a copy", () => {
    const content = 'Plain <b>text</b> &amp; *stars*';
    const x = extractText(content, 'text');
    expect(x.text).toBe(content);
    expect(x.type).toBe('text');
    expect(x.toOriginal(7)).toBe(7);
    expect(x.toOriginal(content.length)).toBe(content.length);
    expect(x.mapSpan(6, 17)).toEqual([6, 17]);
  });

  it('clamps out-of-range and fractional offsets instead of throwing', () => {
    for (const type of CONTENT_TYPES) {
      const x = extractText('<p>ab</p>', type);
      expect(x.toOriginal(-5)).toBe(x.toOriginal(0));
      expect(x.toOriginal(1e9)).toBe(x.toOriginal(x.text.length));
      expect(x.toOriginal(Number.NaN)).toBe(x.toOriginal(0));
      expect(x.toOriginal(1.7)).toBe(x.toOriginal(1));
      const [a, b] = x.mapSpan(5, 2); // reversed → empty
      expect(a).toBe(b);
    }
  });

  it('maps the empty string', () => {
    for (const type of CONTENT_TYPES) {
      const x = extractText('', type);
      expect(x.text).toBe('');
      expect(x.toOriginal(0)).toBe(0);
      expect(x.mapSpan(0, 0)).toEqual([0, 0]);
    }
    expect(html('<p></p><!-- x -->').text).toBe('');
  });

  it('crosses a thread as plain data: toParts, structured clone, fromParts give the same text and map', () => {
    const random = prng(17);
    const contents: [string, ContentType][] = [
      ['<p>Caf&eacute; <b>au</b> lait &amp; <i>cr&egrave;me</i></p><ul><li>one<li>two</ul>', 'html'],
      ['## Intro *here*\n\n> quoted `code` and [a link](http://x) &amp; more\n\n- item', 'markdown'],
      ['plain text, no markup at all', 'text'],
    ];
    for (const [content, type] of contents) {
      const x = extractText(content, type);
      const parts = structuredClone(toParts(x));
      const y = fromParts(parts);
      expect([y.text, y.type]).toEqual([x.text, x.type]);
      expect(parts.map === null).toBe(type === 'text');
      for (let k = 0; k < 200; k++) {
        const s = Math.floor(random() * (x.text.length + 2)) - 1;
        const e = s + Math.floor(random() * 12);
        expect(y.mapSpan(s, e)).toEqual(x.mapSpan(s, e));
        expect(y.toOriginal(e)).toBe(x.toOriginal(e));
      }
    }
  });

  it('throws INVALID_INPUT for an unknown type', () => {
    expect(() => extractText('x', 'pdf' as ContentType)).toThrowError(TrainprintError);
    try {
      extractText('x', 'rtf' as ContentType);
    } catch (e) {
      expect((e as TrainprintError).code).toBe('INVALID_INPUT');
      expect((e as TrainprintError).message).toContain("'markdown'");
    }
    expect(() => extractText(42 as unknown as string, 'html')).toThrowError(/content must be a string/);
  });
});

describe('extractText: HTML', () => {
  it('drops tags and keeps the words, mapped back to the original', () => {
    const content = '<p>The <b>quick</b> brown &amp; fox</p>';
    const x = html(content);
    expect(x.text).toBe('The quick brown & fox');
    expect(spanOf(x, 'quick')).toEqual([10, 15]);
    expect(spanOf(x, 'fox')).toEqual([32, 35]);
    expect(spanOf(x, '&')).toEqual([26, 31]); // the whole &amp;
    expect(x.mapSpan(0, x.text.length)).toEqual([3, 35]);
    expect(x.toOriginal(x.text.length)).toBe(35);
    checkMap(content, x);
  });

  it('decodes character references, each to its whole source span', () => {
    const content = 'a &amp; b &lt;c&gt; caf&#233; &#x1F600; x&nbsp;y &copy 2024 &notin; &unknown; & &#; &#xZZ;';
    const x = html(content);
    expect(x.text).toBe('a & b <c> café 😀 x\u00a0y © 2024 ∉ &unknown; & &#; &#xZZ;');
    expect(source(content, x, x.text.indexOf('é'), x.text.indexOf('é') + 1)).toBe('&#233;');
    expect(source(content, x, x.text.indexOf('café'), x.text.indexOf('café') + 4)).toBe('caf&#233;');
    const smile = x.text.indexOf('😀');
    expect(source(content, x, smile, smile + 2)).toBe('&#x1F600;'); // a decoded surrogate pair maps whole
    expect(source(content, x, smile, smile + 1)).toBe('&#x1F600;');
    expect(source(content, x, x.text.indexOf('©'), x.text.indexOf('©') + 1)).toBe('&copy'); // legacy, no ';'
    checkMap(content, x);
  });

  it('follows the HTML5 legacy rules for references without a semicolon', () => {
    expect(html('&copy;&copy &copyx &ampx').text).toBe('©© ©x &x');
    expect(html('&notit; &noti').text).toBe('¬it; ¬i');
    expect(html('<img alt="&copyx &amp;">').text).toBe('&copyx &'); // attribute rules: &copyx stays
  });

  it('drops script, style, template, head, svg, iframe, object, noscript and comments', () => {
    const content =
      '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Title words</title><style>p { color: red }</style>' +
      '<script>var s = "</p><p>"; if (a < b) {}</script></head><body>' +
      '<!-- hidden comment --><p>Visible one</p><template><p>tpl</p></template>' +
      '<svg viewBox="0 0 1 1"><text>svgtext</text><svg><title>inner</title></svg></svg>' +
      '<noscript>enable js</noscript><iframe src="x">frame text</iframe><object data="x"><p>fallback</p></object>' +
      '<SCRIPT type="text/javascript">alert("x")</SCRIPT ><![CDATA[cdata words]]><?php echo 1 ?>' +
      '<p>Visible two</p></body></html>';
    const x = html(content);
    expect(x.text).toBe('Visible one\nVisible two'); // no separator after the last text
    expect(wordsMapBack(content, x)).toEqual(['Visible', 'one', 'Visible', 'two']);
    checkMap(content, x);
  });

  it('keeps textarea and xmp content, and img alt text', () => {
    expect(html('<p>Say<textarea>a &lt;b&gt; <i>c</i></textarea>done</p>').text).toBe('Say\na <b> <i>c</i>\ndone');
    expect(html('<xmp>&amp; <b></xmp>').text).toBe('&amp; <b>');
    const content = 'A<img src="cat.png" alt="Black &amp; white cat">B <IMG ALT=Dog>';
    const x = html(content);
    expect(x.text).toBe('A Black & white cat B Dog');
    expect(spanOf(x, 'white')).toEqual([content.indexOf('white'), content.indexOf('white') + 5]);
    checkMap(content, x);
  });

  it('separates blocks, list items and cells, but not inline elements', () => {
    expect(html('<p>one</p><p>two</p>').text).toBe('one\ntwo');
    expect(html('<div>a<div>b</div>c</div>').text).toBe('a\nb\nc');
    expect(html('line<br>break<br/>again<hr>rule').text).toBe('line\nbreak\nagain\nrule');
    expect(html('<ul><li>x</li><li>y</li></ul>').text).toBe('x\ny');
    expect(html('<table><tr><th>h1</th><th>h2</th></tr><tr><td>a</td><td>b</td></tr></table>').text).toBe(
      'h1\th2\na\tb',
    );
    expect(html('<h1>Title</h1>Text').text).toBe('Title\nText');
    expect(html('in<b>line</b><em>s</em> <a href="x">link</a><span>ed</span>').text).toBe('inlines linked');
    // No separator where whitespace is already there, and none at the very start.
    expect(html('<p>one</p>\n<p>two</p>').text).toBe('one\ntwo');
    const content = 'one</p><p>two';
    const x = html(content);
    expect(x.mapSpan(3, 4)).toEqual([3, 7]); // the separator stands for </p>
    checkMap(content, x);
  });

  it('keeps whitespace as it is (pre included)', () => {
    expect(html('<pre>  a\n    b  </pre>').text).toBe('  a\n    b  ');
    expect(html('a  \n\t b').text).toBe('a  \n\t b');
  });

  it('treats stray < as text and survives malformed markup', () => {
    expect(html('a < b, 3<4, x <= y, <3 love').text).toBe('a < b, 3<4, x <= y, <3 love');
    expect(html('<p>unclosed <b>bold <i>both</p> after').text).toBe('unclosed bold both after'); // the space after </p> already separates
    expect(html('<a href="x>y" title=\'q"\'>link</a>').text).toBe('link');
    expect(html('</>empty end tag</ p>bogus</3>').text).toBe('empty end tagbogus');
    expect(html('text <a href="never closed').text).toBe('text <a href="never closed');
    expect(html('text <div never closed').text).toBe('text <div never closed');
    expect(html('a <!-- unclosed comment').text).toBe('a ');
    expect(html('a <!--> b <!---> c').text).toBe('a  b  c');
    expect(html('<head>text in head ends it').text).toBe('text in head ends it');
    expect(html('<head><title>t</title><p>p ends head').text).toBe('p ends head');
    expect(html('x<script>never closed').text).toBe('x');
    expect(html('<<>><<a>>').text).toBe('<<>><>');
    const content = 'bad <a b="c"d=e f=\'g <p>ok</p> <img alt="x';
    checkMap(content, html(content));
  });
});

describe('extractText: Markdown', () => {
  it('removes heading markers and setext underlines', () => {
    expect(md('# Title\n## Sub title ##\n###### Six\n####### seven').text).toBe('Title\nSub title\nSix\n####### seven');
    expect(md('#hashtag and C#').text).toBe('#hashtag and C#');
    expect(md('# C#\n#\n').text).toBe('C#\n\n');
    expect(md('Big\n===\nSmall\n---\n').text).toBe('Big\n\nSmall\n\n');
  });

  it('removes emphasis, strong and strikethrough markers', () => {
    expect(md('*em* _em_ **strong** __strong__ ***both*** ~~gone~~ ~one~').text).toBe(
      'em em strong strong both gone one',
    );
    expect(md('**bold *nested* text**').text).toBe('bold nested text');
    expect(md('snake_case_name 2 * 3 * 4 a*b lone * star').text).toBe('snake_case_name 2 * 3 * 4 a*b lone * star');
    expect(md('emphasis *across\nlines* ok').text).toBe('emphasis across\nlines ok');
  });

  it('keeps code: spans, fences and indented blocks', () => {
    expect(md('Use `npm *install*` and ``a ` b``.').text).toBe('Use npm *install* and a ` b.');
    expect(md('```js\nconst a = [1](2) * 3;\n# not a heading\n```\nafter').text).toBe(
      '\nconst a = [1](2) * 3;\n# not a heading\n\nafter',
    );
    expect(md('~~~~\ncode ~~~\n~~~~').text).toBe('\ncode ~~~\n');
    expect(md('para\n\n    indented *code*\n\nnext').text).toBe('para\n\n    indented *code*\n\nnext');
    expect(md('unmatched `tick').text).toBe('unmatched `tick');
  });

  it('removes blockquote and list markers (task boxes too)', () => {
    expect(md('> quoted **text**\n> > nested').text).toBe('quoted text\nnested');
    expect(md('- one\n* two\n+ three\n1. four\n2) five\n- [ ] task\n- [x] done').text).toBe(
      'one\ntwo\nthree\nfour\nfive\ntask\ndone',
    );
    expect(md('- item\n  continued\n\n  second para').text).toBe('item\n  continued\n\n  second para');
    expect(md('In\n1999. That').text).toBe('In\n1999. That'); // only "1." may interrupt a paragraph
  });

  it('removes horizontal rules', () => {
    expect(md('a\n\n---\n***\n_ _ _\n\nb').text).toBe('a\n\n\n\n\n\nb');
  });

  it('turns links and images into their text', () => {
    expect(md('[text](http://x.y "title") and [t2](<a b>) and [t3]( /u (paren title) ) and [](empty)').text).toBe(
      'text and t2 and t3 and ',
    );
    expect(md('![alt *text*](img.png) and [![Badge](b.svg)](https://ci)').text).toBe('alt text and Badge');
    expect(md('[nested (parens)](http://x/(a)) [not a link] [also](not').text).toBe(
      'nested (parens) [not a link] [also](not',
    );
    expect(md('<https://auto.link/x?y=1> <me@example.com> <not auto>').text).toBe(
      'https://auto.link/x?y=1 me@example.com ',
    );
  });

  it('resolves reference links and drops definitions', () => {
    const content =
      'See [the docs][docs], [Docs][] and [docs].\n\n[docs]: https://x.y/docs "Title"\n[other]: <http://z>\n\n[undefined] [x][nope]';
    expect(md(content).text).toBe('See the docs, Docs and docs.\n\n\n\n\n[undefined] [x][nope]');
  });

  it('drops footnote references, keeps footnote text', () => {
    expect(md('A claim.[^1]\n\n[^1]: The source.').text).toBe('A claim.\n\nThe source.');
  });

  it('removes inline HTML, decodes entities, applies backslash escapes', () => {
    expect(md('a <b>bold</b> <span class="x">s</span>, H<sub>2</sub>O, line<br>break').text).toBe(
      'a bold s, H2O, line\nbreak',
    );
    expect(md('x <!-- comment\nover lines --> y').text).toBe('x  y');
    expect(md('&amp; &copy; &#233; &copy &#65').text).toBe('& © é &copy &#65'); // CommonMark: ';' required
    expect(md('\\*not em\\* \\# \\[x\\](y) C:\\path').text).toBe('*not em* # [x](y) C:\\path');
    expect(md('hard\\\nbreak').text).toBe('hard\nbreak');
    expect(md('x <img src="a.png" alt="An image"> y').text).toBe('x An image y');
  });

  it('extracts HTML blocks with the HTML extractor', () => {
    const content =
      '<p align="center">\n  <img src="logo.svg" alt="Logo">\n</p>\n\n<details><summary>More</summary>\n\nInside *md*\n</details>\n\n<!--\nhidden\n-->\nText';
    const x = md(content);
    expect(x.text).toBe('\n  Logo\n\n\nMore\n\nInside md\n\n\n\nText'); // the comment block keeps the newline after -->
    expect(spanOf(x, 'Logo')).toEqual([content.indexOf('Logo'), content.indexOf('Logo') + 4]);
    checkMap(content, x);
    expect(md('<script>\nvar hidden = 1;\n</script>\nshown').text).toBe('\nshown');
  });

  it('removes table pipes and the alignment row', () => {
    const content = '| Name | Value |\n| :--- | ---: |\n| a \\| b | `c` |\n|d|e|\n\nafter';
    const x = md(content);
    expect(x.text).toBe(' Name  Value \n\n a | b  c \nd\te\n\nafter'); // a pipe becomes a tab only between non-spaces
    checkMap(content, x);
  });

  it('keeps line structure and maps words back (hand-checked)', () => {
    const content = '# Hello *world*\n\n> Quote [link](http://x.y) here\n> and **more**';
    const x = md(content);
    expect(x.text).toBe('Hello world\n\nQuote link here\nand more');
    expect(spanOf(x, 'world')).toEqual([9, 14]);
    expect(spanOf(x, 'link')).toEqual([26, 30]);
    expect(spanOf(x, 'more')).toEqual([57, 61]);
    expect(x.mapSpan(x.text.indexOf('Quote'), x.text.length)).toEqual([19, 61]); // crosses the "> " of line 4; ends after 'more', before '**'
    checkMap(content, x);
  });

  it('handles CRLF line endings', () => {
    expect(md('# A\r\n\r\n- b *c*\r\n').text).toBe('A\r\n\r\nb c\r\n');
  });
});

/** Random documents made of plain words and markup, with the words a reader sees. */
function randomHtml(seed: number): [string, string[]] {
  const rnd = prng(seed);
  const pick = <T>(a: readonly T[]): T => a[(rnd() * a.length) | 0];
  const W = ['alpha', 'beta', 'gamma', 'delta', 'Epsilon', 'zeta', 'eta', 'Theta'];
  const parts: string[] = [];
  const words: string[] = [];
  let prevBlock = true;
  for (let k = 0, n = 5 + ((rnd() * 40) | 0); k < n; k++) {
    const w = pick(W);
    const v = pick(W);
    const items: Array<[string, string[], boolean]> = [
      [w, [w], false],
      [`<b>${w}</b>`, [w], false],
      [`<i class="x y">${w} ${v}</i>`, [w, v], false],
      [`<a href="http://x.y/?a=1&amp;b=2" title="nothing">${w}</a>`, [w], false],
      ['<p>', [], true],
      ['</p>', [], true],
      ["<div data-x='1 > 0'>", [], true],
      ['<br>', [], true],
      [`<li>${w}</li>`, [w], true],
      [`<td>${w}</td>`, [w], true],
      ['<!-- hidden words -->', [], false],
      ['<script>var hidden = "</p>" < 1;</script>', [], false],
      ['<style>p { color: red }</style>', [], false],
      ['&amp; &lt; &#233; &eacute;', [], false],
      [`<img src="x.png" alt="${w} ${v}">`, [w, v], false],
      [`${w} < ${v}`, [w, v], false],
      [`<textarea>${w}</textarea>`, [w], true],
      ['<title>hidden</title>', [], false],
    ];
    const [text, ws, block] = pick(items);
    parts.push(k === 0 ? '' : block || prevBlock ? pick(['', ' ', '\n']) : pick([' ', '\n', ' \n ']));
    parts.push(text);
    words.push(...ws);
    prevBlock = block;
  }
  let doc = parts.join('');
  if (rnd() < 0.3)
    doc = `<!DOCTYPE html><html><head><title>hidden</title><meta charset=utf-8></head><body>${doc}</body></html>`;
  return [doc, words];
}

function randomMarkdown(seed: number): [string, string[]] {
  const rnd = prng(seed);
  const pick = <T>(a: readonly T[]): T => a[(rnd() * a.length) | 0];
  const W = ['alpha', 'beta', 'gamma', 'delta', 'Epsilon', 'zeta', 'eta', 'Theta'];
  const lines: string[] = [];
  const words: string[] = [];
  for (let l = 0, n = 3 + ((rnd() * 25) | 0); l < n; l++) {
    const r = rnd();
    if (r < 0.1) {
      lines.push('');
      continue;
    }
    if (r < 0.15) {
      const [a, b, c] = [pick(W), pick(W), pick(W)];
      lines.push('', '```text', `${a} [${b}] *${c}*`, '```', '');
      words.push(a, b, c);
      continue;
    }
    if (r < 0.2) {
      const [a, b, c, d] = [pick(W), pick(W), pick(W), pick(W)];
      lines.push('', `| ${a} | ${b} |`, '|---|:--:|', `| *${c}* | \`${d}\` |`, '');
      words.push(a, b, c, d);
      continue;
    }
    const prefix = pick(['', '', '', '# ', '### ', '> ', '- ', '* ', '1. ', '   ', '> - ']);
    const first = pick(W);
    const items = [first];
    words.push(first);
    for (let k = 0, m = (rnd() * 8) | 0; k < m; k++) {
      const w = pick(W);
      const v = pick(W);
      const [text, ws] = pick<[string, string[]]>([
        [w, [w]],
        [`*${w}*`, [w]],
        [`**${w} ${v}**`, [w, v]],
        [`_${w}_`, [w]],
        [`__${w}__`, [w]],
        [`~~${w}~~`, [w]],
        [`[${w} ${v}](http://e.x/p "Title")`, [w, v]],
        [`![${w}](i.png)`, [w]],
        [`\`${w}\``, [w]],
        [`<b>${w}</b>`, [w]],
        [`<img alt="${w} ${v}" src="z.png">`, [w, v]],
        ['&amp; &#233;', []],
        ['\\*', []],
        [`[${w}][ref]`, [w]],
        [`[${w}]`, [w]],
        ['<!-- hidden -->', []],
      ]);
      items.push(text);
      words.push(...ws);
    }
    lines.push(prefix + items.join(' '));
  }
  lines.push('', '[ref]: http://x.y/hidden "Hidden"');
  return [lines.join(rnd() < 0.2 ? '\r\n' : '\n'), words];
}

describe('extractText: properties', () => {
  it('random HTML: the visible words, each mapped back to itself', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const [content, words] = randomHtml(seed);
      const x = html(content);
      expect(wordsMapBack(content, x), content).toEqual(words);
      checkMap(content, x);
    }
  });

  it('random Markdown: the visible words, each mapped back to itself', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const [content, words] = randomMarkdown(seed);
      const x = md(content);
      expect(wordsMapBack(content, x), content).toEqual(words);
      checkMap(content, x);
    }
  });

  it('random markup soup never throws and keeps the map consistent', () => {
    const bits = [
      '<',
      '>',
      '/',
      '!',
      '-',
      '--',
      '[',
      ']',
      '(',
      ')',
      '*',
      '**',
      '_',
      '~',
      '`',
      '```',
      '&',
      '#',
      ';',
      'amp',
      'a',
      'b',
      'p',
      'script',
      'img alt=',
      ' ',
      ' ',
      '\n',
      '\n\n',
      '\r\n',
      '\t',
      '"',
      "'",
      '=',
      '|',
      '\\',
      'x',
      'é',
      '😀',
      '\ud800',
      '1.',
      '- ',
      '> ',
      '    ',
      '#x1F600',
      '<!--',
      '-->',
      ':',
      'http',
      '@',
      '^',
      '![',
      '](',
    ];
    for (let seed = 1; seed <= 1500; seed++) {
      const rnd = prng(seed * 7919);
      let content = '';
      for (let k = 0, n = (rnd() * 120) | 0; k < n; k++) content += bits[(rnd() * bits.length) | 0];
      for (const type of CONTENT_TYPES) checkMap(content, extractText(content, type));
    }
  });
});

describe('extractText: real documents', () => {
  /** Lines of a Markdown file inside fenced code blocks. */
  function fencedLines(content: string): Set<number> {
    const inside = new Set<number>();
    let fence = '';
    content.split('\n').forEach((line, i) => {
      const m = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence !== '') {
        inside.add(i);
        if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = '';
      } else if (m) {
        fence = m[1];
        inside.add(i);
      }
    });
    return inside;
  }

  function checkReadme(content: string): void {
    const x = md(content);
    checkMap(content, x);
    const lineStarts = [0];
    for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    const lineOf = (o: number) => {
      let k = 0;
      while (k + 1 < lineStarts.length && lineStarts[k + 1] <= o) k++;
      return k;
    };
    const fenced = fencedLines(content);
    const lines = content.split('\n');
    // Markdown syntax left in the text must come from code (a fence, or a line with a code span).
    const fromCode = (i: number) => {
      const line = lineOf(x.toOriginal(i));
      return fenced.has(line) || lines[line].includes('`');
    };
    for (const m of x.text.matchAll(/\]\(|!\[|\*\*/g)) expect(fromCode(m.index), `${m[0]} at ${m.index}`).toBe(true);
    for (const m of x.text.matchAll(/^#{1,6}[ \t]/gm)) expect(fromCode(m.index), `heading at ${m.index}`).toBe(true);
    // The words of every non-code line survive.
    expect(x.text.length).toBeGreaterThan(content.length * 0.5);
  }

  it('the project README', () => {
    const content = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    checkReadme(content);
    expect(md(content).text).toContain('trainprint\n');
  });

  // the data provenance notes of the repository: real Markdown with a table, lists, emphasis and code spans
  it('the SOURCE.md files of the test fixtures and the bench corpus', () => {
    for (const f of ['../fixtures/texts/SOURCE.md', '../../bench/corpus/SOURCE.md']) {
      checkReadme(readFileSync(new URL(f, import.meta.url), 'utf8'));
    }
  });
});

describe('extractText: pathological inputs finish (linear time)', () => {
  const M = 1 << 20;
  const units = [
    '<',
    '[',
    '*',
    '&',
    '<!--',
    '<a ',
    '<a x="',
    '](',
    '[](a',
    '](a()',
    '` ``',
    '_a',
    '<a:',
    '&#',
    '![',
    '> ',
    '\n',
    '<svg>',
    '<img alt=',
  ];
  for (const type of ['html', 'markdown'] as const) {
    it(`1 MB of each of ${units.length} repeated units (${type})`, () => {
      for (const u of units) {
        const content = u.repeat(Math.ceil(M / u.length));
        const x = extractText(content, type);
        expect(x.toOriginal(x.text.length)).toBeLessThanOrEqual(content.length);
      }
    });
  }
});

/**
 * HTML → the text a reader sees, with every extracted unit mapped back to the original.
 *
 * A single left-to-right scan, modelled on the HTML5 tokenizer but much smaller (no tree, no DOM):
 *
 * - Tags, comments, `<!DOCTYPE>`, CDATA and processing instructions are dropped. A `<` that does not start
 *   markup (`a < b`, `<3`) is text, and so is a tag with no closing `>` before the end (browsers would hide
 *   the rest of the page; for attribution, keeping possibly-real text is the safer mistake).
 * - Character references are decoded one at a time with the `entities` package (HTML5 legacy rules, so
 *   `&copy` without `;` counts); each decoded reference maps to its whole `&…;` span.
 * - The content of `script`, `style`, `title`, `iframe`, `noscript`, `noembed`, `noframes` (raw text) and of
 *   `head`, `template`, `object`, `applet`, `svg`, `audio`, `video`, `canvas`, `datalist` is dropped: it is
 *   code, metadata or fallback that a reader of the rendered page does not see. `textarea` and `xmp` content
 *   is kept (it is shown). `<title>` is dropped with the rest of `<head>`: it is chrome, not body text.
 * - `<img alt>` is kept (as Markdown's `![alt](…)` is): it is the text that stands for the image. No other
 *   attribute value is extracted.
 * - Block elements and `<br>` request a newline, table cells a tab (see {@link TextBuilder.separate}); inline
 *   elements produce nothing. Whitespace is never collapsed (`<pre>` needs no special case).
 *
 * Linear time on any input: every search is either consumed by the scan or memoised ({@link NextIndex}),
 * and after the first tag whose quotes run off the end, tags end at the first `>` regardless of quotes.
 */

import { DecodingMode } from 'entities';
import { emitWithEntities, NextIndex, OffsetMap, type TextBuilder } from './offset-map.js';

/**
 * {@link HtmlScanner.scan} results: `MARKUP_TEXT` (the `<` is text), `MARKUP_SKIP` (a comment, doctype,
 * CDATA section, processing instruction or `</>`), `MARKUP_START` / `MARKUP_END` (a tag). Plain numbers
 * rather than a `const enum`, which `isolatedModules` cannot inline across files.
 *
 * @example
 * new HtmlScanner('a < b').scan(2) === MARKUP_TEXT       // true
 * new HtmlScanner('<!-- c -->').scan(0) === MARKUP_SKIP  // true
 */
export const MARKUP_TEXT = 0;
export const MARKUP_SKIP = 1;
export const MARKUP_START = 2;
export const MARKUP_END = 3;

/** Elements that start a new line of text (HTML's block-level and line-breaking elements). */
const BLOCK_TAGS: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'br',
  'button',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'frameset',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'input',
  'legend',
  'li',
  'listing',
  'main',
  'menu',
  'nav',
  'ol',
  'optgroup',
  'option',
  'p',
  'pre',
  'section',
  'select',
  'summary',
  'table',
  'tbody',
  'textarea',
  'tfoot',
  'thead',
  'tr',
  'ul',
  'xmp',
]);
const CELL_TAGS: ReadonlySet<string> = new Set(['td', 'th']);
/** Raw-text elements whose content is not shown. */
const RAW_DROPPED: ReadonlySet<string> = new Set([
  'script',
  'style',
  'title',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
]);
/** Raw-text elements whose content is shown: textarea decodes references (RCDATA), xmp does not. */
const RAW_KEPT: ReadonlySet<string> = new Set(['textarea', 'xmp']);
/** Ordinary elements whose whole subtree is not shown. */
const DROPPED: ReadonlySet<string> = new Set([
  'head',
  'template',
  'object',
  'applet',
  'svg',
  'audio',
  'video',
  'canvas',
  'datalist',
]);
/** Start tags that may appear inside `<head>`; any other start tag (or text) ends an unclosed head, as in HTML5. */
const HEAD_CONTENT: ReadonlySet<string> = new Set([
  'head',
  'meta',
  'link',
  'title',
  'style',
  'script',
  'noscript',
  'base',
  'basefont',
  'bgsound',
  'template',
]);
/** Longest tag name in the sets above ('blockquote', 'figcaption'); longer names are not looked up. */
const MAX_KNOWN_NAME = 10;

const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;

/**
 * The separator a tag produces: `'\n'` for block elements and `<br>`, `'\t'` for table cells, else `''`.
 *
 * @example
 * separatorFor('p')    // '\n'
 * separatorFor('td')   // '\t'
 * separatorFor('span') // ''
 */
export function separatorFor(name: string): string {
  return BLOCK_TAGS.has(name) ? '\n' : CELL_TAGS.has(name) ? '\t' : '';
}

/**
 * Recognises the markup starting at a `<`. One scanner per string: it memoises searches, so calls must come
 * in (roughly) increasing order. After {@link scan}, `end` is the index just after the markup; for tags,
 * `name` is the lowercased name ('' when longer than any name we act on), and `altStart`/`altEnd` delimit
 * the raw value of an `alt` attribute (-1 when absent).
 *
 * @example
 * const sc = new HtmlScanner('x<img src="a>b" alt=Cat>y')
 * sc.scan(1)                   // MARKUP_START
 * [sc.name, sc.end]            // ['img', 24]
 * 'x<img src="a>b" alt=Cat>y'.slice(sc.altStart, sc.altEnd) // 'Cat'
 */
export class HtmlScanner {
  end = 0;
  name = '';
  selfClosing = false;
  altStart = -1;
  altEnd = -1;
  /** Set once a tag ran off the end inside quotes: from then on a tag ends at the first `>`. */
  private lenient = false;
  private readonly gt: NextIndex;
  private readonly dq: NextIndex;
  private readonly sq: NextIndex;
  private readonly commentEnd: NextIndex;
  private readonly cdataEnd: NextIndex;

  /**
   * @param s the string to scan
   * @param strict CommonMark inline rules: an unterminated comment or CDATA section is text (HTML hides
   *   everything after it)
   */
  constructor(
    readonly s: string,
    private readonly strict = false,
  ) {
    this.gt = new NextIndex(s, '>');
    this.dq = new NextIndex(s, '"');
    this.sq = new NextIndex(s, "'");
    this.commentEnd = new NextIndex(s, '-->');
    this.cdataEnd = new NextIndex(s, ']]>');
  }

  /** Classifies the markup at `s[i] === '<'`: one of the `MARKUP_*` constants. */
  scan(i: number): number {
    const s = this.s;
    const c1 = s.charCodeAt(i + 1);
    if (isAsciiAlpha(c1)) return this.tag(i + 1, MARKUP_START);
    if (c1 === SLASH) {
      const c2 = s.charCodeAt(i + 2);
      if (isAsciiAlpha(c2)) return this.tag(i + 2, MARKUP_END);
      if (c2 === GT) return this.skipTo(i + 3);
      return i + 2 < s.length ? this.bogus(i + 2) : MARKUP_TEXT;
    }
    if (c1 === BANG) {
      if (s.startsWith('--', i + 2)) return this.comment(i + 4);
      if (s.startsWith('[CDATA[', i + 2)) {
        const q = this.cdataEnd.find(i + 9);
        return q >= 0 ? this.skipTo(q + 3) : this.unterminated();
      }
      return this.bogus(i + 2);
    }
    if (c1 === QUESTION) return this.bogus(i + 2);
    return MARKUP_TEXT;
  }

  private skipTo(end: number): number {
    this.end = end;
    return MARKUP_SKIP;
  }

  private unterminated(): number {
    if (this.strict) return MARKUP_TEXT;
    return this.skipTo(this.s.length);
  }

  /** `<!x…>`, `<?…>`, `</3…>`: up to the next `>`; text when there is none. */
  private bogus(p: number): number {
    const q = this.gt.find(p);
    return q >= 0 ? this.skipTo(q + 1) : MARKUP_TEXT;
  }

  private comment(p: number): number {
    const s = this.s;
    if (s.charCodeAt(p) === GT) return this.skipTo(p + 1); // <!-->
    if (s.charCodeAt(p) === 0x2d && s.charCodeAt(p + 1) === GT) return this.skipTo(p + 2); // <!--->
    const q = this.commentEnd.find(p);
    return q >= 0 ? this.skipTo(q + 3) : this.unterminated();
  }

  private tag(p: number, kind: number): number {
    this.selfClosing = false;
    this.altStart = this.altEnd = -1;
    if (!this.lenient) {
      if (this.attributes(p, this.s.length, kind, false)) return kind;
      // Quotes (or the tag) ran off the end. Rescanning from every later `<` could be quadratic, and the
      // document is malformed anyway: fall back to "a tag ends at the first `>`" for the rest of it.
      this.lenient = true;
      this.selfClosing = false;
      this.altStart = this.altEnd = -1;
    }
    const gt = this.gt.find(p);
    if (gt < 0) return MARKUP_TEXT;
    this.attributes(p, gt, kind, true);
    return kind;
  }

  /**
   * Scans the name and attributes from `p` (just after `<` or `</`) to the closing `>`, which must be before
   * `limit` (in lenient mode `limit` is that `>`). Returns false when the end of input comes first.
   */
  private attributes(p: number, limit: number, kind: number, lenient: boolean): boolean {
    const s = this.s;
    let q = p;
    while (q < limit && !isNameEnd(s.charCodeAt(q))) q++;
    this.name = q - p <= MAX_KNOWN_NAME ? s.slice(p, q).toLowerCase() : '';
    for (;;) {
      while (q < limit && isHtmlSpace(s.charCodeAt(q))) q++;
      if (q >= limit) {
        if (!lenient) return false;
        this.end = limit + 1;
        return true;
      }
      let c = s.charCodeAt(q);
      if (c === GT) {
        this.end = q + 1;
        return true;
      }
      if (c === SLASH) {
        if (s.charCodeAt(q + 1) === GT) this.selfClosing = true;
        q++;
        continue;
      }
      const nameStart = q++;
      while (q < limit && !isAttrNameEnd(s.charCodeAt(q))) q++;
      const nameEnd = q;
      while (q < limit && isHtmlSpace(s.charCodeAt(q))) q++;
      if (q >= limit || s.charCodeAt(q) !== EQ) continue;
      q++;
      while (q < limit && isHtmlSpace(s.charCodeAt(q))) q++;
      if (q >= limit) continue;
      c = s.charCodeAt(q);
      let valueStart: number;
      let valueEnd: number;
      if (c === DQ || c === SQ) {
        valueStart = q + 1;
        let close: number;
        if (lenient) {
          close = valueStart;
          while (close < limit && s.charCodeAt(close) !== c) close++;
        } else {
          close = (c === DQ ? this.dq : this.sq).find(valueStart);
          if (close < 0) return false;
        }
        valueEnd = close;
        q = close < limit ? close + 1 : limit;
      } else {
        valueStart = q;
        while (q < limit && !isHtmlSpace((c = s.charCodeAt(q))) && c !== GT) q++;
        valueEnd = q;
      }
      if (kind === MARKUP_START && this.altStart < 0 && nameEnd - nameStart === 3 && isAlt(s, nameStart)) {
        this.altStart = valueStart;
        this.altEnd = valueEnd;
      }
    }
  }
}

/**
 * Index of the end tag `</name` (ASCII case-insensitive, followed by whitespace, `/` or `>`) at or after
 * `from`, or -1. `name` must be lowercase ASCII letters.
 *
 * @example
 * findEndTag('a</b></SCRIPT >', 'script', 0) // 5
 */
export function findEndTag(s: string, name: string, from: number): number {
  for (let p = from; ; ) {
    const q = s.indexOf('</', p);
    if (q < 0) return -1;
    let k = 0;
    while (k < name.length && (s.charCodeAt(q + 2 + k) | 0x20) === name.charCodeAt(k)) k++;
    if (k === name.length && isNameEnd(s.charCodeAt(q + 2 + k))) return q;
    p = q + 2;
  }
}

/**
 * Appends the readable text of the HTML string `s` to `b`; `s` is the builder's source from offset `base`.
 *
 * @example
 * const b = new TextBuilder('<p>Fish &amp; chips</p><p>Peas</p>')
 * extractHtmlInto(b, b.source, 0)
 * b.finish('html').text // 'Fish & chips\nPeas'
 */
export function extractHtmlInto(b: TextBuilder, s: string, base: number): void {
  const map = new OffsetMap(base);
  const sc = new HtmlScanner(s);
  const lts = new NextIndex(s, '<');
  const amps = new NextIndex(s, '&');
  const n = s.length;
  // The element whose subtree is being dropped, and how deeply it is nested in itself.
  let dropName = '';
  let dropDepth = 0;
  let i = 0;
  while (i < n) {
    const lt = lts.find(i);
    const textEnd = lt < 0 ? n : lt;
    if (textEnd > i) {
      if (dropDepth > 0 && dropName === 'head' && !allSpace(s, i, textEnd)) dropDepth = 0; // text ends <head>
      if (dropDepth === 0) emitWithEntities(b, map, s, i, textEnd, DecodingMode.Legacy, amps);
    }
    if (lt < 0) break;
    const kind = sc.scan(lt);
    if (kind === MARKUP_TEXT) {
      if (dropDepth === 0) map.copy(b, lt, lt + 1);
      i = lt + 1;
      continue;
    }
    const end = sc.end;
    i = end;
    if (kind === MARKUP_SKIP) continue;
    const name = sc.name;
    if (kind === MARKUP_END) {
      if (dropDepth > 0) {
        if (name === dropName) dropDepth--;
      } else {
        const sep = separatorFor(name);
        if (sep !== '') b.separate(sep, base + lt, end - lt);
      }
      continue;
    }
    if (dropDepth > 0) {
      if (name === dropName && !sc.selfClosing) dropDepth++;
      else if (dropName === 'head' && !HEAD_CONTENT.has(name)) dropDepth = 0;
    }
    if (RAW_DROPPED.has(name) || RAW_KEPT.has(name)) {
      const close = findEndTag(s, name, end);
      const stop = close < 0 ? n : close;
      if (dropDepth === 0 && RAW_KEPT.has(name)) {
        b.separate('\n', base + lt, end - lt);
        if (name === 'textarea') emitWithEntities(b, map, s, end, stop, DecodingMode.Legacy, amps);
        else map.copy(b, end, stop);
      }
      i = stop; // the end tag is scanned next as an ordinary end tag
      continue;
    }
    if (dropDepth > 0) continue;
    if (name === 'plaintext') {
      b.separate('\n', base + lt, end - lt);
      map.copy(b, end, n);
      break;
    }
    if (DROPPED.has(name)) {
      if (!sc.selfClosing) {
        dropName = name;
        dropDepth = 1;
      }
    } else if (name === 'img' && sc.altStart >= 0) {
      // The separators stand for the markup on either side of the value, so offsets stay in order.
      b.separate(' ', base + lt, sc.altStart - lt);
      emitWithEntities(b, map, s, sc.altStart, sc.altEnd, DecodingMode.Attribute);
      b.separate(' ', base + sc.altEnd, end - sc.altEnd);
    } else {
      const sep = separatorFor(name);
      if (sep !== '') b.separate(sep, base + lt, end - lt);
    }
  }
}

/** Whether UTF-16 unit `c` is an ASCII letter (markdown.ts reads autolinks with it too). */
export function isAsciiAlpha(c: number): boolean {
  return ((c | 0x20) - 0x61) >>> 0 <= 25;
}

/** HTML's ASCII whitespace (tab, LF, FF, CR, space). */
function isHtmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x0c;
}

function isNameEnd(c: number): boolean {
  return c === GT || c === SLASH || isHtmlSpace(c);
}

function isAttrNameEnd(c: number): boolean {
  return c === GT || c === SLASH || c === EQ || isHtmlSpace(c);
}

function isAlt(s: string, p: number): boolean {
  return (
    (s.charCodeAt(p) | 0x20) === 0x61 && (s.charCodeAt(p + 1) | 0x20) === 0x6c && (s.charCodeAt(p + 2) | 0x20) === 0x74
  );
}

function allSpace(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isHtmlSpace(s.charCodeAt(i))) return false;
  return true;
}

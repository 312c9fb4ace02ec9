/**
 * Markdown → the text a reader sees, with every extracted unit mapped back to the original.
 *
 * Pragmatic CommonMark + GFM, not a full parser: one pass over lines for blocks, then one pass per paragraph
 * for inlines (so links, emphasis and code spans may span the lines of a paragraph).
 *
 * Blocks: ATX `#` markers and closing sequences, setext underlines, thematic breaks, fence lines (with the
 * info string), `>` markers, list markers (and task boxes `[ ]`), reference definitions and table delimiter
 * rows are removed; fenced and indented code is kept verbatim (code is text of the work); HTML blocks go
 * through the HTML extractor (so `<p align="center"><img alt="Logo">` gives `Logo`). Line breaks are kept.
 *
 * Inlines: emphasis/strong/strikethrough delimiters that pair up (CommonMark flanking rules), code span
 * backticks, `[text](url "title")` → `text`, `![alt](url)` → `alt`, `[text][ref]` / `[ref]` (when `ref` is
 * defined) → `text`, footnote references `[^n]` → nothing (definitions keep their text), `<https://…>` →
 * the URL, inline HTML tags → nothing (`<br>` and block tags → a separator; `<img alt>` → its alt), entities
 * (strict: `;` required), backslash escapes (`\*` → `*`), table pipes → a tab.
 *
 * Linear time: lines and paragraphs are scanned once; code-span closers are found through a per-length list
 * of backtick runs; inline HTML uses the memoised {@link HtmlScanner}; and the only rescanning construct,
 * link destinations and labels tried at each `]`, draws on a work budget proportional to the paragraph
 * (an adversarial paragraph loses its links, a real one never notices).
 */

import { DecodingMode } from 'entities';
import {
  extractHtmlInto,
  findEndTag,
  HtmlScanner,
  isAsciiAlpha,
  MARKUP_END,
  MARKUP_SKIP,
  MARKUP_START,
  MARKUP_TEXT,
  separatorFor,
} from './html.js';
import {
  decodeEntityAt,
  emitWithEntities,
  isSpace,
  lastDecoded,
  OffsetMap,
  SpanMap,
  type SourceMap,
  type TextBuilder,
} from './offset-map.js';

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const BANG = 0x21;
const HASH = 0x23;
const AMP = 0x26;
const LPAREN = 0x28;
const RPAREN = 0x29;
const STAR = 0x2a;
const PLUS = 0x2b;
const DASH = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const LT = 0x3c;
const EQ = 0x3d;
const GT = 0x3e;
const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RBRACKET = 0x5d;
const CARET = 0x5e;
const UNDERSCORE = 0x5f;
const BACKTICK = 0x60;
const PIPE = 0x7c;
const TILDE = 0x7e;

/** CommonMark HTML block start condition 6: these tag names start a block that ends at a blank line. */
const HTML_BLOCK_NAMES: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'base',
  'basefont',
  'blockquote',
  'body',
  'caption',
  'center',
  'col',
  'colgroup',
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
  'frame',
  'frameset',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'header',
  'hr',
  'html',
  'iframe',
  'legend',
  'li',
  'link',
  'main',
  'menu',
  'menuitem',
  'nav',
  'noframes',
  'ol',
  'optgroup',
  'option',
  'p',
  'param',
  'search',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'title',
  'tr',
  'track',
  'ul',
]);
/** CommonMark HTML block start condition 1: raw elements whose block ends at their end tag. */
const HTML_RAW_NAMES: ReadonlySet<string> = new Set(['script', 'pre', 'style', 'textarea']);

/** Reference labels are at most 999 characters (CommonMark). */
const MAX_LABEL = 999;
/** Link-destination nesting limit (as cmark): deeper parentheses are not a destination. */
const MAX_PAREN_DEPTH = 32;

/**
 * Appends the readable text of the Markdown string `s` (the builder's whole source) to `b`.
 *
 * @example
 * const b = new TextBuilder('# Title\n\nSome *emphasis* and [a link](https://x.y).')
 * extractMarkdownInto(b, b.source)
 * b.finish('markdown').text // 'Title\n\nSome emphasis and a link.'
 */
export function extractMarkdownInto(b: TextBuilder, s: string): void {
  new BlockScanner(b, s).run();
}

/** What the container markers (`>` and list markers) at the start of a line left. */
interface ContainerMarkers {
  /** Where the line's content starts, after its markers (its end when nothing follows them). */
  readonly p: number;
  /** Whether any marker was taken off. */
  readonly stripped: boolean;
  /** Whether a list marker was among them: the line opens a list item. */
  readonly listItem: boolean;
  /** How many `>` markers: the block quotes an opening fence sits in. */
  readonly quotes: number;
  /** Columns of indent before the content (a tab to the next multiple of 4). */
  readonly indent: number;
}

/** The line-by-line block pass. */
class BlockScanner {
  private readonly n: number;
  private defs: ReadonlySet<string> = new Set();
  /** Source spans of the open paragraph's lines (after container markers, with their line ending). */
  private paraStarts: number[] = [];
  private paraEnds: number[] = [];
  private inList = false;
  private prevBlank = true;
  private tableOpen = false;
  /** Open code fence: its character (0 = none), length, and the number of `>` markers around it. */
  private fenceChar = 0;
  private fenceLen = 0;
  private fenceQuotes = 0;

  constructor(
    private readonly b: TextBuilder,
    private readonly s: string,
  ) {
    this.n = s.length;
  }

  run(): void {
    const s = this.s;
    this.defs = collectDefinitions(s);
    let pos = 0;
    while (pos < this.n) {
      const nl = s.indexOf('\n', pos);
      const next = nl < 0 ? this.n : nl + 1;
      let end = nl < 0 ? this.n : nl;
      if (end > pos && s.charCodeAt(end - 1) === CR) end--;
      pos = this.line(pos, end, next);
    }
    this.flushParagraph();
  }

  /** Handles the line `[start, end)` (line ending up to `next`); returns where the next line starts. */
  private line(start: number, end: number, next: number): number {
    if (this.fenceChar !== 0) return this.fencedLine(start, end, next);
    const markers = this.containerMarkers(start, end);
    if (markers === null) {
      // Indented code: kept verbatim.
      this.b.copy(start, next);
      this.prevBlank = false;
      return next;
    }
    if (markers.p >= end) {
      this.flushParagraph();
      this.tableOpen = false;
      this.b.copy(end, next);
      this.prevBlank = true;
      return next;
    }
    if (markers.listItem) {
      this.flushParagraph();
      this.inList = true;
    } else if (!markers.stripped && markers.indent === 0 && this.prevBlank) {
      this.inList = false;
    }
    this.prevBlank = false;
    return this.leafBlock(start, end, next, markers);
  }

  /** A line inside an open code fence: kept verbatim after the fence's own `>` markers, or the closing fence (dropped). */
  private fencedLine(start: number, end: number, next: number): number {
    const s = this.s;
    let p = start;
    for (let k = 0; k < this.fenceQuotes; k++) {
      const q = quoteMarkerEnd(s, p, end);
      if (q < 0) break;
      p = q;
    }
    if (this.isClosingFence(p, end)) {
      this.fenceChar = 0;
      this.b.copy(end, next);
    } else {
      this.b.copy(p, next);
    }
    return next;
  }

  /**
   * The container markers that open the line `[start, end)`: any number of `>` and list markers, each possibly
   * indented. `null` when the line is indented code: four columns of indent before any marker, with no paragraph,
   * list or table open.
   */
  private containerMarkers(start: number, end: number): ContainerMarkers | null {
    const s = this.s;
    let p = start;
    let stripped = false;
    let listItem = false;
    let quotes = 0;
    let indent = 0;
    for (;;) {
      let q = p;
      indent = 0;
      for (; q < end; q++) {
        const c = s.charCodeAt(q);
        if (c === SP) indent++;
        else if (c === TAB) indent += 4 - (indent % 4);
        else break;
      }
      if (q >= end) {
        p = q;
        break;
      }
      if (indent >= 4) {
        if (!stripped && !this.paraOpen() && !this.inList && !this.tableOpen) return null;
        p = q;
        break;
      }
      const c = s.charCodeAt(q);
      if (c === GT) {
        p = q + 1;
        const d = s.charCodeAt(p);
        if (d === SP || d === TAB) p++;
        stripped = true;
        quotes++;
        continue;
      }
      if (isThematicBreak(s, q, end) || (this.paraOpen() && isSetextUnderline(s, q, end))) {
        p = q;
        break;
      }
      const m = this.listMarkerEnd(q, end);
      if (m >= 0) {
        p = m;
        stripped = listItem = true;
        continue;
      }
      p = q;
      break;
    }
    return { p, stripped, listItem, quotes, indent };
  }

  /**
   * The block a non-blank line holds after its container markers (`markers.p` on): a table row, a setext underline,
   * a thematic break, an opening fence, an ATX heading, an HTML block, a link or footnote definition, or paragraph
   * text. Returns where the next line starts (after an HTML block's last line).
   */
  private leafBlock(start: number, end: number, next: number, markers: ContainerMarkers): number {
    const s = this.s;
    const b = this.b;
    const { p, stripped, quotes } = markers;
    let segStart = stripped ? p : start;
    const c = s.charCodeAt(p);

    if (this.tableOpen) {
      if (isDelimiterRow(s, p, end)) {
        b.copy(end, next);
        return next;
      }
      if (indexInRange(s, PIPE, p, end) >= 0) {
        this.inline([segStart], [next], true);
        return next;
      }
      this.tableOpen = false;
    }
    if ((c === EQ || c === DASH) && this.paraOpen() && isSetextUnderline(s, p, end)) {
      this.flushParagraph();
      b.copy(end, next);
      return next;
    }
    if (isThematicBreak(s, p, end)) {
      this.flushParagraph();
      b.copy(end, next);
      return next;
    }
    if ((c === BACKTICK || c === TILDE) && this.openFence(p, end, quotes)) {
      this.flushParagraph();
      b.copy(end, next);
      return next;
    }
    if (c === HASH) {
      const h = atxContent(s, p, end);
      if (h !== null) {
        this.flushParagraph();
        if (h[1] > h[0]) this.inline([h[0]], [h[1]], false);
        b.copy(end, next);
        return next;
      }
    }
    if (c === LT && !stripped) {
      const blockEnd = this.htmlBlockEnd(p, end, next);
      if (blockEnd >= 0) {
        this.flushParagraph();
        extractHtmlInto(b, s.slice(start, blockEnd), start);
        return blockEnd;
      }
    }
    if (c === LBRACKET && !this.paraOpen()) {
      const def = parseDefinitionStart(s, p, end);
      if (def !== null) {
        if (def.label.charCodeAt(0) === CARET) {
          // Footnote definition: the marker goes, the note's text stays.
          segStart = skipSpaces(s, def.after, end);
          if (segStart >= end) {
            b.copy(end, next);
            return next;
          }
        } else if (isDefinitionRest(s, def.after, end)) {
          b.copy(end, next);
          return next;
        }
      }
    }
    if (indexInRange(s, PIPE, p, end) >= 0 && this.nextLineIsDelimiterRow(next)) {
      this.flushParagraph();
      this.tableOpen = true;
      this.inline([segStart], [next], true);
      return next;
    }
    this.continueParagraph(segStart, next);
    return next;
  }

  /** Adds `[segStart, next)` to the open paragraph: joined to its last span when they meet, else a span of its own. */
  private continueParagraph(segStart: number, next: number): void {
    const k = this.paraEnds.length - 1;
    if (k >= 0 && this.paraEnds[k] === segStart) this.paraEnds[k] = next;
    else {
      this.paraStarts.push(segStart);
      this.paraEnds.push(next);
    }
  }

  private paraOpen(): boolean {
    return this.paraStarts.length > 0;
  }

  private flushParagraph(): void {
    if (this.paraStarts.length === 0) return;
    this.inline(this.paraStarts, this.paraEnds, false);
    this.paraStarts = [];
    this.paraEnds = [];
  }

  /** Runs the inline pass over the concatenation of source spans. */
  private inline(starts: number[], ends: number[], table: boolean): void {
    const s = this.s;
    let local: string;
    let map: SourceMap;
    if (starts.length === 1) {
      local = s.slice(starts[0], ends[0]);
      map = new OffsetMap(starts[0]);
    } else {
      const parts: string[] = [];
      for (let k = 0; k < starts.length; k++) parts.push(s.slice(starts[k], ends[k]));
      local = parts.join('');
      map = new SpanMap(starts.slice(), ends.slice());
    }
    new InlineScanner(local, this.defs, table).run(this.b, map);
  }

  /** A list marker (`-`, `+`, `*`, `1.`, `1)`) at `q`: returns where the item's text starts, or -1. */
  private listMarkerEnd(q: number, end: number): number {
    const s = this.s;
    const c = s.charCodeAt(q);
    let m: number;
    if (c === DASH || c === PLUS || c === STAR) m = q + 1;
    else if (isDigit(c)) {
      let k = q + 1;
      while (k < end && k - q < 9 && isDigit(s.charCodeAt(k))) k++;
      const d = s.charCodeAt(k);
      if (d !== DOT && d !== RPAREN) return -1;
      // Only a list starting at 1 may interrupt a paragraph ("in 1999. The…" stays a sentence); the next
      // item of a list may of course follow its predecessor's text.
      if (this.paraOpen() && !this.inList && !(k === q + 1 && c === 0x31)) return -1;
      m = k + 1;
    } else return -1;
    if (m < end) {
      const d = s.charCodeAt(m);
      if (d !== SP && d !== TAB) return -1;
    } else if (this.paraOpen() && !this.inList) return -1; // an empty item cannot interrupt a paragraph
    let r = skipSpaces(s, m, end);
    // Task list box.
    if (s.charCodeAt(r) === LBRACKET && s.charCodeAt(r + 2) === RBRACKET && ' xX'.includes(s.charAt(r + 1))) {
      const after = s.charCodeAt(r + 3);
      if (r + 3 >= end || after === SP || after === TAB) r = skipSpaces(s, r + 3, end);
    }
    return r;
  }

  private openFence(p: number, end: number, quotes: number): boolean {
    const s = this.s;
    const c = s.charCodeAt(p);
    let k = p;
    while (k < end && s.charCodeAt(k) === c) k++;
    if (k - p < 3) return false;
    if (c === BACKTICK && indexInRange(s, BACKTICK, k, end) >= 0) return false;
    this.fenceChar = c;
    this.fenceLen = k - p;
    this.fenceQuotes = quotes;
    return true;
  }

  private isClosingFence(p: number, end: number): boolean {
    const s = this.s;
    let k = skipSpaces(s, p, end);
    const from = k;
    while (k < end && s.charCodeAt(k) === this.fenceChar) k++;
    return k - from >= this.fenceLen && skipSpaces(s, k, end) >= end;
  }

  private nextLineIsDelimiterRow(next: number): boolean {
    const s = this.s;
    if (next >= this.n) return false;
    const nl = s.indexOf('\n', next);
    let end = nl < 0 ? this.n : nl;
    if (end > next && s.charCodeAt(end - 1) === CR) end--;
    let p = next;
    while (p < end && (s.charCodeAt(p) === GT || s.charCodeAt(p) === SP || s.charCodeAt(p) === TAB)) p++;
    return isDelimiterRow(s, p, end);
  }

  /**
   * CommonMark HTML block starting at `s[p] === '<'`: returns the index after its last line, or -1.
   * Conditions 1–5 end at the line containing their terminator, 6–7 before the next blank line.
   */
  private htmlBlockEnd(p: number, end: number, next: number): number {
    const s = this.s;
    if (s.startsWith('<!--', p)) return this.lineAfter(s.indexOf('-->', p + 2));
    if (s.startsWith('<?', p)) return this.lineAfter(s.indexOf('?>', p + 2));
    if (s.startsWith('<![CDATA[', p)) return this.lineAfter(s.indexOf(']]>', p + 9));
    if (s.charCodeAt(p + 1) === BANG && isAsciiAlpha(s.charCodeAt(p + 2))) return this.lineAfter(s.indexOf('>', p + 2));
    const closing = s.charCodeAt(p + 1) === 0x2f;
    const nameStart = closing ? p + 2 : p + 1;
    let k = nameStart;
    while (k < end && k - nameStart <= 10 && (isAsciiAlpha(s.charCodeAt(k)) || isDigit(s.charCodeAt(k)))) k++;
    if (k === nameStart) return -1;
    const name = s.slice(nameStart, k).toLowerCase();
    const after = s.charCodeAt(k);
    const ends = k >= end || after === SP || after === TAB || after === GT;
    if (!closing && ends && HTML_RAW_NAMES.has(name)) {
      const close = findEndTag(s, name, k);
      return close < 0 ? this.n : this.lineAfter(close);
    }
    if (HTML_BLOCK_NAMES.has(name) && (ends || (after === 0x2f && s.charCodeAt(k + 1) === GT)))
      return this.blankLineFrom(next);
    // Condition 7: a complete tag alone on its line; cannot interrupt a paragraph.
    if (this.paraOpen() || HTML_RAW_NAMES.has(name)) return -1;
    const line = s.slice(p, end);
    const sc = new HtmlScanner(line, true);
    const kind = sc.scan(0);
    if ((kind === MARKUP_START || kind === MARKUP_END) && skipSpaces(line, sc.end, line.length) >= line.length) {
      return this.blankLineFrom(next);
    }
    return -1;
  }

  /** Start of the line after the one containing index `q` (end of input when `q < 0`). */
  private lineAfter(q: number): number {
    if (q < 0) return this.n;
    const nl = this.s.indexOf('\n', q);
    return nl < 0 ? this.n : nl + 1;
  }

  /** Start of the first blank line at or after line start `pos` (end of input when none). */
  private blankLineFrom(pos: number): number {
    const s = this.s;
    while (pos < this.n) {
      const nl = s.indexOf('\n', pos);
      const end = nl < 0 ? this.n : nl;
      if (skipSpacesAndCr(s, pos, end) >= end) return pos;
      pos = nl < 0 ? this.n : nl + 1;
    }
    return this.n;
  }
}

/** ASCII characters that may start an inline construct (the scan skips all others without a switch). */
const INLINE_SPECIAL = /* @__PURE__ */ (() => {
  const table = new Uint8Array(128);
  for (const c of '\\`&<[!]*_~|') table[c.charCodeAt(0)] = 1;
  return table;
})();

/** Edit kinds of the inline pass. */
const INACTIVE = 0;
const DELETE = 1;
const REPLACE = 2;
const SEPARATE = 3;
const ALT = 4;

/**
 * The inline pass over one paragraph (or heading, or table row): records edits in source order — deletions,
 * replacements, separators — while scanning, then copies everything else. Openers (`[`, `*`…) get an
 * inactive edit when seen and are activated when their closer turns up, which keeps the edits sorted.
 */
class InlineScanner {
  private readonly eStart: number[] = [];
  private readonly eEnd: number[] = [];
  private readonly eKind: number[] = [];
  private readonly eArg: Array<string | number> = [];
  private readonly eArg2: number[] = [];
  /** Edit indices of unmatched `[` / `![`, and of emphasis openers per character. */
  private readonly brackets: number[] = [];
  private readonly stars: number[] = [];
  private readonly unders: number[] = [];
  private readonly tildes: number[] = [];
  private html: HtmlScanner | undefined;
  /** Backtick runs by length (positions ascending), and how far each list has been consumed. */
  private codeRuns: Map<number, number[]> | undefined;
  private readonly codeCursor = new Map<number, number>();
  /** Characters that link destinations and labels may still scan (see the module comment). */
  private budget: number;

  constructor(
    private readonly s: string,
    private readonly defs: ReadonlySet<string>,
    private readonly table: boolean,
  ) {
    this.budget = 16 * s.length + 4096;
  }

  run(b: TextBuilder, map: SourceMap): void {
    this.scan();
    const s = this.s;
    let cur = 0;
    for (let k = 0; k < this.eStart.length; k++) {
      const kind = this.eKind[k];
      if (kind === INACTIVE) continue;
      const st = this.eStart[k];
      const en = this.eEnd[k];
      map.copy(b, cur, st);
      cur = en;
      if (kind === REPLACE) b.replace(this.eArg[k] as string, map.origin(st), sourceLength(map, st, en));
      else if (kind === SEPARATE) b.separate(this.eArg[k] as string, map.origin(st), sourceLength(map, st, en));
      else if (kind === ALT) {
        const as = this.eArg[k] as number;
        const ae = this.eArg2[k];
        b.separate(' ', map.origin(st), sourceLength(map, st, as));
        emitWithEntities(b, map, s, as, ae, DecodingMode.Attribute);
        b.separate(' ', map.origin(ae), sourceLength(map, ae, en));
      }
    }
    map.copy(b, cur, s.length);
  }

  private edit(start: number, end: number, kind: number, arg: string | number = '', arg2 = 0): number {
    this.eStart.push(start);
    this.eEnd.push(end);
    this.eKind.push(kind);
    this.eArg.push(arg);
    this.eArg2.push(arg2);
    return this.eStart.length - 1;
  }

  private scan(): void {
    const s = this.s;
    const n = s.length;
    let i = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c >= 0x80 || INLINE_SPECIAL[c] === 0) {
        i++;
        continue;
      }
      switch (c) {
        case BACKSLASH: {
          const d = s.charCodeAt(i + 1);
          if (isAsciiPunct(d)) {
            this.edit(i, i + 1, DELETE);
            i += 2;
          } else {
            if (d === LF || d === CR) this.edit(i, i + 1, DELETE); // hard line break
            i++;
          }
          break;
        }
        case BACKTICK:
          i = this.codeSpan(i);
          break;
        case AMP: {
          const k = decodeEntityAt(s, i, DecodingMode.Strict);
          if (k > 0) {
            this.edit(i, i + k, REPLACE, lastDecoded());
            i += k;
          } else i++;
          break;
        }
        case LT:
          i = this.angle(i);
          break;
        case LBRACKET:
          this.brackets.push(this.edit(i, i + 1, INACTIVE));
          i++;
          break;
        case BANG:
          if (s.charCodeAt(i + 1) === LBRACKET) {
            this.brackets.push(this.edit(i, i + 2, INACTIVE));
            i += 2;
          } else i++;
          break;
        case RBRACKET:
          i = this.closeBracket(i);
          break;
        case STAR:
        case UNDERSCORE:
        case TILDE:
          i = this.delimiterRun(i, c);
          break;
        case PIPE:
          if (this.table) this.edit(i, i + 1, SEPARATE, '\t');
          i++;
          break;
        default:
          i++;
      }
    }
  }

  /** A backtick run at `i`: a code span when a run of the same length follows, else literal. */
  private codeSpan(i: number): number {
    const s = this.s;
    let j = i + 1;
    while (s.charCodeAt(j) === BACKTICK) j++;
    const len = j - i;
    if (this.codeRuns === undefined) this.codeRuns = backtickRuns(s);
    const runs = this.codeRuns.get(len);
    if (runs === undefined) return j;
    let k = this.codeCursor.get(len) ?? 0;
    while (k < runs.length && runs[k] < j) k++;
    this.codeCursor.set(len, k);
    if (k === runs.length) return j;
    const close = runs[k];
    this.edit(i, j, DELETE);
    this.edit(close, close + len, DELETE);
    return close + len;
  }

  /** `<`: an autolink (keep the URL), inline HTML (drop it), or a plain `<`. */
  private angle(i: number): number {
    const s = this.s;
    const auto = autolinkEnd(s, i);
    if (auto > 0) {
      this.edit(i, i + 1, DELETE);
      this.edit(auto - 1, auto, DELETE);
      return auto;
    }
    const sc = (this.html ??= new HtmlScanner(s, true));
    const kind = sc.scan(i);
    if (kind === MARKUP_TEXT) return i + 1;
    const end = sc.end;
    if (kind === MARKUP_START && sc.name === 'img' && sc.altStart >= 0) this.edit(i, end, ALT, sc.altStart, sc.altEnd);
    else {
      const sep = kind === MARKUP_SKIP ? '' : separatorFor(sc.name);
      this.edit(i, end, sep === '' ? DELETE : SEPARATE, sep);
    }
    return end;
  }

  /** `]` at `i`: closes the nearest `[`/`![` as a link or image when a destination or known label follows. */
  private closeBracket(i: number): number {
    const opener = this.brackets.pop();
    if (opener === undefined) return i + 1;
    const s = this.s;
    const textStart = this.eEnd[opener];
    const next = s.charCodeAt(i + 1);
    let end = -1;
    if (next === LPAREN) end = this.linkTail(i + 2);
    if (end < 0 && next === LBRACKET && this.defs.size > 0) {
      const close = this.labelEnd(i + 2);
      if (close >= 0) {
        const label = close > i + 2 ? s.slice(i + 2, close) : i - textStart <= MAX_LABEL ? s.slice(textStart, i) : '';
        if (this.defs.has(normalizeLabel(label))) end = close + 1;
      }
    }
    if (end < 0 && this.defs.size > 0 && i > textStart && i - textStart <= MAX_LABEL) {
      const label = s.slice(textStart, i);
      if (this.defs.has(normalizeLabel(label))) {
        if (label.charCodeAt(0) === CARET && opener === this.eStart.length - 1) {
          // Footnote reference: the whole `[^n]` goes.
          this.eEnd[opener] = i + 1;
          this.eKind[opener] = DELETE;
          return i + 1;
        }
        end = i + 1;
      }
    }
    if (end < 0) return i + 1;
    this.eKind[opener] = DELETE;
    this.edit(i, end, DELETE);
    return end;
  }

  /** After `](`: destination, optional title, `)`. Returns the index after `)`, or -1. */
  private linkTail(p: number): number {
    const s = this.s;
    const n = s.length;
    let k = skipWhitespace(s, p, n);
    if (k >= n) return -1;
    if (s.charCodeAt(k) === RPAREN) return k + 1;
    const destStart = k;
    if (s.charCodeAt(k) === LT) {
      for (k++; ; k++) {
        if (k >= n || --this.budget < 0) return -1;
        const c = s.charCodeAt(k);
        if (c === GT) break;
        if (c === LT || c === LF || c === CR) return -1;
        if (c === BACKSLASH) k++;
      }
      k++;
    } else {
      let depth = 0;
      for (; k < n; k++) {
        if (--this.budget < 0) return -1;
        const c = s.charCodeAt(k);
        if (c === BACKSLASH && isAsciiPunct(s.charCodeAt(k + 1))) k++;
        else if (c <= SP) break;
        else if (c === LPAREN) {
          if (++depth > MAX_PAREN_DEPTH) return -1;
        } else if (c === RPAREN) {
          if (depth === 0) break;
          depth--;
        }
      }
      if (depth !== 0) return -1;
    }
    let t = skipWhitespace(s, k, n);
    if (s.charCodeAt(t) === RPAREN) return t + 1;
    if (t === k && k > destStart) return -1; // a title must be separated from the destination
    const open = s.charCodeAt(t);
    const close = open === LPAREN ? RPAREN : open;
    if (open !== 0x22 && open !== 0x27 && open !== LPAREN) return -1;
    for (t++; ; t++) {
      if (t >= n || --this.budget < 0) return -1;
      const c = s.charCodeAt(t);
      if (c === BACKSLASH) t++;
      else if (c === close) break;
      else if (open === LPAREN && c === LPAREN) return -1;
    }
    t = skipWhitespace(s, t + 1, n);
    return s.charCodeAt(t) === RPAREN ? t + 1 : -1;
  }

  /** After `][`: the index of the closing `]` of a label, or -1. */
  private labelEnd(p: number): number {
    const s = this.s;
    for (let k = p; k < s.length && k - p <= MAX_LABEL; k++) {
      if (--this.budget < 0) return -1;
      const c = s.charCodeAt(k);
      if (c === BACKSLASH) k++;
      else if (c === LBRACKET) return -1;
      else if (c === RBRACKET) return k;
    }
    return -1;
  }

  /** A run of `*`, `_` or `~` at `i`: pairs with an earlier opener (both removed) or waits as one. */
  private delimiterRun(i: number, c: number): number {
    const s = this.s;
    let j = i + 1;
    while (s.charCodeAt(j) === c) j++;
    const len = j - i;
    if (c === TILDE && len > 2) return j;
    const before = i > 0 ? s.charCodeAt(i - 1) : SP;
    const after = j < s.length ? s.charCodeAt(j) : SP;
    const spaceBefore = isSpace(before);
    const spaceAfter = isSpace(after);
    const punctBefore = !spaceBefore && isPunctuation(before);
    const punctAfter = !spaceAfter && isPunctuation(after);
    const left = !spaceAfter && (!punctAfter || spaceBefore || punctBefore);
    const right = !spaceBefore && (!punctBefore || spaceAfter || punctAfter);
    // `_` may not open or close inside a word (snake_case stays as is).
    const canOpen = c === UNDERSCORE ? left && (!right || punctBefore) : left;
    const canClose = c === UNDERSCORE ? right && (!left || punctAfter) : right;
    const k = this.edit(i, j, INACTIVE);
    const stack = c === STAR ? this.stars : c === UNDERSCORE ? this.unders : this.tildes;
    const top = stack.length > 0 ? stack[stack.length - 1] : -1;
    if (canClose && top >= 0 && (c !== TILDE || this.eEnd[top] - this.eStart[top] === len)) {
      stack.pop();
      this.eKind[top] = DELETE;
      this.eKind[k] = DELETE;
    } else if (canOpen) stack.push(k);
    return j;
  }
}

/** Source length of local `[from, to)` (which may cross a removed `>` marker). */
function sourceLength(map: SourceMap, from: number, to: number): number {
  return to > from ? map.origin(to - 1) + 1 - map.origin(from) : 0;
}

/** Start positions of maximal backtick runs, grouped by run length. */
function backtickRuns(s: string): Map<number, number[]> {
  const runs = new Map<number, number[]>();
  for (let i = s.indexOf('`'); i >= 0; ) {
    let j = i + 1;
    while (s.charCodeAt(j) === BACKTICK) j++;
    const list = runs.get(j - i);
    if (list) list.push(i);
    else runs.set(j - i, [i]);
    i = s.indexOf('`', j);
  }
  return runs;
}

/** `<scheme:…>` or `<user@host>` at `i`: the index after `>`, or -1. */
function autolinkEnd(s: string, i: number): number {
  const n = s.length;
  let k = i + 1;
  if (isAsciiAlpha(s.charCodeAt(k))) {
    k++;
    while (k < n && k - i <= 32 && isSchemeChar(s.charCodeAt(k))) k++;
    if (s.charCodeAt(k) === COLON && k - i - 1 >= 2 && k - i - 1 <= 32) {
      for (k++; k < n; k++) {
        const c = s.charCodeAt(k);
        if (c === GT) return k + 1;
        if (c <= SP || c === LT) break;
      }
    }
  }
  k = i + 1;
  while (k < n && isEmailLocal(s.charCodeAt(k))) k++;
  if (k === i + 1 || s.charCodeAt(k) !== 0x40) return -1;
  for (;;) {
    const label = ++k;
    while (
      k < n &&
      k - label < 63 &&
      (isAsciiAlpha(s.charCodeAt(k)) || isDigit(s.charCodeAt(k)) || s.charCodeAt(k) === DASH)
    )
      k++;
    if (k === label || s.charCodeAt(label) === DASH || s.charCodeAt(k - 1) === DASH) return -1;
    const c = s.charCodeAt(k);
    if (c === GT) return k + 1;
    if (c !== DOT) return -1;
  }
}

/** Labels of the reference and footnote definitions in `s` (normalised), for resolving `[text][ref]`. */
function collectDefinitions(s: string): Set<string> {
  const defs = new Set<string>();
  for (let pos = 0; pos < s.length; ) {
    const nl = s.indexOf('\n', pos);
    const end = nl < 0 ? s.length : nl;
    let p = pos;
    while (p < end && p - pos < 4 && s.charCodeAt(p) === SP) p++;
    if (s.charCodeAt(p) === LBRACKET) {
      const def = parseDefinitionStart(s, p, end);
      if (def !== null && (def.label.charCodeAt(0) === CARET || isDefinitionRest(s, def.after, end))) {
        defs.add(normalizeLabel(def.label));
      }
    }
    pos = nl < 0 ? s.length : nl + 1;
  }
  return defs;
}

/** `[label]:` at `p`: the label and the index after the colon, or null. */
function parseDefinitionStart(s: string, p: number, end: number): { label: string; after: number } | null {
  let k = p + 1;
  for (; k < end && k - p <= MAX_LABEL + 1; k++) {
    const c = s.charCodeAt(k);
    if (c === BACKSLASH) k++;
    else if (c === LBRACKET) return null;
    else if (c === RBRACKET) break;
  }
  if (s.charCodeAt(k) !== RBRACKET || s.charCodeAt(k + 1) !== COLON) return null;
  const label = s.slice(p + 1, k);
  if (label.trim() === '') return null;
  return { label, after: k + 2 };
}

/** The rest of a reference definition line: destination, optional title, nothing else. */
function isDefinitionRest(s: string, p: number, end: number): boolean {
  let k = skipSpaces(s, p, end);
  if (k >= end) return false;
  if (s.charCodeAt(k) === LT) {
    const close = indexInRange(s, GT, k + 1, end);
    if (close < 0) return false;
    k = close + 1;
  } else {
    while (k < end && !isSpace(s.charCodeAt(k))) k++;
  }
  const t = skipSpaces(s, k, end);
  if (t >= end) return true;
  if (t === k) return false;
  let e = end;
  while (e > t && isSpace(s.charCodeAt(e - 1))) e--;
  const open = s.charCodeAt(t);
  const close = s.charCodeAt(e - 1);
  return (
    e - t >= 2 &&
    ((open === 0x22 && close === 0x22) || (open === 0x27 && close === 0x27) || (open === LPAREN && close === RPAREN))
  );
}

/** CommonMark label matching: case-insensitive, inner whitespace collapsed. */
function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The heading text `[from, to)` of an ATX heading at `p`, or null when the line is not one. */
function atxContent(s: string, p: number, end: number): [number, number] | null {
  let k = p;
  while (k < end && s.charCodeAt(k) === HASH) k++;
  if (k - p > 6) return null;
  if (k < end && s.charCodeAt(k) !== SP && s.charCodeAt(k) !== TAB) return null;
  const from = skipSpaces(s, k, end);
  let to = end;
  while (to > from && isSpace(s.charCodeAt(to - 1))) to--;
  let h = to;
  while (h > from && s.charCodeAt(h - 1) === HASH) h--;
  if (h < to && (h === from || isSpace(s.charCodeAt(h - 1)))) {
    to = h;
    while (to > from && isSpace(s.charCodeAt(to - 1))) to--;
  }
  return [from, to];
}

function isThematicBreak(s: string, p: number, end: number): boolean {
  const c = s.charCodeAt(p);
  if (c !== DASH && c !== STAR && c !== UNDERSCORE) return false;
  let count = 0;
  for (let k = p; k < end; k++) {
    const d = s.charCodeAt(k);
    if (d === c) count++;
    else if (d !== SP && d !== TAB) return false;
  }
  return count >= 3;
}

function isSetextUnderline(s: string, p: number, end: number): boolean {
  const c = s.charCodeAt(p);
  if (c !== EQ && c !== DASH) return false;
  let k = p;
  while (k < end && s.charCodeAt(k) === c) k++;
  return skipSpaces(s, k, end) >= end;
}

/** A GFM table delimiter row: `|`, `-`, `:` and blanks only, with at least one `-` and one `|`. */
function isDelimiterRow(s: string, p: number, end: number): boolean {
  let dashes = 0;
  let pipes = 0;
  for (let k = p; k < end; k++) {
    const c = s.charCodeAt(k);
    if (c === DASH) dashes++;
    else if (c === PIPE) pipes++;
    else if (c !== COLON && c !== SP && c !== TAB) return false;
  }
  return dashes > 0 && pipes > 0;
}

/** After up to three spaces, a `>` (and one following blank): the index after it, or -1. */
function quoteMarkerEnd(s: string, p: number, end: number): number {
  let k = p;
  while (k < end && k - p < 3 && s.charCodeAt(k) === SP) k++;
  if (s.charCodeAt(k) !== GT || k >= end) return -1;
  k++;
  const d = s.charCodeAt(k);
  return d === SP || d === TAB ? k + 1 : k;
}

function indexInRange(s: string, code: number, from: number, to: number): number {
  for (let k = from; k < to; k++) if (s.charCodeAt(k) === code) return k;
  return -1;
}

function skipSpaces(s: string, p: number, end: number): number {
  while (p < end && (s.charCodeAt(p) === SP || s.charCodeAt(p) === TAB)) p++;
  return p;
}

function skipSpacesAndCr(s: string, p: number, end: number): number {
  while (p < end && (s.charCodeAt(p) === SP || s.charCodeAt(p) === TAB || s.charCodeAt(p) === CR)) p++;
  return p;
}

function skipWhitespace(s: string, p: number, end: number): number {
  while (p < end && isSpace(s.charCodeAt(p))) p++;
  return p;
}

function isDigit(c: number): boolean {
  return (c - 0x30) >>> 0 <= 9;
}

function isSchemeChar(c: number): boolean {
  return isAsciiAlpha(c) || isDigit(c) || c === PLUS || c === DOT || c === DASH;
}

function isEmailLocal(c: number): boolean {
  return isAsciiAlpha(c) || isDigit(c) || (c < 0x80 && ".!#$%&'*+/=?^_`{|}~-".includes(String.fromCharCode(c)));
}

function isAsciiPunct(c: number): boolean {
  return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
}

const UNICODE_PUNCT = /[\p{P}\p{S}]/u;

/** CommonMark punctuation: ASCII punctuation and Unicode P* / S* (for flanking rules). */
function isPunctuation(c: number): boolean {
  if (c < 0x80) return isAsciiPunct(c);
  return c < 0xd800 || c > 0xdfff ? UNICODE_PUNCT.test(String.fromCharCode(c)) : false;
}

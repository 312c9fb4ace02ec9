/**
 * The machinery shared by the HTML and Markdown extractors: a {@link TextBuilder} that appends pieces of
 * the original string (or short replacements such as a decoded `&amp;`) while recording where each piece
 * came from, and the resulting {@link ExtractedText}.
 *
 * The offset map is run-length encoded: one segment per copied run (extracted `[o, o + n)` ↔ original
 * `[s, s + n)`) and one per replacement (every unit maps to the start of its source span, which maps whole).
 * Prose inside markup is mostly long copied runs, so the map costs 12 bytes per run instead of 4 bytes per
 * character; lookups are a binary search over the runs.
 */

import { type DecodingMode, HtmlEntityDecoder } from 'entities';
import { withRoom } from '../util/grow.js';
import { isSpace } from '../util/space.js';

/**
 * How `content` is to be read.
 *
 * @example
 * const type: ContentType = 'markdown'
 */
export type ContentType = 'text' | 'markdown' | 'html';

/**
 * Extracted text plus its offset map into the original content (UTF-16 code units throughout).
 *
 * @example
 * const x: ExtractedText = extractText('**bold** move', 'markdown')
 * x.text                  // 'bold move'
 * x.mapSpan(0, 4)         // [2, 6]
 * x.toOriginal(x.text.length) // 13
 */
export interface ExtractedText {
  /** The readable text. */
  readonly text: string;
  readonly type: ContentType;
  /**
   * UTF-16 offset in the original of extracted offset `i` (`0 ≤ i ≤ text.length`; `text.length` maps to the
   * end of the last source character used). Out-of-range and fractional `i` are clamped and floored.
   */
  toOriginal(i: number): number;
  /**
   * Span `[start, end)` of the extracted text → span in the original: `start → toOriginal(start)`, `end →`
   * the end of the source of unit `end - 1` (so an entity `&amp;` or a decoded surrogate pair maps whole).
   * An empty span maps to an empty span.
   */
  mapSpan(start: number, end: number): [number, number];
}

/**
 * An extraction as plain data (strings and typed arrays only), so it can cross a thread by structured
 * clone and be rebuilt with {@link fromParts}: the same text and the same offset map.
 *
 * @example
 * const parts = toParts(extractText('<p>a &amp; b</p>', 'html'))
 * fromParts(parts).mapSpan(2, 3) // [5, 10] — '&amp;'
 */
export interface ExtractedParts {
  readonly text: string;
  readonly type: ContentType;
  /** The run-length offset map; `null` for plain text (the identity). */
  readonly map: { readonly out: Int32Array; readonly orig: Int32Array; readonly srcLen: Int32Array } | null;
}

/**
 * The plain-data form of an extraction (see {@link ExtractedParts}).
 * @example toParts(extractText('plain', 'text')).map // null
 */
export function toParts(x: ExtractedText): ExtractedParts {
  if (x instanceof MappedText) return { text: x.text, type: x.type, map: x.parts() };
  return { text: x.text, type: 'text', map: null };
}

/**
 * Rebuilds an extraction from {@link toParts}'s plain data.
 * @example fromParts({ text: 'abc', type: 'text', map: null }).mapSpan(1, 2) // [1, 2]
 */
export function fromParts(p: ExtractedParts): ExtractedText {
  if (p.map === null) return new PlainText(p.text);
  return new MappedText(p.text, p.type, p.map.out, p.map.orig, p.map.srcLen);
}

/** `srcLen` value marking a copied run (stride 1) rather than a replacement. */
const COPY = -1;

/**
 * Appends extracted text and its offset map, in original order (offsets must never go backwards).
 *
 * Separators (the newline for a closed `<p>`, the space for a table pipe) are *requested*, not written:
 * one is written only when the next non-whitespace text arrives and the text so far does not already end
 * in whitespace, so adjacent blocks never glue words together and no separator is written twice.
 *
 * @example
 * const b = new TextBuilder('a&amp;b')
 * b.copy(0, 1); b.replace('&', 1, 5); b.copy(6, 7)
 * b.finish('html').text // 'a&b'
 */
export class TextBuilder {
  private parts: string[] = [];
  private length = 0;
  private out = new Int32Array(64);
  private orig = new Int32Array(64);
  private srcLen = new Int32Array(64);
  private n = 0;
  /** True when nothing has been written yet or the last unit written is whitespace. */
  private lastSpace = true;
  private sepChar = '';
  private sepOrig = 0;
  private sepLen = 0;

  constructor(readonly source: string) {}

  /** Appends `source.slice(from, to)` unchanged. */
  copy(from: number, to: number): void {
    if (from >= to) return;
    const src = this.source;
    if (this.sepChar !== '') this.flushSeparator(src.charCodeAt(from));
    const k = this.n - 1;
    // Merge with the previous run when the original is contiguous (text split only by a dropped `<b>` etc. is not).
    if (!(k >= 0 && this.srcLen[k] === COPY && this.orig[k] + (this.length - this.out[k]) === from)) {
      this.segment(this.length, from, COPY);
    }
    this.parts.push(src.slice(from, to));
    this.length += to - from;
    this.lastSpace = isSpace(src.charCodeAt(to - 1));
  }

  /** Appends `text` (e.g. a decoded entity) standing for the whole original span `[orig, orig + len)`. */
  replace(text: string, orig: number, len: number): void {
    if (text.length === 0) return;
    if (this.sepChar !== '') this.flushSeparator(text.charCodeAt(0));
    this.segment(this.length, orig, len);
    this.parts.push(text);
    this.length += text.length;
    this.lastSpace = isSpace(text.charCodeAt(text.length - 1));
  }

  /**
   * Requests a separator `char` standing for the original span `[orig, orig + len)` (the markup that causes
   * it). Only the first request since the last written text counts, except that a newline overrides a
   * pending tab or space (`</td></tr><tr>` ends a row, not a cell).
   */
  separate(char: string, orig: number, len: number): void {
    if (this.lastSpace) return;
    if (this.sepChar !== '' && (this.sepChar === '\n' || char !== '\n')) return;
    this.sepChar = char;
    this.sepOrig = orig;
    this.sepLen = len;
  }

  /** Builds the result; the builder must not be used afterwards. */
  finish(type: ContentType): ExtractedText {
    const n = this.n;
    return new MappedText(
      this.parts.join(''),
      type,
      this.out.slice(0, n),
      this.orig.slice(0, n),
      this.srcLen.slice(0, n),
    );
  }

  private flushSeparator(next: number): void {
    const char = this.sepChar;
    this.sepChar = '';
    if (isSpace(next)) return;
    this.segment(this.length, this.sepOrig, this.sepLen);
    this.parts.push(char);
    this.length += 1;
  }

  private segment(out: number, orig: number, srcLen: number): void {
    const k = this.n;
    this.out = withRoom(this.out, k + 1);
    this.orig = withRoom(this.orig, k + 1);
    this.srcLen = withRoom(this.srcLen, k + 1);
    this.out[k] = out;
    this.orig[k] = orig;
    this.srcLen[k] = srcLen;
    this.n = k + 1;
  }
}

/** Clamps a caller's index to an integer in `[0, n]` (NaN → 0); never throws. */
function clampIndex(i: number, n: number): number {
  if (!(i > 0)) return 0;
  return i >= n ? n : Math.floor(i);
}

/** The result of an HTML or Markdown extraction: text plus its run-length offset map. */
class MappedText implements ExtractedText {
  constructor(
    readonly text: string,
    readonly type: ContentType,
    private readonly out: Int32Array,
    private readonly orig: Int32Array,
    private readonly srcLen: Int32Array,
  ) {}

  /** The offset map's columns (shared, not copied: the caller must not write to them). */
  parts(): { out: Int32Array; orig: Int32Array; srcLen: Int32Array } {
    return { out: this.out, orig: this.orig, srcLen: this.srcLen };
  }

  toOriginal(i: number): number {
    const n = this.text.length;
    if (n === 0) return 0;
    const j = clampIndex(i, n);
    if (j === n) return this.endOf(n - 1);
    const k = this.segmentAt(j);
    return this.srcLen[k] === COPY ? this.orig[k] + j - this.out[k] : this.orig[k];
  }

  mapSpan(start: number, end: number): [number, number] {
    const n = this.text.length;
    const s = clampIndex(start, n);
    const e = clampIndex(end, n);
    const from = this.toOriginal(s);
    return e <= s ? [from, from] : [from, this.endOf(e - 1)];
  }

  /** Original offset just after the source of extracted unit `i` (`0 ≤ i < text.length`). */
  private endOf(i: number): number {
    const k = this.segmentAt(i);
    const len = this.srcLen[k];
    return len === COPY ? this.orig[k] + i - this.out[k] + 1 : this.orig[k] + len;
  }

  /** Index of the last segment starting at or before extracted offset `i`. */
  private segmentAt(i: number): number {
    const out = this.out;
    let lo = 0;
    let hi = out.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (out[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * The identity extraction for plain text: no copy, `toOriginal(i) = i`.
 *
 * @example
 * new PlainText('abc').mapSpan(1, 2) // [1, 2]
 */
export class PlainText implements ExtractedText {
  readonly type = 'text' as const;
  constructor(readonly text: string) {}
  toOriginal(i: number): number {
    return clampIndex(i, this.text.length);
  }
  mapSpan(start: number, end: number): [number, number] {
    const n = this.text.length;
    const s = clampIndex(start, n);
    const e = clampIndex(end, n);
    return [s, Math.max(e, s)];
  }
}

/**
 * Where a local string (a Markdown paragraph with its `>` markers removed, an HTML block cut out of a
 * Markdown file) sits in the builder's source, so extractors can work on small strings and still copy
 * exact original spans. Working on small strings matters: a failing `indexOf` in a local string stops at
 * its end instead of scanning the rest of a 10 MB document once per paragraph.
 *
 * @example
 * const map: SourceMap = new OffsetMap(100)
 * map.origin(5) // 105
 */
export interface SourceMap {
  /** Copies local `[from, to)` into `b`. */
  copy(b: TextBuilder, from: number, to: number): void;
  /** The source offset of local offset `p`. */
  origin(p: number): number;
}

/**
 * A local string that is the source slice starting at `base`.
 *
 * @example
 * new OffsetMap(10).origin(2) // 12
 */
export class OffsetMap implements SourceMap {
  constructor(private readonly base: number) {}
  copy(b: TextBuilder, from: number, to: number): void {
    b.copy(this.base + from, this.base + to);
  }
  origin(p: number): number {
    return this.base + p;
  }
}

/**
 * A local string that concatenates source spans `[starts[k], ends[k])`.
 *
 * @example
 * const m = new SpanMap([0, 10], [3, 12]) // local 'abc' + 'xy' = source [0,3) + [10,12)
 * m.origin(4) // 11
 */
export class SpanMap implements SourceMap {
  /** Local offset where each span starts (plus the total length at the end). */
  private readonly local: Int32Array;
  constructor(
    private readonly starts: readonly number[],
    ends: readonly number[],
  ) {
    const local = new Int32Array(starts.length + 1);
    for (let k = 0; k < starts.length; k++) local[k + 1] = local[k] + (ends[k] - starts[k]);
    this.local = local;
  }
  copy(b: TextBuilder, from: number, to: number): void {
    const local = this.local;
    for (let k = this.spanAt(from); from < to; k++) {
      const stop = Math.min(to, local[k + 1]);
      b.copy(this.starts[k] + from - local[k], this.starts[k] + stop - local[k]);
      from = stop;
    }
  }
  origin(p: number): number {
    const k = this.spanAt(p);
    return this.starts[k] + p - this.local[k];
  }
  private spanAt(p: number): number {
    const local = this.local;
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (local[mid] <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * The next occurrence of `needle` at or after a position, memoised: a later query that starts between the
 * last query and its answer reuses the answer. Scanners query left to right, so all searches for one needle
 * cost one pass over the string — this is what keeps inputs like a megabyte of `<a "` linear.
 *
 * @example
 * const gt = new NextIndex('a>b>', '>')
 * gt.find(0) // 1
 * gt.find(2) // 3
 */
export class NextIndex {
  private from = -1;
  private at = -1;
  constructor(
    private readonly s: string,
    private readonly needle: string,
  ) {}
  find(p: number): number {
    if (this.from >= 0 && p >= this.from && (this.at < 0 || p <= this.at)) return this.at;
    this.from = p;
    this.at = this.s.indexOf(this.needle, p);
    return this.at;
  }
}

let decoded = '';
const decoder = new HtmlEntityDecoder((cp) => {
  decoded += cp > 0xffff ? String.fromCodePoint(cp) : String.fromCharCode(cp);
});

/**
 * Decodes the character reference starting at `s[amp] === '&'` with the HTML5 rules of `mode` (Legacy:
 * text, where `&copy` without `;` is a reference; Attribute; Strict: CommonMark). Returns the number of
 * source units consumed, including the `&` (0 when there is no reference); the text is in {@link lastDecoded}.
 *
 * @example
 * decodeEntityAt('a &amp; b', 2, DecodingMode.Legacy) // 5, lastDecoded() === '&'
 */
export function decodeEntityAt(s: string, amp: number, mode: DecodingMode): number {
  decoded = '';
  decoder.startEntity(mode);
  let consumed = decoder.write(s, amp + 1);
  if (consumed < 0) consumed = decoder.end();
  return consumed > 0 && decoded !== '' ? consumed : 0;
}

/**
 * The replacement text of the last successful {@link decodeEntityAt}.
 *
 * @example
 * if (decodeEntityAt('&#x1F600;', 0, DecodingMode.Strict) > 0) lastDecoded() // '😀'
 */
export function lastDecoded(): string {
  return decoded;
}

/**
 * Appends local `s[from, to)` through `map`, decoding character references (each maps to its whole source
 * span, so `&#x1F600;` → a surrogate pair standing for all nine units). Pass `amps` (a memoised search
 * for `&` in `s`) when many ranges of one long string are emitted in order; without it the range is scanned.
 *
 * @example
 * const b = new TextBuilder('x &lt; y')
 * emitWithEntities(b, new OffsetMap(0), 'x &lt; y', 0, 8, DecodingMode.Legacy)
 * b.finish('html').text // 'x < y'
 */
export function emitWithEntities(
  b: TextBuilder,
  map: SourceMap,
  s: string,
  from: number,
  to: number,
  mode: DecodingMode,
  amps?: NextIndex,
): void {
  let p = from;
  while (p < to) {
    const amp = amps ? amps.find(p) : indexInRange(s, 0x26, p, to);
    if (amp < 0 || amp >= to) break;
    const consumed = decodeEntityAt(s, amp, mode);
    if (consumed > 0 && amp + consumed <= to) {
      map.copy(b, p, amp);
      b.replace(decoded, map.origin(amp), consumed);
      p = amp + consumed;
    } else {
      map.copy(b, p, amp + 1);
      p = amp + 1;
    }
  }
  map.copy(b, p, to);
}

/** First `s[i] === code` with `from ≤ i < to`, or -1 (unlike `indexOf`, never looks past `to`). */
function indexInRange(s: string, code: number, from: number, to: number): number {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === code) return i;
  return -1;
}

export { isSpace };

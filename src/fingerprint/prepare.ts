/**
 * Prepare a text for the word tokenizer in the core without normalising all of it in JS.
 *
 * The core tokenises ASCII itself (tokens [A-Za-z0-9]+, case folded while hashing). Only the
 * *regions* around non-ASCII characters need the Unicode normaliser: a region is extended in
 * both directions to the nearest ASCII non-alphanumeric character (or the text's ends), so every
 * token that contains — or could be joined or changed by — a non-ASCII character lies inside it
 * (combining marks, ignorables such as U+00AD, compatibility forms). The region also takes the
 * one ASCII separator before it, because NFC can compose it with a following mark
 * ('=' + U+0338 → '≠', which is a symbol, not a letter). No canonical composition has an ASCII
 * second character, so the right edge needs no such care. Each region is replaced by its
 * normalised form ("tok tok") padded with a space on each side, ASCII stretches are kept as they
 * are, and the token stream of the result equals the token stream of `normalize(text)` exactly
 * (property-tested).
 *
 * Real English text with a few curly quotes or accented names therefore stays on the fast path.
 */
import { normalize } from './normalize.js';

/** A stretch of the prepared text and where it came from. */
interface Segment {
  /** Start in the prepared text. */
  readonly src: number;
  /** Start in the original text. */
  readonly orig: number;
  /** Offset map of a normalised region (relative to `orig`), or null for a verbatim ASCII stretch. */
  readonly map: Uint32Array | null;
}

/** The prepared text and its segment table (null when the text is pure ASCII). */
export interface Prepared {
  readonly text: string;
  readonly segments: readonly Segment[] | null;
}

const NON_ASCII = /[^\x00-\x7f]/g;

/**
 * Common non-ASCII characters that act exactly like an ASCII separator when an ASCII character
 * (or the end) follows them: their NFKC_Casefold is non-empty and has no token character, they
 * have combining class 0 and are no canonical composition's second character, so they neither
 * change their predecessor nor are changed by an ASCII successor (test/unit/prepare.test.ts checks
 * every one against the tables). Real English is full of them — no-break spaces, curly quotes,
 * dashes, bullets, C1 controls from mis-decoded cp1252 — and replacing each by one ASCII space
 * (same UTF-16 length, so offsets do not move) keeps such text on the fast path.
 */
export const INERT_SEPARATORS = '\u0080-\u00a7\u00a9\u00ab\u00ac\u00ae\u00b0\u00b1\u00b6\u00b7\u00bb\u00bf\u00d7\u00f7'
  + '\u2000-\u200a\u2010-\u2016\u2018-\u2027\u202f-\u2032\u2035\u2039\u203a\u2212\u3000-\u3003\u300c-\u300f';
const INERT_BEFORE_ASCII = new RegExp(`[${INERT_SEPARATORS}](?=[\\x00-\\x7f]|$)`, 'g');

function isAsciiAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** True for characters that belong to a region: non-ASCII or ASCII alphanumeric. */
function inRegion(c: number): boolean {
  return c >= 0x80 || isAsciiAlnum(c);
}

/** Prepare `text` (well-formed) for the core's word tokenizer. */
export function prepareWords(text: string): Prepared {
  NON_ASCII.lastIndex = 0;
  if (NON_ASCII.test(text)) text = text.replace(INERT_BEFORE_ASCII, ' ');
  NON_ASCII.lastIndex = 0;
  let m = NON_ASCII.exec(text);
  if (!m) return { text, segments: null };
  const parts: string[] = [];
  const segments: Segment[] = [];
  let srcLen = 0;
  let copied = 0; // original index up to which text has been emitted
  while (m) {
    let start = m.index;
    while (start > copied && inRegion(text.charCodeAt(start - 1))) start--;
    let end = m.index + 1;
    while (end < text.length && inRegion(text.charCodeAt(end))) end++;
    if (start > copied) start--; // the separator before the region (see the file comment)
    if (start > copied) {
      segments.push({ src: srcLen, orig: copied, map: null });
      parts.push(text.slice(copied, start));
      srcLen += start - copied;
    }
    const n = normalize(text.slice(start, end));
    // Pad with spaces so the region's first and last tokens never merge with ASCII neighbours.
    segments.push({ src: srcLen + 1, orig: start, map: n.map });
    parts.push(' ', n.text, ' ');
    srcLen += n.text.length + 2;
    copied = end;
    NON_ASCII.lastIndex = end;
    m = NON_ASCII.exec(text);
  }
  if (copied < text.length) {
    segments.push({ src: srcLen, orig: copied, map: null });
    parts.push(text.slice(copied));
  }
  return { text: parts.join(''), segments };
}

/**
 * Map offsets in the prepared text back to the original, in place. `starts` and `ends` are the
 * token (or shingle) boundaries the core reported, each non-decreasing.
 */
export function mapOffsets(p: Prepared, starts: Uint32Array, ends: Uint32Array): void {
  const seg = p.segments;
  if (!seg) return;
  // Starts belong to the last segment beginning at or before them; ends to the last segment
  // beginning strictly before them (a token ending at a boundary ended in the earlier segment).
  const toOrig = (x: number, s: Segment): number => (s.map ? s.orig + s.map[x - s.src] : s.orig + (x - s.src));
  let k = 0;
  for (let i = 0; i < starts.length; i++) {
    const x = starts[i];
    while (k + 1 < seg.length && seg[k + 1].src <= x) k++;
    starts[i] = toOrig(x, seg[k]);
  }
  k = 0;
  for (let i = 0; i < ends.length; i++) {
    const x = ends[i];
    while (k + 1 < seg.length && seg[k + 1].src < x) k++;
    ends[i] = toOrig(x, seg[k]);
  }
}

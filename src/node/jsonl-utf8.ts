/**
 * A JSON Lines line of the plain shape `{"id": …, "text": "…"}` read without a string for its text: the text's JSON
 * string unescaped straight into UTF-8 (RFC 8259 §7: the escapes `\" \\ \/ \b \f \n \r \t \uXXXX`, a code point
 * beyond the Basic Multilingual Plane as a surrogate pair), as `JSON.parse` and a UTF-8 encoder would give it. For a
 * file scan, whose outputs are hashed from their bytes and mostly never read as strings (a decode, a parse and an
 * encode each otherwise). Whatever this reader is not sure of — another shape, members in other spellings, a lone
 * surrogate escape, a byte that is not well-formed UTF-8, a control character, an id that is no plain string or
 * integer — it leaves to the general path (`parseJsonlLine`), which reads it or names its fault as before.
 */
import { Utf8Text } from '../library.js';

/** Bytes of a block that the texts of lines are unescaped into (a fresh one when full: the texts keep theirs). */
const BLOCK_BYTES = 256 << 10;
/** Longest id read here (bytes; a longer one takes the general path). */
const MAX_ID_BYTES = 1024;
/** Most digits of an integer id read here: 15 keep it within Number.MAX_SAFE_INTEGER. */
const MAX_ID_DIGITS = 15;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A line's document as {@link PlainJsonlReader.document} reads it. */
export interface Utf8Document {
  readonly id: string;
  readonly text: Utf8Text;
}

/**
 * Reads lines of the plain shape (see the module comment), one at a time, each text's bytes carved from a shared
 * block.
 * @example new PlainJsonlReader('id', 'text').document(new TextEncoder().encode('{"id":"a","text":"b\\nc"}'))?.text.text // 'b\nc'
 */
export class PlainJsonlReader {
  readonly #id: Uint8Array;
  readonly #text: Uint8Array;
  #block = new Uint8Array(0);
  #at = 0;
  #line: Uint8Array = new Uint8Array(0);
  #i = 0;

  /** Fields named by plain ASCII (no quote, backslash or control character); else {@link document} reads nothing. */
  constructor(idField: string, textField: string) {
    this.#id = plainKey(idField);
    this.#text = plainKey(textField);
  }

  /** The line's id and text (the line without its \n), or null: the general path reads it. */
  document(line: Uint8Array): Utf8Document | null {
    if (this.#id.length === 0 || this.#text.length === 0) return null;
    this.#line = line;
    this.#i = 0;
    const at = this.#at;
    const doc = this.#members();
    if (doc === null) this.#at = at; // what a refused line's text took is free again
    return doc;
  }

  #members(): Utf8Document | null {
    if (!this.#expect(0x7b)) return null;
    let id: string | null = null;
    let text: Utf8Text | null = null;
    for (let m = 0; m < 2; m++) {
      if (m === 1 && !this.#expect(0x2c)) return null;
      this.#space();
      if (id === null && this.#key(this.#id)) {
        if (!this.#expect(0x3a)) return null;
        this.#space();
        id = this.#idValue();
        if (id === null) return null;
      } else if (text === null && this.#key(this.#text)) {
        if (!this.#expect(0x3a)) return null;
        this.#space();
        text = this.#textValue();
        if (text === null) return null;
      } else return null;
    }
    if (!this.#expect(0x7d)) return null;
    this.#space();
    return this.#i === this.#line.length && id !== null && text !== null ? { id, text } : null;
  }

  /** White space as JSON has it (a line holds no \n). */
  #space(): void {
    const line = this.#line;
    let i = this.#i;
    while (i < line.length && (line[i] === 0x20 || line[i] === 0x09 || line[i] === 0x0d || line[i] === 0x0a)) i++;
    this.#i = i;
  }

  /** `byte` after white space, stepped over. */
  #expect(byte: number): boolean {
    this.#space();
    if (this.#line[this.#i] !== byte) return false;
    this.#i++;
    return true;
  }

  /** Whether the quoted key `key` is next, stepped over when it is. */
  #key(key: Uint8Array): boolean {
    const line = this.#line;
    const i = this.#i;
    if (i + key.length + 2 > line.length || line[i] !== QUOTE || line[i + key.length + 1] !== QUOTE) return false;
    for (let k = 0; k < key.length; k++) if (line[i + 1 + k] !== key[k]) return false;
    this.#i = i + key.length + 2;
    return true;
  }

  /** A non-empty string of printable ASCII without escapes, or an integer in its plain spelling; else null. */
  #idValue(): string | null {
    const line = this.#line;
    let i = this.#i;
    if (line[i] === QUOTE) {
      const from = ++i;
      while (i < line.length && line[i] !== QUOTE) {
        if (line[i] < 0x20 || line[i] >= 0x80 || line[i] === BACKSLASH) return null;
        i++;
      }
      if (i === from || i === line.length || i - from > MAX_ID_BYTES) return null;
      this.#i = i + 1;
      return String.fromCharCode.apply(null, line.subarray(from, i) as unknown as number[]);
    }
    const from = i;
    if (line[i] === 0x2d) i++;
    const digits = i;
    if (line[i] === 0x30) i++;
    else while (i < line.length && line[i] >= 0x30 && line[i] <= 0x39) i++;
    // a fraction or an exponent, a leading zero before more digits, "-0", or too many digits: the general path
    const next = line[i];
    if (i === digits || i - digits > MAX_ID_DIGITS || (line[digits] === 0x30 && (i - from > 1 || isDigit(next))))
      return null;
    if (next === 0x2e || next === 0x65 || next === 0x45) return null;
    this.#i = i;
    return String.fromCharCode.apply(null, line.subarray(from, i) as unknown as number[]);
  }

  /** The string value at the cursor unescaped into the block, or null (see the module comment). */
  #textValue(): Utf8Text | null {
    const line = this.#line;
    if (line[this.#i] !== QUOTE) return null;
    // unescaping never lengthens: an escape of 2–12 bytes gives 1–4, any other byte itself
    const room = line.length - this.#i;
    if (this.#block.length - this.#at < room) {
      this.#block = new Uint8Array(Math.max(BLOCK_BYTES, room));
      this.#at = 0;
    }
    const r = unescapeJsonString(line, this.#i + 1, this.#block, this.#at);
    if (r === null) return null;
    const bytes = this.#block.subarray(this.#at, r.written);
    this.#at = r.written;
    this.#i = r.end;
    return new Utf8Text(bytes, r.units);
  }
}

/** The quoted key's bytes for a plain ASCII field name, else an empty array (no line is read here then). */
function plainKey(name: string): Uint8Array {
  const out = new Uint8Array(name.length);
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 0x20 || c >= 0x7f || c === QUOTE || c === BACKSLASH) return new Uint8Array(0);
    out[k] = c;
  }
  return out;
}

const isDigit = (b: number | undefined): boolean => b !== undefined && b >= 0x30 && b <= 0x39;

/**
 * The JSON string whose bytes start at `from` in `src` (after its opening quote), unescaped as UTF-8 into `out` from
 * `at`: where its closing quote ends (`end`), where the bytes written end (`written`) and its length in UTF-16 units;
 * or null where `JSON.parse` would refuse it (an unknown escape, a control character, no closing quote), where its
 * string would hold a lone surrogate (an escape of one, unpaired), and where its bytes are not well-formed UTF-8
 * (Unicode 15, Table 3-7: what a fatal decoder refuses). `out` needs room for `src.length - from` bytes.
 * @example unescapeJsonString(new TextEncoder().encode('a\\u00e9"'), 0, new Uint8Array(8), 0) // { end: 8, written: 3, units: 2 }
 */
export function unescapeJsonString(
  src: Uint8Array,
  from: number,
  out: Uint8Array,
  at: number,
): { end: number; written: number; units: number } | null {
  let i = from;
  let o = at;
  let units = 0;
  const n = src.length;
  for (;;) {
    if (i >= n) return null;
    const b = src[i];
    if (b === QUOTE) return { end: i + 1, written: o, units };
    if (b >= 0x20 && b < 0x80 && b !== BACKSLASH) {
      out[o++] = b;
      i++;
      units++;
    } else if (b >= 0x80) {
      const len = utf8SequenceLength(src, i);
      if (len === 0) return null;
      for (let k = 0; k < len; k++) out[o++] = src[i + k];
      i += len;
      units += len === 4 ? 2 : 1;
    } else if (b === BACKSLASH) {
      const cp = escapedCodePoint(src, i);
      if (cp < 0) return null;
      i += cp >= 0x10000 ? 12 : src[i + 1] === 0x75 ? 6 : 2;
      o = writeCodePoint(out, o, cp);
      units += cp >= 0x10000 ? 2 : 1;
    } else return null; // a control character
  }
}

/** The code point of the escape at `src[i]` (a backslash), −1 for an invalid escape or a lone surrogate. */
function escapedCodePoint(src: Uint8Array, i: number): number {
  switch (src[i + 1]) {
    case 0x22:
      return 0x22;
    case BACKSLASH:
      return BACKSLASH;
    case 0x2f:
      return 0x2f;
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    case 0x75: {
      const hi = hex4(src, i + 2);
      if (hi < 0xd800 || hi > 0xdfff) return hi; // −1 too: not four hex digits
      if (hi > 0xdbff || src[i + 6] !== BACKSLASH || src[i + 7] !== 0x75) return -1;
      const lo = hex4(src, i + 8);
      if (lo < 0xdc00 || lo > 0xdfff) return -1;
      return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
    }
    default:
      return -1;
  }
}

/** The four hex digits at `src[i]` as a number, −1 if they are not four hex digits. */
function hex4(src: Uint8Array, i: number): number {
  if (i + 4 > src.length) return -1;
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = src[i + k];
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

/** `cp` (no surrogate) as UTF-8 at `out[o]`; where it ends. */
function writeCodePoint(out: Uint8Array, o: number, cp: number): number {
  if (cp < 0x80) out[o++] = cp;
  else if (cp < 0x800) {
    out[o++] = 0xc0 | (cp >> 6);
    out[o++] = 0x80 | (cp & 0x3f);
  } else if (cp < 0x10000) {
    out[o++] = 0xe0 | (cp >> 12);
    out[o++] = 0x80 | ((cp >> 6) & 0x3f);
    out[o++] = 0x80 | (cp & 0x3f);
  } else {
    out[o++] = 0xf0 | (cp >> 18);
    out[o++] = 0x80 | ((cp >> 12) & 0x3f);
    out[o++] = 0x80 | ((cp >> 6) & 0x3f);
    out[o++] = 0x80 | (cp & 0x3f);
  }
  return o;
}

/**
 * The length of the well-formed UTF-8 sequence of 2–4 bytes at `src[i]` (a byte ≥ 0x80), or 0 (Unicode 15, Table
 * 3-7: no overlong form, no surrogate, nothing beyond U+10FFFF).
 */
function utf8SequenceLength(src: Uint8Array, i: number): number {
  const b = src[i];
  const c1 = src[i + 1];
  if (b >= 0xc2 && b <= 0xdf) return isTail(c1) ? 2 : 0;
  let lo = 0x80;
  let hi = 0xbf;
  if (b >= 0xe0 && b <= 0xef) {
    if (b === 0xe0) lo = 0xa0;
    else if (b === 0xed) hi = 0x9f;
    return c1 >= lo && c1 <= hi && isTail(src[i + 2]) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    if (b === 0xf0) lo = 0x90;
    else if (b === 0xf4) hi = 0x8f;
    return c1 >= lo && c1 <= hi && isTail(src[i + 2]) && isTail(src[i + 3]) ? 4 : 0;
  }
  return 0;
}

/** A continuation byte (10xxxxxx); false past the end (undefined). */
const isTail = (b: number | undefined): boolean => b !== undefined && b >= 0x80 && b <= 0xbf;

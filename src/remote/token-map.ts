/**
 * The server's tokens mapped back to character offsets of the caller's text. The engines tokenize a query
 * with the index's own tokenizer and return its token strings (`tokens`) beside the ids; the client never
 * assumes which tokenizer that is. It reads each token string as the bytes it stands for and lays those bytes
 * over the UTF-8 of the text that was sent, so every token gets a UTF-16 span in the caller's string:
 *
 * - SentencePiece spellings (Llama-2): `▁` (U+2581) is a space; `<0xE2>` is one byte (byte fallback for
 *   characters outside the vocabulary, and for newlines);
 * - byte-level BPE spellings (GPT-2, GPT-NeoX, OLMo): every character stands for one byte through GPT-2's
 *   `bytes_to_unicode` table (`Ġ` a space, `Ċ` a newline, `Ã©` the two bytes of `é`);
 * - anything else is its own UTF-8.
 *
 * The servers add a space before a query (SentencePiece's dummy prefix; GPT-2 servers prepend one), so a
 * leading space that the text lacks is taken as virtual. Where a token's bytes do not lie at the cursor (a
 * tokenizer that normalises), the next few bytes are searched; a token found nowhere gets an empty span and
 * counts as unmapped, and the caller leaves such stretches out of its queries.
 */

/** One token of a mapped query: its id and its span in the caller's string. */
export interface MappedTokens {
  readonly ids: Uint32Array;
  /** UTF-16 start of each token in the caller's string (an unmapped token: its neighbour's end). */
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /** Tokens whose bytes were not found in the text (empty spans). */
  readonly unmapped: number;
}

/** How a tokenizer spells bytes: detected from the token strings of one response. */
export type TokenSpelling = 'sentencepiece' | 'byte-level' | 'plain';

/** GPT-2's `bytes_to_unicode`: the printable bytes map to themselves, the others to U+0100 onwards. */
const BYTE_OF_CHAR: ReadonlyMap<number, number> = (() => {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const map = new Map<number, number>();
  for (const b of printable) map.set(b, b);
  let next = 0;
  for (let b = 0; b < 256; b++) if (!map.has(b)) map.set(0x100 + next++, b);
  return map;
})();

const BYTE_TOKEN = /^<0x([0-9A-Fa-f]{2})>$/;
const SPIECE_SPACE = '\u2581';

/**
 * The spelling of a tokenizer from its token strings: SentencePiece when a token holds `▁` or is a byte token
 * `<0xNN>`; byte-level when every character of every token is in GPT-2's byte alphabet and some token uses its
 * remapped characters (`Ġ`, `Ċ`, …); plain otherwise (ASCII tokens read the same either way).
 * @example tokenSpelling(['▁University', '▁of']) // 'sentencepiece'
 */
export function tokenSpelling(tokens: readonly string[]): TokenSpelling {
  let remapped = false;
  for (const t of tokens) {
    if (t.includes(SPIECE_SPACE) || BYTE_TOKEN.test(t)) return 'sentencepiece';
  }
  for (const t of tokens) {
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (!BYTE_OF_CHAR.has(c)) return 'plain';
      if (c >= 0x100) remapped = true;
    }
  }
  return remapped ? 'byte-level' : 'plain';
}

const encoder = new TextEncoder();

/**
 * The bytes a token string stands for under `spelling`.
 * @example tokenBytes('▁of', 'sentencepiece') // Uint8Array [0x20, 0x6f, 0x66]
 */
export function tokenBytes(token: string, spelling: TokenSpelling): Uint8Array {
  // every answer spells its tokens again: a 100,000-word work searched in seven corpora maps some 200,000 tokens of a
  // vocabulary of tens of thousands, and a TextEncoder call for each was a third of the client's CPU (the bytes are
  // only read, never written, so one array serves every answer)
  const memo = TOKEN_BYTES[spelling];
  const known = memo.get(token);
  if (known) return known;
  if (memo.size >= TOKEN_BYTES_MAX) memo.clear();
  const bytes = spelledBytes(token, spelling);
  memo.set(token, bytes);
  return bytes;
}

/** Token strings remembered per spelling (a vocabulary's size or so; cleared when full). */
const TOKEN_BYTES_MAX = 65_536;
const TOKEN_BYTES: Record<TokenSpelling, Map<string, Uint8Array>> = {
  sentencepiece: new Map(),
  'byte-level': new Map(),
  plain: new Map(),
};

function spelledBytes(token: string, spelling: TokenSpelling): Uint8Array {
  if (spelling === 'sentencepiece') {
    const byte = BYTE_TOKEN.exec(token);
    if (byte) return Uint8Array.of(parseInt(byte[1], 16));
    return encoder.encode(token.replaceAll(SPIECE_SPACE, ' '));
  }
  if (spelling === 'byte-level') {
    const out = new Uint8Array(token.length);
    for (let i = 0; i < token.length; i++) out[i] = BYTE_OF_CHAR.get(token.charCodeAt(i)) ?? 0x3f;
    return out;
  }
  return encoder.encode(token);
}

/** Bytes searched ahead of the cursor for a token that is not where it was expected. */
const RESYNC_REACH = 48;

/**
 * Map a response's tokens onto `text` (the exact string that was sent), starting at `offset` in the caller's
 * string. Returns spans in the caller's string; tokens are kept in the server's order.
 * @example
 * const m = mapTokens('University of Washington', 0, [3014, 310, 7660], ['▁University', '▁of', '▁Washington'])
 * [m.starts[2], m.ends[2]] // [13, 24]: ' Washington', the token's space included
 */
export function mapTokens(
  text: string,
  offset: number,
  ids: readonly number[],
  tokens: readonly string[],
  spelling: TokenSpelling = tokenSpelling(tokens),
): MappedTokens {
  const { bytes, unitAt } = utf8WithOffsets(text);
  const n = Math.min(ids.length, tokens.length);
  const starts = new Uint32Array(n),
    ends = new Uint32Array(n);
  let cursor = 0,
    unmapped = 0;
  for (let k = 0; k < n; k++) {
    let t = tokenBytes(tokens[k], spelling);
    // a leading space the text does not have here: the server's dummy prefix or prepended space
    if (t.length > 0 && t[0] === 0x20 && bytes[cursor] !== 0x20) t = t.subarray(1);
    let at = t.length === 0 ? cursor : findBytes(bytes, t, cursor, RESYNC_REACH);
    if (at < 0 && t.length > 1 && t[0] === 0x20) {
      const rest = t.subarray(1); // a space the text lacks inside the reach
      const again = findBytes(bytes, rest, cursor, RESYNC_REACH);
      if (again >= 0) {
        t = rest;
        at = again;
      }
    }
    if (at < 0) {
      unmapped++;
      starts[k] = ends[k] = offset + unitAt(cursor);
      continue;
    }
    cursor = at + t.length;
    starts[k] = offset + unitAt(at);
    ends[k] = offset + unitAtEnd(bytes, unitAt, cursor);
  }
  return { ids: Uint32Array.from(ids.slice(0, n)), starts, ends, unmapped };
}

/** The first position ≥ `from` and ≤ `from + reach` where `needle` lies in `hay`, or −1. */
function findBytes(hay: Uint8Array, needle: Uint8Array, from: number, reach: number): number {
  const last = Math.min(from + reach, hay.length - needle.length);
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * The UTF-8 bytes of a string and the UTF-16 unit at which each byte's character starts (a byte inside a
 * character maps to that character's start). Lone surrogates are U+FFFD, as TextEncoder writes them.
 */
export function utf8WithOffsets(text: string): { bytes: Uint8Array; unitAt: (byte: number) => number } {
  const bytes = encoder.encode(text);
  const units = new Uint32Array(bytes.length + 1);
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let len: number,
      width = 1;
    if (c < 0x80) len = 1;
    else if (c < 0x800) len = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      len = 4;
      width = 2;
    } else len = 3;
    for (let j = 0; j < len; j++) units[b + j] = i;
    b += len;
    i += width - 1;
  }
  units[bytes.length] = text.length;
  return { bytes, unitAt: (byte) => units[Math.max(0, Math.min(byte, bytes.length))] };
}

/**
 * The UTF-16 end of a span ending at byte `end`: the end of the character holding byte `end − 1` (a token that
 * ends inside a multi-byte character takes the whole character).
 */
function unitAtEnd(bytes: Uint8Array, unitAt: (byte: number) => number, end: number): number {
  if (end >= bytes.length) return unitAt(bytes.length);
  // a continuation byte at `end`: the character runs on past the token
  let e = end;
  while (e < bytes.length && (bytes[e] & 0xc0) === 0x80) e++;
  return unitAt(e);
}

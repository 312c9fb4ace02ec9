// Whitespace-separated words counted on UTF-8: a scan's test of whether an item holds enough words to be searched,
// run on the bytes the tokenizer is about to read instead of a regular expression over the string.

// @ts-ignore: decorator
@inline function asciiSpace(b: u32): bool {
  return b == 0x20 || (b >= 0x09 && b <= 0x0d);
}

// Whether the character whose lead byte `b` is at `p` is one of JavaScript's non-ASCII `\s`: U+00A0 (C2 A0),
// U+1680 (E1 9A 80), U+2000–U+200A (E2 80 80–8A), U+2028 and U+2029 (E2 80 A8, A9), U+202F (E2 80 AF),
// U+205F (E2 81 9F), U+3000 (E3 80 80), U+FEFF (EF BB BF).
// @ts-ignore: decorator
@inline function unicodeSpace(p: usize, b: u32, end: usize): bool {
  if (b == 0xc2) return p + 1 < end && <u32>load<u8>(p, 1) == 0xa0;
  if (b < 0xe1 || p + 2 >= end) return false;
  const b1 = <u32>load<u8>(p, 1);
  const b2 = <u32>load<u8>(p, 2);
  if (b == 0xe2) return (b1 == 0x80 && (b2 <= 0x8a || b2 == 0xa8 || b2 == 0xa9 || b2 == 0xaf)) || (b1 == 0x81 && b2 == 0x9f);
  if (b == 0xe1) return b1 == 0x9a && b2 == 0x80;
  if (b == 0xe3) return b1 == 0x80 && b2 == 0x80;
  if (b == 0xef) return b1 == 0xbb && b2 == 0xbf;
  return false;
}

/**
 * The words of the `len` bytes of well-formed UTF-8 at `p`, counted up to `n`: runs of characters outside
 * JavaScript's `\s` (what `/\s+/` splits on), so that `wordsAtLeast(p, len, n) == n` exactly when the string holds
 * at least `n` such words. It stops at the n-th word's first byte.
 */
export function wordsAtLeast(p: usize, len: usize, n: u32): u32 {
  let words: u32 = 0;
  let space = true;
  const end = p + len;
  for (; p < end && words < n; p++) {
    const b = <u32>load<u8>(p);
    if (b >= 0x80 && b < 0xc0) continue; // a continuation byte: its character was read at its lead byte
    if (b < 0x80 ? asciiSpace(b) : unicodeSpace(p, b, end)) space = true;
    else {
      if (space) words++;
      space = false;
    }
  }
  return words;
}

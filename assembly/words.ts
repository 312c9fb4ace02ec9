// Whitespace-separated words counted on UTF-8: a scan's test of whether an item holds enough words to be searched,
// run on the bytes the tokenizer is about to read instead of a regular expression over the string. Byte by byte it
// was no faster than the regular expression (about 5 ns a byte on a 2-vCPU guest); eight ASCII bytes at a time, about
// 1 ns: 0.03 s per 100 MB of a scan's items against the expression's 0.13–0.18 s.

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

// Eight ASCII bytes at a time (SWAR, on u64 lanes of bytes < 0x80, so no lane carries or borrows into the next):
// 0x80 in each lane of a space (0x20, or 0x09–0x0d).
// @ts-ignore: decorator
@inline function asciiSpaces(x: u64): u64 {
  const t = x ^ 0x2020202020202020;
  const notSpace20 = ((t & 0x7f7f7f7f7f7f7f7f) + 0x7f7f7f7f7f7f7f7f) | t; // 0x80 where the byte is not 0x20
  const hi = x | 0x8080808080808080;
  const from9 = hi - 0x0909090909090909; // 0x80 where the byte is ≥ 0x09
  const from14 = hi - 0x0e0e0e0e0e0e0e0e; // 0x80 where the byte is ≥ 0x0e
  return (~notSpace20 | (from9 & ~from14)) & 0x8080808080808080;
}

/**
 * The words of the `len` bytes of well-formed UTF-8 at `p`, counted up to `n`: runs of characters outside
 * JavaScript's `\s` (what `/\s+/` splits on), so that `wordsAtLeast(p, len, n) == n` exactly when the string holds
 * at least `n` such words. It stops within eight bytes of the n-th word's first byte.
 */
export function wordsAtLeast(p: usize, len: usize, n: u32): u32 {
  let words: u32 = 0;
  let space = true; // whether the byte before p ends white space (or p is the start)
  const end = p + len;
  while (p < end && words < n) {
    if (p + 8 <= end) {
      const x = load<u64>(p);
      if ((x & 0x8080808080808080) == 0) {
        // a word starts at a byte outside white space whose previous byte is white space
        const spaces = asciiSpaces(x);
        const before = (spaces << 8) | (space ? <u64>0x80 : 0);
        words += <u32>popcnt(~spaces & before & 0x8080808080808080);
        space = (spaces >> 63) != 0;
        p += 8;
        continue;
      }
    }
    const b = <u32>load<u8>(p);
    p++;
    if (b >= 0x80 && b < 0xc0) continue; // a continuation byte: its character was read at its lead byte
    if (b < 0x80 ? asciiSpace(b) : unicodeSpace(p - 1, b, end)) space = true;
    else {
      if (space) words++;
      space = false;
    }
  }
  return words < n ? words : n;
}

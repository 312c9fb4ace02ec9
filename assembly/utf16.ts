// UTF-16 → UTF-8, as TextEncoder.encodeInto writes it (WHATWG Encoding, "UTF-8 encode": a lone surrogate becomes
// U+FFFD, EF BF BD).
//
// On Node, encodeInto encodes a string one code unit at a time (about 1 ns a unit); Buffer#write with 'utf16le'
// copies the units as they lie. So the host copies a long string's units into the core a chunk at a time, into one
// buffer that stays in cache, and this writes their UTF-8 where the text's bytes go (src/core/abi.ts, writeUtf8):
// 16 ASCII units a step. A chunk never ends between the two halves of a pair (the host cuts before a high surrogate).

// @ts-ignore: decorator
@inline function put3(d: usize, c: u32): void {
  store<u8>(d, <u8>(0xE0 | (c >> 12)));
  store<u8>(d, <u8>(0x80 | ((c >> 6) & 0x3F)), 1);
  store<u8>(d, <u8>(0x80 | (c & 0x3F)), 2);
}

/** The code unit after the last one {@link encodeUnits} encoded (a pair may end one unit past its `stop`). */
let after: usize = 0;

/**
 * Encode code units [i, stop) of the `units` at `src` at `d`, one code point at a time; returns where the output ends
 * and leaves the next unit in `after`. For the stretches the block loops leave: the units near a non-ASCII one, and
 * the tail.
 */
function encodeUnits(src: usize, i: usize, stop: usize, units: usize, d: usize): usize {
  while (i < stop) {
    const c = <u32>load<u16>(src + (i << 1));
    i++;
    if (c < 0x80) {
      store<u8>(d, <u8>c);
      d += 1;
    } else if (c < 0x800) {
      store<u8>(d, <u8>(0xC0 | (c >> 6)));
      store<u8>(d, <u8>(0x80 | (c & 0x3F)), 1);
      d += 2;
    } else if ((c & 0xF800) != 0xD800) {
      put3(d, c);
      d += 3;
    } else {
      const e = i < units ? <u32>load<u16>(src + (i << 1)) : 0;
      if (c < 0xDC00 && (e & 0xFC00) == 0xDC00) {
        const cp = 0x10000 + ((c - 0xD800) << 10) + (e - 0xDC00);
        store<u8>(d, <u8>(0xF0 | (cp >> 18)));
        store<u8>(d, <u8>(0x80 | ((cp >> 12) & 0x3F)), 1);
        store<u8>(d, <u8>(0x80 | ((cp >> 6) & 0x3F)), 2);
        store<u8>(d, <u8>(0x80 | (cp & 0x3F)), 3);
        d += 4;
        i++;
      } else {
        put3(d, 0xFFFD); // a lone surrogate
        d += 3;
      }
    }
  }
  after = i;
  return d;
}

/**
 * The UTF-8 of the `units` UTF-16 code units at `src` (little-endian), written at `dst`; returns its byte length.
 * `dst` must have room for 3 bytes a unit and must not overlap `src`. Runs of ASCII go 16 units a step (SIMD) or 4
 * (scalar); a block holding anything else goes one code point at a time.
 */
export function utf16ToUtf8(src: usize, units: usize, dst: usize): usize {
  let i: usize = 0;
  let d = dst;
  if (ASC_FEATURE_SIMD) {
    const high = i16x8.splat(<i16>0xFF80);
    while (i + 16 <= units) {
      const a = v128.load(src + (i << 1));
      const b = v128.load(src + (i << 1), 16);
      if (v128.any_true(v128.and(v128.or(a, b), high))) {
        d = encodeUnits(src, i, i + 16, units, d);
        i = after;
      } else {
        v128.store(d, i8x16.narrow_i16x8_u(a, b));
        d += 16;
        i += 16;
      }
    }
  } else {
    while (i + 4 <= units) {
      const x = load<u64>(src + (i << 1));
      if ((x & 0xFF80FF80FF80FF80) != 0) {
        d = encodeUnits(src, i, i + 4, units, d);
        i = after;
      } else {
        store<u32>(d, <u32>(x & 0x7F) | (<u32>(x >> 8) & 0x7F00) | (<u32>(x >> 16) & 0x7F0000) | (<u32>(x >> 24) & 0x7F000000));
        d += 4;
        i += 4;
      }
    }
  }
  return encodeUnits(src, i, units, units, d) - dst;
}

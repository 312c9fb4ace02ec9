// UTF-16 → UTF-8, as TextEncoder.encodeInto writes it (WHATWG Encoding, "UTF-8 encode": a lone surrogate becomes
// U+FFFD, EF BF BD).
//
// On Node, encodeInto encodes a string one code unit at a time (about 1 ns a unit); Buffer#write with 'utf16le'
// copies the units as they lie. So the host copies a long string's units into the core a chunk at a time, into one
// buffer that stays in cache, and this writes their UTF-8 where the text's bytes go (src/core/abi.ts, writeUtf8):
// 16 ASCII units a step, and in the SIMD build 8 or 16 units of one or two bytes, or of three, a step (the byte layout
// is RFC 3629's table in section 3). A chunk never ends between the two halves of a pair (the host cuts before a high
// surrogate).

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
 * The UTF-8 of 8 code units of U+0800..U+FFFF without surrogates, 24 bytes at `d`: their lead, middle and last bytes
 * side by side, then interleaved by swizzles through {@link SPREAD3}. (A two-vector `i8x16.shuffle` would do it in two
 * steps, but V8 builds each shuffle's mask inside the loop: 0.78 against 0.47 ns a unit of Japanese.)
 */
// @ts-ignore: decorator
@inline function put8x3(d: usize, a: v128): void {
  const low6 = i16x8.splat(0x3F);
  const cont = i16x8.splat(0x80);
  const leadMid = i8x16.narrow_i16x8_u(
    v128.or(i16x8.shr_u(a, 12), i16x8.splat(0xE0)),
    v128.or(v128.and(i16x8.shr_u(a, 6), low6), cont),
  );
  const last = v128.or(v128.and(a, low6), cont);
  const tail = i8x16.narrow_i16x8_u(last, last);
  v128.store(d, v128.or(i8x16.swizzle(leadMid, v128.load(SPREAD3)), i8x16.swizzle(tail, v128.load(SPREAD3, 16))));
  v128.store64_lane(d, v128.or(i8x16.swizzle(leadMid, v128.load(SPREAD3, 32)), i8x16.swizzle(tail, v128.load(SPREAD3, 48))), 0, 16);
}

/**
 * Swizzle masks of {@link put8x3}: bytes 0..15 of the output from the lead-and-middle vector, then from the last
 * bytes', then bytes 16..23 the same way; 0x80 selects nothing (a zero to be or'ed).
 */
const SPREAD3: usize = memory.data<u8>([
  0, 8, 0x80, 1, 9, 0x80, 2, 10, 0x80, 3, 11, 0x80, 4, 12, 0x80, 5,
  0x80, 0x80, 0, 0x80, 0x80, 1, 0x80, 0x80, 2, 0x80, 0x80, 3, 0x80, 0x80, 4, 0x80,
  13, 0x80, 6, 14, 0x80, 7, 15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
  0x80, 5, 0x80, 0x80, 6, 0x80, 0x80, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
], 16);

/** Lanes of `a` that are not a three-byte code unit: below U+0800, or a surrogate. */
// @ts-ignore: decorator
@inline function notThree(a: v128): v128 {
  return v128.or(
    i16x8.lt_u(a, i16x8.splat(0x800)),
    i16x8.eq(v128.and(a, i16x8.splat(<i16>0xF800)), i16x8.splat(<i16>0xD800)),
  );
}

/**
 * For each mask of which of 8 code units below U+0800 are ASCII (bit k: unit k), 16 byte indices that gather their
 * UTF-8 from the units' two-byte forms (unit k's lead byte at 2k, its continuation at 2k + 1, dropped for ASCII);
 * 4 KiB, filled on first use ({@link fillPack12}) so that the binary carries no table.
 */
const PACK12: usize = memory.data(256 << 4, 16);
let pack12Filled = false;

function fillPack12(): void {
  for (let m: u32 = 0; m < 256; m++) {
    let at = PACK12 + (<usize>m << 4);
    for (let k: u32 = 0; k < 8; k++) {
      store<u8>(at++, <u8>(k << 1));
      if (((m >> k) & 1) == 0) store<u8>(at++, <u8>((k << 1) | 1));
    }
  }
  pack12Filled = true;
}

/**
 * For units 0..3 (entries 0..15) and 4..7 (entries 16..31) of 8 ASCII and three-byte units, and each mask of which of
 * those four are ASCII (bit k: unit k of the four), 32 byte indices that gather their UTF-8: the first 16 from the
 * vector of lead bytes (lanes 0..7; an ASCII unit's own byte there) and middle bytes (lanes 8..15), the next 16 from
 * the vector of last bytes (lanes 0..7), 0x80 where the other vector gives the byte. 1 KiB, filled on first use
 * ({@link fillPack13}) so that the binary carries no table.
 */
const PACK13: usize = memory.data(32 << 5, 16);
let pack13Filled = false;

function fillPack13(): void {
  for (let e: u32 = 0; e < 32; e++) {
    const at = PACK13 + (<usize>e << 5);
    memory.fill(at, 0x80, 32);
    let p: usize = 0;
    for (let k: u32 = 0; k < 4; k++) {
      const unit = ((e >> 4) << 2) + k;
      store<u8>(at + p++, <u8>unit);
      if (((e >> k) & 1) == 0) {
        store<u8>(at + p++, <u8>(8 + unit));
        store<u8>(at + 16 + p++, <u8>unit);
      }
    }
  }
  pack13Filled = true;
}

/**
 * The UTF-8 of the `units` UTF-16 code units at `src` (little-endian), written at `dst`; returns its byte length.
 * `dst` must have room for 3 bytes a unit and must not overlap `src`; bytes past the returned length, within that room,
 * may be overwritten. Runs of ASCII go 16 units a step (SIMD) or 4 (scalar). In the SIMD build, 8 units below
 * U+0800 (ASCII and two-byte characters, as Cyrillic, Greek or accented Latin words with their spaces) go in one step
 * through a table of byte gathers, and 8 units of U+0800..U+FFFF without surrogates (ideographs, kana, CJK
 * punctuation) in one step of fixed shuffles; any other 8 (a surrogate, or three-byte units beside narrower ones) go
 * one code point at a time.
 */
export function utf16ToUtf8(src: usize, units: usize, dst: usize): usize {
  let i: usize = 0;
  let d = dst;
  if (ASC_FEATURE_SIMD) {
    const high = i16x8.splat(<i16>0xFF80);
    const wide = i16x8.splat(0x800);
    const low6 = i16x8.splat(0x3F);
    const cont = i16x8.splat(0x80);
    while (i + 8 <= units) {
      const a = v128.load(src + (i << 1));
      if (i + 16 <= units) {
        const b = v128.load(src + (i << 1), 16);
        if (!v128.any_true(v128.and(v128.or(a, b), high))) {
          v128.store(d, i8x16.narrow_i16x8_u(a, b));
          d += 16;
          i += 16;
          continue;
        }
        if (!v128.any_true(v128.or(notThree(a), notThree(b)))) {
          put8x3(d, a);
          put8x3(d + 24, b);
          d += 48;
          i += 16;
          continue;
        }
      }
      const narrow = i16x8.lt_u(a, wide);
      if (i16x8.all_true(narrow)) {
        // one or two bytes each: every unit's two-byte form (lead in the low byte), ASCII units as they are, then
        // the bytes that belong gathered by the mask of ASCII units
        const ascii = i16x8.lt_u(a, cont);
        const two = v128.or(
          v128.or(i16x8.shr_u(a, 6), i16x8.splat(0xC0)),
          i16x8.shl(v128.or(v128.and(a, low6), cont), 8),
        );
        const mask = i16x8.bitmask(ascii);
        if (!pack12Filled) fillPack12();
        v128.store(d, i8x16.swizzle(v128.bitselect(a, two, ascii), v128.load(PACK12 + (<usize>mask << 4))));
        d += 16 - <usize>popcnt(mask);
        i += 8;
      } else if (!v128.any_true(notThree(a))) {
        put8x3(d, a);
        d += 24;
        i += 8;
      } else if (i + 10 <= units && !v128.any_true(v128.andnot(notThree(a), i16x8.lt_u(a, cont)))) {
        // ASCII and three-byte units (a newline, a digit or ASCII punctuation among ideographs): each unit's three
        // bytes (an ASCII unit's one in its lead byte's place), then the bytes that belong gathered four units at a
        // time by the mask of ASCII units. (The second store reaches up to 28 bytes past d: within the room of the
        // 10 units from i.)
        const ascii = i16x8.lt_u(a, cont);
        const leadMid = i8x16.narrow_i16x8_u(
          v128.bitselect(a, v128.or(i16x8.shr_u(a, 12), i16x8.splat(0xE0)), ascii),
          v128.or(v128.and(i16x8.shr_u(a, 6), low6), cont),
        );
        const last = v128.or(v128.and(a, low6), cont);
        const tail = i8x16.narrow_i16x8_u(last, last);
        const mask = <usize>i16x8.bitmask(ascii);
        if (!pack13Filled) fillPack13();
        const lo = PACK13 + ((mask & 15) << 5);
        const hi = PACK13 + 512 + ((mask >> 4) << 5);
        v128.store(d, v128.or(i8x16.swizzle(leadMid, v128.load(lo)), i8x16.swizzle(tail, v128.load(lo, 16))));
        d += 12 - (<usize>popcnt(mask & 15) << 1);
        v128.store(d, v128.or(i8x16.swizzle(leadMid, v128.load(hi)), i8x16.swizzle(tail, v128.load(hi, 16))));
        d += 12 - (<usize>popcnt(mask >> 4) << 1);
        i += 8;
      } else {
        d = encodeUnits(src, i, i + 8, units, d);
        i = after;
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

// UTF-8 validation (RFC 3629 / Unicode §3.9 Table 3-7: no overlongs, no surrogates, ≤ U+10FFFF).
// Byte input is checked here before any kernel decodes it, so decoders never read past the end.

/** Returns 0 when the `len` bytes at `p` are well-formed UTF-8, else 1 + the offset of the first bad byte. */
export function utf8Invalid(p: usize, len: usize): usize {
  const start = p;
  const end = p + len;
  while (p < end) {
    // ASCII fast path, 8 bytes at a time
    if (p + 8 <= end && (load<u64>(p) & 0x8080808080808080) == 0) { p += 8; continue; }
    const b = <u32>load<u8>(p);
    if (b < 0x80) { p++; continue; }
    let need: usize;
    let lo: u32 = 0x80;
    let hi: u32 = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) need = 1;
    else if (b >= 0xE0 && b <= 0xEF) { need = 2; if (b == 0xE0) lo = 0xA0; else if (b == 0xED) hi = 0x9F; }
    else if (b >= 0xF0 && b <= 0xF4) { need = 3; if (b == 0xF0) lo = 0x90; else if (b == 0xF4) hi = 0x8F; }
    else return p - start + 1;
    if (p + need >= end) return p - start + 1; // truncated sequence
    const b1 = <u32>load<u8>(p, 1);
    if (b1 < lo || b1 > hi) return p - start + 1;
    for (let k: usize = 2; k <= need; k++) {
      const c = <u32>load<u8>(p + k);
      if (c < 0x80 || c > 0xBF) return p - start + 1;
    }
    p += need + 1;
  }
  return 0;
}

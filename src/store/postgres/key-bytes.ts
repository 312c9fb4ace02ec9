/**
 * Store keys as PostgreSQL `bytea` in UTF-16BE: one big-endian byte pair per UTF-16 code unit, so
 * PostgreSQL's byte order (memcmp, then length) is exactly JS string order, and a key prefix is a
 * byte prefix. `text COLLATE "C"` would not do: it orders UTF-8 bytes, i.e. code points, which puts
 * U+10000 and above (surrogate pairs, 0xD800–0xDBFF in UTF-16) after U+E000–U+FFFF, where JS puts
 * them before.
 */

/**
 * The UTF-16BE bytes of a key.
 * @example keyBytes('a€') // Uint8Array [0x00, 0x61, 0x20, 0xac]
 */
export function keyBytes(key: string): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    out[2 * i] = unit >>> 8;
    out[2 * i + 1] = unit & 0xff;
  }
  return out;
}

/**
 * The key whose UTF-16BE bytes are `bytes` (the inverse of {@link keyBytes}).
 * @example bytesKey(keyBytes('work/1')) // 'work/1'
 */
export function bytesKey(bytes: Uint8Array): string {
  const units = new Array<number>(bytes.length >>> 1);
  for (let i = 0; i < units.length; i++) units[i] = (bytes[2 * i] << 8) | bytes[2 * i + 1];
  // chunks: String.fromCharCode spreads its arguments on the stack
  let key = '';
  for (let i = 0; i < units.length; i += 4096) key += String.fromCharCode(...units.slice(i, i + 4096));
  return key;
}

/**
 * The smallest byte string greater than every byte string starting with `prefix`, or `undefined`
 * when there is none (an empty prefix, or one of 0xFF bytes only): the exclusive upper end of a
 * prefix scan, so the scan is an index range instead of a filter.
 * @example prefixEnd(keyBytes('b/')) // the bytes of 'b0' (0x00 0x62 0x00 0x30)
 */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] !== 0xff) {
      const end = prefix.slice(0, i + 1);
      end[i]++;
      return end;
    }
  }
  return undefined;
}

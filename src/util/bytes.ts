/** Whether this host stores a typed array's numbers least significant byte first (every common platform does). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The parts, in order, in one array: `parts[0]` itself when there is only one (no copy), else a new array of
 * `total` bytes (their summed lengths unless given, as a reader that counted them while they came gives it).
 * @example concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]) // Uint8Array [1, 2, 3]
 */
export function concatBytes(
  parts: readonly Uint8Array[],
  total = parts.reduce((n, p) => n + p.byteLength, 0),
): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Whether 32 bytes are an Ed25519 public key a signature can be trusted under: the encoding of a point of the curve
 * (RFC 8032 §5.1.3 decoding: `y` below p, `x` recovered from the curve equation) whose order is not small. The curve
 * has 8 points of order 1, 2, 4 or 8 (the torsion subgroup); with such a key, `[S]B = R + [k]A` holds for a signature
 * that does not depend on the message (the identity key `01 00…00` with `R` the identity and `S` = 0 verifies for any
 * content), so a verifier must refuse them before it verifies (as libsodium's `crypto_sign_verify_detached` does).
 * WebCrypto imports such keys without complaint. Plain BigInt arithmetic: a key is checked once per bundle.
 */

/** The field prime 2^255 − 19. */
export const P = (1n << 255n) - 19n;
/**
 * The curve constant d = −121665/121666 mod p, as RFC 8032 §5.1 writes it out: a literal rather than worked out at the
 * library's load (a modular inverse of 255-bit BigInts on every process's start; the unit test works it out again).
 */
export const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
/** A square root of −1 mod p: 2^((p−1)/4) (RFC 8032 §5.1.3), as a literal for the same reason. */
export const SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;

/** `a` reduced into [0, P). */
export function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}

/** base^exp mod P by square and multiply. */
export function pow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

function inverse(a: bigint): bigint {
  return pow(a, P - 2n);
}

/** An affine point (x, y) of the curve −x² + y² = 1 + d·x²·y². */
type Point = readonly [bigint, bigint];

/**
 * The point 32 bytes encode (RFC 8032 §5.1.3), or null for an encoding of no point: `y` ≥ p, no `x` for that `y`,
 * or the sign bit set for `x` = 0.
 */
export function decodePoint(bytes: Uint8Array): Point | null {
  if (bytes.length !== 32) return null;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i] & 0x7f : bytes[i]);
  const sign = bytes[31] >> 7;
  if (y >= P) return null;
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  // x = u v³ (u v⁷)^((p−5)/8), then fixed by √−1 where v x² = −u
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  const vx2 = mod(v * x * x);
  if (vx2 === mod(-u)) x = mod(x * SQRT_M1);
  else if (vx2 !== u) return null;
  if (x === 0n && sign === 1) return null;
  if (Number(x & 1n) !== sign) x = P - x;
  return [x, y];
}

/** P + Q with the complete addition law of the twisted Edwards curve (a = −1; d is not a square, so no exceptions). */
function add([x1, y1]: Point, [x2, y2]: Point): Point {
  const t = mod(D * x1 * x2 * y1 * y2);
  return [mod((x1 * y2 + y1 * x2) * inverse(1n + t)), mod((y1 * y2 + x1 * x2) * inverse(mod(1n - t)))];
}

/**
 * Whether `bytes` encode a point of the curve that is not of small order: the public keys a signature proves
 * something under.
 * @example
 * acceptablePublicKey(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0))) // false: the identity point
 */
export function acceptablePublicKey(bytes: Uint8Array): boolean {
  const point = decodePoint(bytes);
  if (point === null) return false;
  // [8]P is the identity (0, 1) exactly for the points of the torsion subgroup
  let q = point;
  for (let i = 0; i < 3; i++) q = add(q, q);
  return !(q[0] === 0n && q[1] === 1n);
}

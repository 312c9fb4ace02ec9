import { describe, expect, it } from 'vitest';
import { D, SQRT_M1 } from '../../src/services/report/ed25519-point.js';

/** The field prime of Ed25519, 2^255 − 19 (RFC 8032 §5.1). */
const P = (1n << 255n) - 19n;

function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}

/** base^exp mod P by square and multiply: the arithmetic the literals replace at the library's load. */
function pow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

describe('the Ed25519 constants written out as literals', () => {
  it('d is −121665/121666 mod p', () => {
    expect(D).toBe(mod(-121665n * pow(121666n, P - 2n)));
    expect(mod(D * 121666n)).toBe(mod(-121665n));
  });

  it('SQRT_M1 is 2^((p−1)/4), a square root of −1', () => {
    expect(SQRT_M1).toBe(pow(2n, (P - 1n) / 4n));
    expect(mod(SQRT_M1 * SQRT_M1)).toBe(P - 1n);
  });
});

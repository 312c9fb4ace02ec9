import { describe, expect, it } from 'vitest';
// The literals against the module's own field arithmetic (the arithmetic they replace at the library's load).
import { D, mod, P, pow, SQRT_M1 } from '../../src/services/report/ed25519-point.js';

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

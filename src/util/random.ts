/** Seeded pseudo-random numbers, where a draw must be the same on every run and in every runtime. */

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): uniform numbers in [0, 1) from a 32-bit seed. Not for secrets: for
 * reproducible draws (a work's sampled passages, a model's sampling, a score's resamples).
 * @example const random = mulberry32(42); random() // 0.6011037519201636
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

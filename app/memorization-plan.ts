/**
 * What the memorization view runs, the same in both modes: extraction settings sized for short works, and a fresh
 * reference-set id per run (each run keeps its own non-member texts).
 */

/** Three prefixes of 20 words, each continued greedily for up to 400 model tokens (enough for 50 words of prose). */
export const MEMORIZATION_EXTRACT = { prefixes: 3, prefix_tokens: 20, continuation_tokens: 50, max_tokens: 400 };

/** A reference-set id no earlier run of this page used. */
export function referenceSetId(): string {
  const random = crypto.getRandomValues(new Uint32Array(2));
  return `web-${Date.now().toString(36)}-${random[0].toString(36)}${random[1].toString(36)}`;
}

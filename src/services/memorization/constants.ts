/**
 * The memorization operations' public constants, apart from the operations (./operations.ts, loaded on demand) so
 * that naming one does not load them.
 */
import type { EvidenceTier } from './types.js';

/** Words of a verbatim run that verify extraction (Carlini et al.'s 50 tokens). */
export const VERIFY_TOKENS = 50;
/** Shortest run reported as a match. */
export const MIN_RUN_TOKENS = 8;
/** Words an answer must reproduce of the work where it was asked to continue, for a hit (or a loop step). */
export const HIT_WORDS = 20;
/** Default words per chunk. */
export const PROBE_CHUNK_TOKENS = 128;
/** Default fewest chunks per side for a verdict. */
export const PROBE_MIN_CHUNKS = 20;
/** Default fewest reference documents for a verdict. */
export const PROBE_MIN_REFERENCE_DOCUMENTS = 5;
/** Largest set of texts (a reference set's, a probe's), in UTF-16 units over all texts. */
export const MAX_REFERENCE_CHARS = 50 * 1024 * 1024;
/** Most canaries per work. */
export const MAX_CANARIES = 100;
/** Words per canary. @default 24 */
export const CANARY_WORDS = 24;
/** Attribution lower bound per tier (see the module comment). */
export const TIER_ATTRIBUTION: Readonly<Record<Exclude<EvidenceTier, 'inconclusive'>, number>> = {
  confirmed: 1,
  strong: 0.8,
  moderate: 0.4,
};

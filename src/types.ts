/**
 * Public result types. Fields that also travel as JSON are snake_case (the service's
 * convention); spans are UTF-16 code-unit offsets into the caller's ORIGINAL string.
 */

/** Hashes of consecutive shingles with their spans in the original text. */
export interface ShingleSet {
  /** 64-bit shingle hashes, in text order (duplicates kept). */
  readonly hashes: BigUint64Array;
  /** Start of each shingle in the original text (UTF-16 index). */
  readonly starts: Uint32Array;
  /** End (exclusive) of each shingle in the original text (UTF-16 index). */
  readonly ends: Uint32Array;
}

/** Winnowed fingerprints: a sparse, position-carrying subset of the shingles. */
export interface WinnowSet extends ShingleSet {
  /** Index of each selected shingle in {@link Fingerprint.shingles}. */
  readonly positions: Uint32Array;
}

/** The fingerprint of one text. Produced by `Engine.fingerprint`. */
export interface Fingerprint {
  /** Format version of this object. */
  readonly version: 1;
  /** Canonical id of the parameters that shaped every number below (see `paramsId`). */
  readonly params: string;
  /**
   * Stable id of the normalised content: `'tp1:'` + 32 hex digits. For word shingles it is
   * XXH64 (seeds 0x7470_0001 and 0x7470_0002, concatenated) over the little-endian array of
   * token hashes (XXH64 seed 0 of each NFKC_Casefold token's UTF-8); with `normalize: 'none'`
   * the same two hashes over the raw UTF-8 bytes, prefixed `'tp1r:'`. Equal normalised text ⇒
   * equal id, in every runtime.
   */
  readonly fingerprint: string;
  /** `'sha256:'` + 64 hex digits of the raw UTF-8 bytes; absent when `workHash: false`. */
  readonly work_hash?: string;
  /** UTF-8 byte length of the raw input. */
  readonly byte_length: number;
  /** Number of word tokens (word unit) or code points (char unit) after normalisation. */
  readonly token_count: number;
  /**
   * Every shingle, in text order. With word shingles each column (`hashes`; `starts` and `ends` together) is computed
   * from the text the fingerprint holds, on the engine that made it, when first read, and is a plain property from
   * then on: a caller that reads none pays for none (`shingleCount(fp.shingles)` counts them without computing).
   */
  readonly shingles: ShingleSet;
  /** Winnowed fingerprints (absent when winnowing is off). */
  readonly winnow?: WinnowSet;
  /** MinHash signature (absent when off). */
  readonly minhash?: Uint32Array;
  /** 64-bit SimHash (absent when off). */
  readonly simhash?: bigint;
}

/** Similarity of two fingerprints (see `Engine.similarity`). */
export interface Similarity {
  /** Jaccard index of the two distinct-shingle sets (exact). */
  readonly jaccard: number;
  /** |A ∩ B| / |A|: how much of `a` is found in `b`. */
  readonly containment_a: number;
  /** |A ∩ B| / |B|: how much of `b` is found in `a`. */
  readonly containment_b: number;
  /** Jaccard estimated from the MinHash signatures (null when either lacks one). */
  readonly minhash_jaccard: number | null;
  /** Hamming distance of the SimHashes, 0..64 (null when either lacks one). */
  readonly simhash_distance: number | null;
}

/** Kinds of work the revenue model and the risk table know. */
export type WorkType = 'book' | 'article' | 'news' | 'code' | 'other';

/** Declarations of the rights holder. */
export interface Declarations {
  /** The holder reserved text and data mining / AI training (e.g. robots.txt, TDMRep, ai.txt). */
  readonly tdm_opt_out?: boolean;
  /** Since when (ISO 8601 date, `YYYY-MM-DD` or a full timestamp). */
  readonly since?: string;
}

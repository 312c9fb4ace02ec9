// The ABI of the trainprint core: every export, in one file; numbers and pointers only.
//
// Conventions: pointers end in `Ptr`, byte counts in `Len`; u64 values cross as BigInt;
// outputs go to caller-chosen offsets inside the arena (see memory.ts); nothing allocates.
// The TypeScript facade over these exports is src/engine/abi.ts — keep the two in step.

export { reserve, ARENA_BASE as arenaBase } from './memory';
export { xxh64, xxh64Folded, xxh64Pair, xxh64PairSecond } from './hash/xxh64';
export { countTokens, tokenize } from './tokenize';
export { failedRegion, findRegions, setInert, tokenizeRegions } from './regions';
export { utf8Invalid } from './utf8';
export { utf16ToUtf8 } from './utf16';
export { wordsAtLeast } from './words';

// pinned NFKC_Casefold + word tokens of a region, straight from its UTF-8 (the tables are copied in by the host)
export { nfkcTables, nfkcInit, nfkcTokens, NFKC_TABLE_BYTES as nfkcTableBytes } from './nfkc';
// the same tables decoded in the core from the varint strings, which the host would otherwise decode in JavaScript
export { nfkcDecode, NFKC_DECODE_SCRATCH as nfkcDecodeScratch } from './nfkc-decode';
export { shingleTokens, shingleTokensAndId, shingleTexts } from './shingle';
export { charShingles, MAX_CHAR_K as maxCharK } from './hash/rolling';
export { winnow, winnowPostings } from './winnow';
export { radixCount, radixScatter, sortBuckets, buildPrefix, buildFilter, lookupSorted, foundQueries } from './sortindex';

// sketches: MinHash, SimHash, blocked Bloom filter
export { minhashSignature, minhashOph, MINHASH_MAX_K as minhashMaxK } from './minhash';
export { simhash64 } from './simhash';
export { ophSimhash, ophSimhashSecond, winnowOphSimhash } from './sketches';
export { bloomInsert, bloomQuery, BLOOM_MAX_K as bloomMaxK } from './bloom';

// alignment: sentence-pair seed scoring (tf-idf cosine and Dice) for compare
export { alignSeeds } from './align';

// the walk that settles a scan's copies before the aligner (src/align/copy-walk.ts)
export { copyWalk } from './copywalk';
// the ids of the walk's two windows' words, from the tokenizer's columns (src/align/window-words.ts)
export { windowIds } from './windowids';

// byte-level GPT inference (the memorization test models): one token with a key/value cache
export { gptStep, gptParameters } from './gpt';

/** 1 when this binary was compiled with SIMD128 (the host checks it picked the right build). */
export function simdEnabled(): u32 {
  return ASC_FEATURE_SIMD ? 1 : 0;
}

/**
 * The common n-grams of a portrait: those that many of its documents hold — a formula ("is a Spanish professional
 * footballer who plays as", "was a British Liberal Party politician who sat in the House of Commons"), a stock phrase,
 * a text reprinted in many places. The locator (./locator.ts) gives every n-gram the value of the section that stored
 * it first, so the hits of a formula all agree with whichever document happened to store it first, far more often than
 * the 2⁻ᵛ of chance the chains are read against. Such an n-gram is no one document's evidence: its hits neither vote
 * for a section nor extend a chain (./chains.ts).
 *
 * **Holders.** While the locator is built the key occurrences are sorted by key, in document order, so the number of
 * *holders* of every stored n-gram is counted there: the distinct articles holding it in a document cut into articles
 * (the WikiExtractor packs: one document per extractor file), the distinct documents otherwise. An n-gram with at least
 * {@link COMMON_MIN_HOLDERS} holders is common.
 *
 * **Structure.** A second static function over the common keys alone (the locator's binary fuse, 16-bit values): each
 * common key's value is an 8-bit fingerprint of the key and its holder count (capped at 255). A stored key reads its
 * own value; any other key matches a fingerprint with probability 2⁻⁸, so 0.39 % of the hits of a text the pack holds
 * once are read as common by mistake (a miss for its chain: the chains bridge far more). About 2.26 bytes per common
 * n-gram, stored as the locator's optional `common` bytes: a header of {@link COMMON_HEADER} little-endian u32 (the
 * minimum holders, the seed, segment length, segment count, keys) and the cells.
 */
import { TrainprintError } from '../errors.js';
import { invalidField, SCHEMA_WORDS } from '../util/schema-check.js';
import { buildLocator, fuseSizing, keyDigest, type LocatorData, locatorValue } from './locator.js';

/**
 * Holders (articles, or documents) from which an n-gram is common. Two holders are a text and its second copy (an
 * edition, a collection and its part: the shared-text table names both); the third is where a phrase stops being one
 * text's and becomes the corpus's.
 */
export const COMMON_MIN_HOLDERS = 3;
/** What a holder of an n-gram is: a document (an article of a document cut into articles), or an author. */
export type CommonHolder = 'document' | 'author';

/**
 * Which n-grams a portrait that locates stores as common (`DatasetDescriptor.common`, given at build: the table records
 * its minimum, the pack's manifest the rest).
 */
export interface CommonRule {
  /** Holders from which an n-gram is common (2..255). @default 3 ({@link COMMON_MIN_HOLDERS}) */
  readonly min_holders: number;
  /**
   * What is counted. `'author'` counts the distinct authors (`meta.author`) of the documents holding it, so that the
   * editions, volumes and collected works of one author's text count once (a book corpus: a play held alone, in the
   * complete works and in an anthology has two holders), while a passage three authors quote is common.
   * @default 'document'
   */
  readonly by: CommonHolder;
}

/**
 * Check a descriptor's `common` (layout in {@link CommonRule}; absent: 3 documents).
 * @throws INVALID_INPUT naming the field when it is not an object of those fields and values
 * @example checkCommonRule({ min_holders: 4 }) // { min_holders: 4, by: 'document' }
 */
export function checkCommonRule(value: unknown): CommonRule {
  if (value === undefined) return { min_holders: COMMON_MIN_HOLDERS, by: 'document' };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) invalidField('common', 'must be an object');
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (k !== 'min_holders' && k !== 'by') invalidField(`common.${k}`, SCHEMA_WORDS.false);
  const min = o.min_holders ?? COMMON_MIN_HOLDERS;
  if (!(Number.isInteger(min) && (min as number) >= 2 && (min as number) <= COMMON_MAX_COUNT))
    invalidField('common.min_holders', `must be an integer in 2..${COMMON_MAX_COUNT}`);
  const by = o.by ?? 'document';
  if (by !== 'document' && by !== 'author') invalidField('common.by', 'must be "document" or "author"');
  return { min_holders: min as number, by: by as CommonHolder };
}

/** Bits of each value: an 8-bit fingerprint and an 8-bit holder count. */
const COMMON_BITS = 16;
/** u32 fields before the cells. */
export const COMMON_HEADER = 5;
/** Largest holder count stored (a count at least this is stored as it). */
export const COMMON_MAX_COUNT = 255;

/** The common n-grams as read from a locator's `common` bytes. */
export interface CommonNgrams {
  /** Holders from which an n-gram was stored as common. */
  readonly min_holders: number;
  /** Common keys stored. */
  readonly keys: number;
  readonly fuse: LocatorData;
}

/** The 8-bit fingerprint of a key (a hash independent of the section values). */
function fingerprint8(lo: number, hi: number): number {
  let h = (keyDigest(lo, hi) ^ 0x5bd1e995) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  h ^= h >>> 15;
  return h >>> 24;
}

/**
 * The common-n-gram bytes of a portrait from its distinct keys (`lo`/`hi`) and each key's holder count: the keys held
 * at least `minHolders` times. Undefined when there are none (a locator without them encodes as before).
 * @example
 * const c = decodeCommon(commonTable(Uint32Array.of(1, 2, 3), Uint32Array.of(0, 0, 0), Uint32Array.of(1, 4, 300))!)
 * commonHolders(c, 2, 0) // 4
 * commonHolders(c, 3, 0) // 255
 */
export function commonTable(
  lo: Uint32Array,
  hi: Uint32Array,
  holders: Uint32Array,
  minHolders = COMMON_MIN_HOLDERS,
): Uint8Array | undefined {
  let n = 0;
  for (let i = 0; i < holders.length; i++) if (holders[i] >= minHolders) n++;
  if (n === 0) return undefined;
  const cLo = new Uint32Array(n),
    cHi = new Uint32Array(n);
  const values = new Uint16Array(n);
  for (let i = 0, j = 0; i < holders.length; i++) {
    if (holders[i] < minHolders) continue;
    cLo[j] = lo[i];
    cHi[j] = hi[i];
    values[j++] = (fingerprint8(lo[i], hi[i]) << 8) | Math.min(COMMON_MAX_COUNT, holders[i]);
  }
  const fuse = buildLocator(cLo, cHi, values, COMMON_BITS, 1);
  const out = new Uint8Array(4 * COMMON_HEADER + fuse.cells.length);
  const view = new DataView(out.buffer);
  const header = [minHolders, fuse.seed, fuse.segment_length, fuse.segment_count, n];
  for (let k = 0; k < COMMON_HEADER; k++) view.setUint32(4 * k, header[k], true);
  out.set(fuse.cells, 4 * COMMON_HEADER);
  return out;
}

/**
 * Read a locator's `common` bytes. @throws SNAPSHOT_INCOMPATIBLE when they do not hold a filter of their key count
 * @example decodeCommon(commonTable(Uint32Array.of(7), Uint32Array.of(0), Uint32Array.of(5))!).keys // 1
 */
export function decodeCommon(bytes: Uint8Array): CommonNgrams {
  const fault = commonFault(bytes);
  if (fault !== null) throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', fault);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = (k: number) => view.getUint32(4 * k, true);
  const keys = at(4);
  return {
    min_holders: at(0),
    keys,
    fuse: {
      bits: COMMON_BITS,
      seed: at(1),
      segment_length: at(2),
      segment_count: at(3),
      section_words: 1,
      keys,
      cells: bytes.subarray(4 * COMMON_HEADER),
    },
  };
}

/** The detail of a fault in a locator's `common` bytes, or null. */
export function commonFault(bytes: Uint8Array): string | null {
  if (bytes.length < 4 * COMMON_HEADER) return 'locator.common is too short';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = (k: number) => view.getUint32(4 * k, true);
  if (at(0) < 2) return 'locator.common must hold n-grams of at least 2 holders';
  if (at(1) > 0xffff) return 'locator.common has a seed out of range';
  const want = fuseSizing(at(4));
  if (at(2) !== want.segment_length || at(3) !== want.segment_count)
    return `locator.common sizing does not match its ${at(4)} keys`;
  const cells = ((at(3) + 2) * at(2) * COMMON_BITS) / 8;
  if (bytes.length !== 4 * COMMON_HEADER + cells)
    return `locator.common has ${bytes.length} bytes, expected ${4 * COMMON_HEADER + cells}`;
  return null;
}

/**
 * How many holders the key (`lo`, `hi`) has when it is common (≥ the table's minimum, capped at 255), 0 when it is not
 * (or, with probability 2⁻⁸ for a key not stored as common, a false count).
 */
export function commonHolders(c: CommonNgrams, lo: number, hi: number): number {
  const v = locatorValue(c.fuse, lo, hi);
  if (v >>> 8 !== fingerprint8(lo, hi)) return 0;
  // a false fingerprint match reads a random count: one below the minimum was never stored
  return (v & 0xff) >= c.min_holders ? v & 0xff : 0;
}

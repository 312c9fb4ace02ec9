/**
 * Exact datasets: the winnowed fingerprints of a reference corpus with postings (document,
 * span), in a sorted u64 index that lives in its own WebAssembly instance (dropping the dataset
 * frees it). Searching fingerprints the query once, looks up every query shingle (the winnowing
 * guarantee makes any shared run of ≥ window + size − 1 words hit), and chains the hits of each
 * source document into passages with spans in both texts.
 *
 * Near-duplicate documents (MinHash-LSH): every document also keeps a one-permutation MinHash
 * signature (k = 128 u32, seed 0, densified) of ALL its word 5-gram shingles, and an LSH index of
 * b = 32 bands × r = 4 rows: a table of (32-bit hash of a band's 4 values, document) sorted by hash, 8 bytes
 * per band of every document. A query's candidates are the documents sharing at least one band
 * with its signature; each candidate's Jaccard similarity is then estimated from the full
 * signatures (fraction of equal positions, standard error ≈ sqrt(J(1 − J)/128) ≈ 0.04 at 0.5).
 * A document with Jaccard similarity J becomes a candidate with probability 1 − (1 − J^r)^b
 * (the S-curve, threshold ≈ (1/b)^(1/r) ≈ 0.42, below the default `near` = 0.5 on purpose):
 *
 * | J            | 0.3   | 0.5   | 0.6   | 0.7     | 0.8    |
 * | ------------ | ----- | ----- | ----- | ------- | ------ |
 * | P(candidate) | 0.229 | 0.873 | 0.988 | 0.99985 | ≈ 1    |
 *
 * (16 × 8 would put the threshold at 0.71 and find a J = 0.5 document 6 % of the time; a 5 %
 * scattered word substitution already brings J to ≈ 0.64.) Candidates are always scored, so the
 * lower threshold costs estimates, not false matches; the bands keep the lookup cost nearly
 * independent of the number of documents (32 binary searches + the candidates' estimates).
 */
import type { Core, Layout } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { withRoom } from '../util/grow.js';
import { lowerBound, sortByKeyU32 } from '../util/sorted.js';
import type { Fingerprint } from '../types.js';
import type { DocumentFingerprint } from '../fingerprint/fingerprint.js';
import { jaccardEstimate } from '../sketch/minhash.js';
import { exactDescriptor } from './descriptor.js';
import { finish, PAUSE, type Steps } from '../util/steps.js';
import {
  type ChainedHits,
  chainSteps,
  type ExactCandidate,
  inChainOrder,
  joinedHits,
  type SeedHits,
  seedHitColumns,
} from './seed-chains.js';
import { type SpanExtent, vouchedExtent } from './posting-spans.js';
import { EXACT_MINHASH_K, type ExactDatasetData, type LazyTexts } from './snapshot.js';
import type { ExactDatasetSource } from './snapshot-stream.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats, DocInfo, ExactMatch, NearMatch } from './types.js';

export type { CandidateRegion } from './regions.js';
export {
  CANDIDATE_MIN_HITS,
  CANDIDATE_WINDOW,
  chainGap,
  chainHits,
  type ChainedHits,
  type ExactCandidate,
  type SeedChain,
  type ShingleHit,
} from './seed-chains.js';
export type {
  DatasetDescriptor,
  DatasetDocument,
  DatasetStats,
  DocInfo,
  ExactMatch,
  NearMatch,
  PortraitMatch,
  SearchMatch,
} from './types.js';

/** Signature length (one-permutation MinHash, seed 0): the `mh=oph128` of the dataset params. */
export const NEAR_K = EXACT_MINHASH_K;
/** LSH bands. */
export const NEAR_BANDS = 32;
/** Rows (signature positions) per band: NEAR_BANDS × NEAR_ROWS = NEAR_K. */
export const NEAR_ROWS = 4;

/** Probability that a document with Jaccard similarity `j` to the query shares ≥ 1 band with it. */
export function nearCandidateProbability(j: number): number {
  return 1 - (1 - j ** NEAR_ROWS) ** NEAR_BANDS;
}

/**
 * 32-bit hash of the NEAR_ROWS u32 of band `band` of `sig` (at `offset`): multiply-xorshift
 * mixes and murmur3's fmix32 (Math.imul, no strings, no BigInt), the same in every runtime. A
 * collision (≈ 0.001 per band at 4 M entries) only adds a candidate, whose estimate is then
 * computed from the full signatures anyway.
 */
function bandKey(sig: Uint32Array, offset: number, band: number): number {
  let h = 0x3c6ef372 ^ band;
  const start = offset + band * NEAR_ROWS;
  for (let i = start; i < start + NEAR_ROWS; i++) {
    h = Math.imul(h ^ sig[i], 0x9e3779b1);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Bits of the LSH table's prefix table for `m` entries: 4–8 entries a slot, at most 2^16 slots. */
function lshBits(m: number): number {
  return Math.max(4, Math.min(16, Math.ceil(Math.log2(Math.max(m, 1))) - 3));
}

/** Bytes of the LSH table of `docs` documents: (hash, document) as two u32 per band, and its prefix table. */
function lshBytes(docs: number): number {
  return docs * NEAR_BANDS * 8 + (2 ** lshBits(docs * NEAR_BANDS) + 1) * 4;
}

/**
 * Index keys are fingerprints with their 32-bit halves swapped, in place over `count` values from
 * `at`. A winnowed fingerprint is the minimum of `window` hashes, so its high bits lean towards 0
 * and a prefix table over the top bits would crowd its low slots; its low half is uniform. Swapped,
 * every slot holds about the same number of keys and a lookup ends in a short scan. Swapping twice
 * gives the fingerprints back (a dataset copied elsewhere stores those).
 * @example swapHalves(keys, 0, keys.length)
 */
export function swapHalves(a: BigUint64Array, at: number, count: number): void {
  const u = new Uint32Array(a.buffer, a.byteOffset + at * 8, count * 2);
  for (let i = 0; i < u.length; i += 2) {
    const t = u[i];
    u[i] = u[i + 1];
    u[i + 1] = t;
  }
}

/** The signature of the empty shingle set (a text of no words): never indexed, never matched. */
function isEmptySignature(sig: Uint32Array, offset: number): boolean {
  for (let i = offset; i < offset + NEAR_K; i++) if (sig[i] !== 0xffffffff) return false;
  return true;
}

const MIN_PREFIX_BITS = 4;
const MAX_PREFIX_BITS = 26;

/**
 * Prefix-table size for n keys: 4–8 keys per slot (0.5–1 byte of table per key), 2^4 … 2^26 slots.
 * The table grows with the index so that a lookup's keys stay within one cache line (64 bytes): a
 * fixed 2^22 slots left ≈ 12 keys (96 bytes, two or three lines) per slot at 51 M keys. More slots
 * gained nothing measurable (bench/lookup.mjs at 51 M keys: 3 and 1.5 keys per slot ran as fast as
 * 6, within the noise, for two and four times the table), so the table stays at about 5 % of the index.
 */
function prefixBitsFor(n: number): number {
  return Math.max(MIN_PREFIX_BITS, Math.min(MAX_PREFIX_BITS, Math.ceil(Math.log2(Math.max(n, 1))) - 3));
}

/**
 * Presence-filter size for n keys: one u64 word per 8 keys (8 bits a key, 1 byte per fingerprint), each key
 * setting 3 bits of one word (assembly/sortindex.ts buildFilter). A query the filter rules out is absent after
 * one cache miss instead of two dependent ones (prefix table, then keys), which is most of a query with no
 * reuse: 10k absent queries at 51 M keys took 0.81 against 1.28 ms (bench/lookup.mjs, 1.54× faster by pairs).
 * Queries that are present take the filter's miss as well (half present: 1.44 against 1.30 ms), overlapped with
 * the others of their group.
 */
function filterWordsFor(n: number): number {
  return Math.ceil(n / 8);
}

/**
 * Where the sorted index lies in the dataset's arena (byte offsets; see ExactDataset.ensureSorted).
 * Posting spans are packed when they fit: `span` = start << lenBits | (end − start) in one u32, so a
 * posting takes 16 bytes with its key instead of 20 (a fifth less memory). A span of 5 words is rarely
 * longer than a few hundred characters, so this holds for documents of up to millions of characters;
 * a dataset with a longer span or document keeps start and end as two columns (lenBits 0).
 */
interface IndexLayout {
  readonly n: number;
  readonly prefixBits: number;
  readonly keysPtr: number;
  readonly prefixPtr: number;
  /** The presence filter: `filterWords` u64 words (0 for an empty index). */
  readonly filterPtr: number;
  readonly filterWords: number;
  /** The posting columns, u32 each, in key order: document, then start and end, or the packed spans. */
  readonly docPtr: number;
  readonly spanPtr: number;
  /** 0 when spans are not packed. */
  readonly endPtr: number;
  readonly lenBits: number;
  /** Arena bytes the index occupies: every call's scratch starts after them. */
  readonly persistent: number;
}

/**
 * Look `queries` up in the index (`lookupSorted`) from scratch space after the index's own bytes, and hand
 * `read` the number found, the pointer of the answer (per query: first posting, postings) and that of the queries'
 * room (8 bytes a query, free once they are looked up), inside the same guard: the next call's scratch space is the
 * same.
 */
function lookupBatch<T>(
  core: Core,
  index: IndexLayout,
  queries: BigUint64Array,
  read: (found: number, outPtr: number, spacePtr: number) => T,
): T {
  const { keysPtr, prefixPtr, prefixBits, filterPtr, filterWords, persistent } = index;
  const count = queries.length;
  return core.guard(() => {
    const L = core.layout(persistent);
    const qPtr = L.take(count * 8);
    const outPtr = L.take(count * 8);
    L.commit();
    core.u64(qPtr, count).set(queries);
    const found = core.raw.lookupSorted(keysPtr, prefixPtr, prefixBits, filterPtr, filterWords, qPtr, count, outPtr);
    return read(found, outPtr, qPtr);
  });
}

/** Take the index of `n` postings from the start of `L` (an empty index when `L` is null). */
function layoutIndex(L: Layout | null, n: number, lenBits: number): IndexLayout {
  const prefixBits = prefixBitsFor(n);
  if (!L) {
    return {
      n: 0,
      prefixBits,
      keysPtr: 0,
      prefixPtr: 0,
      filterPtr: 0,
      filterWords: 0,
      docPtr: 0,
      spanPtr: 0,
      endPtr: 0,
      lenBits: 0,
      persistent: 0,
    };
  }
  const keysPtr = L.take(n * 8);
  const prefixPtr = L.take((2 ** prefixBits + 1) * 4);
  const filterWords = filterWordsFor(n);
  const filterPtr = L.take(filterWords * 8);
  const docPtr = L.take(n * 4);
  const spanPtr = L.take(n * 4);
  const endPtr = lenBits > 0 ? 0 : L.take(n * 4);
  return {
    n,
    prefixBits,
    keysPtr,
    prefixPtr,
    filterPtr,
    filterWords,
    docPtr,
    spanPtr,
    endPtr,
    lenBits,
    persistent: L.size,
  };
}

/** Longest span length that packs (16 bits), and the bits a packed span keeps for its start. */
const MAX_PACKED_LENGTH = 0xffff;

/**
 * Bits of span length to pack spans with, from the largest start and the longest span: the fewest that hold the
 * longest, or 0 when some span cannot be packed (its start or length too large for one u32).
 */
function packBits(maxStart: number, maxLength: number): number {
  if (maxLength > MAX_PACKED_LENGTH) return 0;
  const lenBits = Math.max(1, 32 - Math.clz32(maxLength));
  return maxStart < 2 ** (32 - lenBits) ? lenBits : 0;
}

/** Pack spans [from, to) of `start`/`end` into `out` (at 0) with `lenBits` bits of length. */
function packSpans(
  start: Uint32Array,
  end: Uint32Array,
  from: number,
  to: number,
  lenBits: number,
  out: Uint32Array,
): void {
  for (let i = from; i < to; i++) out[i - from] = ((start[i] << lenBits) | (end[i] - start[i])) >>> 0;
}

/** Buckets of the sort's MSD pass (assembly/sortindex.ts), and keys per chunk of its input. */
const RADIX_BUCKETS = 2048;
const SORT_CHUNK = 1 << 16;

/** What one exact search found, with the counts the evidence statistics need (src/services/analyze/evidence.ts). */
export interface ExactSearch {
  readonly matches: ExactMatch[];
  /**
   * Per match (same order): query shingles with a hit in the chain, the chain's first query
   * shingle, and the shingles it spans.
   */
  readonly chains: Array<{ readonly hits: number; readonly first: number; readonly shingles: number }>;
  /** Query shingles looked up. */
  readonly tested: number;
  /** Query shingles found in the index (in any document). */
  hits: number;
  /** Per query shingle: 1 when found in the index. */
  readonly hitAt: Uint8Array;
  /**
   * Documents worth aligning with the query, strongest first: every document with at least
   * {@link CANDIDATE_MIN_HITS} distinct query shingles found within one stretch of
   * {@link CANDIDATE_WINDOW} query shingles. Reuse with word edits keeps some exact 5-grams (a
   * 30 % edit rate leaves about one in six), too few and too scattered to chain into a passage but
   * enough to make the document a candidate for alignment.
   */
  readonly candidates: ExactCandidate[];
}

/** Seed matches at least this dense are reported as verbatim (a verbatim copy's density is ≈ 1). */
const SEED_VERBATIM_DENSITY = 0.9;
/** Query shingles looked up between two pauses of a sliced search (about a millisecond of work). */
const LOOKUP_BATCH = 1 << 14;
/**
 * The LSH band keys of a signature (NEAR_K values at `offset`), band 0 first; none for the empty
 * shingle set's signature, which is never indexed and never matched.
 * @example bandKeys(fp.minhash!).length // 32
 */
export function bandKeys(sig: Uint32Array, offset = 0): number[] {
  if (isEmptySignature(sig, offset)) return [];
  const keys: number[] = [];
  for (let b = 0; b < NEAR_BANDS; b++) keys.push(bandKey(sig, offset, b));
  return keys;
}

/**
 * The near-duplicate matches among `candidates` (documents sharing a band with `sig`, in the order the
 * bands found them): those whose estimated Jaccard similarity is ≥ `near`, best first (ties keep the
 * candidates' order). One body for every index of bands, so they rank alike.
 * @example nearMatches('books', sig, [3, 7], sigOf, docOf, 0.5, { chars: text.length, tokens: fp.token_count })
 */
export function nearMatches(
  datasetId: string,
  sig: Uint32Array,
  candidates: Iterable<number>,
  sigOf: (doc: number) => Uint32Array,
  docOf: (doc: number) => DocInfo,
  near: number,
  query: { readonly chars: number; readonly tokens: number },
): NearMatch[] {
  const matches: NearMatch[] = [];
  for (const d of candidates) {
    const score = jaccardEstimate(sig, sigOf(d));
    if (score < near) continue;
    matches.push({
      dataset_id: datasetId,
      document_id: docOf(d).id,
      query_start: 0,
      query_end: query.chars,
      source_start: 0,
      source_end: docOf(d).chars,
      kind: 'near',
      tokens: query.tokens,
      score,
    });
  }
  return matches.sort((a, b) => b.score - a.score);
}

/** The search of a query with no shingles, or of an empty dataset. */
function emptySearch(m: number): ExactSearch {
  return { matches: [], chains: [], tested: m, hits: 0, hitAt: new Uint8Array(m), candidates: [] };
}

/**
 * The second half of an exact search: the seed matches of the chains {@link chainHits} reported, with
 * their documents' ids (`docId`), and the counts the evidence statistics read. `hitAt` and the candidates become
 * the result's; `hits`: how many of `hitAt` are 1 (the lookups count them).
 * @example const result = seedSearch('books', hitAt, fp, 8, chainHits(hits, fp, 8, 5, 8), (d) => ids[d], found)
 */
export function seedSearch(
  datasetId: string,
  hitAt: Uint8Array,
  fp: Fingerprint,
  window: number,
  chained: ChainedHits,
  docId: (doc: number) => string,
  hits: number,
): ExactSearch {
  const { candidates } = chained;
  const result: ExactSearch = { matches: [], chains: [], tested: hitAt.length, hits, hitAt, candidates };
  const density = 2 / (window + 1);
  for (const c of chained.chains) {
    result.chains.push({ hits: c.count, first: c.firstI, shingles: c.lastI - c.firstI + 1 });
    const score = Math.min(1, c.count / Math.max(1, (c.lastI - c.firstI + 1) * density));
    result.matches.push({
      dataset_id: datasetId,
      document_id: docId(c.doc),
      query_start: fp.shingles.starts[c.firstI],
      query_end: fp.shingles.ends[c.lastI],
      source_start: c.start,
      source_end: c.end,
      kind: 'exact',
      tokens: c.tokens,
      score,
      reuse: score >= SEED_VERBATIM_DENSITY ? 'verbatim' : 'edited',
      similarity: score,
      aligned: false,
    });
  }
  return result;
}

/**
 * What a search reads of an exact dataset: {@link ExactDataset} itself, or what a search fetched of a
 * dataset whose index lives in a database (src/corpus/stored.ts). Document numbers are the dataset's.
 */
export interface ExactSearchable {
  readonly descriptor: DatasetDescriptor;
  readonly keepsText: boolean;
  /** See {@link ExactDataset.search}. */
  search(fp: Fingerprint, window: number, size: number, minTokens: number): ExactSearch;
  /** See {@link ExactDataset.searchNear}. */
  searchNear(sig: Uint32Array, near: number, queryChars: number, queryTokens: number): NearMatch[];
  document(d: number): DocInfo;
  documentIndex(id: string): number;
  documentText(d: number): string | null;
}

/** An exact dataset. Built by `Engine.addDataset`, or restored from a snapshot. */
export class ExactDataset implements ExactSearchable {
  descriptor: DatasetDescriptor & { kind: 'exact' };
  readonly params: string;
  readonly docs: DocInfo[] = [];
  /** Document id → index in `docs`. */
  private readonly docIndexById = new Map<string, number>();
  /**
   * Postings in the sorted index, all in the dataset's own instance of the core: the sorted keys,
   * the prefix table and the three posting columns in key order (nothing of them is kept in
   * JavaScript as well). Documents added since the last sort wait in `staged` (insertion order)
   * and are merged in by the next search or export.
   */
  private index: IndexLayout = layoutIndex(null, 0, 0);
  private staged = new StagedPostings();
  private tokenTotal = 0;
  private byteTotal = 0;
  /** Bumped by every change to the postings, so a streamed export notices one (CONFLICT). */
  private version = 0;
  /** MinHash signatures, NEAR_K u32 per document (document d at d · NEAR_K). */
  private sigs = new Uint32Array(0);
  /**
   * LSH table, built lazily before a near search: (band hash, document) pairs sorted by hash in two
   * typed arrays (no JS objects per entry, so a 50 M-fingerprint dataset's 4 M band entries cost the
   * garbage collector nothing and take 8 bytes each), documents ascending within a hash.
   */
  private lshKeys: Uint32Array | null = null;
  private lshDocs: Uint32Array | null = null;
  /** Entry t: the first LSH entry whose hash's top bits are ≥ t (a search's range in one load). */
  private lshPrefix: Uint32Array | null = null;
  private lshShift = 32;
  /** Per document: its text as indexed (for alignment), or null when not kept. */
  private readonly texts: Array<string | null> = [];
  /** Texts of a loaded file not decoded yet: {@link documentText} decodes one on first use. */
  private lazyTexts: LazyTexts | null = null;
  private textTotal = 0;

  constructor(
    private readonly core: Core,
    descriptor: DatasetDescriptor,
    params: string,
  ) {
    // Only the documented fields (snapshots refuse unknown ones rather than dropping them).
    this.descriptor = exactDescriptor(descriptor);
    this.params = params;
  }

  /** True unless the descriptor says `keep_text: false`. */
  get keepsText(): boolean {
    return this.descriptor.keep_text !== false;
  }

  /**
   * Add one document's fingerprint (made with this dataset's params from `text`, the document's
   * text as a string); the text itself is kept for alignment unless `keep_text: false`.
   */
  addDocument(doc: DatasetDocument, text: string, fp: DocumentFingerprint): void {
    if (this.docIndexById.has(doc.id))
      throw new TrainprintError('ALREADY_EXISTS', `document "${doc.id}" is already in dataset "${this.descriptor.id}"`);
    const w = fp.winnow!;
    const sig = fp.minhash;
    if (!sig || sig.length !== NEAR_K)
      throw new TrainprintError(
        'INVALID_INPUT',
        `document "${doc.id}": exact datasets need a ${NEAR_K}-value MinHash signature`,
      );
    const d = this.docs.length;
    const meta = doc.meta === undefined ? {} : { meta: doc.meta };
    this.docs.push({ id: doc.id, chars: text.length, tokens: fp.token_count, bytes: fp.byte_length, ...meta });
    this.keepText(this.keepsText ? text : null, fp.byte_length);
    this.docIndexById.set(doc.id, d);
    this.tokenTotal += fp.token_count;
    this.byteTotal += fp.byte_length;
    this.staged.add(d, w.hashes, w.starts, w.ends);
    if (w.hashes.length > 0) this.version++;
    this.addSignature(d, sig);
  }

  private keepText(text: string | null, bytes: number): void {
    this.texts.push(text);
    if (text !== null) this.textTotal += bytes;
  }

  /** Index of the document with id `id`, or −1. */
  documentIndex(id: string): number {
    return this.docIndexById.get(id) ?? -1;
  }

  /**
   * The text of document `d` as it was indexed (offsets of matches point into it), or null when
   * the dataset does not keep text (`keep_text: false`, or restored from a snapshot written
   * before datasets kept text).
   */
  documentText(d: number): string | null {
    const text = this.texts[d] ?? null;
    if (text !== null || this.lazyTexts === null || !this.lazyTexts.has(d)) return text;
    return (this.texts[d] = this.lazyTexts.get(d));
  }

  /** Every kept text, decoded (for an export). */
  private allTexts(): Array<string | null> {
    if (this.lazyTexts !== null) for (let d = 0; d < this.texts.length; d++) this.documentText(d);
    this.lazyTexts = null;
    return this.texts;
  }

  /** Store document `d`'s signature and put it in the LSH bands (unless it is the empty set's). */
  private addSignature(d: number, sig: Uint32Array): void {
    this.sigs = withRoom(this.sigs, (d + 1) * NEAR_K, d * NEAR_K);
    const off = d * NEAR_K;
    this.sigs.set(sig, off);
    this.lshKeys = null; // rebuilt before the next near search
    this.lshDocs = null;
    this.lshPrefix = null;
  }

  /**
   * Build the LSH table from the stored signatures (every band of every non-empty signature): the
   * pairs made in document order, sorted stably by hash.
   */
  private ensureLsh(): void {
    if (this.lshKeys) return;
    const docs = this.docs.length;
    const keys = new Uint32Array(docs * NEAR_BANDS);
    const vals = new Uint32Array(docs * NEAR_BANDS);
    let m = 0;
    for (let d = 0; d < docs; d++) {
      const off = d * NEAR_K;
      if (isEmptySignature(this.sigs, off)) continue;
      for (let b = 0; b < NEAR_BANDS; b++, m++) {
        keys[m] = bandKey(this.sigs, off, b);
        vals[m] = d;
      }
    }
    this.lshKeys = m === keys.length ? keys : keys.slice(0, m);
    this.lshDocs = m === vals.length ? vals : vals.slice(0, m);
    sortByKeyU32(this.lshKeys, this.lshDocs);
    // without it, each of the 32 band searches is a binary search of ~22 steps over millions of entries
    const bits = lshBits(docs * NEAR_BANDS);
    const shift = 32 - bits;
    const prefix = new Uint32Array(2 ** bits + 1);
    for (let i = 0; i < m; i++) prefix[(this.lshKeys[i] >>> shift) + 1]++;
    for (let t = 1; t < prefix.length; t++) prefix[t] += prefix[t - 1];
    this.lshPrefix = prefix;
    this.lshShift = shift;
  }

  /**
   * Near-duplicate documents of a query (MinHash-LSH, module comment): the documents sharing at
   * least one band with `sig` (the query's OPH-128 signature over all its shingles) whose
   * estimated Jaccard similarity is ≥ `near`, each as one match spanning the whole query and the
   * whole document, best first.
   */
  searchNear(sig: Uint32Array, near: number, queryChars: number, queryTokens: number): NearMatch[] {
    if (sig.length !== NEAR_K || isEmptySignature(sig, 0)) return [];
    this.ensureLsh();
    const keys = this.lshKeys!;
    const vals = this.lshDocs!;
    const prefix = this.lshPrefix!;
    const candidates = new Set<number>();
    for (const key of bandKeys(sig)) {
      const slot = key >>> this.lshShift;
      const from = lowerBound(keys, key, prefix[slot], prefix[slot + 1]);
      for (let i = from; i < keys.length && keys[i] === key; i++) candidates.add(vals[i]);
    }
    const sigOf = (d: number) => this.sigs.subarray(d * NEAR_K, (d + 1) * NEAR_K);
    const query = { chars: queryChars, tokens: queryTokens };
    return nearMatches(this.descriptor.id, sig, candidates, sigOf, (d) => this.docs[d], near, query);
  }

  /** @internal a copy of document `d`'s MinHash signature (tests, diagnostics). */
  signature(d: number): Uint32Array {
    return this.sigs.slice(d * NEAR_K, (d + 1) * NEAR_K);
  }

  /**
   * Merge the staged postings into the sorted index (radix sort in the core, ../../assembly/sortindex.ts).
   * The index is laid out afresh at the start of the arena: keys, prefix table, then the posting
   * columns, all in key order, so a search reads its few postings and an export streams every column
   * in order. The staged rows (after the already sorted ones, which are copied back out first when
   * there are any) are the sort's input, read a chunk at a time, and the postings travel with their
   * keys (no gather from random rows afterwards). What the memory holds afterwards is the index, one
   * chunk of input and one bucket of scratch: no second copy of the keys (a sort's second copy would
   * stay, since WebAssembly memory never shrinks).
   */
  private ensureSorted(): void {
    if (this.staged.length === 0) return;
    const core = this.core;
    const input = this.index.n > 0 ? this.staged.after(this.sortedColumns()) : this.staged;
    const n = input.length;
    const lenBits = packBits(input.maxStart, input.maxLength);
    core.guard(() => {
      const L = core.layout();
      const index = layoutIndex(L, n, lenBits);
      const countsPtr = L.take(RADIX_BUCKETS * 4);
      const chunk = [L.take(SORT_CHUNK * 8), L.take(SORT_CHUNK * 4), L.take(SORT_CHUNK * 4), L.take(SORT_CHUNK * 4)];
      L.commit();
      core.u32(countsPtr, RADIX_BUCKETS).fill(0);
      for (let from = 0; from < n; from += SORT_CHUNK) {
        const to = Math.min(n, from + SORT_CHUNK);
        core.u64(chunk[0], to - from).set(input.rows(from, to).keys);
        core.raw.radixCount(chunk[0], to - from, countsPtr);
      }
      const cursors = core.u32(countsPtr, RADIX_BUCKETS);
      let largest = 0;
      for (let b = 0, at = 0; b < RADIX_BUCKETS; b++) {
        const c = cursors[b];
        cursors[b] = at;
        at += c;
        largest = Math.max(largest, c);
      }
      const { keysPtr, docPtr, spanPtr, endPtr } = index;
      const cols = lenBits > 0 ? 2 : 3;
      const [k, d, s, e] = chunk;
      for (let from = 0; from < n; from += SORT_CHUNK) {
        const to = Math.min(n, from + SORT_CHUNK);
        const rows = input.rows(from, to);
        core.u64(k, to - from).set(rows.keys);
        core.u32(d, to - from).set(rows.doc);
        if (lenBits > 0) packSpans(rows.start, rows.end, 0, to - from, lenBits, core.u32(s, to - from));
        else {
          core.u32(s, to - from).set(rows.start);
          core.u32(e, to - from).set(rows.end);
        }
        core.raw.radixScatter(k, d, s, e, cols, to - from, countsPtr, keysPtr, docPtr, spanPtr, endPtr);
      }
      const scratchPtr = L.take(largest * 20);
      L.commit();
      core.raw.sortBuckets(keysPtr, docPtr, spanPtr, endPtr, cols, countsPtr, scratchPtr);
      core.raw.buildPrefix(index.keysPtr, n, index.prefixBits, index.prefixPtr);
      core.raw.buildFilter(index.keysPtr, n, index.filterPtr, index.filterWords);
      this.index = index;
    });
    this.staged = new StagedPostings();
    this.version++;
    // signatures grow by doubling while documents are added; keep only what is used
    if (this.sigs.length !== this.docs.length * NEAR_K) this.sigs = this.sigs.slice(0, this.docs.length * NEAR_K);
  }

  /** Copies of the sorted index's columns (key order). */
  private sortedColumns(): PostingColumns {
    const { n, keysPtr, docPtr } = this.index;
    const core = this.core;
    return {
      keys: core.u64(keysPtr, n).slice(),
      doc: core.u32(docPtr, n).slice(),
      start: this.starts(0, n),
      end: this.ends(0, n),
    };
  }

  /** Starts of the sorted postings [from, to), unpacked. */
  private starts(from: number, to: number): Uint32Array {
    const { spanPtr, lenBits } = this.index;
    const spans = this.core.u32(spanPtr + from * 4, to - from);
    if (lenBits === 0) return spans.slice();
    const out = new Uint32Array(to - from);
    for (let i = 0; i < out.length; i++) out[i] = spans[i] >>> lenBits;
    return out;
  }

  /** Ends of the sorted postings [from, to), unpacked. */
  private ends(from: number, to: number): Uint32Array {
    const { spanPtr, endPtr, lenBits } = this.index;
    if (lenBits === 0) return this.core.u32(endPtr + from * 4, to - from).slice();
    const spans = this.core.u32(spanPtr + from * 4, to - from);
    const mask = (1 << lenBits) - 1;
    const out = new Uint32Array(to - from);
    for (let i = 0; i < out.length; i++) out[i] = (spans[i] >>> lenBits) + (spans[i] & mask);
    return out;
  }

  /**
   * Lay out sorted columns (a snapshot's) as the index, its spans packed in `lenBits` bits of length ({@link packBits};
   * 0: unpacked): see {@link ensureSorted}.
   */
  private placeSorted(
    keys: BigUint64Array,
    doc: Uint32Array,
    start: Uint32Array,
    end: Uint32Array,
    lenBits: number,
  ): void {
    const core = this.core;
    const n = keys.length;
    core.guard(() => {
      const L = core.layout();
      const index = layoutIndex(L, n, lenBits);
      L.commit();
      core.u64(index.keysPtr, n).set(keys);
      core.u32(index.docPtr, n).set(doc);
      if (lenBits > 0) packSpans(start, end, 0, n, lenBits, core.u32(index.spanPtr, n));
      else {
        core.u32(index.spanPtr, n).set(start);
        core.u32(index.endPtr, n).set(end);
      }
      core.raw.buildPrefix(index.keysPtr, n, index.prefixBits, index.prefixPtr);
      core.raw.buildFilter(index.keysPtr, n, index.filterPtr, index.filterWords);
      this.index = index;
    });
    this.version++;
  }

  /**
   * Chain the hits of `fp`'s shingles into passages per source document.
   * `minTokens`: shortest passage reported (in query tokens).
   */
  search(fp: Fingerprint, window: number, size: number, minTokens: number): ExactSearch {
    return finish(this.searchSteps(fp, window, size, minTokens));
  }

  /**
   * How many of `hashes` (query shingle hashes, as `fp.shingles.hashes`) the index holds: the lookups of
   * {@link search} and nothing else; with `hitAt`, each found one is marked 1 there. A query of which it holds none has no seed match and no candidate here
   * (a scan's clean outputs, most of a stream, are told apart by this alone).
   * @example dataset.shinglesFound(fp.shingles.hashes) // 0
   */
  shinglesFound(hashes: BigUint64Array, hitAt?: Uint8Array): number {
    this.ensureSorted();
    const m = hashes.length;
    if (m === 0 || this.index.n === 0) return 0;
    const core = this.core;
    let found = 0;
    for (let from = 0; from < m; from += LOOKUP_BATCH) {
      const count = Math.min(LOOKUP_BATCH, m - from);
      found += lookupBatch(core, this.index, hashes.subarray(from, from + count), (found, outPtr, spacePtr) => {
        if (hitAt && found > 0) {
          // the found ones listed by the core: a loop here over every answer, most of them absent, ran as baseline code
          const listed = core.raw.foundQueries(outPtr, count, spacePtr);
          for (const k of core.u32(spacePtr, listed)) hitAt[from + k] = 1;
        }
        return found;
      });
    }
    return found;
  }

  /**
   * {@link search} as steps (src/util/steps.ts): it pauses between batches of LOOKUP_BATCH query shingles,
   * between documents and every ITEMS_PER_PAUSE hits, so a sliced search of a large query gives the event
   * loop a turn. Each batch is looked up and read in one go, so another search of this dataset in between
   * cannot disturb it (they share the scratch space); documents added while it is paused make it start again
   * in one go, so the result is always that of one index.
   */
  *searchSteps(fp: Fingerprint, window: number, size: number, minTokens: number): Steps<ExactSearch> {
    this.ensureSorted();
    const version = this.version;
    const m = fp.shingles.hashes.length;
    const hitAt = new Uint8Array(m);
    if (m === 0 || this.index.n === 0) return emptySearch(m);
    const core = this.core;
    // the hits in the order found (query shingle, then postings order), a batch of lookups at a time
    const parts: SeedHits[] = [];
    let shinglesHit = 0;
    for (let from = 0; from < m; from += LOOKUP_BATCH) {
      if (from > 0) {
        yield PAUSE;
        if (this.version !== version) return this.search(fp, window, size, minTokens);
      }
      const count = Math.min(LOOKUP_BATCH, m - from);
      const hashes = fp.shingles.hashes.subarray(from, from + count);
      const part = lookupBatch(core, this.index, hashes, (found, outPtr, spacePtr) => {
        shinglesHit += found;
        return found === 0 ? null : this.hitsOf(outPtr, spacePtr, from, count, hitAt);
      });
      if (part) parts.push(part);
    }
    const hits = parts.length === 0 ? seedHitColumns(0) : inChainOrder(joinedHits(parts));
    const chained = yield* chainSteps(hits, fp, window, size, minTokens);
    return seedSearch(this.descriptor.id, hitAt, fp, window, chained, (d) => this.docs[d].id, shinglesHit);
  }

  /**
   * The postings of a batch of `count` lookups (query shingles `from` on) as hit columns, in the order found:
   * `outPtr` holds each query's first posting and postings (`lookupSorted`), `spacePtr` is room for the list of
   * the found ones (`foundQueries`: a query's search runs too rarely for a loop over every answer to be optimised);
   * each found one is marked in `hitAt`. Counted first, so that the columns are made once at their size.
   */
  private hitsOf(outPtr: number, spacePtr: number, from: number, count: number, hitAt: Uint8Array): SeedHits {
    const core = this.core;
    const { n, docPtr, spanPtr, endPtr, lenBits } = this.index;
    const found = core.u32(spacePtr, core.raw.foundQueries(outPtr, count, spacePtr));
    const out = core.u32(outPtr, count * 2);
    let total = 0;
    for (const k of found) total += out[2 * k + 1];
    const hits = seedHitColumns(total);
    const docs = core.u32(docPtr, n),
      spans = core.u32(spanPtr, n);
    const ends = lenBits > 0 ? null : core.u32(endPtr, n);
    const mask = (1 << lenBits) - 1;
    let h = 0;
    for (const k of found) {
      const postings = out[2 * k + 1];
      hitAt[from + k] = 1;
      const weight = 1 / postings;
      for (let j = out[2 * k], e = j + postings; j < e; j++, h++) {
        const start = ends ? spans[j] : spans[j] >>> lenBits;
        hits.doc[h] = docs[j];
        hits.item[h] = from + k;
        hits.start[h] = start;
        hits.end[h] = ends ? ends[j] : start + (spans[j] & mask);
        hits.weight[h] = weight;
      }
    }
    return hits;
  }

  /**
   * Sort the documents added since the last search into the index, and build the near-duplicate table: what
   * the next search would do first (`Corpus.prepareSearch` calls it before a server reports ready).
   * @example dataset.prepare() // the next search starts at once
   */
  prepare(): void {
    this.ensureSorted();
    this.ensureLsh();
  }

  /**
   * Sort the documents added since the last search into the index (`Corpus.finalizeDataset`): its stats then
   * describe the index as a file or a later load holds it, not the staging arrays.
   * @example dataset.finalize(); dataset.stats().index_bytes
   */
  finalize(): void {
    this.ensureSorted();
  }

  /** Document `d`'s id, length and counts. @example dataset.document(0).id */
  document(d: number): DocInfo {
    return this.docs[d];
  }

  /** Size and content. */
  stats(): DatasetStats {
    const text = this.keepsText || this.textTotal > 0 ? { text_bytes: this.textTotal } : {};
    return {
      id: this.descriptor.id,
      name: this.descriptor.name,
      kind: 'exact',
      documents: this.docs.length,
      tokens: this.tokenTotal,
      fingerprints: this.index.n + this.staged.length,
      bytes: this.byteTotal,
      index_bytes: this.indexBytes(),
      params: this.params,
      kb_dataset: this.descriptor.kb_dataset ?? null,
      models: [...(this.descriptor.models ?? [])],
      ...text,
    };
  }

  /**
   * What the index holds, in bytes: 20 per posting sorted (key and three u32 columns) and per
   * posting staged since the last sort (its arrays' whole capacity), the prefix table and presence filter of all of them,
   * the MinHash signatures (their arrays' capacity) and the LSH table. The prefix table, filter and LSH tables are
   * counted before a search builds them, so the figure does not jump at the first search. The rest of
   * the dataset's WebAssembly memory is scratch of at most one call (the sort's: a chunk of input and
   * one bucket); document metadata is not counted.
   */
  private indexBytes(): number {
    const { n: sorted, lenBits } = this.index;
    const n = sorted + this.staged.length;
    const prefix = n > 0 ? (2 ** prefixBitsFor(n) + 1) * 4 + filterWordsFor(n) * 8 : 0;
    const postings = sorted * (lenBits > 0 ? 16 : 20) + this.staged.bytes;
    return postings + prefix + this.sigs.byteLength + lshBytes(this.docs.length);
  }

  /** The dataset as plain data (sorted), for snapshots. */
  toData(): ExactDatasetData {
    this.ensureSorted();
    const { keys, doc, start, end } = this.sortedColumns();
    return {
      descriptor: this.descriptor,
      params: this.params,
      docs: this.docs,
      keys,
      postDoc: doc,
      postStart: start,
      postEnd: end,
      minhash: this.sigs.slice(0, this.docs.length * NEAR_K),
      ...(this.allTexts().some((t) => t !== null) ? { texts: this.texts.slice() } : {}),
    };
  }

  /**
   * The dataset for a streamed export (./snapshot-stream.ts): like {@link toData} without copying
   * the index: every column is read from the core a chunk at a time, in order (the columns are kept
   * in key order, so a chunk is one copy). Adding documents while it is read fails the read (CONFLICT).
   */
  toSource(): ExactDatasetSource {
    this.ensureSorted();
    const { n, keysPtr, docPtr } = this.index;
    const version = this.version;
    const core = this.core;
    const column = <T extends BigUint64Array | Uint32Array>(read: (from: number, to: number) => T) => ({
      length: n,
      read: (from: number, to: number): T => {
        if (this.version !== version) {
          throw new TrainprintError('CONFLICT', `dataset "${this.descriptor.id}" changed during its export`);
        }
        return read(from, to);
      },
    });
    return {
      descriptor: this.descriptor,
      params: this.params,
      docs: this.docs.slice(),
      keys: column((from, to) => core.u64(keysPtr + from * 8, to - from).slice()),
      postDoc: column((from, to) => core.u32(docPtr + from * 4, to - from).slice()),
      postStart: column((from, to) => this.starts(from, to)),
      postEnd: column((from, to) => this.ends(from, to)),
      minhash: this.sigs.subarray(0, this.docs.length * NEAR_K),
      ...(this.allTexts().some((t) => t !== null) ? { texts: this.texts.slice() } : {}),
    };
  }

  /**
   * Rebuild a dataset from snapshot data (keys already sorted and checked); with `lazyTexts`
   * (`decodeDatasetLazily`) the texts are decoded when first read. The dataset keeps `data.minhash` as it is (a
   * decode's fresh copy) and grows it by copying.
   */
  static fromData(core: Core, data: ExactDatasetData & { readonly lazyTexts?: LazyTexts }): ExactDataset {
    const ds = new ExactDataset(core, data.descriptor, data.params);
    const lazy = data.lazyTexts ?? null;
    ds.lazyTexts = lazy;
    for (const [i, d] of data.docs.entries()) {
      if (ds.docIndexById.has(d.id))
        throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `document id "${d.id}" appears twice`);
      ds.docs.push(d);
      if (lazy === null) ds.keepText(data.texts?.[i] ?? null, d.bytes);
      else {
        ds.texts.push(null);
        if (lazy.has(i)) ds.textTotal += d.bytes;
      }
      ds.docIndexById.set(d.id, i);
      ds.tokenTotal += d.tokens;
      ds.byteTotal += d.bytes;
    }
    const { postDoc, postStart, postEnd } = data;
    // columns the decode's one pass vouched for (./posting-spans.ts) bring their extent; any other are walked here
    const { maxStart, maxLength } = vouchedExtent(data) ?? spansWithinDocuments(data);
    ds.placeSorted(data.keys, postDoc, postStart, postEnd, packBits(maxStart, maxLength));
    // the decode's own copy of the signatures (checked: docs × NEAR_K) is their store, where a copy of it, set a
    // document at a time, cost 1.25 MB of fresh pages and thousands of calls for an archive of 2,453 documents
    if (data.docs.length > 0) ds.sigs = data.minhash as Uint32Array<ArrayBuffer>; // a decode reads no shared memory
    return ds;
  }
}

/**
 * Each span against its document, with the largest start and the longest span (their packing): one pass over the
 * postings, run once per import, interpreted, ≈ 50 ns a posting.
 */
function spansWithinDocuments(data: ExactDatasetData): SpanExtent {
  const { postDoc, postStart, postEnd } = data;
  const n = data.keys.length;
  const chars = Float64Array.from(data.docs, (d) => d.chars);
  let maxStart = 0;
  let maxLength = 0;
  for (let i = 0; i < n; i++) {
    const start = postStart[i];
    const end = postEnd[i];
    if (!(end <= chars[postDoc[i]]))
      throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `posting ${i} ends past its document`);
    if (start > maxStart) maxStart = start;
    if (end - start > maxLength) maxLength = end - start;
  }
  return { maxStart, maxLength };
}

/** Columns of postings: keys (halves swapped: {@link swapHalves}), document, span start and end. */
interface PostingColumns {
  readonly keys: BigUint64Array;
  readonly doc: Uint32Array;
  readonly start: Uint32Array;
  readonly end: Uint32Array;
}

/**
 * Rows of the first block of staged postings, and the most a block holds (80 MB): the first block
 * doubles in place (by copying) up to SORT_CHUNK rows, so a dataset of a few documents holds 20 KB
 * of staging, not 1.3 MB; each later block is twice its predecessor's size. Every block starts at a
 * multiple of SORT_CHUNK rows, so that a chunk of the sort's input never straddles two.
 */
const FIRST_BLOCK = 1 << 10;
const NO_ROWS = new Uint32Array(0);
const LARGEST_BLOCK = 1 << 22;

/** A block of staged postings: its first row, and its columns (one buffer). */
interface StagedBlock extends PostingColumns {
  readonly first: number;
}

/**
 * Postings, in insertion order, not yet in the sorted index: JS columns in blocks, with the longest
 * span and the largest start so far (what packing the spans needs). Blocks, not one set of arrays
 * grown by doubling: doubling copied every posting again at each step (≈ 0.4 s at 52 M). Few
 * blocks, each one allocation: every large allocation counts towards V8's external-memory limit,
 * and 20 MB blocks made it collect the whole heap twice as often during a build.
 */
class StagedPostings {
  private blocks: StagedBlock[] = [];
  length = 0;
  maxStart = 0;
  maxLength = 0;

  /** Bytes of the blocks' capacity. */
  get bytes(): number {
    return this.blocks.reduce((sum, b) => sum + b.keys.length * 20, 0);
  }

  /** Append one document's postings (keys stored with their halves swapped: {@link swapHalves}). */
  add(d: number, hashes: BigUint64Array, starts: Uint32Array, ends: Uint32Array): void {
    this.append({ keys: hashes, doc: NO_ROWS, start: starts, end: ends }, 0, hashes.length, d);
  }

  /** The rows of `first` (columns), then these. */
  after(first: PostingColumns): StagedPostings {
    const out = new StagedPostings();
    out.append(first, 0, first.keys.length);
    for (const block of this.blocks) out.append(block, 0, Math.min(block.keys.length, this.length - block.first));
    return out;
  }

  /** Views of rows [from, to), which lie in one block (`from` a multiple of SORT_CHUNK). */
  rows(from: number, to: number): PostingColumns {
    let i = this.blocks.length - 1;
    while (this.blocks[i].first > from) i--;
    const b = this.blocks[i];
    const at = from - b.first,
      end = at + (to - from);
    return {
      keys: b.keys.subarray(at, end),
      doc: b.doc.subarray(at, end),
      start: b.start.subarray(at, end),
      end: b.end.subarray(at, end),
    };
  }

  /**
   * Append rows [from, to) of `src`: with `doc` given, the rows of a new document (keys as
   * fingerprinted, swapped here; `src.doc` unused), else staged rows (copied as they are).
   */
  private append(src: PostingColumns, from: number, to: number, doc?: number): void {
    this.noteSpans(src.start, src.end, from, to);
    while (from < to) {
      let last = this.blocks[this.blocks.length - 1];
      if (!last || this.length === last.first + last.keys.length) {
        const growFirst = last !== undefined && last.keys.length < SORT_CHUNK;
        const rows = !last ? FIRST_BLOCK : Math.min(LARGEST_BLOCK, 2 * last.keys.length);
        const buffer = new ArrayBuffer(rows * 20);
        const block: StagedBlock = {
          first: growFirst ? 0 : this.length,
          keys: new BigUint64Array(buffer, 0, rows),
          doc: new Uint32Array(buffer, rows * 8, rows),
          start: new Uint32Array(buffer, rows * 12, rows),
          end: new Uint32Array(buffer, rows * 16, rows),
        };
        if (growFirst) {
          block.keys.set(last!.keys);
          block.doc.set(last!.doc);
          block.start.set(last!.start);
          block.end.set(last!.end);
          this.blocks[0] = block;
        } else this.blocks.push(block);
        last = block;
      }
      const used = this.length - last.first;
      const count = Math.min(to - from, last.keys.length - used);
      const whole = from === 0 && count === src.keys.length;
      last.keys.set(whole ? src.keys : src.keys.subarray(from, from + count), used);
      if (doc === undefined) last.doc.set(whole ? src.doc : src.doc.subarray(from, from + count), used);
      else {
        swapHalves(last.keys, used, count);
        last.doc.fill(doc, used, used + count);
      }
      last.start.set(whole ? src.start : src.start.subarray(from, from + count), used);
      last.end.set(whole ? src.end : src.end.subarray(from, from + count), used);
      this.length += count;
      from += count;
    }
  }

  private noteSpans(start: Uint32Array, end: Uint32Array, from: number, to: number): void {
    let maxStart = this.maxStart,
      maxLength = this.maxLength;
    for (let i = from; i < to; i++) {
      if (start[i] > maxStart) maxStart = start[i];
      if (end[i] - start[i] > maxLength) maxLength = end[i] - start[i];
    }
    this.maxStart = maxStart;
    this.maxLength = maxLength;
  }
}

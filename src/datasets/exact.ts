/**
 * Exact datasets: the winnowed fingerprints of a reference corpus with postings (document,
 * span), in a sorted u64 index that lives in its own WebAssembly instance (dropping the dataset
 * frees it). Searching fingerprints the query once, looks up every query shingle (the winnowing
 * guarantee makes any shared run of ≥ window + size − 1 words hit), and chains the hits of each
 * source document into passages with spans in both texts.
 *
 * Near-duplicate documents (MinHash-LSH): every document also keeps a one-permutation MinHash
 * signature (k = 128 u32, seed 0, densified) of ALL its word 5-gram shingles, and an LSH index of
 * b = 32 bands × r = 4 rows: a typed open-addressing table from a 53-bit hash of each band's 4 values to the
 * documents with that band. A query's candidates are the documents sharing at least one band
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
 * lower threshold costs estimates, not false matches; the bands keep the lookup cost independent
 * of the number of documents (32 Map lookups + the candidates' estimates).
 */
import { Core } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import type { Fingerprint } from '../types.js';
import type { DocumentFingerprint } from '../fingerprint/fingerprint.js';
import { jaccardEstimate } from '../sketch/minhash.js';
import { finish, ITEMS_PER_PAUSE, PAUSE, type Steps } from '../util/steps.js';
import { hitRegions, type CandidateRegion, type RegionHit, type RegionRule } from './regions.js';
import { EXACT_MINHASH_K, type ExactDatasetData } from './snapshot.js';
import type { Chunked, ExactDatasetSource } from './snapshot-stream.js';
import type { DatasetDescriptor, DatasetDocument, DatasetStats, DocInfo, ExactMatch, NearMatch } from './types.js';

export type { CandidateRegion } from './regions.js';
export type { DatasetDescriptor, DatasetDocument, DatasetStats, DocInfo, ExactMatch, NearMatch, PortraitMatch, SearchMatch } from './types.js';

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
 * 53-bit hash of the NEAR_ROWS u32 of band `band` of `sig` (at `offset`): two independent 32-bit
 * multiply-xorshift mixes (Math.imul, no strings, no BigInt), 32 + 21 bits. Exact integers, so
 * the same in every runtime; a collision between different bands only adds a candidate, whose
 * estimate is then computed from the full signatures anyway.
 */
function bandKey(sig: Uint32Array, offset: number, band: number): number {
  let h1 = 0x3c6ef372 ^ band;
  let h2 = 0x6a09e667 ^ Math.imul(band, 0x27d4eb2f);
  const start = offset + band * NEAR_ROWS;
  for (let i = start; i < start + NEAR_ROWS; i++) {
    const v = sig[i];
    h1 = Math.imul(h1 ^ v, 0x9e3779b1);
    h1 ^= h1 >>> 15;
    h2 = Math.imul(h2 ^ v, 0x85ebca77);
    h2 ^= h2 >>> 13;
  }
  // murmur3 fmix32 on both halves
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b);
  h1 = Math.imul(h1 ^ (h1 >>> 13), 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0x85ebca6b);
  h2 = Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  return (h1 >>> 0) * 0x200000 + (h2 >>> 11);
}

/**
 * Index keys are fingerprints with their 32-bit halves swapped, in place over `count` values from
 * `at`. A winnowed fingerprint is the minimum of `window` hashes, so its high bits lean towards 0
 * and a prefix table over the top bits would crowd its low slots; its low half is uniform. Swapped,
 * every slot holds about the same number of keys and a lookup ends in a short scan.
 */
function swapHalves(a: BigUint64Array, at: number, count: number): void {
  const u = new Uint32Array(a.buffer, a.byteOffset + at * 8, count * 2);
  for (let i = 0; i < u.length; i += 2) {
    const t = u[i];
    u[i] = u[i + 1];
    u[i + 1] = t;
  }
}

/** Table slot of a 53-bit band hash (its low 32 bits, remixed). */
function slotOf(key: number): number {
  const lo = key % 4294967296;
  return Math.imul((lo ^ (key / 4294967296)) >>> 0, 0x9e3779b1) >>> 0;
}

/** The signature of the empty shingle set (a text of no words): never indexed, never matched. */
function isEmptySignature(sig: Uint32Array, offset: number): boolean {
  for (let i = offset; i < offset + NEAR_K; i++) if (sig[i] !== 0xffffffff) return false;
  return true;
}

const MIN_PREFIX_BITS = 4;
const MAX_PREFIX_BITS = 22;

/** Prefix-table size for n keys: about two keys per slot, 2^4 … 2^22 slots. */
function prefixBitsFor(n: number): number {
  return Math.max(MIN_PREFIX_BITS, Math.min(MAX_PREFIX_BITS, Math.ceil(Math.log2(Math.max(n, 1))) - 1));
}

/** A hit of a query shingle in a document: the shingle index and the source span of the posting. */
type Hit = RegionHit & { readonly doc: number };

/**
 * A candidate document from its hits sorted by query shingle (or null). A document's hits are grouped
 * into regions (./regions.ts): hits close in the source (≤ 2,000 characters apart) and in the query
 * (≤ CANDIDATE_WINDOW shingles apart); a region with ≥ CANDIDATE_MIN_HITS distinct query shingles
 * says where to align (its spans in both texts). A document's strength is its best region's.
 */
function candidateOf(own: readonly Hit[], qStarts: Uint32Array, qEnds: Uint32Array): ExactCandidate | null {
  const regions = hitRegions(own.slice(), qStarts, qEnds, EXACT_REGIONS);
  const best = regions[0];
  return best ? { doc: own[0].doc, hits: best.hits, strength: best.strength, regions } : null;
}

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

/** A document of an exact dataset worth aligning with the query (see {@link ExactSearch.candidates}). */
export interface ExactCandidate {
  /** Index of the document in the dataset. */
  readonly doc: number;
  /** Distinct query shingles found in the document's best region. */
  readonly hits: number;
  /**
   * What candidates are ranked by: the best region's strength (each distinct query shingle found
   * counts 1 / the number of postings it hit, so text many documents share counts little).
   */
  readonly strength: number;
  /** Where the hits cluster (query and source spans of the hits), most hits first. */
  readonly regions: readonly CandidateRegion[];
}


/** Seed matches at least this dense are reported as verbatim (a verbatim copy's density is ≈ 1). */
const SEED_VERBATIM_DENSITY = 0.9;
/** Query shingles looked up between two pauses of a sliced search (about a millisecond of work). */
const LOOKUP_BATCH = 1 << 14;
/** Query shingles per stretch in which a candidate document's hits are counted. */
export const CANDIDATE_WINDOW = 256;
/** Fewest distinct hits within one stretch for a document to be a candidate. */
export const CANDIDATE_MIN_HITS = 2;
/** Exact hits further apart than 2,000 characters in the source start another region; 8 regions a document. */
const EXACT_REGIONS: RegionRule = {
  sourceGap: 2000, queryGap: CANDIDATE_WINDOW, minHits: CANDIDATE_MIN_HITS, minDensity: 0, most: 8,
};

/** An exact dataset. Built by `Engine.addDataset`, or restored from a snapshot. */
export class ExactDataset {
  descriptor: DatasetDescriptor & { kind: 'exact' };
  readonly params: string;
  readonly docs: DocInfo[] = [];
  /** Document id → index in `docs`. */
  private readonly docIndexById = new Map<string, number>();
  private n = 0;
  private keys = new BigUint64Array(1024);
  private postDoc = new Uint32Array(1024);
  private postStart = new Uint32Array(1024);
  private postEnd = new Uint32Array(1024);
  private tokenTotal = 0;
  private byteTotal = 0;
  // Sorted index in the dataset's own instance; rebuilt lazily after additions.
  private sorted = false;
  private prefixBits = MIN_PREFIX_BITS;
  private keysPtr = 0;
  private prefixPtr = 0;
  /** Sorted position → row of the columns (null: identity, as after an import). */
  private perm: Uint32Array | null = null;
  private persistent = 0;
  /** Counts additions: a search paused in between starts again (see {@link searchSteps}). */
  private version = 0;
  /** MinHash signatures, NEAR_K u32 per document (document d at d · NEAR_K). */
  private sigs = new Uint32Array(64 * NEAR_K);
  /**
   * LSH table, built lazily before a near search: open addressing over typed arrays (no JS
   * objects per entry, so a 50 M-fingerprint dataset's 4 M band entries cost the garbage
   * collector nothing): band hash → document index + 1 (0 = empty slot), duplicates kept.
   */
  private lshKeys: Float64Array | null = null;
  private lshDocs: Uint32Array | null = null;
  /** Per document: its text as indexed (for alignment), or null when not kept. */
  private readonly texts: Array<string | null> = [];
  private textTotal = 0;

  constructor(private readonly core: Core, descriptor: DatasetDescriptor, params: string) {
    // Only the documented fields (snapshots refuse unknown ones rather than dropping them).
    const { id, name, models, kb_dataset, meta, keep_text } = descriptor;
    this.descriptor = {
      id, kind: 'exact',
      ...(name === undefined ? {} : { name }),
      ...(keep_text === false ? { keep_text: false } : {}),
      ...(models === undefined ? {} : { models: [...models] }),
      ...(kb_dataset === undefined ? {} : { kb_dataset }),
      ...(meta === undefined ? {} : { meta }),
    };
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
    if (this.docIndexById.has(doc.id)) throw new TrainprintError('ALREADY_EXISTS', `document "${doc.id}" is already in dataset "${this.descriptor.id}"`);
    const w = fp.winnow!;
    const sig = fp.minhash;
    if (!sig || sig.length !== NEAR_K) throw new TrainprintError('INVALID_INPUT', `document "${doc.id}": exact datasets need a ${NEAR_K}-value MinHash signature`);
    const d = this.docs.length;
    const meta = doc.meta === undefined ? {} : { meta: doc.meta };
    this.docs.push({ id: doc.id, chars: text.length, tokens: fp.token_count, bytes: fp.byte_length, ...meta });
    this.keepText(this.keepsText ? text : null, fp.byte_length);
    this.docIndexById.set(doc.id, d);
    this.tokenTotal += fp.token_count;
    this.byteTotal += fp.byte_length;
    this.reserveRows(this.n + w.hashes.length);
    this.keys.set(w.hashes, this.n);
    swapHalves(this.keys, this.n, w.hashes.length);
    this.postDoc.fill(d, this.n, this.n + w.hashes.length);
    this.postStart.set(w.starts, this.n);
    this.postEnd.set(w.ends, this.n);
    this.n += w.hashes.length;
    this.sorted = false;
    this.version++;
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
    return this.texts[d] ?? null;
  }

  /** Store document `d`'s signature and put it in the LSH bands (unless it is the empty set's). */
  private addSignature(d: number, sig: Uint32Array): void {
    const need = (d + 1) * NEAR_K;
    if (need > this.sigs.length) {
      let cap = this.sigs.length;
      while (cap < need) cap *= 2;
      const grown = new Uint32Array(cap);
      grown.set(this.sigs.subarray(0, d * NEAR_K));
      this.sigs = grown;
    }
    const off = d * NEAR_K;
    this.sigs.set(sig, off);
    this.lshKeys = null; // rebuilt before the next near search
    this.lshDocs = null;
  }

  /** Build the LSH table from the stored signatures (every band of every non-empty signature). */
  private ensureLsh(): void {
    if (this.lshKeys) return;
    const docs = this.docs.length;
    let slots = 1024;
    while (slots < docs * NEAR_BANDS * 2) slots *= 2;
    const keys = new Float64Array(slots);
    const vals = new Uint32Array(slots);
    const mask = slots - 1;
    for (let d = 0; d < docs; d++) {
      const off = d * NEAR_K;
      if (isEmptySignature(this.sigs, off)) continue;
      for (let b = 0; b < NEAR_BANDS; b++) {
        const key = bandKey(this.sigs, off, b);
        let i = slotOf(key) & mask;
        while (vals[i] !== 0) i = (i + 1) & mask;
        keys[i] = key;
        vals[i] = d + 1;
      }
    }
    this.lshKeys = keys;
    this.lshDocs = vals;
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
    const mask = keys.length - 1;
    const candidates = new Set<number>();
    for (let b = 0; b < NEAR_BANDS; b++) {
      const key = bandKey(sig, 0, b);
      for (let i = slotOf(key) & mask; vals[i] !== 0; i = (i + 1) & mask) {
        if (keys[i] === key) candidates.add(vals[i] - 1);
      }
    }
    const matches: NearMatch[] = [];
    for (const d of candidates) {
      const score = jaccardEstimate(sig, this.sigs.subarray(d * NEAR_K, (d + 1) * NEAR_K));
      if (score < near) continue;
      matches.push({
        dataset_id: this.descriptor.id,
        document_id: this.docs[d].id,
        query_start: 0,
        query_end: queryChars,
        source_start: 0,
        source_end: this.docs[d].chars,
        kind: 'near',
        tokens: queryTokens,
        score,
      });
    }
    return matches.sort((a, b) => b.score - a.score);
  }

  /** @internal a copy of document `d`'s MinHash signature (tests, diagnostics). */
  signature(d: number): Uint32Array {
    return this.sigs.slice(d * NEAR_K, (d + 1) * NEAR_K);
  }

  private reserveRows(rows: number): void {
    if (rows <= this.keys.length) return;
    let cap = this.keys.length;
    while (cap < rows) cap *= 2;
    const grow = <T extends BigUint64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a.subarray(0, this.n) as never);
      return b;
    };
    this.keys = grow(this.keys, (c) => new BigUint64Array(c));
    this.postDoc = grow(this.postDoc, (c) => new Uint32Array(c));
    this.postStart = grow(this.postStart, (c) => new Uint32Array(c));
    this.postEnd = grow(this.postEnd, (c) => new Uint32Array(c));
  }

  /**
   * Sort the keys (radix sort in the core) and build the prefix table. The JS columns stay in
   * insertion order (so more documents can be appended and the whole re-sorted); `perm` maps a
   * sorted position to its row, read only for the few postings a search hits — permuting the
   * columns themselves would be three random gathers over the whole index (≈ 1 s each at 50 M).
   */
  private ensureSorted(): void {
    if (this.sorted) return;
    const core = this.core;
    const n = this.n;
    core.guard(() => {
      const L = core.layout();
      const keysPtr = L.take(n * 8);
      const valsPtr = L.take(n * 4);
      const tmpK = L.take(n * 8);
      const tmpV = L.take(n * 4);
      L.commit();
      core.u64(keysPtr, n).set(this.keys.subarray(0, n));
      const vals = core.u32(valsPtr, n);
      for (let i = 0; i < n; i++) vals[i] = i;
      core.raw.sortPairs(keysPtr, valsPtr, n, tmpK, tmpV);
      this.perm = core.u32(valsPtr, n).slice();
      this.placeIndex(n, keysPtr);
    });
    this.sorted = true;
  }

  /** Keys are sorted at `keysPtr` in the arena: put the prefix table after them. */
  private placeIndex(n: number, keysPtr: number): void {
    const core = this.core;
    this.prefixBits = prefixBitsFor(n);
    const L = core.layout();
    this.keysPtr = L.take(n * 8);
    if (this.keysPtr !== keysPtr) throw new TrainprintError('WASM_ABORT', 'index layout mismatch');
    this.prefixPtr = L.take((2 ** this.prefixBits + 1) * 4);
    L.commit();
    core.raw.buildPrefix(this.keysPtr, n, this.prefixBits, this.prefixPtr);
    this.persistent = L.size;
  }

  /**
   * Chain the hits of `fp`'s shingles into passages per source document.
   * `minTokens`: shortest passage reported (in query tokens).
   */
  search(fp: Fingerprint, window: number, size: number, minTokens: number): ExactSearch {
    return finish(this.searchSteps(fp, window, size, minTokens));
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
    const result: ExactSearch = {
      matches: [], chains: [], tested: m, hits: 0, hitAt: new Uint8Array(m), candidates: [],
    };
    if (m === 0 || this.n === 0) return result;
    const core = this.core;
    // each document's hits in the order found: query shingle, then postings order
    const byDoc = new Map<number, Hit[]>();
    for (let from = 0; from < m; from += LOOKUP_BATCH) {
      if (from > 0) {
        yield PAUSE;
        if (this.version !== version) return this.search(fp, window, size, minTokens);
      }
      const count = Math.min(LOOKUP_BATCH, m - from);
      core.guard(() => {
        const L = core.layout(this.persistent);
        const qPtr = L.take(count * 8);
        const outPtr = L.take(count * 8);
        L.commit();
        core.u64(qPtr, count).set(fp.shingles.hashes.subarray(from, from + count));
        swapHalves(core.u64(qPtr, count), 0, count);
        const found = core.raw.lookupSorted(this.keysPtr, this.prefixPtr, this.prefixBits, qPtr, count, outPtr);
        if (found === 0) return;
        const out = core.u32(outPtr, count * 2);
        const perm = this.perm;
        for (let k = 0; k < count; k++) {
          const postings = out[2 * k + 1];
          if (postings === 0) continue;
          const i = from + k;
          result.hits++;
          result.hitAt[i] = 1;
          for (let j = out[2 * k], e = j + postings; j < e; j++) {
            const r = perm ? perm[j] : j;
            const doc = this.postDoc[r];
            let own = byDoc.get(doc);
            if (!own) byDoc.set(doc, (own = []));
            own.push({ doc, i, start: this.postStart[r], end: this.postEnd[r], weight: 1 / postings });
          }
        }
      });
    }
    // sorted by (doc, i, start) as one stable sort would: documents in order, each document's hits sorted
    const docs = [...byDoc.keys()].sort((a, b) => a - b);
    const hitsOf: Hit[][] = [];
    for (const doc of docs) {
      yield PAUSE;
      hitsOf.push(byDoc.get(doc)!.sort((a, b) => a.i - b.i || a.start - b.start));
    }
    const candidates: ExactCandidate[] = [];
    for (const own of hitsOf) {
      yield PAUSE;
      const candidate = candidateOf(own, fp.shingles.starts, fp.shingles.ends);
      if (candidate) candidates.push(candidate);
    }
    result.candidates.push(...candidates.sort((a, b) => b.strength - a.strength || a.doc - b.doc));
    // Chain hits along diagonals: a reused passage keeps (source offset − query offset) nearly
    // constant, so a repeated phrase elsewhere in the source starts its own chain instead of
    // breaking the true one. Gaps up to 2·window + size − 1 shingles are bridged: winnowing keeps
    // a fingerprint in every window of verbatim text, and one edited word destroys the `size`
    // shingles that contain it, so the hits on either side of a single edit between verbatim runs
    // of ≥ window + size − 1 words are at most (window − 1) + size + 1 + (window − 1) shingles
    // apart. A passage with isolated word edits thus stays one chain instead of falling apart
    // into fragments (each of which may be too short to report). The diagonal may drift by a
    // quarter of the gap (inserted/deleted words).
    interface Chain { doc: number; firstI: number; lastI: number; lastQ: number; delta: number; start: number; end: number; count: number }
    const qs = fp.shingles.starts;
    const maxGap = 2 * window + size - 1;
    const done: Chain[] = [];
    let active: Chain[] = [];
    let chained = 0;
    for (const own of hitsOf) {
      done.push(...active);
      active = [];
      for (const h of own) {
        if (++chained % ITEMS_PER_PAUSE === 0) yield PAUSE;
        const q = qs[h.i];
        const delta = h.start - q;
        let best: Chain | undefined;
        let bestDrift = Infinity;
        const still: Chain[] = [];
        for (const c of active) {
          if (h.i - c.lastI > maxGap) { done.push(c); continue; }
          still.push(c);
          if (c.lastI === h.i) continue;
          const drift = Math.abs(delta - c.delta);
          if (drift <= 32 + (q - c.lastQ) / 4 && drift < bestDrift) { best = c; bestDrift = drift; }
        }
        active = still;
        if (best) {
          best.lastI = h.i;
          best.lastQ = q;
          best.delta = delta;
          best.start = Math.min(best.start, h.start);
          best.end = Math.max(best.end, h.end);
          best.count++;
        } else {
          active.push({ doc: h.doc, firstI: h.i, lastI: h.i, lastQ: q, delta, start: h.start, end: h.end, count: 1 });
        }
      }
    }
    done.push(...active);
    const { matches, chains } = result;
    const density = 2 / (window + 1);
    for (const c of done) {
      const tokens = Math.min(c.lastI - c.firstI + size, fp.token_count);
      if (tokens < minTokens) continue;
      chains.push({ hits: c.count, first: c.firstI, shingles: c.lastI - c.firstI + 1 });
      const score = Math.min(1, c.count / Math.max(1, (c.lastI - c.firstI + 1) * density));
      matches.push({
        dataset_id: this.descriptor.id,
        document_id: this.docs[c.doc].id,
        query_start: fp.shingles.starts[c.firstI],
        query_end: fp.shingles.ends[c.lastI],
        source_start: c.start,
        source_end: c.end,
        kind: 'exact',
        tokens,
        score,
        reuse: score >= SEED_VERBATIM_DENSITY ? 'verbatim' : 'edited',
        similarity: score,
        aligned: false,
      });
    }
    return result;
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
      fingerprints: this.n,
      bytes: this.byteTotal,
      index_bytes: this.n * 20 + (2 ** prefixBitsFor(this.n) + 1) * 4 + this.docs.length * NEAR_K * 4,
      params: this.params,
      kb_dataset: this.descriptor.kb_dataset ?? null,
      models: [...(this.descriptor.models ?? [])],
      ...text,
    };
  }

  /** The dataset as plain data (sorted), for snapshots. */
  toData(): ExactDatasetData {
    this.ensureSorted();
    const n = this.n;
    const perm = this.perm;
    const sortedColumn = (a: Uint32Array) => {
      if (!perm) return a.slice(0, n);
      const out = new Uint32Array(n);
      for (let i = 0; i < n; i++) out[i] = a[perm[i]];
      return out;
    };
    return {
      descriptor: this.descriptor,
      params: this.params,
      docs: this.docs,
      keys: this.core.u64(this.keysPtr, n).slice(),
      postDoc: sortedColumn(this.postDoc),
      postStart: sortedColumn(this.postStart),
      postEnd: sortedColumn(this.postEnd),
      minhash: this.sigs.slice(0, this.docs.length * NEAR_K),
      ...(this.texts.some((t) => t !== null) ? { texts: this.texts.slice() } : {}),
    };
  }

  /**
   * The dataset for a streamed export (./snapshot-stream.ts): like {@link toData} without copying
   * the index: the sorted keys are read from the core and the posting columns gathered in sorted
   * order a chunk at a time. Adding documents while it is read fails the read (CONFLICT).
   */
  toSource(): ExactDatasetSource {
    this.ensureSorted();
    const n = this.n;
    const keysPtr = this.keysPtr;
    const perm = this.perm;
    const unchanged = () => {
      if (this.n !== n || this.keysPtr !== keysPtr) throw new TrainprintError('CONFLICT', `dataset "${this.descriptor.id}" changed during its export`);
    };
    const sortedColumn = (a: () => Uint32Array): Chunked<Uint32Array> => ({
      length: n,
      read: (from, to) => {
        unchanged();
        const column = a();
        if (!perm) return column.slice(from, to);
        const out = new Uint32Array(to - from);
        for (let i = from; i < to; i++) out[i - from] = column[perm[i]];
        return out;
      },
    });
    return {
      descriptor: this.descriptor,
      params: this.params,
      docs: this.docs.slice(),
      keys: { length: n, read: (from, to) => { unchanged(); return this.core.u64(keysPtr + from * 8, to - from).slice(); } },
      postDoc: sortedColumn(() => this.postDoc),
      postStart: sortedColumn(() => this.postStart),
      postEnd: sortedColumn(() => this.postEnd),
      minhash: this.sigs.subarray(0, this.docs.length * NEAR_K),
      ...(this.texts.some((t) => t !== null) ? { texts: this.texts.slice() } : {}),
    };
  }

  /** Rebuild a dataset from snapshot data (keys already sorted and checked). */
  static fromData(core: Core, data: ExactDatasetData): ExactDataset {
    const ds = new ExactDataset(core, data.descriptor, data.params);
    for (const [i, d] of data.docs.entries()) {
      if (ds.docIndexById.has(d.id)) throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `document id "${d.id}" appears twice`);
      ds.docs.push(d);
      ds.keepText(data.texts?.[i] ?? null, d.bytes);
      ds.docIndexById.set(d.id, i);
      ds.tokenTotal += d.tokens;
      ds.byteTotal += d.bytes;
    }
    const n = data.keys.length;
    for (let i = 0; i < n; i++) {
      if (data.postEnd[i] > data.docs[data.postDoc[i]].chars) throw new TrainprintError('SNAPSHOT_INCOMPATIBLE', `posting ${i} ends past its document`);
    }
    ds.reserveRows(n);
    ds.keys.set(data.keys);
    ds.postDoc.set(data.postDoc);
    ds.postStart.set(data.postStart);
    ds.postEnd.set(data.postEnd);
    ds.n = n;
    core.guard(() => {
      const L = core.layout();
      const keysPtr = L.take(n * 8);
      L.commit();
      core.u64(keysPtr, n).set(data.keys);
      ds.placeIndex(n, keysPtr);
    });
    ds.perm = null; // columns arrive in sorted order
    ds.sorted = true;
    for (let d = 0; d < data.docs.length; d++) ds.addSignature(d, data.minhash.subarray(d * NEAR_K, (d + 1) * NEAR_K));
    return ds;
  }
}

/**
 * Candidate retrieval that survives word edits, reordering and rewording: an index of unordered
 * pairs of nearby content words (Porter stems, stop words out), built from the texts an exact
 * dataset keeps. Exact 5-grams vanish under a 30 % edit rate (about one in six survives, and the
 * winnowed index keeps about one in five of those); a pair of content words survives as long as
 * both words stay and stay close, in any order, whatever happens to the words between them.
 *
 * The pairs are those of ./content-pairs.ts, sampled alike in documents and queries (so a shared pair is
 * always found when it is kept), one in PAIR_SAMPLE: ≈ 2 × 12 B / PAIR_SAMPLE = 8 B per content word. Postings
 * are (hash, document, offset of the first word) sorted by hash; a query's pairs are found by binary search,
 * and hits are grouped into regions like exact hits (close in the query and in the document).
 *
 * The index is built on the first search that needs it (or by `Corpus.prepareSearch`), from the kept texts
 * (nothing more is stored in snapshots), and rebuilt after documents are added.
 */
import { columnRegions, type CandidateRegion, type HitColumns, type RegionRule } from '../datasets/regions.js';
import { withRoom } from '../util/grow.js';
import { sortByKeyU32, sortedByKeyU32 } from '../util/sorted.js';
import { finish, ITEMS_PER_PAUSE, PAUSE, type Steps } from '../util/steps.js';
import { contentPairs, PairScratch, type ContentPairs, type TokenSource } from './content-pairs.js';

/** Fewest distinct sampled pairs in one region for a document to be a candidate. */
export const PAIR_MIN_HITS = 3;
/**
 * A region of RARE_PAIR_HITS pairs (fewer than PAIR_MIN_HITS) is a candidate too when its pairs are rare: their
 * strength (Σ PAIR_WEIGHT / postings) reaches RARE_PAIR_STRENGTH, as one pair held by this document alone does.
 * Word-level obfuscation leaves a short reused passage two of its kept pairs; two pairs that few documents hold
 * meet in one region of a document by chance far less often than two common ones. On PAN 2013 as retrieval
 * (bench/eval-pan-retrieval.mjs): query-side recall of random obfuscation 0.890 → 0.900, translation 0.924 → 0.923,
 * verified share ≥ 0.975, the same characters on documents without reuse; analyze's median time +15 %. Any two
 * pairs (PAIR_MIN_HITS 2) found 0.903, but at 52 M fingerprints (bench/analyze-budget.mjs), whose scaled corpus
 * repeats its pairs in many copies, five aligned passages took 13.5–14.5 ms instead of 5–7: common pairs are
 * what made the chance candidates.
 */
export const RARE_PAIR_HITS = 2;
export const RARE_PAIR_STRENGTH = 0.5;
/** Fewest hits a document needs to be looked at for a region at all. */
const FEWEST_HITS = Math.min(PAIR_MIN_HITS, RARE_PAIR_HITS);

/**
 * Fewest hits per query pair spanned for a region: reuse keeps a good share of its pairs together
 * (a third and more under heavy edits), chance hits of a long query are a few scattered ones.
 */
export const PAIR_MIN_DENSITY = 0.05;

/**
 * Bits of a pair hash that pick its bucket of the index: about 8 postings a bucket (a lookup is a short search
 * in one cache-friendly stretch, however large the index), between 2^12 and 2^24 buckets (0.5 B a posting).
 */
const prefixBitsFor = (postings: number): number => Math.min(24, Math.max(12, Math.ceil(Math.log2(postings / 8 + 1))));

/**
 * The end of the run of `h` that starts at `keys[lo]` (sorted keys): galloping, then a binary search, so a pair
 * with many postings costs a logarithm of them rather than a walk over them all.
 */
function endOfRun(keys: Uint32Array, lo: number, h: number): number {
  let step = 1,
    hi = lo + 1;
  while (hi < keys.length && keys[hi] === h) {
    lo = hi;
    hi = Math.min(keys.length, hi + step);
    step *= 2;
  }
  // keys[lo] === h, and hi is the end or a key > h
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] === h) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Pairs occurring in more documents than this are too common to say anything. */
export const MAX_POSTINGS = 64;
/**
 * A shared pair of content words is weaker evidence than a shared 5-gram (pairs recur by topic):
 * a pair hit counts this much of an exact hit in a candidate's strength.
 */
const PAIR_WEIGHT = 0.5;
/**
 * Regions of pair hits: ≤ 2,000 characters apart in the document, ≤ 64 sampled query pairs (≈ 128 content
 * words) apart in the query, PAIR_MIN_HITS (or RARE_PAIR_HITS rare ones) and PAIR_MIN_DENSITY; 8 a document.
 */
const PAIR_REGIONS: RegionRule = {
  sourceGap: 2000,
  queryGap: 64,
  minHits: PAIR_MIN_HITS,
  minDensity: PAIR_MIN_DENSITY,
  most: 8,
  rare: { hits: RARE_PAIR_HITS, strength: RARE_PAIR_STRENGTH },
};

/** Postings of a content-word index in document order, not sorted yet: (pair hash, document, offset). */
export interface PairPostings {
  readonly keys: Uint32Array;
  readonly docs: Uint32Array;
  readonly offsets: Uint32Array;
}

/**
 * The postings of an index being built: (pair hash, document, offset) columns that grow by doubling, and a
 * document's pairs (or a stretch of documents' postings) appended at once.
 */
export class PostingColumns {
  keys = new Uint32Array(1 << 16);
  docs = new Uint32Array(1 << 16);
  offsets = new Uint32Array(1 << 16);
  size = 0;

  /** Append the first `m` pairs (hashes `H`, first-word starts `S`) of document `doc`. */
  append(doc: number, H: Uint32Array, S: Uint32Array, m: number): void {
    const at = this.#room(m);
    this.keys.set(H.subarray(0, m), at);
    this.docs.fill(doc, at, at + m);
    this.offsets.set(S.subarray(0, m), at);
  }

  /** Append postings made apart (documents after those appended so far). */
  appendAll(p: PairPostings): void {
    const at = this.#room(p.keys.length);
    this.keys.set(p.keys, at);
    this.docs.set(p.docs, at);
    this.offsets.set(p.offsets, at);
  }

  /** The postings appended, as arrays of their length (copies). */
  copied(): PairPostings {
    const n = this.size;
    return { keys: this.keys.slice(0, n), docs: this.docs.slice(0, n), offsets: this.offsets.slice(0, n) };
  }

  /** Room for `m` more postings; returns where they go. */
  #room(m: number): number {
    const at = this.size,
      need = at + m;
    this.keys = withRoom(this.keys, need, at);
    this.docs = withRoom(this.docs, need, at);
    this.offsets = withRoom(this.offsets, need, at);
    this.size = need;
    return at;
  }
}

/**
 * Append the postings of documents `first`, `first + 1`, … (their `texts`; null: not kept, skipped) to `out`, a
 * pause after each document. With `tokens`, each text is tokenized in the core ({@link pairsOfTokens}).
 */
export function* collectSteps(
  texts: ReadonlyArray<string | null>,
  first: number,
  tokens: TokenSource | undefined,
  out: PostingColumns,
): Steps<void> {
  const scratch = tokens ? new PairScratch(tokens) : null;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    if (text === null) continue;
    yield PAUSE;
    const n = scratch ? scratch.pairsOf(text) : -1;
    if (scratch && n >= 0) out.append(first + i, scratch.H, scratch.S, n);
    else {
      const p = contentPairs(text);
      out.append(first + i, p.hashes, p.starts, p.hashes.length);
    }
  }
}

/**
 * The postings of documents `first`, `first + 1`, … in one go (see {@link collectSteps}): a stretch of a
 * dataset's documents, which another thread can make (the 'pair-postings' work of src/corpus/work.ts).
 * @example pairPostings(['first text', null, 'third text'], 100).docs // 100s and 102s, in text order
 */
export function pairPostings(texts: ReadonlyArray<string | null>, first: number, tokens?: TokenSource): PairPostings {
  const out = new PostingColumns();
  finish(collectSteps(texts, first, tokens, out));
  return out.copied();
}

/** The postings range of each pair of a query (see {@link ContentWordIndex.postings}). */
export interface QueryPostings {
  readonly from: Uint32Array;
  readonly to: Uint32Array;
}

/** A candidate document from content-word pairs. */
export interface PairCandidate {
  readonly doc: number;
  readonly hits: number;
  readonly strength: number;
  readonly regions: CandidateRegion[];
}

/**
 * What the search reads of a content-word pair index: where the query's pairs sit, which documents hold
 * one, and the candidate documents. {@link ContentWordIndex} is one; a dataset in a database gives one
 * built from the postings a query fetched (src/corpus/stored.ts).
 */
export interface PairIndex {
  postings(q: ContentPairs): QueryPostings;
  holdsAt(at: QueryPostings, i: number, doc: number): boolean;
  candidateSteps(q: ContentPairs, at: QueryPostings): Steps<PairCandidate[]>;
}

/**
 * The content-word pair index of a set of documents (see the module comment).
 * @example
 * const index = ContentWordIndex.build(['first document text', 'second document text'])
 * index.candidates(contentPairs('a query that rewords the second document'))
 */
export class ContentWordIndex implements PairIndex {
  /** Where each bucket's keys start (a key's bucket is its top 32 − shift bits): a lookup searches one bucket. */
  private readonly buckets: Uint32Array;
  /** A key's bucket is `key >>> shift`. */
  private readonly shift: number;
  /** Where {@link postingSteps} leaves the keys it read ahead (kept so that the reads are not optimised away). */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: written so that the read-ahead is not optimised away
  #touched = 0;
  /** Hit counts (then write cursors) per document for {@link candidateSteps}, zeroed between uses. */
  #hitCounts: Uint32Array | null = null;

  private constructor(
    private readonly keys: Uint32Array,
    private readonly docs: Uint32Array,
    private readonly offsets: Uint32Array,
    /** Documents indexed (documents without text are skipped but keep their number). */
    readonly documents: number,
  ) {
    const bits = prefixBitsFor(keys.length);
    this.shift = 32 - bits;
    this.buckets = new Uint32Array((1 << bits) + 1);
    // an index loop, not for…of: in a fresh process this runs interpreted over hundreds of thousands of keys
    for (let i = 0; i < keys.length; i++) this.buckets[(keys[i] >>> this.shift) + 1]++;
    for (let b = 0; b < 1 << bits; b++) this.buckets[b + 1] += this.buckets[b];
  }

  /**
   * Build from the documents' texts (null: not kept, skipped). With `tokens` (the core's tokenizer), each text
   * is tokenized in the core ({@link pairsOfTokens}); the index is the same either way.
   */
  static build(texts: ReadonlyArray<string | null>, tokens?: TokenSource): ContentWordIndex {
    return finish(ContentWordIndex.buildSteps(texts, tokens));
  }

  /**
   * {@link build} as steps (src/util/steps.ts): it pauses between documents and between the passes over the
   * postings, so the first search of a large dataset, which builds its index, shares the thread too.
   */
  static *buildSteps(texts: ReadonlyArray<string | null>, tokens?: TokenSource): Steps<ContentWordIndex> {
    const out = new PostingColumns();
    yield* collectSteps(texts, 0, tokens, out);
    yield PAUSE;
    const index = ContentWordIndex.fromColumns(out, texts.length);
    yield PAUSE;
    return index;
  }

  /**
   * The index of postings gathered in document order (`out`, whose columns it takes as scratch) of a dataset
   * of `documents` documents: sorted by pair hash, stably, so in document order within a hash.
   * @example ContentWordIndex.fromColumns(columns, texts.length)
   */
  static fromColumns(out: PostingColumns, documents: number): ContentWordIndex {
    const [keys, docs, offsets] = sortedByKeyU32(out.size, out.keys, out.docs, out.offsets);
    return new ContentWordIndex(keys, docs, offsets, documents);
  }

  /**
   * An index of columns already in its order (keys ascending, documents ascending within a key), as
   * {@link columns} gives them: the index of a file (./content-index-file.ts), which checks that order first.
   * @example ContentWordIndex.fromSortedColumns(keys, docs, offsets, 727)
   */
  static fromSortedColumns(
    keys: Uint32Array,
    docs: Uint32Array,
    offsets: Uint32Array,
    documents: number,
  ): ContentWordIndex {
    return new ContentWordIndex(keys, docs, offsets, documents);
  }

  /**
   * The index's postings, sorted by pair hash and by document within a hash (its own arrays: not to be changed).
   * @example const { keys } = index.columns() // Uint32Array, ascending
   */
  columns(): { readonly keys: Uint32Array; readonly docs: Uint32Array; readonly offsets: Uint32Array } {
    return { keys: this.keys, docs: this.docs, offsets: this.offsets };
  }

  /**
   * An index of the given postings (pair hash, document, offset of the first word), in that order within
   * each hash: the postings a query fetched from a database, for instance. Sorts the arrays in place.
   * @example ContentWordIndex.fromPostings(hashes, docs, offsets, 1000).postings(contentPairs(query))
   */
  static fromPostings(keys: Uint32Array, docs: Uint32Array, offsets: Uint32Array, documents: number): ContentWordIndex {
    sortByKeyU32(keys, docs, offsets);
    return new ContentWordIndex(keys, docs, offsets, documents);
  }

  /**
   * Where each pair of a query sits in the index: its postings are `[from[i], to[i])` (empty when
   * the index lacks it). One binary search per pair, done once per query and shared by the
   * candidate search and every {@link holdsAt} of the alignment stage.
   */
  postings(q: ContentPairs): QueryPostings {
    return finish(this.postingSteps(q));
  }

  /** {@link postings} as steps (src/util/steps.ts): it pauses every ITEMS_PER_PAUSE query pairs. */
  *postingSteps(q: ContentPairs): Steps<QueryPostings> {
    const n = q.hashes.length,
      keys = this.keys;
    const from = new Uint32Array(n),
      to = new Uint32Array(n);
    // Each pair's bucket, then a read of its bucket's first key, each in a pass of its own: loads that do
    // not depend on one another, so the processor has many of these cache misses (a large index is far
    // bigger than the caches) under way at once, instead of one after another inside each binary search.
    for (let i = 0; i < n; i++) {
      const b = q.hashes[i] >>> this.shift;
      from[i] = this.buckets[b];
      to[i] = this.buckets[b + 1];
    }
    let touched = 0;
    for (let i = 0; i < n; i++) if (from[i] < to[i]) touched ^= keys[from[i]];
    this.#touched = touched;
    for (let i = 0; i < n; i++) {
      if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE;
      const h = q.hashes[i];
      let lo = from[i],
        hi = to[i];
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keys[mid] < h) lo = mid + 1;
        else hi = mid;
      }
      from[i] = lo;
      to[i] = lo < keys.length && keys[lo] === h ? endOfRun(keys, lo, h) : lo;
    }
    return { from, to };
  }

  /**
   * True when document `doc` holds query pair `i` (binary search inside the pair's postings,
   * which are in document order).
   */
  holdsAt(at: QueryPostings, i: number, doc: number): boolean {
    let lo = at.from[i],
      hi = at.to[i];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.docs[mid] < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo < at.to[i] && this.docs[lo] === doc;
  }

  /** Bytes the index takes (keys, documents, offsets, bucket table). */
  get bytes(): number {
    return this.keys.length * 12 + this.buckets.byteLength;
  }

  /**
   * Documents sharing ≥ PAIR_MIN_HITS sampled pairs with one stretch of the query (its pairs:
   * {@link contentPairs}), strongest first.
   */
  candidates(q: ContentPairs, at: QueryPostings = this.postings(q)): PairCandidate[] {
    return finish(this.candidateSteps(q, at));
  }

  /**
   * {@link candidates} as steps (src/util/steps.ts): it pauses every ITEMS_PER_PAUSE query pairs and
   * between documents. The hits are grouped by document in the order found (by query pair), and each group is
   * ordered by (offset, query pair) by columnRegions.
   */
  *candidateSteps(q: ContentPairs, at: QueryPostings): Steps<PairCandidate[]> {
    // First count the hits per document: one with fewer than FEWEST_HITS can hold no region, and most
    // documents a query's pairs touch are such (chance pairs), so their hits are never written.
    let counts = this.#hitCounts ?? new Uint32Array(this.documents);
    this.#hitCounts = null; // taken: a search sliced into steps may run beside another
    const touched: number[] = [];
    for (let i = 0; i < q.hashes.length; i++) {
      if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE;
      const lo = at.from[i],
        end = at.to[i];
      if (end - lo > MAX_POSTINGS) continue;
      for (let k = lo; k < end; k++) {
        const doc = this.docs[k];
        if (doc >= counts.length) counts = withRoom(counts, doc + 1); // a document added since
        if (counts[doc]++ === 0) touched.push(doc);
      }
    }
    // the documents that can hold a region, in document order, each given its range [from, to) of the hit
    // columns; from here on a document's count is 1 + where its next hit goes (0: not kept)
    const kept = touched.filter((doc) => counts[doc] >= FEWEST_HITS).sort((a, b) => a - b);
    for (const doc of touched) if (counts[doc] < FEWEST_HITS) counts[doc] = 0;
    const from = new Uint32Array(kept.length),
      to = new Uint32Array(kept.length);
    let total = 0;
    kept.forEach((doc, t) => {
      from[t] = total;
      to[t] = total += counts[doc];
      counts[doc] = from[t] + 1;
    });
    const offsets = new Uint32Array(total),
      hits: HitColumns = {
        item: new Uint32Array(total),
        start: offsets,
        end: offsets,
        weight: new Float64Array(total),
        key: new Uint32Array(total),
      };
    // then write them, in query-pair order within each document
    for (let i = 0; i < q.hashes.length; i++) {
      if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE;
      const lo = at.from[i],
        end = at.to[i];
      if (end - lo > MAX_POSTINGS) continue;
      const weight = PAIR_WEIGHT / (end - lo);
      for (let k = lo; k < end; k++) {
        const doc = this.docs[k],
          next = counts[doc];
        if (next === 0) continue;
        counts[doc] = next + 1;
        hits.item[next - 1] = i;
        offsets[next - 1] = this.offsets[k];
        hits.weight[next - 1] = weight;
        hits.key[next - 1] = q.hashes[i];
      }
    }
    for (const doc of kept) counts[doc] = 0;
    this.#hitCounts = counts;
    const out: PairCandidate[] = [];
    const order = new Uint32Array(total);
    for (let t = 0; t < kept.length; t++) {
      yield PAUSE;
      // columnRegions orders the hits by (offset, query pair) itself: they were written in query-pair order
      const regions = columnRegions(hits, from[t], to[t], q.starts, q.ends, PAIR_REGIONS, order);
      const best = regions[0];
      if (best) out.push({ doc: kept[t], hits: best.hits, strength: best.strength, regions });
    }
    return out.sort((a, b) => b.strength - a.strength || a.doc - b.doc);
  }
}

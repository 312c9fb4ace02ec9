/**
 * The pure half of an exact search (./exact.ts): from the postings a query's shingles hit, the candidate documents
 * the second stage aligns and the chains of hits along diagonals that the search reports as seed matches. The hits
 * are columns of numbers ({@link SeedHits}), not an object a hit: a scan's search of a 1 kB output meets a few dozen
 * hits, read by code that runs too rarely to be optimised, so each object, map entry and comparator call was paid for
 * in full (the in-memory search made them per hit; a database's hits, ../corpus/stored.ts, arrive as objects and are
 * turned into columns once).
 */
import type { Fingerprint } from '../types.js';
import { finish, ITEMS_PER_PAUSE, PAUSE, type Steps } from '../util/steps.js';
import { type CandidateRegion, columnRegions, type HitColumns, type RegionHit, type RegionRule } from './regions.js';

/** A hit of a query shingle in a document: the shingle index and the source span of the posting. */
export type ShingleHit = RegionHit & { readonly doc: number };

/**
 * Hits as columns: hit h is query shingle `item[h]` found in document `doc[h]` at [start[h], end[h]), weighing
 * `weight[h]` (1 / the postings of its key); `key` is all 0 (exact hits have none: one offset is one place).
 */
export interface SeedHits extends HitColumns {
  readonly doc: Uint32Array;
}

/** A document of an exact dataset worth aligning with the query (see ExactSearch.candidates, ./exact.ts). */
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

/** Query shingles per stretch in which a candidate document's hits are counted. */
export const CANDIDATE_WINDOW = 256;
/** Fewest distinct hits within one stretch for a document to be a candidate. */
export const CANDIDATE_MIN_HITS = 2;
/** Exact hits further apart than 2,000 characters in the source start another region; 8 regions a document. */
const EXACT_REGIONS: RegionRule = {
  sourceGap: 2000,
  queryGap: CANDIDATE_WINDOW,
  minHits: CANDIDATE_MIN_HITS,
  minDensity: 0,
  most: 8,
};

/** A chain of hits that {@link chainHits} reports: its document, query shingles, source span and hit count. */
export interface SeedChain {
  readonly doc: number;
  readonly firstI: number;
  readonly lastI: number;
  readonly start: number;
  readonly end: number;
  readonly count: number;
  /** Query words the chain covers. */
  readonly tokens: number;
}

/** What {@link chainHits} makes of a query's hits: candidate documents and the chains long enough to report. */
export interface ChainedHits {
  readonly candidates: ExactCandidate[];
  readonly chains: SeedChain[];
}

/**
 * Room for `n` hits as columns (one buffer), to be filled in.
 * @example const hits = seedHitColumns(3); hits.doc[0] = 7
 */
export function seedHitColumns(n: number): SeedHits {
  const buffer = new ArrayBuffer(n * 28);
  return {
    weight: new Float64Array(buffer, 0, n),
    doc: new Uint32Array(buffer, n * 8, n),
    item: new Uint32Array(buffer, n * 12, n),
    start: new Uint32Array(buffer, n * 16, n),
    end: new Uint32Array(buffer, n * 20, n),
    key: new Uint32Array(buffer, n * 24, n),
  };
}

/** The columns a hit is copied by (`key` stays 0). */
const COLUMNS = ['weight', 'doc', 'item', 'start', 'end'] as const;

/**
 * The hits of several lookups (in the order given) as one set of columns.
 * @example joinedHits([seedHitColumns(2), seedHitColumns(3)]).doc.length // 5
 */
export function joinedHits(parts: readonly SeedHits[]): SeedHits {
  if (parts.length === 1) return parts[0];
  const out = seedHitColumns(parts.reduce((n, p) => n + p.doc.length, 0));
  let at = 0;
  for (const p of parts) {
    for (const c of COLUMNS) out[c].set(p[c], at);
    at += p.doc.length;
  }
  return out;
}

/**
 * `hits` in chaining order — by document, then query shingle, then source start, hits alike in all three kept in
 * the order given (as one stable sort would) — the columns themselves when they are in it already (an in-memory
 * index's postings of one document, the usual search: one pass, no sort), else a sorted copy.
 * @example inChainOrder(hits).doc // ascending
 */
export function inChainOrder(hits: SeedHits): SeedHits {
  const { doc, item, start } = hits;
  const n = doc.length;
  let k = 1;
  while (k < n && (doc[k - 1] - doc[k] || item[k - 1] - item[k] || start[k - 1] - start[k]) <= 0) k++;
  if (k >= n) return hits;
  const order = Array.from({ length: n }, (_, h) => h).sort(
    (x, y) => doc[x] - doc[y] || item[x] - item[y] || start[x] - start[y] || x - y,
  );
  const out = seedHitColumns(n);
  for (const c of COLUMNS) for (let h = 0; h < n; h++) out[c][h] = hits[c][order[h]];
  return out;
}

/**
 * The pure half of an exact search: from the postings the query's shingles hit (`hits`, any order;
 * `weight` = 1 / the postings of the hit's key), the candidate documents and the chains of hits along
 * diagonals that cover ≥ `minTokens` query words. An index that lives elsewhere (a database) gives the
 * same result as the in-memory one for the same postings, because both end here.
 * @example const { chains } = chainHits(hits, fp, 8, 5, 8)
 */
export function chainHits(
  hits: readonly ShingleHit[],
  fp: Fingerprint,
  window: number,
  size: number,
  minTokens: number,
): ChainedHits {
  const columns = seedHitColumns(hits.length);
  for (let h = 0; h < hits.length; h++) {
    const x = hits[h];
    columns.weight[h] = x.weight;
    columns.doc[h] = x.doc;
    columns.item[h] = x.i;
    columns.start[h] = x.start;
    columns.end[h] = x.end;
  }
  return finish(chainSteps(inChainOrder(columns), fp, window, size, minTokens));
}

/**
 * The most query shingles between two consecutive hits of one chain (see {@link chainSteps}): a seed chain's hits
 * lie in a run of found shingles no two of which are further apart.
 * @example chainGap(8, 5) // 20
 */
export const chainGap = (window: number, size: number): number => 2 * window + size - 1;

/**
 * A candidate document from its hits [from, to) of `hits` (sorted by query shingle), or null. A document's hits are
 * grouped into regions (./regions.ts): hits close in the source (≤ 2,000 characters apart) and in the query
 * (≤ CANDIDATE_WINDOW shingles apart); a region with ≥ CANDIDATE_MIN_HITS distinct query shingles says where to
 * align (its spans in both texts). A document's strength is its best region's. `order`: scratch for the regions.
 */
function candidateOf(
  hits: SeedHits,
  from: number,
  to: number,
  fp: Fingerprint,
  order: Uint32Array<ArrayBuffer>,
): ExactCandidate | null {
  const regions = columnRegions(hits, from, to, fp.shingles.starts, fp.shingles.ends, EXACT_REGIONS, order);
  const best = regions[0];
  return best ? { doc: hits.doc[from], hits: best.hits, strength: best.strength, regions } : null;
}

/** A chain being built (see {@link chainSteps}). */
interface Chain {
  doc: number;
  firstI: number;
  lastI: number;
  lastQ: number;
  delta: number;
  start: number;
  end: number;
  count: number;
}

/**
 * {@link chainHits} as steps (src/util/steps.ts), from hits in chaining order ({@link inChainOrder}: documents in
 * order, each one's hits sorted by query shingle, then source start): it pauses between documents and every
 * ITEMS_PER_PAUSE hits. ExactDataset.searchSteps ends here too.
 */
export function* chainSteps(
  hits: SeedHits,
  fp: Fingerprint,
  window: number,
  size: number,
  minTokens: number,
): Steps<ChainedHits> {
  const { doc, item, start, end } = hits;
  const n = doc.length;
  const candidates: ExactCandidate[] = [];
  const order = new Uint32Array(n);
  for (let from = 0; from < n; ) {
    let to = from + 1;
    while (to < n && doc[to] === doc[from]) to++;
    yield PAUSE;
    const candidate = candidateOf(hits, from, to, fp, order);
    if (candidate) candidates.push(candidate);
    from = to;
  }
  candidates.sort((a, b) => b.strength - a.strength || a.doc - b.doc);
  // Chain hits along diagonals: a reused passage keeps (source offset − query offset) nearly
  // constant, so a repeated phrase elsewhere in the source starts its own chain instead of
  // breaking the true one. Gaps up to 2·window + size − 1 shingles are bridged: winnowing keeps
  // a fingerprint in every window of verbatim text, and one edited word destroys the `size`
  // shingles that contain it, so the hits on either side of a single edit between verbatim runs
  // of ≥ window + size − 1 words are at most (window − 1) + size + 1 + (window − 1) shingles
  // apart. A passage with isolated word edits thus stays one chain instead of falling apart
  // into fragments (each of which may be too short to report). The diagonal may drift by a
  // quarter of the gap (inserted/deleted words).
  const qs = fp.shingles.starts;
  const maxGap = chainGap(window, size);
  const done: Chain[] = [];
  let active: Chain[] = [];
  for (let h = 0; h < n; h++) {
    if (h > 0 && doc[h] !== doc[h - 1]) {
      for (const c of active) done.push(c);
      active = [];
    }
    if ((h + 1) % ITEMS_PER_PAUSE === 0) yield PAUSE;
    const i = item[h];
    const q = qs[i];
    const delta = start[h] - q;
    let best: Chain | undefined;
    let bestDrift = Infinity;
    let kept = 0; // chains still open, compacted in place (no array per hit)
    for (const c of active) {
      if (i - c.lastI > maxGap) {
        done.push(c);
        continue;
      }
      active[kept++] = c;
      if (c.lastI === i) continue;
      const drift = Math.abs(delta - c.delta);
      if (drift <= 32 + (q - c.lastQ) / 4 && drift < bestDrift) {
        best = c;
        bestDrift = drift;
      }
    }
    active.length = kept;
    if (best) {
      best.lastI = i;
      best.lastQ = q;
      best.delta = delta;
      best.start = Math.min(best.start, start[h]);
      best.end = Math.max(best.end, end[h]);
      best.count++;
    } else {
      active.push({ doc: doc[h], firstI: i, lastI: i, lastQ: q, delta, start: start[h], end: end[h], count: 1 });
    }
  }
  for (const c of active) done.push(c);
  const chains: SeedChain[] = [];
  for (const c of done) {
    const tokens = Math.min(c.lastI - c.firstI + size, fp.token_count);
    if (tokens >= minTokens) {
      const { firstI, lastI } = c;
      chains.push({ doc: c.doc, firstI, lastI, start: c.start, end: c.end, count: c.count, tokens });
    }
  }
  return { candidates, chains };
}

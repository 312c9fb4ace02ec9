/**
 * Where a document's hits on a query cluster: the regions the alignment stage looks at (exact hits of
 * src/datasets/exact.ts and content-word pair hits of src/corpus/content-words.ts alike).
 */
import { sortRangeBy } from '../util/sorted.js';

/** A stretch of the query and of a document where hits cluster: the place to align. */
export interface CandidateRegion {
  readonly query_start: number;
  readonly query_end: number;
  readonly source_start: number;
  readonly source_end: number;
  /** Distinct query items (shingles or pairs) found in it. */
  readonly hits: number;
  /** Σ of the weight of its distinct query items (1 / postings for exact hits). */
  readonly strength: number;
}

/** One hit: query item `i`, found in the document at [start, end), counting `weight`. */
export interface RegionHit {
  readonly i: number;
  readonly start: number;
  readonly end: number;
  readonly weight: number;
  /**
   * What was found (a pair's hash): hits of several query items with the same key at the same document
   * offset are one place of the document. Without it, one offset is one place.
   */
  readonly key?: number;
}

/** How hits group into regions. */
export interface RegionRule {
  /** Hits further apart than this in the document (UTF-16 units) start another region. */
  readonly sourceGap: number;
  /** Hits further apart than this in the query (items) start another region. */
  readonly queryGap: number;
  /** Fewest distinct query items a region needs. */
  readonly minHits: number;
  /** Fewest distinct query items per query item spanned (first hit to last). */
  readonly minDensity: number;
  /** Regions kept, strongest first. */
  readonly most: number;
}

/**
 * The regions of one document's hits: hits close in the document are grouped, each group split where
 * consecutive hits are far apart in the query; a group piece that passes the rule is a region, with the
 * query span of its first and last item (`qStarts`, `qEnds` by item) and the document span of its hits.
 * Reorders `own` in place (by document offset, then each group by query item).
 * @example
 * const rule = { sourceGap: 2000, queryGap: 256, minHits: 2, minDensity: 0, most: 8 }
 * hitRegions(hits, fp.shingles.starts, fp.shingles.ends, rule) // [{ query_start, …, hits, strength }]
 */
export function hitRegions(
  own: RegionHit[], qStarts: Uint32Array, qEnds: Uint32Array, rule: RegionRule,
): CandidateRegion[] {
  sortRangeBy(own, byStartThenItem);
  const regions: CandidateRegion[] = [];
  for (let from = 0; from < own.length;) {
    let to = from + 1;
    while (to < own.length && own[to].start - own[to - 1].start <= rule.sourceGap) to++;
    // the group, by query item (in place: the group is not read by offset again)
    sortRangeBy(own, byItem, from, to);
    for (let lo = from; lo < to;) {
      let hi = lo + 1;
      while (hi < to && own[hi].i - own[hi - 1].i <= rule.queryGap) hi++;
      let items = 0, strength = 0, s0 = Infinity, s1 = 0;
      for (let k = lo; k < hi; k++) {
        if (k === lo || own[k].i !== own[k - 1].i) { items++; strength += own[k].weight; }
        s0 = Math.min(s0, own[k].start);
        s1 = Math.max(s1, own[k].end);
      }
      // A word pair repeated in the query ("hand … hands … hand") finds one place of the document several
      // times: a region counts no more hits than it has distinct places in the document either.
      const places = distinctPlaces(own, lo, hi);
      const distinct = Math.min(items, places);
      const spanned = own[hi - 1].i - own[lo].i + 1;
      if (distinct >= rule.minHits && distinct >= rule.minDensity * spanned) {
        regions.push({
          query_start: qStarts[own[lo].i], query_end: qEnds[own[hi - 1].i], source_start: s0, source_end: s1,
          hits: distinct, strength: (strength * distinct) / items,
        });
      }
      lo = hi;
    }
    from = to;
  }
  return regions.sort((a, b) => b.strength - a.strength || a.query_start - b.query_start).slice(0, rule.most);
}

const byStartThenItem = (x: RegionHit, y: RegionHit): number => x.start - y.start || x.i - y.i;
const byItem = (x: RegionHit, y: RegionHit): number => x.i - y.i;

/** Number of distinct places (document offset and key) among hits `g[lo..hi)`. */
function distinctPlaces(g: readonly RegionHit[], lo: number, hi: number): number {
  if (hi - lo <= FEW_PLACES) {
    // most regions hold a few hits: compare each with those before it (no key strings to make)
    let distinct = 0;
    for (let k = lo; k < hi; k++) {
      let j = lo;
      while (j < k && (g[j].start !== g[k].start || (g[j].key ?? 0) !== (g[k].key ?? 0))) j++;
      if (j === k) distinct++;
    }
    return distinct;
  }
  const places = new Set<string>();
  for (let k = lo; k < hi; k++) places.add(`${g[k].start}:${g[k].key ?? 0}`);
  return places.size;
}

/** Hits up to which {@link distinctPlaces} compares pairs instead of collecting keys in a set. */
const FEW_PLACES = 48;

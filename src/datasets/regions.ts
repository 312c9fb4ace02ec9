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
  /** Regions of fewer than `minHits` (at least `hits`) distinct items are kept too when their strength reaches `strength`. */
  readonly rare?: { readonly hits: number; readonly strength: number };
}

/**
 * Hits as columns (hit h: query item `item[h]` found in the document at [start[h], end[h]), weighing
 * `weight[h]`, with `key[h]`, 0 when the hit has none): a search with thousands of hits per query makes no
 * object per hit. A document's hits are a range [from, to) of the columns.
 */
export interface HitColumns {
  readonly item: Uint32Array;
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly weight: Float64Array;
  readonly key: Uint32Array;
}

/**
 * The regions of one document's hits: hits close in the document are grouped, each group split where
 * consecutive hits are far apart in the query; a group piece that passes the rule is a region, with the
 * query span of its first and last item (`qStarts`, `qEnds` by item) and the document span of its hits.
 * @example
 * const rule = { sourceGap: 2000, queryGap: 256, minHits: 2, minDensity: 0, most: 8 }
 * hitRegions(hits, fp.shingles.starts, fp.shingles.ends, rule) // [{ query_start, …, hits, strength }]
 */
export function hitRegions(
  own: readonly RegionHit[],
  qStarts: Uint32Array,
  qEnds: Uint32Array,
  rule: RegionRule,
): CandidateRegion[] {
  const n = own.length;
  const hits: HitColumns = {
    item: new Uint32Array(n),
    start: new Uint32Array(n),
    end: new Uint32Array(n),
    weight: new Float64Array(n),
    key: new Uint32Array(n),
  };
  own.forEach((h, k) => {
    hits.item[k] = h.i;
    hits.start[k] = h.start;
    hits.end[k] = h.end;
    hits.weight[k] = h.weight;
    hits.key[k] = h.key ?? 0;
  });
  return columnRegions(hits, 0, n, qStarts, qEnds, rule);
}

/**
 * {@link hitRegions} of the hits [from, to) of `hits` (one document's). `order` is scratch of at least `to`
 * entries, of which [from, to) are used: one array for all the documents of a search.
 * @example columnRegions(hits, 0, hits.item.length, query.starts, query.ends, rule)
 */
export function columnRegions(
  hits: HitColumns,
  from: number,
  to: number,
  qStarts: Uint32Array,
  qEnds: Uint32Array,
  rule: RegionRule,
  order = new Uint32Array(to),
): CandidateRegion[] {
  const { item, start, end, weight } = hits;
  for (let k = from; k < to; k++) order[k] = k;
  sortRangeBy(order, (x, y) => start[x] - start[y] || item[x] - item[y], from, to);
  const byItem = (x: number, y: number): number => item[x] - item[y];
  const regions: CandidateRegion[] = [];
  for (let g = from; g < to; ) {
    let gEnd = g + 1;
    while (gEnd < to && start[order[gEnd]] - start[order[gEnd - 1]] <= rule.sourceGap) gEnd++;
    // the group, by query item (in place: the group is not read by offset again)
    sortRangeBy(order, byItem, g, gEnd);
    for (let lo = g; lo < gEnd; ) {
      let hi = lo + 1;
      while (hi < gEnd && item[order[hi]] - item[order[hi - 1]] <= rule.queryGap) hi++;
      let items = 0,
        strength = 0,
        s0 = Infinity,
        s1 = 0;
      for (let k = lo; k < hi; k++) {
        const h = order[k];
        if (k === lo || item[h] !== item[order[k - 1]]) {
          items++;
          strength += weight[h];
        }
        s0 = Math.min(s0, start[h]);
        s1 = Math.max(s1, end[h]);
      }
      // A word pair repeated in the query ("hand … hands … hand") finds one place of the document several
      // times: a region counts no more hits than it has distinct places in the document either.
      const places = distinctPlaces(hits, order, lo, hi);
      const distinct = Math.min(items, places);
      const spanned = item[order[hi - 1]] - item[order[lo]] + 1;
      // a query item found at one place several times counts once: the strength scales with the distinct hits
      const regionStrength = (strength * distinct) / items;
      const enough =
        distinct >= rule.minHits ||
        (rule.rare !== undefined && distinct >= rule.rare.hits && regionStrength >= rule.rare.strength);
      if (enough && distinct >= rule.minDensity * spanned) {
        regions.push({
          query_start: qStarts[item[order[lo]]],
          query_end: qEnds[item[order[hi - 1]]],
          source_start: s0,
          source_end: s1,
          hits: distinct,
          strength: regionStrength,
        });
      }
      lo = hi;
    }
    g = gEnd;
  }
  return regions.sort((a, b) => b.strength - a.strength || a.query_start - b.query_start).slice(0, rule.most);
}

/** Number of distinct places (document offset and key) among the hits `order[lo..hi)`. */
function distinctPlaces({ start, key }: HitColumns, order: Uint32Array, lo: number, hi: number): number {
  // hits at ever later offsets (a passage copied in order, the usual exact region) are as many places as hits
  let later = lo + 1;
  while (later < hi && start[order[later]] > start[order[later - 1]]) later++;
  if (later >= hi) return hi - lo;
  if (hi - lo <= FEW_PLACES) {
    // most regions hold a few hits: compare each with those before it (no key strings to make)
    let distinct = 0;
    for (let k = lo; k < hi; k++) {
      const h = order[k];
      let j = lo;
      while (j < k && (start[order[j]] !== start[h] || key[order[j]] !== key[h])) j++;
      if (j === k) distinct++;
    }
    return distinct;
  }
  const places = new Set<string>();
  for (let k = lo; k < hi; k++) places.add(`${start[order[k]]}:${key[order[k]]}`);
  return places.size;
}

/** Hits up to which {@link distinctPlaces} compares pairs instead of collecting keys in a set. */
const FEW_PLACES = 48;

/**
 * Plain reference of src/datasets/regions.ts, written straight from its definition with one object per hit
 * and `Array.prototype.sort`: hits sorted by (document offset, query item), grouped where consecutive offsets
 * are more than `sourceGap` apart, each group sorted by item and split where consecutive items are more than
 * `queryGap` apart; a piece counts its distinct items (and no more than its distinct places, offset and key),
 * and passes the rule's minimum hits (or, with `rule.rare`, at least `rare.hits` whose strength reaches
 * `rare.strength`) and density. The property test holds the column version to it.
 */
import type { CandidateRegion, RegionHit, RegionRule } from '../../src/datasets/regions.js';

export function hitRegionsRef(
  hits: readonly RegionHit[],
  qStarts: Uint32Array,
  qEnds: Uint32Array,
  rule: RegionRule,
): CandidateRegion[] {
  const own = [...hits].sort((x, y) => x.start - y.start || x.i - y.i);
  const regions: CandidateRegion[] = [];
  for (let from = 0; from < own.length; ) {
    let to = from + 1;
    while (to < own.length && own[to].start - own[to - 1].start <= rule.sourceGap) to++;
    const group = own.slice(from, to).sort((x, y) => x.i - y.i);
    for (let lo = 0; lo < group.length; ) {
      let hi = lo + 1;
      while (hi < group.length && group[hi].i - group[hi - 1].i <= rule.queryGap) hi++;
      const piece = group.slice(lo, hi);
      const firstOfItem = piece.filter((h, k) => k === 0 || h.i !== piece[k - 1].i);
      const items = firstOfItem.length;
      const strength = firstOfItem.reduce((a, h) => a + h.weight, 0);
      const places = new Set(piece.map((h) => `${h.start}:${h.key ?? 0}`)).size;
      const distinct = Math.min(items, places);
      const spanned = piece[piece.length - 1].i - piece[0].i + 1;
      const rare = rule.rare && distinct >= rule.rare.hits && (strength * distinct) / items >= rule.rare.strength;
      if ((distinct >= rule.minHits || rare) && distinct >= rule.minDensity * spanned) {
        regions.push({
          query_start: qStarts[piece[0].i],
          query_end: qEnds[piece[piece.length - 1].i],
          source_start: Math.min(...piece.map((h) => h.start)),
          source_end: Math.max(...piece.map((h) => h.end)),
          hits: distinct,
          strength: (strength * distinct) / items,
        });
      }
      lo = hi;
    }
    from = to;
  }
  return regions.sort((a, b) => b.strength - a.strength || a.query_start - b.query_start).slice(0, rule.most);
}

// Text alignment kernels (src/align/): sentence-pair seed scoring for `compare`.
//
// Sentence vectors are sparse tf-idf vectors (CSR: per sentence, term ids and f64 weights). For each
// sentence i of text a, the kernel walks b's inverted index (per term: the sentences of b holding
// it, with the term's weight there), accumulating the dot product and the number of shared terms
// per sentence j of b, then emits every (i, j) with
//   cosine = dot / (|a_i| · |b_j|) > thCos   and   Dice = 2 · shared / (|terms a_i| + |terms b_j|) > thDice.
// Output is ordered by i, then j. The accumulators (f64 and u32 per sentence of b) must be zero on
// entry and are left zero. Nothing is allocated; the caller lays out every buffer in the arena.
// The plain-TS oracle is seedsReference in src/align/seeds.ts.

/**
 * Score all sentence pairs sharing a term. Writes (i, j) as two u32 at outIJPtr and the cosine as
 * f64 at outCosPtr per seed (room for na × nb seeds); returns the number of seeds.
 */
export function alignSeeds(
  aOffPtr: usize, aTermsPtr: usize, aWPtr: usize, aNormPtr: usize, aSizePtr: usize, na: u32,
  bOffPtr: usize, bSentPtr: usize, bWPtr: usize, bNormPtr: usize, bSizePtr: usize, nb: u32, terms: u32,
  thCos: f64, thDice: f64, accPtr: usize, cntPtr: usize, outIJPtr: usize, outCosPtr: usize,
): u32 {
  let n: u32 = 0;
  for (let i: u32 = 0; i < na; i++) {
    const normA = load<f64>(aNormPtr + (<usize>i << 3));
    if (normA == 0) continue;
    const sizeA = load<u32>(aSizePtr + (<usize>i << 2));
    let lo: u32 = nb;
    let hi: u32 = 0;
    let any = false;
    const k1 = load<u32>(aOffPtr + (<usize>(i + 1) << 2));
    for (let k = load<u32>(aOffPtr + (<usize>i << 2)); k < k1; k++) {
      const t = load<u32>(aTermsPtr + (<usize>k << 2));
      if (t >= terms) continue;
      const w = load<f64>(aWPtr + (<usize>k << 3));
      const p1 = load<u32>(bOffPtr + (<usize>(t + 1) << 2));
      for (let p = load<u32>(bOffPtr + (<usize>t << 2)); p < p1; p++) {
        const j = load<u32>(bSentPtr + (<usize>p << 2));
        const accAt = accPtr + (<usize>j << 3);
        store<f64>(accAt, load<f64>(accAt) + w * load<f64>(bWPtr + (<usize>p << 3)));
        const cntAt = cntPtr + (<usize>j << 2);
        store<u32>(cntAt, load<u32>(cntAt) + 1);
        if (j < lo) lo = j;
        if (j > hi) hi = j;
        any = true;
      }
    }
    if (!any) continue;
    for (let j = lo; j <= hi; j++) {
      const cntAt = cntPtr + (<usize>j << 2);
      const c = load<u32>(cntAt);
      if (c == 0) continue;
      const accAt = accPtr + (<usize>j << 3);
      const normB = load<f64>(bNormPtr + (<usize>j << 3));
      const cos = normB == 0 ? 0.0 : load<f64>(accAt) / (normA * normB);
      const dice = <f64>(2 * c) / <f64>(sizeA + load<u32>(bSizePtr + (<usize>j << 2)));
      if (cos > thCos && dice > thDice) {
        store<u32>(outIJPtr + (<usize>n << 3), i);
        store<u32>(outIJPtr + (<usize>n << 3) + 4, j);
        store<f64>(outCosPtr + (<usize>n << 3), cos);
        n++;
      }
      store<f64>(accAt, 0);
      store<u32>(cntAt, 0);
    }
  }
  return n;
}

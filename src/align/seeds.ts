/**
 * Sentence-pair seeds: every pair (i in a, j in b) whose tf-idf cosine and Dice coefficient over
 * distinct content terms both exceed their thresholds (Sanchez-Perez, Sidorov & Gelbukh, PAN 2014).
 *
 * The scoring loop (an inverted index of b's sentences walked once per sentence of a) runs in the
 * WebAssembly core (`alignSeeds`, assembly/align.ts); {@link seedsReference} is its plain-TS twin (the same walk),
 * and both are tested against a brute-force oracle that scores every pair from the vectors directly
 * (test/reference/align.ts, test/unit/property/align-seeds.test.ts). Long pairs score only candidate pairs ({@link seedsOfPairs}, the
 * seeded regions of regions.ts), with the same arithmetic.
 */
import type { Core } from '../core/abi.js';
import type { Prepared } from './prepare.js';
import type { Candidates } from './regions.js';

/** Sparse tf-idf sentence vectors of a text, laid out for the seed kernel. */
export interface Vectors {
  /** CSR offsets into terms/weights per sentence (length sentences + 1). */
  readonly off: Uint32Array;
  readonly terms: Uint32Array;
  readonly weights: Float64Array;
  /** Euclidean norm and number of distinct terms of each sentence. */
  readonly norms: Float64Array;
  readonly sizes: Uint32Array;
}

/** Postings of b: for each term id, the sentences of b holding it with the term's weight. */
export interface Postings {
  readonly off: Uint32Array; // length terms + 1
  readonly sent: Uint32Array;
  readonly weights: Float64Array;
}

/** Seeds as parallel arrays. */
export interface Seeds {
  readonly a: Uint32Array;
  readonly b: Uint32Array;
  readonly cos: Float64Array;
  readonly count: number;
}

/**
 * Sentences the idf is counted over, at least: two texts of fewer sentences between them are scored as if
 * they sat among this many (the others holding none of their words). Without the floor, idf log(N / df)
 * over a pair of one sentence each is 0 for every shared word, and two near-identical short passages
 * compared as similarity 0; with it, a shared word of such a pair weighs log(16 / 2), and pairs of 16
 * sentences or more (every PAN 2013 pair, the windows a search aligns) are scored as before.
 */
export const MIN_IDF_SENTENCES = 16;

/** Sentences of both texts, floored at {@link MIN_IDF_SENTENCES}: the N of idf = log(N / df). */
export function idfSentences(pa: Prepared, pb: Prepared): number {
  return Math.max(MIN_IDF_SENTENCES, pa.sentTok.length - 1 + pb.sentTok.length - 1);
}

/** idf over the sentences of both texts: log(N / df), N = {@link idfSentences}. */
export function idfWeights(pa: Prepared, pb: Prepared, terms: number): Float64Array {
  const df = new Uint32Array(terms);
  for (const t of pa.terms) df[t]++;
  for (const t of pb.terms) df[t]++;
  const N = idfSentences(pa, pb);
  const idf = new Float64Array(terms);
  for (let t = 0; t < terms; t++) idf[t] = df[t] > 0 ? Math.log(N / df[t]) : 0;
  return idf;
}

/** tf × idf vectors of a prepared text. */
export function vectors(p: Prepared, idf: Float64Array): Vectors {
  const S = p.sentTok.length - 1;
  const weights = new Float64Array(p.terms.length);
  const norms = new Float64Array(S);
  const sizes = new Uint32Array(S);
  for (let s = 0; s < S; s++) {
    let sq = 0;
    for (let k = p.sentTerm[s]; k < p.sentTerm[s + 1]; k++) {
      const w = p.counts[k] * idf[p.terms[k]];
      weights[k] = w;
      sq += w * w;
    }
    norms[s] = Math.sqrt(sq);
    sizes[s] = p.sentTerm[s + 1] - p.sentTerm[s];
  }
  return { off: p.sentTerm, terms: p.terms, weights, norms, sizes };
}

/** Invert b's vectors by term. */
export function postings(v: Vectors, terms: number): Postings {
  const off = new Uint32Array(terms + 1);
  for (const t of v.terms) off[t + 1]++;
  for (let t = 0; t < terms; t++) off[t + 1] += off[t];
  const fill = off.slice(0, terms);
  const sent = new Uint32Array(v.terms.length);
  const weights = new Float64Array(v.terms.length);
  const S = v.off.length - 1;
  for (let s = 0; s < S; s++) {
    for (let k = v.off[s]; k < v.off[s + 1]; k++) {
      const at = fill[v.terms[k]]++;
      sent[at] = s;
      weights[at] = v.weights[k];
    }
  }
  return { off, sent, weights };
}

/**
 * Plain-TS reference of the seed kernel: for each sentence i of a (in order), the sentences j of b
 * (in order of first shared term, then increasing j within the accumulator sweep) with
 * cos > thCos and dice > thDice. Output sorted by (i, j).
 */
export function seedsReference(va: Vectors, pb: Postings, vb: Vectors, thCos: number, thDice: number): Seeds {
  const nb = vb.norms.length;
  const acc = new Float64Array(nb);
  const cnt = new Uint32Array(nb);
  const A: number[] = [],
    B: number[] = [],
    C: number[] = [];
  const na = va.norms.length;
  for (let i = 0; i < na; i++) {
    if (va.norms[i] === 0) continue;
    let lo = nb,
      hi = -1;
    for (let k = va.off[i]; k < va.off[i + 1]; k++) {
      const t = va.terms[k];
      if (t + 1 >= pb.off.length) continue;
      const w = va.weights[k];
      for (let p = pb.off[t]; p < pb.off[t + 1]; p++) {
        const j = pb.sent[p];
        acc[j] += w * pb.weights[p];
        cnt[j]++;
        if (j < lo) lo = j;
        if (j > hi) hi = j;
      }
    }
    for (let j = lo; j <= hi; j++) {
      if (cnt[j] === 0) continue;
      const cos = vb.norms[j] === 0 ? 0 : acc[j] / (va.norms[i] * vb.norms[j]);
      const dice = (2 * cnt[j]) / (va.sizes[i] + vb.sizes[j]);
      if (cos > thCos && dice > thDice) {
        A.push(i);
        B.push(j);
        C.push(cos);
      }
      acc[j] = 0;
      cnt[j] = 0;
    }
  }
  return { a: Uint32Array.from(A), b: Uint32Array.from(B), cos: Float64Array.from(C), count: A.length };
}

/** The same computation in the WebAssembly core. */
export function seedsWasm(core: Core, va: Vectors, pb: Postings, vb: Vectors, thCos: number, thDice: number): Seeds {
  return core.guard(() => {
    const na = va.norms.length,
      nb = vb.norms.length;
    if (na === 0 || nb === 0)
      return { a: new Uint32Array(0), b: new Uint32Array(0), cos: new Float64Array(0), count: 0 };
    const L = core.layout();
    const aOff = L.take(va.off.byteLength),
      aTerms = L.take(va.terms.byteLength),
      aW = L.take(va.weights.byteLength);
    const aNorm = L.take(va.norms.byteLength),
      aSize = L.take(va.sizes.byteLength);
    const bOff = L.take(pb.off.byteLength),
      bSent = L.take(pb.sent.byteLength),
      bW = L.take(pb.weights.byteLength);
    const bNorm = L.take(vb.norms.byteLength),
      bSize = L.take(vb.sizes.byteLength);
    const acc = L.take(nb * 8),
      cnt = L.take(nb * 4);
    // a seed shares at least one term: the postings walked bound the number of seeds
    let walked = 0;
    for (const t of va.terms) if (t + 1 < pb.off.length) walked += pb.off[t + 1] - pb.off[t];
    const cap = Math.max(1, Math.min(na * nb, walked));
    const outIJ = L.take(cap * 8),
      outCos = L.take(cap * 8);
    L.commit();
    const put = (ptr: number, arr: Uint32Array | Float64Array): void =>
      core.u8.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), ptr);
    put(aOff, va.off);
    put(aTerms, va.terms);
    put(aW, va.weights);
    put(aNorm, va.norms);
    put(aSize, va.sizes);
    put(bOff, pb.off);
    put(bSent, pb.sent);
    put(bW, pb.weights);
    put(bNorm, vb.norms);
    put(bSize, vb.sizes);
    core.u8.fill(0, acc, acc + nb * 8);
    core.u8.fill(0, cnt, cnt + nb * 4);
    const n = core.raw.alignSeeds(
      aOff,
      aTerms,
      aW,
      aNorm,
      aSize,
      na,
      bOff,
      bSent,
      bW,
      bNorm,
      bSize,
      nb,
      pb.off.length - 1,
      thCos,
      thDice,
      acc,
      cnt,
      outIJ,
      outCos,
    );
    const ij = core.u32(outIJ, n * 2);
    const a = new Uint32Array(n),
      b = new Uint32Array(n);
    for (let k = 0; k < n; k++) {
      a[k] = ij[2 * k];
      b[k] = ij[2 * k + 1];
    }
    const cos = core.f64(outCos, n).slice();
    return { a, b, cos, count: n };
  });
}

/**
 * Seeds among the candidate sentence pairs only (the seeded regions of a long pair, regions.ts), with the
 * same arithmetic as the kernel: the shared terms' products are summed in increasing term order, so a
 * pair scored here has bit for bit the cosine the kernel gives it. Output sorted by (i, j).
 * @example
 * const seeds = seedsOfPairs(va, vb, seededRegions(pa, pb, { margin: 4 }), 0.33, 0.33)
 */
export function seedsOfPairs(va: Vectors, vb: Vectors, cand: Candidates, thCos: number, thDice: number): Seeds {
  // a's sentence i scattered by term: weight and a stamp (i + 1) saying the slot belongs to i
  let terms = 0;
  for (const t of va.terms) terms = Math.max(terms, t + 1);
  const weightOf = new Float64Array(terms);
  const stamp = new Uint32Array(terms);
  const A: number[] = [],
    B: number[] = [],
    C: number[] = [];
  for (let i = 0; i + 1 < cand.rowOff.length; i++) {
    if (va.norms[i] === 0 || cand.rowOff[i] === cand.rowOff[i + 1]) continue;
    for (let k = va.off[i]; k < va.off[i + 1]; k++) {
      weightOf[va.terms[k]] = va.weights[k];
      stamp[va.terms[k]] = i + 1;
    }
    for (let c = cand.rowOff[i]; c < cand.rowOff[i + 1]; c++) {
      const j = cand.cols[c];
      let acc = 0,
        cnt = 0;
      for (let k = vb.off[j]; k < vb.off[j + 1]; k++) {
        const t = vb.terms[k];
        if (t < terms && stamp[t] === i + 1) {
          acc += weightOf[t] * vb.weights[k];
          cnt++;
        }
      }
      if (cnt === 0) continue;
      const cos = vb.norms[j] === 0 ? 0 : acc / (va.norms[i] * vb.norms[j]);
      const dice = (2 * cnt) / (va.sizes[i] + vb.sizes[j]);
      if (cos > thCos && dice > thDice) {
        A.push(i);
        B.push(j);
        C.push(cos);
      }
    }
  }
  return { a: Uint32Array.from(A), b: Uint32Array.from(B), cos: Float64Array.from(C), count: A.length };
}

/**
 * Seeded regions: the sentence pairs worth scoring in a long pair, found in time linear in the texts.
 *
 * Scoring every sentence pair grows with the product of the two sentence counts. Reused passages share
 * content words in runs, so they are found first by hashing (seed and extend, as in BLAST or minimap2):
 * 1. Anchors: each content word of a text (Porter stem, stop words skipped) gives two keys, the word
 *    alone and the unordered pair it makes with the previous content word (robust to swapped
 *    neighbours). Keys of b go into a hash table; every occurrence in a of a key of b is a hit, a
 *    sentence pair (sa, sb). Frequent keys are skipped (occurrences in a × occurrences in b above a cap)
 *    and the rarest keys are taken first up to a budget linear in the texts, so a text repeated many
 *    times cannot make the hits quadratic.
 * 2. Regions: hits closer than REGION_GAP sentences on both sides are joined (grid cells, union-find); a
 *    group of at least MIN_REGION_HITS hits is a region, a lone hit is chance.
 * 3. Candidates: a compact region (a reused passage) is scored whole, its bounding box widened by
 *    `margin` sentences; a sprawling one, such as a whole book against its edited copy, or chance hits of
 *    two long texts joined into one, is scored only in a band of BAND_MARGIN sentences around its
 *    sentence pairs that share at least BAND_HITS keys.
 * The sentence-level alignment then runs on the seeds among these pairs, with its usual thresholds. The
 * constants were set on the PAN 2013 training corpus with every pair forced through regions (plagdet
 * as with all pairs scored, bench/eval-pan.mjs) and on the book pairs of bench/compare-books.mjs.
 */
import { PairTable } from './key-table.js';
import type { Prepared } from './prepare.js';

/** Candidate sentence pairs, by sentence of a: the pairs (i, cols[k]) for k in [rowOff[i], rowOff[i + 1]). */
export interface Candidates {
  readonly rowOff: Uint32Array;
  readonly cols: Uint32Array;
}

/** Options of {@link seededRegions}. */
export interface RegionOptions {
  /** Sentences a region's box is widened by on each side (the clustering gap, `maxGap`). */
  readonly margin: number;
}

/** Most pairs (occurrences in a × occurrences in b) a content-word pair key may hit. */
const PAIR_KEY_HITS = 64;
/** Most pairs a single content word may hit (single words are shared by chance far more often). */
const WORD_KEY_HITS = 4;
/** Most hits in all, per anchor key of the two texts: the least frequent keys are taken first. */
const HITS_PER_KEY = 2;
/** Hits at most this many sentences apart on both sides are of one region (grid cells of this size). */
const REGION_GAP = 8;
/** Fewest hits of a region. */
const MIN_REGION_HITS = 2;
/** Largest box (sentence pairs) scored whole. */
const MAX_BOX_PAIRS = 16_384;
/** A box is scored whole only while it holds at most this many pairs per hit sentence pair. */
const BOX_PAIRS_PER_HIT = 64;
/** Half-width, in sentences, of the band scored around each hit of a large region. */
const BAND_MARGIN = 2;
/** Fewest hits of a sentence pair that gets a band (a pair sharing one key is mostly chance in a long pair). */
const BAND_HITS = 2;

/**
 * The sentence pairs of `pa` × `pb` inside seeded regions, sorted by sentence of a, then of b.
 * @example
 * const dict = new TermDict()
 * const pa = prepare(textA, dict, 3), pb = prepare(textB, dict, 3)
 * const { rowOff, cols } = seededRegions(pa, pb, { margin: 4 })
 */
export function seededRegions(pa: Prepared, pb: Prepared, o: RegionOptions): Candidates {
  const hits = sentenceHits(pa, pb);
  const strips = new Strips(sentences(pa), sentences(pb));
  for (const region of regionsOf(hits)) if (region.weight >= MIN_REGION_HITS) addRegion(strips, region, hits, o.margin);
  return strips.candidates();
}

/** A compact region's whole box, widened by `margin`; else a band around its well-supported hits. */
function addRegion(strips: Strips, r: Region, hits: Hits, margin: number): void {
  const box = (r.a1 - r.a0 + 1 + 2 * margin) * (r.b1 - r.b0 + 1 + 2 * margin);
  if (box <= MAX_BOX_PAIRS && box <= BOX_PAIRS_PER_HIT * r.members.length) {
    strips.box(r.a0 - margin, r.a1 + margin, r.b0 - margin, r.b1 + margin);
    return;
  }
  for (const k of r.members) {
    if (hits.weight[k] < BAND_HITS) continue;
    const sa = hits.a[k],
      sb = hits.b[k];
    strips.box(sa - BAND_MARGIN, sa + BAND_MARGIN, sb - BAND_MARGIN, sb + BAND_MARGIN);
  }
}

const sentences = (p: Prepared): number => p.sentTok.length - 1;

/** Anchor keys of a text: per content word, the word, then the unordered pair it makes with the previous one. */
interface Anchors {
  /** Key halves (x, y) and the sentence of each key. */
  readonly x: Int32Array;
  readonly y: Int32Array;
  readonly sent: Uint32Array;
}

function anchorsOf(p: Prepared): Anchors {
  let words = 0;
  for (const t of p.tokTerm) if (t >= 0) words++;
  const x = new Int32Array(2 * words),
    y = new Int32Array(2 * words),
    sent = new Uint32Array(2 * words);
  let k = 0,
    s = 0,
    prev = -1,
    prevSent = 0;
  for (let t = 0; t < p.tokTerm.length; t++) {
    while (p.sentTok[s + 1] <= t) s++;
    const term = p.tokTerm[t];
    if (term < 0) continue;
    // a word key is (term + 1, 0); a pair key has both halves ≥ 1, so the two kinds never meet
    x[k] = term + 1;
    y[k] = 0;
    sent[k++] = s;
    if (prev >= 0) {
      x[k] = Math.min(prev, term) + 1;
      y[k] = Math.max(prev, term) + 1;
      sent[k++] = prevSent;
    }
    prev = term;
    prevSent = s;
  }
  return { x: x.subarray(0, k), y: y.subarray(0, k), sent: sent.subarray(0, k) };
}

/** The keys of b: ids, the sentences of each key's occurrences (CSR, ascending) and which keys are single words. */
interface KeyIndex {
  readonly table: PairTable;
  readonly off: Uint32Array;
  readonly sent: Uint32Array;
  readonly isWord: Uint8Array;
}

function indexKeys(B: Anchors): KeyIndex {
  const table = new PairTable(B.x.length);
  const id = new Int32Array(B.x.length);
  const isWord = new Uint8Array(B.x.length);
  for (let k = 0; k < B.x.length; k++) {
    id[k] = table.add(B.x[k], B.y[k]);
    isWord[id[k]] = B.y[k] === 0 ? 1 : 0;
  }
  const off = new Uint32Array(table.size + 1);
  for (const i of id) off[i + 1]++;
  for (let i = 0; i < table.size; i++) off[i + 1] += off[i];
  const fill = off.slice(0, table.size);
  const sent = new Uint32Array(B.x.length);
  for (let k = 0; k < B.x.length; k++) sent[fill[id[k]]++] = B.sent[k];
  return { table, off, sent, isWord };
}

/** Distinct hit sentence pairs (sorted by a, then b) with the number of hits of each. */
interface Hits {
  readonly a: Uint32Array;
  readonly b: Uint32Array;
  readonly weight: Uint32Array;
}

/** Every sentence pair sharing a key that is not too frequent (see the module comment). */
function sentenceHits(pa: Prepared, pb: Prepared): Hits {
  const A = anchorsOf(pa),
    B = anchorsOf(pb);
  const keys = indexKeys(B);
  const idA = new Int32Array(A.x.length);
  const countA = new Uint32Array(keys.table.size);
  for (let k = 0; k < A.x.length; k++) {
    idA[k] = keys.table.get(A.x[k], A.y[k]);
    if (idA[k] >= 0) countA[idA[k]]++;
  }
  const hitsOf = (id: number): number => countA[id] * (keys.off[id + 1] - keys.off[id]);
  const keep = keptKeys(keys, hitsOf, HITS_PER_KEY * (A.x.length + B.x.length));
  let total = 0;
  for (let id = 0; id < keys.table.size; id++) if (keep[id]) total += hitsOf(id);
  const ha = new Uint32Array(total),
    hb = new Uint32Array(total);
  let h = 0;
  for (let k = 0; k < A.x.length; k++) {
    const id = idA[k];
    if (id < 0 || !keep[id]) continue;
    for (let q = keys.off[id]; q < keys.off[id + 1]; q++) {
      ha[h] = A.sent[k];
      hb[h++] = keys.sent[q];
    }
  }
  return distinctPairs(ha, hb, sentences(pa));
}

/**
 * Keys to take hits from: those under their kind's cap, least frequent first while the hits stay under
 * `budget` (a text repeated many times, or one word repeated, still gives hits in linear number).
 */
function keptKeys(keys: KeyIndex, hitsOf: (id: number) => number, budget: number): Uint8Array {
  const n = keys.table.size;
  const byHits: number[][] = Array.from({ length: PAIR_KEY_HITS + 1 }, () => []);
  for (let id = 0; id < n; id++) {
    const hits = hitsOf(id);
    if (hits > 0 && hits <= (keys.isWord[id] ? WORD_KEY_HITS : PAIR_KEY_HITS)) byHits[hits].push(id);
  }
  const keep = new Uint8Array(n);
  let total = 0;
  for (let hits = 1; hits <= PAIR_KEY_HITS; hits++) {
    for (const id of byHits[hits]) {
      if (total + hits > budget) return keep;
      keep[id] = 1;
      total += hits;
    }
  }
  return keep;
}

/** Hits → distinct sentence pairs sorted by (a, b), each weighed by its number of hits. */
function distinctPairs(ha: Uint32Array, hb: Uint32Array, rows: number): Hits {
  const off = new Uint32Array(rows + 1);
  for (const i of ha) off[i + 1]++;
  for (let i = 0; i < rows; i++) off[i + 1] += off[i];
  const fill = off.slice(0, rows);
  const cols = new Uint32Array(ha.length);
  for (let h = 0; h < ha.length; h++) cols[fill[ha[h]]++] = hb[h];
  const a: number[] = [],
    b: number[] = [],
    weight: number[] = [];
  for (let i = 0; i < rows; i++) {
    const row = cols.subarray(off[i], off[i + 1]).sort();
    for (let k = 0; k < row.length; k++) {
      if (k > 0 && row[k] === row[k - 1]) weight[weight.length - 1]++;
      else {
        a.push(i);
        b.push(row[k]);
        weight.push(1);
      }
    }
  }
  return { a: Uint32Array.from(a), b: Uint32Array.from(b), weight: Uint32Array.from(weight) };
}

/** A group of hits: their indices, total weight and bounding box in sentences. */
interface Region {
  readonly members: number[];
  weight: number;
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/** Hits joined when at most REGION_GAP sentences apart on both sides (cells of that size and their neighbours). */
function regionsOf(hits: Hits): Region[] {
  const n = hits.a.length;
  const cells = new PairTable(n);
  const cellOf = new Int32Array(n);
  const cell = (s: number): number => Math.floor(s / REGION_GAP);
  for (let k = 0; k < n; k++) cellOf[k] = cells.add(cell(hits.a[k]), cell(hits.b[k]));
  const parent = Int32Array.from({ length: cells.size }, (_, c) => c);
  const root = (c: number): number => {
    while (parent[c] !== c) c = parent[c] = parent[parent[c]];
    return c;
  };
  for (let k = 0; k < n; k++) {
    const ca = cell(hits.a[k]),
      cb = cell(hits.b[k]);
    for (const [da, db] of NEIGHBOURS) {
      if (ca + da < 0 || cb + db < 0) continue;
      const c = cells.get(ca + da, cb + db);
      if (c >= 0) parent[root(c)] = root(cellOf[k]);
    }
  }
  const regions = new Map<number, Region>();
  for (let k = 0; k < n; k++) {
    const r = root(cellOf[k]);
    const g = regions.get(r);
    const sa = hits.a[k],
      sb = hits.b[k];
    if (!g) regions.set(r, { members: [k], weight: hits.weight[k], a0: sa, a1: sa, b0: sb, b1: sb });
    else {
      g.members.push(k);
      g.weight += hits.weight[k];
      g.a0 = Math.min(g.a0, sa);
      g.a1 = Math.max(g.a1, sa);
      g.b0 = Math.min(g.b0, sb);
      g.b1 = Math.max(g.b1, sb);
    }
  }
  return [...regions.values()];
}

/** Cells next to a cell that come later in the sweep's order (the others join it from their side). */
const NEIGHBOURS = [
  [0, 1],
  [1, -1],
  [1, 0],
  [1, 1],
] as const;

/** Boxes of sentence pairs, clipped to the texts, merged row by row into sorted candidate pairs. */
class Strips {
  private rows: number[] = [];
  private spans: number[] = [];

  constructor(
    private readonly Sa: number,
    private readonly Sb: number,
  ) {}

  /** The pairs [a0, a1] × [b0, b1] (inclusive, clipped). */
  box(a0: number, a1: number, b0: number, b1: number): void {
    const lo = Math.max(0, b0),
      hi = Math.min(this.Sb - 1, b1);
    if (lo > hi) return;
    for (let i = Math.max(0, a0); i <= Math.min(this.Sa - 1, a1); i++) {
      this.rows.push(i);
      // (lo, hi) in one number that sorts by lo: sentence counts stay far below 2^26
      this.spans.push(lo * SPAN_SHIFT + hi);
    }
  }

  candidates(): Candidates {
    const Sa = this.Sa;
    const off = new Uint32Array(Sa + 1);
    for (const i of this.rows) off[i + 1]++;
    for (let i = 0; i < Sa; i++) off[i + 1] += off[i];
    const fill = off.slice(0, Sa);
    const spans = new Float64Array(this.rows.length);
    for (let k = 0; k < this.rows.length; k++) spans[fill[this.rows[k]]++] = this.spans[k];
    const rowOff = new Uint32Array(Sa + 1);
    const cols: number[] = [];
    for (let i = 0; i < Sa; i++) {
      const row = spans.subarray(off[i], off[i + 1]).sort();
      let next = 0;
      for (const packed of row) {
        const lo = Math.floor(packed / SPAN_SHIFT),
          hi = packed - lo * SPAN_SHIFT;
        for (let j = Math.max(lo, next); j <= hi; j++) cols.push(j);
        next = Math.max(next, hi + 1);
      }
      rowOff[i + 1] = cols.length;
    }
    return { rowOff, cols: Uint32Array.from(cols) };
  }
}

const SPAN_SHIFT = 2 ** 26;

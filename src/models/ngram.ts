/**
 * A small, real language model whose training data we know exactly: an interpolated modified
 * Kneser-Ney n-gram model (Kneser & Ney 1995; Chen & Goodman 1998, §3.4 "modified KN" with three
 * discounts per order) over the engine's word tokens. It is the reference model of the tests and
 * demos, and a proper probability model: every next-token distribution sums to 1 over the
 * vocabulary plus `<unk>`, so loss, Min-K% and Min-K%++ mean what they mean for a neural LM.
 *
 * Tokenisation is the engine's (`normalize`: NFKC_Casefold, letters/marks/numbers runs), so the
 * vocabulary is our words — lower-cased, punctuation dropped. Real LLMs use sub-word tokenisers
 * (BPE, SentencePiece) that keep case and punctuation; counts of "tokens" differ between the two
 * (≈ 1.3 BPE tokens per English word).
 *
 * Model. For a context h (the last n−1 tokens; documents start with n−1 `<s>`):
 *   P_k(w | h_k) = max(c_k(h_k w) − D_k(c), 0) / c_k(h_k) + γ_k(h_k) · P_{k−1}(w | h_{k−1}),
 *   γ_k(h_k)     = (D_k1 · N1(h_k •) + D_k2 · N2(h_k •) + D_k3 · N3+(h_k •)) / c_k(h_k),
 * with raw counts at the highest order and continuation counts N1+(• h w) (distinct left
 * extensions) below it; an unseen context passes its mass down whole (γ = 1). The order-1
 * distribution is the discounted continuation-count unigram, and the mass it discounts is the
 * probability of `<unk>` (every word not in the vocabulary). Discounts per order from the
 * count-of-counts n1..n4: Y = n1 / (n1 + 2 n2), D1 = 1 − 2Y n2/n1, D2 = 2 − 3Y n3/n2,
 * D3+ = 3 − 4Y n4/n3.
 *
 * Because the order-1 distribution does not depend on the context, every next-token distribution
 * is p(w) = A · u(w) + e(w) with e non-zero only on the followers S of the context's suffixes.
 * Exact moments of log p over the whole vocabulary (for Min-K%++) then cost O(|S|), using the
 * precomputed sums of u·log u and u·(log u)²; top-k and the greedy argmax walk S and the
 * unigram order.
 */
import { TrainprintError } from '../errors.js';
import { normalize } from '../text/normalize.js';
import type {
  AccessLevel,
  DistributionMoments,
  GenerateOptions,
  TargetModel,
  TokenLogprobs,
  TopLogprob,
} from './types.js';

/** Options of {@link NgramLanguageModel.train}. */
export interface NgramOptions {
  /** n of the n-grams, 2..6. @default 4 */
  readonly order?: number;
}

/** The engine's word tokens of a text, with their UTF-16 spans in the original. */
export interface WordTokenSpans {
  readonly tokens: string[];
  readonly starts: number[];
  readonly ends: number[];
}

/** Per-position detail of {@link NgramLanguageModel.score}. */
export interface NgramScore extends WordTokenSpans {
  /** Natural-log probability of each token given the tokens before it (and the document start). */
  readonly logprobs: number[];
  /** Top-k alternatives per position (with `top > 0`). */
  readonly top?: TopLogprob[][];
  /** Exact moments of log p over the vocabulary per position (with `moments: true`). */
  readonly moments?: DistributionMoments[];
}

/** Start-of-document padding: a context token only, never predicted. */
export const BOS = '<s>';
/** Every word outside the vocabulary. */
export const UNK = '<unk>';
const BOS_ID = 0;
const UNK_ID = 1;

/**
 * One order's contexts in compressed-row form: row r (a context) has its followers at
 * [start[r], start[r + 1]), ids ascending, with the count this order uses (raw at the highest
 * order, continuation counts below) and its discounted term max(c − D(c), 0) / total.
 */
interface OrderTable {
  readonly index: Map<string, number>;
  readonly start: Int32Array;
  readonly gamma: Float64Array;
  readonly ids: Int32Array;
  readonly counts: Int32Array;
  readonly terms: Float64Array;
}

/** One order's contribution at a position: its row and the product of the γ above it. */
interface Level {
  table: OrderTable;
  row: number;
  scale: number;
}

/** Shared across positions: where the sparse part of a distribution is summed. */
interface Scratch {
  extra: Float64Array;
  mark: Uint8Array;
  touched: number[];
}

/**
 * The n-gram language model. Train with {@link NgramLanguageModel.train}; every method after
 * that is synchronous and deterministic.
 *
 * @example
 * const lm = NgramLanguageModel.train([bookA, bookB], { order: 4 })
 * lm.score('It was the best of times').logprobs   // natural logs, one per word
 * lm.generateText('it was the', 20)                // greedy continuation
 * const model = lm.asTargetModel({ id: 'ngram:books' })   // a TargetModel for the memorization operations
 */
export class NgramLanguageModel {
  readonly order: number;
  /** Tokens of the training texts. */
  readonly trainingTokens: number;
  /** Id → token: `<s>`, `<unk>`, then the words in order of first appearance. */
  readonly vocabulary: readonly string[];
  private readonly ids: Map<string, number>;
  /** levels[k]: contexts of order k (k − 1 tokens, key = ids joined by ','), k = 2..order. */
  private readonly levels: OrderTable[];
  /** Discounts per order: [0, D1, D2, D3+]. */
  private readonly disc: Float64Array[];
  /** Order-1 distribution (sums to 1 over the vocabulary incl. `<unk>`; 0 for `<s>`). */
  private readonly uni: Float64Array;
  private readonly logUni: Float64Array;
  /** Σ u log u and Σ u (log u)² over the whole vocabulary. */
  private readonly uniH: number;
  private readonly uniQ: number;
  /** Ids by decreasing order-1 probability (without `<s>`). */
  private readonly uniOrder: Int32Array;
  private scratch: Scratch | null = null;

  private constructor(
    order: number,
    vocab: string[],
    ids: Map<string, number>,
    tokens: number,
    levels: OrderTable[],
    disc: Float64Array[],
    uni: Float64Array,
  ) {
    this.order = order;
    this.vocabulary = vocab;
    this.ids = ids;
    this.trainingTokens = tokens;
    this.levels = levels;
    this.disc = disc;
    this.uni = uni;
    this.logUni = uni.map((u) => (u > 0 ? Math.log(u) : -Infinity));
    let h = 0,
      q = 0;
    for (let w = 0; w < uni.length; w++) {
      if (uni[w] > 0) {
        h += uni[w] * this.logUni[w];
        q += uni[w] * this.logUni[w] * this.logUni[w];
      }
    }
    this.uniH = h;
    this.uniQ = q;
    const order1 = Array.from({ length: uni.length - 1 }, (_, i) => i + 1);
    order1.sort((a, b) => uni[b] - uni[a] || a - b);
    this.uniOrder = Int32Array.from(order1);
  }

  /**
   * Train on texts (any iterable of strings). Each text is one document: its first tokens are
   * predicted from `<s>` padding, and no n-gram spans two documents.
   *
   * @throws INVALID_INPUT (not strings, or no tokens at all), INVALID_OPTIONS (order outside 2..6)
   * @example const lm = NgramLanguageModel.train(docs.map((d) => d.text), { order: 4 })
   */
  static train(texts: Iterable<string>, options: NgramOptions = {}): NgramLanguageModel {
    const order = options.order ?? 4;
    if (!Number.isInteger(order) || order < 2 || order > 6)
      throw new TrainprintError('INVALID_OPTIONS', 'order must be an integer in 2..6');
    if (texts === null || typeof texts !== 'object' || !(Symbol.iterator in texts))
      throw new TrainprintError('INVALID_INPUT', 'texts must be an iterable of strings');
    const vocab: string[] = [BOS, UNK];
    const ids = new Map<string, number>([
      [BOS, BOS_ID],
      [UNK, UNK_ID],
    ]);
    // highest order: one record (context row, word) per token
    const topIndex = new Map<string, number>();
    const topKeys: string[] = [];
    const rows: number[] = [],
      words: number[] = [];
    let tokens = 0;
    let at = 0;
    for (const text of texts) {
      if (typeof text !== 'string') throw new TrainprintError('INVALID_INPUT', `texts[${at}] must be a string`);
      at++;
      const hist: number[] = new Array(order - 1).fill(BOS_ID);
      for (const word of wordsOf(text)) {
        let id = ids.get(word);
        if (id === undefined) {
          id = vocab.length;
          vocab.push(word);
          ids.set(word, id);
        }
        const key = hist.join(',');
        let row = topIndex.get(key);
        if (row === undefined) {
          row = topKeys.length;
          topIndex.set(key, row);
          topKeys.push(key);
        }
        rows.push(row);
        words.push(id);
        hist.shift();
        hist.push(id);
        tokens++;
      }
    }
    if (tokens === 0) throw new TrainprintError('INVALID_INPUT', 'the training texts contain no word tokens');
    const V = vocab.length;
    const levels: OrderTable[] = new Array(order + 1);
    const disc: Float64Array[] = Array.from({ length: order + 1 }, () => new Float64Array(4));
    const tables: Array<{ t: Omit<OrderTable, 'gamma' | 'terms'>; keys: string[] }> = new Array(order + 1);
    tables[order] = { t: buildTable(topIndex, rows, words, V, topKeys.length), keys: topKeys };
    // continuation counts: each distinct (k+1)-gram adds one to the k-gram it ends with
    for (let k = order - 1; k >= 2; k--) {
      const upper = tables[k + 1];
      const index = new Map<string, number>();
      const keys: string[] = [];
      const rs: number[] = [],
        ws: number[] = [];
      upper.keys.forEach((key, r) => {
        const suffix = key.slice(key.indexOf(',') + 1);
        let row = index.get(suffix);
        if (row === undefined) {
          row = keys.length;
          index.set(suffix, row);
          keys.push(suffix);
        }
        for (let j = upper.t.start[r]; j < upper.t.start[r + 1]; j++) {
          rs.push(row);
          ws.push(upper.t.ids[j]);
        }
      });
      tables[k] = { t: buildTable(index, rs, ws, V, keys.length), keys };
    }
    const cont1 = new Float64Array(V);
    for (const w of tables[2].t.ids) cont1[w] += 1;
    disc[1] = discounts(cont1);
    for (let k = 2; k <= order; k++) {
      const t = tables[k].t;
      const d = (disc[k] = discounts(t.counts));
      const rowsN = t.start.length - 1;
      const gamma = new Float64Array(rowsN);
      const terms = new Float64Array(t.ids.length);
      for (let r = 0; r < rowsN; r++) {
        let total = 0,
          g = 0;
        for (let j = t.start[r]; j < t.start[r + 1]; j++) {
          const n = t.counts[j];
          total += n;
          g += d[Math.min(n, 3)];
        }
        gamma[r] = g / total;
        for (let j = t.start[r]; j < t.start[r + 1]; j++) {
          const n = t.counts[j];
          terms[j] = (n - d[Math.min(n, 3)]) / total;
        }
      }
      levels[k] = { ...t, gamma, terms };
    }
    const uni = new Float64Array(vocab.length);
    let t1 = 0;
    for (let w = 2; w < V; w++) t1 += cont1[w];
    let unk = 0;
    const d1 = disc[1];
    for (let w = 2; w < vocab.length; w++) {
      const c = cont1[w];
      const d = d1[Math.min(c, 3)];
      uni[w] = (c - d) / t1;
      unk += d / t1;
    }
    uni[UNK_ID] = unk;
    return new NgramLanguageModel(order, vocab, ids, tokens, levels, disc, uni);
  }

  /** Words in the vocabulary, `<s>` and `<unk>` included. */
  get vocabularySize(): number {
    return this.vocabulary.length;
  }

  /**
   * The engine's word tokens of a text with their spans (the tokens `fingerprint` shingles).
   * @example lm.tokenize('Hello, World!') // { tokens: ['hello', 'world'], starts: [0, 7], ends: [5, 12] }
   */
  tokenize(text: string): WordTokenSpans {
    return wordSpans(text);
  }

  /**
   * The count this model uses for an n-gram of 1..order tokens: the raw count at the highest
   * order, the continuation count N1+(• w…) (distinct words seen before it) below.
   * @example lm.count(['of', 'the'])
   */
  count(ngram: readonly string[]): number {
    const k = ngram.length;
    if (k < 1 || k > this.order) throw new TrainprintError('INVALID_INPUT', `an n-gram has 1..${this.order} tokens`);
    const idsOf = ngram.map((t) => this.ids.get(t));
    if (idsOf.some((x) => x === undefined)) return 0;
    const w = idsOf[k - 1]!;
    if (k === 1) {
      let n = 0;
      for (const x of this.levels[2].ids) if (x === w) n++;
      return n;
    }
    const t = this.levels[k];
    const row = t.index.get(idsOf.slice(0, -1).join(','));
    if (row === undefined) return 0;
    const j = find(t, row, w);
    return j < 0 ? 0 : t.counts[j];
  }

  /** The discounts [D1, D2, D3+] of order k (1..order). */
  discounts(k: number): [number, number, number] {
    const d = this.disc[k];
    if (!d || k < 1) throw new TrainprintError('INVALID_INPUT', `order must be in 1..${this.order}`);
    return [d[1], d[2], d[3]];
  }

  /**
   * The full next-token distribution after a context (text or tokens), indexed like
   * {@link vocabulary}: sums to 1, `<s>` has probability 0, `<unk>` is every unknown word.
   * The context is taken as the start of a document.
   * @example const p = lm.distribution('it was the'); p[lm.vocabulary.indexOf('best')]
   */
  distribution(context: string | readonly string[]): Float64Array {
    const hist = this.history(context);
    const { levels, a } = this.prepare(hist, hist.length);
    const p = new Float64Array(this.vocabulary.length);
    for (let w = 1; w < p.length; w++) p[w] = a * this.uni[w];
    for (const { table, row, scale } of levels) {
      const { ids, terms, start } = table;
      for (let j = start[row]; j < start[row + 1]; j++) p[ids[j]] += scale * terms[j];
    }
    return p;
  }

  /**
   * P(token | context). Unknown tokens get the probability of `<unk>`.
   * @example lm.probability('it was the', 'best')
   */
  probability(context: string | readonly string[], token: string): number {
    const hist = this.history(context);
    return this.prob(hist, hist.length, this.ids.get(token) ?? UNK_ID);
  }

  /**
   * Log-probabilities of every word of a text, each given the words before it (the text is a
   * document: its first word is predicted from `<s>`), with top-k alternatives and the exact
   * moments of log p over the vocabulary on request.
   * @example lm.score(text, { top: 5, moments: true })
   */
  score(text: string, options: { top?: number; moments?: boolean } = {}): NgramScore {
    const topK = options.top ?? 0;
    if (!Number.isInteger(topK) || topK < 0 || topK > 1000)
      throw new TrainprintError('INVALID_OPTIONS', 'top must be an integer in 0..1000');
    const spans = wordSpans(text);
    const n = spans.tokens.length;
    const hist = this.history([]);
    const logprobs: number[] = new Array(n);
    const top: TopLogprob[][] | undefined = topK > 0 ? new Array(n) : undefined;
    const moments: DistributionMoments[] | undefined = options.moments ? new Array(n) : undefined;
    for (let i = 0; i < n; i++) {
      const id = this.ids.get(spans.tokens[i]) ?? UNK_ID;
      if (top || moments) {
        const r = this.dense(hist, hist.length, topK, moments !== undefined);
        if (top) top[i] = r.top.map(([w, p]) => ({ token: this.vocabulary[w], logprob: Math.log(p) }));
        if (moments) moments[i] = r.moments!;
      }
      logprobs[i] = Math.log(this.prob(hist, hist.length, id));
      hist.push(id);
    }
    return { ...spans, logprobs, ...(top ? { top } : {}), ...(moments ? { moments } : {}) };
  }

  /**
   * Greedy continuation: the most probable word at each step (never `<unk>`), `maxTokens` words.
   * Returns the words, each preceded by a space (so `prompt + result` reads as text).
   * @example lm.generateText('it was the best of', 10) // ' times it was the worst of times …'
   */
  generateText(prompt: string, maxTokens: number): string {
    if (!Number.isInteger(maxTokens) || maxTokens < 0 || maxTokens > 100_000)
      throw new TrainprintError('INVALID_OPTIONS', 'maxTokens must be an integer in 0..100000');
    return this.generateTokens(prompt, maxTokens)
      .map((t) => ' ' + t)
      .join('');
  }

  /** Greedy continuation as tokens. */
  generateTokens(prompt: string | readonly string[], maxTokens: number): string[] {
    const hist = this.history(prompt);
    const out: string[] = [];
    for (let i = 0; i < maxTokens; i++) {
      const best = this.dense(hist, hist.length, 1, false, true).top[0];
      if (!best) break;
      out.push(this.vocabulary[best[0]]);
      hist.push(best[0]);
    }
    return out;
  }

  /**
   * This model as a {@link TargetModel} (access `top_k`, with exact distribution moments, so
   * Min-K%++ is exact). `topLogprobs` alternatives per position are included when > 0.
   * @example const model = lm.asTargetModel({ id: 'ngram:brown-members' })
   */
  asTargetModel(options: { id?: string; topLogprobs?: number } = {}): TargetModel {
    const lm = this;
    const top = options.topLogprobs ?? 0;
    const id = options.id ?? `ngram:${this.order}-gram/${this.trainingTokens}`;
    const access: AccessLevel = 'top_k';
    return {
      id,
      access,
      async logprobs(text: string): Promise<TokenLogprobs> {
        const s = lm.score(text, { top, moments: true });
        return {
          tokens: s.tokens,
          logprobs: s.logprobs,
          offsets: s.starts,
          ...(s.top ? { top: s.top } : {}),
          moments: s.moments,
          full: true,
        };
      },
      async generate(prompt: string, o: GenerateOptions): Promise<string> {
        if (o?.temperature !== 0)
          throw new TrainprintError('INVALID_OPTIONS', 'only temperature 0 (greedy) is supported');
        return lm.generateText(prompt, o.maxTokens);
      },
    };
  }

  // ------------------------------------------------------------------ internals

  /** Context ids (document start padding + the context's tokens). */
  private history(context: string | readonly string[]): number[] {
    const words = typeof context === 'string' ? wordsOf(context) : context;
    const hist: number[] = new Array(this.order - 1).fill(BOS_ID);
    for (const w of words) hist.push(this.ids.get(w) ?? UNK_ID);
    return hist;
  }

  /** The orders whose context was seen, with their scales, and A = Π γ. */
  private prepare(hist: readonly number[], end: number): { levels: Level[]; a: number } {
    const levels: Level[] = [];
    let scale = 1;
    let key = '';
    const keys: string[] = [];
    // keys of the last k − 1 tokens, shortest first
    for (let k = 2; k <= this.order; k++) {
      key = k === 2 ? String(hist[end - 1]) : `${hist[end - k + 1]},${key}`;
      keys.push(key);
    }
    for (let k = this.order; k >= 2; k--) {
      const table = this.levels[k];
      const row = table.index.get(keys[k - 2]);
      if (row === undefined) continue;
      levels.push({ table, row, scale });
      scale *= table.gamma[row];
    }
    return { levels, a: scale };
  }

  private prob(hist: readonly number[], end: number, w: number): number {
    const { levels, a } = this.prepare(hist, end);
    let p = a * this.uni[w];
    for (const { table, row, scale } of levels) {
      const j = find(table, row, w);
      if (j >= 0) p += scale * table.terms[j];
    }
    return p;
  }

  /** Top-k (by probability) and, optionally, the exact moments of log p at one position. */
  private dense(
    hist: readonly number[],
    end: number,
    k: number,
    withMoments: boolean,
    noUnk = false,
  ): { top: Array<[number, number]>; moments?: DistributionMoments } {
    const V = this.vocabulary.length;
    let s = this.scratch;
    if (!s || s.extra.length !== V)
      s = this.scratch = { extra: new Float64Array(V), mark: new Uint8Array(V), touched: [] };
    const { extra, mark, touched } = s;
    const { levels, a } = this.prepare(hist, end);
    for (const { table, row, scale } of levels) {
      const { ids, terms, start } = table;
      for (let j = start[row]; j < start[row + 1]; j++) {
        const w = ids[j];
        if (!mark[w]) {
          mark[w] = 1;
          touched.push(w);
        }
        extra[w] += scale * terms[j];
      }
    }
    // top-k: the sparse words, then the unigram order among the rest (there p = A·u)
    const heap = new TopK(k);
    for (const w of touched) if (!(noUnk && w === UNK_ID)) heap.push(w, a * this.uni[w] + extra[w]);
    let found = 0;
    for (let i = 0; i < this.uniOrder.length && found < k; i++) {
      const w = this.uniOrder[i];
      if (mark[w] || (noUnk && w === UNK_ID)) continue;
      heap.push(w, a * this.uni[w]);
      found++;
    }
    let moments: DistributionMoments | undefined;
    if (withMoments) {
      const la = Math.log(a);
      let m1 = 0,
        m2 = 0,
        uS = 0,
        hS = 0,
        qS = 0;
      for (const w of touched) {
        const p = a * this.uni[w] + extra[w];
        const lp = Math.log(p);
        m1 += p * lp;
        m2 += p * lp * lp;
        const u = this.uni[w];
        if (u > 0) {
          const lu = this.logUni[w];
          uS += u;
          hS += u * lu;
          qS += u * lu * lu;
        }
      }
      const uR = Math.max(0, 1 - uS),
        hR = this.uniH - hS,
        qR = this.uniQ - qS;
      m1 += a * (la * uR + hR);
      m2 += a * (la * la * uR + 2 * la * hR + qR);
      moments = { mean: m1, variance: Math.max(0, m2 - m1 * m1) };
    }
    for (const w of touched) {
      extra[w] = 0;
      mark[w] = 0;
    }
    touched.length = 0;
    return { top: heap.sorted(), ...(moments ? { moments } : {}) };
  }
}

/**
 * Count (row, word) records into compressed rows: sort the keys row·V + word (exact in doubles:
 * rows · V < 2^53), then run lengths.
 */
function buildTable(
  index: Map<string, number>,
  rows: readonly number[],
  words: readonly number[],
  V: number,
  nRows: number,
): Omit<OrderTable, 'gamma' | 'terms'> {
  if (nRows * V > Number.MAX_SAFE_INTEGER)
    throw new TrainprintError('PAYLOAD_TOO_LARGE', 'too many distinct contexts × vocabulary for this n-gram model');
  const keys = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) keys[i] = rows[i] * V + words[i];
  keys.sort();
  let distinct = 0;
  for (let i = 0; i < keys.length; i++) if (i === 0 || keys[i] !== keys[i - 1]) distinct++;
  const start = new Int32Array(nRows + 1);
  const ids = new Int32Array(distinct);
  const counts = new Int32Array(distinct);
  let j = -1;
  for (let i = 0; i < keys.length; i++) {
    if (i === 0 || keys[i] !== keys[i - 1]) {
      j++;
      const row = Math.floor(keys[i] / V);
      ids[j] = keys[i] - row * V;
      start[row + 1]++;
    }
    counts[j]++;
  }
  for (let r = 0; r < nRows; r++) start[r + 1] += start[r];
  return { index, start, ids, counts };
}

/** Position of word w among row's followers (ids ascending), or −1. */
function find(t: { start: Int32Array; ids: Int32Array }, row: number, w: number): number {
  let lo = t.start[row],
    hi = t.start[row + 1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = t.ids[mid];
    if (x === w) return mid;
    if (x < w) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** Discounts [0, D1, D2, D3+] from count-of-counts (Chen & Goodman 1998, eq. 26), clamped to (0, c). */
function discounts(counts: Iterable<number>): Float64Array {
  let n1 = 0,
    n2 = 0,
    n3 = 0,
    n4 = 0;
  for (const c of counts) {
    if (c === 1) n1++;
    else if (c === 2) n2++;
    else if (c === 3) n3++;
    else if (c === 4) n4++;
  }
  const d = new Float64Array([0, 0.5, 1, 1.5]); // fallback for tiny corpora
  if (n1 > 0 && n2 > 0) {
    const y = n1 / (n1 + 2 * n2);
    d[1] = 1 - (2 * y * n2) / n1;
    if (n3 > 0) d[2] = 2 - (3 * y * n3) / n2;
    if (n3 > 0 && n4 > 0) d[3] = 3 - (4 * y * n4) / n3;
  }
  for (let c = 1; c <= 3; c++) d[c] = Math.min(c - 0.01, Math.max(0.01, d[c]));
  return d;
}

/** A fixed-size min-heap of (id, p) keeping the k largest p; ties by smaller id. */
class TopK {
  private readonly ids: number[] = [];
  private readonly ps: number[] = [];
  constructor(private readonly k: number) {}
  private less(i: number, j: number): boolean {
    return this.ps[i] < this.ps[j] || (this.ps[i] === this.ps[j] && this.ids[i] > this.ids[j]);
  }
  private swap(i: number, j: number): void {
    [this.ids[i], this.ids[j]] = [this.ids[j], this.ids[i]];
    [this.ps[i], this.ps[j]] = [this.ps[j], this.ps[i]];
  }
  push(id: number, p: number): void {
    if (this.k === 0) return;
    if (this.ids.length < this.k) {
      this.ids.push(id);
      this.ps.push(p);
      for (let i = this.ids.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!this.less(i, parent)) break;
        this.swap(i, parent);
        i = parent;
      }
      return;
    }
    if (p < this.ps[0] || (p === this.ps[0] && id > this.ids[0])) return;
    this.ids[0] = id;
    this.ps[0] = p;
    for (let i = 0; ; ) {
      const l = 2 * i + 1,
        r = l + 1;
      let m = i;
      if (l < this.ids.length && this.less(l, m)) m = l;
      if (r < this.ids.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }
  sorted(): Array<[number, number]> {
    return this.ids.map((id, i): [number, number] => [id, this.ps[i]]).sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  }
}

/**
 * The engine's word tokens (`normalize(text).text.split(' ')`).
 * @example wordsOf('Call me Ishmael.') // ['call', 'me', 'ishmael']
 */
export function wordsOf(text: string): string[] {
  const t = normalize(text).text;
  return t.length === 0 ? [] : t.split(' ');
}

/**
 * The engine's word tokens with their UTF-16 spans in `text`.
 * @example wordSpans('Call me') // { tokens: ['call', 'me'], starts: [0, 5], ends: [4, 7] }
 */
export function wordSpans(text: string): WordTokenSpans {
  const { text: t, map } = normalize(text);
  const tokens: string[] = [],
    starts: number[] = [],
    ends: number[] = [];
  if (t.length === 0) return { tokens, starts, ends };
  let s = 0;
  for (let i = 0; i <= t.length; i++) {
    if (i === t.length || t.charCodeAt(i) === 0x20) {
      tokens.push(t.slice(s, i));
      starts.push(map[s]);
      ends.push(map[i]);
      s = i + 1;
    }
  }
  return { tokens, starts, ends };
}

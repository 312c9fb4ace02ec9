/**
 * Synonyms for the aligner: WordNet 3.1's synonym sets (G. A. Miller, "WordNet: a lexical database for English",
 * Communications of the ACM 38(11), 1995; Princeton University, WordNet 3.1, 2011) of single words, with adjective
 * clusters as one set (large, huge, vast) and irregular forms with their base form (said with say: WordNet 3.0's
 * exception lists), by stem; and the per-pair swap that lets a reworded sentence meet its
 * source: a content word of one text that the other lacks is read as the other's word of the same synonym set when
 * the other holds one (coupon → voucher, edges → border, finally → eventually).
 *
 * Why a swap and not expansion: adding every synonym set of a word as an extra term of its sentence makes unrelated
 * sentences alike through the many senses of common words (PAN 2013 pooled plagdet 0.956 → 0.922); the swap only
 * relabels a word whose synonym is in the other text and not its own, so words both texts hold keep their
 * weight, and a pair with no such synonyms is prepared exactly as before.
 */
import { lexicon } from './tokens.js';

const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Each digit's value by its character code (`DIGITS.indexOf`, read once per character of a stem's run). */
const DIGIT_VALUES = (() => {
  const values = new Int8Array(128).fill(-1);
  for (let d = 0; d < DIGITS.length; d++) values[DIGITS.charCodeAt(d)] = d;
  return values;
})();

/** The generated table (src/align/synonym-stems.generated.ts), once {@link loadSynonyms} has brought it. */
interface SynonymTable {
  readonly STEMS: string;
  readonly STEM_SETS: string;
  readonly STEM_COUNT: number;
  readonly SYNSET_COUNT: number;
}

let table: SynonymTable | undefined;
let loading: Promise<void> | undefined;

/**
 * Load the synonym table (580 KB: the stems of WordNet's 51,081 lemmas with their sets) once per process. It is a
 * module of its own, imported on demand, so a bundle that only fingerprints does not carry it: `createEngine` awaits
 * this before it returns (unless `synonyms: false`), and compare, which is synchronous, then reads the table loaded.
 * Until it is loaded the aligner reads words as written and compare says so (`limitations: ['synonyms_not_loaded']`).
 * @example
 * await loadSynonyms()
 * synonymsLoaded() // true
 */
export function loadSynonyms(): Promise<void> {
  loading ??= import('./synonym-stems.generated.js').then(
    (m) => {
      table = m;
    },
    (e: unknown) => {
      loading = undefined; // a failed load (a chunk the page could not fetch) may be tried again
      throw e;
    },
  );
  return loading;
}

/**
 * Whether the synonym table is loaded in this process ({@link loadSynonyms}).
 * @example if (!synonymsLoaded()) await loadSynonyms()
 */
export function synonymsLoaded(): boolean {
  return table !== undefined;
}

/**
 * The synonym sets of each stem (the aligner's stems of WordNet's single-word lemmas, stop words left out), read from
 * the generated table: the stems are split out at first use and found by binary search, and a stem's sets are decoded
 * when it is looked up. Why not a Map of every stem: building it (36,412 stems, their sets decoded) at the first
 * `compare()` of a process cost about 50 ms, and stemming WordNet's lemmas there, as this did before the table held
 * stems, about 0.4 s of CPU; a compare looks up a few hundred stems.
 * @example synonymSets().get(stemOnce('coupon')) // Int32Array [ … the set it shares with 'voucher' … ]
 */
export class StemSets {
  /** The stems, sorted. */
  readonly #stems: readonly string[];
  /** Each stem's run of varints (the same order). */
  readonly #runs: readonly string[];

  constructor(stems: readonly string[], runs: readonly string[]) {
    this.#stems = stems;
    this.#runs = runs;
  }

  /** Stems held. */
  get size(): number {
    return this.#stems.length;
  }

  /** Whether `stem` has synonym sets. */
  has(stem: string): boolean {
    return this.#find(stem) >= 0;
  }

  /** The ascending set numbers of `stem`, or undefined when it has none. */
  get(stem: string): Int32Array | undefined {
    const i = this.#find(stem);
    return i < 0 ? undefined : decodeRun(this.#runs[i]);
  }

  /** Every stem with its sets, in the stems' order (decodes every run: for checks of the whole table). */
  *[Symbol.iterator](): IterableIterator<[string, Int32Array]> {
    for (let i = 0; i < this.#stems.length; i++) yield [this.#stems[i], decodeRun(this.#runs[i])];
  }

  #find(stem: string): number {
    const stems = this.#stems;
    let lo = 0,
      hi = stems.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = stems[mid];
      if (at === stem) return mid;
      if (at < stem) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** A stem's set numbers from its run: the first as is, each other as the gap to the one before. */
function decodeRun(run: string): Int32Array {
  let count = 0;
  for (let i = 0; i < run.length; i++) if (DIGIT_VALUES[run.charCodeAt(i)] < 32) count++;
  const sets = new Int32Array(count);
  let at = 0,
    last = 0;
  for (let k = 0; k < count; k++) {
    let n = 0;
    for (let shift = 0; ; shift += 5) {
      const d = DIGIT_VALUES[run.charCodeAt(at++)];
      n += (d & 31) * 2 ** shift;
      if (d < 32) break;
    }
    last = k === 0 ? n : last + n;
    sets[k] = last;
  }
  return sets;
}

let byStem: StemSets | undefined;
const NONE = new StemSets([], []);

/**
 * The synonym sets by stem ({@link StemSets}); empty while the table is not loaded ({@link loadSynonyms}).
 * @example synonymSets().get(stemOnce('coupon')) // Int32Array [ … the set it shares with 'voucher' … ]
 */
export function synonymSets(): StemSets {
  if (byStem) return byStem;
  if (!table) return NONE;
  const stems = table.STEMS.split(' '),
    runs = table.STEM_SETS.split(' ');
  if (stems.length !== table.STEM_COUNT || runs.length !== table.STEM_COUNT)
    throw new Error('trainprint: the synonym table is damaged');
  byStem = new StemSets(stems, runs);
  return byStem;
}

/**
 * The synonym sets of the process lexicon's terms, looked up once per term and kept in flat arrays (a swap reads
 * them for every term of every pair a search aligns: a Map or a sparse array there cost more than the alignment).
 * Starts afresh with the lexicon's epoch, and when the table loads.
 */
class TermSets {
  epoch = -1;
  /** Per lexicon term: 1 + where its sets start in `pool` (0: not looked up yet). */
  start = new Int32Array(0);
  /** Per lexicon term: how many sets it has. */
  count = new Uint16Array(0);
  pool = new Int32Array(1 << 16);
  used = 0;

  /** The table the lookups were made with (none before it loaded). */
  table: SynonymTable | undefined;

  /** Starts afresh when the lexicon did (its term ids are new) or the table has loaded since. */
  sync(): void {
    if (this.epoch === lexicon.epoch && this.table === table) return;
    this.epoch = lexicon.epoch;
    this.table = table;
    this.start = new Int32Array(Math.max(1024, lexicon.terms * 2));
    this.count = new Uint16Array(this.start.length);
    this.used = 0;
  }

  /** Looks up the sets of lexicon term `term` if not yet done (after {@link sync}). */
  ensure(term: number): void {
    if (term < this.start.length && this.start[term] !== 0) return;
    if (term >= this.start.length) {
      const size = Math.max(term + 1, this.start.length * 2);
      this.start = grown(this.start, size);
      this.count = grown(this.count, size);
    }
    const sets = synonymSets().get(lexicon.stemOf(term));
    const n = sets?.length ?? 0;
    if (this.used + n > this.pool.length) this.pool = grown(this.pool, Math.max(this.used + n, this.pool.length * 2));
    if (sets) this.pool.set(sets, this.used);
    this.start[term] = this.used + 1;
    this.count[term] = n;
    this.used += n;
  }
}

/** A copy of `a` in a larger array of its type. */
function grown<T extends Int32Array | Uint16Array>(a: T, size: number): T {
  const larger = new (a.constructor as new (length: number) => T)(size);
  larger.set(a);
  return larger;
}

const termSets = new TermSets();

/**
 * The synonym sets of the process lexicon's term `term` (an empty array when it has none).
 * @example termSynsets(lexicon.termOf[lexicon.word('coupon')])
 */
export function termSynsets(term: number): Int32Array {
  termSets.sync();
  termSets.ensure(term);
  const from = termSets.start[term] - 1;
  return termSets.pool.subarray(from, from + termSets.count[term]);
}

/**
 * Relabels, in place, each term of `termA` that `termB` lacks as a term of `termB` that `termA` lacks and that
 * shares a synonym set with it (the first such term of `termB` by id, for the first set they share in the term's
 * ascending sets); terms the two hold alike, and −1 (stop words), are left. Terms are dense ids below `terms`, and
 * `lexiconTerm[t]` is the process lexicon's term of `t` (its sets are {@link termSynsets}). Returns the number of
 * tokens relabelled.
 * @example
 * // a = "coupon book", b = "voucher book": local terms 0 coupon, 1 book, 2 voucher
 * swapSynonyms(a, b, 3, [coupon, book, voucher]) // 1: a's terms are now [2, 1]
 */
export function swapSynonyms(
  termA: Int32Array,
  termB: Int32Array,
  terms: number,
  lexiconTerm: ArrayLike<number>,
): number {
  const IN_A = 1,
    IN_B = 2;
  const held = new Uint8Array(terms);
  for (const t of termA) if (t >= 0) held[t] |= IN_A;
  for (const t of termB) if (t >= 0) held[t] |= IN_B;
  termSets.sync();
  for (let t = 0; t < terms; t++) if (held[t] === IN_A || held[t] === IN_B) termSets.ensure(lexiconTerm[t]);
  const { start, count, pool } = termSets;
  // nothing to relabel when no term of a's own has a synonym set: then b's sets are not read at all (a query passage
  // that its candidate window holds whole, as a copied chunk of a score is, has no term of its own)
  let wanted = false;
  for (let t = 0; t < terms && !wanted; t++) wanted = held[t] === IN_A && count[lexiconTerm[t]] > 0;
  if (!wanted) return 0;
  const stamp = nextStamp();
  const stamps = setStamp,
    termOfSet = setTerm,
    bits = ownSetBits; // module bindings read once, not in the loops
  // the sets of a's own terms as bits: b's own terms have many sets each and only those a shares are read further, in
  // a table of 4.5 KB that stays in the cache where the stamps (144 KB, read at random) were the swap's time
  for (let t = 0; t < terms; t++) {
    if (held[t] !== IN_A) continue;
    const g = lexiconTerm[t];
    for (let k = start[g] - 1, to = k + count[g]; k < to; k++) bits[pool[k] >>> 5] |= 1 << (pool[k] & 31);
  }
  // those sets among b's own terms' sets, each to its first such term (a stamped table: no Map, no clearing)
  let any = false;
  for (let t = 0; t < terms; t++) {
    if (held[t] !== IN_B) continue;
    const g = lexiconTerm[t];
    const from = start[g] - 1,
      to = from + count[g];
    for (let k = from; k < to; k++) {
      const s = pool[k];
      if ((bits[s >>> 5] & (1 << (s & 31))) === 0 || stamps[s] === stamp) continue;
      stamps[s] = stamp;
      termOfSet[s] = t;
      any = true;
    }
  }
  for (let t = 0; t < terms; t++) {
    if (held[t] !== IN_A) continue;
    const g = lexiconTerm[t];
    for (let k = start[g] - 1, to = k + count[g]; k < to; k++) bits[pool[k] >>> 5] = 0; // every bit set was a's
  }
  if (!any) return 0;
  const swap = new Int32Array(terms).fill(-1);
  any = false;
  for (let t = 0; t < terms; t++) {
    if (held[t] !== IN_A) continue;
    const g = lexiconTerm[t];
    const from = start[g] - 1,
      to = from + count[g];
    for (let k = from; k < to; k++) {
      const s = pool[k];
      if (stamps[s] === stamp) {
        swap[t] = termOfSet[s];
        any = true;
        break;
      }
    }
  }
  if (!any) return 0;
  let relabelled = 0;
  for (let k = 0; k < termA.length; k++) {
    const t = termA[k];
    if (t >= 0 && swap[t] >= 0) {
      termA[k] = swap[t];
      relabelled++;
    }
  }
  return relabelled;
}

/**
 * Per synonym set (ids below SYNSET_COUNT: the sets come from the generated table alone): the stamp of the swap that
 * last saw it, and the term of `b` it stands for there.
 */
let setStamp = new Uint32Array(0);
let setTerm = new Int32Array(0);
/** Per synonym set, a bit: the sets of a's own terms during one swap (all clear between swaps). */
let ownSetBits = new Int32Array(0);
let lastStamp = 0;

function nextStamp(): number {
  const sets = table?.SYNSET_COUNT ?? 0;
  if (setStamp.length !== sets) {
    setStamp = new Uint32Array(sets);
    setTerm = new Int32Array(sets);
    ownSetBits = new Int32Array((sets + 31) >>> 5);
    lastStamp = 0;
  }
  if (lastStamp === 0xffffffff) {
    setStamp.fill(0);
    lastStamp = 0;
  }
  return ++lastStamp;
}

/**
 * Chains of locator hits: the hits of a query, in order, that agree with one section of a portrait's documents (or run
 * on into the next section of the same document), misses and disagreeing hits allowed between them — a gapped run.
 * What "agree" means, and why counting agreements resolves a copy to its section, is in ./locator.ts.
 *
 * One pass over the hits; at each hit, in this order: the chains whose last agreeing hit is too far behind are closed
 * ({@link ChainSearch.expire}), the open chains take the hit or fork into the next section
 * ({@link ChainSearch.extend}), a foreign hit inside a long copy is recognised as such
 * ({@link ChainSearch.insideLongCopy}), two chains in one section are reduced to the longer
 * ({@link ChainSearch.keepLongest}), and a hit that no chain explains has every section tried at it
 * ({@link ChainSearch.seed}).
 */
import { standsAlone } from '../text/nfkc-casefold.js';
import type { Fingerprint, WinnowSet } from '../types.js';
import { sectionDoc, sectionValue } from './locator.js';

/** Largest gap, in query fingerprints, between two agreeing hits of one chain. */
export const LOCATOR_GAP = 16;
/** Hits looked ahead when a chain is started (a chain needs a second agreeing hit among them). */
const LOOKAHEAD = 4;
/** Hits ahead, within the gap, that a hit needs before every section is tried at it. */
const SEED_AHEAD = 3;

/** Where a chain must end besides the gap in fingerprints (see {@link locateChains}). */
export interface ChainLimits {
  /** The word position of each query fingerprint (its n-gram's first word; {@link fingerprintWords}). */
  readonly words: ArrayLike<number>;
  /** Where each query fingerprint's n-gram ends, in words (`words[i] + 5` when absent). */
  readonly ends?: ArrayLike<number>;
  /** Words between two agreeing hits that neither hit's n-gram covers, at most. */
  readonly maxUnhitWords: number;
}

/** Words of an n-gram (a hit at word p covers p … p + 4). */
const NGRAM_WORDS = 5;
/** First code point of the scripts written without spaces (Thai); every letter below it is part of a word. */
const FIRST_STANDING_ALONE = 0x0e00;
/**
 * What a token that is one character of a script written without spaces (a kanji, a kana, a hanzi, a Thai letter: a
 * token of its own, src/text/normalize.ts) counts for in {@link ChainLimits.maxUnhitWords}: such a character is a
 * morpheme or a syllable, and the words of these languages mostly take one to three of them, so a stretch of invented
 * text long enough to end a chain is about twice as many characters as words.
 */
const CHARACTER_WORD = 0.5;

/**
 * The word positions of a winnowed fingerprint of `text` for {@link ChainLimits}: where each fingerprint's n-gram
 * starts and ends, counting a word token as one word and a character of a script without spaces as
 * {@link CHARACTER_WORD} (text in spaced scripts gets its token positions, unchanged). Read from the text between the
 * fingerprints' starts (the tokens between two are their positions' difference; a character standing alone is one).
 * @example
 * const t = '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。'
 * const { words, ends } = fingerprintWords(await engine.fingerprint(t, { winnow: { window: 8 } }), t)
 * ends?.[0] - words[0] // 2.5: five characters, two and a half words (no `ends` for text in spaced scripts: + 5)
 */
export function fingerprintWords(
  fp: Fingerprint,
  text: string,
): { words: ArrayLike<number>; ends?: ArrayLike<number> } {
  const w = fp.winnow!;
  let known = wordsOfFingerprint.get(w);
  if (known === undefined || known.text !== text) {
    known = { text, ...(STANDING_ALONE.test(text) ? characterWords(w, text) : { words: w.positions }) };
    wordsOfFingerprint.set(w, known);
  }
  return known;
}

/** {@link fingerprintWords} of each fingerprint searched (every portrait of its window reads the same). */
const wordsOfFingerprint = new WeakMap<
  WinnowSet,
  { text: string; words: ArrayLike<number>; ends?: ArrayLike<number> }
>();
/** Code units of the scripts written without spaces (and of every other script past U+2E80): where to look closer. */
const STANDING_ALONE = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\uffff]/;

function characterWords(w: WinnowSet, text: string): { words: Float64Array; ends: Float64Array } {
  const { positions, starts, ends } = w;
  const n = positions.length;
  const words = new Float64Array(n);
  const wordEnds = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      const tokens = positions[i] - positions[i - 1];
      words[i] = words[i - 1] + wordsOf(text, starts[i - 1], Math.min(starts[i], text.length), tokens);
    }
    wordEnds[i] = words[i] + wordsOf(text, starts[i], Math.min(ends[i], text.length), NGRAM_WORDS);
  }
  return { words, ends: wordEnds };
}

/** What `tokens` tokens written in text[from, to) count for in words: the characters standing alone count less. */
function wordsOf(text: string, from: number, to: number, tokens: number): number {
  let alone = 0;
  for (let k = from; k < to && alone < tokens; k++) {
    const c = text.charCodeAt(k);
    if (c < FIRST_STANDING_ALONE) continue;
    const cp = text.codePointAt(k)!;
    if (cp > 0xffff) k++;
    if (standsAlone(cp)) alone++;
  }
  return tokens - alone + alone * CHARACTER_WORD;
}

/** A place a chain of hits resolved to. */
export interface LocatedChain {
  /** Global section index (document order). */
  readonly section: number;
  /** First and last section of the chain (it may run on into the next section of the same document). */
  readonly first_section: number;
  /** Index of the document. */
  readonly doc: number;
  /** Query fingerprint positions of the agreeing hits, in order. */
  readonly positions: number[];
  /** Hits (of any section) between the first and the last agreeing hit, both included. */
  readonly hits: number;
}

/** A chain still taking hits. */
interface OpenChain {
  section: number;
  first_section: number;
  doc: number;
  positions: number[];
  startHit: number;
  lastHit: number;
  /** Hits in a row it agreed with, up to the last one. */
  streak: number;
  /** The chain it forked from, through every fork (the seed's number): forks of one chain share their history. */
  origin: number;
  /** Agreements it shares with the chain it forked from (its history; 0 for a seed). */
  forkedAt: number;
}

/**
 * The sections whose value for the key of digest `g` is `target`, written to `out`; returns how many. This loop over
 * every section is the locator's whole cost on text in no pack: a plain function over typed arrays, so that it stays
 * a tight loop.
 */
function agreeingSections(seeds: Uint32Array, g: number, target: number, bits: number, out: Int32Array): number {
  const shift = 32 - bits;
  let n = 0;
  for (let c = 0; c < seeds.length; c++) {
    // sectionValue, inlined
    let x = (g ^ seeds[c]) >>> 0;
    x ^= x >>> 16;
    x = Math.imul(x, 0x85ebca6b);
    x ^= x >>> 13;
    x = Math.imul(x, 0xc2b2ae35);
    x ^= x >>> 16;
    if (x >>> shift === target) out[n++] = c;
  }
  return n;
}

/** The state of one pass of {@link locateChains}: the open chains, the closed ones, and what the hits read. */
class ChainSearch {
  readonly done: LocatedChain[] = [];
  open: OpenChain[] = [];
  private seeded = 0;
  private readonly scratch: Int32Array;

  constructor(
    private readonly n: number,
    private readonly digests: Uint32Array,
    private readonly stored: Uint8Array,
    private readonly seeds: Uint32Array,
    private readonly first: Uint32Array,
    private readonly bits: number,
    private readonly minLength: number,
    private readonly limits?: ChainLimits,
  ) {
    this.scratch = new Int32Array(seeds.length);
  }

  /** Section c agrees with hit h. */
  agrees(c: number, h: number): boolean {
    return sectionValue(this.seeds[c], this.digests[h], this.bits) === this.stored[h];
  }

  /** Hits k and h have one key (digest and stored value): they agree with the same sections. */
  sameKey(k: number, h: number): boolean {
    return this.digests[k] === this.digests[h] && this.stored[k] === this.stored[h];
  }

  /**
   * Section c agrees with `need` of the hits just ahead of h (a second agreement confirms a start or a move), each of
   * a key of its own: a hit of h's key again, or of the key of one counted already, agrees with the same sections, so
   * it confirms nothing. Text of one word or phrase said over and over ("a a a …") would otherwise confirm every
   * section that agrees with its key (one in 2^bits) and keep a chain open in each at every hit: a 1 MB request of one
   * repeated word held the thread 12–16 s, and a famous sentence repeated to 10 MB ran out of memory.
   */
  confirmed(c: number, h: number, aheadEnd: number, need = 1): boolean {
    let n = 0;
    let counted = -1;
    for (let k = h + 1; k < aheadEnd; k++) {
      if (this.sameKey(k, h) || (counted >= 0 && this.sameKey(k, counted)) || !this.agrees(c, k)) continue;
      if (++n >= need) return true;
      counted = k;
    }
    return false;
  }

  /**
   * Hit h's key was a hit's within {@link LOCATOR_GAP} positions before it: it agrees with the sections that one did,
   * so every section tried there was tried then (a chain that took that hit takes this one too).
   */
  repeatsNearby(h: number, at: ArrayLike<number>): boolean {
    for (let j = h - 1; j >= 0 && at[h] - at[j] <= LOCATOR_GAP; j--) if (this.sameKey(j, h)) return true;
    return false;
  }

  /**
   * A chain left behind by its own fork: another chain of its origin holds its history and all but at most two of
   * its later agreements (chance ones). The strongest chain claims its hits first, so such a chain would keep at
   * most two hits — never evidence — and reading it again (its history is the whole copy so far) is what made a
   * whole book slow.
   */
  dominated(o: OpenChain): boolean {
    for (const x of this.open) {
      // strictly larger (longer, or as long and forked later), so that of two such chains one always stays
      const larger =
        x.positions.length > o.positions.length ||
        (x.positions.length === o.positions.length && x.forkedAt > o.forkedAt);
      if (x === o || x.origin !== o.origin || !larger) continue;
      let outside = 0;
      let j = 0;
      for (let k = x.forkedAt; k < o.positions.length; k++) {
        const v = o.positions[k];
        while (j < x.positions.length && x.positions[j] < v) j++;
        if (j >= x.positions.length || x.positions[j] !== v) if (++outside > 2) break;
      }
      if (outside <= 2) return true;
    }
    return false;
  }

  /** A chain ends: kept when it is long enough and not dominated by a fork of its own. */
  close(o: OpenChain): void {
    if (o.positions.length >= this.minLength && !this.dominated(o))
      this.done.push({
        section: o.section,
        first_section: o.first_section,
        doc: o.doc,
        positions: o.positions,
        hits: o.lastHit - o.startHit + 1,
      });
  }

  /** Close the chains whose last agreeing hit is too far behind `pos` (in fingerprints, or in unhit words). */
  expire(pos: number): void {
    const open = this.open;
    const limits = this.limits;
    let kept = 0;
    for (const o of open) {
      const last = o.positions[o.positions.length - 1];
      if (
        pos - last > LOCATOR_GAP ||
        (limits !== undefined &&
          limits.words[pos] - (limits.ends?.[last] ?? limits.words[last] + NGRAM_WORDS) > limits.maxUnhitWords)
      )
        this.close(o);
      else open[kept++] = o;
    }
    open.length = kept;
  }

  /**
   * Hit h at query position `pos` to every open chain: taken by those that agree with it, or a fork into the next
   * section of the document (returned, not yet open). `explained`: a chain that takes it explains the hit.
   */
  extend(h: number, pos: number, aheadEnd: number): { explained: boolean; forks: OpenChain[] } {
    let explained = false;
    const forks: OpenChain[] = [];
    for (const o of this.open) {
      if (this.agrees(o.section, h)) {
        o.streak = o.lastHit === h - 1 ? o.streak + 1 : 1;
        o.positions.push(pos);
        o.lastHit = h;
        // a chain explains a hit when it agreed with the last three in a row (by chance 2⁻³ᵛ) or with three in four
        // of at least eight hits: chains of chance agreements in a dense region do not keep the true section from
        // being tried, and a long copy with a few foreign hits is not tried again section by section
        const n = o.positions.length;
        if (o.streak >= 3 || (n >= 8 && 4 * n >= 3 * (h - o.startHit + 1))) explained = true;
      } else if (
        o.section + 1 < this.first[o.doc + 1] &&
        this.agrees(o.section + 1, h) &&
        // a fork of this chain already goes on in the next section: another one would hold its history again, and
        // lose to it (a whole book forked at every hit after each section's end, until its chain there expired: the
        // copies of its history made the search of Moby-Dick 20 times slower)
        !this.open.some((x) => x.section === o.section + 1 && x.origin === o.origin) &&
        this.confirmed(o.section + 1, h, aheadEnd)
      ) {
        // on into the next section of the document, confirmed by a hit just ahead so that chains do not drift on
        // chance agreements; as a fork: the chain in its own section goes on too (the next hit may be its own)
        forks.push({
          ...o,
          section: o.section + 1,
          positions: [...o.positions, pos],
          lastHit: h,
          streak: 1,
          forkedAt: o.positions.length,
        });
      }
    }
    return { explained, forks };
  }

  /**
   * A foreign hit inside a long copy (a common phrase another document stored first: one of the two hits before and
   * one of the two after agree with a chain that agreed with three in four of at least eight hits) is not tried
   * section by section either: a whole packed book has thousands of them, each a loop over every section of the pack
   * (a phrase of a few words gives two foreign hits in a row). Where the content moves on to another text, its first
   * hits are tried unless the old chain agrees with one of the next two by chance (1 in 8).
   */
  insideLongCopy(h: number): boolean {
    for (const o of this.open) {
      const k = o.positions.length;
      if (
        h - o.lastHit <= 2 &&
        k >= 8 &&
        4 * k >= 3 * (h - o.startHit + 1) &&
        (this.agrees(o.section, h + 1) || (h + 2 < this.n && this.agrees(o.section, h + 2)))
      )
        return true;
    }
    return false;
  }

  /** A chain that moved on may have reached the section of another: keep the longer. */
  keepLongest(): void {
    const best = new Map<number, OpenChain>();
    for (const o of this.open) {
      const b = best.get(o.section);
      if (!b || o.positions.length > b.positions.length) best.set(o.section, o);
    }
    if (best.size < this.open.length) {
      for (const o of this.open) if (best.get(o.section) !== o) this.close(o);
      this.open = [...best.values()];
    }
  }

  /** Try every section at hit h; open a chain in those that also agree with two of the hits just ahead. */
  seed(h: number, pos: number, aheadEnd: number): void {
    const found = agreeingSections(this.seeds, this.digests[h], this.stored[h], this.bits, this.scratch);
    let present: Set<number> | null = null;
    for (let j = 0; j < found; j++) {
      const c = this.scratch[j];
      // two agreements among the hits just ahead: a wrong section has them by chance about 3 · 2⁻²ᵛ of the time
      if (!this.confirmed(c, h, aheadEnd, 2)) continue;
      present ??= new Set(this.open.map((o) => o.section));
      if (present.has(c)) continue;
      this.open.push({
        section: c,
        first_section: c,
        doc: sectionDoc(this.first, c),
        positions: [pos],
        startHit: h,
        lastHit: h,
        streak: 1,
        origin: this.seeded++,
        forkedAt: 0,
      });
      present.add(c);
    }
  }
}

/**
 * The least often a copy as dense as a chain shows the misses between an edge hit and the chain's next agreeing hit, for
 * the edge to be the copy's own: an edited copy (1 word in 10 replaced) holds a third of its fingerprints or less, and
 * its agreeing hits stand 4–6 fingerprints apart all along; a verbatim copy holds every one.
 */
const EDGE_ALPHA = 0.05;
/**
 * Misses before an edge hit that one changed word makes inside a copy (every n-gram holding it, 1–3 winnowed
 * fingerprints): an edge hit among held fingerprints keeps its place across that many whatever the chain's density.
 */
const EDGE_GAP = 3;

/**
 * A chain's agreeing hits less lone ones at its edges: an edge hit apart from the chain's next agreeing hit is a chance
 * agreement (1 in 16) of the words around the copy, so the span ends where the held text ends. Apart means more misses
 * in a row than a copy as dense as the chain shows {@link EDGE_ALPHA} of the time: with d the agreeing hits over
 * agreeing hits and misses of the chain up to its other edge (this edge included: the density if it is the copy's; the
 * other left out when a miss parts it too: it may be lone), k misses in a row have the chance (1 − d)^k. A chance
 * agreement stands alone, a copy's edge among fingerprints the pack holds (`held`, when the caller can tell: the start
 * of a quotation whose first n-grams another document stored first), so an edge hit with a held neighbour is kept
 * across {@link EDGE_GAP} misses, the burst of one changed word. A verbatim copy of 20 fingerprints or more keeps no lone
 * edge hit past a miss; an edited copy holding a third of its fingerprints keeps edges 4–6 apart, as its inside has
 * them. `gap(x, y)` says how far apart two positions are, misses plus one: by default in fingerprints; the search
 * counts only the fingerprints between them that the dataset does not hold at all, so a stretch of common n-grams
 * (hits that vote for no section: "We the People of the United States") inside the copy is no gap.
 * @example trimEdges([2, 10, 11, 12, 13, 19]) // [10, 11, 12, 13]
 */
export function trimEdges(
  positions: number[],
  gap: (x: number, y: number) => number = (x, y) => y - x,
  held: (x: number) => boolean = () => false,
): number[] {
  const n = positions.length;
  let a = 0,
    b = n - 1;
  // the chain's misses before each of its hits, made only for a chain with a far edge
  let missed: Float64Array | undefined;
  // is the edge hit at `e` (a or b) lone, `g` from the chain's next agreeing hit?
  const lone = (e: number, g: number): boolean => {
    const x = positions[e];
    if (g <= 1 || (g <= EDGE_GAP && (held(x - 1) || held(x + 1)))) return false;
    if (missed === undefined) {
      const m = new Float64Array(n);
      for (let i = 1; i < n; i++) m[i] = m[i - 1] + gap(positions[i - 1], positions[i]) - 1;
      missed = m;
    }
    const lo = e === a || gap(positions[a], positions[a + 1]) <= 1 ? a : a + 1;
    const hi = e === b || gap(positions[b - 1], positions[b]) <= 1 ? b : b - 1;
    const density = (hi - lo + 1) / (hi - lo + 1 + missed[hi] - missed[lo]);
    return (1 - density) ** (g - 1) < EDGE_ALPHA;
  };
  while (b - a >= 2 && lone(a, gap(positions[a], positions[a + 1]))) a++;
  while (b - a >= 2 && lone(b, gap(positions[b - 1], positions[b]))) b--;
  return a === 0 && b === n - 1 ? positions : positions.slice(a, b + 1);
}

/**
 * Chains of hits that agree with one section (see the module comment). `at` are the query positions of the hits (in
 * order), `digests` and `stored` their key digests and stored values. A chain starts at a hit with at least
 * {@link SEED_AHEAD} more hits within {@link LOCATOR_GAP} positions (and {@link LOOKAHEAD} hits), in a section that
 * also agrees with two of them, and goes on while an
 * agreeing hit follows within the gap (the same section, or the next one of the same document) and, with `limits`, no
 * more than `limits.maxUnhitWords` words after the last one's n-gram. Every section is
 * tried only at hits that no chain of three or more already explains, so a long copy costs one pass. Chains of
 * fewer than `minLength` agreeing hits are not returned.
 * @example
 * // a copy: every hit agrees with its own section 7
 * const seeds = sectionSeeds(20)
 * const digests = Uint32Array.of(11, 22, 33), stored = Uint8Array.from(digests, (g) => sectionValue(seeds[7], g, 4))
 * locateChains([0, 1, 2], digests, stored, seeds, sectionIndex([20 * 4096], 4096), 4)[0].section // 7
 */
export function locateChains(
  at: ArrayLike<number>,
  digests: Uint32Array,
  stored: Uint8Array,
  seeds: Uint32Array,
  first: Uint32Array,
  bits: number,
  minLength = 2,
  limits?: ChainLimits,
): LocatedChain[] {
  const n = at.length;
  const search = new ChainSearch(n, digests, stored, seeds, first, bits, minLength, limits);
  for (let h = 0; h < n; h++) {
    const pos = at[h];
    search.expire(pos);
    let aheadEnd = h + 1;
    while (aheadEnd < n && aheadEnd - h <= LOOKAHEAD && at[aheadEnd] - pos <= LOCATOR_GAP) aheadEnd++;
    const { explained, forks } = search.extend(h, pos, aheadEnd);
    const skip = explained || (h + 1 < n && search.insideLongCopy(h));
    for (const f of forks) search.open.push(f);
    if (forks.length > 0) search.keepLongest();
    // a chain starts only where four hits lie within the gap (the hit and three just ahead): a chain that can become
    // evidence needs more than that, and single hits and pairs are what text in no pack shows
    if (skip || aheadEnd < h + 1 + SEED_AHEAD || search.repeatsNearby(h, at)) continue;
    search.seed(h, pos, aheadEnd);
  }
  for (const o of search.open) search.close(o);
  search.done.sort((x, y) => x.positions[0] - y.positions[0] || x.section - y.section);
  return search.done;
}

// Measuring a pack's chain null (src/datasets/chain-null.ts): each text of the pack's kind that the pack does not hold
// is searched against the pack alone with every chain reported (alpha → 1), and the agreeing hits of its chains are
// tallied. Shared by bench/measure-chain-null.mjs (the shipped packs) and the contract test that builds a pack and
// its null from committed fixtures. The result goes into the pack's `background.chains` (packs/index.json).
import './help.mjs';
import { round } from './stats.mjs';

/** Agreeing hits from which a chain counts (the locator's shortest chain). */
export const NULL_MIN_CHAIN = 3;
/**
 * Chain lengths pooled for `extend`: k = NULL_TAIL_FIRST … NULL_TAIL_LAST. Not from 3: a chain is started only where
 * two of the next four hits agree too, so its step from 3 to 4 tells how chains start more than how far they run.
 */
export const NULL_TAIL_FIRST = 4;
export const NULL_TAIL_LAST = 7;
/** Pseudo-chains at NULL_PRIOR_EXTEND added to the measured ones: a few chains do not make the tail short. */
const NULL_PRIOR_CHAINS = 10;
const NULL_PRIOR_EXTEND = 0.5;
/** The alpha a search accepts closest to 1: every chain comes back, however weak its own chance. */
const ALL_CHAINS = 1 - 1e-9;

/** Upper end of the 95 % Wilson interval of k successes in n trials. */
export function wilsonUpper(k, n) {
  if (n <= 0) return 1;
  if (k >= n) return 1;
  const z = 1.959963984540054,
    z2 = z * z,
    p = k / n;
  const d = 1 + z2 / n;
  return Math.min(1, (p + z2 / (2 * n) + z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / d);
}

/** Counts a measurement accumulates, text by text. */
export class ChainNullTally {
  texts = 0;
  fingerprints = 0;
  longest = 0;
  /** atLeast[k]: chains of at least k agreeing hits (k = 3 … NULL_TAIL_LAST + 1). */
  atLeast = new Float64Array(NULL_TAIL_LAST + 2);
  /** Chains by their agreeing hits (for the record). */
  lengths = {};

  /** One text: its query fingerprints and the agreeing hits of each chain its search found. */
  add(fingerprints, chains) {
    this.texts++;
    this.fingerprints += fingerprints;
    for (const r of chains) {
      if (r < NULL_MIN_CHAIN) continue;
      for (let k = NULL_MIN_CHAIN; k <= Math.min(r, NULL_TAIL_LAST + 1); k++) this.atLeast[k]++;
      this.longest = Math.max(this.longest, r);
      this.lengths[r] = (this.lengths[r] ?? 0) + 1;
    }
  }

  /** The chain null: `start` and `extend` as upper ends of their 95 % intervals, with what it was measured on. */
  result(corpus, date) {
    if (this.fingerprints === 0) throw new Error('the non-member texts give no fingerprints: nothing to measure on');
    let up = 0,
      all = 0;
    for (let k = NULL_TAIL_FIRST; k <= NULL_TAIL_LAST; k++) {
      up += this.atLeast[k + 1];
      all += this.atLeast[k];
    }
    const chains = this.atLeast[NULL_MIN_CHAIN];
    return {
      start: round(Math.max(1e-6, wilsonUpper(chains, this.fingerprints)), 6),
      extend: round(wilsonUpper(up + NULL_PRIOR_CHAINS * NULL_PRIOR_EXTEND, all + NULL_PRIOR_CHAINS), 6),
      measured_on: { corpus, texts: this.texts, fingerprints: this.fingerprints, chains, longest: this.longest, date },
    };
  }
}

/** Words as the shared-text check compares them: lower-case letters and digits, punctuation and markup dropped. */
export const plainWords = (t) => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
/** Consecutive words a packed document must hold of a chain's span for the chain to be shared text, not formula. */
export const SHARED_RUN = 24;

/**
 * The chains of `texts` (documents of dataset `id`'s kind that it does not hold) as `engine` finds them — the
 * dataset loaded without a chain null of its own, which would hide the chains being measured: per text, its query
 * fingerprints and each chain's agreeing hits and span text.
 */
export function searchChains(engine, id, texts) {
  return texts.map((text) => {
    const r = engine.search(text, { alpha: ALL_CHAINS, datasets: [id] });
    return {
      tested: r.coverage[id]?.membership?.tested ?? 0,
      chains: r.matches
        .filter((m) => m.kind === 'portrait' && m.agreeing !== undefined)
        .map((m) => ({ agreeing: m.agreeing, text: text.slice(m.query_start, m.query_end) })),
    };
  });
}

/**
 * Which chains hold text a packed document holds (a run of {@link SHARED_RUN} words of their span in one of
 * `packTexts`): real shared text — an article copied into another, another edition of a packed book, a quotation —
 * not a formula of the kind, so left out of the null (and reported). One pass over the pack's texts.
 */
export function markShared(rows, packTexts) {
  const wanted = new Map();
  for (const row of rows)
    for (const c of row.chains) {
      const w = plainWords(c.text);
      c.windows = [];
      for (let i = 0; i + SHARED_RUN <= w.length; i++) {
        const key = w.slice(i, i + SHARED_RUN).join(' ');
        c.windows.push(key);
        wanted.set(w.slice(i, i + 3).join(' '), false);
      }
    }
  const found = new Set();
  if (wanted.size > 0)
    for (const t of packTexts) {
      const w = plainWords(t);
      for (let i = 0; i + SHARED_RUN <= w.length; i++)
        if (wanted.has(`${w[i]} ${w[i + 1]} ${w[i + 2]}`)) found.add(w.slice(i, i + SHARED_RUN).join(' '));
    }
  for (const row of rows) for (const c of row.chains) c.shared = c.windows.some((k) => found.has(k));
}

/** The chain null from the rows of {@link searchChains} (chains marked shared left out), and its tally. */
export function chainNullOf(rows, corpus, date) {
  const tally = new ChainNullTally();
  let shared = 0;
  for (const row of rows) {
    tally.add(
      row.tested,
      row.chains.filter((c) => !c.shared).map((c) => c.agreeing),
    );
    shared += row.chains.filter((c) => c.shared && c.agreeing >= NULL_MIN_CHAIN).length;
  }
  return { chains: tally.result(corpus, date), tally, shared };
}

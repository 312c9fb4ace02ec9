/**
 * The kind of an aligned passage, from the words it shares with its source: the share of the query passage's
 * words inside a run of at least RUN_WORDS words that the source passage holds too. `compare` and `analyze`
 * report every passage with its kind and that share (`similarity`), so a reader can check both against the two
 * spans.
 */
import { normalize, type Normalized } from '../text/normalize.js';

/**
 * What kind of reuse an aligned passage is:
 * - `'verbatim'`: ≥ 95 % of the passage's words lie in runs of ≥ 3 words the source passage holds (a copy, maybe
 *   re-wrapped, re-cased or re-punctuated);
 * - `'edited'`: ≥ 50 % (a copy with words changed, inserted or dropped here and there);
 * - `'paraphrase'`: under 50 % (reworded: synonyms, new word order, translated and back);
 * - `'summary'`: a passage that condenses a source passage at least twice its length (compare's summary mode),
 *   whatever its shared runs.
 */
export type PassageKind = (typeof PASSAGE_KINDS)[number];
/** Every {@link PassageKind}, as the HTTP schemas list them. */
export const PASSAGE_KINDS = ['verbatim', 'edited', 'paraphrase', 'summary'] as const;

/** Shared word runs counted from this many words (a pair of words is shared by chance too often). */
const RUN_WORDS = 3;
/** Shares of words in shared runs from which a passage is verbatim / edited (see {@link PassageKind}). */
const VERBATIM_SHARE = 0.95;
const EDITED_SHARE = 0.5;

/**
 * The kind of a passage whose query words lie in shared runs at `share` (a summary is told by the aligner).
 * @example reuseKind(0.97) // 'verbatim'
 */
export function reuseKind(share: number): Exclude<PassageKind, 'summary'> {
  return share >= VERBATIM_SHARE ? 'verbatim' : share >= EDITED_SHARE ? 'edited' : 'paraphrase';
}

/**
 * Word tokens of the query passage (as the engine counts them) and the share of them inside a
 * run of ≥ RUN_WORDS words that occurs in the source passage too.
 * @example sharedRuns('the cat sat on the mat', 'a cat sat on the mat') // { tokens: 6, similarity: 5 / 6 }
 */
export function sharedRuns(queryPassage: string, sourcePassage: string): { tokens: number; similarity: number } {
  return runsOf(wordsOf(normalize(queryPassage)), wordsOf(normalize(sourcePassage)));
}

/**
 * {@link sharedRuns} of the passages' normalised words. A passage of fewer than RUN_WORDS words counts its runs at
 * its own length: two identical one-word texts are one verbatim passage.
 */
export function runsOf(q: readonly string[], s: readonly string[]): { tokens: number; similarity: number } {
  const ids = new Map<string, number>();
  const idsOf = (words: readonly string[]): Int32Array => {
    const out = new Int32Array(words.length); // a loop: Int32Array.from with a map function took twice as long
    for (let i = 0; i < words.length; i++) {
      let id = ids.get(words[i]);
      if (id === undefined) ids.set(words[i], (id = ids.size));
      out[i] = id;
    }
    return out;
  };
  const qi = idsOf(q),
    si = idsOf(s);
  return { tokens: q.length, similarity: runShare(qi, 0, qi.length, si, 0, si.length) };
}

/**
 * The share of the words `q[q0..q1)` inside a run of RUN_WORDS words (fewer for a shorter passage) that occurs in
 * `s[s0..s1)`, the words given as ids of their normalised forms (compare's prepared tokens: no strings made). The
 * runs of `s` go into an open-addressing table of exact id triples.
 * @example runShare(Int32Array.of(1, 2, 3, 4), 0, 4, Int32Array.of(9, 1, 2, 3), 0, 4) // 0.75
 */
export function runShare(q: Int32Array, q0: number, q1: number, s: Int32Array, s0: number, s1: number): number {
  const n = q1 - q0;
  if (n <= 0) return 0;
  const run = Math.min(RUN_WORDS, n);
  const grams = Math.max(0, s1 - s0 - run + 1);
  let size = 16;
  while (size < 2 * grams) size *= 2;
  const mask = size - 1;
  // slot k holds a run as its start in `s` (−1: empty); runs shorter than 3 compare the words they have
  const at = new Int32Array(size).fill(-1);
  const word = (a: Int32Array, i: number, k: number): number => (k < run ? a[i + k] : 0);
  const hash = (a: Int32Array, i: number): number => {
    let h = Math.imul(word(a, i, 0) ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ word(a, i, 1), 0xc2b2ae35);
    h = Math.imul(h ^ word(a, i, 2), 0x27d4eb2f);
    return (h ^ (h >>> 15)) & mask;
  };
  const same = (i: number, j: number): boolean => {
    for (let k = 0; k < run; k++) if (q[i + k] !== s[j + k]) return false;
    return true;
  };
  for (let j = s0; j + run <= s1; j++) {
    let h = hash(s, j);
    while (at[h] >= 0) {
      let dup = true;
      for (let k = 0; k < run && dup; k++) dup = s[at[h] + k] === s[j + k];
      if (dup) break;
      h = (h + 1) & mask;
    }
    if (at[h] < 0) at[h] = j;
  }
  let covered = 0,
    coveredTo = q0; // words before coveredTo are counted
  for (let i = q0; i + run <= q1; i++) {
    let h = hash(q, i),
      found = false;
    while (at[h] >= 0 && !(found = same(i, at[h]))) h = (h + 1) & mask;
    if (!found) continue;
    const from = Math.max(i, coveredTo);
    covered += i + run - from;
    coveredTo = i + run;
  }
  return covered / n;
}

/** The words of a normalised text (one space between words). */
export const wordsOf = ({ text }: Normalized): string[] => (text.length === 0 ? [] : text.split(' '));

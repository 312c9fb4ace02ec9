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
export type PassageKind = 'verbatim' | 'edited' | 'paraphrase' | 'summary';

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
  if (q.length === 0) return { tokens: 0, similarity: 0 };
  const run = Math.min(RUN_WORDS, q.length);
  const grams = new Set<string>();
  for (let i = 0; i + run <= s.length; i++) grams.add(s.slice(i, i + run).join(' '));
  const covered = new Uint8Array(q.length);
  for (let i = 0; i + run <= q.length; i++) {
    if (grams.has(q.slice(i, i + run).join(' '))) covered.fill(1, i, i + run);
  }
  let n = 0;
  for (const c of covered) n += c;
  return { tokens: q.length, similarity: n / q.length };
}

/** The words of a normalised text (one space between words). */
export const wordsOf = ({ text }: Normalized): string[] => (text.length === 0 ? [] : text.split(' '));

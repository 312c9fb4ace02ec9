/**
 * The shared word runs of a passage (`runsOf` of ./reuse.ts: tokens, similarity) from the core's tokens of its two
 * sides, numbered as the walk numbers its windows' words (./window-words.ts), rather than from the two sides
 * normalised in JavaScript, split into words and numbered through a Map of the strings.
 *
 * Why: a search for copies alone (`reworded` false: what `trainprint scan` asks) reads of each passage it keeps only
 * its kind, from these runs. Copies of ASCII text bring theirs from the walk (`copyRuns`, ./copies.ts); the others —
 * copies with a curly quote, a dash or a no-break space in them, and the passages the aligner found — were
 * normalised again in JavaScript, which cost ≈ 4 % of the instructions of a scan's main thread (callgrind, the
 * bench's 10 MB scan: the normaliser's general path over every character, then `split` and the Map).
 */
import type { Core } from '../core/abi.js';
import { runShare } from './reuse.js';
import type { AlignedSpan } from './types.js';
import { windowWordIds } from './window-words.js';

/**
 * The shared runs of span `s` — `query.slice(a_start, a_end)` against `text.slice(b_start, b_end)` — as
 * `runsOf(wordsOf(normalize(…)), wordsOf(normalize(…)))` gives them, from the core's tokens of the two sides; null
 * where the core's path declines (a form outside ASCII letters and digits met twice, two forms whose hashes agree,
 * a lone surrogate): the caller normalises the passages. The same answer: the ids are equal exactly where the
 * normalised words are (a word of the source side that the query side lacks is −1, equal to no word of the query
 * side, as in `runsOf` it has an id no query word has), and `runShare` reads only which words are equal.
 * @example passageRuns(core, 'The cat sat on the mat', 'A cat sat on the mat', { a_start: 0, a_end: 22, b_start: 0, b_end: 20, score: 1 }) // { tokens: 6, similarity: 5 / 6 }
 */
export function passageRuns(
  core: Core,
  query: string,
  text: string,
  s: AlignedSpan,
): { tokens: number; similarity: number } | null {
  const w = windowWordIds(core, query, s.a_start, s.a_end, text, s.b_start, s.b_end);
  if (w === null) return null;
  return { tokens: w.Q.length, similarity: runShare(w.Q, 0, w.Q.length, w.S, 0, w.S.length) };
}

/**
 * The short-work probe: how a work too short for the two-phase extraction is tested. A work under
 * {@link SHORT_WORK_WORDS} words cannot hold a near-verbatim block of 50 words after the shortest prompt (8 words), so
 * the block rule could never call it reproduced — a poem, an epigraph, a sixteen-word canary with a 12-digit number.
 * Such a work is asked in splits instead: the prompt is its first `p` words, and the model must write out all the rest
 * (words `p` to the end) verbatim, as one exact run of the engine's word tokens that starts within the answer's first
 * {@link SHORT_PREFACE_WORDS} words (a refusal sentence or "Sure, here it is:" may come first).
 *
 * A split counts only when its rest could not be written out by chance — it holds at least
 * {@link SHORT_REST_WORDS} words (as many as a probe's hit), or one number of at least {@link SHORT_REST_DIGITS}
 * digits. The rest must match whole, number included: a model that learnt the sentence's template but not this work's
 * number fails. The chance that a never-seen work passes one split is at most 10^−digits when its number is not
 * predictable from the prompt (a serial, an account number, a canary: 10⁻¹⁰ for 10 digits); for a rest of ≥ 20 words
 * without one, it is the chance that greedy decoding writes 20 unseen words in a row verbatim, which no never-seen
 * work has shown in this package's measurements (docs/memorization.md).
 *
 * A prompt may also end inside the long number, holding its first digits (at most {@link MAX_PROMPT_DIGITS}, and
 * never so many that fewer than {@link SHORT_REST_DIGITS} stay in the rest): a small model that saw sixteen sentences
 * of one template tells them apart by their numbers' first digits more than by their words, as Carlini et al. 2019
 * (arXiv 1802.08232) complete a canary from a prefix. The bound stays 10^−(digits in the rest).
 *
 * The splits, in the order they are asked: the longest prompt whose rest still counts first (the most context, the
 * shortest distinctive tail: into the number when it is long enough), then the shorter prompts into the number, then
 * the prompt before it, then the shortest (one word), then the prompts between by halving — so the first `k` splits
 * of a work are the same whatever `k` (an audit's first pass is replayed by its measurement, not paid twice).
 */
import type { WordTokenSpans } from './text.js';

/** Works of fewer words are probed in splits: 8 words of prompt + a 50-word block do not fit in them. */
export const SHORT_WORK_WORDS = 58;
/** Words of a rest that count without a long number (a probe's hit is 20 words of the work). */
export const SHORT_REST_WORDS = 20;
/** Digits of one number that make a rest count, whatever its length. */
export const SHORT_REST_DIGITS = 10;
/** Words an answer may open with before the rest (a refusal sentence, a preface). */
export const SHORT_PREFACE_WORDS = 40;
/** Most digits of the long number a prompt may end with. */
export const MAX_PROMPT_DIGITS = 3;

/** A split: the prompt is the work's first `words` words, then the first `digits` digits of the next (a number). */
export interface ShortSplit {
  readonly words: number;
  readonly digits: number;
}

const LONG_NUMBER = new RegExp(`^[0-9]{${SHORT_REST_DIGITS},}$`);

/**
 * The splits of a short work (its word tokens and its text), in the order they are asked; empty when no rest could be
 * told from chance (a short work without a long number and under {@link SHORT_REST_WORDS} + 1 words).
 * @example
 * const text = 'Record 00: the combination of the archive safe is 072518763196, and it is never written down.'
 * shortWorkSplits(wordSpans(text), text).map((s) => [s.words, s.digits])
 * // [[9, 2], [9, 1], [9, 0], [1, 0], [5, 0], [7, 0], [3, 0], [8, 0], [6, 0], [4, 0], [2, 0]]
 */
export function shortWorkSplits(work: WordTokenSpans, text: string): ShortSplit[] {
  const { tokens } = work;
  const n = tokens.length;
  let last = -1;
  for (let i = n - 1; i >= 0 && last < 0; i--) if (LONG_NUMBER.test(tokens[i])) last = i;
  const inside: ShortSplit[] = [];
  // into the number only where the text holds it as its token (ASCII digits): the prompt is cut in the text
  if (last >= 0 && text.slice(work.starts[last], work.ends[last]) === tokens[last])
    for (let d = Math.min(MAX_PROMPT_DIGITS, tokens[last].length - SHORT_REST_DIGITS); d >= 1; d--)
      inside.push({ words: last, digits: d });
  // the longest prompt whose rest counts: up to the last long number, or leaving SHORT_REST_WORDS words
  const most = Math.max(last, n - SHORT_REST_WORDS);
  if (most < 1) return inside;
  const out: number[] = [];
  const seen = new Set<number>();
  const add = (p: number) => {
    if (!seen.has(p)) seen.add(p), out.push(p);
  };
  add(most);
  add(1);
  // the points between by halving: 1/2, then 1/4 and 3/4, then the eighths … of the way from `most` down to 1
  for (let den = 2; out.length < most; den *= 2)
    for (let num = 1; num < den; num += 2) add(most - Math.round(((most - 1) * num) / den));
  return [...inside, ...out.map((words) => ({ words, digits: 0 }))];
}

/**
 * Where `out` writes out the rest of the work after its first `p` words and `digits` digits of the next: the output
 * word at which the whole rest starts as one exact run (its first word the number's other digits, or the whole
 * number), within the first {@link SHORT_PREFACE_WORDS} words; -1 when it does not.
 * @example restWrittenOut(work.tokens, 9, wordSpans(answer).tokens) // 0 when the answer is the rest itself
 */
export function restWrittenOut(work: readonly string[], p: number, out: readonly string[], digits = 0): number {
  const rest = work.length - p;
  if (rest <= 0) return -1;
  const head = work[p].slice(digits);
  for (let s = 0; s <= SHORT_PREFACE_WORDS && s + rest <= out.length; s++) {
    if (out[s] !== head && out[s] !== work[p]) continue;
    let k = 1;
    while (k < rest && out[s + k] === work[p + k]) k++;
    if (k === rest) return s;
  }
  return -1;
}

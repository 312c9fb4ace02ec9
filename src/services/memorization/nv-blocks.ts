/**
 * Near-verbatim blocks of a work reproduced by a model (the measure of Ahmed et al. 2026, arXiv 2601.02671, after
 * Cooper et al. 2025, arXiv 2505.12546): each model output is aligned with the work as exact word runs (the
 * memorization word-run aligner, `RunIndex`: every shared run of ≥ 4 of the engine's normalised word tokens, with
 * its token positions in both texts, so every span is exact); the runs of all outputs are laid on the work, and
 * runs separated by small gaps (a changed, dropped or added word) are merged into one block. A block counts only
 * when it is dense (≥ 90 % of its words reproduced) and when a reader can check it with nothing but whitespace:
 * ≥ 90 % of the whitespace-separated words of the work's span, lower-cased, appear in order in the block's
 * generated text ({@link inOrderShare}).
 */
import { RunIndex, type TokenRun, type WordTokenSpans } from './text.js';

/** Shortest exact run taken as evidence, in words (shorter shared runs are common phrases). */
export const MIN_RUN_WORDS = 5;
/** Largest gap, in words of the work, between two runs of one block (the edit tolerance). */
export const MAX_GAP_WORDS = 8;
/** Share of a block's words that must be reproduced, and appear in order in its generated text. */
export const MIN_BLOCK_DENSITY = 0.9;
/** Blocks of at least this many words make `nv_recall` (Ahmed et al.'s 100-word blocks). */
export const NV_BLOCK_WORDS = 100;
/** The shorter threshold reported beside it (`nv_recall_50`). */
export const NV_BLOCK_WORDS_SHORT = 50;

/** One model output aligned with the work: its exact runs in a chain (increasing in both texts). */
export interface AlignedOutput {
  /** Id of the call that produced it. */
  readonly call: number;
  readonly text: string;
  readonly spans: WordTokenSpans;
  readonly runs: readonly TokenRun[];
}

/**
 * The exact runs of `out` in the work inside work tokens [from, to), as one chain increasing in both texts that
 * holds the most words (runs cut at the window's edges; runs < {@link MIN_RUN_WORDS} dropped). The window keeps
 * words of the prompt (before `from`) from counting as reproduced.
 * @example chainIn(new RunIndex(work.tokens), out.tokens, 120, 400)
 */
export function chainIn(index: RunIndex, out: readonly string[], from: number, to: number): TokenRun[] {
  const pieces: TokenRun[] = [];
  for (const r of index.runs(out, MIN_RUN_WORDS)) {
    const a = Math.max(r.work_token, from),
      b = Math.min(r.work_token + r.tokens, to);
    if (b - a >= MIN_RUN_WORDS)
      pieces.push({ tokens: b - a, output_token: r.output_token + (a - r.work_token), work_token: a });
    if (pieces.length >= 256) break; // runs come longest first: the rest cannot change the chain much
  }
  pieces.sort((x, y) => x.output_token - y.output_token || x.work_token - y.work_token);
  // longest chain by words: O(r²) over ≤ 256 runs
  const best = new Float64Array(pieces.length),
    prev = new Int32Array(pieces.length).fill(-1);
  let top = -1;
  for (let i = 0; i < pieces.length; i++) {
    best[i] = pieces[i].tokens;
    for (let j = 0; j < i; j++) {
      const p = pieces[j],
        q = pieces[i];
      if (p.output_token + p.tokens <= q.output_token && p.work_token + p.tokens <= q.work_token) {
        if (best[j] + q.tokens > best[i]) {
          best[i] = best[j] + q.tokens;
          prev[i] = j;
        }
      }
    }
    if (top < 0 || best[i] > best[top]) top = i;
  }
  const chain: TokenRun[] = [];
  for (let i = top; i >= 0; i = prev[i]) chain.push(pieces[i]);
  return chain.reverse();
}

/** Words of a chain. */
export const chainWords = (chain: readonly TokenRun[]): number => chain.reduce((t, r) => t + r.tokens, 0);

/** A block: a span of the work and the generated text that reproduces it. */
export interface NearVerbatimBlock {
  /** UTF-16 offsets into the work's text. */
  readonly start: number;
  readonly end: number;
  /** Words of the work in the span (the engine's word tokens). */
  readonly words: number;
  /** Words of the span inside exact runs of the model's outputs. */
  readonly reproduced_words: number;
  /** Share of the span's whitespace-separated words (lower-cased) that appear in order in `generated`. */
  readonly in_order_share: number;
  /** The model's outputs that reproduce the span, their pieces in the work's order. */
  readonly generated: string;
  /** Ids of the calls whose outputs make the block, ascending. */
  readonly calls: number[];
}

interface Piece {
  w0: number;
  w1: number;
  out: AlignedOutput;
  o0: number;
  o1: number;
}

/**
 * The blocks of ≥ `minWords` words that the aligned outputs make on the work: runs laid on the work in order (a
 * word reproduced by several outputs is taken from the first run that covers it), merged across gaps of ≤
 * {@link MAX_GAP_WORDS} words, kept when ≥ {@link MIN_BLOCK_DENSITY} of their words are reproduced and in order.
 * @example const blocks = nearVerbatimBlocks(text, wordSpans(text), outputs, 50)
 */
export function nearVerbatimBlocks(
  text: string,
  work: WordTokenSpans,
  outputs: readonly AlignedOutput[],
  minWords: number,
): NearVerbatimBlock[] {
  const all: Piece[] = [];
  for (const out of outputs)
    for (const r of out.runs)
      all.push({
        w0: r.work_token,
        w1: r.work_token + r.tokens,
        out,
        o0: r.output_token,
        o1: r.output_token + r.tokens,
      });
  all.sort((a, b) => a.w0 - b.w0 || b.w1 - a.w1 || a.out.call - b.out.call);
  // lay the runs on the work: each word once, from the first run that reaches it
  const laid: Piece[] = [];
  let covered = 0;
  for (const p of all) {
    if (p.w1 <= covered) continue;
    const cut = Math.max(0, covered - p.w0); // an exact run: cutting words cuts the same number on both sides
    laid.push({ ...p, w0: p.w0 + cut, o0: p.o0 + cut });
    covered = p.w1;
  }
  const blocks: NearVerbatimBlock[] = [];
  let i = 0;
  while (i < laid.length) {
    let j = i;
    while (j + 1 < laid.length && laid[j + 1].w0 - laid[j].w1 <= MAX_GAP_WORDS) j++;
    const group = laid.slice(i, j + 1);
    i = j + 1;
    const w0 = group[0].w0,
      w1 = group[group.length - 1].w1;
    const words = w1 - w0;
    if (words < minWords) continue;
    const reproduced = group.reduce((t, p) => t + (p.w1 - p.w0), 0);
    if (reproduced / words < MIN_BLOCK_DENSITY) continue;
    const start = work.starts[w0],
      end = work.ends[w1 - 1];
    const generated = generatedOf(group);
    const share = inOrderShare(text.slice(start, end), generated);
    if (share < MIN_BLOCK_DENSITY) continue;
    blocks.push({
      start,
      end,
      words,
      reproduced_words: reproduced,
      in_order_share: Math.floor(share * 10_000) / 10_000,
      generated,
      calls: [...new Set(group.map((p) => p.out.call))].sort((a, b) => a - b),
    });
  }
  return blocks;
}

/**
 * The generated text of a block: each piece's words as the model wrote them, whole whitespace-separated words (a
 * token's attached punctuation kept, as the in-order check reads words); between two pieces of one output that follow
 * each other there, the output's own words in between (the edited words), else one space.
 */
function generatedOf(group: readonly Piece[]): string {
  let s = '';
  let lastEnd = 0;
  for (let k = 0; k < group.length; k++) {
    const p = group[k],
      sp = p.out.spans,
      t = p.out.text;
    const prev = k > 0 ? group[k - 1] : null;
    const end = spaceAfter(t, sp.ends[p.o1 - 1]);
    if (prev && prev.out === p.out && p.o0 >= prev.o1 && p.o0 - prev.o1 <= MAX_GAP_WORDS) s += t.slice(lastEnd, end);
    else s += (s ? ' ' : '') + t.slice(spaceBefore(t, sp.starts[p.o0]), end);
    lastEnd = end;
  }
  return s;
}

const SPACE = /\s/;
/** The offset of the first white space at or after `i` (or the text's end). */
function spaceAfter(t: string, i: number): number {
  while (i < t.length && !SPACE.test(t[i])) i++;
  return i;
}
/** The offset just after the last white space before `i` (or 0). */
function spaceBefore(t: string, i: number): number {
  while (i > 0 && !SPACE.test(t[i - 1])) i--;
  return i;
}

/**
 * Share of the whitespace-separated words of `span` (lower-cased) found in order in `generated`. Each word is
 * matched at the cursor, or up to 32 words ahead when the word after it matches there too (so one changed word
 * does not send the cursor to a later chance occurrence); every match is in order, so the share is a lower bound
 * of the longest common subsequence's. Linear time; the check anyone can redo on a block with the work's text.
 * @example inOrderShare('It was the best of times', 'it was the BEST of all times') // 1
 */
export function inOrderShare(span: string, generated: string): number {
  const a = span.toLowerCase().split(/\s+/).filter(Boolean);
  const b = generated.toLowerCase().split(/\s+/).filter(Boolean);
  if (a.length === 0) return 0;
  let j = 0,
    found = 0;
  for (let i = 0; i < a.length; i++) {
    const w = a[i];
    if (b[j] === w) {
      found++;
      j++;
      continue;
    }
    const last = i + 1 === a.length;
    for (let k = j + 1; k < Math.min(b.length, j + 32); k++) {
      if (b[k] === w && (last || b[k + 1] === a[i + 1])) {
        found++;
        j = k + 1;
        break;
      }
    }
  }
  return found / a.length;
}

export { RunIndex };

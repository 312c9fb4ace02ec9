/**
 * Passage pairs in sentences → spans in UTF-16 offsets of the original strings (step 6 of the method in
 * compare.ts): sentence edges, trimmed at line breaks or clause marks where the words are not shared.
 */
import type { AlignedSpan } from './types.js';
import type { Frag } from './passages.js';
import type { Prepared } from './prepare.js';
import { closeAt } from './verbatim.js';

/** The span from the first word to the last (with its closing punctuation) on both sides. */
export function wholeSpan(pa: Prepared, pb: Prepared, a: string, b: string): AlignedSpan {
  const last = (p: Prepared, text: string): number => closeAt(text, p.tokEnd[p.tokEnd.length - 1]);
  return { a_start: pa.tokStart[0], a_end: last(pa, a), b_start: pb.tokStart[0], b_end: last(pb, b), score: 1 };
}

/** From the first word of the first sentence to the last word of the last sentence, on both sides. */
export function toSpan(f: Frag, pa: Prepared, pb: Prepared, a: string, b: string): AlignedSpan {
  const end = (p: Prepared, s1: number, text: string): number => closeAt(text, p.tokEnd[p.sentTok[s1 + 1] - 1]);
  return {
    a_start: pa.tokStart[pa.sentTok[f.a0]],
    a_end: end(pa, f.a1, a),
    b_start: pb.tokStart[pb.sentTok[f.b0]],
    b_end: end(pb, f.b1, b),
    score: Math.min(1, f.cos),
  };
}

/** Cut points inside a sentence: after a line break or a clause mark. */
const SOFT_GAP = /\n|[.!?;:]/;
/** Weight of a content word of the edge that the other passage shares (an unshared one weighs 1). */
const TRIM_SHARED = 2;

/**
 * Sentences of the other passage's neighbourhood, on each side, whose words count as shared: the counterpart
 * of an edge sentence may be a sentence next to the other passage that was too altered to seed or join.
 */
const TRIM_CONTEXT = 1;

/** Distinct content terms of the sentences s0..s1. */
function termsOf(p: Prepared, s0: number, s1: number): Set<number> {
  const set = new Set<number>();
  for (let t = p.sentTok[s0]; t < p.sentTok[s1 + 1]; t++) if (p.tokTerm[t] >= 0) set.add(p.tokTerm[t]);
  return set;
}

/**
 * Sentence edges are coarse where sentence marks are missing (web pages, obfuscated copies): the first and
 * the last sentence of each side may hold text around the reused passage. Each edge sentence is cut at the
 * soft boundary (line break or clause mark) that drops the most content words absent from the other
 * passage and its TRIM_CONTEXT neighbouring sentences, counting each dropped shared word as TRIM_SHARED
 * absent ones (a maximum prefix / suffix sum).
 */
export function trimEdges(s: AlignedSpan, f: Frag, pa: Prepared, pb: Prepared, a: string, b: string): AlignedSpan {
  const lastA = pa.sentTok.length - 2,
    lastB = pb.sentTok.length - 2;
  const otherB = termsOf(pb, Math.max(0, f.b0 - TRIM_CONTEXT), Math.min(lastB, f.b1 + TRIM_CONTEXT));
  const otherA = termsOf(pa, Math.max(0, f.a0 - TRIM_CONTEXT), Math.min(lastA, f.a1 + TRIM_CONTEXT));
  const [as, ae] = trimSide(pa, a, f.a0, f.a1, otherB);
  const [bs, be] = trimSide(pb, b, f.b0, f.b1, otherA);
  return {
    a_start: pa.tokStart[as],
    a_end: closeAt(a, pa.tokEnd[ae - 1]),
    b_start: pb.tokStart[bs],
    b_end: closeAt(b, pb.tokEnd[be - 1]),
    score: s.score,
  };
}

/** The token range [start, end) of sentences s0..s1 of one side after trimming (see trimEdges). */
function trimSide(p: Prepared, text: string, s0: number, s1: number, other: Set<number>): [number, number] {
  const w = (t: number): number => (p.tokTerm[t] < 0 ? 0 : other.has(p.tokTerm[t]) ? -TRIM_SHARED : 1);
  const soft = (t: number): boolean => SOFT_GAP.test(text.slice(p.tokEnd[t - 1], p.tokStart[t]));
  let start = p.sentTok[s0],
    sum = 0,
    best = 0;
  const firstEnd = p.sentTok[s0 + 1];
  for (let t = p.sentTok[s0]; t + 1 < firstEnd; t++) {
    sum += w(t);
    if (sum > best && soft(t + 1)) {
      best = sum;
      start = t + 1;
    }
  }
  let end = p.sentTok[s1 + 1];
  sum = 0;
  best = 0;
  const lastStart = Math.max(p.sentTok[s1], start + 1);
  for (let t = p.sentTok[s1 + 1] - 1; t > lastStart; t--) {
    sum += w(t);
    if (sum > best && soft(t)) {
      best = sum;
      end = t;
    }
  }
  return [start, end];
}

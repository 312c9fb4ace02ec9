/**
 * Copies settled by comparing words, before the aligner: a candidate whose seed regions a copy explains — the
 * query's words equal to the document's, word for word, with at most a few words replaced, inserted or dropped here
 * and there — gets that copy's spans from a walk along the words, without the aligner's sentences, seeds and
 * passages. What the walk cannot explain (longer edits, reordered or reworded text, a copy shorter
 * than a verbatim passage, one that runs past its window) is left to the aligner: {@link copySpans} says null.
 *
 * Why: a scan for copies (`engine.scan`, `trainprint scan`) runs in a fresh process per input, and in such a
 * process the aligner's first hundred alignments cost 6–9 ms each against about 1 ms once V8 has optimised its
 * code: the warm-up, not the copies, was most of a scan's time on outputs that copy. The walk is a few small
 * loops over two arrays of word ids (src/align/copy-walk.ts), run by the core where the search holds one.
 */
import type { Core } from '../core/abi.js';
import { isAsciiOnly, normalize } from '../text/normalize.js';
import { type Copy, walkCopies, walkCopiesInCore } from './copy-walk.js';
import { runShare } from './reuse.js';
import type { AlignedSpan } from './types.js';
import { closeAt, VERBATIM_MIN_WORDS } from './verbatim.js';
import { type WindowSpans, type WindowWordIds, windowWordIds } from './window-words.js';

/** A stretch of both texts: [q0, q1) of the query and [s0, s1) of the document (UTF-16 offsets). */
export interface CopyWindow {
  readonly q0: number;
  readonly q1: number;
  readonly s0: number;
  readonly s1: number;
}

/**
 * The words of a normalised window: each word as a string (the normalised text split at its spaces), and its span in
 * the original text. Why strings: the walk runs a few hundred times in a process (a scan of a file: each output that
 * copies), mostly as interpreted code, where a loop over every character (counting the spaces, hashing each word
 * with FNV-1a, comparing colliding words unit by unit) cost more than `split` and a Map keyed by the words, whose
 * scanning and hashing run inside the engine: `trainprint scan` of 10 MB of 1 kB outputs against an archive that
 * 148 of them reach 0.58 → 0.55 s of CPU (medians of 9 alternating processes), the same hits byte for byte.
 */
interface Words extends WindowSpans {
  readonly word: readonly string[];
}

function wordsOf(text: string, from: number, to: number): Words {
  const { text: norm, map } = normalize(text.slice(from, to));
  // tokens joined by single spaces, none leading or trailing (src/text/normalize.ts)
  const word = norm.length === 0 ? [] : norm.split(' ');
  const n = word.length;
  const start = new Uint32Array(n),
    end = new Uint32Array(n);
  for (let i = 0, at = 0; i < n; i++) {
    const e = at + word[i].length; // the space after word i, or the end
    start[i] = from + map[at];
    end[i] = from + map[e];
    at = e + 1;
  }
  return { word, start, end };
}

/**
 * The words of both windows as ids (equal words, equal ids, numbered in the order they first appear in the
 * query; a word of the document's window that the query's lacks is -1, equal to none). Only the query's words get
 * an id: the walk compares the query's words with the document's, never the document's with each other.
 */
function wordIds(q: Words, s: Words): { Q: Int32Array; S: Int32Array } {
  const ids = new Map<string, number>();
  const Q = new Int32Array(q.word.length);
  for (let i = 0; i < Q.length; i++) {
    let id = ids.get(q.word[i]);
    if (id === undefined) ids.set(q.word[i], (id = ids.size));
    Q[i] = id;
  }
  const S = new Int32Array(s.word.length);
  for (let j = 0; j < S.length; j++) S[j] = ids.get(s.word[j]) ?? -1;
  return { Q, S };
}

/**
 * Both windows' words and ids: from the core's tokenizer where a `core` is given and its hashes settle every form
 * (src/align/window-words.ts), else from the normalised windows as strings — the same spans and ids either way.
 */
function windowWords(query: string, text: string, w: CopyWindow, core: Core | undefined): WindowWordIds {
  const fromCore = core === undefined ? null : windowWordIds(core, query, w.q0, w.q1, text, w.s0, w.s1);
  if (fromCore !== null) return fromCore;
  const q = wordsOf(query, w.q0, w.q1),
    s = wordsOf(text, w.s0, w.s1);
  return { q, s, ...wordIds(q, s) };
}

/** Most replaced words per word of a copy (a tenth): more is an edit the aligner should measure. */
const REPLACED_SHARE = 0.1;

/**
 * The spans of the copies that explain `regions` (seed regions of one candidate, UTF-16 spans of `query` and
 * `text`) inside `windows` (each region inside one: the aligner's probe windows), or null when the aligner must
 * decide: a region no copy covers in both texts, a copy of fewer than VERBATIM_MIN_WORDS words or with more than
 * a tenth of its words replaced, or one that reaches its window's edge short of the text's. Spans as the
 * aligner's verbatim passages: first word's start to last word's end, past closing punctuation and quotes; score
 * the share of words that agree. With `core`, the windows are tokenised by the core (the same words and spans).
 * @example
 * copySpans(query, text, [{ q0: 0, q1: query.length, s0: 0, s1: text.length }], regions) // [{ a_start, … }] or null
 * copySpans(query, text, windows, regions, core) // the same, the windows' words from the core's tokenizer
 */
export function copySpans(
  query: string,
  text: string,
  windows: readonly CopyWindow[],
  regions: ReadonlyArray<{
    readonly query_start: number;
    readonly query_end: number;
    readonly source_start: number;
    readonly source_end: number;
  }>,
  core?: Core,
): AlignedSpan[] | null {
  const spans: AlignedSpan[] = [];
  const explained = new Set<object>();
  for (const w of windows) {
    const own = regions.filter(
      (r) => r.query_start >= w.q0 && r.query_end <= w.q1 && r.source_start >= w.s0 && r.source_end <= w.s1,
    );
    if (own.length === 0) continue;
    for (const r of own) explained.add(r);
    const { q, s, Q, S } = windowWords(query, text, w, core);
    // the walk's loops run in the core where there is one (compiled before their first call), else in TypeScript
    const found = core === undefined ? walkCopies(Q, q, S, own) : walkCopiesInCore(core, Q, q, S, own);
    if (found === null) return null;
    const copies: Copy[] = [];
    for (const c of found) {
      const n = c.a1 - c.a0;
      if (n < VERBATIM_MIN_WORDS || c.replaced > REPLACED_SHARE * n) return null;
      // a copy that runs to a window's edge may run on past it: the aligner widens the window
      if ((c.a0 === 0 && w.q0 > 0) || (c.b0 === 0 && w.s0 > 0)) return null;
      if ((c.a1 === Q.length && w.q1 < query.length) || (c.b1 === S.length && w.s1 < text.length)) return null;
      copies.push(c);
    }
    // copies of one stretch of the query (a document that repeats a passage): the longest stands, as the aligner's
    const kept: Copy[] = [];
    for (const c of copies.sort((x, y) => y.a1 - y.a0 - (x.a1 - x.a0) || x.b0 - y.b0))
      if (!kept.some((k) => k.a0 < c.a1 && c.a0 < k.a1) && !kept.some((k) => k.b0 < c.b1 && c.b0 < k.b1)) kept.push(c);
    for (const c of kept) {
      const span: AlignedSpan = {
        a_start: q.start[c.a0],
        a_end: closeAt(query, q.end[c.a1 - 1]),
        b_start: s.start[c.b0],
        b_end: closeAt(text, s.end[c.b1 - 1]),
        score: 1 - c.replaced / (c.a1 - c.a0),
      };
      if (isAsciiOnly(query.slice(span.a_start, span.a_end)) && isAsciiOnly(text.slice(span.b_start, span.b_end)))
        copyRuns.set(span, {
          tokens: c.a1 - c.a0,
          similarity: c.shared === undefined ? runShare(Q, c.a0, c.a1, S, c.b0, c.b1) : c.shared / (c.a1 - c.a0),
        });
      spans.push(span);
    }
  }
  // a region outside every window (not what the aligner's probes give) is not explained
  if (explained.size < regions.length) return null;
  return spans.sort((x, y) => x.a_start - y.a_start || x.b_start - y.b_start);
}

/**
 * The shared word runs (`runsOf` of src/align/reuse.ts: tokens, similarity) of a span {@link copySpans} gave, read
 * from the walk's words, for a copy whose two passages are ASCII: what `runsOf` of the passages normalised again
 * gives, without normalising them again. Why the words are the same: ASCII text normalises to its runs of
 * [A-Za-z0-9], lowercased, whatever surrounds it — a span starts at its first word's first character and ends at
 * its last word's end or past closing punctuation, so no word is cut and no character outside it joins a word in
 * it (a combining mark after its last letter would have been inside it: not ASCII) — and the ids of the walk are
 * equal where the words are (a word of the document the query lacks is -1, equal to none, as a word of the source
 * passage that the query passage lacks is in `runsOf`). Other spans are not here: the caller normalises them.
 */
export const copyRuns = new WeakMap<AlignedSpan, { readonly tokens: number; readonly similarity: number }>();

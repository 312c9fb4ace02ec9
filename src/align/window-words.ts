/**
 * The words of the walk's two windows (src/align/copies.ts) from the core's tokenizer: each window's tokens and
 * their spans as `normalize` cuts them, numbered by the core's hash of each token's normalised form, with an exact
 * check of the form wherever two tokens' hashes agree — both windows tokenised in one layout and numbered by the
 * core (assembly/windowids.ts), which reads their token columns and UTF-8 where the tokenizer left them.
 *
 * Why: the walk runs once or twice for each output a scan searches, a few hundred times a process, as baseline
 * code, where normalising its windows in JavaScript (a loop over every character, then `split` and a Map of the
 * words) cost about as much as the walk and the aligner's windows together; and then numbering the core's tokens in
 * JavaScript (a Map of the hashes, a string for each new form, a comparison for each repeat) cost about 140 ns a
 * token, three times the core's tokenizer. Where the core declines, so did that JavaScript numbering (it kept only
 * the low 32 bits of each hash and made the same check of the characters: property-tested), so the caller goes
 * straight to the normalised strings.
 */
import type { Core, Layout } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { tokenizeMapped, type WordTokens } from '../fingerprint/words.js';

/** Words of a window: the span of each in the whole text (UTF-16 offsets). */
export interface WindowSpans {
  readonly start: Uint32Array;
  readonly end: Uint32Array;
}

/** Both windows' words and their ids (equal words, equal ids; a document word the query lacks is −1). */
export interface WindowWordIds {
  readonly q: WindowSpans;
  readonly s: WindowSpans;
  readonly Q: Int32Array;
  readonly S: Int32Array;
}

/** The smallest power of two ≥ 2n (at least 16), as the kernel sizes its table. */
function tableSize(n: number): number {
  let size = 16;
  while (size < 2 * n) size *= 2;
  return size;
}

/** Bytes of scratch the windowIds kernel needs for a query window of `nq` words (its table and each form's place). */
export const windowIdsScratch = (nq: number): number => 12 * tableSize(nq) + 8 * nq;

/** The tokens of `text.slice(from, to)` in the core, laid out in `L`. */
function windowTokens(core: Core, L: Layout, text: string, from: number, to: number): WordTokens {
  return tokenizeMapped(core, L, from === 0 && to === text.length ? text : text.slice(from, to));
}

/**
 * The words of `query.slice(q0, q1)` and `text.slice(s0, s1)` as the walk reads them — the tokens of
 * `normalize` of each slice, their spans in the whole texts, ids numbered in the order the query's forms first
 * appear and −1 for a document word whose form the query's window lacks — tokenised by `core`. Null where the
 * forms cannot be told apart from their hashes and characters alone (a form that is not ASCII letters and digits
 * met twice, two forms whose hashes agree) or the core refuses a window (a lone surrogate): the caller numbers
 * the words by their normalised strings, which give the same ids (property-tested).
 * @example
 * const w = windowWordIds(core, 'The cat. THE CAT', 0, 16, 'a cat', 0, 5) // w.Q [0, 1, 0, 1], w.S [-1, 1]
 */
export function windowWordIds(
  core: Core,
  query: string,
  q0: number,
  q1: number,
  text: string,
  s0: number,
  s1: number,
): WindowWordIds | null {
  try {
    return core.guard(() => {
      const L = core.layout();
      const q = windowTokens(core, L, query, q0, q1);
      const s = windowTokens(core, L, text, s0, s1);
      const nq = q.count,
        ns = s.count;
      const scratch = L.take(windowIdsScratch(nq)),
        out = L.take(12 * (nq + ns));
      L.commit();
      const settled = core.raw.windowIds(
        q.inputPtr,
        q.byteLength,
        q1 - q0,
        nq,
        q.startsPtr,
        q.endsPtr,
        q.hashesPtr,
        q0,
        s.inputPtr,
        s.byteLength,
        s1 - s0,
        ns,
        s.startsPtr,
        s.endsPtr,
        s.hashesPtr,
        s0,
        scratch,
        out,
      );
      if (settled === 0) return null;
      // one copy out of the core, six views of it
      const b = new Uint32Array(core.u8.buffer, out, 3 * (nq + ns)).slice().buffer;
      const sAt = 12 * nq;
      return {
        q: { start: new Uint32Array(b, 0, nq), end: new Uint32Array(b, 4 * nq, nq) },
        s: { start: new Uint32Array(b, sAt, ns), end: new Uint32Array(b, sAt + 4 * ns, ns) },
        Q: new Int32Array(b, 8 * nq, nq),
        S: new Int32Array(b, sAt + 8 * ns, ns),
      };
    });
  } catch (e) {
    // a lone surrogate: the caller's `normalize` reports it, with its index in the whole text
    if (e instanceof TrainprintError && e.code === 'INVALID_INPUT') return null;
    throw e;
  }
}

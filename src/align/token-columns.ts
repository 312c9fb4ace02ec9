/**
 * A window's tokens as the core's tokenizer gives them, each given an id as it is read out of the core's memory:
 * where each token lies in the whole text and the id a {@link TokenNamer} makes of its form's key (the low 32 bits
 * of the core's 64-bit hash of the form: equal forms, equal keys) and its characters. The lexicon's tokens
 * (./tokens.ts) read the core this way; the walk's words (./window-words.ts) are numbered by the core itself.
 *
 * Why one pass: this runs for every window a scan's searches read, a few hundred times a process, as baseline code,
 * where copying the core's columns out first and naming the tokens in a second loop cost ≈ 70 M instructions more
 * (callgrind, the 148 searched outputs of the bench's 10 MB scan).
 */
import type { Core } from '../core/abi.js';
import { withTokenHashes } from '../fingerprint/words.js';

/** Gives each token of a window its id ({@link namedTokens}). */
export interface TokenNamer {
  /**
   * The id of the `i`-th token, at [a, b) of `text`, whose normalised form's key is `key`; {@link UNDECIDED} gives up
   * the whole window (the caller takes another path).
   */
  idOf(key: number, text: string, a: number, b: number, i: number): number;
}

/** {@link TokenNamer.idOf}'s answer for a token it cannot name: the window is given up. */
export const UNDECIDED = -2;

/** Tokens of a window: spans in the whole text (UTF-16 offsets) and their ids. */
export interface NamedTokens {
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly id: Int32Array;
}

/**
 * The tokens of `text.slice(from, to)` — those of `normalize` of that slice, in order — with their spans in the whole
 * of `text` and the ids `namer` gives them, read from the core; null when `namer` gives up a token. Throws the core's
 * INVALID_INPUT for a lone surrogate.
 * @example
 * const t = namedTokens(core, 'The cat. THE CAT', 9, 16, { idOf: (key) => key }) // t.start [9, 13], t.end [12, 16]
 */
export function namedTokens(core: Core, text: string, from: number, to: number, namer: TokenNamer): NamedTokens | null {
  return withTokenHashes(core, from === 0 && to === text.length ? text : text.slice(from, to), (t) => {
    const n = t.count,
      hashes = t.hashes,
      starts = t.starts,
      ends = t.ends;
    const start = new Uint32Array(n),
      end = new Uint32Array(n),
      id = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const a = from + starts[i],
        b = from + ends[i];
      const k = namer.idOf(hashes[2 * i] | 0, text, a, b, i);
      if (k === UNDECIDED) return null;
      start[i] = a;
      end[i] = b;
      id[i] = k;
    }
    return { start, end, id };
  });
}

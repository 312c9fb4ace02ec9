/**
 * The words of the walk's two windows (src/align/copies.ts) from the core's tokenizer: each window's tokens and
 * their spans as `normalize` cuts them, numbered by the core's hash of each token's normalised form, with an exact
 * check of the form wherever two tokens' hashes agree.
 *
 * Why: the walk runs once or twice for each output a scan searches, a few hundred times a process, as baseline
 * code, where normalising its windows in JavaScript (a loop over every character, then `split` and a Map of the
 * words) cost about as much as the walk and the aligner's windows together. The core tokenises a window from its
 * first call at native speed; what is left here is a loop over the tokens.
 */
import type { Core } from '../core/abi.js';
import { TrainprintError } from '../errors.js';
import { ASCII_WORD, sameAsciiForm } from './ascii-forms.js';
import { namedTokens, type TokenNamer, UNDECIDED } from './token-columns.js';

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

/**
 * The ids the query's words are given: by the low 32 bits of each form's 64-bit hash (equal forms, equal hashes),
 * with the characters of the id's first word, when they are ASCII letters and digits ('' otherwise), to check the
 * form of every later word of that hash against. `add`: whether a form not held gets a new id (the query's window)
 * or −1 (the document's).
 */
class FormIds implements TokenNamer {
  readonly #ids = new Map<number, number>();
  readonly #forms: string[] = [];
  add = true;

  /** The id of the word at [a, b) of `text` hashed `key` ({@link UNDECIDED}: a form these checks cannot tell). */
  idOf(key: number, text: string, a: number, b: number): number {
    const id = this.#ids.get(key);
    if (id === undefined) {
      if (!this.add) return -1;
      const made = this.#forms.length;
      this.#ids.set(key, made);
      const form = text.slice(a, b);
      this.#forms.push(ASCII_WORD.test(form) ? form : '');
      return made;
    }
    return sameAsciiForm(this.#forms[id], text, a, b) ? id : UNDECIDED;
  }
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
    const ids = new FormIds();
    const q = namedTokens(core, query, q0, q1, ids);
    if (q === null) return null;
    ids.add = false;
    const s = namedTokens(core, text, s0, s1, ids);
    if (s === null) return null;
    return { q, s, Q: q.id, S: s.id };
  } catch (e) {
    // a lone surrogate: the caller's `normalize` reports it, with its index in the whole text
    if (e instanceof TrainprintError && e.code === 'INVALID_INPUT') return null;
    throw e;
  }
}

/**
 * Obviously-correct oracle of the core's windowIds (assembly/windowids.ts), on strings: each window's text, its
 * tokens' spans in it (UTF-16 offsets) and their 64-bit form hashes, as the core's tokenizer gives them. The query's
 * tokens are numbered by their hashes in the order they first appear; a token whose hash is held stands for that form
 * only when both its characters and those of the form's first token are ASCII letters and digits, equal but for
 * case — else the windows are given up (null). A document token whose hash the query lacks is −1. For tests only.
 */

/** One window's tokens: its text, their spans in it and their form hashes. */
export interface WindowTokensRef {
  readonly text: string;
  readonly start: ArrayLike<number>;
  readonly end: ArrayLike<number>;
  readonly hash: readonly bigint[];
}

const ASCII_WORD = /^[A-Za-z0-9]+$/;

/**
 * The ids of the query window's tokens and the document window's, or null where a token's form cannot be settled.
 * @example windowIdsRef(q, s) // { Q: [0, 1, 0], S: [-1, 1] }
 */
export function windowIdsRef(q: WindowTokensRef, s: WindowTokensRef): { Q: number[]; S: number[] } | null {
  // hash → id and the lower case of its first token's characters, when they are ASCII letters and digits (else null)
  const forms = new Map<bigint, { id: number; ascii: string | null }>();
  const name = (w: WindowTokensRef, add: boolean): number[] | null => {
    const ids: number[] = [];
    for (let i = 0; i < w.hash.length; i++) {
      const word = w.text.slice(w.start[i], w.end[i]);
      const ascii = ASCII_WORD.test(word) ? word.toLowerCase() : null;
      const held = forms.get(w.hash[i]);
      if (held === undefined) {
        if (!add) {
          ids.push(-1);
          continue;
        }
        forms.set(w.hash[i], { id: forms.size, ascii });
        ids.push(forms.size - 1);
      } else if (held.ascii !== null && held.ascii === ascii) ids.push(held.id);
      else return null;
    }
    return ids;
  };
  const Q = name(q, true);
  if (Q === null) return null;
  const S = name(s, false);
  return S === null ? null : { Q, S };
}

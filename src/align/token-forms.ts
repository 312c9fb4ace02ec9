/**
 * The normalised form of one of the core's tokens that is not plain ASCII, without normalising the whole text: the
 * stretch of text between the white space around the token, normalised alone. The normaliser composes nothing across
 * white space and no token crosses it, so that stretch's tokens are the whole text's tokens there, in order
 * (`TokenizedText` of ./tokens.ts rests on the same: property-tested); the count of them is checked against the
 * core's tokens inside the stretch all the same.
 *
 * Why: a text's first token form outside ASCII that a table has not seen (the content-word pairs' stems, the
 * aligner's lexicon) had the whole text normalised in TypeScript to read that one form — for each document of a
 * dataset's content-word index that held one (≈ 0.1 s of the 5 MB starter dataset's index, which `trainprint
 * analyze` builds on every run), where the stretch is a word or two.
 */
import { normalize } from '../text/normalize.js';
import { isTokenSeparator } from '../util/space.js';

/** Longest stretch normalised for one token (text without white space, as Chinese prose: the caller takes it all). */
const STRETCH_MAX = 256;

/**
 * The form `normalize(text)` gives token `i` of the `count` tokens whose spans in `text` are `starts` and `ends` (the
 * core's tokens of `text`, in order), read from the white-space-delimited stretch around it; undefined when that
 * stretch is longer than {@link STRETCH_MAX} on either side or its tokens do not count as the core's there (the
 * caller then reads the form from the whole text normalised).
 * @example tokenForm('Ｃafé au lait', starts, ends, 3, 0) // 'café' (tokens at [0, 4), [5, 7), [8, 12))
 */
export function tokenForm(
  text: string,
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  count: number,
  i: number,
): string | undefined {
  let a = starts[i];
  const lowest = Math.max(0, a - STRETCH_MAX);
  while (a > lowest && !isTokenSeparator(text.charCodeAt(a - 1))) a--;
  if (a > 0 && !isTokenSeparator(text.charCodeAt(a - 1))) return undefined;
  let b = ends[i];
  const highest = Math.min(text.length, b + STRETCH_MAX);
  while (b < highest && !isTokenSeparator(text.charCodeAt(b))) b++;
  if (b < text.length && !isTokenSeparator(text.charCodeAt(b))) return undefined;
  let first = i;
  while (first > 0 && starts[first - 1] >= a) first--;
  let last = i;
  while (last + 1 < count && ends[last + 1] <= b) last++;
  let norm: string;
  try {
    norm = normalize(text.slice(a, b)).text;
  } catch {
    return undefined; // a lone surrogate: the whole text's normalisation reports it
  }
  const forms = norm.length === 0 ? [] : norm.split(' ');
  return forms.length === last - first + 1 ? forms[i - first] : undefined;
}

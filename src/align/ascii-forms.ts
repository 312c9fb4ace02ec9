/**
 * Word forms told apart without normalising: a token of ASCII letters and digits alone normalises to its lower
 * case (NFKC_Casefold leaves ASCII letters and digits as they are but for case, and every other ASCII character
 * separates tokens: src/text/normalize.ts; a token's span holds every character that made its form, so a mark that
 * composes with its last letter is inside it, and no composition takes an ASCII letter as its second character), so
 * such a token's form can be checked against another's from the characters of the text. For the core's tokens, which
 * come with a hash of each form rather than the form.
 */

/** A token made only of ASCII letters and digits: its normalised form is its lower case. */
export const ASCII_WORD = /^[A-Za-z0-9]+$/;

/**
 * Whether the token at [a, b) of `text` has the normalised form of `form`, a token of ASCII letters and digits (in
 * any case): the same characters, or the same but for case, both ASCII. False for every other token: one that is
 * not ASCII letters and digits, or another word, or an empty `form` (the caller's mark of a form that is not ASCII).
 * @example
 * sameAsciiForm('the', 'The cat', 0, 3) // true
 * sameAsciiForm('fix', 'ﬁx', 0, 2)      // false: the ligature normalises to 'fix', but that needs the normaliser
 */
export function sameAsciiForm(form: string, text: string, a: number, b: number): boolean {
  if (form.length === 0 || b - a !== form.length) return false;
  if (text.startsWith(form, a)) return true;
  const word = text.slice(a, b);
  return ASCII_WORD.test(word) && word.toLowerCase() === form.toLowerCase();
}

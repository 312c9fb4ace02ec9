/**
 * The characters JavaScript's `\s` matches (ECMAScript WhiteSpace and LineTerminator), by code unit: what every
 * tokenizer downstream treats as a break. Here, below every layer, so that the text layer and the remote search
 * (which imports nothing of src/text/: dist/remote.js is a bundle of its own) read one definition.
 */

/**
 * True for the characters JavaScript's `\s` matches.
 *
 * @example
 * isSpace(0x20) // true
 * isSpace(0xa0) // true
 * isSpace(0x41) // false
 */
export function isSpace(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * True for the white space that separates word tokens: {@link isSpace} without U+FEFF, which the normaliser drops as
 * a default ignorable (a token runs on across it). No token crosses such a character and the normaliser composes
 * nothing across one, so text cut there normalises to the same tokens as the whole (src/align/tokens.ts,
 * src/align/token-forms.ts).
 * @example isTokenSeparator(0x3000) // true
 * @example isTokenSeparator(0xfeff) // false
 */
export function isTokenSeparator(c: number): boolean {
  return c !== 0xfeff && isSpace(c);
}

/**
 * The words of `text` in [start, end): runs of characters that are not {@link isSpace} (what `text.match(/\S+/g)`
 * counts). The one word count of every place that shows one — a file's words, a section's, a scan hit's, a remote
 * document's — so that a book has one number of words wherever it is read.
 * @example countWords(' two\twords\n') // 2
 * @example countWords('a bb  c', 0, 4) // 2
 */
export function countWords(text: string, start = 0, end = text.length): number {
  let words = 0;
  let inWord = false;
  for (let i = start; i < end; i++) {
    const space = isSpace(text.charCodeAt(i));
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

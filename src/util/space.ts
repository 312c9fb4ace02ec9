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

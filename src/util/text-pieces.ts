/**
 * A long string in pieces, for work done a piece at a time with turns of the event loop between (a work hash, a
 * store's encoding).
 */

/**
 * `text` in pieces of about `units` UTF-16 units, never cut between the halves of a pair (one unit fewer there, or one
 * more where the piece would be empty): each piece's UTF-8 is then its part of the whole's, and a piece holds a lone
 * surrogate exactly where the whole does. The pieces are `slice`s (which engines keep as views of the whole).
 * @example [...wholePairPieces('ab😀c', 3)] // ['ab', '😀c']
 */
export function* wholePairPieces(text: string, units: number): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + units);
    const splitsPair =
      end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800 && (text.charCodeAt(end) & 0xfc00) === 0xdc00;
    if (splitsPair) end += end - at > 1 ? -1 : 1;
    yield text.slice(at, end);
    at = end;
  }
}

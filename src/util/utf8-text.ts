/**
 * A text held as its UTF-8 bytes, its string made when first read. For a reader whose texts are mostly hashed (their
 * bytes written into the core) and seldom read as strings: a scan of a JSON Lines file of outputs, 98–99 % of which
 * copy nothing and are never searched, decoded, parsed and encoded each output again only to hash it.
 */

const decoder = new TextDecoder();

/**
 * Well-formed UTF-8 (the maker checks it) and its length in UTF-16 units; `text` decodes it once, when first read.
 * @example const t = new Utf8Text(new TextEncoder().encode('café'), 4); t.text // 'café'
 */
export class Utf8Text {
  #text: string | undefined;

  constructor(
    /** The text's UTF-8, well-formed: no lone surrogate, no byte a decoder would replace. */
    readonly bytes: Uint8Array,
    /** The text's length in UTF-16 units (`text.length`, known without decoding it). */
    readonly units: number,
  ) {}

  /** The text as a string, decoded on first read. */
  get text(): string {
    if (this.#text === undefined) this.#text = decoder.decode(this.bytes);
    return this.#text;
  }
}

/**
 * The string of a text given as a string or as {@link Utf8Text}.
 * @example textOf(new Utf8Text(new Uint8Array([104, 105]), 2)) // 'hi'
 */
export const textOf = (t: string | Utf8Text): string => (typeof t === 'string' ? t : t.text);

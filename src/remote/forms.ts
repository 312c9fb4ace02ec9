/**
 * The forms a copy of a work can take, and queries that hold whichever one the corpus has. A book's training copy
 * rarely has the form of the file its rights holder holds: Project Gutenberg's files (PG-19, The Pile) are
 * hard-wrapped at about 70 columns with blank lines between paragraphs, two spaces after a sentence and straight
 * quotes; an EPUB's text is reflowed with curly quotes; a PDF extracts with its own line breaks; a DOCX has none.
 * Both engines match exactly — infini-gram on tokens (a SentencePiece tokenizer spells a word after a line break
 * `Word`, after a space `▁Word`), infini-gram mini on characters — so a query that crosses a place where the two
 * forms differ is not found, whatever the rest of it.
 *
 * So the queries avoid those places rather than guess them:
 * - {@link canonicalPiece}: the text sent has its white space folded to single spaces, ligatures and compatibility
 *   forms spelt out (NFKC), with a map back to the work's offsets.
 * - {@link quietWindows} (character engines): short windows of a passage inside one line of the work, holding no
 *   quote, apostrophe, dash or ellipsis and no sentence end before their last word — so that their only exposure is
 *   a line break of the corpus's own, which a short window misses more often than not; several per passage.
 * - {@link holdsText}: whether a document holds a stretch, comparing letters and digits only (forms aside).
 */

/** A stretch of the work in the form sent to an engine, with each character's offset in the work. */
export interface CanonicalPiece {
  readonly text: string;
  /** `at[i]`: the work's UTF-16 offset of `text[i]`; `at[text.length]` the end. */
  readonly at: Int32Array;
}

/**
 * `text.slice(q0, q1)` with every run of white space one space and each character in its NFKC form (`ﬁ` → `fi`,
 * `…` → `...`): the form most corpora hold prose in between two line breaks.
 *
 * @example
 * canonicalPiece('a  b\r\nc', 0, 7).text // 'a b c'
 */
export function canonicalPiece(text: string, q0: number, q1: number): CanonicalPiece {
  let out = '';
  const at: number[] = [];
  let i = q0;
  while (i < q1) {
    const c = text.charCodeAt(i);
    if (isSpaceCode(c)) {
      let j = i + 1;
      while (j < q1 && isSpaceCode(text.charCodeAt(j))) j++;
      if (out.length > 0 && j < q1) {
        out += ' ';
        at.push(i);
      }
      i = j;
      continue;
    }
    const wide = c >= 0xd800 && c <= 0xdbff && i + 1 < q1 ? 2 : 1;
    const ch = text.slice(i, i + wide);
    const form = c < 0x80 ? ch : ch.normalize('NFKC');
    for (let k = 0; k < form.length; k++) {
      out += form[k];
      at.push(i);
    }
    i += wide;
  }
  at.push(q1);
  return { text: out, at: Int32Array.from(at) };
}

const isSpaceCode = (c: number): boolean =>
  c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x2028 || c === 0x2029 || c === 0x3000;

/**
 * Characters whose form differs between copies: quotes, apostrophes, dashes, ellipses, hyphens between words, the
 * emphasis marks of Markdown (`*`, `_` at a word's edge) and any symbol outside ASCII's code punctuation.
 */
const FORM_VARIANT =
  /["'`\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00ab\u00bb\u2013\u2014\u2015\u2026*-]|\.\.|(?:^|[^\p{L}\p{N}])_|_(?:$|[^\p{L}\p{N}])|[^\p{L}\p{N}\s.,;:!?()_=<>&|+/%#{}[\]~^@$\\]/u;
/**
 * Code's arrow (`ctx->next`): a copy spells it as the work does (no typesetter makes it a dash), so it does not make a
 * word's form vary; ASCII's code punctuation (`= < > & | + / % # { } [ ] ~ ^ @ $ \`) and an underscore inside an
 * identifier (`size_t`) neither. Code allowed these is found through windows of a few of its own tokens: without them
 * the only quiet words of C were a call's name and its arguments, and its passages fell back to their last words,
 * across the line breaks of a hard-wrapped copy (fixture infini-gram, code hard-wrapped in 2,000-character documents:
 * held passages found 72 of 209).
 */
const CODE_ARROW = /(?<=[\p{L}\p{N})\]])->(?=[\p{L}\p{N}_])/gu;
const quietWord = (w: string): boolean => !FORM_VARIANT.test(w.normalize('NFKC').replace(CODE_ARROW, '.'));
/** A word that ends a sentence (two spaces may follow it in a copy). */
const SENTENCE_END = /[.!?]\)?$/;

/** Fewest characters of a window (a shorter one is found by chance in a web-scale corpus). */
export const WINDOW_MIN_CHARS = 28;
/** Fewest words of a window. */
export const WINDOW_MIN_WORDS = 5;
/**
 * The window of text of long words: as few as 3 words where they hold 36 characters (fewer words are found by chance
 * too often). What exposes a window to a copy hard-wrapped at about 70 columns is its length in characters, not in
 * words: in text of long words (code identifiers, names, made-up or compound words) five words run to 50–70
 * characters, so a line break of the copy falls inside most windows and the passage is found far less often than one
 * of English (where five words are about 30 characters and 36 about six). Measured on the fixture engines: code-like
 * passages' windows 65 → 42 characters; an English window shorter than five words in 1 of 567 (mini) and 4 of 950
 * (infini-gram).
 */
export const DENSE_WINDOW = { words: 3, chars: 36 } as const;

/** A window of a passage: its UTF-16 span in the work and the query (canonical). */
export interface Window {
  readonly q0: number;
  readonly q1: number;
  readonly query: string;
}

/**
 * Up to `count` windows of `text.slice(q0, q1)` that a copy in another form most likely holds verbatim (see the
 * module comment): each ≥ {@link WINDOW_MIN_WORDS} words and ≥ {@link WINDOW_MIN_CHARS} characters, or as
 * {@link DENSE_WINDOW} (≥ 3 words and ≥ 36 characters), the shortest that is, inside one line of the work, without
 * quotes, dashes or ellipses, no sentence end before its last word; spread over the passage, from its end back. Where
 * no such window exists, the passage's last words (canonical).
 *
 * @example
 * quietWindows('It was a truth universally acknowledged by all the neighbours.', 0, 62, 2)[0].query
 * // 'acknowledged by all the neighbours.'
 */
export function quietWindows(text: string, q0: number, q1: number, count: number): Window[] {
  const words = [...text.slice(q0, q1).matchAll(/\S+/g)].map((m) => ({
    start: q0 + m.index,
    end: q0 + m.index + m[0].length,
    quiet: quietWord(m[0]),
    last: SENTENCE_END.test(m[0]),
  }));
  const out: Window[] = [];
  // from the end back: each window the shortest run of quiet words ending at its last word that is long enough
  let end = words.length - 1;
  while (end >= 0 && out.length < count) {
    let start = end,
      ok = words[end].quiet;
    while (ok && start >= 0) {
      const chars = words[end].end - words[start].start;
      const n = end - start + 1;
      if (chars >= WINDOW_MIN_CHARS && n >= WINDOW_MIN_WORDS) break;
      if (chars >= DENSE_WINDOW.chars && n >= DENSE_WINDOW.words) break;
      start--;
      ok =
        start >= 0 &&
        words[start].quiet &&
        !words[start].last &&
        !/\n/.test(text.slice(words[start].end, words[start + 1].start));
    }
    if (ok && start >= 0) {
      const w = canonicalPiece(text, words[start].start, words[end].end);
      out.push({ q0: words[start].start, q1: words[end].end, query: w.text });
      end = start - 1; // the next window before this one: disjoint, another line of the copy
    } else {
      end--;
    }
  }
  if (out.length === 0 && words.length > 0) {
    const first = words[Math.max(0, words.length - 2 * WINDOW_MIN_WORDS)];
    const w = canonicalPiece(text, first.start, words[words.length - 1].end);
    out.push({ q0: first.start, q1: words[words.length - 1].end, query: w.text });
  }
  return out;
}

/**
 * The forms of a window to ask a token engine for at once (OR-ed in one call): the window as the work has it and,
 * where it holds typographic quotes, primes or dashes (only a passage's fallback window does), as a typed copy
 * spells them ({@link plainPiece}). A term that holds ` OR ` or ` AND ` (which the API would read as a CNF) is left
 * out.
 *
 * @example
 * windowTerms({ q0: 0, q1: 17, query: '“Yes—no,” he said' }) // ['“Yes—no,” he said', '"Yes--no," he said']
 */
export function windowTerms(window: Window): string[] {
  const plain = plainPiece({ text: window.query, at: new Int32Array(window.query.length + 1) }).text;
  return [...new Set([window.query, plain])].filter((t) => !/ (OR|AND) /.test(t));
}

/** Typographic quotes, primes and dashes, and the plain form a copy typed on a keyboard has them in. */
const PLAIN_FORMS: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u00ab': '"',
  '\u00bb': '"',
  '\u2013': '-',
  '\u2014': '--',
  '\u2015': '--',
};
const TYPOGRAPHIC = /[\u2018-\u201f\u2032\u2033\u00ab\u00bb\u2013-\u2015]/;

/**
 * A canonical piece with its typographic quotes, primes and dashes in the plain forms a hard-wrapped copy has them
 * (`“` `”` → `"`, `’` → `'`, `—` → `--`; Project Gutenberg's files, PG-19): each character keeps its work offset.
 *
 * @example
 * plainPiece(canonicalPiece('“Yes—no,” he said', 0, 17)).text // '"Yes--no," he said'
 */
export function plainPiece(piece: CanonicalPiece): CanonicalPiece {
  if (!TYPOGRAPHIC.test(piece.text)) return piece;
  let out = '';
  const at: number[] = [];
  for (let i = 0; i < piece.text.length; i++) {
    const form = PLAIN_FORMS[piece.text[i]] ?? piece.text[i];
    out += form;
    for (let k = 0; k < form.length; k++) at.push(piece.at[i]);
  }
  at.push(piece.at[piece.text.length]);
  return { text: out, at: Int32Array.from(at) };
}

/** Letters and digits, lower-cased (NFKC): what two copies of a stretch share whatever their forms. */
export function letters(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Whether `document` holds `stretch`, forms aside (letters and digits compared): an engine that reports a stretch
 * found must return a document that holds it.
 *
 * @example
 * holdsText('He said, “It is\nso.”', 'said, "It is so') // true
 */
export function holdsText(document: string, stretch: string): boolean {
  const s = letters(stretch);
  return s.length > 0 && letters(document).includes(s);
}

/**
 * Control queries (canaries): windows with the shape of the ones a search asks — as many words, as long, made of the
 * work's own words — that no honest corpus holds: each of `windows` with its words in reverse order, kept only where
 * its letters occur nowhere in the work (`workLetters`: {@link letters} of the work) and it holds no ` OR ` or ` AND `.
 * An engine that reports one of them found reports found what nobody wrote. Up to `count`.
 *
 * @example
 * canaryWindows([{ q0: 0, q1: 26, query: 'the cat sat on the old mat' }], letters('the cat sat on the old mat'), 1)
 * // ['mat old the on sat cat the']
 */
export function canaryWindows(windows: readonly Window[], workLetters: string, count: number): string[] {
  const out: string[] = [];
  for (const w of windows) {
    if (out.length >= count) break;
    const reversed = w.query.split(' ').reverse().join(' ');
    const l = letters(reversed);
    if (l.length === 0 || workLetters.includes(l) || / (OR|AND) /.test(reversed) || out.includes(reversed)) continue;
    out.push(reversed);
  }
  return out;
}

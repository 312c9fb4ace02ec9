/**
 * WikiText (Merity et al. 2016, arXiv 1609.07843) back to Wikipedia's own text, for reference packs.
 *
 * WikiText is verbatim text of English Wikipedia Good and Featured articles, tokenised: every
 * punctuation mark is its own space-separated token (`( Japanese : … )`), number separators are
 * written ` @,@ ` / ` @.@ ` and in-word hyphens ` @-@ `, contractions are split (`do n't`,
 * `Sega 's`), headings are ` = Title = ` (article), ` = = Section = = ` (and deeper), and rare words
 * of the `.tokens` files are replaced by `<unk>`. One file holds many articles, each starting at its
 * ` = Title = ` line.
 *
 * The engine's normalisation already ignores punctuation and its spacing (its word tokens of
 * `role @-@ playing` and `role-playing` are the same), but not split contractions: `do n't` gives
 * the words do / n / t, `don't` gives don / t. {@link detokenizeWikiText} undoes all of it anyway,
 * so the text hashed is Wikipedia's as far as it can be recovered. `<unk>` cannot be: it is kept,
 * so the few n-grams around it match nothing (rather than inventing word sequences by dropping it).
 */

/** One article of a WikiText file. */
export interface WikiTextArticle {
  /** The title, detokenised (`Valkyria Chronicles III`). */
  readonly title: string;
  /** The article as WikiText has it: its heading line and every line up to the next article. */
  readonly raw: string;
}

/** An article heading: exactly one `=` on each side (section headings have ` = = `). */
const ARTICLE_HEADING = /^ = ([^=].*) = $/;

/**
 * Split a WikiText file (`wiki.train.tokens` …) into articles at their ` = Title = ` lines. Text
 * before the first heading is dropped. With `complete: false` the last article is dropped too: a
 * file cut at a byte count ends inside it.
 * @example
 * splitWikiText(tokens).map((a) => a.title)
 * // ['Valkyria Chronicles III', 'Tower Building of the Little Rock Arsenal', …]
 */
export function splitWikiText(text: string, options: { complete?: boolean } = {}): WikiTextArticle[] {
  const lines = text.split('\n');
  const out: WikiTextArticle[] = [];
  let title: string | null = null;
  let start = 0;
  const flush = (end: number) => {
    if (title !== null) out.push({ title, raw: lines.slice(start, end).join('\n') });
  };
  for (let i = 0; i < lines.length; i++) {
    const m = ARTICLE_HEADING.exec(lines[i]);
    if (!m) continue;
    flush(i);
    title = detokenizeLine(m[1]);
    start = i;
  }
  flush(lines.length);
  if (options.complete === false) out.pop();
  return out;
}

/** Tokens that attach to the word before them (no space before). */
const CLOSERS = new Set([
  ',',
  '.',
  ';',
  ':',
  '!',
  '?',
  '%',
  ')',
  ']',
  '}',
  "'s",
  "'S",
  "n't",
  "N'T",
  "'re",
  "'ve",
  "'ll",
  "'d",
  "'m",
]);
/** Tokens that attach to the word after them (no space after). */
const OPENERS = new Set(['(', '[', '{', '$', '£', '€', '#']);
/** WikiText's escaped in-word separators and what they stand for. */
const JOINERS: Record<string, string> = { '@-@': '-', '@,@': ',', '@.@': '.' };

/** One line of WikiText tokens back to running text. */
function detokenizeLine(line: string): string {
  const tokens = line
    .trim()
    .split(/ +/)
    .filter((t) => t.length > 0);
  let out = '';
  let glueNext = true; // no space before the first token
  let quoteOpen = false;
  for (const t of tokens) {
    const joiner = JOINERS[t];
    if (joiner !== undefined) {
      out += joiner;
      glueNext = true;
      continue;
    }
    if (t === '"') {
      // straight double quotes alternate: an opening one glues to the next word, a closing one to the last
      if (quoteOpen) out += '"';
      else out += (glueNext ? '' : ' ') + '"';
      glueNext = !quoteOpen;
      quoteOpen = !quoteOpen;
      continue;
    }
    out += (glueNext || CLOSERS.has(t) ? '' : ' ') + t;
    glueNext = OPENERS.has(t);
  }
  return out;
}

/**
 * A WikiText article (or any WikiText lines) as running text: headings become plain lines
 * (` = = Gameplay = = ` → `Gameplay`), tokens are rejoined (`role @-@ playing` → `role-playing`,
 * `1 @,@ 000` → `1,000`, `do n't` → `don't`, `( Japanese : x )` → `(Japanese: x)`), paragraphs are
 * separated by one blank line. `<unk>` stays (see the module comment).
 * @example detokenizeWikiText(' = = Reception = = \n The game sold 1 @,@ 000 copies , they said .')
 * // 'Reception\n\nThe game sold 1,000 copies, they said.'
 */
export function detokenizeWikiText(text: string): string {
  const paragraphs: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const heading = /^ (?:= )+(.*?)(?: =)+ ?$/.exec(line);
    paragraphs.push(detokenizeLine(heading ? heading[1] : line));
  }
  return paragraphs.join('\n\n');
}

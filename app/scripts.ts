/**
 * What the page needs to know about a text's script and marks to show it as its writer wrote it: the unit its
 * tokens are (a letter of Chinese, Japanese or Thai is a token of its own: docs/fingerprints.md), the language tag
 * that picks the right glyphs (Japanese kanji drawn with Chinese forms otherwise), and the quotation marks the text
 * itself put around a quotation („ “ in German, 「」 in Japanese), so a quotation is not re-dressed in English marks.
 * Pure: unit-tested without a browser.
 */
import { QUOTATION_MARKS } from '../src/text/quotation-marks.js';

/** A character that is a token on its own (the scripts written without spaces between words). */
const STANDS_ALONE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/gu;
/** A run of letters or digits of the other scripts: a word. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The unit of `text`'s tokens in words: 'words' for text written with spaces, 'characters' when the tokens of a
 * script without spaces are the most, 'words and characters' when both are many.
 * @example tokenUnit('吾輩は猫である') // 'characters'
 */
export function tokenUnit(text: string): 'words' | 'characters' | 'words and characters' {
  const alone = text.match(STANDS_ALONE)?.length ?? 0;
  if (alone === 0) return 'words';
  const words = (text.replace(STANDS_ALONE, ' ').match(WORD) ?? []).length;
  if (words === 0 || alone >= 4 * words) return 'characters';
  return words >= 4 * alone ? 'words' : 'words and characters';
}

/**
 * The BCP 47 tag a text of a script without spaces needs for its glyphs ('ja' where kana are, 'ko' for Hangul, 'zh'
 * for Han alone), or null (the page's own language serves).
 * @example textLang('名前はまだ無い') // 'ja'
 */
export function textLang(text: string): 'ja' | 'ko' | 'zh' | null {
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return 'ja';
  if (/\p{Script=Hangul}/u.test(text)) return 'ko';
  if (/\p{Script=Han}/u.test(text)) return 'zh';
  return null;
}

/**
 * Opening marks and the marks that close them: those the library's quotation rule reads (its one table, a module with
 * no imports that the page's build bundles), and the straight '"'.
 */
const PAIRS: Readonly<Record<string, string>> = { ...QUOTATION_MARKS, '"': '"' };
/** How far outside a matched span its marks may be: a chain's edges may stop a few words inside the quotation. */
const REACH = 80;

/**
 * The quotation marks `text` itself puts around `[start, end)` — the nearest opening mark before it and the closing
 * mark that pairs with it after it, each within reach and with no line break between — or null.
 * @example quoteMarks('Er las: „Als Gregor Samsa erwachte“.', 13, 32) // ['„', '“']
 */
export function quoteMarks(text: string, start: number, end: number): [string, string] | null {
  let open = -1;
  for (let i = start - 1; i >= Math.max(0, start - REACH); i--) {
    const c = text[i];
    if (c === '\n' && text[i - 1] === '\n') break;
    if (c in PAIRS) {
      open = i;
      break;
    }
  }
  if (open < 0) return null;
  const closes = PAIRS[text[open]];
  for (let i = end; i < Math.min(text.length, end + REACH); i++) {
    const c = text[i];
    if (c === '\n' && text[i + 1] === '\n') break;
    if (closes.includes(c)) return [text[open], c];
  }
  return null;
}
